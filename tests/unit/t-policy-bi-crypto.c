/* Unit tests of policy/builtins-crypto.c and builtins-providers.c. */
#include "config.h"

#include "tests/unit/policy-bi-rows.h"

static const struct bi_row rows[] = {
	{ "crypto.md5", "[\"abc\"]", "\"900150983cd24fb0d6963f7d28e17f72\"" },
	{ "crypto.sha1", "[\"abc\"]",
	    "\"a9993e364706816aba3e25717850c26c9cd0d89d\"" },
	{ "crypto.sha256", "[\"abc\"]",
	    "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	    "\"" },
	{ "crypto.sha256", "[1]",
	    "!eval_type_error:crypto.sha256: operand 1 must be string" },
	{ "crypto.hmac.md5", "[\"data\", \"key\"]",
	    "\"9d5c73ef85594d34ec4438b7c97e51d8\"" },
	{ "crypto.hmac.sha1", "[\"data\", \"key\"]",
	    "\"104152c5bfdca07bc633eebd46199f0255c9f49d\"" },
	{ "crypto.hmac.sha256", "[\"data\", \"key\"]",
	    "\"5031fe3d989c6d1537a013fa6e739da23463fdaec3b70137d828e36ace221bd0"
	    "\"" },
	{ "crypto.hmac.sha512", "[\"data\", \"key\"]",
	    "\"3c5953a18f7303ec653ba170ae334fafa08e3846f2efe317b87efce82376253c"
	    "b52a8c31ddcde5a3a2eee183c2b34cb91f85e64ddbc325f7692b199473579c58"
	    "\"" },
	{ "crypto.hmac.sha256", "[\"data\", 1]",
	    "!eval_type_error:operand 2 must be string but got number" },
	{ "crypto.hmac.equal", "[\"abc\", \"abc\"]", "true" },
	{ "crypto.hmac.equal", "[\"abc\", \"abd\"]", "false" },
	{ "crypto.hmac.equal", "[\"abc\", \"ab\"]", "false" },
	/* SigV4: the URL's userinfo and fragment are not signed, its path
	 * and query are as written, User-Agent is not signed, the body is
	 * Go's JSON (with < escaped), execute-api gets no content header */
	{ "providers.aws.sign_req",
	    "[{\"method\": \"POST\", \"url\": \"https://me@user.example."
	    "amazonaws.com:8443/path/to%20x?b=2&a=1#frag\", \"headers\": "
	    "{\"Content-Type\": \"application/json\", \"User-Agent\": \"x\"}, "
	    "\"body\": {\"k\": \"<v>\"}}, {\"aws_access_key\": \"AKID\", "
	    "\"aws_secret_access_key\": \"SECRET\", \"aws_service\": "
	    "\"execute-api\", \"aws_region\": \"eu-west-1\"}, "
	    "1700000000000000000]",
	    "{\"body\":{\"k\":\"<v>\"},\"headers\":{\"Authorization\":"
	    "\"AWS4-HMAC-SHA256 Credential=AKID/20231114/eu-west-1/execute-api/"
	    "aws4_request,SignedHeaders=content-type;host;x-amz-date,Signature="
	    "980f636f2f8f274b8e6900bde49c815d55a0d8dbe48c7c41b22afb53f0dba9c7\""
	    ","
	    "\"Content-Type\":\"application/json\",\"User-Agent\":\"x\","
	    "\"host\":\"user.example.amazonaws.com:8443\",\"x-amz-date\":"
	    "\"20231114T221320Z\"},\"method\":\"POST\",\"url\":\"https://"
	    "me@user.example.amazonaws.com:8443/path/to%20x?b=2&a=1#frag\"}" },
	{ "providers.aws.sign_req", "[{\"url\": \"http://x\"}, {}, 0]",
	    "!eval_type_error:operand 1 missing required request "
	    "parameters(s): "
	    "{\"method\"}" },
	{ "providers.aws.sign_req",
	    "[{\"method\": \"GET\", \"url\": \"http://x\"}, "
	    "{\"aws_access_key\": \"a\", \"aws_secret_access_key\": 1}, 0]",
	    "!eval_type_error:operand 2 missing required AWS config "
	    "parameters(s): {\"aws_region\", \"aws_service\"}" },
	{ "providers.aws.sign_req",
	    "[{\"method\": \"GET\", \"url\": \"http://x\"}, "
	    "{\"aws_access_key\": \"a\", \"aws_secret_access_key\": \"s\", "
	    "\"aws_service\": \"s3\", \"aws_region\": \"r\"}, 1.5]",
	    "!eval_type_error:operand 3 could not convert time_ns value" },
	{ "providers.aws.sign_req",
	    "[{\"method\": \"GET\", \"url\": \"http://x\", \"headers\": "
	    "{\"a\": 1}}, {\"aws_access_key\": \"a\", "
	    "\"aws_secret_access_key\": \"s\", \"aws_service\": \"s3\", "
	    "\"aws_region\": \"r\"}, 0]",
	    "!eval_type_error:operand 1 'headers' must map strings to "
	    "strings" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
