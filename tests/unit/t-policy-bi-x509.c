/* Unit tests of policy/builtins-x509.c.  The certificates, requests and
 * keys are made here with OpenSSL at run time. */
#include "config.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "policy/value-extra-b.h"
#include "tests/unit/policy-bi-rows.h"

static const struct bi_row rows[] = {
	{ "crypto.x509.parse_certificates", "[\"YmFkc3RyaW5n\"]",
	    "!eval_builtin_error:x509: malformed certificate" },
	{ "crypto.x509.parse_certificates", "[\"foobar\"]",
	    "!eval_builtin_error:illegal base64" },
	{ "crypto.x509.parse_certificates",
	    "[\"-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END "
	    "CERTIFICATE-----\\n\"]",
	    "!eval_builtin_error:failed to extract a certificate" },
	{ "crypto.x509.parse_certificate_request", "[\"YmFkc3RyaW5n\"]",
	    "!eval_builtin_error:asn1: structure error" },
	{ "crypto.x509.parse_rsa_private_key", "[\"foobar\"]",
	    "!eval_builtin_error:illegal base64" },
	{ "crypto.parse_private_keys", "[\"\"]", "null" },
	{ "crypto.parse_private_keys", "[\"-----BEGIN NOTHING-----\"]", "[]" },
};

static X509 *
make_cert(EVP_PKEY *key, EVP_PKEY *signer, X509 *issuer, const char *cn,
    bool ca, const char *san)
{
	X509 *x = X509_new();
	X509_NAME *nm = X509_NAME_new();
	X509V3_CTX v3;
	X509_EXTENSION *e;

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), ca ? 1 : 4242);
	X509_NAME_add_entry_by_txt(nm, "C", MBSTRING_ASC,
	    (const unsigned char *)"ZZ", -1, -1, 0);
	X509_NAME_add_entry_by_txt(nm, "O", MBSTRING_ASC,
	    (const unsigned char *)"Example", -1, -1, 0);
	X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0);
	X509_set_subject_name(x, nm);
	X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : nm);
	X509_NAME_free(nm);
	ASN1_TIME_set(X509_getm_notBefore(x), 1600000000);
	ASN1_TIME_set(X509_getm_notAfter(x), 2000000000);
	X509_set_pubkey(x, key);
	X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints,
	    ca ? "critical,CA:TRUE" : "CA:FALSE");
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	if (san != NULL) {
		e = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san);
		X509_add_ext(x, e, -1);
		X509_EXTENSION_free(e);
	}
	X509_sign(x, signer, EVP_sha256());
	return x;
}

static char *
pem_cert(X509 *x)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;

	PEM_write_bio_X509(bio, x);
	n = BIO_get_mem_data(bio, &p);
	s = axg_malloc((size_t)n + 1);
	memcpy(s, p, (size_t)n);
	s[n] = '\0';
	BIO_free(bio);
	return s;
}

static char *
pem_key(EVP_PKEY *k)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;

	PEM_write_bio_PrivateKey(bio, k, NULL, NULL, 0, NULL, NULL);
	n = BIO_get_mem_data(bio, &p);
	s = axg_malloc((size_t)n + 1);
	memcpy(s, p, (size_t)n);
	s[n] = '\0';
	BIO_free(bio);
	return s;
}

static char *
pem_csr(EVP_PKEY *k)
{
	X509_REQ *r = X509_REQ_new();
	X509_NAME *nm = X509_NAME_new();
	STACK_OF(X509_EXTENSION) *exts = sk_X509_EXTENSION_new_null();
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;

	X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
	    (const unsigned char *)"req.example.com", -1, -1, 0);
	X509_REQ_set_subject_name(r, nm);
	X509_NAME_free(nm);
	X509_REQ_set_pubkey(r, k);
	sk_X509_EXTENSION_push(exts,
	    X509V3_EXT_conf_nid(NULL, NULL, NID_subject_alt_name,
		"DNS:req.example.com"));
	X509_REQ_add_extensions(r, exts);
	sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
	X509_REQ_sign(r, k, EVP_sha256());
	PEM_write_bio_X509_REQ(bio, r);
	X509_REQ_free(r);
	n = BIO_get_mem_data(bio, &p);
	s = axg_malloc((size_t)n + 1);
	memcpy(s, p, (size_t)n);
	s[n] = '\0';
	BIO_free(bio);
	return s;
}

/* Call name on string args; returns the result (new reference) or NULL
 * with the message in msg. */
static struct axv *
call(const char *name, int n, const char *a0, const char *a1, char *msg,
    size_t msglen)
{
	struct axv *av[2] = { axv_cstr(a0), a1 ? axv_cstr(a1) : NULL }, *r;
	struct axp_bctx ctx;
	int rc = bi_call(name, av, n, &ctx, &r);

	axv_unref(av[0]);
	axv_unref(av[1]);
	snprintf(msg, msglen, "%s", rc == AXP_BI_OK ? "" : ctx.msg);
	return rc == AXP_BI_OK ? r : NULL;
}

static const char *
field_str(const struct axv *o, const char *a, const char *b)
{
	const struct axv *v = axv_object_gets(o, a);

	if (v && b)
		v = axv_object_gets(v, b);
	return v && axv_kind(v) == AXV_STRING ? axv_str(v) : "(none)";
}

int
main(void)
{
	EVP_PKEY *cak = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *leafk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	EVP_PKEY *otherk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	X509 *ca, *leaf, *rogue;
	char *ca_pem, *leaf_pem, *rogue_pem, *chain, *bad_chain, *key_pem;
	char *csr, *b64, msg[600];
	struct axv *r;
	struct axg_buf b;

	bi_run(rows, AXG_ARRAY_LEN(rows));
	ca = make_cert(cak, cak, NULL, "Test Root", true, NULL);
	leaf = make_cert(leafk, cak, ca, "leaf.example.com", false,
	    "DNS:leaf.example.com,DNS:www.example.com,URI:spiffe://"
	    "example.com/opa,IP:10.1.2.3,email:ops@example.com");
	rogue = make_cert(leafk, otherk, ca, "rogue.example.com", false, NULL);
	ca_pem = pem_cert(ca);
	leaf_pem = pem_cert(leaf);
	rogue_pem = pem_cert(rogue);
	key_pem = pem_key(leafk);
	chain = axg_asprintf("%s%s", ca_pem, leaf_pem);
	bad_chain = axg_asprintf("%s%s", ca_pem, rogue_pem);

	r = call("crypto.x509.parse_certificates", 1, chain, NULL, msg,
	    sizeof(msg));
	ok(r && axv_array_len(r) == 2, "two certificates in the chain %s", msg);
	if (r && axv_array_len(r) == 2) {
		const struct axv *c = axv_array_get(r, 1);
		char *j;
		is_str(field_str(c, "Subject", "CommonName"),
		    "leaf.example.com", "Subject.CommonName");
		is_str(field_str(c, "Issuer", "CommonName"), "Test Root",
		    "Issuer.CommonName");
		is_str(field_str(c, "NotBefore", NULL), "2020-09-13T12:26:40Z",
		    "NotBefore in RFC 3339");
		j = axv_json_str(axv_object_gets(c, "DNSNames"));
		is_str(j, "[\"leaf.example.com\",\"www.example.com\"]",
		    "DNSNames");
		free(j);
		j = axv_json_str(axv_object_gets(c, "URIStrings"));
		is_str(j, "[\"spiffe://example.com/opa\"]", "URIStrings");
		free(j);
		j = axv_json_str(axv_object_gets(c, "IPAddresses"));
		is_str(j, "[\"10.1.2.3\"]", "IPAddresses");
		free(j);
		j = axv_json_str(axv_object_gets(c, "SerialNumber"));
		is_str(j, "4242", "SerialNumber");
		free(j);
		j = axv_json_str(axv_object_gets(c, "Subject"));
		like_str(j, "\"Country\":[\"ZZ\"]", "Subject.Country");
		like_str(j,
		    "{\"Type\":[2,5,4,3],\"Value\":\"leaf.example.com\"}",
		    "Subject.Names has OIDs");
		free(j);
		j = axv_json_str(axv_object_gets(axv_array_get(r, 0), "IsCA"));
		is_str(j, "true", "the root is a CA");
		free(j);
		j = axv_json_str(
		    axv_object_gets(axv_array_get(r, 0), "URIStrings"));
		is_str(j, "null", "no URIs is null");
		free(j);
	}
	axv_unref(r);

	/* the same certificates, base64 of the PEM */
	axg_buf_init(&b, 0);
	axv_b64_encode(chain, strlen(chain), false, true, &b);
	b64 = axg_buf_steal(&b, NULL);
	r = call("crypto.x509.parse_certificates", 1, b64, NULL, msg,
	    sizeof(msg));
	ok(r && axv_array_len(r) == 2, "base64 of PEM is accepted");
	axv_unref(r);
	free(b64);

	bi_now_ns = 1700000000LL * 1000000000LL;
	r = call("crypto.x509.parse_and_verify_certificates", 1, chain, NULL,
	    msg, sizeof(msg));
	ok(r && axv_is_true(axv_array_get(r, 0)), "a good chain verifies");
	ok(r && axv_array_len(axv_array_get(r, 1)) == 2,
	    "and its certificates are returned");
	axv_unref(r);
	r = call("crypto.x509.parse_and_verify_certificates", 1, bad_chain,
	    NULL, msg, sizeof(msg));
	ok(r && !axv_is_true(axv_array_get(r, 0)) &&
		axv_array_len(axv_array_get(r, 1)) == 0,
	    "a leaf signed by another key does not");
	axv_unref(r);
	bi_now_ns = 2100000000LL * 1000000000LL;
	r = call("crypto.x509.parse_and_verify_certificates", 1, chain, NULL,
	    msg, sizeof(msg));
	ok(r && !axv_is_true(axv_array_get(r, 0)),
	    "an expired chain does not verify");
	axv_unref(r);

	csr = pem_csr(leafk);
	r = call("crypto.x509.parse_certificate_request", 1, csr, NULL, msg,
	    sizeof(msg));
	is_str(r ? field_str(r, "Subject", "CommonName") : msg,
	    "req.example.com", "CSR Subject.CommonName");
	if (r) {
		char *j = axv_json_str(axv_object_gets(r, "DNSNames"));
		is_str(j, "[\"req.example.com\"]", "CSR DNSNames");
		free(j);
	}
	axv_unref(r);
	free(csr);

	r = call("crypto.x509.parse_keypair", 2, leaf_pem, key_pem, msg,
	    sizeof(msg));
	ok(r != NULL, "parse_keypair of a matching pair: %s", msg);
	if (r) {
		const struct axv *c = axv_object_gets(r, "Certificate");
		ok(c && axv_array_len(c) == 1, "one DER certificate");
		is_str(field_str(r, "PrivateKey", "kty"), "RSA",
		    "the private key as a JWK");
	}
	axv_unref(r);
	r = call("crypto.x509.parse_keypair", 2, ca_pem, key_pem, msg,
	    sizeof(msg));
	ok(r == NULL, "parse_keypair of a mismatched pair fails");
	like_str(msg, "private key does not match public key",
	    "with Go's message");
	axv_unref(r);

	r = call("crypto.x509.parse_rsa_private_key", 1, key_pem, NULL, msg,
	    sizeof(msg));
	is_str(r ? field_str(r, "kty", NULL) : msg, "RSA",
	    "parse_rsa_private_key gives a JWK");
	ok(r && axv_object_gets(r, "qi") != NULL, "with the CRT values");
	axv_unref(r);
	{
		char *two = pem_key(cak),
		     *both = axg_asprintf("%s%s", key_pem, two);
		r = call("crypto.parse_private_keys", 1, both, NULL, msg,
		    sizeof(msg));
		ok(r && axv_array_len(r) == 2, "parse_private_keys: two keys");
		if (r && axv_array_len(r) == 2)
			is_str(field_str(axv_array_get(r, 1), "crv", NULL),
			    "P-256", "the EC key's curve");
		axv_unref(r);
		free(two);
		free(both);
	}

	free(ca_pem);
	free(leaf_pem);
	free(rogue_pem);
	free(key_pem);
	free(chain);
	free(bad_chain);
	X509_free(ca);
	X509_free(leaf);
	X509_free(rogue);
	EVP_PKEY_free(cak);
	EVP_PKEY_free(leafk);
	EVP_PKEY_free(otherk);
	return tap_done();
}
