/* api.c: the public libaxpolicy functions (axpolicy.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"

void axp_policy_free_int(struct axp_policy *p);

struct axp_compiler *
axp_compiler_new(void)
{
	struct axp_compiler *c = axg_calloc(1, sizeof(*c));

	c->arena = ast_arena_new();
	return c;
}

void
axp_compiler_free(struct axp_compiler *c)
{
	if (c == NULL)
		return;
	ast_arena_free(c->arena);
	free(c->mods);
	axv_unref(c->data);
	axp_diags_free(&c->diags);
	free(c);
}

int
axp_compiler_add_module(struct axp_compiler *c, const char *name,
    const char *src, size_t len)
{
	struct ast_module *m;
	char *copy = ast_strndup(c->arena, src, len);

	m = ast_parse_module(c->arena, name, copy, len, NULL, &c->diags);
	if (m == NULL)
		return -1;
	if (c->nmods == c->capmods) {
		c->capmods = c->capmods ? c->capmods * 2 : 8;
		c->mods =
		    axg_reallocarray(c->mods, c->capmods, sizeof(*c->mods));
	}
	c->mods[c->nmods++] = m;
	return 0;
}

int
axp_compiler_set_data_json(struct axp_compiler *c, const char *json, size_t len)
{
	char err[256];
	struct axv *v = axv_from_json(json, len, NULL, err, sizeof(err));

	if (v == NULL) {
		axp_diags_add(&c->diags, NULL, AXP_ERR_INVALID, "data: %s",
		    err);
		return -1;
	}
	if (axv_kind(v) != AXV_OBJECT) {
		axv_unref(v);
		axp_diags_add(&c->diags, NULL, AXP_ERR_INVALID,
		    "data: must be an object");
		return -1;
	}
	axv_unref(c->data);
	c->data = v;
	return 0;
}

struct axp_policy *
axp_compiler_compile(struct axp_compiler *c)
{
	struct axp_policy *p;

	if (c->diags.n > 0)
		return NULL;
	p = axp_compile(c->mods, c->nmods, c->data, c->arena, &c->diags,
	    c->flags);
	if (p == NULL)
		return NULL;
	/* the policy owns the arena (AST and IR) now */
	c->arena = ast_arena_new();
	c->nmods = 0;
	return p;
}

void
axp_compiler_set_flags(struct axp_compiler *c, unsigned flags)
{
	c->flags = flags;
}

size_t
axp_compiler_error_count(const struct axp_compiler *c)
{
	return c->diags.n;
}

const struct axp_error *
axp_compiler_error(const struct axp_compiler *c, size_t i)
{
	return i < c->diags.n ? &c->diags.d[i] : NULL;
}

void
axp_policy_free(struct axp_policy *p)
{
	axp_policy_free_int(p);
}

static void
fill_err(struct axp_error *err, const struct axp_error *from)
{
	if (err == NULL)
		return;
	err->code = from->code;
	err->line = from->line;
	err->col = from->col;
	err->file = axg_strdup(from->file ? from->file : "");
	err->message = axg_strdup(from->message ? from->message : "");
}

struct axp_query *
axp_query_prepare(struct axp_policy *p, const char *query,
    struct axp_error *err)
{
	struct ast_arena *a = ast_arena_new();
	struct axp_diags ds = { NULL, 0, 0 };
	struct ast_body *b;
	struct axp_query *q = NULL;

	if (err)
		memset(err, 0, sizeof(*err));
	b = ast_parse_query(a, query, strlen(query), NULL, &ds);
	if (b != NULL)
		q = axp_compile_query(p, b, a, &ds);
	if (q == NULL) {
		if (ds.n > 0)
			fill_err(err, &ds.d[0]);
		axp_diags_free(&ds);
		ast_arena_free(a);
		return NULL;
	}
	axp_diags_free(&ds);
	return q;
}

void
axp_query_free(struct axp_query *q)
{
	if (q == NULL)
		return;
	ast_arena_free(q->arena);
	free(q);
}

int
axp_query_eval_json(const struct axp_query *q, const char *input, size_t len,
    char **result, struct axp_error *err)
{
	struct axv *in = NULL, *res = NULL, *ex = NULL, *out;
	char msg[256];
	size_t i;
	int rc;

	*result = NULL;
	if (err)
		memset(err, 0, sizeof(*err));
	if (input != NULL) {
		in = axv_from_json(input, len, NULL, msg, sizeof(msg));
		if (in == NULL) {
			if (err) {
				err->code = AXP_ERR_INVALID;
				err->file = axg_strdup("input");
				err->message = axg_strdup(msg);
			}
			return -1;
		}
	}
	rc = axp_eval_exprs(q, in, NULL, &res, &ex, err);
	axv_unref(in);
	if (rc < 0)
		return -1;
	out = axv_array_new(axv_array_len(res));
	for (i = 0; i < axv_array_len(res); i++) {
		struct axv *row = axv_object_new(2);
		axv_object_put(row, axv_cstr("bindings"),
		    axv_ref(axv_array_get(res, i)));
		axv_object_put(row, axv_cstr("expressions"),
		    axv_ref(axv_array_get(ex, i)));
		axv_array_push(out, row);
	}
	*result = axv_json_str(out);
	axv_unref(out);
	axv_unref(res);
	axv_unref(ex);
	return 0;
}

void
axp_error_clear(struct axp_error *err)
{
	if (err == NULL)
		return;
	free(err->file);
	free(err->message);
	memset(err, 0, sizeof(*err));
}
