/* Unit tests of policy/builtins-crypto.c. */
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
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
