/* builtins-semver.c: semver.is_valid and semver.compare, with the rules of
 * the Go package OPA uses (coreos/go-semver): MAJOR.MINOR.PATCH as int64
 * decimals, then optional -prerelease and +build identifiers. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

struct semver {
	int64_t v[3];
	const char *pre; /* NULL if none; not terminated: pre_len */
	size_t pre_len;
};

/* ^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$ or empty */
static bool
valid_idents(const char *s, size_t n)
{
	size_t i, run = 0;

	if (n == 0)
		return true;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			if (run == 0)
				return false;
			run = 0;
		} else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || c == '-') {
			run++;
		} else {
			return false;
		}
	}
	return run > 0;
}

/* Go's strconv.ParseInt(s, 10, 64) on s[0..n). */
static bool
parse_i64(const char *s, size_t n, int64_t *out)
{
	char buf[32], *end;
	long long v;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!((buf[0] >= '0' && buf[0] <= '9') ||
		((buf[0] == '+' || buf[0] == '-') && n > 1)))
		return false;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*out = v;
	return true;
}

static bool
semver_parse(const char *s, size_t n, struct semver *sv)
{
	const char *plus = memchr(s, '+', n), *dash, *p, *dot;
	size_t core, i;

	if (plus != NULL) {
		if (!valid_idents(plus + 1, (size_t)(s + n - plus - 1)))
			return false;
		n = (size_t)(plus - s);
	}
	dash = memchr(s, '-', n);
	sv->pre = NULL;
	sv->pre_len = 0;
	if (dash != NULL) {
		sv->pre = dash + 1;
		sv->pre_len = (size_t)(s + n - dash - 1);
		if (!valid_idents(sv->pre, sv->pre_len))
			return false;
		if (sv->pre_len == 0)
			sv->pre = NULL;
		n = (size_t)(dash - s);
	}
	core = n;
	p = s;
	for (i = 0; i < 3; i++) {
		size_t len;
		if (i < 2) {
			dot = memchr(p, '.', (size_t)(s + core - p));
			if (dot == NULL)
				return false;
			len = (size_t)(dot - p);
		} else {
			len = (size_t)(s + core - p);
		}
		if (!parse_i64(p, len, &sv->v[i]))
			return false;
		p += len + 1;
	}
	return true;
}

/* Go's strconv.Atoi on an identifier. */
static bool
ident_int(const char *s, size_t n, int64_t *v)
{
	return parse_i64(s, n, v);
}

static int
pre_compare(const char *a, size_t an, const char *b, size_t bn)
{
	for (;;) {
		const char *ad, *bd;
		size_t al, bl;
		int64_t ai, bi;
		bool aint, bint;
		int c;

		if (an == 0)
			return bn > 0 ? -1 : 0;
		if (bn == 0)
			return 1;
		ad = memchr(a, '.', an);
		bd = memchr(b, '.', bn);
		al = ad ? (size_t)(ad - a) : an;
		bl = bd ? (size_t)(bd - b) : bn;
		aint = ident_int(a, al, &ai);
		bint = ident_int(b, bl, &bi);
		if (aint && !bint)
			return -1;
		if (!aint && bint)
			return 1;
		if (aint && bint && ai != bi)
			return ai > bi ? 1 : -1;
		c = memcmp(a, b, al < bl ? al : bl);
		if (c == 0 && al != bl)
			c = al < bl ? -1 : 1;
		if (c != 0)
			return c > 0 ? 1 : -1;
		a += al + (ad ? 1 : 0);
		an -= al + (ad ? 1 : 0);
		b += bl + (bd ? 1 : 0);
		bn -= bl + (bd ? 1 : 0);
	}
}

static int
semver_compare(const struct semver *a, const struct semver *b)
{
	int i;

	for (i = 0; i < 3; i++)
		if (a->v[i] != b->v[i])
			return a->v[i] > b->v[i] ? 1 : -1;
	if (a->pre == NULL && b->pre != NULL)
		return 1;
	if (b->pre == NULL && a->pre != NULL)
		return -1;
	if (a->pre == NULL)
		return 0;
	return pre_compare(a->pre, a->pre_len, b->pre, b->pre_len);
}

static int
bi_semver_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct semver sv;

	(void)ctx;
	*out = axv_bool(axv_kind(args[0]) == AXV_STRING &&
	    semver_parse(axv_str(args[0]), axv_strlen(args[0]), &sv));
	return AXP_BI_OK;
}

static int
bi_semver_compare(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct semver a, b;
	int i;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	for (i = 0; i < 2; i++)
		if (!semver_parse(axv_str(args[i]), axv_strlen(args[i]),
			i == 0 ? &a : &b))
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "operand %d: string \"%.200s\" is not a valid "
			    "SemVer",
			    i + 1, axv_str(args[i]));
	*out = axv_int(semver_compare(&a, &b));
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_semver[] = {
	{ "semver.is_valid", 1, bi_semver_is_valid, "(any) => boolean", 0 },
	{ "semver.compare", 2, bi_semver_compare, "(string, string) => number",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
