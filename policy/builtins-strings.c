/* builtins-strings.c: string builtins: concat, contains, startswith,
 * endswith, indexof(_n), substring, lower, upper, split, replace, trim*,
 * format_int, strings.* (count, reverse, replace_n, split_n,
 * any_prefix_match, any_suffix_match).  Positions count code points. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

static int
bi_concat(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	size_t i, n, seplen, total = 0;
	const char *sep;
	bool is_set;
	char *p;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	is_set = axv_kind(args[1]) == AXV_SET;
	if (!is_set && axv_kind(args[1]) != AXV_ARRAY)
		return axp_bi_type_error(ctx, 2, "one of {array, set}",
		    args[1]);
	n = is_set ? axv_set_len(args[1]) : axv_array_len(args[1]);
	sep = axv_str(args[0]);
	seplen = axv_strlen(args[0]);
	/* one pass to check and measure, one to copy into the result */
	for (i = 0; i < n; i++) {
		struct axv *e =
		    is_set ? axv_set_at(args[1], i) : axv_array_get(args[1], i);
		if (axv_kind(e) != AXV_STRING)
			return axp_bi_type_error(ctx, 2,
			    is_set ? "set of strings" : "array of strings",
			    args[1]);
		total += axv_strlen(e) + (i > 0 ? seplen : 0);
	}
	*out = axv_string_new(total, &p);
	for (i = 0; i < n; i++) {
		struct axv *e =
		    is_set ? axv_set_at(args[1], i) : axv_array_get(args[1], i);
		if (i > 0) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		memcpy(p, axv_str(e), axv_strlen(e));
		p += axv_strlen(e);
	}
	return AXP_BI_OK;
}

/* internal.concat_slice(sep, arr, start, stop): concat(sep,
 * array.slice(arr, start, stop)) without the intermediate array, which the
 * compiler writes for that nesting (the parent domains of a host name are
 * computed this way).  Each part checks its operands as the builtin it
 * stands for, with that builtin's name and operand numbers. */
static int
bi_concat_slice(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *name = ctx->name;
	struct axv *const *sl = args + 1; /* array.slice's operands */
	int64_t start, stop, len, i;
	size_t seplen, total = 0;
	char *p;

	ctx->name = "array.slice";
	if (!axp_bi_want(ctx, sl, 1, AXV_ARRAY) ||
	    axp_bia_int(ctx, sl, 2, &start) < 0 ||
	    axp_bia_int(ctx, sl, 3, &stop) < 0)
		return AXP_BI_ERROR;
	ctx->name = "concat";
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	ctx->name = name;
	len = (int64_t)axv_array_len(sl[0]);
	if (start < 0)
		start = 0;
	if (stop > len)
		stop = len;
	seplen = axv_strlen(args[0]);
	for (i = start; i < stop; i++) {
		struct axv *e = axv_array_get(sl[0], (size_t)i);
		if (axv_kind(e) != AXV_STRING) {
			ctx->name = "concat";
			return axp_bi_type_error(ctx, 2, "array of strings",
			    sl[0]);
		}
		total += axv_strlen(e) + (i > start ? seplen : 0);
	}
	*out = axv_string_new(total, &p);
	for (i = start; i < stop; i++) {
		struct axv *e = axv_array_get(sl[0], (size_t)i);
		if (i > start) {
			memcpy(p, axv_str(args[0]), seplen);
			p += seplen;
		}
		memcpy(p, axv_str(e), axv_strlen(e));
		p += axv_strlen(e);
	}
	return AXP_BI_OK;
}

/* ---- helpers ---- */

static int
ret_string(struct axg_buf *b, struct axv **out)
{
	size_t n;
	char *s = axg_buf_steal(b, &n);

	if (s == NULL) {
		*out = axv_string("", 0);
		return AXP_BI_OK;
	}
	*out = axv_string_own(s, n);
	return AXP_BI_OK;
}

static bool
want_strings(struct axp_bctx *ctx, struct axv *const *args, int n)
{
	int i;

	for (i = 1; i <= n; i++)
		if (!axp_bi_want(ctx, args, i, AXV_STRING))
			return false;
	return true;
}

/* Byte position of needle in hay[from..), or -1. */
static ptrdiff_t
find(const char *hay, size_t hn, const char *needle, size_t nn, size_t from)
{
	const char *p;

	if (from > hn)
		return -1;
	if (nn == 0)
		return (ptrdiff_t)from;
	p = memmem(hay + from, hn - from, needle, nn);
	return p ? p - hay : -1;
}

/* ---- predicates ---- */

static int
bi_contains(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	*out = axv_bool(find(axv_str(args[0]), axv_strlen(args[0]),
			    axv_str(args[1]), axv_strlen(args[1]), 0) >= 0);
	return AXP_BI_OK;
}

static bool
has_prefix(const struct axv *s, const struct axv *p)
{
	return axv_strlen(p) <= axv_strlen(s) &&
	    memcmp(axv_str(s), axv_str(p), axv_strlen(p)) == 0;
}

static bool
has_suffix(const struct axv *s, const struct axv *p)
{
	return axv_strlen(p) <= axv_strlen(s) &&
	    memcmp(axv_str(s) + axv_strlen(s) - axv_strlen(p), axv_str(p),
		axv_strlen(p)) == 0;
}

static int
bi_startswith(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	*out = axv_bool(has_prefix(args[0], args[1]));
	return AXP_BI_OK;
}

static int
bi_endswith(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	*out = axv_bool(has_suffix(args[0], args[1]));
	return AXP_BI_OK;
}

/* strings.any_prefix_match / any_suffix_match: each operand is a string or
 * an array or set of strings. */
static bool
want_str_or_strings(struct axp_bctx *ctx, struct axv *const *args, int pos)
{
	enum axv_kind k = axv_kind(args[pos - 1]);

	if (k == AXV_STRING)
		return true;
	if (k != AXV_ARRAY && k != AXV_SET) {
		axp_bi_type_error(ctx, pos, "one of {string, set, array}",
		    args[pos - 1]);
		return false;
	}
	return axp_bia_want_strings(ctx, args, pos);
}

static size_t
sos_len(const struct axv *v)
{
	return axv_kind(v) == AXV_STRING ? 1 : axv_coll_len(v);
}

static const struct axv *
sos_at(const struct axv *v, size_t i)
{
	return axv_kind(v) == AXV_STRING ? v : axv_coll_at(v, i);
}

static int
any_match(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    bool suffix)
{
	size_t i, j;

	if (!want_str_or_strings(ctx, args, 1) ||
	    !want_str_or_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	for (i = 0; i < sos_len(args[0]); i++)
		for (j = 0; j < sos_len(args[1]); j++)
			if (suffix ? has_suffix(sos_at(args[0], i),
					 sos_at(args[1], j))
				   : has_prefix(sos_at(args[0], i),
					 sos_at(args[1], j))) {
				*out = axv_bool(true);
				return AXP_BI_OK;
			}
	*out = axv_bool(false);
	return AXP_BI_OK;
}

static int
bi_any_prefix_match(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	return any_match(ctx, args, out, false);
}

static int
bi_any_suffix_match(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	return any_match(ctx, args, out, true);
}

/* ---- positions (in code points) ---- */

static int
bi_indexof(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	ptrdiff_t at;

	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	at = find(axv_str(args[0]), axv_strlen(args[0]), axv_str(args[1]),
	    axv_strlen(args[1]), 0);
	*out = axv_int(at < 0
		? -1
		: (int64_t)axv_utf8_count(axv_str(args[0]), (size_t)at));
	return AXP_BI_OK;
}

static int
bi_indexof_n(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *s;
	size_t n, i = 0, cp = 0;
	struct axv *r;
	uint32_t c;

	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	if (axv_strlen(args[1]) == 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "empty search character");
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	r = axv_array_new(0);
	/* Overlapping matches, at each code point. */
	while (i < n) {
		if (n - i >= axv_strlen(args[1]) &&
		    memcmp(s + i, axv_str(args[1]), axv_strlen(args[1])) == 0)
			axv_array_push(r, axv_int((int64_t)cp));
		i += axv_utf8_next(s + i, n - i, &c);
		cp++;
	}
	*out = r;
	return AXP_BI_OK;
}

static int
bi_substring(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t start, len;
	const char *s;
	size_t n, a, b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    axp_bia_int(ctx, args, 2, &start) < 0 ||
	    axp_bia_int(ctx, args, 3, &len) < 0)
		return AXP_BI_ERROR;
	if (start < 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "negative offset");
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	a = axv_utf8_offset(s, n, (size_t)start);
	b = len < 0 ? n : a + axv_utf8_offset(s + a, n - a, (size_t)len);
	*out = axv_string(s + a, b - a);
	return AXP_BI_OK;
}

/* ---- building new strings ---- */

static int
bi_lower_upper(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    bool upper)
{
	const char *s;
	size_t i = 0, n;
	struct axg_buf b;
	char enc[4];
	uint32_t c;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	axg_buf_init(&b, 0);
	while (i < n) {
		i += axv_utf8_next(s + i, n - i, &c);
		c = upper ? axv_ucs_upper(c) : axv_ucs_lower(c);
		axg_buf_append(&b, enc, axv_utf8_put(c, enc));
	}
	return ret_string(&b, out);
}

static int
bi_lower(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return bi_lower_upper(ctx, args, out, false);
}

static int
bi_upper(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return bi_lower_upper(ctx, args, out, true);
}

static int
bi_strings_reverse(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const char *s;
	size_t i, n, len;
	char *r;
	uint32_t c;

	/* OPA names the builtin "reverse" in this message. */
	ctx->name = "reverse";
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	r = axg_malloc(n + 1);
	for (i = 0; i < n; i += len) {
		len = axv_utf8_next(s + i, n - i, &c);
		memcpy(r + n - i - len, s + i, len);
	}
	r[n] = '\0';
	*out = axv_string_own(r, n);
	return AXP_BI_OK;
}

/* Go's strings.Replace with n < 0; an empty old inserts new before every
 * code point and at the end. */
static int
replace_all(struct axg_buf *b, const char *s, size_t n, const char *old,
    size_t on, const char *nw, size_t nn)
{
	size_t i = 0;
	uint32_t c;
	ptrdiff_t at;
	int rc = 0;

	if (on == 0) {
		while (i < n) {
			size_t l = axv_utf8_next(s + i, n - i, &c);
			rc |= axg_buf_append(b, nw, nn);
			rc |= axg_buf_append(b, s + i, l);
			i += l;
		}
		return rc | axg_buf_append(b, nw, nn);
	}
	while ((at = find(s, n, old, on, i)) >= 0) {
		rc |= axg_buf_append(b, s + i, (size_t)at - i);
		rc |= axg_buf_append(b, nw, nn);
		i = (size_t)at + on;
	}
	return rc | axg_buf_append(b, s + i, n - i);
}

static int
bi_replace(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axg_buf b;

	if (!want_strings(ctx, args, 3))
		return AXP_BI_ERROR;
	axg_buf_init(&b, AXP_BIA_STR_MAX);
	if (replace_all(&b, axv_str(args[0]), axv_strlen(args[0]),
		axv_str(args[1]), axv_strlen(args[1]), axv_str(args[2]),
		axv_strlen(args[2])) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "result over %d bytes", AXP_BIA_STR_MAX);
	}
	return ret_string(&b, out);
}

/* strings.replace_n(patterns, s): Go's strings.NewReplacer with the pairs in
 * key order: at each position the first key that matches wins. */
static int
bi_replace_n(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axv *pat = args[0];
	const char *s;
	size_t i, j, n, np;
	struct axg_buf b;
	uint32_t c;
	int rc = 0;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	np = axv_object_len(pat);
	for (j = 0; j < np; j++) {
		if (axv_kind(axv_object_key(pat, j)) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 1 non-string key found in pattern object");
		if (axv_kind(axv_object_val(pat, j)) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 1 non-string value found in pattern "
			    "object");
	}
	if (!axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[1]);
	n = axv_strlen(args[1]);
	axg_buf_init(&b, AXP_BIA_STR_MAX);
	for (i = 0; i <= n;) {
		bool hit = false;
		for (j = 0; j < np && !hit; j++) {
			const struct axv *k = axv_object_key(pat, j);
			const struct axv *v = axv_object_val(pat, j);
			size_t kl = axv_strlen(k);
			if (kl > n - i || memcmp(s + i, axv_str(k), kl) != 0)
				continue;
			hit = true;
			rc |= axg_buf_append(&b, axv_str(v), axv_strlen(v));
			if (kl > 0) {
				i += kl;
			} else if (i < n) {
				size_t l = axv_utf8_next(s + i, n - i, &c);
				rc |= axg_buf_append(&b, s + i, l);
				i += l;
			} else {
				i++;
			}
		}
		if (!hit) {
			if (i < n)
				rc |= axg_buf_putc(&b, s[i]);
			i++;
		}
	}
	if (rc < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "result over %d bytes", AXP_BIA_STR_MAX);
	}
	return ret_string(&b, out);
}

/* ---- split ---- */

/* All the pieces of s split at sep (Go's strings.Split). */
static struct axv *
split_all(const char *s, size_t n, const char *sep, size_t sn)
{
	struct axv *r = axv_array_new(4);
	size_t i = 0;
	ptrdiff_t at;
	uint32_t c;

	if (sn == 0) {
		while (i < n) {
			size_t l = axv_utf8_next(s + i, n - i, &c);
			axv_array_push(r, axv_string(s + i, l));
			i += l;
		}
		return r;
	}
	while ((at = find(s, n, sep, sn, i)) >= 0) {
		axv_array_push(r, axv_string(s + i, (size_t)at - i));
		i = (size_t)at + sn;
	}
	axv_array_push(r, axv_string(s + i, n - i));
	return r;
}

static int
bi_split(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	*out = split_all(axv_str(args[0]), axv_strlen(args[0]),
	    axv_str(args[1]), axv_strlen(args[1]));
	return AXP_BI_OK;
}

/*
 * split(s, sep) read only by count() and by concat(sep, array.slice(...))
 * with the same sep: the compiler (fuse_calls, compile.c) then keeps s
 * itself instead of the pieces, and these three stand for the calls,
 * walking the separators of s instead of building the pieces.  Each takes
 * the array of pieces instead when it gets one (the evaluator makes the
 * real calls where a with-modifier could replace a builtin).
 */

/* The position of the next separator of s at or after from, or n. */
static size_t
next_sep(const char *s, size_t n, const char *sep, size_t sn, size_t from)
{
	const char *p;

	if (from >= n)
		return n;
	p = memmem(s + from, n - from, sep, sn);
	return p ? (size_t)(p - s) : n;
}

/* The separator at s[at] ends piece *k: note where piece last ends and
 * piece first starts. */
static inline void
piece_end(size_t at, size_t sn, int64_t *k, int64_t first, int64_t last,
    size_t *from, size_t *to)
{
	if (*k == last)
		*to = at;
	if (++*k == first)
		*from = at + sn;
}

/* walk_pieces() for a one-byte separator c: a host name is short, and a
 * loop over its bytes (eight at a time) beats calls of memchr. */
static size_t
walk_pieces_byte(const char *s, size_t n, char c, int64_t first, int64_t last,
    size_t *from, size_t *to)
{
	size_t at = 0;
	int64_t k = 0;

	if (first == 0)
		*from = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{
		/* z: the high bit of each byte of w that is zero, exactly
		 * (no carry crosses a byte) */
		const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full,
			       cc = 0x0101010101010101ull * (unsigned char)c;
		for (; at + 8 <= n; at += 8) {
			uint64_t w, z;
			memcpy(&w, s + at, 8);
			w ^= cc;
			z = ~(((w & lo7) + lo7) | w | lo7);
			for (; z != 0; z &= z - 1)
				piece_end(at +
					(size_t)(__builtin_ctzll(z) >> 3),
				    1, &k, first, last, from, to);
		}
	}
#endif
	for (; at < n; at++)
		if (s[at] == c)
			piece_end(at, 1, &k, first, last, from, to);
	if (k == last)
		*to = n;
	return (size_t)k + 1;
}

/* Walk the pieces of split(s, sep): their number, and where piece first
 * starts (*from) and piece last ends (*to; n if there is no piece last).
 * With sep "", the pieces are the code points. */
static size_t
walk_pieces(const char *s, size_t n, const char *sep, size_t sn, int64_t first,
    int64_t last, size_t *from, size_t *to)
{
	size_t i = 0, at;
	int64_t k = 0;
	uint32_t cp;

	*from = *to = n;
	if (sn == 1)
		return walk_pieces_byte(s, n, sep[0], first, last, from, to);
	if (sn == 0) {
		for (; i < n; k++) {
			if (k == first)
				*from = i;
			i += axv_utf8_next(s + i, n - i, &cp);
			if (k == last)
				*to = i;
		}
		return (size_t)k;
	}
	for (;; k++) {
		at = next_sep(s, n, sep, sn, i);
		if (k == first)
			*from = i;
		if (k == last)
			*to = at;
		if (at >= n)
			return (size_t)k + 1;
		i = at + sn;
	}
}

/* internal.split_check(s, sep): s, if split(s, sep) would succeed. */
static int
bi_split_check(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *name = ctx->name;

	ctx->name = "split";
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	ctx->name = name;
	*out = axv_ref(args[0]);
	return AXP_BI_OK;
}

/* internal.split_count(s, sep): count(split(s, sep)). */
static int
bi_split_count(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	size_t from, to;

	if (axv_kind(args[0]) != AXV_STRING) {
		ctx->name = "count";
		if (axv_count(args[0]) < 0)
			return axp_bi_type_error(ctx, 1,
			    "one of {array, object, set, string}", args[0]);
		*out = axv_int(axv_count(args[0]));
		return AXP_BI_OK;
	}
	*out =
	    axv_int((int64_t)walk_pieces(axv_str(args[0]), axv_strlen(args[0]),
		axv_str(args[1]), axv_strlen(args[1]), -1, -1, &from, &to));
	return AXP_BI_OK;
}

/* internal.split_join(sep, s, start, stop): concat(sep,
 * array.slice(split(s, sep), start, stop)), which is the part of s from
 * piece start to piece stop - 1. */
static int
bi_split_join(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *name = ctx->name, *s, *sep;
	int64_t start, stop, len;
	size_t n, sn, from, to;

	if (axv_kind(args[1]) != AXV_STRING)
		return bi_concat_slice(ctx, args, out);
	ctx->name = "array.slice";
	if (axp_bia_int(ctx, args + 1, 2, &start) < 0 ||
	    axp_bia_int(ctx, args + 1, 3, &stop) < 0)
		return AXP_BI_ERROR;
	ctx->name = "concat";
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	ctx->name = name;
	s = axv_str(args[1]);
	n = axv_strlen(args[1]);
	sep = axv_str(args[0]);
	sn = axv_strlen(args[0]);
	if (start < 0)
		start = 0;
	len = (int64_t)walk_pieces(s, n, sep, sn, start,
	    stop > 0 ? stop - 1 : -1, &from, &to);
	if (stop > len)
		stop = len; /* then to is n, where the last piece ends */
	if (start >= stop) {
		*out = axv_string("", 0);
		return AXP_BI_OK;
	}
	*out = axv_string(s + from, to - from);
	return AXP_BI_OK;
}

/* strings.split_n(s, sep, n): the first n pieces (n > 0), the last -n
 * (n < 0), none for 0. */
static int
bi_split_n(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *all, *r;
	int64_t k;
	size_t len, from, to, i;

	if (!want_strings(ctx, args, 2) || axp_bia_int(ctx, args, 3, &k) < 0)
		return AXP_BI_ERROR;
	all = split_all(axv_str(args[0]), axv_strlen(args[0]), axv_str(args[1]),
	    axv_strlen(args[1]));
	len = axv_array_len(all);
	if (k >= 0) {
		from = 0;
		to = (uint64_t)k < len ? (size_t)k : len;
	} else {
		to = len;
		from = k == INT64_MIN || (uint64_t)-k >= len ? 0
							     : len - (size_t)-k;
	}
	r = axv_array_new(to - from);
	for (i = from; i < to; i++)
		axv_array_push(r, axv_ref(axv_array_get(all, i)));
	axv_unref(all);
	*out = r;
	return AXP_BI_OK;
}

/* ---- trim ---- */

static bool
in_cutset(uint32_t c, const struct axv *cut)
{
	const char *s = axv_str(cut);
	size_t i = 0, n = axv_strlen(cut);
	uint32_t d;

	while (i < n) {
		i += axv_utf8_next(s + i, n - i, &d);
		if (c == d)
			return true;
	}
	return false;
}

/* Go's unicode.IsSpace. */
static bool
is_space(uint32_t c)
{
	switch (c) {
	case '\t':
	case '\n':
	case '\v':
	case '\f':
	case '\r':
	case ' ':
	case 0x85:
	case 0xa0:
	case 0x1680:
	case 0x2028:
	case 0x2029:
	case 0x202f:
	case 0x205f:
	case 0x3000:
		return true;
	default:
		return c >= 0x2000 && c <= 0x200a;
	}
}

/* Trim code points at the left and/or right: those in cut, or white space
 * when cut is NULL. */
static struct axv *
trim_cps(const struct axv *str, const struct axv *cut, bool left, bool right)
{
	const char *s = axv_str(str);
	size_t a = 0, b = axv_strlen(str), l;
	uint32_t c;

	while (left && a < b) {
		l = axv_utf8_next(s + a, b - a, &c);
		if (cut ? !in_cutset(c, cut) : !is_space(c))
			break;
		a += l;
	}
	while (right && b > a) {
		/* Step back to the start of the last code point. */
		size_t p = b - 1;
		while (
		    p > a && ((unsigned char)s[p] & 0xc0) == 0x80 && b - p < 4)
			p--;
		l = axv_utf8_next(s + p, b - p, &c);
		if (p + l != b) { /* not one sequence: the last byte alone */
			p = b - 1;
			c = 0xfffd;
		}
		if (cut ? !in_cutset(c, cut) : !is_space(c))
			break;
		b = p;
	}
	return axv_string(s + a, b - a);
}

static int
trim_common(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    bool left, bool right)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	*out = trim_cps(args[0], args[1], left, right);
	return AXP_BI_OK;
}

static int
bi_trim(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return trim_common(ctx, args, out, true, true);
}

static int
bi_trim_left(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return trim_common(ctx, args, out, true, false);
}

static int
bi_trim_right(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return trim_common(ctx, args, out, false, true);
}

static int
bi_trim_space(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	*out = trim_cps(args[0], NULL, true, true);
	return AXP_BI_OK;
}

static int
bi_trim_prefix(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	if (has_prefix(args[0], args[1]))
		*out = axv_string(axv_str(args[0]) + axv_strlen(args[1]),
		    axv_strlen(args[0]) - axv_strlen(args[1]));
	else
		*out = axv_ref(args[0]);
	return AXP_BI_OK;
}

static int
bi_trim_suffix(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	if (has_suffix(args[0], args[1]))
		*out = axv_string(axv_str(args[0]),
		    axv_strlen(args[0]) - axv_strlen(args[1]));
	else
		*out = axv_ref(args[0]);
	return AXP_BI_OK;
}

/* ---- counting ---- */

static int
bi_strings_count(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const char *s = NULL, *sub;
	size_t n, sn, i = 0;
	int64_t count = 0;
	ptrdiff_t at;

	if (!want_strings(ctx, args, 2))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	sub = axv_str(args[1]);
	sn = axv_strlen(args[1]);
	if (sn == 0) { /* Go: code points + 1 */
		*out = axv_int((int64_t)axv_utf8_count(s, n) + 1);
		return AXP_BI_OK;
	}
	while ((at = find(s, n, sub, sn, i)) >= 0) {
		count++;
		i = (size_t)at + sn;
	}
	*out = axv_int(count);
	return AXP_BI_OK;
}

/* ---- format_int ---- */

static int
bi_format_int(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t base;
	bool neg;
	char *digits, *res;

	if (!axp_bi_want(ctx, args, 1, AXV_NUMBER) ||
	    !axp_bi_want(ctx, args, 2, AXV_NUMBER))
		return AXP_BI_ERROR;
	if (!axv_num_get_i64(args[1], &base) ||
	    (base != 2 && base != 8 && base != 10 && base != 16))
		return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand 2 must be one of {2, 8, 10, 16}");
	digits = axv_num_int_digits(args[0], (int)base, &neg);
	res = axg_asprintf("%s%s", neg ? "-" : "", digits);
	free(digits);
	*out = axv_string_own(res, strlen(res));
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_strings[] = {
	{ "concat", 2, bi_concat,
	    "(string, any<array[string], set[string]>) "
	    "=> string",
	    0 },
	{ "internal.concat_slice", 4, bi_concat_slice,
	    "(string, array[string], number, number) => string", 0 },
	{ "contains", 2, bi_contains, "(string, string) => boolean", 0 },
	{ "startswith", 2, bi_startswith, "(string, string) => boolean", 0 },
	{ "endswith", 2, bi_endswith, "(string, string) => boolean", 0 },
	{ "strings.any_prefix_match", 2, bi_any_prefix_match,
	    "(any<string, array[string], set[string]>, any<string, "
	    "array[string], set[string]>) => boolean",
	    0 },
	{ "strings.any_suffix_match", 2, bi_any_suffix_match,
	    "(any<string, array[string], set[string]>, any<string, "
	    "array[string], set[string]>) => boolean",
	    0 },
	{ "indexof", 2, bi_indexof, "(string, string) => number", 0 },
	{ "indexof_n", 2, bi_indexof_n, "(string, string) => array[number]",
	    0 },
	{ "substring", 3, bi_substring, "(string, number, number) => string",
	    0 },
	{ "lower", 1, bi_lower, "(string) => string", 0 },
	{ "upper", 1, bi_upper, "(string) => string", 0 },
	{ "strings.reverse", 1, bi_strings_reverse, "(string) => string", 0 },
	{ "replace", 3, bi_replace, "(string, string, string) => string", 0 },
	{ "strings.replace_n", 2, bi_replace_n,
	    "(object[string: string], string) => string", 0 },
	{ "split", 2, bi_split, "(string, string) => array[string]", 0 },
	{ "internal.split_check", 2, bi_split_check,
	    "(string, string) => string", 0 },
	{ "internal.split_count", 2, bi_split_count, "(any, string) => number",
	    0 },
	{ "internal.split_join", 4, bi_split_join,
	    "(string, any, number, number) => string", 0 },
	{ "strings.split_n", 3, bi_split_n,
	    "(string, string, number) => array[string]", 0 },
	{ "trim", 2, bi_trim, "(string, string) => string", 0 },
	{ "trim_left", 2, bi_trim_left, "(string, string) => string", 0 },
	{ "trim_right", 2, bi_trim_right, "(string, string) => string", 0 },
	{ "trim_prefix", 2, bi_trim_prefix, "(string, string) => string", 0 },
	{ "trim_suffix", 2, bi_trim_suffix, "(string, string) => string", 0 },
	{ "trim_space", 1, bi_trim_space, "(string) => string", 0 },
	{ "strings.count", 2, bi_strings_count, "(string, string) => number",
	    0 },
	{ "format_int", 2, bi_format_int, "(number, number) => string", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
