/*
 * builtins-uuid.c: uuid.rfc4122 and uuid.parse.
 *
 * uuid.rfc4122(k) gives a version 4 UUID that is stable for one k within
 * one evaluation: its bytes are a SHA-256 of the evaluation's seed (its
 * time.now_ns and identity) and k.  uuid.parse reads the forms Go's
 * google/uuid accepts and is undefined on anything else.
 */
#include "config.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "policy/builtins.h"

static int
bi_rfc4122(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	unsigned char md[EVP_MAX_MD_SIZE], seed[16];
	unsigned int mdlen = 0;
	uintptr_t ev = (uintptr_t)ctx->eval;
	uint64_t now = (uint64_t)axp_bctx_now_ns(ctx);
	char s[37];
	int i;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	for (i = 0; i < 8; i++) {
		seed[i] = (unsigned char)(now >> (8 * i));
		seed[8 + i] = (unsigned char)((uint64_t)ev >> (8 * i));
	}
	{
		EVP_MD_CTX *m = EVP_MD_CTX_new();
		if (m == NULL || !EVP_DigestInit_ex(m, EVP_sha256(), NULL) ||
		    !EVP_DigestUpdate(m, seed, sizeof(seed)) ||
		    !EVP_DigestUpdate(m, axv_str(args[0]),
			axv_strlen(args[0])) ||
		    !EVP_DigestFinal_ex(m, md, &mdlen)) {
			EVP_MD_CTX_free(m);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "cannot hash the seed");
		}
		EVP_MD_CTX_free(m);
	}
	md[6] = (unsigned char)((md[6] & 0x0f) | 0x40);
	md[8] = (unsigned char)((md[8] & 0x3f) | 0x80);
	snprintf(s, sizeof(s),
	    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x",
	    md[0], md[1], md[2], md[3], md[4], md[5], md[6], md[7], md[8],
	    md[9], md[10], md[11], md[12], md[13], md[14], md[15]);
	*out = axv_cstr(s);
	return AXP_BI_OK;
}

/* google/uuid.Parse; false on any other text. */
static bool
uuid_parse(const char *s, size_t n, unsigned char u[16])
{
	static const int pos[16] = { 0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26,
		28, 30, 32, 34 };
	int i;

	if (n == 32) {
		for (i = 0; i < 16; i++) {
			int h = axg_hexval(s[2 * i]),
			    l = axg_hexval(s[2 * i + 1]);
			if (h < 0 || l < 0)
				return false;
			u[i] = (unsigned char)(h << 4 | l);
		}
		return true;
	}
	if (n == 45) {
		if (!axg_strncaseeq(s, "urn:uuid:", 9))
			return false;
		s += 9;
	} else if (n == 38)
		s += 1;
	else if (n != 36)
		return false;
	if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return false;
	for (i = 0; i < 16; i++) {
		int h = axg_hexval(s[pos[i]]), l = axg_hexval(s[pos[i] + 1]);
		if (h < 0 || l < 0)
			return false;
		u[i] = (unsigned char)(h << 4 | l);
	}
	return true;
}

static void
put(struct axv *o, const char *k, struct axv *v)
{
	axv_object_put(o, axv_cstr(k), v);
}

static int
bi_parse(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	unsigned char u[16];
	struct axv *o;
	int version;
	const char *variant;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (!uuid_parse(axv_str(args[0]), axv_strlen(args[0]), u))
		return AXP_BI_UNDEF;
	version = u[6] >> 4;
	if ((u[8] & 0xc0) == 0x80)
		variant = "RFC4122";
	else if ((u[8] & 0xe0) == 0xc0)
		variant = "Microsoft";
	else if ((u[8] & 0xe0) == 0xe0)
		variant = "Future";
	else
		variant = "Reserved";
	o = axv_object_new(8);
	put(o, "version", axv_int(version));
	put(o, "variant", axv_cstr(variant));
	if (version == 1 || version == 2) {
		int64_t t = (int64_t)((uint64_t)u[0] << 24 |
		    (uint64_t)u[1] << 16 | (uint64_t)u[2] << 8 | u[3]);
		char node[18], mac[32];

		t |= (int64_t)((uint64_t)u[4] << 8 | u[5]) << 32;
		t |= (int64_t)(((uint64_t)u[6] << 8 | u[7]) & 0xfff) << 48;
		put(o, "time",
		    axv_int((t - INT64_C(0x01B21DD213814000)) * 100));
		put(o, "clocksequence", axv_int((u[8] << 8 | u[9]) & 0x3fff));
		snprintf(node, sizeof(node), "%02x-%02x-%02x-%02x-%02x-%02x",
		    u[10], u[11], u[12], u[13], u[14], u[15]);
		put(o, "nodeid", axv_cstr(node));
		snprintf(mac, sizeof(mac), "%s:%s",
		    (u[10] & 2) ? "local" : "global",
		    (u[10] & 1) ? "multicast" : "unicast");
		put(o, "macvariables", axv_cstr(mac));
	}
	if (version == 2) {
		static const char *const domains[] = { "Person", "Group",
			"Org" };
		char d[24];
		put(o, "id",
		    axv_int((int64_t)((uint64_t)u[0] << 24 |
			(uint64_t)u[1] << 16 | (uint64_t)u[2] << 8 | u[3])));
		if (u[9] < 3)
			put(o, "domain", axv_cstr(domains[u[9]]));
		else {
			snprintf(d, sizeof(d), "Domain%d", u[9]);
			put(o, "domain", axv_cstr(d));
		}
	}
	*out = o;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_uuid[] = {
	{ "uuid.rfc4122", 1, bi_rfc4122, "(string) => string", AXP_BIF_NONDET },
	{ "uuid.parse", 1, bi_parse, "(string) => object[string: any]", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
