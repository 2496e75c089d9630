/*
 * builtins-regex.c: regex.* builtins on PCRE2 with RE2's rules (Go's
 * regexp, which OPA uses): no backreferences, lookaround, atomic groups,
 * possessive quantifiers, recursion or conditionals (rejected as syntax
 * errors); "$" matches only at the end; \d \w \s \b are ASCII.  Matching
 * is bounded by PCRE2's match and depth limits, and patterns by length.
 * Compiled patterns are kept in a small shared cache.
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

/* PCRE2's JIT code confuses valgrind (false "uninitialised value"
 * reports): under valgrind, patterns are interpreted instead. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#define RX_PATTERN_MAX 16384
#define RX_MATCH_LIMIT 1000000
#define RX_DEPTH_LIMIT 10000
#define RX_CACHE_SLOTS 64

struct rx {
	char *pat;
	size_t len;
	pcre2_code *code;
	unsigned refs; /* under rx_lock */
	bool cached;   /* under rx_lock */
};

static struct rx *rx_cache[RX_CACHE_SLOTS];
static pthread_mutex_t rx_lock = PTHREAD_MUTEX_INITIALIZER;

/* RE2 rejects what PCRE2 would accept: find it.  NULL if the pattern is
 * RE2-compatible as far as these constructs go. */
static const char *
re2_unsupported(const char *p, size_t n)
{
	size_t i;
	bool in_class = false;

	for (i = 0; i < n; i++) {
		char c = p[i];
		if (c == '\\') {
			char e;
			if (i + 1 >= n)
				return NULL; /* PCRE2 reports it */
			e = p[++i];
			if (in_class)
				continue;
			if ((e >= '1' && e <= '9') || e == 'g' || e == 'k')
				return "invalid escape sequence "
				       "(backreference)";
			if (e == 'K' || e == 'G' || e == 'R' || e == 'X' ||
			    e == 'C' || e == 'N' || e == 'Z')
				return "invalid escape sequence";
			if (e == 'Q') { /* literal text up to \E */
				const char *q = NULL;
				size_t j;
				for (j = i + 1; j + 1 < n; j++)
					if (p[j] == '\\' && p[j + 1] == 'E') {
						q = p + j;
						break;
					}
				i = q ? (size_t)(q - p) + 1 : n;
			}
			continue;
		}
		if (in_class) {
			if (c == '[' && i + 1 < n && p[i + 1] == ':') {
				const char *q =
				    memchr(p + i + 2, ']', n - i - 2);
				if (q != NULL && q[-1] == ':')
					i = (size_t)(q - p);
			} else if (c == ']') {
				in_class = false;
			}
			continue;
		}
		if (c == '[') {
			in_class = true;
			if (i + 1 < n && p[i + 1] == '^')
				i++;
			if (i + 1 < n && p[i + 1] == ']')
				i++;
			continue;
		}
		if ((c == '*' || c == '+' || c == '?' || c == '}') &&
		    i + 1 < n && p[i + 1] == '+')
			return "invalid nested repetition operator";
		if (c == '(' && i + 1 < n && p[i + 1] == '*')
			return "missing argument to repetition operator";
		if (c == '(' && i + 2 < n && p[i + 1] == '?') {
			char d = p[i + 2];
			size_t j;
			if (d == ':' || d == 'P')
				continue;
			if (d == '<' && i + 3 < n && p[i + 3] != '=' &&
			    p[i + 3] != '!')
				continue;
			/* flags: (?imsU-imsU) or (?flags:...) */
			for (j = i + 2; j < n && strchr("imsU-", p[j]) != NULL;
			     j++)
				;
			if (j > i + 2 && j < n && (p[j] == ')' || p[j] == ':'))
				continue;
			return "invalid or unsupported Perl syntax";
		}
	}
	return NULL;
}

static void
rx_release(struct rx *r)
{
	bool last;

	if (r == NULL)
		return;
	pthread_mutex_lock(&rx_lock);
	last = --r->refs == 0 && !r->cached;
	pthread_mutex_unlock(&rx_lock);
	if (last) {
		pcre2_code_free(r->code);
		free(r->pat);
		free(r);
	}
}

static size_t
rx_slot(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return (size_t)(h % RX_CACHE_SLOTS);
}

/* Compile (or find) a pattern; NULL with the reason in err. */
static struct rx *
rx_get(const char *p, size_t n, char *err, size_t errlen)
{
	size_t slot = rx_slot(p, n);
	struct rx *r, *old = NULL;
	const char *why;
	int ec;
	PCRE2_SIZE eo;
	PCRE2_UCHAR msg[256];

	pthread_mutex_lock(&rx_lock);
	r = rx_cache[slot];
	if (r != NULL && r->len == n && memcmp(r->pat, p, n) == 0) {
		r->refs++;
		pthread_mutex_unlock(&rx_lock);
		return r;
	}
	pthread_mutex_unlock(&rx_lock);

	if (n > RX_PATTERN_MAX) {
		axg_seterr(err, errlen, "pattern longer than %d bytes",
		    RX_PATTERN_MAX);
		return NULL;
	}
	why = re2_unsupported(p, n);
	if (why != NULL) {
		axg_seterr(err, errlen, "%s: `%.*s`", why,
		    (int)(n > 200 ? 200 : n), p);
		return NULL;
	}
	r = axg_calloc(1, sizeof(*r));
	r->code = pcre2_compile((PCRE2_SPTR)p, n,
	    PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C, &ec,
	    &eo, NULL);
	if (r->code == NULL) {
		pcre2_get_error_message(ec, msg, sizeof(msg));
		axg_seterr(err, errlen, "%s at offset %zu: `%.*s`", (char *)msg,
		    (size_t)eo, (int)(n > 200 ? 200 : n), p);
		free(r);
		return NULL;
	}
	if (!RUNNING_ON_VALGRIND)
		(void)pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE);
	r->pat = axg_malloc(n + 1);
	memcpy(r->pat, p, n);
	r->pat[n] = '\0';
	r->len = n;
	r->refs = 2; /* the caller and the cache */
	r->cached = true;
	pthread_mutex_lock(&rx_lock);
	old = rx_cache[slot];
	rx_cache[slot] = r;
	if (old != NULL) {
		/* The cache drops its reference; users may still hold one. */
		old->cached = false;
		if (--old->refs != 0)
			old = NULL;
	}
	pthread_mutex_unlock(&rx_lock);
	if (old != NULL) {
		pcre2_code_free(old->code);
		free(old->pat);
		free(old);
	}
	return r;
}

/* One search from offset; 1 with ov set, 0 for no match, -1 on a limit or
 * other matching error. */
static int
rx_exec(const struct rx *r, const char *s, size_t n, size_t from,
    pcre2_match_data *md, pcre2_match_context *mc)
{
	int rc = pcre2_match(r->code, (PCRE2_SPTR)s, n, from, 0, md, mc);

	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return -1;
}

struct rx_run {
	struct rx *r;
	pcre2_match_data *md;
	pcre2_match_context *mc;
};

static int
run_open(struct axp_bctx *ctx, struct rx_run *run, const struct axv *pat)
{
	char err[400];

	run->r = rx_get(axv_str(pat), axv_strlen(pat), err, sizeof(err));
	if (run->r == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "error parsing regexp: %s", err);
	run->md = pcre2_match_data_create_from_pattern(run->r->code, NULL);
	run->mc = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(run->mc, RX_MATCH_LIMIT);
	pcre2_set_depth_limit(run->mc, RX_DEPTH_LIMIT);
	return AXP_BI_OK;
}

static void
run_close(struct rx_run *run)
{
	pcre2_match_data_free(run->md);
	pcre2_match_context_free(run->mc);
	rx_release(run->r);
}

static int
limit_error(struct axp_bctx *ctx)
{
	return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
	    "regular expression match exceeded its limits");
}

/* Width of the code point at s[i] (1 past the end). */
static size_t
cp_width(const char *s, size_t n, size_t i)
{
	uint32_t c;

	return i < n ? axv_utf8_next(s + i, n - i, &c) : 1;
}

/* Go's allMatches: call fn for each match (at most max, all if < 0);
 * returns 0, or -1 on a matching error. */
typedef void (*match_fn)(void *arg, const char *s, PCRE2_SIZE *ov, int ng);

static int
all_matches(struct rx_run *run, const char *s, size_t n, int64_t max,
    match_fn fn, void *arg)
{
	size_t pos = 0;
	ptrdiff_t prev_end = -1;
	int64_t count = 0;
	int ng = (int)pcre2_get_ovector_count(run->md);

	while ((max < 0 || count < max) && pos <= n) {
		PCRE2_SIZE *ov;
		bool accept = true;
		int rc = rx_exec(run->r, s, n, pos, run->md, run->mc);
		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
		ov = pcre2_get_ovector_pointer(run->md);
		if (ov[1] == pos) {
			if ((ptrdiff_t)ov[0] == prev_end)
				accept = false;
			pos += cp_width(s, n, pos);
		} else {
			pos = ov[1];
		}
		prev_end = (ptrdiff_t)ov[1];
		if (accept) {
			fn(arg, s, ov, ng);
			count++;
		}
	}
	return 0;
}

static int
bi_regex_match(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct rx_run run;
	int rc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	if (run_open(ctx, &run, args[0]) != AXP_BI_OK)
		return AXP_BI_ERROR;
	rc = rx_exec(run.r, axv_str(args[1]), axv_strlen(args[1]), 0, run.md,
	    run.mc);
	run_close(&run);
	if (rc < 0)
		return limit_error(ctx);
	*out = axv_bool(rc == 1);
	return AXP_BI_OK;
}

static int
bi_regex_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct rx *r;
	char err[400];

	(void)ctx;
	if (axv_kind(args[0]) != AXV_STRING) {
		*out = axv_bool(false);
		return AXP_BI_OK;
	}
	r = rx_get(axv_str(args[0]), axv_strlen(args[0]), err, sizeof(err));
	*out = axv_bool(r != NULL);
	rx_release(r);
	return AXP_BI_OK;
}

static void
push_match(void *arg, const char *s, PCRE2_SIZE *ov, int ng)
{
	(void)ng;
	axv_array_push(arg, axv_string(s + ov[0], ov[1] - ov[0]));
}

static void
push_submatches(void *arg, const char *s, PCRE2_SIZE *ov, int ng)
{
	struct axv *m = axv_array_new((size_t)ng);
	int g;

	for (g = 0; g < ng; g++) {
		if (ov[2 * g] == PCRE2_UNSET)
			axv_array_push(m, axv_string("", 0));
		else
			axv_array_push(m,
			    axv_string(s + ov[2 * g],
				ov[2 * g + 1] - ov[2 * g]));
	}
	axv_array_push(arg, m);
}

static int
find_common(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    match_fn fn)
{
	struct rx_run run;
	struct axv *r;
	int64_t max;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING) ||
	    axp_bia_int(ctx, args, 3, &max) < 0)
		return AXP_BI_ERROR;
	if (run_open(ctx, &run, args[0]) != AXP_BI_OK)
		return AXP_BI_ERROR;
	r = axv_array_new(0);
	if (all_matches(&run, axv_str(args[1]), axv_strlen(args[1]), max, fn,
		r) < 0) {
		run_close(&run);
		axv_unref(r);
		return limit_error(ctx);
	}
	run_close(&run);
	*out = r;
	return AXP_BI_OK;
}

static int
bi_regex_find_n(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return find_common(ctx, args, out, push_match);
}

static int
bi_regex_find_all_submatch(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	return find_common(ctx, args, out, push_submatches);
}

struct spans {
	size_t n, cap;
	size_t *v; /* start, end pairs */
};

static void
push_span(void *arg, const char *s, PCRE2_SIZE *ov, int ng)
{
	struct spans *sp = arg;

	(void)s;
	(void)ng;
	if (sp->n + 2 > sp->cap) {
		sp->cap = sp->cap ? sp->cap * 2 : 16;
		sp->v = axg_reallocarray(sp->v, sp->cap, sizeof(*sp->v));
	}
	sp->v[sp->n++] = ov[0];
	sp->v[sp->n++] = ov[1];
}

/* regex.split(pattern, s): Go's Regexp.Split(s, -1). */
static int
bi_regex_split(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct rx_run run;
	struct spans sp = { 0, 0, NULL };
	const char *s;
	size_t n, i, beg = 0, end = 0;
	struct axv *r;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[1]);
	n = axv_strlen(args[1]);
	if (run_open(ctx, &run, args[0]) != AXP_BI_OK)
		return AXP_BI_ERROR;
	if (axv_strlen(args[0]) > 0 && n == 0) {
		run_close(&run);
		r = axv_array_new(1);
		axv_array_push(r, axv_string("", 0));
		*out = r;
		return AXP_BI_OK;
	}
	if (all_matches(&run, s, n, -1, push_span, &sp) < 0) {
		run_close(&run);
		free(sp.v);
		return limit_error(ctx);
	}
	run_close(&run);
	r = axv_array_new(sp.n / 2 + 1);
	for (i = 0; i < sp.n; i += 2) {
		end = sp.v[i];
		if (sp.v[i + 1] != 0)
			axv_array_push(r, axv_string(s + beg, end - beg));
		beg = sp.v[i + 1];
	}
	if (end != n)
		axv_array_push(r, axv_string(s + beg, n - beg));
	free(sp.v);
	*out = r;
	return AXP_BI_OK;
}

/* Go's Regexp.Expand of template t for one match. */
static void
expand(struct axg_buf *b, const char *t, size_t tn, const struct rx *r,
    const char *s, PCRE2_SIZE *ov, int ng)
{
	size_t i = 0;

	while (i < tn) {
		const char *name;
		size_t nl, j;
		long g = -1;
		bool braced = false;

		if (t[i] != '$') {
			axg_buf_putc(b, t[i++]);
			continue;
		}
		i++;
		if (i < tn && t[i] == '$') {
			axg_buf_putc(b, '$');
			i++;
			continue;
		}
		if (i < tn && t[i] == '{') {
			braced = true;
			i++;
		}
		name = t + i;
		for (j = i; j < tn &&
		     (t[j] == '_' || (t[j] >= '0' && t[j] <= '9') ||
			 (t[j] >= 'a' && t[j] <= 'z') ||
			 (t[j] >= 'A' && t[j] <= 'Z'));
		     j++)
			;
		nl = j - i;
		if (nl == 0 || (braced && (j >= tn || t[j] != '}'))) {
			/* Not a reference: a literal "$" (and "{"). */
			axg_buf_putc(b, '$');
			if (braced)
				axg_buf_putc(b, '{');
			continue;
		}
		i = j + (braced ? 1 : 0);
		for (j = 0; j < nl && name[j] >= '0' && name[j] <= '9'; j++)
			;
		if (j == nl) {
			g = 0;
			for (j = 0; j < nl && g < 100000; j++)
				g = g * 10 + (name[j] - '0');
		} else {
			char buf[256];
			if (nl < sizeof(buf)) {
				memcpy(buf, name, nl);
				buf[nl] = '\0';
				g = pcre2_substring_number_from_name(r->code,
				    (PCRE2_SPTR)buf);
			}
		}
		if (g >= 0 && g < ng && ov[2 * g] != PCRE2_UNSET)
			axg_buf_append(b, s + ov[2 * g],
			    ov[2 * g + 1] - ov[2 * g]);
	}
}

/* regex.replace(s, pattern, value): Go's ReplaceAllString. */
static int
bi_regex_replace(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct rx_run run;
	struct axg_buf b;
	const char *s;
	size_t n, pos = 0, last = 0;
	int ng;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 3, AXV_STRING))
		return AXP_BI_ERROR;
	if (run_open(ctx, &run, args[1]) != AXP_BI_OK)
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	ng = (int)pcre2_get_ovector_count(run.md);
	axg_buf_init(&b, AXP_BIA_STR_MAX);
	while (pos <= n) {
		PCRE2_SIZE *ov;
		size_t w;
		int rc = rx_exec(run.r, s, n, pos, run.md, run.mc);
		if (rc < 0) {
			run_close(&run);
			axg_buf_free(&b);
			return limit_error(ctx);
		}
		if (rc == 0)
			break;
		ov = pcre2_get_ovector_pointer(run.md);
		axg_buf_append(&b, s + last, ov[0] - last);
		if (ov[1] > last || ov[0] == 0)
			expand(&b, axv_str(args[2]), axv_strlen(args[2]), run.r,
			    s, ov, ng);
		last = ov[1];
		w = cp_width(s, n, pos);
		if (pos + w > ov[1])
			pos += w;
		else if (pos + 1 > ov[1])
			pos++;
		else
			pos = ov[1];
	}
	axg_buf_append(&b, s + last, n - last);
	run_close(&run);
	if (b.len + 64 >= AXP_BIA_STR_MAX) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "result over %d bytes", AXP_BIA_STR_MAX);
	}
	{
		char *t = axg_buf_steal(&b, &n);
		*out = axv_string_own(t, n);
	}
	return AXP_BI_OK;
}

/* Go's regexp.QuoteMeta. */
static void
quote_meta(struct axg_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr("\\.+*?()|[]{}^$", s[i]) != NULL && s[i] != '\0')
			axg_buf_putc(b, '\\');
		axg_buf_putc(b, s[i]);
	}
}

/* regex.template_match(template, s, start, end): the parts between the
 * delimiters are regular expressions, the rest literal text. */
static int
bi_regex_template_match(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const char *t;
	size_t n, i, lit = 0, open_at = 0;
	char ds, de;
	int level = 0;
	struct axg_buf b;
	struct axv *pat;
	struct rx_run run;
	int rc;

	for (i = 1; i <= 4; i++)
		if (!axp_bi_want(ctx, args, (int)i, AXV_STRING))
			return AXP_BI_ERROR;
	if (axv_strlen(args[2]) != 1)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "start delimiter has to be exactly one character long but "
		    "is %zu long",
		    axv_strlen(args[2]));
	if (axv_strlen(args[3]) != 1)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "end delimiter has to be exactly one character long but is "
		    "%zu long",
		    axv_strlen(args[3]));
	ds = axv_str(args[2])[0];
	de = axv_str(args[3])[0];
	t = axv_str(args[0]);
	n = axv_strlen(args[0]);
	axg_buf_init(&b, 0);
	axg_buf_putc(&b, '^');
	for (i = 0; i < n; i++) {
		if (t[i] == ds) {
			if (level++ == 0) {
				quote_meta(&b, t + lit, i - lit);
				open_at = i + 1;
			}
		} else if (t[i] == de) {
			if (--level == 0) {
				axg_buf_putc(&b, '(');
				axg_buf_append(&b, t + open_at, i - open_at);
				axg_buf_putc(&b, ')');
				lit = i + 1;
			} else if (level < 0) {
				break;
			}
		}
	}
	if (level != 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "unbalanced braces in \"%.200s\"", t);
	}
	quote_meta(&b, t + lit, n - lit);
	axg_buf_putc(&b, '$');
	pat = axv_string(b.data, b.len);
	axg_buf_free(&b);
	rc = run_open(ctx, &run, pat);
	axv_unref(pat);
	if (rc != AXP_BI_OK)
		return AXP_BI_ERROR;
	rc = rx_exec(run.r, axv_str(args[1]), axv_strlen(args[1]), 0, run.md,
	    run.mc);
	run_close(&run);
	if (rc < 0)
		return limit_error(ctx);
	*out = axv_bool(rc == 1);
	return AXP_BI_OK;
}

/* ---- regex.globs_match ----
 * Do two "globs" (a regular-expression subset: literals, ".", [sets],
 * [^negated sets], \ escapes, each optionally followed by *, + or ?) match
 * a common string?  Each glob becomes a list of tokens; a breadth-first
 * search over pairs of token positions finds a common path. */

#define GM_TOKENS_MAX 1024
#define GM_CP_MAX     0x10ffffu

struct gm_tok {
	uint32_t *r; /* inclusive ranges, sorted and merged: lo, hi, ... */
	size_t nr;
	char q; /* 0, '*', '?' ('+' is expanded to x x*) */
};

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and merge the pairs in r (n values); complement if neg. */
static size_t
gm_normalize(uint32_t *r, size_t n, bool neg, uint32_t **out)
{
	uint32_t *m = axg_calloc(n + 2, sizeof(*m));
	size_t i, k = 0;
	uint32_t next = 0;

	qsort(r, n / 2, 2 * sizeof(*r), cmp_u32);
	for (i = 0; i < n; i += 2) {
		if (k > 0 && r[i] <= m[k - 1] + 1) {
			if (r[i + 1] > m[k - 1])
				m[k - 1] = r[i + 1];
		} else {
			m[k++] = r[i];
			m[k++] = r[i + 1];
		}
	}
	if (neg) {
		uint32_t *c = axg_calloc(k + 2, sizeof(*c));
		size_t j = 0;
		for (i = 0; i < k; i += 2) {
			if (m[i] > next) {
				c[j++] = next;
				c[j++] = m[i] - 1;
			}
			next = m[i + 1] + 1;
		}
		if (next <= GM_CP_MAX && (k == 0 || m[k - 1] < GM_CP_MAX)) {
			c[j++] = next;
			c[j++] = GM_CP_MAX;
		}
		free(m);
		*out = c;
		return j;
	}
	*out = m;
	return k;
}

static void
gm_free(struct gm_tok *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(t[i].r);
	free(t);
}

/* Parse a glob; NULL with *err (and *pos, 1-based) on a syntax error. */
static struct gm_tok *
gm_parse(const char *p, size_t n, size_t *ntok, const char **err, size_t *pos)
{
	struct gm_tok *t = axg_calloc(2 * n + 1, sizeof(*t));
	size_t i = 0, k = 0;
	uint32_t c;

	while (i < n) {
		uint32_t *r = axg_calloc(2 * (n + 1), sizeof(*r));
		size_t nr = 0;
		bool neg = false;
		char ch = p[i];

		if (k >= GM_TOKENS_MAX) {
			free(r);
			*err = "pattern too long";
			goto fail;
		}
		if (ch == '*' || ch == '+' || ch == '?') {
			free(r);
			*err = "quantifier without a preceding character";
			*pos = i + 1;
			goto fail;
		}
		if (ch == ']') {
			free(r);
			*err = "set-close ']' with no preceding '['";
			*pos = i + 1;
			goto fail;
		}
		if (ch == '.') {
			neg = true;
			i++;
		} else if (ch == '[') {
			i++;
			if (i < n && p[i] == '^') {
				neg = true;
				i++;
			}
			for (;;) {
				uint32_t lo, hi;
				if (i >= n) {
					free(r);
					*err =
					    "set-open '[' with no closing ']'";
					*pos = i;
					goto fail;
				}
				if (p[i] == ']')
					break;
				if (p[i] == '\\' && i + 1 < n)
					i++;
				i += axv_utf8_next(p + i, n - i, &lo);
				hi = lo;
				if (i + 1 < n && p[i] == '-' &&
				    p[i + 1] != ']') {
					i++;
					if (p[i] == '\\' && i + 1 < n)
						i++;
					i += axv_utf8_next(p + i, n - i, &hi);
					if (hi < lo) {
						free(r);
						*err = "invalid range";
						*pos = i;
						goto fail;
					}
				}
				r[nr++] = lo;
				r[nr++] = hi;
			}
			i++;
		} else {
			if (ch == '\\') {
				if (i + 1 >= n) {
					free(r);
					*err = "trailing escape";
					*pos = i + 1;
					goto fail;
				}
				i++;
			}
			i += axv_utf8_next(p + i, n - i, &c);
			r[nr++] = c;
			r[nr++] = c;
		}
		t[k].nr = gm_normalize(r, nr, neg, &t[k].r);
		free(r);
		if (i < n && (p[i] == '*' || p[i] == '?')) {
			t[k].q = p[i++];
		} else if (i < n && p[i] == '+') {
			i++;
			t[k + 1].r = axg_calloc(t[k].nr + 1, sizeof(uint32_t));
			memcpy(t[k + 1].r, t[k].r, t[k].nr * sizeof(uint32_t));
			t[k + 1].nr = t[k].nr;
			t[k + 1].q = '*';
			k++;
		}
		k++;
	}
	*ntok = k;
	return t;
fail:
	gm_free(t, k);
	return NULL;
}

static bool
gm_overlap(const struct gm_tok *a, const struct gm_tok *b)
{
	size_t i = 0, j = 0;

	while (i < a->nr && j < b->nr) {
		if (a->r[i + 1] < b->r[j])
			i += 2;
		else if (b->r[j + 1] < a->r[i])
			j += 2;
		else
			return true;
	}
	return false;
}

static bool
gm_intersect(const struct gm_tok *a, size_t na, const struct gm_tok *b,
    size_t nb)
{
	size_t w = nb + 1, total = (na + 1) * (nb + 1), head = 0, tail = 0;
	unsigned char *seen = axg_calloc(total, 1);
	size_t *queue = axg_calloc(total, sizeof(*queue));
	bool found = false;

#define GM_PUSH(x, y)                                                          \
	do {                                                                   \
		size_t id_ = (x)*w + (y);                                      \
		if (!seen[id_]) {                                              \
			seen[id_] = 1;                                         \
			queue[tail++] = id_;                                   \
		}                                                              \
	} while (0)
	GM_PUSH(0, 0);
	while (head < tail && !found) {
		size_t id = queue[head++], i = id / w, j = id % w;
		if (i == na && j == nb) {
			found = true;
			break;
		}
		if (i < na && a[i].q != 0)
			GM_PUSH(i + 1, j);
		if (j < nb && b[j].q != 0)
			GM_PUSH(i, j + 1);
		if (i < na && j < nb && gm_overlap(&a[i], &b[j]))
			GM_PUSH(a[i].q == '*' ? i : i + 1,
			    b[j].q == '*' ? j : j + 1);
	}
#undef GM_PUSH
	free(seen);
	free(queue);
	return found;
}

static int
bi_regex_globs_match(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct gm_tok *t[2] = { NULL, NULL };
	size_t nt[2] = { 0, 0 };
	int i;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	for (i = 0; i < 2; i++) {
		const char *err = NULL;
		size_t pos = 0;
		t[i] = gm_parse(axv_str(args[i]), axv_strlen(args[i]), &nt[i],
		    &err, &pos);
		if (t[i] == NULL) {
			if (i == 1)
				gm_free(t[0], nt[0]);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "input:%.200s, pos:%zu, %s: the input provided is "
			    "invalid",
			    axv_str(args[i]), pos, err);
		}
	}
	*out = axv_bool(gm_intersect(t[0], nt[0], t[1], nt[1]));
	gm_free(t[0], nt[0]);
	gm_free(t[1], nt[1]);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_regex[] = {
	{ "regex.match", 2, bi_regex_match, "(string, string) => boolean", 0 },
	{ "regex.is_valid", 1, bi_regex_is_valid, "(any) => boolean", 0 },
	{ "regex.find_n", 3, bi_regex_find_n,
	    "(string, string, number) => array[string]", 0 },
	{ "regex.find_all_string_submatch_n", 3, bi_regex_find_all_submatch,
	    "(string, string, number) => array[array[string]]", 0 },
	{ "regex.split", 2, bi_regex_split, "(string, string) => array[string]",
	    0 },
	{ "regex.replace", 3, bi_regex_replace,
	    "(string, string, string) => string", 0 },
	{ "regex.template_match", 4, bi_regex_template_match,
	    "(string, string, string, string) => boolean", 0 },
	{ "regex.globs_match", 2, bi_regex_globs_match,
	    "(string, string) => boolean", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
