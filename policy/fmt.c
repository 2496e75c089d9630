/*
 * fmt.c: print a Rego module in canonical form (axgate policy fmt).
 *
 * Works from the syntax tree (ast.h), so the output is whatever the parser
 * understood: Rego v1 keywords (`if`, `contains`), tabs, one blank line
 * between rules, every body in braces, refs written with dots where the key
 * is an identifier.  Comments are kept: each one is printed before the
 * first rule or expression that starts after it, or at the end of the line
 * of the rule or expression that starts on the same line.  Formatting the
 * output again gives the same text.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/ast.h"
#include "policy/policy-int.h"
#include "policy/value.h"

struct fmt {
	struct axg_buf *out;
	struct ast_comment *c; /* the next comment not yet printed */
	int indent;
};

static void term(struct fmt *f, const struct ast_term *t, int prec);
static void body_lines(struct fmt *f, const struct ast_body *b);
static void body_inline(struct fmt *f, const struct ast_body *b);

static void
put(struct fmt *f, const char *s)
{
	axg_buf_puts(f->out, s);
}

static void
tabs(struct fmt *f)
{
	for (int i = 0; i < f->indent; i++)
		axg_buf_putc(f->out, '\t');
}

static void
put_comment(struct fmt *f, const struct ast_comment *c)
{
	size_t n = c->len;

	/* trailing blanks are not part of the comment */
	while (n > 1 &&
	    (c->text[n - 1] == ' ' || c->text[n - 1] == '\t' ||
		c->text[n - 1] == '\r'))
		n--;
	axg_buf_append(f->out, c->text, n);
}

/* Comments that start before line, each on its own line. */
static void
comments_before(struct fmt *f, int line)
{
	while (f->c != NULL && f->c->loc.line < line) {
		tabs(f);
		put_comment(f, f->c);
		axg_buf_putc(f->out, '\n');
		f->c = f->c->next;
	}
}

/* End the line of something that started on line: comments on that same
 * line go at its end. */
static void
newline(struct fmt *f, int line)
{
	while (f->c != NULL && f->c->loc.line == line) {
		put(f, " ");
		put_comment(f, f->c);
		f->c = f->c->next;
	}
	axg_buf_putc(f->out, '\n');
}

static bool
is_ident(const char *s, size_t n)
{
	if (n == 0 ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
		s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static void
scalar(struct fmt *f, const struct axv *v)
{
	if (axv_kind(v) == AXV_STRING || axv_kind(v) == AXV_NUMBER ||
	    axv_kind(v) == AXV_BOOL || axv_kind(v) == AXV_NULL)
		axv_to_json(v, f->out, false);
	else
		axv_to_rego(v, f->out);
}

static void
var(struct fmt *f, const char *name)
{
	/* the parser names each wildcard _$N */
	put(f, strncmp(name, "_$", 2) == 0 ? "_" : name);
}

/* Infix operators, by the builtin the parser turned them into. */
static const struct {
	const char *fn, *op;
	int prec;
} infix[] = {
	{ "internal.member_2", "in", 0 },
	{ "equal", "==", 1 },
	{ "neq", "!=", 1 },
	{ "lt", "<", 1 },
	{ "lte", "<=", 1 },
	{ "gt", ">", 1 },
	{ "gte", ">=", 1 },
	{ "or", "|", 2 },
	{ "and", "&", 3 },
	{ "plus", "+", 4 },
	{ "minus", "-", 4 },
	{ "mul", "*", 5 },
	{ "div", "/", 5 },
	{ "rem", "%", 5 },
};

#define PREC_TOP     0
#define PREC_PRIMARY 6

static int
infix_of(const struct ast_term *t)
{
	if (t->kind != T_CALL || t->n != 2 || t->key->kind != T_VAR)
		return -1;
	for (size_t i = 0; i < AXG_ARRAY_LEN(infix); i++)
		if (strcmp(t->key->name, infix[i].fn) == 0)
			return (int)i;
	return -1;
}

static void
terms(struct fmt *f, struct ast_term *const *items, size_t n, size_t step)
{
	for (size_t i = 0; i < n; i += step) {
		if (i > 0)
			put(f, ", ");
		term(f, items[i], PREC_TOP);
		if (step == 2) {
			put(f, ": ");
			term(f, items[i + 1], PREC_TOP);
		}
	}
}

static void
ref(struct fmt *f, const struct ast_term *t)
{
	const struct ast_term *h = t->items[0];

	term(f, h, PREC_PRIMARY);
	for (size_t i = 1; i < t->n; i++) {
		const struct ast_term *k = t->items[i];

		if (k->kind == T_SCALAR && axv_kind(k->val) == AXV_STRING &&
		    is_ident(axv_str(k->val), axv_strlen(k->val))) {
			put(f, ".");
			put(f, axv_str(k->val));
		} else {
			put(f, "[");
			term(f, k, PREC_TOP);
			put(f, "]");
		}
	}
}

/* $"text {expr} text": the parser's internal.template_string([parts]). */
static bool template(struct fmt *f, const struct ast_term *t)
{
	const struct ast_term *arr;

	if (t->key->kind != T_VAR ||
	    strcmp(t->key->name, "internal.template_string") != 0 ||
	    t->n != 1 || t->items[0]->kind != T_ARRAY)
		return false;
	arr = t->items[0];
	put(f, "$\"");
	for (size_t i = 0; i < arr->n; i++) {
		const struct ast_term *p = arr->items[i];

		if (p->kind == T_SCALAR && axv_kind(p->val) == AXV_STRING) {
			struct axg_buf j;

			axg_buf_init(&j, 0);
			axv_to_json(p->val, &j, false);
			/* drop the quotes; escape the braces */
			for (size_t k = 1; k + 1 < j.len; k++) {
				if (j.data[k] == '{' || j.data[k] == '}')
					axg_buf_putc(f->out, '\\');
				axg_buf_putc(f->out, j.data[k]);
			}
			axg_buf_free(&j);
		} else if (p->kind == T_ARRAY_COMPR && p->body->n == 1 &&
		    p->body->e[0]->kind == E_UNIFY) {
			const struct ast_expr *x = p->body->e[0];

			put(f, "{");
			term(f, x->b, PREC_TOP);
			for (size_t w = 0; w < x->nwiths; w++) {
				put(f, " with ");
				term(f, x->withs[w].target, 1);
				put(f, " as ");
				term(f, x->withs[w].value, 1);
			}
			put(f, "}");
		} else {
			put(f, "{");
			term(f, p, PREC_TOP);
			put(f, "}");
		}
	}
	put(f, "\"");
	return true;
}

static void
call(struct fmt *f, const struct ast_term *t, int prec)
{
	int op = infix_of(t);

	if (op >= 0) {
		int p = infix[op].prec;
		bool paren = p < prec;

		if (paren)
			put(f, "(");
		term(f, t->items[0], p);
		put(f, " ");
		put(f, infix[op].op);
		put(f, " ");
		term(f, t->items[1], p + 1);
		if (paren)
			put(f, ")");
		return;
	}
	if (t->key->kind == T_VAR &&
	    strcmp(t->key->name, "internal.member_3") == 0 && t->n == 3) {
		put(f, "(");
		term(f, t->items[0], 1);
		put(f, ", ");
		term(f, t->items[1], 1);
		put(f, " in ");
		term(f, t->items[2], 1);
		put(f, ")");
		return;
	}
	if (template(f, t))
		return;
	if (t->key->kind == T_VAR)
		put(f, t->key->name);
	else
		ref(f, t->key);
	put(f, "(");
	terms(f, t->items, t->n, 1);
	put(f, ")");
}

static void
term(struct fmt *f, const struct ast_term *t, int prec)
{
	switch (t->kind) {
	case T_SCALAR:
		scalar(f, t->val);
		break;
	case T_VAR:
		var(f, t->name);
		break;
	case T_REF:
		ref(f, t);
		break;
	case T_ARRAY:
		put(f, "[");
		terms(f, t->items, t->n, 1);
		put(f, "]");
		break;
	case T_OBJECT:
		put(f, "{");
		terms(f, t->items, t->n, 2);
		put(f, "}");
		break;
	case T_SET:
		if (t->n == 0) {
			put(f, "set()");
			break;
		}
		put(f, "{");
		terms(f, t->items, t->n, 1);
		put(f, "}");
		break;
	case T_ARRAY_COMPR:
		put(f, "[");
		term(f, t->key, PREC_TOP);
		put(f, " | ");
		body_inline(f, t->body);
		put(f, "]");
		break;
	case T_SET_COMPR:
		put(f, "{");
		term(f, t->key, PREC_TOP);
		put(f, " | ");
		body_inline(f, t->body);
		put(f, "}");
		break;
	case T_OBJECT_COMPR:
		put(f, "{");
		term(f, t->key, PREC_TOP);
		put(f, ": ");
		term(f, t->value, PREC_TOP);
		put(f, " | ");
		body_inline(f, t->body);
		put(f, "}");
		break;
	case T_CALL:
		call(f, t, prec);
		break;
	}
}

static void
in_clause(struct fmt *f, const struct ast_expr *e)
{
	if (e->key != NULL) {
		term(f, e->key, 1);
		put(f, ", ");
	}
	term(f, e->value, 1);
	put(f, " in ");
	term(f, e->coll, 1);
}

/* An expression without its leading tabs or its newline.  Bodies nested in
 * it (every) are printed over several lines unless inline is set. */
static void
expr(struct fmt *f, const struct ast_expr *e, bool inl)
{
	bool group = e->negated && (e->kind == E_AND || e->kind == E_OR);

	if (e->negated)
		put(f, group ? "not (" : "not ");
	switch (e->kind) {
	case E_TERM:
		/* k, v in coll may stand alone without parentheses */
		if (!e->negated && e->a->kind == T_CALL &&
		    e->a->key->kind == T_VAR &&
		    strcmp(e->a->key->name, "internal.member_3") == 0 &&
		    e->a->n == 3) {
			term(f, e->a->items[0], 1);
			put(f, ", ");
			term(f, e->a->items[1], 1);
			put(f, " in ");
			term(f, e->a->items[2], 1);
		} else {
			term(f, e->a, PREC_TOP);
		}
		break;
	case E_UNIFY:
	case E_ASSIGN:
		term(f, e->a, PREC_TOP);
		put(f, e->kind == E_ASSIGN ? " := " : " = ");
		term(f, e->b, PREC_TOP);
		break;
	case E_SOME:
		put(f, "some ");
		terms(f, e->vars, e->nvars, 1);
		break;
	case E_SOME_IN:
		put(f, "some ");
		in_clause(f, e);
		break;
	case E_EVERY:
		put(f, "every ");
		in_clause(f, e);
		if (inl) {
			put(f, " { ");
			body_inline(f, e->body);
			put(f, " }");
		} else {
			put(f, " {\n");
			f->indent++;
			body_lines(f, e->body);
			f->indent--;
			tabs(f);
			put(f, "}");
		}
		break;
	case E_GROUP:
		put(f, "{ ");
		body_inline(f, e->body);
		put(f, " }");
		break;
	case E_AND:
	case E_OR:
		for (size_t i = 0; i < e->nalts; i++) {
			if (i > 0)
				put(f, e->kind == E_AND ? " and " : " or ");
			put(f, "{ ");
			body_inline(f, e->alts[i]);
			put(f, " }");
		}
		if (group)
			put(f, ")");
		break;
	}
	for (size_t i = 0; i < e->nwiths; i++) {
		put(f, " with ");
		term(f, e->withs[i].target, 1);
		put(f, " as ");
		term(f, e->withs[i].value, 1);
	}
}

static void
body_inline(struct fmt *f, const struct ast_body *b)
{
	for (size_t i = 0; i < b->n; i++) {
		if (i > 0)
			put(f, "; ");
		expr(f, b->e[i], true);
	}
}

static void
body_lines(struct fmt *f, const struct ast_body *b)
{
	for (size_t i = 0; i < b->n; i++) {
		comments_before(f, b->e[i]->loc.line);
		tabs(f);
		expr(f, b->e[i], false);
		newline(f, b->e[i]->loc.line);
	}
}

/* ` if {` body `}` (without the final newline), or the end of the line. */
static bool
rule_body(struct fmt *f, const struct ast_rule *r)
{
	if (r->body == NULL) {
		newline(f, r->loc.line);
		return false;
	}
	put(f, " if {");
	newline(f, r->loc.line);
	f->indent++;
	body_lines(f, r->body);
	f->indent--;
	put(f, "}");
	return true;
}

static void
rule(struct fmt *f, const struct ast_rule *r)
{
	bool open;

	comments_before(f, r->loc.line);
	if (r->is_default)
		put(f, "default ");
	term(f, r->ref, PREC_PRIMARY);
	if (r->is_func) {
		put(f, "(");
		terms(f, r->args, r->nargs, 1);
		put(f, ")");
	}
	if (r->key != NULL) {
		put(f, " contains ");
		term(f, r->key, PREC_TOP);
	}
	if (r->value != NULL) {
		put(f, r->assign ? " := " : " = ");
		term(f, r->value, PREC_TOP);
	}
	open = rule_body(f, r);
	/* else needs a body before it; a rule without one ends here */
	for (const struct ast_rule *e = r->els; e != NULL && open; e = e->els) {
		put(f, " else");
		if (e->value != NULL) {
			put(f, e->assign ? " := " : " = ");
			term(f, e->value, PREC_TOP);
		}
		open = rule_body(f, e);
	}
	if (open)
		put(f, "\n");
}

int
axp_fmt_module(const char *file, const char *src, size_t len,
    struct axg_buf *out, char *err, size_t errlen)
{
	struct ast_arena *a = ast_arena_new();
	struct axp_diags ds = { NULL, 0, 0 };
	struct ast_module *m;
	struct fmt f = { out, NULL, 0 };
	int rc = -1;

	m = ast_parse_module(a, file, src, len, NULL, &ds);
	if (m == NULL) {
		if (ds.n > 0)
			axg_seterr(err, errlen, "%s:%d:%d: %s", file,
			    ds.d[0].line, ds.d[0].col, ds.d[0].message);
		else
			axg_seterr(err, errlen, "%s: cannot parse", file);
		goto fail;
	}
	f.c = m->comments;
	comments_before(&f, m->loc.line);
	put(&f, "package ");
	term(&f, m->package, PREC_PRIMARY);
	newline(&f, m->loc.line);
	if (m->nimports > 0)
		put(&f, "\n");
	for (size_t i = 0; i < m->nimports; i++) {
		comments_before(&f, m->imports[i].loc.line);
		put(&f, "import ");
		term(&f, m->imports[i].path, PREC_PRIMARY);
		if (m->imports[i].alias != NULL) {
			put(&f, " as ");
			put(&f, m->imports[i].alias);
		}
		newline(&f, m->imports[i].loc.line);
	}
	for (const struct ast_rule *r = m->rules; r != NULL; r = r->next) {
		put(&f, "\n");
		rule(&f, r);
	}
	if (f.c != NULL) {
		put(&f, "\n");
		comments_before(&f, 1 << 30);
	}
	rc = 0;
fail:
	axp_diags_free(&ds);
	ast_arena_free(a);
	return rc;
}
