/* ast.c: the arena that holds a parse, and located diagnostics. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ast.h"

struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct ast_arena {
	struct chunk *chunks;
	struct axv **vals;
	size_t nvals, capvals;
};

struct ast_arena *
ast_arena_new(void)
{
	return axg_calloc(1, sizeof(struct ast_arena));
}

void
ast_arena_free(struct ast_arena *a)
{
	struct chunk *c, *n;
	size_t i;

	if (a == NULL)
		return;
	for (c = a->chunks; c != NULL; c = n) {
		n = c->next;
		free(c);
	}
	for (i = 0; i < a->nvals; i++)
		axv_unref(a->vals[i]);
	free(a->vals);
	free(a);
}

void *
ast_alloc(struct ast_arena *a, size_t n)
{
	struct chunk *c = a->chunks;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (c == NULL || c->size - c->used < n) {
		size_t size = n > 16384 ? n : 16384;
		c = axg_malloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = a->chunks;
		a->chunks = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *
ast_strndup(struct ast_arena *a, const char *s, size_t n)
{
	char *p = ast_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

struct axv *
ast_keep(struct ast_arena *a, struct axv *v)
{
	if (a->nvals == a->capvals) {
		a->capvals = a->capvals ? a->capvals * 2 : 64;
		a->vals =
		    axg_reallocarray(a->vals, a->capvals, sizeof(*a->vals));
	}
	a->vals[a->nvals++] = v;
	return v;
}

void
axp_diags_add(struct axp_diags *ds, const struct ast_loc *loc, int code,
    const char *fmt, ...)
{
	struct axp_error *d;
	va_list ap;
	char msg[512];

	if (ds == NULL)
		return;
	if (ds->n == ds->cap) {
		ds->cap = ds->cap ? ds->cap * 2 : 8;
		ds->d = axg_reallocarray(ds->d, ds->cap, sizeof(*ds->d));
	}
	d = &ds->d[ds->n++];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->message = axg_strdup(msg);
	d->file = axg_strdup(loc && loc->file ? loc->file : "");
	d->line = loc ? loc->line : 0;
	d->col = loc ? loc->col : 0;
	d->code = (enum axp_errcode)code;
}

void
axp_diags_free(struct axp_diags *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++) {
		free(ds->d[i].message);
		free(ds->d[i].file);
	}
	free(ds->d);
	memset(ds, 0, sizeof(*ds));
}
