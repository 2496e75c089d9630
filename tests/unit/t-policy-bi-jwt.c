/* Unit tests of policy/builtins-jwt.c.  RSA and EC keys are generated
 * here with OpenSSL and handed to the builtins as JWKs and PEM. */
#include "config.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "policy/value-extra-b.h"
#include "tests/unit/policy-bi-rows.h"

#define TOK                                                                    \
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibm"  \
	"FtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpM"  \
	"eJf36POk6yJV_adQssw5c"
#define OCT "{\"kty\": \"oct\", \"k\": \"eW91ci0yNTYtYml0LXNlY3JldA\"}"
/* RFC 8037 A.1's Ed25519 key, and a token it signed */
#define ED_PUB                                                                 \
	"{\\\"kty\\\":\\\"OKP\\\",\\\"crv\\\":\\\"Ed25519\\\",\\\"x\\\":"      \
	"\\\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\\\"}"
#define ED_JWK                                                                 \
	"{\\\"kty\\\":\\\"OKP\\\",\\\"crv\\\":\\\"Ed25519\\\",\\\"x\\\":"      \
	"\\\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\\\",\\\"d\\\":"       \
	"\\\"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A\\\"}"
#define ED_TOK                                                                 \
	"eyJhbGciOiJFZERTQSJ9.eyJhIjoxfQ.vGKVz1ca21v6_dmpbt3FX0ENvaIXzgayEazf" \
	"TOZwAnZxYjHwvS9-eT0EsjCDwBNeZKO7vVQT0879n9w35GD-Aw"

static const struct bi_row rows[] = {
	{ "io.jwt.decode", "[\"" TOK "\"]",
	    "[{\"alg\":\"HS256\",\"typ\":\"JWT\"},{\"iat\":1516239022,"
	    "\"name\":\"John Doe\",\"sub\":\"1234567890\"},"
	    "\"49f94ac7044948c78a285d904f87f0a4c7897f7e8f3a4eb2255fda750b2cc3"
	    "97\"]" },
	/* cty JWT: the (quoted) payload is the token that is decoded */
	{ "io.jwt.decode",
	    "[\"eyJhbGciOiJIUzI1NiIsImN0eSI6IkpXVCJ9.ImV5SmhiR2NpT2lKSVV6STFOaU"
	    "lzSW5SNWNDSTZJa3BYVkNKOS5leUp6ZFdJaU9pSXhNak0wTlRZM09Ea3dJaXdpYm1G"
	    "dF"
	    "pTSTZJa3B2YUc0Z1JHOWxJaXdpYVdGMElqb3hOVEUyTWpNNU1ESXlmUS5TZmxLeHdS"
	    "Sl"
	    "NNZUtLRjJRVDRmd3BNZUpmMzZQT2s2eUpWX2FkUXNzdzVjIg.c2ln\"]",
	    "[{\"alg\":\"HS256\",\"typ\":\"JWT\"},{\"iat\":1516239022,"
	    "\"name\":\"John Doe\",\"sub\":\"1234567890\"},"
	    "\"49f94ac7044948c78a285d904f87f0a4c7897f7e8f3a4eb2255fda750b2cc3"
	    "97\"]" },
	{ "io.jwt.decode", "[\"abc\"]",
	    "!eval_builtin_error:io.jwt.decode: encoded JWT had no period "
	    "separators" },
	{ "io.jwt.decode", "[\"a.b\"]",
	    "!eval_builtin_error:encoded JWT must have 3 sections, found 2" },
	{ "io.jwt.decode",
	    "[\"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ$.abc\"]",
	    "!eval_builtin_error:JWT payload had invalid encoding: illegal "
	    "base64 data at input byte 3" },
	{ "io.jwt.decode",
	    "[\"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.a$bc\"]",
	    "!eval_builtin_error:JWT signature had invalid encoding: illegal "
	    "base64 data at input byte 1" },
	{ "io.jwt.decode", "[\"eyJlbmMiOiJ4In0.e30.\"]",
	    "!eval_builtin_error:JWT is a JWE object" },
	{ "io.jwt.verify_hs256", "[\"" TOK "\", \"your-256-bit-secret\"]",
	    "true" },
	{ "io.jwt.verify_hs256", "[\"" TOK "\", \"another secret\"]", "false" },
	{ "io.jwt.verify_hs384", "[\"" TOK "\", \"your-256-bit-secret\"]",
	    "false" },
	{ "io.jwt.verify_hs256", "[\"a.b\", \"s\"]",
	    "!eval_builtin_error:encoded JWT must have 3 sections, found 2" },
	{ "io.jwt.encode_sign_raw",
	    "[\"{\\\"alg\\\":\\\"HS256\\\",\\\"typ\\\":\\\"JWT\\\"}\", "
	    "\"{\\\"sub\\\":\\\"1234567890\\\",\\\"name\\\":\\\"John "
	    "Doe\\\",\\\"iat\\\":1516239022}\", \""
	    "{\\\"kty\\\": "
	    "\\\"oct\\\", \\\"k\\\": \\\"eW91ci0yNTYtYml0LXNlY3JldA\\\"}"
	    "\"]",
	    "\"" TOK "\"" },
	{ "io.jwt.encode_sign_raw",
	    "[\"{\\\"alg\\\":\\\"HS256\\\"}\", "
	    "\"not json\", \""
	    "{\\\"kty\\\": "
	    "\\\"oct\\\", \\\"k\\\": \\\"eA\\\"}\"]",
	    "!eval_builtin_error:type is JWT but payload is not JSON" },
	{ "io.jwt.encode_sign_raw", "[\"{}\", \"{}\", \"{}\"]",
	    "!eval_builtin_error:missing or invalid 'alg' header: jwsbb: "
	    "header \"alg\" not found" },
	{ "io.jwt.encode_sign_raw", "[\"\", \"{}\", \"{}\"]",
	    "!eval_builtin_error:missing or invalid 'alg' header: cannot "
	    "parse JSON: cannot parse empty string" },
	{ "io.jwt.encode_sign_raw",
	    "[\"{\\\"typ:\\\"JWT\\\"}\", "
	    "\"{}\", \"{}\"]",
	    "!eval_builtin_error:missing or invalid 'alg' header: cannot "
	    "parse JSON" },
	{ "io.jwt.encode_sign",
	    "[{\"alg\": \"HS256\", \"typ\": \"JWT\"}, {\"sub\": "
	    "\"1234567890\", \"name\": \"John Doe\", \"iat\": 1516239022}, " OCT
	    "]",
	    /* keys are sorted, so the payload text differs from TOK */
	    "\"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE1MTYyMzkwMjIsI"
	    "m5hbWUiOiJKb2huIERvZSIsInN1YiI6IjEyMzQ1Njc4OTAifQ."
	    "fdOPQ05ZfRhkST2-rIWgUpbqUsVhkkNVNcuG7Ki0s-8\"" },
	{ "io.jwt.decode_verify",
	    "[\"" TOK "\", {\"secret\": "
	    "\"your-256-bit-secret\"}]",
	    "[true,{\"alg\":\"HS256\",\"typ\":\"JWT\"},{\"iat\":1516239022,"
	    "\"name\":\"John Doe\",\"sub\":\"1234567890\"}]" },
	{ "io.jwt.decode_verify",
	    "[\"" TOK "\", {\"secret\": \"your-256-bit-secret\", \"alg\": "
	    "\"HS512\"}]",
	    "[false,{},{}]" },
	{ "io.jwt.decode_verify",
	    "[\"" TOK "\", {\"secret\": \"your-256-bit-secret\", \"iss\": "
	    "\"x\"}]",
	    "[false,{},{}]" },
	{ "io.jwt.decode_verify",
	    "[\"" TOK "\", {\"secret\": \"your-256-bit-secret\", \"aud\": "
	    "\"x\"}]",
	    "[false,{},{}]" },
	{ "io.jwt.decode_verify", "[\"" TOK "\", {\"secret\": \"wrong\"}]",
	    "[false,{},{}]" },
	{ "io.jwt.decode_verify", "[\"" TOK "\", {}]",
	    "!eval_builtin_error:exactly one of the cert and secret" },
	{ "io.jwt.decode_verify",
	    "[\"" TOK "\", {\"secret\": \"s\", "
	    "\"colour\": \"red\"}]",
	    "!eval_builtin_error:unknown token validation constraint: colour" },
	/* EdDSA (Ed25519, RFC 8037's key): deterministic signatures */
	{ "io.jwt.encode_sign_raw",
	    "[\"{\\\"alg\\\":\\\"EdDSA\\\"}\", \"{\\\"a\\\":1}\", \"" ED_JWK
	    "\"]",
	    "\"" ED_TOK "\"" },
	{ "io.jwt.decode_verify",
	    "[\"" ED_TOK "\", {\"cert\": \"" ED_PUB "\"}]",
	    "[true,{\"alg\":\"EdDSA\"},{\"a\":1}]" },
	{ "io.jwt.decode_verify",
	    "[\"" ED_TOK "\", {\"cert\": \"" ED_PUB "\", \"alg\": \"ES256\"}]",
	    "[false,{},{}]" },
	/* a key of another type never verifies an EdDSA signature */
	{ "io.jwt.decode_verify", "[\"" ED_TOK "\", {\"secret\": \"s\"}]",
	    "[false,{},{}]" },
	/* an extension made critical is not understood: never verified */
	{ "io.jwt.decode_verify",
	    "[\"eyJhbGciOiJIUzI1NiIsImNyaXQiOlsieCJdLCJ4IjoxfQ.eyJhIjoxfQ."
	    "YqeWIOzUgwo0jqufXokf06-8eBVYoffFAMwbTKF1VBY\", {\"secret\": "
	    "\"s\"}]",
	    "[false,{},{}]" },
	/* cty JWT: the outer and the inner token are verified, the inner
	 * one answers */
	{ "io.jwt.decode_verify",
	    "[\"eyJhbGciOiJIUzI1NiIsImN0eSI6IkpXVCJ9.ZXlKaGJHY2lPaUpJVXpJMU5p"
	    "Sjku"
	    "ZXlKaElqb3hmUS5xNXN2UDgtOVk4WWtiS3dDVFduRGtBWVpXeG9iUEJrRGN1RnVlT2"
	    "dkRmQ4.SU0OGR14GvWFdranlhfgTd96-0sA46J1qlFH4vB3bPc\", "
	    "{\"secret\": "
	    "\"s\"}]",
	    "[true,{\"alg\":\"HS256\"},{\"a\":1}]" },
	{ "io.jwt.decode_verify",
	    "[\"eyJhbGciOiJIUzI1NiIsImN0eSI6IkpXVCJ9.ZXlKaGJHY2lPaUpJVXpJMU5p"
	    "Sjku"
	    "ZXlKaElqb3hmUS5xNXN2UDgtOVk4WWtiS3dDVFduRGtBWVpXeG9iUEJrRGN1RnVlT2"
	    "dkRkFB.5xJkYoNprTRlqm2dHI5jRL-cfX2AUQfhF_CYDo_P3ao\", "
	    "{\"secret\": "
	    "\"s\"}]",
	    "[false,{},{}]" },
	{ "io.jwt.verify_rs256", "[\"" TOK "\", \"{\\\"kty\\\": 1}\"]",
	    "!eval_builtin_error:failed to parse a JWK key (set)" },
	{ "io.jwt.verify_rs256",
	    "[\"" TOK "\", \"-----BEGIN FOO-----\\nAAAA\\n-----END "
	    "FOO-----\\n\"]",
	    "!eval_builtin_error:failed to extract a Key from the PEM" },
};

/* ---- generated keys ---- */

static char *
b64url_bn(EVP_PKEY *pk, const char *param, int pad)
{
	BIGNUM *bn = NULL;
	unsigned char buf[1024];
	struct axg_buf b;
	int n;

	EVP_PKEY_get_bn_param(pk, param, &bn);
	n = pad ? pad : BN_num_bytes(bn);
	BN_bn2binpad(bn, buf, n);
	BN_free(bn);
	axg_buf_init(&b, 0);
	axv_b64_encode(buf, (size_t)n, true, false, &b);
	return axg_buf_steal(&b, NULL);
}

/* A JWK (JSON text) for pk; with the private part when priv. */
static char *
jwk_of(EVP_PKEY *pk, bool priv, const char *kid)
{
	struct axg_buf b;
	char *v;
	size_t i;

	axg_buf_init(&b, 0);
	if (EVP_PKEY_get_base_id(pk) == EVP_PKEY_RSA) {
		static const char *const names[] = { "n", "e", "d", "p", "q",
			"dp", "dq", "qi" };
		static const char *const params[] = { OSSL_PKEY_PARAM_RSA_N,
			OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
			OSSL_PKEY_PARAM_RSA_FACTOR1,
			OSSL_PKEY_PARAM_RSA_FACTOR2,
			OSSL_PKEY_PARAM_RSA_EXPONENT1,
			OSSL_PKEY_PARAM_RSA_EXPONENT2,
			OSSL_PKEY_PARAM_RSA_COEFFICIENT1 };
		axg_buf_printf(&b, "{\"kty\":\"RSA\",\"kid\":\"%s\"", kid);
		for (i = 0; i < (priv ? 8u : 2u); i++) {
			v = b64url_bn(pk, params[i], 0);
			axg_buf_printf(&b, ",\"%s\":\"%s\"", names[i], v);
			free(v);
		}
	} else {
		axg_buf_printf(&b,
		    "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"%s\"", kid);
		v = b64url_bn(pk, OSSL_PKEY_PARAM_EC_PUB_X, 32);
		axg_buf_printf(&b, ",\"x\":\"%s\"", v);
		free(v);
		v = b64url_bn(pk, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
		axg_buf_printf(&b, ",\"y\":\"%s\"", v);
		free(v);
		if (priv) {
			v = b64url_bn(pk, OSSL_PKEY_PARAM_PRIV_KEY, 32);
			axg_buf_printf(&b, ",\"d\":\"%s\"", v);
			free(v);
		}
	}
	axg_buf_putc(&b, '}');
	return axg_buf_steal(&b, NULL);
}

static char *
pem_of(EVP_PKEY *pk)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;

	PEM_write_bio_PUBKEY(bio, pk);
	n = BIO_get_mem_data(bio, &p);
	s = axg_malloc((size_t)n + 1);
	memcpy(s, p, (size_t)n);
	s[n] = '\0';
	BIO_free(bio);
	return s;
}

/* Call a builtin on string arguments; the result's JSON or "!msg". */
static char *
call_s(const char *name, int n, const char *a0, const char *a1, const char *a2)
{
	struct axv *av[3] = { NULL, NULL, NULL }, *r = NULL;
	struct axp_bctx ctx;
	char *s;
	int i, rc;

	av[0] = axv_cstr(a0);
	av[1] = a1 ? axv_cstr(a1) : NULL;
	av[2] = a2 ? axv_cstr(a2) : NULL;
	rc = bi_call(name, av, n, &ctx, &r);
	s = rc == AXP_BI_OK
	    ? (axv_kind(r) == AXV_STRING ? axg_strdup(axv_str(r))
					 : axv_json_str(r))
	    : axg_asprintf("!%s", ctx.msg);
	axv_unref(r);
	for (i = 0; i < 3; i++)
		axv_unref(av[i]);
	return s;
}

static void
round_trip(EVP_PKEY *pk, const char *alg, const char *verify, EVP_PKEY *other)
{
	char *priv = jwk_of(pk, true, "k1"), *pub = jwk_of(pk, false, "k1");
	char *pem = pem_of(pk), *opem = pem_of(other);
	char *hdr = axg_asprintf("{\"alg\":\"%s\",\"kid\":\"k1\"}", alg);
	char *jwks = axg_asprintf("{\"keys\":[%s]}", pub);
	char *tok = call_s("io.jwt.encode_sign_raw", 3, hdr,
	    "{\"iss\":\"me\",\"exp\":2000000000}", priv);
	char *r, *bad;

	ok(tok[0] != '!', "%s: encode_sign_raw signs (%s)", alg, tok);
	r = call_s(verify, 2, tok, pem, NULL);
	is_str(r, "true", "%s: verifies with the PEM public key", alg);
	free(r);
	r = call_s(verify, 2, tok, pub, NULL);
	is_str(r, "true", "%s: verifies with the JWK", alg);
	free(r);
	r = call_s(verify, 2, tok, jwks, NULL);
	is_str(r, "true", "%s: verifies with the JWK set", alg);
	free(r);
	r = call_s(verify, 2, tok, opem, NULL);
	is_str(r, "false", "%s: another key does not verify", alg);
	free(r);
	bad = axg_strdup(tok);
	bad[strlen(bad) - 3] = bad[strlen(bad) - 3] == 'A' ? 'B' : 'A';
	r = call_s(verify, 2, bad, pem, NULL);
	is_str(r, "false", "%s: a changed signature does not verify", alg);
	free(r);
	free(bad);
	{
		struct axv *av[2], *out = NULL;
		struct axp_bctx ctx;
		char *ctext;
		av[0] = axv_cstr(tok);
		av[1] = axv_object_new(3);
		axv_object_put(av[1], axv_cstr("cert"), axv_cstr(pem));
		axv_object_put(av[1], axv_cstr("iss"), axv_cstr("me"));
		axv_object_put(av[1], axv_cstr("time"),
		    axv_int(1900000000000000000LL));
		bi_call("io.jwt.decode_verify", av, 2, &ctx, &out);
		ctext = out ? axv_json_str(out) : axg_strdup(ctx.msg);
		like_str(ctext, "[true,", "%s: decode_verify before exp", alg);
		free(ctext);
		axv_unref(out);
		out = NULL;
		axv_object_put(av[1], axv_cstr("time"),
		    axv_int(2100000000000000000LL));
		bi_call("io.jwt.decode_verify", av, 2, &ctx, &out);
		ctext = out ? axv_json_str(out) : axg_strdup(ctx.msg);
		is_str(ctext, "[false,{},{}]", "%s: decode_verify after exp",
		    alg);
		free(ctext);
		axv_unref(out);
		axv_unref(av[0]);
		axv_unref(av[1]);
	}
	free(tok);
	free(hdr);
	free(jwks);
	free(priv);
	free(pub);
	free(pem);
	free(opem);
}

/* Tokens nested deeper than the bound end with an error, not a deep
 * recursion: nine levels of cty JWT around one token. */
static void
nested_depth(void)
{
	const char *key = "{\"kty\":\"oct\",\"k\":\"cw\"}"; /* "s" */
	char *tok = call_s("io.jwt.encode_sign_raw", 3, "{\"alg\":\"HS256\"}",
	    "{\"a\":1}", key);
	struct axv *av[2], *out = NULL;
	struct axp_bctx ctx;
	int rc;

	for (int i = 0; i < 9; i++) {
		char *t = call_s("io.jwt.encode_sign_raw", 3,
		    "{\"alg\":\"HS256\",\"cty\":\"JWT\",\"typ\":\"n\"}", tok,
		    key);
		free(tok);
		tok = t;
	}
	av[0] = axv_cstr(tok);
	av[1] = axv_object_new(1);
	axv_object_put(av[1], axv_cstr("secret"), axv_cstr("s"));
	rc = bi_call("io.jwt.decode_verify", av, 2, &ctx, &out);
	ok(rc == AXP_BI_ERROR && strstr(ctx.msg, "deeper than 8") != NULL,
	    "decode_verify: 10 nested tokens are an error (%s)", ctx.msg);
	axv_unref(out);
	axv_unref(av[0]);
	axv_unref(av[1]);
	free(tok);
}

int
main(void)
{
	EVP_PKEY *rsa, *rsa2, *ec, *ec2;

	bi_run(rows, AXG_ARRAY_LEN(rows));
	nested_depth();
	rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	rsa2 = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ec2 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	if (rsa == NULL || rsa2 == NULL || ec == NULL || ec2 == NULL)
		tap_diag("key generation failed");
	else {
		round_trip(rsa, "RS256", "io.jwt.verify_rs256", rsa2);
		round_trip(rsa, "RS512", "io.jwt.verify_rs512", rsa2);
		round_trip(rsa, "PS256", "io.jwt.verify_ps256", rsa2);
		round_trip(rsa, "PS384", "io.jwt.verify_ps384", rsa2);
		round_trip(ec, "ES256", "io.jwt.verify_es256", ec2);
		{
			/* an RSA signature is not an ES256 one */
			char *priv = jwk_of(rsa, true, "k");
			char *pem = pem_of(ec);
			char *tok = call_s("io.jwt.encode_sign_raw", 3,
			    "{\"alg\":\"RS256\"}", "{}", priv);
			char *r =
			    call_s("io.jwt.verify_es256", 2, tok, pem, NULL);
			is_str(r, "false", "algorithm/key mismatch is false");
			free(r);
			free(tok);
			free(pem);
			free(priv);
		}
	}
	EVP_PKEY_free(rsa);
	EVP_PKEY_free(rsa2);
	EVP_PKEY_free(ec);
	EVP_PKEY_free(ec2);
	return tap_done();
}
