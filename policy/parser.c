/* parser.c: recursive-descent parser for Rego v1 modules and queries. */
#include "config.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ast.h"
#include "policy/axpolicy.h"
#include "policy/lexer.h"
#include "policy/value-int.h"

struct parser {
	struct lexer lx;
	struct token tok;
	/* lexer state before tok, to back up one token */
	const char *save_p, *save_ls;
	int save_line;
	struct ast_arena *a;
	struct axp_diags *ds;
	const char *file;
	int depth, max_depth;
	bool nl; /* newlines end literals here */
	bool no_bar;
	int wildcards;
	/* Template variables are numbered per parse (a nested parser shares
	 * its parent's counter), so two threads may parse at once. */
	int tmpl_own, *tmpl_vars;
	bool kw_and, kw_or, kw_not; /* future.keywords.and/or/not imported */
	struct axg_buf *pending;    /* freed if a parse error unwinds */
	struct axg_buf lit;	    /* a template string's literal text */
	struct ast_comment *comments, *comments_tail;
	jmp_buf fail;
};

struct pmark {
	const char *p, *ls;
	int line;
};

static void
next(struct parser *ps)
{
	ps->save_p = ps->lx.p;
	ps->save_ls = ps->lx.line_start;
	ps->save_line = ps->lx.line;
	lex_next(&ps->lx, &ps->tok);
}

static struct pmark
mark(struct parser *ps)
{
	struct pmark m = { ps->save_p, ps->save_ls, ps->save_line };
	return m;
}

static void
reset(struct parser *ps, struct pmark m)
{
	ps->lx.p = m.p;
	ps->lx.line_start = m.ls;
	ps->lx.line = m.line;
	next(ps);
}

static struct ast_loc
here(struct parser *ps)
{
	struct ast_loc l = { ps->file, ps->tok.line, ps->tok.col };
	return l;
}

static void
perr(struct parser *ps, const char *fmt, ...) AXG_PRINTF(2, 3) AXG_NORETURN;

static void
perr(struct parser *ps, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	struct ast_loc l = here(ps);

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	axp_diags_add(ps->ds, &l, AXP_ERR_PARSE, "%s", msg);
	longjmp(ps->fail, 1);
}

static bool
is_punct(struct parser *ps, const char *op)
{
	return ps->tok.kind == TK_PUNCT && ps->tok.len == strlen(op) &&
	    memcmp(ps->tok.start, op, ps->tok.len) == 0;
}

static bool
is_kw(struct parser *ps, const char *kw)
{
	return ps->tok.kind == TK_IDENT && ps->tok.len == strlen(kw) &&
	    memcmp(ps->tok.start, kw, ps->tok.len) == 0;
}

static bool
accept(struct parser *ps, const char *op)
{
	if (is_punct(ps, op)) {
		next(ps);
		return true;
	}
	return false;
}

static void
tokdesc(struct parser *ps, char *out, size_t n)
{
	if (ps->tok.kind == TK_EOF)
		axg_strlcpy(out, "EOF", n);
	else if (ps->tok.kind == TK_STRING)
		axg_strlcpy(out, "string", n);
	else
		snprintf(out, n, "%.*s",
		    (int)(ps->tok.len > 40 ? 40 : ps->tok.len), ps->tok.start);
}

static void
expect(struct parser *ps, const char *op)
{
	char d[64];

	if (ps->tok.kind == TK_ERROR)
		perr(ps, "%s", ps->tok.text);
	if (!accept(ps, op)) {
		tokdesc(ps, d, sizeof(d));
		perr(ps, "unexpected %s token: expected %s", d, op);
	}
}

static const char *const keywords[] = { "not", "some", "in", "if", "contains",
	"else", "with", "as", "every", "default", "import", "package", "true",
	"false", "null" };

static bool
is_keyword(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(keywords); i++)
		if (strlen(keywords[i]) == n && memcmp(keywords[i], s, n) == 0)
			return true;
	return false;
}

/* A keyword directly followed by '.' or '[' names a ref head (as.foo). */
static bool
kw_as_var(struct parser *ps)
{
	const char *after = ps->tok.start + ps->tok.len;

	return after < ps->lx.end &&
	    (*after == '.' || *after == '[' || *after == '(');
}

static struct ast_term *
mkterm(struct parser *ps, enum ast_term_kind k, struct ast_loc loc)
{
	struct ast_term *t = ast_alloc(ps->a, sizeof(*t));

	t->kind = k;
	t->loc = loc;
	return t;
}

/* A growable list of term pointers, copied into the arena at the end. */
struct tlist {
	struct ast_term **v;
	size_t n, cap;
};

/* Lists grow inside the arena, so a longjmp out of the parser leaks
 * nothing. */
static void *
grow(struct ast_arena *a, void *old, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return old;
	*cap = *cap ? *cap * 2 : 8;
	p = ast_alloc(a, *cap * size);
	if (n)
		memcpy(p, old, n * size);
	return p;
}

#define tl_push(l, t)                                                          \
	do {                                                                   \
		(l)->v =                                                       \
		    grow(ps->a, (l)->v, (l)->n, &(l)->cap, sizeof(*(l)->v));   \
		(l)->v[(l)->n++] = (t);                                        \
	} while (0)

static struct ast_term **
tl_finish(struct parser *ps, struct tlist *l, size_t *n)
{
	struct ast_term **r = ast_alloc(ps->a, (l->n + 1) * sizeof(*r));

	if (l->n)
		memcpy(r, l->v, l->n * sizeof(*r));
	*n = l->n;
	l->v = NULL;
	l->n = l->cap = 0;
	return r;
}

static struct ast_term *
mkcall(struct parser *ps, const char *fn, struct ast_loc loc,
    struct ast_term *x, struct ast_term *y, struct ast_term *z)
{
	struct ast_term *c = mkterm(ps, T_CALL, loc);
	struct ast_term *f = mkterm(ps, T_VAR, loc);

	f->name = fn;
	c->key = f;
	c->n = z ? 3 : y ? 2 : 1;
	c->items = ast_alloc(ps->a, 4 * sizeof(*c->items));
	c->items[0] = x;
	c->items[1] = y;
	c->items[2] = z;
	return c;
}

static struct ast_term *parse_term(struct parser *ps);
static struct ast_term *parse_level(struct parser *ps, int level);
static struct ast_body *parse_body_until(struct parser *ps, const char *close);

static void
enter(struct parser *ps)
{
	if (++ps->depth > ps->max_depth)
		perr(ps, "nesting too deep (limit %d)", ps->max_depth);
}

static struct ast_term *
parse_composite(struct parser *ps)
{
	struct ast_loc loc = here(ps);
	bool is_arr = is_punct(ps, "[");
	const char *close = is_arr ? "]" : "}";
	bool save_nl = ps->nl, save_bar = ps->no_bar;
	struct tlist l = { NULL, 0, 0 };
	struct ast_term *t, *first, *val = NULL;

	next(ps);
	ps->nl = false;
	if (accept(ps, close)) {
		t = mkterm(ps, is_arr ? T_ARRAY : T_OBJECT, loc);
		t->items = ast_alloc(ps->a, sizeof(*t->items));
		goto out;
	}
	ps->no_bar = true;
	first = parse_term(ps);
	if (!is_arr && is_punct(ps, ":")) {
		next(ps);
		val = parse_term(ps);
	}
	ps->no_bar = save_bar;
	if (is_punct(ps, "|")) {
		next(ps);
		t = mkterm(ps,
		    is_arr    ? T_ARRAY_COMPR
			: val ? T_OBJECT_COMPR
			      : T_SET_COMPR,
		    loc);
		t->key = first;
		t->value = val;
		t->body = parse_body_until(ps, close);
		expect(ps, close);
		goto out;
	}
	tl_push(&l, first);
	if (val)
		tl_push(&l, val);
	while (accept(ps, ",")) {
		if (is_punct(ps, close))
			break;
		tl_push(&l, parse_term(ps));
		if (val != NULL) {
			expect(ps, ":");
			tl_push(&l, parse_term(ps));
		}
	}
	expect(ps, close);
	t = mkterm(ps, is_arr ? T_ARRAY : val ? T_OBJECT : T_SET, loc);
	t->items = tl_finish(ps, &l, &t->n);
out:
	ps->nl = save_nl;
	ps->no_bar = save_bar;
	return t;
}

static struct ast_term *
parse_number(struct parser *ps, bool neg)
{
	struct ast_loc loc = here(ps);
	char buf[64], *tmp = NULL;
	const char *s = ps->tok.start;
	size_t n = ps->tok.len;
	struct axv *v;
	struct ast_term *t;

	if (neg) {
		if (n + 2 <= sizeof(buf)) {
			buf[0] = '-';
			memcpy(buf + 1, s, n);
			s = buf;
		} else {
			tmp = axg_malloc(n + 2);
			tmp[0] = '-';
			memcpy(tmp + 1, s, n);
			s = tmp;
		}
		n++;
	}
	v = axv_number_parse(s, n);
	free(tmp);
	if (v == NULL)
		perr(ps, "invalid number");
	next(ps);
	t = mkterm(ps, T_SCALAR, loc);
	t->val = ast_keep(ps->a, v);
	return t;
}

static void
init(struct parser *ps, struct ast_arena *a, const char *file, const char *src,
    size_t len, const struct ast_limits *lim, struct axp_diags *ds);

/* Parse the expression text of a template part with a nested parser. */
static struct ast_expr *parse_literal(struct parser *ps);

static struct ast_expr *
parse_sub_term(struct parser *ps, const char *src, size_t len,
    struct ast_loc loc)
{
	struct parser *sub = axg_calloc(1, sizeof(*sub));
	struct ast_expr *volatile t = NULL;

	init(sub, ps->a, ps->file, src, len, NULL, ps->ds);
	sub->lx.line = loc.line;
	sub->tok.line = loc.line;
	sub->depth = ps->depth;
	sub->max_depth = ps->max_depth;
	sub->wildcards = ps->wildcards + 1000;
	sub->tmpl_vars = ps->tmpl_vars;
	if (setjmp(sub->fail) == 0) {
		sub->nl = false;
		t = parse_literal(sub);
		if (t->kind != E_TERM || t->negated)
			perr(sub, "template expression must be a term");
		if (sub->tok.kind != TK_EOF)
			perr(sub, "unexpected text in template expression");
	}
	if (sub->pending)
		axg_buf_free(sub->pending);
	lex_free(&sub->lx);
	free(sub);
	if (t == NULL)
		longjmp(ps->fail, 1);
	return t;
}

/* $"text {expr} text": a call of internal.template_string with an array
 * whose items are literal strings and, for each expression, the array
 * comprehension [v | v = expr] (empty when undefined). */
static struct ast_term *
parse_template(struct parser *ps)
{
	struct ast_loc loc = here(ps);
	const char *p = ps->tok.start + 2,
		   *end = ps->tok.start + ps->tok.len - 1;
	bool raw = ps->tok.start[1] == '`';
	struct tlist parts = { NULL, 0, 0 };
	/* in the parser, not on this frame: a parse error unwinds past it
	 * and frees it through ps->pending */
	struct axg_buf *lit = &ps->lit;
	struct ast_term *arr, *call;

	axg_buf_init(lit, 0);
	ps->pending = lit;
	while (p < end) {
		if (*p == '\\' && p + 1 < end) {
			if (p[1] == '{' || p[1] == '}') {
				axg_buf_putc(lit, p[1]);
				p += 2;
				continue;
			} else if (raw) {
				axg_buf_putc(lit, *p++);
				continue;
			} else {
				/* a JSON escape: decode "\x" alone */
				char tmp[8];
				size_t n = p[1] == 'u' ? 6 : 2;
				const char *stop, *why;
				if ((size_t)(end - p) < n)
					n = (size_t)(end - p);
				memcpy(tmp, p, n);
				tmp[n] = '"';
				if (axv_json_unquote(tmp, tmp + n + 1, lit,
					&stop, &why) < 0) {
					perr(ps,
					    "bad escape in template string");
				}
				p += n;
				continue;
			}
		}
		if (*p == '{') {
			const char *q = p + 1;
			int depth = 0;
			struct ast_term *v, *c;
			struct ast_expr *e;
			struct ast_body *b;
			struct ast_expr *x;
			char vn[32];
			while (q < end && (depth > 0 || *q != '}')) {
				if (*q == '{')
					depth++;
				else if (*q == '}')
					depth--;
				else if (*q == '"' || *q == '`') {
					char quote = *q++;
					while (q < end && *q != quote) {
						if (quote == '"' && *q == '\\')
							q++;
						q++;
					}
				}
				q++;
			}
			if (lit->len > 0) {
				struct ast_term *s = mkterm(ps, T_SCALAR, loc);
				s->val = ast_keep(ps->a,
				    axv_string(lit->data, lit->len));
				tl_push(&parts, s);
				axg_buf_reset(lit);
			}
			e = parse_sub_term(ps, p + 1, (size_t)(q - p - 1), loc);
			snprintf(vn, sizeof(vn), "_$t%d",
			    (*ps->tmpl_vars)++ % 100000);
			v = mkterm(ps, T_VAR, loc);
			v->name = ast_strndup(ps->a, vn, strlen(vn));
			x = ast_alloc(ps->a, sizeof(*x));
			x->kind = E_UNIFY;
			x->loc = loc;
			x->a = v;
			x->b = e->a;
			x->withs = e->withs;
			x->nwiths = e->nwiths;
			b = ast_alloc(ps->a, sizeof(*b));
			b->loc = loc;
			b->e = ast_alloc(ps->a, 2 * sizeof(*b->e));
			b->e[0] = x;
			b->n = 1;
			c = mkterm(ps, T_ARRAY_COMPR, loc);
			c->key = v;
			c->body = b;
			tl_push(&parts, c);
			p = q + 1;
			continue;
		}
		axg_buf_putc(lit, *p++);
	}
	if (lit->len > 0 || parts.n == 0) {
		struct ast_term *s = mkterm(ps, T_SCALAR, loc);
		s->val = ast_keep(ps->a,
		    axv_string(lit->data ? lit->data : "", lit->len));
		tl_push(&parts, s);
	}
	axg_buf_free(lit);
	ps->pending = NULL;
	next(ps);
	arr = mkterm(ps, T_ARRAY, loc);
	arr->items = tl_finish(ps, &parts, &arr->n);
	call = mkcall(ps, "internal.template_string", loc, arr, NULL, NULL);
	return call;
}

static struct ast_term *
parse_primary(struct parser *ps)
{
	struct ast_loc loc = here(ps);
	struct ast_term *t;
	char d[64];

	switch (ps->tok.kind) {
	case TK_NUMBER:
		return parse_number(ps, false);
	case TK_STRING:
		t = mkterm(ps, T_SCALAR, loc);
		t->val =
		    ast_keep(ps->a, axv_string(ps->tok.text, ps->tok.tlen));
		next(ps);
		return t;
	case TK_IDENT:
		if ((is_kw(ps, "true") || is_kw(ps, "false") ||
			is_kw(ps, "null")) &&
		    !kw_as_var(ps)) {
			t = mkterm(ps, T_SCALAR, loc);
			t->val = is_kw(ps, "null")
			    ? axv_null()
			    : axv_bool(is_kw(ps, "true"));
			next(ps);
			return t;
		}
		if (is_keyword(ps->tok.start, ps->tok.len) && !kw_as_var(ps)) {
			tokdesc(ps, d, sizeof(d));
			perr(ps, "unexpected %s keyword", d);
		}
		if (is_kw(ps, "set")) {
			struct pmark m = mark(ps);
			next(ps);
			if (accept(ps, "(")) {
				expect(ps, ")");
				t = mkterm(ps, T_SET, loc);
				t->items = ast_alloc(ps->a, sizeof(*t->items));
				return t;
			}
			reset(ps, m);
		}
		t = mkterm(ps, T_VAR, loc);
		if (ps->tok.len == 1 && ps->tok.start[0] == '_') {
			char w[32];
			snprintf(w, sizeof(w), "_$%d", ps->wildcards++);
			t->name = ast_strndup(ps->a, w, strlen(w));
		} else {
			t->name =
			    ast_strndup(ps->a, ps->tok.start, ps->tok.len);
		}
		next(ps);
		return t;
	case TK_PUNCT:
		if (is_punct(ps, "[") || is_punct(ps, "{"))
			return parse_composite(ps);
		if (is_punct(ps, "(")) {
			bool save_nl = ps->nl, save_bar = ps->no_bar;
			next(ps);
			ps->nl = false;
			ps->no_bar = false;
			t = parse_term(ps);
			if (is_punct(ps, ",")) {
				/* (k, v in coll) */
				struct ast_term *v;
				next(ps);
				v = parse_level(ps, 0);
				if (!is_kw(ps, "in"))
					perr(ps, "expected in");
				next(ps);
				t = mkcall(ps, "internal.member_3", t->loc, t,
				    v, parse_level(ps, 0));
			}
			ps->nl = save_nl;
			ps->no_bar = save_bar;
			expect(ps, ")");
			return t;
		}
		if (is_punct(ps, "-")) {
			next(ps);
			if (ps->tok.kind == TK_NUMBER &&
			    ps->tok.start == ps->save_p)
				return parse_number(ps, true);
			{
				struct ast_term *z = mkterm(ps, T_SCALAR, loc);
				z->val = axv_int(0);
				ast_keep(ps->a, z->val);
				return mkcall(ps, "minus", loc, z,
				    parse_primary(ps), NULL);
			}
		}
		break;
	case TK_TEMPLATE:
		return parse_template(ps);
	case TK_ERROR:
		perr(ps, "%s", ps->tok.text);
	case TK_EOF:
		perr(ps, "unexpected eof token");
	}
	tokdesc(ps, d, sizeof(d));
	perr(ps, "unexpected %s token", d);
}

/* postfix: refs and calls */
static struct ast_term *
parse_postfix(struct parser *ps)
{
	struct ast_term *t = parse_primary(ps), *r = NULL;
	struct tlist l = { NULL, 0, 0 };

	for (;;) {
		bool adj = !(ps->nl && ps->tok.nl_before);
		if (adj && is_punct(ps, ".")) {
			struct ast_term *k;
			next(ps);
			if (ps->tok.kind != TK_IDENT) {
				perr(ps, "expected an identifier after '.'");
			}
			k = mkterm(ps, T_SCALAR, here(ps));
			k->val = ast_keep(ps->a,
			    axv_string(ps->tok.start, ps->tok.len));
			next(ps);
			if (l.n == 0)
				tl_push(&l, t);
			tl_push(&l, k);
		} else if (adj && is_punct(ps, "[") &&
		    ps->tok.start == ps->save_p) {
			bool save_nl = ps->nl, save_bar = ps->no_bar;
			struct ast_term *k;
			next(ps);
			ps->nl = false;
			ps->no_bar = false;
			k = parse_term(ps);
			ps->nl = save_nl;
			ps->no_bar = save_bar;
			expect(ps, "]");
			if (l.n == 0)
				tl_push(&l, t);
			tl_push(&l, k);
		} else if (adj && is_punct(ps, "(") &&
		    ps->tok.start == ps->save_p &&
		    (t->kind == T_VAR || l.n > 0)) {
			struct ast_term *c = mkterm(ps, T_CALL, t->loc);
			struct tlist args = { NULL, 0, 0 };
			bool save_nl = ps->nl, save_bar = ps->no_bar;
			if (l.n > 0) {
				r = mkterm(ps, T_REF, t->loc);
				r->items = tl_finish(ps, &l, &r->n);
				t = r;
			}
			next(ps);
			ps->nl = false;
			ps->no_bar = false;
			if (!is_punct(ps, ")")) {
				do {
					if (is_punct(ps, ")"))
						break;
					tl_push(&args, parse_term(ps));
				} while (accept(ps, ","));
			}
			ps->nl = save_nl;
			ps->no_bar = save_bar;
			expect(ps, ")");
			c->key = t;
			c->items = tl_finish(ps, &args, &c->n);
			t = c;
		} else {
			break;
		}
	}
	if (l.n > 0) {
		r = mkterm(ps, T_REF, t->loc);
		r->items = tl_finish(ps, &l, &r->n);
		t = r;
	}
	return t;
}

/* Binary operator levels, lowest first. */
static const char *const level_ops[][7] = {
	{ "==", "!=", "<", "<=", ">", ">=", NULL },
	{ "|", NULL },
	{ "&", NULL },
	{ "+", "-", NULL },
	{ "*", "/", "%", NULL },
};

static const char *
infix_at(struct parser *ps, int level)
{
	size_t i;

	if (ps->tok.kind != TK_PUNCT || (ps->nl && ps->tok.nl_before))
		return NULL;
	for (i = 0; level_ops[level][i] != NULL; i++)
		if (is_punct(ps, level_ops[level][i])) {
			if (level == 1 && ps->no_bar)
				return NULL;
			return level_ops[level][i];
		}
	return NULL;
}

static const char *
op_builtin(const char *op)
{
	static const char *const map[][2] = { { "+", "plus" }, { "-", "minus" },
		{ "*", "mul" }, { "/", "div" }, { "%", "rem" },
		{ "==", "equal" }, { "!=", "neq" }, { "<", "lt" },
		{ "<=", "lte" }, { ">", "gt" }, { ">=", "gte" }, { "&", "and" },
		{ "|", "or" } };
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(map); i++)
		if (strcmp(map[i][0], op) == 0)
			return map[i][1];
	return op;
}

static struct ast_term *
parse_level(struct parser *ps, int level)
{
	struct ast_term *lhs;
	const char *op;

	if (level >= (int)AXG_ARRAY_LEN(level_ops))
		return parse_postfix(ps);
	enter(ps);
	lhs = parse_level(ps, level + 1);
	while ((op = infix_at(ps, level)) != NULL) {
		struct ast_loc loc = lhs->loc;
		next(ps);
		lhs = mkcall(ps, op_builtin(op), loc, lhs,
		    parse_level(ps, level + 1), NULL);
	}
	ps->depth--;
	return lhs;
}

static bool
at_in(struct parser *ps)
{
	return is_kw(ps, "in") && !(ps->nl && ps->tok.nl_before);
}

/* term with `in` */
static struct ast_term *
parse_term(struct parser *ps)
{
	struct ast_term *lhs;

	enter(ps);
	lhs = parse_level(ps, 0);
	while (at_in(ps)) {
		next(ps);
		lhs = mkcall(ps, "internal.member_2", lhs->loc, lhs,
		    parse_level(ps, 0), NULL);
	}
	ps->depth--;
	return lhs;
}

static struct ast_expr *
mkexpr(struct parser *ps, enum ast_expr_kind k, struct ast_loc loc)
{
	struct ast_expr *e = ast_alloc(ps->a, sizeof(*e));

	e->kind = k;
	e->loc = loc;
	return e;
}

static void
parse_withs(struct parser *ps, struct ast_expr *e)
{
	struct ast_with w[64];
	size_t n = 0;

	while (is_kw(ps, "with") && !kw_as_var(ps)) {
		if (n == AXG_ARRAY_LEN(w))
			perr(ps, "too many with modifiers");
		next(ps);
		w[n].target = parse_level(ps, 0);
		if (!is_kw(ps, "as"))
			perr(ps, "expected as");
		next(ps);
		w[n].value = parse_level(ps, 0);
		n++;
	}
	if (n > 0) {
		e->withs = ast_alloc(ps->a, n * sizeof(*e->withs));
		memcpy(e->withs, w, n * sizeof(*w));
		e->nwiths = n;
	}
}

/* [key,] value in coll  (some / every) */
static void
parse_in_clause(struct parser *ps, struct ast_expr *e)
{
	struct ast_term *a = parse_level(ps, 0);

	if (accept(ps, ",")) {
		e->key = a;
		e->value = parse_level(ps, 0);
	} else {
		e->value = a;
	}
	if (!is_kw(ps, "in"))
		perr(ps, "expected in");
	next(ps);
	e->coll = parse_level(ps, 0);
}

/* A literal without its with modifiers: [not] term [(= | :=) term]. */
static struct ast_expr *
parse_simple(struct parser *ps)
{
	struct ast_loc loc = here(ps);
	struct ast_expr *e;
	struct ast_term *a;

	e = mkexpr(ps, E_TERM, loc);
	if (is_kw(ps, "not") && !kw_as_var(ps)) {
		next(ps);
		e->negated = true;
	}
	a = parse_term(ps);
	if (!e->negated && is_punct(ps, ",") && !ps->no_bar) {
		/* k, v in coll */
		struct pmark m = mark(ps);
		struct ast_term *v;
		next(ps);
		v = parse_level(ps, 0);
		if (is_kw(ps, "in")) {
			next(ps);
			a = mkcall(ps, "internal.member_3", a->loc, a, v,
			    parse_level(ps, 0));
			while (at_in(ps)) {
				next(ps);
				a = mkcall(ps, "internal.member_2", a->loc, a,
				    parse_level(ps, 0), NULL);
			}
		} else {
			reset(ps, m);
		}
	}
	if (is_punct(ps, ":=") || is_punct(ps, "=")) {
		e->kind = is_punct(ps, ":=") ? E_ASSIGN : E_UNIFY;
		next(ps);
		e->a = a;
		e->b = parse_term(ps);
	} else {
		e->a = a;
	}
	return e;
}

/* The experimental logic keywords (future.keywords.and/or/not). */
static bool
at_logic(struct parser *ps, const char *kw)
{
	bool on = kw[0] == 'a' ? ps->kw_and : ps->kw_or;

	return on && is_kw(ps, kw) && !kw_as_var(ps) &&
	    !(ps->nl && ps->tok.nl_before);
}

/* Look ahead from an opening ( or { to its match without consuming: does
 * an and/or (or, for parentheses, with) keyword appear inside outside any
 * other bracket, and does and/or follow the match? */
static void
scan_group(struct parser *ps, bool *inside, bool *after)
{
	struct pmark m = mark(ps);
	int depth = 0, other = 0;
	size_t steps = 0;

	*inside = *after = false;
	for (;;) {
		if (ps->tok.kind == TK_EOF || ps->tok.kind == TK_ERROR ||
		    ++steps > 100000)
			break;
		if (ps->tok.kind == TK_PUNCT) {
			if (is_punct(ps, "(")) {
				depth++;
			} else if (is_punct(ps, ")")) {
				depth--;
			} else if (is_punct(ps, "{") || is_punct(ps, "[")) {
				depth++;
				other++;
			} else if (is_punct(ps, "}") || is_punct(ps, "]")) {
				depth--;
				other--;
			}
			if (depth == 0) {
				next(ps);
				*after =
				    at_logic(ps, "and") || at_logic(ps, "or");
				break;
			}
		} else if (ps->tok.kind == TK_IDENT && !kw_as_var(ps)) {
			if ((ps->kw_and && is_kw(ps, "and")) ||
			    (ps->kw_or && is_kw(ps, "or")) ||
			    is_kw(ps, "with")) {
				/* in braces: directly inside; in parens: not
				 * inside a brace or bracket */
				if (other <= 1 && (other == 0 || depth == 1))
					*inside = true;
			}
		}
		next(ps);
	}
	reset(ps, m);
}

static struct ast_expr *parse_or(struct parser *ps, bool rhs);

/* { body } as an operand: its own scope */
static struct ast_expr *
parse_brace_group(struct parser *ps)
{
	struct ast_expr *e = mkexpr(ps, E_GROUP, here(ps));

	expect(ps, "{");
	e->body = parse_body_until(ps, "}");
	expect(ps, "}");
	return e;
}

/* ( or-expression [with ...] ) */
static struct ast_expr *
parse_paren_group(struct parser *ps)
{
	bool save_nl = ps->nl, save_bar = ps->no_bar;
	struct ast_expr *e;

	expect(ps, "(");
	ps->nl = false;
	ps->no_bar = false;
	e = parse_or(ps, false);
	parse_withs(ps, e);
	ps->nl = save_nl;
	ps->no_bar = save_bar;
	expect(ps, ")");
	return e;
}

/* One operand of and/or: not? ({ body } | ( group ) | simple literal). */
static struct ast_expr *
parse_operand(struct parser *ps, bool rhs)
{
	struct ast_loc loc = here(ps);
	bool logic = ps->kw_and || ps->kw_or, inside, after;
	struct ast_expr *e;

	if (!logic && !ps->kw_not)
		return parse_simple(ps);
	if (is_kw(ps, "not") && !kw_as_var(ps)) {
		struct pmark m = mark(ps);
		next(ps);
		if (ps->kw_not && is_punct(ps, "{")) {
			e = parse_brace_group(ps);
		} else if (logic && is_punct(ps, "(") &&
		    (scan_group(ps, &inside, &after), inside)) {
			e = parse_paren_group(ps);
		} else {
			reset(ps, m);
			return parse_simple(ps);
		}
		if (e->negated || e->nwiths > 0) {
			struct ast_expr *g = mkexpr(ps, E_GROUP, loc);
			g->body = ast_alloc(ps->a, sizeof(*g->body));
			g->body->loc = loc;
			g->body->e = ast_alloc(ps->a, sizeof(*g->body->e));
			g->body->e[0] = e;
			g->body->n = 1;
			e = g;
		}
		e->negated = true;
		e->loc = loc;
		return e;
	}
	if (logic && is_punct(ps, "{")) {
		scan_group(ps, &inside, &after);
		if (rhs || inside || after)
			return parse_brace_group(ps);
	}
	if (logic && is_punct(ps, "(")) {
		scan_group(ps, &inside, &after);
		if (inside)
			return parse_paren_group(ps);
	}
	return parse_simple(ps);
}

static struct ast_body *
operand_body(struct parser *ps, struct ast_expr *e)
{
	struct ast_body *b;

	if (e->kind == E_GROUP && !e->negated && e->nwiths == 0)
		return e->body;
	b = ast_alloc(ps->a, sizeof(*b));
	b->loc = e->loc;
	b->e = ast_alloc(ps->a, sizeof(*b->e));
	b->e[0] = e;
	b->n = 1;
	return b;
}

/* operand (kw operand)*; kw binds and tighter than or. */
static struct ast_expr *
parse_chain(struct parser *ps, const char *kw, bool rhs)
{
	struct ast_loc loc = here(ps);
	struct ast_expr *ops[256], *e;
	size_t n = 0, i;
	bool is_and = kw[0] == 'a';

	enter(ps);
	ops[n++] =
	    is_and ? parse_operand(ps, rhs) : parse_chain(ps, "and", rhs);
	while (at_logic(ps, kw)) {
		if (n == AXG_ARRAY_LEN(ops))
			perr(ps, "too many %s operands", kw);
		next(ps);
		ops[n++] = is_and ? parse_operand(ps, true)
				  : parse_chain(ps, "and", true);
	}
	ps->depth--;
	if (n == 1)
		return ops[0];
	e = mkexpr(ps, is_and ? E_AND : E_OR, loc);
	e->alts = ast_alloc(ps->a, n * sizeof(*e->alts));
	for (i = 0; i < n; i++)
		e->alts[i] = operand_body(ps, ops[i]);
	e->nalts = n;
	return e;
}

static struct ast_expr *
parse_or(struct parser *ps, bool rhs)
{
	return parse_chain(ps, "or", rhs);
}

static struct ast_expr *
parse_literal(struct parser *ps)
{
	struct ast_loc loc = here(ps);
	struct ast_expr *e;

	enter(ps);
	if (is_kw(ps, "some") && !kw_as_var(ps)) {
		struct tlist l = { NULL, 0, 0 };
		struct pmark m;
		next(ps);
		m = mark(ps);
		/* some x, y in xs  vs  some x, y */
		tl_push(&l, parse_level(ps, 0));
		while (accept(ps, ","))
			tl_push(&l, parse_level(ps, 0));
		if (is_kw(ps, "in")) {
			reset(ps, m);
			e = mkexpr(ps, E_SOME_IN, loc);
			parse_in_clause(ps, e);
			parse_withs(ps, e);
		} else {
			size_t i;
			e = mkexpr(ps, E_SOME, loc);
			e->vars = tl_finish(ps, &l, &e->nvars);
			for (i = 0; i < e->nvars; i++)
				if (e->vars[i]->kind != T_VAR) {
					ps->tok.line = e->vars[i]->loc.line;
					ps->tok.col = e->vars[i]->loc.col;
					perr(ps, "expected var");
				}
		}
		ps->depth--;
		return e;
	}
	if (is_kw(ps, "every") && !kw_as_var(ps)) {
		next(ps);
		e = mkexpr(ps, E_EVERY, loc);
		parse_in_clause(ps, e);
		expect(ps, "{");
		e->body = parse_body_until(ps, "}");
		expect(ps, "}");
		parse_withs(ps, e);
		ps->depth--;
		return e;
	}
	e = parse_or(ps, false);
	parse_withs(ps, e);
	ps->depth--;
	return e;
}

struct elist {
	struct ast_expr **v;
	size_t n, cap;
};

static struct ast_body *
finish_body(struct parser *ps, struct elist *l, struct ast_loc loc)
{
	struct ast_body *b = ast_alloc(ps->a, sizeof(*b));

	b->loc = loc;
	b->e = ast_alloc(ps->a, (l->n + 1) * sizeof(*b->e));
	if (l->n)
		memcpy(b->e, l->v, l->n * sizeof(*b->e));
	b->n = l->n;
	return b;
}

/* Literals up to (not including) close; NULL close: up to EOF. */
static struct ast_body *
parse_body_until(struct parser *ps, const char *close)
{
	struct elist l = { NULL, 0, 0 };
	struct ast_loc loc = here(ps);
	bool save_nl = ps->nl, save_bar = ps->no_bar;
	char d[64];

	enter(ps);
	ps->nl = true;
	ps->no_bar = false;
	for (;;) {
		struct ast_expr *e;
		while (accept(ps, ";"))
			;
		if (close ? is_punct(ps, close) : ps->tok.kind == TK_EOF)
			break;
		if (ps->tok.kind == TK_EOF) {
			perr(ps, "unexpected eof token: expected %s", close);
		}
		e = parse_literal(ps);
		tl_push(&l, e);
		if (is_punct(ps, ";") || ps->tok.nl_before)
			continue;
		if (close ? is_punct(ps, close) : ps->tok.kind == TK_EOF)
			break;
		tokdesc(ps, d, sizeof(d));
		perr(ps, "unexpected %s token", d);
	}
	ps->nl = save_nl;
	ps->no_bar = save_bar;
	ps->depth--;
	if (l.n == 0 && close != NULL) {
		perr(ps, "found empty body");
	}
	return finish_body(ps, &l, loc);
}

/* `if` { body } | `if` literal | { body } */
static struct ast_body *
parse_rule_body(struct parser *ps, bool *had)
{
	struct ast_loc loc = here(ps);

	*had = false;
	if (is_kw(ps, "if") && !kw_as_var(ps)) {
		next(ps);
		*had = true;
		if (is_punct(ps, "{")) {
			/* could be an object/set literal expression; treat a
			 * brace after if as a body */
			struct ast_body *b;
			next(ps);
			b = parse_body_until(ps, "}");
			expect(ps, "}");
			return b;
		} else {
			struct elist l = { NULL, 0, 0 };
			bool save_nl = ps->nl;
			ps->nl = true;
			tl_push(&l, parse_literal(ps));
			ps->nl = save_nl;
			return finish_body(ps, &l, loc);
		}
	}
	if (is_punct(ps, "{") && !ps->tok.nl_before) {
		struct ast_body *b;
		*had = true;
		next(ps);
		b = parse_body_until(ps, "}");
		expect(ps, "}");
		return b;
	}
	return NULL;
}

static struct ast_term *
parse_ref_head(struct parser *ps)
{
	struct ast_term *h, *r;
	struct tlist l = { NULL, 0, 0 };

	if (ps->tok.kind != TK_IDENT ||
	    (is_keyword(ps->tok.start, ps->tok.len) && !kw_as_var(ps)))
		perr(ps, "expected rule head");
	h = mkterm(ps, T_VAR, here(ps));
	h->name = ast_strndup(ps->a, ps->tok.start, ps->tok.len);
	next(ps);
	for (;;) {
		if (ps->tok.nl_before || ps->tok.start != ps->save_p)
			break;
		if (is_punct(ps, ".")) {
			struct ast_term *k;
			next(ps);
			if (ps->tok.kind != TK_IDENT)
				perr(ps, "expected an identifier after '.'");
			k = mkterm(ps, T_SCALAR, here(ps));
			k->val = ast_keep(ps->a,
			    axv_string(ps->tok.start, ps->tok.len));
			next(ps);
			if (l.n == 0)
				tl_push(&l, h);
			tl_push(&l, k);
		} else if (is_punct(ps, "[")) {
			bool save_nl = ps->nl;
			struct ast_term *k;
			next(ps);
			ps->nl = false;
			k = parse_term(ps);
			ps->nl = save_nl;
			expect(ps, "]");
			if (l.n == 0)
				tl_push(&l, h);
			tl_push(&l, k);
		} else {
			break;
		}
	}
	if (l.n == 0)
		return h;
	r = mkterm(ps, T_REF, h->loc);
	r->items = tl_finish(ps, &l, &r->n);
	return r;
}

static struct ast_rule *
parse_rule(struct parser *ps)
{
	struct ast_rule *r = ast_alloc(ps->a, sizeof(*r)), *prev;
	struct tlist args = { NULL, 0, 0 };
	bool had, save_nl = ps->nl;

	r->loc = here(ps);
	ps->nl = true;
	if (is_kw(ps, "default") && !kw_as_var(ps)) {
		next(ps);
		r->is_default = true;
	}
	r->ref = parse_ref_head(ps);
	if (is_punct(ps, "(") && !ps->tok.nl_before) {
		bool s = ps->nl;
		next(ps);
		ps->nl = false;
		if (!is_punct(ps, ")")) {
			do {
				tl_push(&args, parse_term(ps));
			} while (accept(ps, ","));
		}
		ps->nl = s;
		expect(ps, ")");
		r->is_func = true;
		r->args = tl_finish(ps, &args, &r->nargs);
	}
	if (is_kw(ps, "contains") && !ps->tok.nl_before && !kw_as_var(ps)) {
		next(ps);
		r->key = parse_term(ps);
	}
	if ((is_punct(ps, ":=") || is_punct(ps, "=")) && !ps->tok.nl_before) {
		r->assign = is_punct(ps, ":=");
		next(ps);
		r->value = parse_term(ps);
	}
	if (r->is_default) {
		if (r->value == NULL)
			perr(ps, "default rule must have a value");
		ps->nl = save_nl;
		return r;
	}
	r->body = parse_rule_body(ps, &had);
	prev = r;
	while (is_kw(ps, "else") && !kw_as_var(ps)) {
		struct ast_rule *e = ast_alloc(ps->a, sizeof(*e));
		e->loc = here(ps);
		next(ps);
		e->ref = r->ref;
		e->is_func = r->is_func;
		e->args = r->args;
		e->nargs = r->nargs;
		if (is_punct(ps, ":=") || is_punct(ps, "=")) {
			e->assign = is_punct(ps, ":=");
			next(ps);
			e->value = parse_term(ps);
		}
		e->body = parse_rule_body(ps, &had);
		prev->els = e;
		prev = e;
	}
	ps->nl = save_nl;
	return r;
}

static void
init(struct parser *ps, struct ast_arena *a, const char *file, const char *src,
    size_t len, const struct ast_limits *lim, struct axp_diags *ds)
{
	memset(ps, 0, sizeof(*ps));
	ps->tmpl_vars = &ps->tmpl_own;
	lex_init(&ps->lx, src, len, lim ? lim->max_literal : 0);
	ps->a = a;
	ps->ds = ds;
	ps->file = ast_strndup(a, file, strlen(file));
	ps->max_depth = lim && lim->max_depth > 0 ? lim->max_depth : 256;
	ps->nl = true;
	next(ps);
}

static void
on_comment(void *arg, const char *p, size_t n, int line, int col)
{
	struct parser *ps = arg;
	struct ast_comment *c = ast_alloc(ps->a, sizeof(*c));

	c->loc.file = ps->file;
	c->loc.line = line;
	c->loc.col = col;
	c->text = ast_strndup(ps->a, p, n);
	c->len = n;
	if (ps->comments_tail != NULL)
		ps->comments_tail->next = c;
	else
		ps->comments = c;
	ps->comments_tail = c;
}

/* import future.keywords.and (or, not) turns on that keyword. */
static void
note_future_keyword(struct parser *ps, const struct ast_term *t)
{
	const char *kw;

	if (t->kind != T_REF || t->n != 3 || t->items[0]->kind != T_VAR ||
	    strcmp(t->items[0]->name, "future") != 0 ||
	    t->items[1]->kind != T_SCALAR || t->items[2]->kind != T_SCALAR ||
	    axv_kind(t->items[1]->val) != AXV_STRING ||
	    axv_kind(t->items[2]->val) != AXV_STRING ||
	    strcmp(axv_str(t->items[1]->val), "keywords") != 0)
		return;
	kw = axv_str(t->items[2]->val);
	if (strcmp(kw, "and") == 0)
		ps->kw_and = true;
	else if (strcmp(kw, "or") == 0)
		ps->kw_or = true;
	else if (strcmp(kw, "not") == 0)
		ps->kw_not = true;
}

struct ast_module *
ast_parse_module(struct ast_arena *a, const char *file, const char *src,
    size_t len, const struct ast_limits *lim, struct axp_diags *ds)
{
	struct parser ps;
	struct ast_module *volatile m = NULL;
	struct ast_rule *volatile last = NULL;
	struct ast_import imps[256];
	volatile size_t nimps = 0;
	size_t max_src = lim && lim->max_source ? lim->max_source : 16 << 20;

	init(&ps, a, file, src, len, lim, ds);
	if (ps.comments_tail == NULL && ps.lx.src != ps.lx.p) {
		/* comments before the first token: lex them again */
		ps.lx.p = ps.lx.src;
		ps.lx.line_start = ps.lx.src;
		ps.lx.line = 1;
		ps.lx.on_comment = on_comment;
		ps.lx.comment_arg = &ps;
		next(&ps);
	}
	ps.lx.on_comment = on_comment;
	ps.lx.comment_arg = &ps;
	if (len > max_src) {
		axp_diags_add(ds, NULL, AXP_ERR_PARSE,
		    "%s: module too large (%zu bytes)", file, len);
		lex_free(&ps.lx);
		return NULL;
	}
	if (setjmp(ps.fail)) {
		if (ps.pending)
			axg_buf_free(ps.pending);
		lex_free(&ps.lx);
		return NULL;
	}
	m = ast_alloc(a, sizeof(*m));
	m->file = ps.file;
	m->loc = here(&ps);
	if (!is_kw(&ps, "package"))
		perr(&ps, "package expected");
	next(&ps);
	m->package = parse_postfix(&ps);
	if (m->package->kind != T_VAR && m->package->kind != T_REF)
		perr(&ps, "invalid package name");
	while (is_kw(&ps, "import") && !kw_as_var(&ps)) {
		struct ast_import *im = &imps[nimps];
		if (nimps == AXG_ARRAY_LEN(imps))
			perr(&ps, "too many imports");
		im->loc = here(&ps);
		next(&ps);
		im->path = parse_postfix(&ps);
		im->alias = NULL;
		if (is_kw(&ps, "as")) {
			next(&ps);
			if (ps.tok.kind != TK_IDENT)
				perr(&ps, "expected an alias name");
			im->alias = ast_strndup(a, ps.tok.start, ps.tok.len);
			next(&ps);
		}
		note_future_keyword(&ps, im->path);
		nimps++;
	}
	m->nimports = nimps;
	m->imports = ast_alloc(a, (nimps + 1) * sizeof(*m->imports));
	memcpy(m->imports, imps, nimps * sizeof(*imps));
	while (ps.tok.kind != TK_EOF) {
		struct ast_rule *r;
		if (ps.tok.kind == TK_ERROR)
			perr(&ps, "%s", ps.tok.text);
		if (is_kw(&ps, "import") && !kw_as_var(&ps))
			perr(&ps, "imports must come before rules");
		if (is_punct(&ps, ";")) {
			next(&ps);
			continue;
		}
		r = parse_rule(&ps);
		if (last)
			last->next = r;
		else
			m->rules = r;
		last = r;
	}
	m->comments = ps.comments;
	lex_free(&ps.lx);
	return m;
}

struct ast_body *
ast_parse_query(struct ast_arena *a, const char *src, size_t len,
    const struct ast_limits *lim, struct axp_diags *ds)
{
	struct parser ps;
	struct ast_body *b;

	init(&ps, a, "query", src, len, lim, ds);
	if (setjmp(ps.fail)) {
		if (ps.pending)
			axg_buf_free(ps.pending);
		lex_free(&ps.lx);
		return NULL;
	}
	b = parse_body_until(&ps, NULL);
	if (b->n == 0)
		perr(&ps, "empty query");
	lex_free(&ps.lx);
	return b;
}

struct ast_term *
ast_parse_term(struct ast_arena *a, const char *src, size_t len,
    struct axp_diags *ds)
{
	struct parser ps;
	struct ast_term *t;

	init(&ps, a, "term", src, len, NULL, ds);
	if (setjmp(ps.fail)) {
		if (ps.pending)
			axg_buf_free(ps.pending);
		lex_free(&ps.lx);
		return NULL;
	}
	ps.nl = false;
	t = parse_term(&ps);
	if (ps.tok.kind != TK_EOF)
		perr(&ps, "unexpected text after the term");
	lex_free(&ps.lx);
	return t;
}
