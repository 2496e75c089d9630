/* The parser's template-string variables are numbered per parse: parsing
 * the same module twice gives the same names (no process-wide counter,
 * so two threads may parse at once). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ast.h"
#include "tests/tap.h"

static const char src[] = "package p\n"
			  "x := $\"a{1}b{$\"c{2}\"}d{3}\"\n";

/* The template variables of a term, in order, joined by ','. */
static void
collect(const struct ast_term *t, struct axg_buf *out)
{
	if (t == NULL)
		return;
	if (t->kind == T_ARRAY_COMPR && t->key != NULL &&
	    t->key->kind == T_VAR && strncmp(t->key->name, "_$t", 3) == 0) {
		if (out->len > 0)
			axg_buf_putc(out, ',');
		axg_buf_puts(out, t->key->name);
	}
	for (size_t i = 0; i < t->n; i++)
		collect(t->items[i], out);
	collect(t->key, out);
	collect(t->value, out);
	if (t->body != NULL)
		for (size_t i = 0; i < t->body->n; i++) {
			collect(t->body->e[i]->a, out);
			collect(t->body->e[i]->b, out);
		}
}

static char *
tmpl_vars(void)
{
	struct ast_arena *a = ast_arena_new();
	struct axp_diags ds = { 0 };
	struct ast_module *m =
	    ast_parse_module(a, "t.rego", src, strlen(src), NULL, &ds);
	struct axg_buf out = AXG_BUF_INIT;

	if (m != NULL && m->rules != NULL)
		collect(m->rules->value, &out);
	axp_diags_free(&ds);
	ast_arena_free(a);
	return axg_buf_steal(&out, NULL);
}

static void *
worker(void *arg)
{
	char **res = arg;

	for (int i = 0; i < 200; i++) {
		char *s = tmpl_vars();

		if (i == 0)
			*res = s;
		else if (strcmp(s, *res) != 0) {
			free(*res);
			*res = s;
			break;
		} else
			free(s);
	}
	return NULL;
}

int
main(void)
{
	char *first = tmpl_vars(), *second = tmpl_vars();
	char *res[4] = { NULL };
	pthread_t th[4];
	bool same = true;

	ok(first[0] != '\0', "the template variables are found (%s)", first);
	like_str(first, "_$t", "they are named _$tN");
	is_str(second, first, "a second parse names them the same");
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, &res[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		if (res[i] == NULL || strcmp(res[i], first) != 0)
			same = false;
		free(res[i]);
	}
	ok(same, "four threads parsing at once get the same names");
	free(first);
	free(second);
	return tap_done();
}
