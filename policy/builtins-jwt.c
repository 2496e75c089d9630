/*
 * builtins-jwt.c: io.jwt.* (decode, decode_verify, verify_hs*, verify_rs*,
 * verify_ps*, verify_es*, encode_sign, encode_sign_raw) with OpenSSL.
 *
 * Keys for verification are a PEM certificate, a PEM public key, or a JWK
 * or JWK set (RSA and EC); keys for signing are JWKs (oct, RSA, EC).
 */
#include "config.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/builtins.h"
#include "policy/value-extra-b.h"

#define JWT_MAX_KEYS	64
#define JWT_MAX_NESTING 8 /* tokens inside tokens */

enum jwt_kind { JK_HS, JK_RS, JK_PS, JK_ES, JK_ED };

struct jwt_alg {
	const char *name;
	enum jwt_kind kind;
	const char *md;
	int ecsize; /* bytes of r and of s */
};

static const struct jwt_alg jwt_algs[] = {
	{ "HS256", JK_HS, "SHA256", 0 }, { "HS384", JK_HS, "SHA384", 0 },
	{ "HS512", JK_HS, "SHA512", 0 }, { "RS256", JK_RS, "SHA256", 0 },
	{ "RS384", JK_RS, "SHA384", 0 }, { "RS512", JK_RS, "SHA512", 0 },
	{ "PS256", JK_PS, "SHA256", 0 }, { "PS384", JK_PS, "SHA384", 0 },
	{ "PS512", JK_PS, "SHA512", 0 }, { "ES256", JK_ES, "SHA256", 32 },
	{ "ES384", JK_ES, "SHA384", 48 }, { "ES512", JK_ES, "SHA512", 66 },
	{ "EdDSA", JK_ED, NULL, 0 }, /* Ed25519: no digest of its own */
};

static const struct jwt_alg *
alg_find(const char *name)
{
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(jwt_algs); i++)
		if (strcmp(jwt_algs[i].name, name) == 0)
			return &jwt_algs[i];
	return NULL;
}

/* ---- token parts ---- */

struct jwt {
	const char *part[3];
	size_t len[3];
	struct axv *header; /* decoded object */
	const char *alg, *kid;
};

static void
jwt_clear(struct jwt *t)
{
	axv_unref(t->header);
	t->header = NULL;
}

/* base64url, padded or not (as base64url.decode).  -1 with err set. */
static int
b64url(const char *s, size_t n, struct axg_buf *out, char *err, size_t errlen)
{
	char *tmp;
	size_t pos, m = n;
	int rc;

	if (!(n > 0 && s[n - 1] == '=')) {
		if (n % 4 == 1) {
			snprintf(err, errlen, "illegal base64url string");
			return -1;
		}
		m = n + (n % 4 == 2 ? 2 : n % 4 == 3 ? 1 : 0);
	}
	tmp = axg_malloc(m + 1);
	memcpy(tmp, s, n);
	memset(tmp + n, '=', m - n);
	rc = axv_b64_decode(tmp, m, true, true, out, &pos);
	free(tmp);
	if (rc < 0)
		snprintf(err, errlen, "illegal base64 data at input byte %zu",
		    pos);
	return rc;
}

/* Split the compact form; fills t->part. */
static int
jwt_split(struct axp_bctx *ctx, const struct axv *v, struct jwt *t)
{
	const char *s = axv_str(v), *d1, *d2;
	size_t n = axv_strlen(v), dots = 0, i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++)
		dots += s[i] == '.';
	if (dots == 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "encoded JWT had no period separators");
	if (dots != 2)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "encoded JWT must have 3 sections, found %zu", dots + 1);
	d1 = memchr(s, '.', n);
	d2 = memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - s));
	t->part[0] = s;
	t->len[0] = (size_t)(d1 - s);
	t->part[1] = d1 + 1;
	t->len[1] = (size_t)(d2 - d1 - 1);
	t->part[2] = d2 + 1;
	t->len[2] = n - (size_t)(d2 + 1 - s);
	return AXP_BI_OK;
}

/* A JSON object from text; NULL if it is not one. */
static struct axv *
json_object(const char *s, size_t n)
{
	char err[128];
	struct axv *v = axv_json_parse(s, n, err, sizeof(err));

	if (v != NULL && axv_kind(v) != AXV_OBJECT) {
		axv_unref(v);
		v = NULL;
	}
	return v;
}

static int
jwt_header(struct axp_bctx *ctx, struct jwt *t)
{
	struct axg_buf b;
	char err[96];
	const struct axv *a;

	axg_buf_init(&b, 0);
	if (b64url(t->part[0], t->len[0], &b, err, sizeof(err)) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWT header had invalid encoding: %s", err);
	}
	t->header = json_object(b.data ? b.data : "", b.len);
	axg_buf_free(&b);
	if (t->header == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "bad JWT header: not a JSON object");
	if (axv_object_gets(t->header, "enc") != NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWT is a JWE object, which is not supported");
	a = axv_object_gets(t->header, "alg");
	t->alg = a && axv_kind(a) == AXV_STRING ? axv_str(a) : "";
	a = axv_object_gets(t->header, "kid");
	t->kid = a && axv_kind(a) == AXV_STRING ? axv_str(a) : "";
	return AXP_BI_OK;
}

static int
jwt_payload(struct axp_bctx *ctx, const struct jwt *t, struct axv **out)
{
	struct axg_buf b;
	char err[96];

	axg_buf_init(&b, 0);
	if (b64url(t->part[1], t->len[1], &b, err, sizeof(err)) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWT payload had invalid encoding: %s", err);
	}
	*out = json_object(b.data ? b.data : "", b.len);
	axg_buf_free(&b);
	if (*out == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWT payload is not a JSON object");
	return AXP_BI_OK;
}

static int
jwt_signature(struct axp_bctx *ctx, const struct jwt *t, struct axg_buf *b)
{
	char err[96];

	if (b64url(t->part[2], t->len[2], b, err, sizeof(err)) < 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWT signature had invalid encoding: %s", err);
	return AXP_BI_OK;
}

/* ---- keys ---- */

struct vkey {
	EVP_PKEY *pk;
	char alg[16];
	char kid[128];
};

struct keyset {
	struct vkey k[JWT_MAX_KEYS];
	size_t n;
};

static void
keyset_free(struct keyset *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		EVP_PKEY_free(ks->k[i].pk);
	ks->n = 0;
}

/* A base64url member of a JWK as a BIGNUM (NULL if absent or bad). */
static BIGNUM *
jwk_bn(const struct axv *jwk, const char *name)
{
	const struct axv *v = axv_object_gets(jwk, name);
	struct axg_buf b;
	char err[64];
	BIGNUM *bn = NULL;

	if (v == NULL || axv_kind(v) != AXV_STRING)
		return NULL;
	axg_buf_init(&b, 0);
	if (b64url(axv_str(v), axv_strlen(v), &b, err, sizeof(err)) == 0 &&
	    b.len > 0)
		bn = BN_bin2bn((const unsigned char *)b.data, (int)b.len, NULL);
	axg_buf_free(&b);
	return bn;
}

static const char *
jwk_str(const struct axv *jwk, const char *name)
{
	const struct axv *v = axv_object_gets(jwk, name);

	return v && axv_kind(v) == AXV_STRING ? axv_str(v) : NULL;
}

/* A base64url member of a JWK of exactly n bytes into out. */
static bool
jwk_raw(const struct axv *jwk, const char *name, unsigned char *out, size_t n)
{
	const struct axv *v = axv_object_gets(jwk, name);
	struct axg_buf b;
	char err[64];
	bool ok;

	if (v == NULL || axv_kind(v) != AXV_STRING)
		return false;
	axg_buf_init(&b, 0);
	ok = b64url(axv_str(v), axv_strlen(v), &b, err, sizeof(err)) == 0 &&
	    b.len == n;
	if (ok)
		memcpy(out, b.data, n);
	OPENSSL_cleanse(b.data, b.len);
	axg_buf_free(&b);
	return ok;
}

/* An OKP JWK (RFC 8037) as a key: Ed25519 only. */
static EVP_PKEY *
okp_pkey(const struct axv *jwk, bool priv)
{
	const char *crv = jwk_str(jwk, "crv");
	unsigned char x[32], d[32];
	EVP_PKEY *pk = NULL;

	if (crv == NULL || strcmp(crv, "Ed25519") != 0 ||
	    !jwk_raw(jwk, "x", x, sizeof(x)))
		return NULL;
	if (!priv)
		return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x,
		    sizeof(x));
	if (jwk_raw(jwk, "d", d, sizeof(d))) {
		pk = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, d,
		    sizeof(d));
		OPENSSL_cleanse(d, sizeof(d));
	}
	return pk;
}

/* An RSA, EC or OKP (Ed25519) JWK as a key (private when it has "d"). */
static EVP_PKEY *
jwk_pkey(const struct axv *jwk)
{
	const char *kty = jwk_str(jwk, "kty");
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *pk = NULL;
	BIGNUM *bn[8] = { NULL };
	unsigned char *pub = NULL;
	bool priv = axv_object_gets(jwk, "d") != NULL;
	size_t i;
	int ok = 0;

	if (bld == NULL || kty == NULL)
		goto done;
	if (strcmp(kty, "RSA") == 0) {
		static const char *const names[] = { "n", "e", "d", "p", "q",
			"dp", "dq", "qi" };
		static const char *const params_n[] = { OSSL_PKEY_PARAM_RSA_N,
			OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
			OSSL_PKEY_PARAM_RSA_FACTOR1,
			OSSL_PKEY_PARAM_RSA_FACTOR2,
			OSSL_PKEY_PARAM_RSA_EXPONENT1,
			OSSL_PKEY_PARAM_RSA_EXPONENT2,
			OSSL_PKEY_PARAM_RSA_COEFFICIENT1 };
		for (i = 0; i < 8; i++) {
			bn[i] = jwk_bn(jwk, names[i]);
			if (bn[i] == NULL && (i < 2 || (priv && i == 2)))
				goto done;
			if (bn[i] != NULL &&
			    !OSSL_PARAM_BLD_push_BN(bld, params_n[i], bn[i]))
				goto done;
		}
		pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	} else if (strcmp(kty, "EC") == 0) {
		const char *crv = jwk_str(jwk, "crv"), *group;
		int size, nx, ny;
		if (crv == NULL)
			goto done;
		if (strcmp(crv, "P-256") == 0)
			group = "prime256v1", size = 32;
		else if (strcmp(crv, "P-384") == 0)
			group = "secp384r1", size = 48;
		else if (strcmp(crv, "P-521") == 0)
			group = "secp521r1", size = 66;
		else
			goto done;
		bn[0] = jwk_bn(jwk, "x");
		bn[1] = jwk_bn(jwk, "y");
		if (bn[0] == NULL || bn[1] == NULL)
			goto done;
		nx = BN_num_bytes(bn[0]);
		ny = BN_num_bytes(bn[1]);
		if (nx > size || ny > size)
			goto done;
		pub = axg_calloc(1, (size_t)(2 * size + 1));
		pub[0] = 4;
		BN_bn2binpad(bn[0], pub + 1, size);
		BN_bn2binpad(bn[1], pub + 1 + size, size);
		if (!OSSL_PARAM_BLD_push_utf8_string(bld,
			OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
		    !OSSL_PARAM_BLD_push_octet_string(bld,
			OSSL_PKEY_PARAM_PUB_KEY, pub, (size_t)(2 * size + 1)))
			goto done;
		if (priv) {
			bn[2] = jwk_bn(jwk, "d");
			if (bn[2] == NULL ||
			    !OSSL_PARAM_BLD_push_BN(bld,
				OSSL_PKEY_PARAM_PRIV_KEY, bn[2]))
				goto done;
		}
		pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	} else if (strcmp(kty, "OKP") == 0) {
		pk = okp_pkey(jwk, priv);
		ok = pk != NULL;
		goto done;
	} else
		goto done;
	params = OSSL_PARAM_BLD_to_param(bld);
	if (pc == NULL || params == NULL || EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &pk,
		priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0)
		goto done;
	ok = 1;
done:
	if (!ok) {
		EVP_PKEY_free(pk);
		pk = NULL;
	}
	for (i = 0; i < 8; i++)
		BN_clear_free(bn[i]);
	free(pub);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(pc);
	return pk;
}

static bool
keyset_add_jwk(struct keyset *ks, const struct axv *jwk)
{
	struct vkey *k;
	const char *s;

	if (axv_kind(jwk) != AXV_OBJECT || ks->n >= JWT_MAX_KEYS)
		return false;
	k = &ks->k[ks->n];
	memset(k, 0, sizeof(*k));
	k->pk = jwk_pkey(jwk);
	if (k->pk == NULL)
		return false;
	if ((s = jwk_str(jwk, "alg")) != NULL)
		snprintf(k->alg, sizeof(k->alg), "%s", s);
	if ((s = jwk_str(jwk, "kid")) != NULL)
		snprintf(k->kid, sizeof(k->kid), "%s", s);
	ks->n++;
	return true;
}

/* OPA's getKeysFromCertOrJWK. */
static int
keys_load(struct axp_bctx *ctx, const struct axv *v, struct keyset *ks)
{
	const char *s = axv_str(v);
	size_t n = axv_strlen(v);

	ks->n = 0;
	if (strstr(s, "-----BEGIN") != NULL) {
		BIO *bio = BIO_new_mem_buf(s, (int)n);
		char *name = NULL, *hdr = NULL;
		unsigned char *der = NULL;
		long dlen = 0;
		const unsigned char *p;
		int rc = AXP_BI_OK;

		if (bio == NULL ||
		    !PEM_read_bio(bio, &name, &hdr, &der, &dlen)) {
			BIO_free(bio);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "failed to extract a Key from the PEM certificate");
		}
		{
			/* anything but blanks after the block is an error */
			char rest[64];
			int r;
			while ((r = BIO_read(bio, rest, sizeof(rest))) > 0) {
				int i;
				for (i = 0; i < r; i++)
					if (rest[i] != '\n' &&
					    rest[i] != '\r' && rest[i] != ' ' &&
					    rest[i] != '\t')
						rc = AXP_BI_ERROR;
			}
		}
		BIO_free(bio);
		p = der;
		if (rc != AXP_BI_OK)
			axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "extra data after a PEM certificate block");
		else if (strcmp(name, "CERTIFICATE") == 0) {
			X509 *x = d2i_X509(NULL, &p, dlen);
			ks->k[0].pk = x ? X509_get_pubkey(x) : NULL;
			X509_free(x);
			if (ks->k[0].pk == NULL)
				rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "failed to parse a PEM certificate");
		} else if (strcmp(name, "PUBLIC KEY") == 0) {
			ks->k[0].pk = d2i_PUBKEY(NULL, &p, dlen);
			if (ks->k[0].pk == NULL)
				rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "failed to parse a PEM public key");
		} else
			rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "failed to extract a Key from the PEM certificate");
		if (rc == AXP_BI_OK) {
			ks->k[0].alg[0] = ks->k[0].kid[0] = '\0';
			ks->n = 1;
		}
		OPENSSL_free(name);
		OPENSSL_free(hdr);
		OPENSSL_free(der);
		return rc;
	}
	{
		struct axv *j = json_object(s, n);
		const struct axv *keys;
		size_t i;
		bool good = j != NULL;

		if (good && (keys = axv_object_gets(j, "keys")) != NULL) {
			good = axv_kind(keys) == AXV_ARRAY;
			for (i = 0; good && i < axv_array_len(keys); i++)
				good =
				    keyset_add_jwk(ks, axv_array_get(keys, i));
		} else if (good)
			good = keyset_add_jwk(ks, j);
		axv_unref(j);
		if (!good || ks->n == 0) {
			keyset_free(ks);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "failed to parse a JWK key (set)");
		}
	}
	return AXP_BI_OK;
}

/* ---- signatures ---- */

static bool
hs_verify(const struct jwt_alg *a, const char *key, size_t klen, const char *in,
    size_t inlen, const struct axg_buf *sig)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (HMAC(EVP_get_digestbyname(a->md), key, (int)klen,
		(const unsigned char *)in, inlen, d, &n) == NULL)
		return false;
	return sig->len == n && CRYPTO_memcmp(sig->data, d, n) == 0;
}

/* JWS r||s to DER; NULL if the size is wrong. */
static unsigned char *
es_to_der(const struct jwt_alg *a, const struct axg_buf *sig, int *dlen)
{
	ECDSA_SIG *es;
	BIGNUM *r, *s;
	unsigned char *der = NULL;

	if (sig->len != (size_t)(2 * a->ecsize))
		return NULL;
	es = ECDSA_SIG_new();
	r = BN_bin2bn((const unsigned char *)sig->data, a->ecsize, NULL);
	s = BN_bin2bn((const unsigned char *)sig->data + a->ecsize, a->ecsize,
	    NULL);
	if (es == NULL || r == NULL || s == NULL || !ECDSA_SIG_set0(es, r, s)) {
		BN_free(r);
		BN_free(s);
		ECDSA_SIG_free(es);
		return NULL;
	}
	*dlen = i2d_ECDSA_SIG(es, &der);
	ECDSA_SIG_free(es);
	return *dlen > 0 ? der : NULL;
}

static bool
pk_verify(const struct jwt_alg *a, EVP_PKEY *pk, const char *in, size_t inlen,
    const struct axg_buf *sig)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;
	const unsigned char *s = (const unsigned char *)sig->data;
	unsigned char *der = NULL;
	size_t slen = sig->len;
	int dlen = 0, type = EVP_PKEY_get_base_id(pk);
	bool ok = false;

	if (m == NULL)
		return false;
	if ((a->kind == JK_ES) != (type == EVP_PKEY_EC) ||
	    (a->kind == JK_ED) != (type == EVP_PKEY_ED25519) ||
	    ((a->kind == JK_RS || a->kind == JK_PS) && type != EVP_PKEY_RSA &&
		type != EVP_PKEY_RSA_PSS))
		goto done;
	if (a->kind == JK_ES) {
		der = es_to_der(a, sig, &dlen);
		if (der == NULL)
			goto done;
		s = der;
		slen = (size_t)dlen;
	}
	if (EVP_DigestVerifyInit_ex(m, &pc, a->md, NULL, NULL, pk, NULL) <= 0)
		goto done;
	if (a->kind == JK_PS &&
	    (EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) <= 0 ||
		EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_AUTO) <=
		    0))
		goto done;
	ok =
	    EVP_DigestVerify(m, s, slen, (const unsigned char *)in, inlen) == 1;
done:
	OPENSSL_free(der);
	EVP_MD_CTX_free(m);
	return ok;
}

/* Sign in with key (a JWK object); the signature goes to sig. */
static int
jws_sign(struct axp_bctx *ctx, const struct jwt_alg *a, const struct axv *jwk,
    const char *in, size_t inlen, struct axg_buf *sig)
{
	EVP_MD_CTX *m = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *pk = NULL;
	unsigned char *out = NULL;
	size_t olen = 0;
	int rc = AXP_BI_ERROR;
	const char *kty = jwk_str(jwk, "kty");

	if (a->kind == JK_HS) {
		const struct axv *k = axv_object_gets(jwk, "k");
		struct axg_buf kb;
		char err[64];
		unsigned char d[EVP_MAX_MD_SIZE];
		unsigned int n = 0;

		if (kty == NULL || strcmp(kty, "oct") != 0 || k == NULL ||
		    axv_kind(k) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "JWK derived key type and keyType parameter do "
			    "not match");
		axg_buf_init(&kb, 0);
		if (b64url(axv_str(k), axv_strlen(k), &kb, err, sizeof(err)) <
		    0) {
			axg_buf_free(&kb);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "failed to parse the JWK: %s", err);
		}
		if (HMAC(EVP_get_digestbyname(a->md), kb.data ? kb.data : "",
			(int)kb.len, (const unsigned char *)in, inlen, d,
			&n) == NULL) {
			axg_buf_free(&kb);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "signing failed");
		}
		OPENSSL_cleanse(kb.data, kb.len);
		axg_buf_free(&kb);
		axg_buf_append(sig, d, n);
		return AXP_BI_OK;
	}
	pk = jwk_pkey(jwk);
	if (pk == NULL || axv_object_gets(jwk, "d") == NULL) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "failed to parse the JWK as a private key");
		goto done;
	}
	if ((a->kind == JK_ES) != (EVP_PKEY_get_base_id(pk) == EVP_PKEY_EC) ||
	    (a->kind == JK_ED) !=
		(EVP_PKEY_get_base_id(pk) == EVP_PKEY_ED25519)) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWK key type does not match the algorithm %s", a->name);
		goto done;
	}
	m = EVP_MD_CTX_new();
	if (m == NULL ||
	    EVP_DigestSignInit_ex(m, &pc, a->md, NULL, NULL, pk, NULL) <= 0 ||
	    (a->kind == JK_PS &&
		(EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) <= 0 ||
		    EVP_PKEY_CTX_set_rsa_pss_saltlen(pc,
			RSA_PSS_SALTLEN_DIGEST) <= 0)) ||
	    EVP_DigestSign(m, NULL, &olen, (const unsigned char *)in, inlen) <=
		0) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "signing failed");
		goto done;
	}
	out = axg_malloc(olen);
	if (EVP_DigestSign(m, out, &olen, (const unsigned char *)in, inlen) <=
	    0) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "signing failed");
		goto done;
	}
	if (a->kind == JK_ES) {
		const unsigned char *p = out;
		ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)olen);
		unsigned char rs[132];
		if (es == NULL) {
			rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "signing failed");
			goto done;
		}
		BN_bn2binpad(ECDSA_SIG_get0_r(es), rs, a->ecsize);
		BN_bn2binpad(ECDSA_SIG_get0_s(es), rs + a->ecsize, a->ecsize);
		ECDSA_SIG_free(es);
		axg_buf_append(sig, rs, (size_t)(2 * a->ecsize));
	} else
		axg_buf_append(sig, out, olen);
	rc = AXP_BI_OK;
done:
	free(out);
	EVP_MD_CTX_free(m);
	EVP_PKEY_free(pk);
	return rc;
}

/* Verify t against the keys: a key whose kid matches the header's decides
 * alone; otherwise any key (with no alg, or the header's) may. */
static bool
keys_verify(const struct keyset *ks, const struct jwt_alg *a,
    const struct jwt *t, const struct axg_buf *sig)
{
	size_t in = t->len[0] + 1 + t->len[1], i;

	if (t->kid[0] != '\0')
		for (i = 0; i < ks->n; i++)
			if (strcmp(ks->k[i].kid, t->kid) == 0)
				return pk_verify(a, ks->k[i].pk, t->part[0], in,
				    sig);
	for (i = 0; i < ks->n; i++) {
		if (ks->k[i].alg[0] != '\0' && strcmp(ks->k[i].alg, a->name))
			continue;
		if (pk_verify(a, ks->k[i].pk, t->part[0], in, sig))
			return true;
	}
	return false;
}

/* ---- builtins ---- */

/* A token whose header says cty "JWT" carries another token as its
 * payload (possibly quoted): decode that one instead, as OPA does. */
static int decode_depth(struct axp_bctx *ctx, const struct axv *tok, int depth,
    struct axv **out);

static int
decode_nested(struct axp_bctx *ctx, const struct jwt *t, int depth,
    struct axv **out)
{
	struct axg_buf b;
	char err[96];
	size_t s = 0, e;
	struct axv *inner;
	int rc;

	if (depth >= JWT_MAX_NESTING)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "nested JWTs deeper than %d levels", JWT_MAX_NESTING);
	axg_buf_init(&b, 0);
	if (b64url(t->part[1], t->len[1], &b, err, sizeof(err)) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "JWT payload had invalid encoding: %s", err);
	}
	e = b.len;
	while (s < e && (b.data[s] == '"' || b.data[s] == '\''))
		s++;
	while (e > s && (b.data[e - 1] == '"' || b.data[e - 1] == '\''))
		e--;
	inner = axv_string(b.data ? b.data + s : "", e - s);
	axg_buf_free(&b);
	rc = decode_depth(ctx, inner, depth + 1, out);
	axv_unref(inner);
	return rc;
}

static int
bi_decode(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	return decode_depth(ctx, args[0], 0, out);
}

static int
decode_depth(struct axp_bctx *ctx, const struct axv *tok, int depth,
    struct axv **out)
{
	struct jwt t;
	struct axv *payload = NULL, *r;
	const struct axv *cty;
	struct axg_buf sig;
	static const char hx[] = "0123456789abcdef";
	char *hex;
	size_t i;
	int rc;

	if (jwt_split(ctx, tok, &t) != AXP_BI_OK)
		return AXP_BI_ERROR;
	if (jwt_header(ctx, &t) != AXP_BI_OK) {
		jwt_clear(&t);
		return AXP_BI_ERROR;
	}
	cty = axv_object_gets(t.header, "cty");
	if (cty != NULL && axv_kind(cty) == AXV_STRING &&
	    strcmp(axv_str(cty), "JWT") == 0) {
		rc = decode_nested(ctx, &t, depth, out);
		jwt_clear(&t);
		return rc;
	}
	if (jwt_payload(ctx, &t, &payload) != AXP_BI_OK) {
		jwt_clear(&t);
		return AXP_BI_ERROR;
	}
	axg_buf_init(&sig, 0);
	if (jwt_signature(ctx, &t, &sig) != AXP_BI_OK) {
		axg_buf_free(&sig);
		axv_unref(payload);
		jwt_clear(&t);
		return AXP_BI_ERROR;
	}
	hex = axg_malloc(2 * sig.len + 1);
	for (i = 0; i < sig.len; i++) {
		hex[2 * i] = hx[(unsigned char)sig.data[i] >> 4];
		hex[2 * i + 1] = hx[(unsigned char)sig.data[i] & 15];
	}
	hex[2 * sig.len] = '\0';
	r = axv_array_new(3);
	axv_array_push(r, axv_ref(t.header));
	axv_array_push(r, payload);
	axv_array_push(r, axv_string_own(hex, 2 * sig.len));
	axg_buf_free(&sig);
	jwt_clear(&t);
	*out = r;
	return AXP_BI_OK;
}

static int
verify_common(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    const char *alg)
{
	const struct jwt_alg *a = alg_find(alg);
	struct jwt t;
	struct axg_buf sig;
	struct keyset ks;
	int rc = AXP_BI_ERROR;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	if (jwt_split(ctx, args[0], &t) != AXP_BI_OK)
		return AXP_BI_ERROR;
	axg_buf_init(&sig, 0);
	ks.n = 0;
	if (a->kind == JK_HS) {
		if (jwt_signature(ctx, &t, &sig) != AXP_BI_OK)
			goto done;
		*out =
		    axv_bool(hs_verify(a, axv_str(args[1]), axv_strlen(args[1]),
			t.part[0], t.len[0] + 1 + t.len[1], &sig));
		rc = AXP_BI_OK;
		goto done;
	}
	if (keys_load(ctx, args[1], &ks) != AXP_BI_OK ||
	    jwt_signature(ctx, &t, &sig) != AXP_BI_OK ||
	    jwt_header(ctx, &t) != AXP_BI_OK)
		goto done;
	*out = axv_bool(keys_verify(&ks, a, &t, &sig));
	rc = AXP_BI_OK;
done:
	keyset_free(&ks);
	axg_buf_free(&sig);
	jwt_clear(&t);
	return rc;
}

#define VERIFY_FN(fn, alg)                                                     \
	static int fn(struct axp_bctx *ctx, struct axv *const *args,           \
	    struct axv **out)                                                  \
	{                                                                      \
		return verify_common(ctx, args, out, alg);                     \
	}

VERIFY_FN(bi_verify_hs256, "HS256")
VERIFY_FN(bi_verify_hs384, "HS384")
VERIFY_FN(bi_verify_hs512, "HS512")
VERIFY_FN(bi_verify_rs256, "RS256")
VERIFY_FN(bi_verify_rs384, "RS384")
VERIFY_FN(bi_verify_rs512, "RS512")
VERIFY_FN(bi_verify_ps256, "PS256")
VERIFY_FN(bi_verify_ps384, "PS384")
VERIFY_FN(bi_verify_ps512, "PS512")
VERIFY_FN(bi_verify_es256, "ES256")
VERIFY_FN(bi_verify_es384, "ES384")
VERIFY_FN(bi_verify_es512, "ES512")

/* [false, {}, {}] */
static struct axv *
unverified(void)
{
	struct axv *r = axv_array_new(3);

	axv_array_push(r, axv_bool(false));
	axv_array_push(r, axv_object_new(0));
	axv_array_push(r, axv_object_new(0));
	return r;
}

static bool
aud_ok(const char *want, const struct axv *aud)
{
	size_t i;

	if (want == NULL)
		return false;
	if (axv_kind(aud) == AXV_STRING)
		return strcmp(axv_str(aud), want) == 0;
	if (axv_kind(aud) == AXV_ARRAY)
		for (i = 0; i < axv_array_len(aud); i++) {
			const struct axv *e = axv_array_get(aud, i);
			if (axv_kind(e) == AXV_STRING &&
			    strcmp(axv_str(e), want) == 0)
				return true;
		}
	return false;
}

static int
bi_decode_verify(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const struct axv *c = args[1], *cert = NULL, *secret = NULL, *v;
	const char *alg = NULL, *iss = NULL, *aud = NULL;
	double now = (double)axp_bctx_now_ns(ctx);
	const struct jwt_alg *a;
	struct keyset ks;
	struct jwt t;
	struct axg_buf sig;
	struct axv *payload = NULL, *tok = NULL, *r;
	bool good = false;
	int rc = AXP_BI_ERROR, depth;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_OBJECT))
		return AXP_BI_ERROR;
	for (i = 0; i < axv_object_len(c); i++) {
		const struct axv *k = axv_object_key(c, i);
		v = axv_object_val(c, i);
		if (axv_kind(k) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "token constraint keys must be strings");
		if (strcmp(axv_str(k), "time") == 0) {
			if (axv_kind(v) != AXV_NUMBER)
				return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "time constraint: must be a number");
			now = axv_num_get_double(v);
			continue;
		}
		if (axv_kind(v) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "%s constraint: must be a string", axv_str(k));
		if (strcmp(axv_str(k), "cert") == 0)
			cert = v;
		else if (strcmp(axv_str(k), "secret") == 0)
			secret = v;
		else if (strcmp(axv_str(k), "alg") == 0)
			alg = axv_str(v);
		else if (strcmp(axv_str(k), "iss") == 0)
			iss = axv_str(v);
		else if (strcmp(axv_str(k), "aud") == 0)
			aud = axv_str(v);
		else
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "unknown token validation constraint: %s",
			    axv_str(k));
	}
	if ((cert == NULL) == (secret == NULL))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "exactly one of the cert and secret constraints is "
		    "required");
	ks.n = 0;
	if (cert != NULL && keys_load(ctx, cert, &ks) != AXP_BI_OK)
		return AXP_BI_ERROR;
	axg_buf_init(&sig, 0);
	memset(&t, 0, sizeof(t));
	tok = axv_ref(args[0]);
	/* RFC 7519 7.2: a token whose cty is JWT carries another token as
	 * its payload, which must verify too; the innermost one's header and
	 * claims are the answer */
	for (depth = 0;; depth++) {
		const struct axv *cty;

		jwt_clear(&t);
		axg_buf_reset(&sig);
		if (depth == JWT_MAX_NESTING) {
			axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "nested JWTs deeper than %d levels",
			    JWT_MAX_NESTING);
			goto done;
		}
		if (jwt_split(ctx, tok, &t) != AXP_BI_OK)
			goto done;
		if (jwt_header(ctx, &t) != AXP_BI_OK ||
		    jwt_signature(ctx, &t, &sig) != AXP_BI_OK)
			goto done;
		/* RFC 7515 4.1.11: no extension is understood here, so a
		 * token that makes one critical never verifies */
		if (axv_object_gets(t.header, "crit") != NULL)
			goto unverified;
		a = alg_find(t.alg);
		if (a == NULL || (alg != NULL && strcmp(alg, t.alg) != 0))
			goto unverified;
		if (secret != NULL)
			good = a->kind == JK_HS &&
			    hs_verify(a, axv_str(secret), axv_strlen(secret),
				t.part[0], t.len[0] + 1 + t.len[1], &sig);
		else
			good =
			    a->kind != JK_HS && keys_verify(&ks, a, &t, &sig);
		if (!good)
			goto unverified;
		cty = axv_object_gets(t.header, "cty");
		if (cty == NULL || axv_kind(cty) != AXV_STRING ||
		    strcasecmp(axv_str(cty), "JWT") != 0)
			break;
		{
			struct axg_buf b;
			char err[96];

			axg_buf_init(&b, 0);
			if (b64url(t.part[1], t.len[1], &b, err, sizeof(err)) <
			    0) {
				axg_buf_free(&b);
				axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "JWT payload had invalid encoding: %s",
				    err);
				goto done;
			}
			axv_unref(tok);
			tok = axv_string(b.data ? b.data : "", b.len);
			axg_buf_free(&b);
		}
	}
	if (jwt_payload(ctx, &t, &payload) != AXP_BI_OK)
		goto done;
	if (iss != NULL) {
		v = axv_object_gets(payload, "iss");
		if (v == NULL || axv_kind(v) != AXV_STRING ||
		    strcmp(axv_str(v), iss) != 0)
			goto unverified;
	}
	v = axv_object_gets(payload, "aud");
	if ((v != NULL && !aud_ok(aud, v)) || (v == NULL && aud != NULL))
		goto unverified;
	if ((v = axv_object_gets(payload, "exp")) != NULL) {
		if (axv_kind(v) != AXV_NUMBER) {
			axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "exp value must be a number");
			goto done;
		}
		if (now >= axv_num_get_double(v) * 1e9)
			goto unverified;
	}
	if ((v = axv_object_gets(payload, "nbf")) != NULL) {
		if (axv_kind(v) != AXV_NUMBER) {
			axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "nbf value must be a number");
			goto done;
		}
		if (now < axv_num_get_double(v) * 1e9)
			goto unverified;
	}
	r = axv_array_new(3);
	axv_array_push(r, axv_bool(true));
	axv_array_push(r, axv_ref(t.header));
	axv_array_push(r, payload);
	payload = NULL;
	*out = r;
	rc = AXP_BI_OK;
	goto done;
unverified:
	*out = unverified();
	rc = AXP_BI_OK;
done:
	axv_unref(payload);
	axv_unref(tok);
	keyset_free(&ks);
	axg_buf_free(&sig);
	jwt_clear(&t);
	return rc;
}

static int
encode_sign(struct axp_bctx *ctx, const char *hdr, size_t hlen, const char *pay,
    size_t plen, const struct axv *jwk, struct axv **out)
{
	struct axv *h = json_object(hdr, hlen), *jp;
	const struct axv *algv, *typ;
	const struct jwt_alg *a;
	struct axg_buf b, sig;
	char err[128];
	int rc = AXP_BI_ERROR;

	if (hlen == 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "missing or invalid 'alg' header: cannot parse JSON: "
		    "cannot parse empty string");
	if (h == NULL && hdr[0] == '{')
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "missing or invalid 'alg' header: cannot parse JSON");
	algv = h ? axv_object_gets(h, "alg") : NULL;
	if (algv == NULL || axv_kind(algv) != AXV_STRING) {
		axv_unref(h);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "missing or invalid 'alg' header: jwsbb: header \"alg\" "
		    "not found");
	}
	a = alg_find(axv_str(algv));
	typ = axv_object_gets(h, "typ");
	if (a == NULL) {
		axv_unref(h);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "unknown signature algorithm");
	}
	if (typ == NULL ||
	    (axv_kind(typ) == AXV_STRING && strcmp(axv_str(typ), "JWT") == 0)) {
		jp = axv_json_parse(pay, plen, err, sizeof(err));
		if (jp == NULL) {
			axv_unref(h);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "type is JWT but payload is not JSON");
		}
		axv_unref(jp);
	}
	axv_unref(h);
	axg_buf_init(&b, 0);
	axg_buf_init(&sig, 0);
	axv_b64_encode(hdr, hlen, true, false, &b);
	axg_buf_putc(&b, '.');
	axv_b64_encode(pay, plen, true, false, &b);
	if (jws_sign(ctx, a, jwk, b.data, b.len, &sig) != AXP_BI_OK)
		goto done;
	axg_buf_putc(&b, '.');
	axv_b64_encode(sig.data ? sig.data : "", sig.len, true, false, &b);
	*out = axv_string_buf(&b);
	rc = AXP_BI_OK;
done:
	axg_buf_free(&b);
	axg_buf_free(&sig);
	return rc;
}

static int
bi_encode_sign(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axg_buf h, p;
	int rc;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT) ||
	    !axp_bi_want(ctx, args, 2, AXV_OBJECT) ||
	    !axp_bi_want(ctx, args, 3, AXV_OBJECT))
		return AXP_BI_ERROR;
	axg_buf_init(&h, 0);
	axg_buf_init(&p, 0);
	axv_go_json(args[0], &h, NULL, NULL);
	axv_go_json(args[1], &p, NULL, NULL);
	rc = encode_sign(ctx, h.data, h.len, p.data, p.len, args[2], out);
	axg_buf_free(&h);
	axg_buf_free(&p);
	return rc;
}

static int
bi_encode_sign_raw(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axv *jwk;
	char err[128];
	int rc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 3, AXV_STRING))
		return AXP_BI_ERROR;
	jwk = axv_json_parse(axv_str(args[2]), axv_strlen(args[2]), err,
	    sizeof(err));
	if (jwk == NULL || axv_kind(jwk) != AXV_OBJECT) {
		axv_unref(jwk);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "failed to parse the JWK");
	}
	rc = encode_sign(ctx, axv_str(args[0]), axv_strlen(args[0]),
	    axv_str(args[1]), axv_strlen(args[1]), jwk, out);
	axv_unref(jwk);
	return rc;
}

const struct axp_builtin axp_builtins_jwt[] = {
	{ "io.jwt.decode", 1, bi_decode,
	    "(string) => array[object, object, string]", 0 },
	{ "io.jwt.decode_verify", 2, bi_decode_verify,
	    "(string, object[string: any]) => array[boolean, object, object]",
	    AXP_BIF_NONDET },
	{ "io.jwt.verify_hs256", 2, bi_verify_hs256,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_hs384", 2, bi_verify_hs384,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_hs512", 2, bi_verify_hs512,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_rs256", 2, bi_verify_rs256,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_rs384", 2, bi_verify_rs384,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_rs512", 2, bi_verify_rs512,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_ps256", 2, bi_verify_ps256,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_ps384", 2, bi_verify_ps384,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_ps512", 2, bi_verify_ps512,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_es256", 2, bi_verify_es256,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_es384", 2, bi_verify_es384,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.verify_es512", 2, bi_verify_es512,
	    "(string, string) => boolean", 0 },
	{ "io.jwt.encode_sign", 3, bi_encode_sign,
	    "(object, object, object) => string", AXP_BIF_NONDET },
	{ "io.jwt.encode_sign_raw", 3, bi_encode_sign_raw,
	    "(string, string, string) => string", AXP_BIF_NONDET },
	{ NULL, 0, NULL, NULL, 0 },
};
