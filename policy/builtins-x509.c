/*
 * builtins-x509.c: crypto.x509.parse_certificates,
 * crypto.x509.parse_and_verify_certificates,
 * crypto.x509.parse_certificate_request, crypto.x509.parse_keypair,
 * crypto.x509.parse_rsa_private_key, crypto.parse_private_keys.
 *
 * Certificates come out with the field names of Go's x509.Certificate (the
 * subset policies use: Subject, Issuer, SerialNumber, NotBefore, NotAfter,
 * DNSNames, URIStrings, ...); private keys come out as JWKs.
 */
#include "config.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-b.h"

#define X509_MAX_CERTS 256

static void
put(struct axv *o, const char *k, struct axv *v)
{
	axv_object_put(o, axv_cstr(k), v);
}

static struct axv *
b64_value(const unsigned char *p, size_t n)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	axv_b64_encode(p, n, false, true, &b);
	return axv_string_buf(&b);
}

/* The input as bytes: PEM text as is, else base64 (of PEM or DER). */
static int
input_bytes(struct axp_bctx *ctx, const struct axv *v, struct axg_buf *out)
{
	size_t pos;

	if (strncmp(axv_str(v), "-----BEGIN", 10) == 0) {
		axg_buf_append(out, axv_str(v), axv_strlen(v));
		return AXP_BI_OK;
	}
	if (axv_b64_decode(axv_str(v), axv_strlen(v), false, true, out, &pos) <
	    0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "illegal base64 data at input byte %zu", pos);
	return AXP_BI_OK;
}

static bool
is_pem(const struct axg_buf *b)
{
	return b->len >= 10 && memcmp(b->data, "-----BEGIN", 10) == 0;
}

/* ---- names ---- */

static struct axv *
oid_array(const ASN1_OBJECT *o)
{
	char buf[128];
	struct axv *a = axv_array_new(8);
	const char *p = buf;

	OBJ_obj2txt(buf, sizeof(buf), o, 1);
	while (*p) {
		uint64_t v = 0;
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (uint64_t)(*p++ - '0');
		axv_array_push(a, axv_int((int64_t)v));
		if (*p == '.')
			p++;
		else
			break;
	}
	return a;
}

static struct axv *
name_value(const X509_NAME *nm)
{
	static const struct {
		int nid;
		const char *field;
	} map[] = {
		{ NID_countryName, "Country" },
		{ NID_organizationName, "Organization" },
		{ NID_organizationalUnitName, "OrganizationalUnit" },
		{ NID_localityName, "Locality" },
		{ NID_stateOrProvinceName, "Province" },
		{ NID_streetAddress, "StreetAddress" },
		{ NID_postalCode, "PostalCode" },
	};
	struct axv *lists[AXG_ARRAY_LEN(map)] = { NULL };
	struct axv *o = axv_object_new(12), *names = axv_array_new(8);
	const char *cn = "", *serial = "";
	unsigned char *strs[64];
	int i, n = X509_NAME_entry_count(nm), ns = 0;
	size_t j;

	for (i = 0; i < n; i++) {
		const X509_NAME_ENTRY *e = X509_NAME_get_entry(nm, i);
		const ASN1_OBJECT *obj = X509_NAME_ENTRY_get_object(e);
		unsigned char *u = NULL;
		int nid = OBJ_obj2nid(obj), len;
		struct axv *t;

		len = ASN1_STRING_to_UTF8(&u,
		    X509_NAME_ENTRY_get_data((X509_NAME_ENTRY *)e));
		if (len < 0)
			continue;
		t = axv_object_new(2);
		put(t, "Type", oid_array(obj));
		put(t, "Value", axv_string((const char *)u, (size_t)len));
		axv_array_push(names, t);
		if (nid == NID_commonName)
			cn = (const char *)u;
		else if (nid == NID_serialNumber)
			serial = (const char *)u;
		for (j = 0; j < AXG_ARRAY_LEN(map); j++)
			if (map[j].nid == nid) {
				if (lists[j] == NULL)
					lists[j] = axv_array_new(1);
				axv_array_push(lists[j],
				    axv_string((const char *)u, (size_t)len));
			}
		if (ns < 64)
			strs[ns++] = u;
		else
			OPENSSL_free(u);
	}
	for (j = 0; j < AXG_ARRAY_LEN(map); j++)
		put(o, map[j].field, lists[j] ? lists[j] : axv_null());
	put(o, "CommonName", axv_cstr(cn));
	put(o, "SerialNumber", axv_cstr(serial));
	put(o, "Names", names);
	put(o, "ExtraNames", axv_null());
	for (i = 0; i < ns; i++)
		OPENSSL_free(strs[i]);
	return o;
}

static struct axv *
time_value(const ASN1_TIME *t)
{
	struct tm tm;
	char buf[80];

	if (t == NULL || !ASN1_TIME_to_tm(t, &tm))
		return axv_null();
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec);
	return axv_cstr(buf);
}

/* DNSNames, EmailAddresses, IPAddresses, URIStrings from SANs. */
static void
put_sans(struct axv *o, const GENERAL_NAMES *gens)
{
	struct axv *dns = NULL, *email = NULL, *ip = NULL, *uri = NULL;
	int i;

	for (i = 0; gens && i < sk_GENERAL_NAME_num(gens); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
		const ASN1_STRING *s;
		struct axv **list;
		char buf[64];

		switch (g->type) {
		case GEN_DNS:
			list = &dns;
			s = g->d.dNSName;
			break;
		case GEN_EMAIL:
			list = &email;
			s = g->d.rfc822Name;
			break;
		case GEN_URI:
			list = &uri;
			s = g->d.uniformResourceIdentifier;
			break;
		case GEN_IPADD: {
			const unsigned char *a =
			    ASN1_STRING_get0_data(g->d.iPAddress);
			int l = ASN1_STRING_length(g->d.iPAddress);
			if (l == 4)
				snprintf(buf, sizeof(buf), "%u.%u.%u.%u", a[0],
				    a[1], a[2], a[3]);
			else if (l != 16 ||
			    inet_ntop(AF_INET6, a, buf, sizeof(buf)) == NULL)
				continue;
			if (ip == NULL)
				ip = axv_array_new(1);
			axv_array_push(ip, axv_cstr(buf));
			continue;
		}
		default:
			continue;
		}
		if (*list == NULL)
			*list = axv_array_new(1);
		axv_array_push(*list,
		    axv_string((const char *)ASN1_STRING_get0_data(s),
			(size_t)ASN1_STRING_length(s)));
	}
	put(o, "DNSNames", dns ? dns : axv_null());
	put(o, "EmailAddresses", email ? email : axv_null());
	put(o, "IPAddresses", ip ? ip : axv_null());
	put(o, "URIStrings", uri ? uri : axv_null());
}

static int
pubkey_alg(EVP_PKEY *pk)
{
	switch (pk ? EVP_PKEY_get_base_id(pk) : 0) {
	case EVP_PKEY_RSA:
		return 1;
	case EVP_PKEY_DSA:
		return 2;
	case EVP_PKEY_EC:
		return 3;
	case EVP_PKEY_ED25519:
		return 4;
	default:
		return 0;
	}
}

static struct axv *
cert_value(X509 *x)
{
	struct axv *o = axv_object_new(32);
	unsigned char *der = NULL;
	int len = i2d_X509(x, &der);
	const ASN1_INTEGER *sn = X509_get0_serialNumber(x);
	BIGNUM *bn = ASN1_INTEGER_to_BN(sn, NULL);
	GENERAL_NAMES *gens;
	const ASN1_OCTET_STRING *ski, *aki;
	uint32_t ku = X509_get_key_usage(x),
		 xku = X509_get_extended_key_usage(x);
	BASIC_CONSTRAINTS *bc;
	EVP_PKEY *pk = X509_get0_pubkey(x);
	const ASN1_BIT_STRING *sig = NULL;

	put(o, "Raw", len > 0 ? b64_value(der, (size_t)len) : axv_null());
	OPENSSL_free(der);
	put(o, "Version", axv_int(X509_get_version(x) + 1));
	put(o, "SerialNumber", bn ? axv_num_from_bn(bn) : axv_null());
	BN_free(bn);
	put(o, "Issuer", name_value(X509_get_issuer_name(x)));
	put(o, "Subject", name_value(X509_get_subject_name(x)));
	put(o, "NotBefore", time_value(X509_get0_notBefore(x)));
	put(o, "NotAfter", time_value(X509_get0_notAfter(x)));
	put(o, "KeyUsage",
	    axv_int(ku == UINT32_MAX ? 0 : (int64_t)(ku & 0x1ff)));
	{
		static const struct {
			uint32_t flag;
			int go;
		} xmap[] = { { XKU_SSL_SERVER, 1 }, { XKU_SSL_CLIENT, 2 },
			{ XKU_CODE_SIGN, 3 }, { XKU_SMIME, 4 },
			{ XKU_TIMESTAMP, 8 }, { XKU_OCSP_SIGN, 9 } };
		struct axv *a = NULL;
		size_t i;
		for (i = 0; xku != UINT32_MAX && i < AXG_ARRAY_LEN(xmap); i++)
			if (xku & xmap[i].flag) {
				if (a == NULL)
					a = axv_array_new(2);
				axv_array_push(a, axv_int(xmap[i].go));
			}
		put(o, "ExtKeyUsage", a ? a : axv_null());
	}
	bc = X509_get_ext_d2i(x, NID_basic_constraints, NULL, NULL);
	put(o, "BasicConstraintsValid", axv_bool(bc != NULL));
	put(o, "IsCA", axv_bool(bc && bc->ca));
	{
		int64_t mpl = -1;
		if (bc && bc->pathlen)
			mpl = ASN1_INTEGER_get(bc->pathlen);
		else if (bc && bc->ca)
			mpl = -1;
		put(o, "MaxPathLen", axv_int(bc && bc->pathlen ? mpl : -1));
		put(o, "MaxPathLenZero",
		    axv_bool(bc && bc->pathlen && mpl == 0));
	}
	BASIC_CONSTRAINTS_free(bc);
	ski = X509_get0_subject_key_id(x);
	aki = X509_get0_authority_key_id(x);
	put(o, "SubjectKeyId",
	    ski ? b64_value(ASN1_STRING_get0_data(ski),
		      (size_t)ASN1_STRING_length(ski))
		: axv_null());
	put(o, "AuthorityKeyId",
	    aki ? b64_value(ASN1_STRING_get0_data(aki),
		      (size_t)ASN1_STRING_length(aki))
		: axv_null());
	gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	put_sans(o, gens);
	GENERAL_NAMES_free(gens);
	put(o, "PublicKeyAlgorithm", axv_int(pubkey_alg(pk)));
	X509_get0_signature(&sig, NULL, x);
	put(o, "Signature",
	    sig ? b64_value(sig->data, (size_t)sig->length) : axv_null());
	return o;
}

/* Certificates from PEM or DER bytes; -1 with the error recorded. */
static int
certs_parse(struct axp_bctx *ctx, const struct axg_buf *in,
    STACK_OF(X509) * out)
{
	if (is_pem(in)) {
		BIO *bio = BIO_new_mem_buf(in->data, (int)in->len);
		X509 *x;
		while (sk_X509_num(out) < X509_MAX_CERTS &&
		    (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL)
			sk_X509_push(out, x);
		BIO_free(bio);
		if (sk_X509_num(out) == 0)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "failed to extract a certificate from the PEM");
		return 0;
	} else {
		const unsigned char *p = (const unsigned char *)in->data;
		const unsigned char *end = p + in->len;
		while (p < end && sk_X509_num(out) < X509_MAX_CERTS) {
			X509 *x = d2i_X509(NULL, &p, end - p);
			if (x == NULL)
				return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "x509: malformed certificate");
			sk_X509_push(out, x);
		}
		if (sk_X509_num(out) == 0)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "x509: malformed certificate");
		return 0;
	}
}

static int
bi_parse_certificates(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	STACK_OF(X509) *certs = sk_X509_new_null();
	struct axv *r;
	int i, rc = AXP_BI_ERROR;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		goto done;
	axg_buf_init(&b, 0);
	if (input_bytes(ctx, args[0], &b) == AXP_BI_OK &&
	    certs_parse(ctx, &b, certs) == 0) {
		r = axv_array_new((size_t)sk_X509_num(certs));
		for (i = 0; i < sk_X509_num(certs); i++)
			axv_array_push(r, cert_value(sk_X509_value(certs, i)));
		*out = r;
		rc = AXP_BI_OK;
	}
	axg_buf_free(&b);
done:
	sk_X509_pop_free(certs, X509_free);
	return rc;
}

/* The first certificate is the root, the last the leaf. */
static int
bi_parse_and_verify(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	STACK_OF(X509) *certs = sk_X509_new_null(), *chain = sk_X509_new_null();
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *sc = X509_STORE_CTX_new();
	struct axv *r, *list;
	int i, n, rc = AXP_BI_ERROR;
	bool good = false;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		goto done;
	axg_buf_init(&b, 0);
	if (input_bytes(ctx, args[0], &b) != AXP_BI_OK ||
	    certs_parse(ctx, &b, certs) != 0) {
		axg_buf_free(&b);
		goto done;
	}
	axg_buf_free(&b);
	n = sk_X509_num(certs);
	if (n >= 2) {
		X509_STORE_add_cert(store, sk_X509_value(certs, 0));
		for (i = 1; i < n - 1; i++)
			sk_X509_push(chain, sk_X509_value(certs, i));
		if (X509_STORE_CTX_init(sc, store, sk_X509_value(certs, n - 1),
			chain)) {
			X509_VERIFY_PARAM *vp = X509_STORE_CTX_get0_param(sc);
			X509_VERIFY_PARAM_set_time(vp,
			    (time_t)(axp_bctx_now_ns(ctx) / 1000000000));
			good = X509_verify_cert(sc) == 1;
		}
	}
	r = axv_array_new(2);
	axv_array_push(r, axv_bool(good));
	list = axv_array_new((size_t)n);
	for (i = 0; good && i < n; i++)
		axv_array_push(list, cert_value(sk_X509_value(certs, i)));
	axv_array_push(r, list);
	*out = r;
	rc = AXP_BI_OK;
done:
	X509_STORE_CTX_free(sc);
	X509_STORE_free(store);
	sk_X509_free(chain);
	sk_X509_pop_free(certs, X509_free);
	return rc;
}

static int
bi_parse_csr(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axg_buf b;
	X509_REQ *req = NULL;
	struct axv *o;
	STACK_OF(X509_EXTENSION) * exts;
	GENERAL_NAMES *gens = NULL;
	unsigned char *der = NULL;
	int len;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	if (input_bytes(ctx, args[0], &b) != AXP_BI_OK) {
		axg_buf_free(&b);
		return AXP_BI_ERROR;
	}
	if (is_pem(&b)) {
		BIO *bio = BIO_new_mem_buf(b.data, (int)b.len);
		req = PEM_read_bio_X509_REQ(bio, NULL, NULL, NULL);
		BIO_free(bio);
	} else {
		const unsigned char *p = (const unsigned char *)b.data;
		req = d2i_X509_REQ(NULL, &p, (long)b.len);
	}
	axg_buf_free(&b);
	if (req == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "asn1: structure error: not a certificate request");
	o = axv_object_new(12);
	len = i2d_X509_REQ(req, &der);
	put(o, "Raw", len > 0 ? b64_value(der, (size_t)len) : axv_null());
	OPENSSL_free(der);
	put(o, "Version", axv_int(X509_REQ_get_version(req)));
	put(o, "Subject", name_value(X509_REQ_get_subject_name(req)));
	put(o, "PublicKeyAlgorithm",
	    axv_int(pubkey_alg(X509_REQ_get0_pubkey(req))));
	exts = X509_REQ_get_extensions(req);
	if (exts != NULL)
		gens = X509V3_get_d2i(exts, NID_subject_alt_name, NULL, NULL);
	put_sans(o, gens);
	GENERAL_NAMES_free(gens);
	sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
	X509_REQ_free(req);
	*out = o;
	return AXP_BI_OK;
}

/* ---- private keys ---- */

static void
put_bn(struct axv *o, const char *k, EVP_PKEY *pk, const char *param, int pad)
{
	BIGNUM *bn = NULL;
	unsigned char *buf;
	struct axg_buf b;
	int n;

	if (!EVP_PKEY_get_bn_param(pk, param, &bn))
		return;
	n = pad ? pad : BN_num_bytes(bn);
	buf = axg_malloc((size_t)n + 1);
	BN_bn2binpad(bn, buf, n);
	axg_buf_init(&b, 0);
	axv_b64_encode(buf, (size_t)n, true, false, &b);
	put(o, k, axv_string_buf(&b));
	OPENSSL_clear_free(buf, (size_t)n + 1);
	BN_clear_free(bn);
}

/* A private key as a JWK object; NULL for other key types. */
static struct axv *
key_jwk(EVP_PKEY *pk)
{
	struct axv *o = axv_object_new(10);

	if (EVP_PKEY_get_base_id(pk) == EVP_PKEY_RSA) {
		put(o, "kty", axv_cstr("RSA"));
		put_bn(o, "n", pk, OSSL_PKEY_PARAM_RSA_N, 0);
		put_bn(o, "e", pk, OSSL_PKEY_PARAM_RSA_E, 0);
		put_bn(o, "d", pk, OSSL_PKEY_PARAM_RSA_D, 0);
		put_bn(o, "p", pk, OSSL_PKEY_PARAM_RSA_FACTOR1, 0);
		put_bn(o, "q", pk, OSSL_PKEY_PARAM_RSA_FACTOR2, 0);
		put_bn(o, "dp", pk, OSSL_PKEY_PARAM_RSA_EXPONENT1, 0);
		put_bn(o, "dq", pk, OSSL_PKEY_PARAM_RSA_EXPONENT2, 0);
		put_bn(o, "qi", pk, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, 0);
		return o;
	}
	if (EVP_PKEY_get_base_id(pk) == EVP_PKEY_EC) {
		char group[32];
		size_t gl = 0;
		int size = (EVP_PKEY_get_bits(pk) + 7) / 8;
		const char *crv = NULL;
		if (EVP_PKEY_get_utf8_string_param(pk,
			OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group),
			&gl)) {
			if (strcmp(group, "prime256v1") == 0)
				crv = "P-256";
			else if (strcmp(group, "secp384r1") == 0)
				crv = "P-384";
			else if (strcmp(group, "secp521r1") == 0)
				crv = "P-521";
		}
		put(o, "kty", axv_cstr("EC"));
		put(o, "crv", crv ? axv_cstr(crv) : axv_cstr(group));
		put_bn(o, "x", pk, OSSL_PKEY_PARAM_EC_PUB_X, size);
		put_bn(o, "y", pk, OSSL_PKEY_PARAM_EC_PUB_Y, size);
		put_bn(o, "d", pk, OSSL_PKEY_PARAM_PRIV_KEY, size);
		return o;
	}
	axv_unref(o);
	return NULL;
}

/* The private keys in PEM text (at most 64). */
static int
keys_from_pem(const struct axg_buf *b, EVP_PKEY **keys, int max)
{
	BIO *bio = BIO_new_mem_buf(b->data, (int)b->len);
	int n = 0;

	while (n < max) {
		EVP_PKEY *pk = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
		if (pk == NULL)
			break;
		keys[n++] = pk;
	}
	BIO_free(bio);
	return n;
}

static int
bi_parse_rsa_private_key(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	EVP_PKEY *pk[1];
	int n;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	if (input_bytes(ctx, args[0], &b) != AXP_BI_OK) {
		axg_buf_free(&b);
		return AXP_BI_ERROR;
	}
	n = keys_from_pem(&b, pk, 1);
	OPENSSL_cleanse(b.data, b.len);
	axg_buf_free(&b);
	if (n == 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "failed to parse PEM block containing the key");
	if (EVP_PKEY_get_base_id(pk[0]) != EVP_PKEY_RSA) {
		EVP_PKEY_free(pk[0]);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "not an RSA private key");
	}
	*out = key_jwk(pk[0]);
	EVP_PKEY_free(pk[0]);
	return AXP_BI_OK;
}

static int
bi_parse_private_keys(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	EVP_PKEY *pk[64];
	struct axv *r;
	int n, i;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (axv_strlen(args[0]) == 0) {
		*out = axv_null();
		return AXP_BI_OK;
	}
	axg_buf_init(&b, 0);
	if (input_bytes(ctx, args[0], &b) != AXP_BI_OK) {
		axg_buf_free(&b);
		return AXP_BI_ERROR;
	}
	n = keys_from_pem(&b, pk, 64);
	OPENSSL_cleanse(b.data, b.len);
	axg_buf_free(&b);
	r = axv_array_new((size_t)n);
	for (i = 0; i < n; i++) {
		struct axv *j = key_jwk(pk[i]);
		if (j != NULL)
			axv_array_push(r, j);
		EVP_PKEY_free(pk[i]);
	}
	*out = r;
	return AXP_BI_OK;
}

static int
bi_parse_keypair(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf cb, kb;
	STACK_OF(X509) *certs = sk_X509_new_null();
	EVP_PKEY *pk[1] = { NULL };
	struct axv *o, *list, *key;
	int i, rc = AXP_BI_ERROR;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING)) {
		sk_X509_free(certs);
		return AXP_BI_ERROR;
	}
	axg_buf_init(&cb, 0);
	axg_buf_init(&kb, 0);
	if (input_bytes(ctx, args[0], &cb) != AXP_BI_OK ||
	    certs_parse(ctx, &cb, certs) != 0 ||
	    input_bytes(ctx, args[1], &kb) != AXP_BI_OK)
		goto done;
	if (keys_from_pem(&kb, pk, 1) == 0) {
		axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "tls: failed to parse private key");
		goto done;
	}
	if (!X509_check_private_key(sk_X509_value(certs, 0), pk[0])) {
		axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "tls: private key does not match public key");
		goto done;
	}
	o = axv_object_new(3);
	list = axv_array_new((size_t)sk_X509_num(certs));
	for (i = 0; i < sk_X509_num(certs); i++) {
		unsigned char *der = NULL;
		int len = i2d_X509(sk_X509_value(certs, i), &der);
		axv_array_push(list,
		    len > 0 ? b64_value(der, (size_t)len) : axv_null());
		OPENSSL_free(der);
	}
	put(o, "Certificate", list);
	key = key_jwk(pk[0]);
	put(o, "PrivateKey", key ? key : axv_null());
	put(o, "Leaf", cert_value(sk_X509_value(certs, 0)));
	*out = o;
	rc = AXP_BI_OK;
done:
	OPENSSL_cleanse(kb.data, kb.len);
	axg_buf_free(&kb);
	axg_buf_free(&cb);
	EVP_PKEY_free(pk[0]);
	sk_X509_pop_free(certs, X509_free);
	return rc;
}

const struct axp_builtin axp_builtins_x509[] = {
	{ "crypto.x509.parse_certificates", 1, bi_parse_certificates,
	    "(string) => array[object[string: any]]", 0 },
	{ "crypto.x509.parse_and_verify_certificates", 1, bi_parse_and_verify,
	    "(string) => array[boolean, array[object[string: any]]]",
	    AXP_BIF_NONDET },
	{ "crypto.x509.parse_certificate_request", 1, bi_parse_csr,
	    "(string) => object[string: any]", 0 },
	{ "crypto.x509.parse_keypair", 2, bi_parse_keypair,
	    "(string, string) => object[string: any]", 0 },
	{ "crypto.x509.parse_rsa_private_key", 1, bi_parse_rsa_private_key,
	    "(string) => object[string: any]", 0 },
	{ "crypto.parse_private_keys", 1, bi_parse_private_keys,
	    "(string) => array[object[string: any]]", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
