/*
 * builtins-crypto.c: digests and HMACs with OpenSSL (crypto.md5,
 * crypto.sha1, crypto.sha256, crypto.hmac.*, crypto.hmac.equal).
 */
#include "config.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#include "policy/builtins.h"

static struct axv *
hex_value(const unsigned char *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	char *s = axg_malloc(2 * n + 1);
	size_t i;

	for (i = 0; i < n; i++) {
		s[2 * i] = hx[p[i] >> 4];
		s[2 * i + 1] = hx[p[i] & 15];
	}
	s[2 * n] = '\0';
	return axv_string_own(s, 2 * n);
}

static int
digest(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    const EVP_MD *md)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (!EVP_Digest(axv_str(args[0]), axv_strlen(args[0]), d, &n, md, NULL))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "digest failed");
	*out = hex_value(d, n);
	return AXP_BI_OK;
}

static int
bi_md5(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return digest(ctx, args, out, EVP_md5());
}

static int
bi_sha1(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return digest(ctx, args, out, EVP_sha1());
}

static int
bi_sha256(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return digest(ctx, args, out, EVP_sha256());
}

static int
hmac(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    const EVP_MD *md)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	if (HMAC(md, axv_str(args[1]), (int)axv_strlen(args[1]),
		(const unsigned char *)axv_str(args[0]), axv_strlen(args[0]), d,
		&n) == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "hmac failed");
	*out = hex_value(d, n);
	return AXP_BI_OK;
}

static int
bi_hmac_md5(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return hmac(ctx, args, out, EVP_md5());
}

static int
bi_hmac_sha1(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return hmac(ctx, args, out, EVP_sha1());
}

static int
bi_hmac_sha256(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return hmac(ctx, args, out, EVP_sha256());
}

static int
bi_hmac_sha512(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return hmac(ctx, args, out, EVP_sha512());
}

/* Constant-time for equal lengths, as Go's hmac.Equal. */
static int
bi_hmac_equal(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	size_t n;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	n = axv_strlen(args[0]);
	*out = axv_bool(n == axv_strlen(args[1]) &&
	    CRYPTO_memcmp(axv_str(args[0]), axv_str(args[1]), n) == 0);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_crypto[] = {
	{ "crypto.md5", 1, bi_md5, "(string) => string", 0 },
	{ "crypto.sha1", 1, bi_sha1, "(string) => string", 0 },
	{ "crypto.sha256", 1, bi_sha256, "(string) => string", 0 },
	{ "crypto.hmac.md5", 2, bi_hmac_md5, "(string, string) => string", 0 },
	{ "crypto.hmac.sha1", 2, bi_hmac_sha1, "(string, string) => string",
	    0 },
	{ "crypto.hmac.sha256", 2, bi_hmac_sha256, "(string, string) => string",
	    0 },
	{ "crypto.hmac.sha512", 2, bi_hmac_sha512, "(string, string) => string",
	    0 },
	{ "crypto.hmac.equal", 2, bi_hmac_equal, "(string, string) => boolean",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
