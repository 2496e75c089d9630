/*
 * builtins-glob.c: glob.match and glob.quote_meta, with the syntax of the
 * Go library OPA uses (gobwas/glob): * (any run without separators), **
 * (any run), ? (one character, not a separator), [abc] [a-z] [!a-z],
 * {alt,ern,atives} (nesting allowed) and \ escapes.  Patterns compile to a
 * Thompson NFA that is simulated in time O(pattern x subject), so no
 * pattern can make matching slow.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

#define GLOB_PATTERN_MAX 4096
#define GLOB_DEPTH_MAX	 64

enum nop {
	N_CHAR,	 /* one code point equal to c */
	N_ANY,	 /* one code point, not a separator (sep) or any */
	N_CLASS, /* one code point in (or not in) the ranges */
	N_SPLIT, /* to x and y */
	N_JMP,	 /* to x */
	N_MATCH,
};

struct nstate {
	enum nop op;
	bool sep; /* N_ANY: refuse separators */
	bool neg; /* N_CLASS */
	uint32_t c;
	size_t x, y;
	size_t nranges; /* N_CLASS: pairs in ranges[r0 ..] */
	size_t r0;
};

struct nfa {
	struct nstate *s;
	size_t n, cap;
	uint32_t *ranges;
	size_t nr, rcap;
	const uint32_t *seps;
	size_t nseps;
	const char *err;
};

static size_t
add_state(struct nfa *a, enum nop op)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->s = axg_reallocarray(a->s, a->cap, sizeof(*a->s));
	}
	memset(&a->s[a->n], 0, sizeof(a->s[a->n]));
	a->s[a->n].op = op;
	return a->n++;
}

static void
add_range(struct nfa *a, uint32_t lo, uint32_t hi)
{
	if (a->nr + 2 > a->rcap) {
		a->rcap = a->rcap ? a->rcap * 2 : 32;
		a->ranges =
		    axg_reallocarray(a->ranges, a->rcap, sizeof(*a->ranges));
	}
	a->ranges[a->nr++] = lo;
	a->ranges[a->nr++] = hi;
}

/* A compiled fragment: its start state and the dangling JMP states whose x
 * must be patched to what follows.  Fragments are built so that every
 * fragment ends in exactly one JMP state (its "out"). */
struct frag {
	size_t start, out;
};

static size_t
next_cp(const char *p, size_t n, size_t *i, uint32_t *c)
{
	size_t l = axv_utf8_next(p + *i, n - *i, c);

	*i += l;
	return l;
}

static bool parse_seq(struct nfa *a, const char *p, size_t n, size_t *i,
    bool in_alt, int depth, struct frag *f);

/* One atom at p[*i]: fills f. */
static bool
parse_atom(struct nfa *a, const char *p, size_t n, size_t *i, int depth,
    struct frag *f)
{
	uint32_t c;
	size_t st, out;

	next_cp(p, n, i, &c);
	switch (c) {
	case '*': {
		bool super = *i < n && p[*i] == '*';
		size_t split, any;
		if (super)
			(*i)++;
		/* split -> any -> split ; split -> out */
		split = add_state(a, N_SPLIT);
		any = add_state(a, N_ANY);
		out = add_state(a, N_JMP);
		a->s[any].sep = !super;
		a->s[any].x = split;
		a->s[split].x = any;
		a->s[split].y = out;
		f->start = split;
		f->out = out;
		return true;
	}
	case '?':
		st = add_state(a, N_ANY);
		a->s[st].sep = true;
		break;
	case '[': {
		bool neg = false;
		size_t r0 = a->nr;
		if (*i < n && p[*i] == '!') {
			neg = true;
			(*i)++;
		}
		for (;;) {
			uint32_t lo, hi;
			if (*i >= n) {
				a->err = "unexpected end of input in '['";
				return false;
			}
			if (p[*i] == ']')
				break;
			next_cp(p, n, i, &lo);
			if (lo == '\\' && *i < n)
				next_cp(p, n, i, &lo);
			hi = lo;
			if (*i + 1 < n && p[*i] == '-' && p[*i + 1] != ']') {
				(*i)++;
				next_cp(p, n, i, &hi);
				if (hi == '\\' && *i < n)
					next_cp(p, n, i, &hi);
				if (hi < lo) {
					a->err = "invalid range in '['";
					return false;
				}
			}
			add_range(a, lo, hi);
		}
		(*i)++; /* ']' */
		st = add_state(a, N_CLASS);
		a->s[st].neg = neg;
		a->s[st].r0 = r0;
		a->s[st].nranges = (a->nr - r0) / 2;
		break;
	}
	case '{': {
		/* Alternatives: split chains, each branch jumping to out. */
		size_t first_split = SIZE_MAX, prev_split = SIZE_MAX;
		if (depth >= GLOB_DEPTH_MAX) {
			a->err = "alternatives nested too deep";
			return false;
		}
		out = add_state(a, N_JMP);
		for (;;) {
			struct frag b;
			size_t sp = add_state(a, N_SPLIT);
			if (!parse_seq(a, p, n, i, true, depth + 1, &b))
				return false;
			a->s[sp].x = b.start;
			a->s[b.out].x = out;
			if (first_split == SIZE_MAX)
				first_split = sp;
			else
				a->s[prev_split].y = sp;
			prev_split = sp;
			if (*i >= n) {
				a->err = "unexpected end of input in '{'";
				return false;
			}
			if (p[(*i)++] == '}')
				break;
		}
		/* The last split's other branch can never match. */
		{
			size_t dead = add_state(a, N_CLASS); /* empty class */
			a->s[dead].r0 = a->nr;
			a->s[prev_split].y = dead;
		}
		f->start = first_split;
		f->out = out;
		return true;
	}
	case '\\':
		if (*i >= n) {
			a->err = "unexpected end of input after '\\'";
			return false;
		}
		next_cp(p, n, i, &c);
		AXG_FALLTHROUGH;
	default:
		st = add_state(a, N_CHAR);
		a->s[st].c = c;
		break;
	}
	out = add_state(a, N_JMP);
	a->s[st].x = out;
	f->start = st;
	f->out = out;
	return true;
}

/* A sequence up to the end, or (in_alt) up to an unescaped ',' or '}'. */
static bool
parse_seq(struct nfa *a, const char *p, size_t n, size_t *i, bool in_alt,
    int depth, struct frag *f)
{
	size_t start = add_state(a, N_JMP), cur = start;

	while (*i < n) {
		struct frag g;
		if (in_alt && (p[*i] == ',' || p[*i] == '}'))
			break;
		if (!in_alt && p[*i] == '}') {
			a->err = "unexpected '}'";
			return false;
		}
		if (p[*i] == ']') {
			a->err = "set-close ']' with no preceding '['";
			return false;
		}
		if (!parse_atom(a, p, n, i, depth, &g))
			return false;
		a->s[cur].x = g.start;
		cur = g.out;
	}
	f->start = start;
	f->out = cur;
	return true;
}

static bool
step_ok(const struct nfa *a, const struct nstate *s, uint32_t c)
{
	size_t k;
	bool in = false;

	switch (s->op) {
	case N_CHAR:
		return s->c == c;
	case N_ANY:
		if (s->sep)
			for (k = 0; k < a->nseps; k++)
				if (a->seps[k] == c)
					return false;
		return true;
	case N_CLASS:
		for (k = 0; k < s->nranges && !in; k++)
			in = c >= a->ranges[s->r0 + 2 * k] &&
			    c <= a->ranges[s->r0 + 2 * k + 1];
		if (s->nranges == 0 && !s->neg)
			return false;
		return in != s->neg;
	default:
		return false;
	}
}

/* Add state i and its epsilon closure to the set (list + mark). */
static void
add_closure(const struct nfa *a, size_t i, size_t *list, size_t *len,
    unsigned char *mark, size_t *stack)
{
	size_t sp = 0;

	stack[sp++] = i;
	while (sp > 0) {
		size_t s = stack[--sp];
		if (mark[s])
			continue;
		mark[s] = 1;
		switch (a->s[s].op) {
		case N_JMP:
			stack[sp++] = a->s[s].x;
			break;
		case N_SPLIT:
			stack[sp++] = a->s[s].y;
			stack[sp++] = a->s[s].x;
			break;
		default:
			list[(*len)++] = s;
			break;
		}
	}
}

static bool
nfa_match(const struct nfa *a, size_t start, const char *s, size_t n)
{
	size_t *cur = axg_calloc(a->n, sizeof(size_t));
	size_t *nxt = axg_calloc(a->n, sizeof(size_t));
	size_t *stack = axg_calloc(a->n * 2 + 2, sizeof(size_t));
	unsigned char *mark = axg_calloc(a->n, 1);
	size_t ncur = 0, nnxt, i = 0, k;
	bool matched = false;
	uint32_t c;

	add_closure(a, start, cur, &ncur, mark, stack);
	while (i < n && ncur > 0) {
		i += axv_utf8_next(s + i, n - i, &c);
		memset(mark, 0, a->n);
		nnxt = 0;
		for (k = 0; k < ncur; k++)
			if (step_ok(a, &a->s[cur[k]], c))
				add_closure(a, a->s[cur[k]].x, nxt, &nnxt, mark,
				    stack);
		{
			size_t *t = cur;
			cur = nxt;
			nxt = t;
			ncur = nnxt;
		}
	}
	for (k = 0; k < ncur && i >= n; k++)
		if (a->s[cur[k]].op == N_MATCH)
			matched = true;
	free(cur);
	free(nxt);
	free(stack);
	free(mark);
	return matched;
}

static int
bi_glob_match(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	static const uint32_t dot = '.';
	struct nfa a;
	struct frag f;
	uint32_t *seps = NULL;
	size_t i = 0, k, nseps = 0, m;
	const char *p;
	int rc = AXP_BI_ERROR;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (axv_kind(args[1]) != AXV_NULL && axv_kind(args[1]) != AXV_ARRAY)
		return axp_bi_type_error(ctx, 2, "one of {array, null}",
		    args[1]);
	if (!axp_bi_want(ctx, args, 3, AXV_STRING))
		return AXP_BI_ERROR;
	if (axv_strlen(args[0]) > GLOB_PATTERN_MAX)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "pattern longer than %d bytes", GLOB_PATTERN_MAX);
	memset(&a, 0, sizeof(a));
	if (axv_kind(args[1]) == AXV_ARRAY) {
		m = axv_array_len(args[1]);
		seps = axg_calloc(m ? m : 1, sizeof(*seps));
		for (k = 0; k < m; k++) {
			const struct axv *d = axv_array_get(args[1], k);
			uint32_t c;
			if (axv_kind(d) != AXV_STRING ||
			    axv_utf8_count(axv_str(d), axv_strlen(d)) != 1) {
				free(seps);
				return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
				    "operand 2 must be array of single "
				    "characters");
			}
			axv_utf8_next(axv_str(d), axv_strlen(d), &c);
			seps[nseps++] = c;
		}
		/* OPA: an empty list means the default, "." */
		a.seps = nseps ? seps : &dot;
		a.nseps = nseps ? nseps : 1;
	}
	p = axv_str(args[0]);
	if (!parse_seq(&a, p, axv_strlen(args[0]), &i, false, 0, &f)) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "input:%s, pos:%zu, %s: the input provided is invalid", p,
		    i, a.err);
		goto done;
	}
	m = add_state(&a, N_MATCH);
	a.s[f.out].x = m;
	*out = axv_bool(
	    nfa_match(&a, f.start, axv_str(args[2]), axv_strlen(args[2])));
	rc = AXP_BI_OK;
done:
	free(a.s);
	free(a.ranges);
	free(seps);
	return rc;
}

static int
bi_glob_quote_meta(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	const char *s;
	size_t i, n;
	char *r;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	axg_buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		if (strchr("*?\\[]{}", s[i]) != NULL && s[i] != '\0')
			axg_buf_putc(&b, '\\');
		axg_buf_putc(&b, s[i]);
	}
	r = axg_buf_steal(&b, &n);
	*out = axv_string_own(r, n);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_glob[] = {
	{ "glob.match", 3, bi_glob_match,
	    "(string, any<array[string], null>, string) => boolean", 0 },
	{ "glob.quote_meta", 1, bi_glob_quote_meta, "(string) => string", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
