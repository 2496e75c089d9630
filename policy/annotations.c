/*
 * annotations.c: METADATA comment blocks, read the way OPA reads them, for
 * rego.metadata.rule() and rego.metadata.chain().
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "policy/annotations.h"
#include "policy/value-extra-b.h"

#define ANNOT_MAX_BYTES (64 * 1024) /* of YAML in one block */

static bool
is_metadata_line(const struct ast_comment *c)
{
	size_t n = c->len;

	while (n > 0 &&
	    (c->text[n - 1] == ' ' || c->text[n - 1] == '\t' ||
		c->text[n - 1] == '\r'))
		n--;
	return n == 10 && memcmp(c->text, "# METADATA", 10) == 0;
}

/* The YAML of the block that ends on the line above `line`, into y.
 * false when there is no block there. */
static bool
block_yaml(const struct ast_module *m, int line, struct axg_buf *y, int *at)
{
	const struct ast_comment *run = NULL, *c;
	int prev = -2;

	for (c = m->comments; c != NULL && c->loc.line < line; c = c->next) {
		if (c->loc.line != prev + 1)
			run = c;
		prev = c->loc.line;
		if (c->loc.line == line - 1)
			break;
	}
	if (c == NULL || c->loc.line != line - 1 || !is_metadata_line(run))
		return false;
	*at = run->loc.line;
	for (const struct ast_comment *l = run->next;
	     l != NULL && l->loc.line < line; l = l->next) {
		axg_buf_append(y, l->text + 1, l->len - 1); /* without # */
		axg_buf_putc(y, '\n');
	}
	return true;
}

static void
put_str(struct axv *o, const char *k, const char *s, size_t n)
{
	axv_object_put(o, axv_cstr(k), axv_string(s, n));
}

/* "Jane Doe <jane@example.com>" -> {"name", "email"}, as OPA splits it. */
static struct axv *
author_of(const char *s, size_t n)
{
	struct axv *o = axv_object_new(2);
	size_t end = n, lt;

	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	if (end > 0 && s[end - 1] == '>') {
		for (lt = end; lt > 0 && s[lt - 1] != '<' && s[lt - 1] != ' ';
		     lt--)
			;
		if (lt > 0 && s[lt - 1] == '<') {
			if (end - lt > 1)
				put_str(o, "email", s + lt, end - 1 - lt);
			end = lt - 1;
		}
	}
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--, end--;
	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	if (end > 0 && end <= n)
		put_str(o, "name", s, end);
	return o;
}

/* A list annotation: each string element becomes {key: s}, except
 * authors, whose strings are split into name and email; objects are
 * kept. */
static struct axv *
list_of(const struct axv *v, const char *key)
{
	struct axv *out = axv_array_new(0);
	size_t n = axv_kind(v) == AXV_ARRAY ? axv_array_len(v) : 1;

	for (size_t i = 0; i < n; i++) {
		const struct axv *e =
		    axv_kind(v) == AXV_ARRAY ? axv_array_get(v, i) : v;

		if (axv_kind(e) == AXV_STRING) {
			if (strcmp(key, "authors") == 0) {
				axv_array_push(out,
				    author_of(axv_str(e), axv_strlen(e)));
			} else {
				struct axv *o = axv_object_new(1);
				axv_object_put(o, axv_cstr(key),
				    axv_ref((struct axv *)e));
				axv_array_push(out, o);
			}
		} else if (axv_kind(e) == AXV_OBJECT) {
			axv_array_push(out, axv_ref((struct axv *)e));
		}
	}
	return out;
}

/* OPA's annotations object from the block's mapping: the known keys,
 * normalised, scope defaulted; other keys are dropped. */
static struct axv *
normalise(const struct axv *raw, const char *def_scope)
{
	static const char *const plain[] = { "title", "description",
		"organizations", "schemas", "entrypoint", "custom" };
	struct axv *o = axv_object_new(4);
	const struct axv *v;

	v = axv_object_gets(raw, "scope");
	if (v != NULL && axv_kind(v) == AXV_STRING)
		axv_object_put(o, axv_cstr("scope"), axv_ref((struct axv *)v));
	else
		axv_object_put(o, axv_cstr("scope"), axv_cstr(def_scope));
	for (size_t i = 0; i < AXG_ARRAY_LEN(plain); i++) {
		v = axv_object_gets(raw, plain[i]);
		if (v != NULL && axv_kind(v) != AXV_NULL)
			axv_object_put(o, axv_cstr(plain[i]),
			    axv_ref((struct axv *)v));
	}
	if ((v = axv_object_gets(raw, "authors")) != NULL &&
	    axv_kind(v) != AXV_NULL)
		axv_object_put(o, axv_cstr("authors"), list_of(v, "authors"));
	if ((v = axv_object_gets(raw, "related_resources")) != NULL &&
	    axv_kind(v) != AXV_NULL)
		axv_object_put(o, axv_cstr("related_resources"),
		    list_of(v, "ref"));
	return o;
}

/* The annotations of the statement starting on `line`: 0 with *out NULL
 * when it has none, -1 on a block that is not a mapping. */
static int
annot_at(const struct ast_module *m, int line, const char *def_scope,
    struct axv **out, char *err, size_t errlen)
{
	struct axg_buf y;
	struct axv *raw;
	char e[200];
	int at = 0;

	*out = NULL;
	axg_buf_init(&y, ANNOT_MAX_BYTES);
	if (!block_yaml(m, line, &y, &at)) {
		axg_buf_free(&y);
		return 0;
	}
	raw =
	    axv_yaml_decode(y.data != NULL ? y.data : "", y.len, e, sizeof(e));
	axg_buf_free(&y);
	if (raw != NULL && axv_kind(raw) == AXV_NULL) {
		axv_unref(raw);
		raw = axv_object_new(0);
	}
	if (raw == NULL || axv_kind(raw) != AXV_OBJECT) {
		snprintf(err, errlen, "METADATA block at %s:%d: %s",
		    m->file ? m->file : "", at,
		    raw == NULL ? e : "not a YAML mapping");
		axv_unref(raw);
		return -1;
	}
	*out = normalise(raw, def_scope);
	axv_unref(raw);
	return 0;
}

/* The names of a T_VAR or of the leading static part of a T_REF. */
static void
push_path(struct axv *arr, const struct ast_term *t)
{
	if (t == NULL)
		return;
	if (t->kind == T_VAR) {
		axv_array_push(arr, axv_cstr(t->name));
		return;
	}
	if (t->kind != T_REF || t->n == 0)
		return;
	if (t->items[0]->kind == T_VAR)
		axv_array_push(arr, axv_cstr(t->items[0]->name));
	for (size_t i = 1; i < t->n; i++) {
		const struct ast_term *p = t->items[i];

		if (p->kind != T_SCALAR || axv_kind(p->val) != AXV_STRING)
			break;
		axv_array_push(arr, axv_ref(p->val));
	}
}

static struct axv *
path_of(const struct ast_module *m, const struct ast_rule *r)
{
	struct axv *p = axv_array_new(4);

	push_path(p, m->package);
	if (r != NULL)
		push_path(p, r->ref);
	return p;
}

/* Is the array a a prefix of b (or equal to it)? */
static bool
is_prefix(const struct axv *a, const struct axv *b)
{
	if (axv_array_len(a) > axv_array_len(b))
		return false;
	for (size_t i = 0; i < axv_array_len(a); i++)
		if (!axv_equal(axv_array_get(a, i), axv_array_get(b, i)))
			return false;
	return true;
}

static void
chain_add(struct axv *chain, struct axv *path, struct axv *annot)
{
	struct axv *e = axv_object_new(2);

	axv_object_put(e, axv_cstr("path"), path);
	if (annot != NULL)
		axv_object_put(e, axv_cstr("annotations"), annot);
	axv_array_push(chain, e);
}

static bool
scope_is(const struct axv *a, const char *s)
{
	const struct axv *v = axv_object_gets(a, "scope");

	return v != NULL && axv_kind(v) == AXV_STRING &&
	    strcmp(axv_str(v), s) == 0;
}

int
axp_annot_for_rule(struct ast_module *const *mods, size_t nmods,
    const struct ast_module *m, const struct ast_rule *r, struct axv **rule,
    struct axv **chain, char *err, size_t errlen)
{
	struct axv *own = NULL, *rpath = path_of(m, r),
		   *ppath = path_of(m, NULL);
	struct axv *doc = NULL, *pkg = NULL, *subs = axv_array_new(0);
	int rc = -1;

	*rule = *chain = NULL;
	if (annot_at(m, r->loc.line, "rule", &own, err, errlen) < 0)
		goto out;
	if (own != NULL && !scope_is(own, "rule")) {
		if (scope_is(own, "document"))
			doc = own;
		else
			axv_unref(own);
		own = NULL;
	}
	for (size_t i = 0; i < nmods; i++) {
		const struct ast_module *o = mods[i];
		struct axv *op = path_of(o, NULL), *a = NULL;
		bool same = axv_equal(op, ppath);

		/* document scope: a block before another definition of the
		 * same rule */
		for (const struct ast_rule *x = o->rules;
		     same && doc == NULL && x != NULL; x = x->next) {
			struct axv *xp, *xa = NULL;

			if (x == r)
				continue;
			xp = path_of(o, x);
			if (axv_equal(xp, rpath) &&
			    annot_at(o, x->loc.line, "rule", &xa, err, errlen) <
				0) {
				axv_unref(xp);
				axv_unref(op);
				goto out;
			}
			if (xa != NULL && scope_is(xa, "document"))
				doc = xa;
			else
				axv_unref(xa);
			axv_unref(xp);
		}
		/* package and subpackages scopes: the block before the
		 * package clause of a module of this package or above */
		if (is_prefix(op, ppath) && o->package != NULL &&
		    annot_at(o, o->loc.line, "package", &a, err, errlen) < 0) {
			axv_unref(op);
			goto out;
		}
		if (a != NULL && same && pkg == NULL &&
		    scope_is(a, "package")) {
			pkg = a;
		} else if (a != NULL && scope_is(a, "subpackages")) {
			struct axv *e = axv_object_new(2);
			axv_object_put(e, axv_cstr("path"), axv_ref(op));
			axv_object_put(e, axv_cstr("annotations"), a);
			axv_array_push(subs, e);
		} else {
			axv_unref(a);
		}
		axv_unref(op);
	}
	*rule = own != NULL ? axv_ref(own) : axv_object_new(0);
	*chain = axv_array_new(4);
	chain_add(*chain, axv_ref(rpath), own);
	own = NULL;
	if (doc != NULL)
		chain_add(*chain, axv_ref(rpath), doc);
	doc = NULL;
	if (pkg != NULL)
		chain_add(*chain, axv_ref(ppath), pkg);
	pkg = NULL;
	/* the deepest subpackages first */
	for (size_t len = axv_array_len(ppath) + 1; len-- > 0;)
		for (size_t i = 0; i < axv_array_len(subs); i++) {
			struct axv *e = axv_array_get(subs, i);
			if (axv_array_len(axv_object_gets(e, "path")) == len)
				axv_array_push(*chain, axv_ref(e));
		}
	rc = 0;
out:
	axv_unref(own);
	axv_unref(doc);
	axv_unref(pkg);
	axv_unref(subs);
	axv_unref(rpath);
	axv_unref(ppath);
	return rc;
}
