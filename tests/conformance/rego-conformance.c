/*
 * rego-conformance: run OPA's YAML compliance cases against the engine.
 *
 *	rego-conformance [--todo FILE] [--write-todo FILE] [--filter SUBSTR]
 *	    [--summary] [--fmt] [--compile-errors] [-v] DIR
 *
 * One TAP line per case.  Cases listed in the todo manifest (as
 * "FILE: NOTE", FILE relative to DIR, and " #N" after the Nth case of a
 * file with the same note: notes repeat across and within files)
 * are reported as TODO (a listed case that passes is an XPASS, so the
 * manifest must be kept exact; it holds one note per line and nothing
 * else, and --write-todo regenerates it).  The last line is
 * "# rego conformance: P/T passed".
 *
 * A case with want_errors (OPA's compile-error cases: code, row, col,
 * message, and exhaustive) passes when compiling its modules reports
 * every wanted error exactly and, if exhaustive, no other.  With
 * --compile-errors every case must be one (OPA's compile-error suite), and
 * the last line says "compile-error cases".
 *
 * With --fmt every module that parses is first put through the formatter
 * (axgate policy fmt): the case fails unless the formatted module formats
 * to itself, and it runs on the formatted text, so the same manifest holds.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "policy/policy-int.h"
#include "policy/value.h"

/* One wanted compile error (a want_errors entry). */
struct werr {
	char *code;
	int row, col;
	char *message;
};

struct rcase {
	char *note;
	char *category;
	char *query;
	char **modules;
	size_t nmodules;
	struct axv *data;
	struct axv *input;
	char *input_term;
	struct axv *want; /* array of objects, or NULL */
	char *want_error_code;
	char *want_error;
	bool sort_bindings;
	bool strict_error;
	/* compile-error cases: want_errors, exhaustive, print_statements */
	struct werr *werrs;
	size_t nwerrs;
	bool has_werrs;
	bool exhaustive;
	bool print_statements;
};

struct cat {
	char *name;
	int pass, total;
};

static char **todo;
static size_t ntodo;
static struct cat *cats;
static size_t ncats;
static bool verbose;
static bool fmt_first;	    /* --fmt: format every module before compiling */
static bool compile_errors; /* --compile-errors: every case has want_errors */

/* ---- YAML to values ---- */
static bool
plain_number(const char *s)
{
	size_t n = strlen(s);
	struct axv *v;

	if (n == 0)
		return false;
	v = axv_number_parse(s, n);
	if (v == NULL)
		return false;
	axv_unref(v);
	return true;
}

static struct axv *
yaml_value(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	struct axv *v;
	yaml_node_item_t *it;
	yaml_node_pair_t *pr;

	if (n == NULL || depth > 200)
		return axv_null();
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		const char *s = (const char *)n->data.scalar.value;
		size_t len = n->data.scalar.length;
		if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return axv_string(s, len);
		if (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
		    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0)
			return axv_null();
		if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 ||
		    strcmp(s, "TRUE") == 0)
			return axv_bool(true);
		if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 ||
		    strcmp(s, "FALSE") == 0)
			return axv_bool(false);
		if (plain_number(s))
			return axv_number_parse(s, len);
		return axv_string(s, len);
	}
	case YAML_SEQUENCE_NODE:
		v = axv_array_new(0);
		for (it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++)
			axv_array_push(v,
			    yaml_value(doc, yaml_document_get_node(doc, *it),
				depth + 1));
		return v;
	case YAML_MAPPING_NODE:
		v = axv_object_new(0);
		for (pr = n->data.mapping.pairs.start;
		     pr < n->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(doc, pr->key);
			struct axv *kv = k && k->type == YAML_SCALAR_NODE
			    ? axv_string((const char *)k->data.scalar.value,
				  k->data.scalar.length)
			    : yaml_value(doc, k, depth + 1);
			axv_object_put(v, kv,
			    yaml_value(doc,
				yaml_document_get_node(doc, pr->value),
				depth + 1));
		}
		return v;
	default:
		return axv_null();
	}
}

static char *
scalar_str(yaml_node_t *n)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE)
		return NULL;
	return axg_strndup((const char *)n->data.scalar.value,
	    n->data.scalar.length);
}

static bool
scalar_true(yaml_node_t *v)
{
	char *s = scalar_str(v);
	bool t = s && strcmp(s, "true") == 0;

	free(s);
	return t;
}

static int
scalar_int(yaml_node_t *v)
{
	char *s = scalar_str(v);
	uint64_t n = 0;

	if (s == NULL || axg_parse_u64(s, 0, 1000000, &n) < 0)
		n = 0;
	free(s);
	return (int)n;
}

/* want_errors: a sequence of {code, row, col, message}. */
static void
werrs_read(yaml_document_t *doc, yaml_node_t *v, struct rcase *c)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *pr;

	c->has_werrs = true;
	if (v == NULL || v->type != YAML_SEQUENCE_NODE)
		return;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *m = yaml_document_get_node(doc, *it);
		struct werr *w;
		if (m == NULL || m->type != YAML_MAPPING_NODE)
			continue;
		c->werrs = axg_reallocarray(c->werrs, c->nwerrs + 1,
		    sizeof(*c->werrs));
		w = &c->werrs[c->nwerrs++];
		memset(w, 0, sizeof(*w));
		for (pr = m->data.mapping.pairs.start;
		     pr < m->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(doc, pr->key);
			yaml_node_t *x = yaml_document_get_node(doc, pr->value);
			const char *key;
			if (k == NULL || k->type != YAML_SCALAR_NODE)
				continue;
			key = (const char *)k->data.scalar.value;
			if (strcmp(key, "code") == 0) {
				free(w->code);
				w->code = scalar_str(x);
			} else if (strcmp(key, "message") == 0) {
				free(w->message);
				w->message = scalar_str(x);
			} else if (strcmp(key, "row") == 0)
				w->row = scalar_int(x);
			else if (strcmp(key, "col") == 0)
				w->col = scalar_int(x);
		}
		if (w->code == NULL)
			w->code = axg_strdup("");
		if (w->message == NULL)
			w->message = axg_strdup("");
	}
}

static void
case_free(struct rcase *c)
{
	size_t i;

	free(c->note);
	free(c->category);
	free(c->query);
	for (i = 0; i < c->nmodules; i++)
		free(c->modules[i]);
	free(c->modules);
	axv_unref(c->data);
	axv_unref(c->input);
	free(c->input_term);
	axv_unref(c->want);
	free(c->want_error_code);
	free(c->want_error);
	for (i = 0; i < c->nwerrs; i++) {
		free(c->werrs[i].code);
		free(c->werrs[i].message);
	}
	free(c->werrs);
	memset(c, 0, sizeof(*c));
}

static void
case_read(yaml_document_t *doc, yaml_node_t *m, const char *category,
    struct rcase *c)
{
	yaml_node_pair_t *pr;

	memset(c, 0, sizeof(*c));
	c->category = axg_strdup(category);
	for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(doc, pr->value);
		const char *key;
		if (k == NULL || k->type != YAML_SCALAR_NODE)
			continue;
		key = (const char *)k->data.scalar.value;
		if (strcmp(key, "note") == 0)
			c->note = scalar_str(v);
		else if (strcmp(key, "query") == 0)
			c->query = scalar_str(v);
		else if (strcmp(key, "modules") == 0 &&
		    v->type == YAML_SEQUENCE_NODE) {
			yaml_node_item_t *it;
			for (it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				c->modules = axg_reallocarray(c->modules,
				    c->nmodules + 1, sizeof(char *));
				c->modules[c->nmodules++] = scalar_str(
				    yaml_document_get_node(doc, *it));
				if (c->modules[c->nmodules - 1] == NULL)
					c->modules[c->nmodules - 1] =
					    axg_strdup("");
			}
		} else if (strcmp(key, "data") == 0)
			c->data = yaml_value(doc, v, 0);
		else if (strcmp(key, "input") == 0)
			c->input = yaml_value(doc, v, 0);
		else if (strcmp(key, "input_term") == 0)
			c->input_term = scalar_str(v);
		else if (strcmp(key, "want_result") == 0)
			c->want = yaml_value(doc, v, 0);
		else if (strcmp(key, "want_error_code") == 0)
			c->want_error_code = scalar_str(v);
		else if (strcmp(key, "want_error") == 0)
			c->want_error = scalar_str(v);
		else if (strcmp(key, "sort_bindings") == 0) {
			char *s = scalar_str(v);
			c->sort_bindings = s && strcmp(s, "true") == 0;
			free(s);
		} else if (strcmp(key, "strict_error") == 0) {
			char *s = scalar_str(v);
			c->strict_error = s && strcmp(s, "true") == 0;
			free(s);
		} else if (strcmp(key, "want_errors") == 0)
			werrs_read(doc, v, c);
		else if (strcmp(key, "exhaustive") == 0)
			c->exhaustive = scalar_true(v);
		else if (strcmp(key, "print_statements") == 0)
			c->print_statements = scalar_true(v);
	}
	if (c->note == NULL)
		c->note = axg_strdup("(no note)");
}

/* ---- comparing results ---- */
static struct axv *
json_form(struct axv *v)
{
	char *s = axv_json_str(v);
	struct axv *r = axv_from_json(s, strlen(s), NULL, NULL, 0);

	free(s);
	return r;
}

static int
cmp_vals(const void *a, const void *b)
{
	return axv_compare(*(struct axv *const *)a, *(struct axv *const *)b);
}

static struct axv *
sorted_array(struct axv *arr)
{
	size_t n = axv_array_len(arr), i;
	struct axv **e = axg_calloc(n + 1, sizeof(*e)), *r;

	for (i = 0; i < n; i++)
		e[i] = axv_array_get(arr, i);
	qsort(e, n, sizeof(*e), cmp_vals);
	r = axv_array_new(n);
	for (i = 0; i < n; i++)
		axv_array_push(r, axv_ref(e[i]));
	free(e);
	return r;
}

/* Normalise a result set: JSON form, bindings sorted if asked, rows
 * sorted. */
static struct axv *
normalise(struct axv *rows, bool sort_bindings)
{
	struct axv *j = json_form(rows), *out, *r;
	size_t i, k;

	if (j == NULL || axv_kind(j) != AXV_ARRAY) {
		axv_unref(j);
		return axv_array_new(0);
	}
	out = axv_array_new(axv_array_len(j));
	for (i = 0; i < axv_array_len(j); i++) {
		struct axv *row = axv_array_get(j, i), *nr;
		if (!sort_bindings || axv_kind(row) != AXV_OBJECT) {
			axv_array_push(out, axv_ref(row));
			continue;
		}
		nr = axv_object_new(0);
		for (k = 0; k < axv_object_len(row); k++) {
			struct axv *v = axv_object_val(row, k);
			axv_object_put(nr, axv_ref(axv_object_key(row, k)),
			    axv_kind(v) == AXV_ARRAY ? sorted_array(v)
						     : axv_ref(v));
		}
		axv_array_push(out, nr);
	}
	axv_unref(j);
	r = sorted_array(out);
	axv_unref(out);
	return r;
}

static bool
werr_matches(const struct werr *w, const struct axp_error *e)
{
	return strcmp(w->code, axp_errcode_str(e->code)) == 0 &&
	    w->row == e->line && w->col == e->col &&
	    strcmp(w->message, e->message ? e->message : "") == 0;
}

/* A compile-error case: the modules must fail to compile with every
 * wanted error (same code, row, col and message) and, if the case is
 * exhaustive, no other. */
static bool
run_compile_case(const struct rcase *c, char *why, size_t whylen)
{
	struct axp_compiler *comp = axp_compiler_new();
	struct axp_policy *pol = NULL;
	size_t i, j, n, l;
	char name[32];
	bool passed = true;

	for (i = 0; i < c->nmodules; i++) {
		snprintf(name, sizeof(name), "test-%zu.rego", i);
		axp_compiler_add_module(comp, name, c->modules[i],
		    strlen(c->modules[i]));
	}
	if (comp->diags.n == 0)
		pol = axp_compiler_compile(comp);
	if (pol != NULL) {
		snprintf(why, whylen, "compiled, wanted %zu error(s)",
		    c->nwerrs);
		axp_policy_free(pol);
		axp_compiler_free(comp);
		return false;
	}
	n = axp_compiler_error_count(comp);
	for (i = 0; i < c->nwerrs; i++) {
		bool found = false;
		for (j = 0; j < n && !found; j++)
			found = werr_matches(&c->werrs[i],
			    axp_compiler_error(comp, j));
		if (!found)
			passed = false;
	}
	for (j = 0; j < n && c->exhaustive; j++) {
		bool wanted = false;
		for (i = 0; i < c->nwerrs && !wanted; i++)
			wanted = werr_matches(&c->werrs[i],
			    axp_compiler_error(comp, j));
		if (!wanted)
			passed = false;
	}
	if (!passed) {
		snprintf(why, whylen, "got:");
		for (j = 0; j < n; j++) {
			const struct axp_error *e = axp_compiler_error(comp, j);
			l = strlen(why);
			snprintf(why + l, whylen - l, " [%s %d:%d %s]",
			    axp_errcode_str(e->code), e->line, e->col,
			    e->message ? e->message : "");
		}
		l = strlen(why);
		snprintf(why + l, whylen - l,
		    " want%s:", c->exhaustive ? " exactly" : "");
		for (i = 0; i < c->nwerrs; i++) {
			l = strlen(why);
			snprintf(why + l, whylen - l, " [%s %d:%d %s]",
			    c->werrs[i].code, c->werrs[i].row, c->werrs[i].col,
			    c->werrs[i].message);
		}
	}
	axp_compiler_free(comp);
	return passed;
}

/* Run one case; true if it passed.  why gets a short reason. */
static bool
run_case(const struct rcase *c, char *why, size_t whylen)
{
	struct axp_compiler *comp;
	struct axp_policy *pol = NULL;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *input = NULL, *res = NULL;
	struct axp_eval_opts opts;
	bool want_err = c->want_error_code || c->want_error, passed = false;
	size_t i;
	char name[32];
	const char *ecode = NULL, *emsg = NULL;
	char full[1024];

	if (c->has_werrs)
		return run_compile_case(c, why, whylen);
	if (compile_errors) {
		snprintf(why, whylen, "case has no want_errors");
		return false;
	}
	comp = axp_compiler_new();
	memset(&err, 0, sizeof(err));
	for (i = 0; i < c->nmodules; i++) {
		struct axg_buf f1, f2;
		char ferr[512];

		snprintf(name, sizeof(name), "test-%zu.rego", i);
		axg_buf_init(&f1, 0);
		axg_buf_init(&f2, 0);
		if (fmt_first &&
		    axp_fmt_module(name, c->modules[i], strlen(c->modules[i]),
			&f1, ferr, sizeof(ferr)) == 0) {
			/* the formatted module must format to itself and
			 * mean the same: the case runs on it */
			if (axp_fmt_module(name, f1.data, f1.len, &f2, ferr,
				sizeof(ferr)) < 0 ||
			    f1.len != f2.len ||
			    memcmp(f1.data, f2.data, f1.len) != 0) {
				snprintf(why, whylen,
				    "fmt: module %zu formats differently the "
				    "second time:\n%s\n---\n%s",
				    i, f1.data, f2.len ? f2.data : ferr);
				axg_buf_free(&f1);
				axg_buf_free(&f2);
				axp_compiler_free(comp);
				return false;
			}
			axp_compiler_add_module(comp, name, f1.data, f1.len);
		} else {
			axp_compiler_add_module(comp, name, c->modules[i],
			    strlen(c->modules[i]));
		}
		axg_buf_free(&f1);
		axg_buf_free(&f2);
	}
	if (c->data != NULL && axv_kind(c->data) == AXV_OBJECT)
		comp->data = axv_ref(c->data);
	if (comp->diags.n == 0)
		pol = axp_compiler_compile(comp);
	if (pol == NULL) {
		const struct axp_error *e = axp_compiler_error(comp, 0);
		ecode = e ? axp_errcode_str(e->code) : "?";
		emsg = e ? e->message : "?";
		snprintf(why, whylen, "compile: %s:%d:%d: %s: %s",
		    e ? e->file : "", e ? e->line : 0, e ? e->col : 0, ecode,
		    emsg);
		goto check_error;
	}
	q = axp_query_prepare(pol, c->query ? c->query : "", &err);
	if (q == NULL) {
		ecode = axp_errcode_str(err.code);
		emsg = err.message ? err.message : "";
		snprintf(why, whylen, "query: %d:%d: %s: %s", err.line, err.col,
		    ecode, emsg);
		goto check_error;
	}
	if (c->input_term != NULL) {
		struct ast_arena *a = ast_arena_new();
		struct axp_diags ds = { NULL, 0, 0 };
		struct ast_term *t = ast_parse_term(a, c->input_term,
		    strlen(c->input_term), &ds);
		input = t ? axp_const_term(t) : NULL;
		axp_diags_free(&ds);
		ast_arena_free(a);
		if (input == NULL) {
			snprintf(why, whylen, "bad input_term");
			goto out;
		}
	} else if (c->input != NULL) {
		input = axv_ref(c->input);
	}
	memset(&opts, 0, sizeof(opts));
	opts.strict = c->strict_error;
	if (axp_eval(q, input, &opts, &res, &err) < 0) {
		ecode = axp_errcode_str(err.code);
		/* OPA's text of an evaluation error: "file:line: code: msg" */
		if (err.file != NULL && err.file[0] != '\0' && err.line > 0)
			snprintf(full, sizeof(full), "%s:%d: %s: %s", err.file,
			    err.line, ecode, err.message ? err.message : "");
		else
			snprintf(full, sizeof(full), "%s",
			    err.message ? err.message : "");
		emsg = full;
		snprintf(why, whylen, "eval: %s: %.700s", ecode, emsg);
		goto check_error;
	}
	if (want_err) {
		char *s = axv_json_str(res);
		snprintf(why, whylen, "wanted an error, got %.300s", s);
		free(s);
		goto out;
	}
	if (c->want == NULL) {
		snprintf(why, whylen, "case has no want_result");
		goto out;
	}
	{
		struct axv *g = normalise(res, c->sort_bindings);
		struct axv *w = normalise(c->want, c->sort_bindings);
		passed = axv_equal(g, w);
		if (!passed) {
			char *gs = axv_json_str(g), *ws = axv_json_str(w);
			snprintf(why, whylen, "got %.400s want %.400s", gs, ws);
			free(gs);
			free(ws);
		}
		axv_unref(g);
		axv_unref(w);
	}
	goto out;
check_error:
	if (!want_err)
		goto out;
	passed = true;
	if (c->want_error_code && strcmp(c->want_error_code, ecode) != 0)
		passed = false;
	if (c->want_error && strstr(emsg, c->want_error) == NULL)
		passed = false;
	if (!passed) {
		size_t l = strlen(why);
		snprintf(why + l, whylen - l, " (want %s: %s)",
		    c->want_error_code ? c->want_error_code : "",
		    c->want_error ? c->want_error : "");
	}
out:
	axp_error_clear(&err);
	axv_unref(input);
	axv_unref(res);
	axp_query_free(q);
	axp_policy_free(pol);
	axp_compiler_free(comp);
	return passed;
}

/* ---- files ---- */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
list_files(const char *dir, char ***files, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *p;
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		p = axg_asprintf("%s/%s", dir, de->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			list_files(p, files, n);
			free(p);
		} else if (axg_endswith(p, ".yaml") ||
		    axg_endswith(p, ".yml")) {
			*files =
			    axg_reallocarray(*files, *n + 1, sizeof(char *));
			(*files)[(*n)++] = p;
		} else {
			free(p);
		}
	}
	closedir(d);
}

static bool
in_todo(const char *note)
{
	size_t lo = 0, hi = ntodo;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(todo[mid], note);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void
read_todo(const char *path)
{
	char err[256], *text, *line, *save = NULL;
	size_t len;

	text = axg_read_file(path, 16 << 20, &len, err, sizeof(err));
	if (text == NULL) {
		fprintf(stderr, "rego-conformance: %s\n", err);
		exit(2);
	}
	for (line = text; line != NULL && *line; line = save) {
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (*line == '\0')
			continue;
		todo = axg_reallocarray(todo, ntodo + 1, sizeof(*todo));
		todo[ntodo++] = axg_strdup(line);
	}
	free(text);
	if (ntodo > 1) /* an empty list is no array at all */
		qsort(todo, ntodo, sizeof(*todo), cmp_str);
}

static struct cat *
cat_get(const char *name)
{
	size_t i;

	for (i = 0; i < ncats; i++)
		if (strcmp(cats[i].name, name) == 0)
			return &cats[i];
	cats = axg_reallocarray(cats, ncats + 1, sizeof(*cats));
	cats[ncats].name = axg_strdup(name);
	cats[ncats].pass = cats[ncats].total = 0;
	return &cats[ncats++];
}

/* TAP descriptions must not hold '#' (a directive) or newlines. */
static void
tap_desc(const char *note, char *out, size_t n)
{
	size_t i, j = 0;

	for (i = 0; note[i] && j + 1 < n; i++)
		out[j++] = note[i] == '#' || note[i] == '\n' ? '_' : note[i];
	out[j] = '\0';
}

int
main(int argc, char **argv)
{
	const char *dir = NULL, *todo_path = NULL, *write_todo = NULL,
		   *filter = NULL;
	bool summary = false;
	char **files = NULL;
	size_t nfiles = 0, f, i;
	int num = 0, pass = 0;
	FILE *wt = NULL;

	for (i = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--todo") == 0 && i + 1 < (size_t)argc)
			todo_path = argv[++i];
		else if (strcmp(argv[i], "--write-todo") == 0 &&
		    i + 1 < (size_t)argc)
			write_todo = argv[++i];
		else if (strcmp(argv[i], "--filter") == 0 &&
		    i + 1 < (size_t)argc)
			filter = argv[++i];
		else if (strcmp(argv[i], "--summary") == 0)
			summary = true;
		else if (strcmp(argv[i], "-v") == 0)
			verbose = true;
		else if (strcmp(argv[i], "--fmt") == 0)
			fmt_first = true;
		else if (strcmp(argv[i], "--compile-errors") == 0)
			compile_errors = true;
		else if (argv[i][0] == '-') {
			fprintf(stderr,
			    "usage: rego-conformance [--todo FILE] "
			    "[--write-todo FILE] [--filter SUBSTR] "
			    "[--summary] [--fmt] [--compile-errors] [-v] "
			    "DIR\n");
			return 2;
		} else
			dir = argv[i];
	}
	if (dir == NULL) {
		fprintf(stderr, "rego-conformance: no case folder given\n");
		return 2;
	}
	if (todo_path)
		read_todo(todo_path);
	if (write_todo && (wt = fopen(write_todo, "w")) == NULL) {
		fprintf(stderr, "rego-conformance: %s: %s\n", write_todo,
		    strerror(errno));
		return 2;
	}
	list_files(dir, &files, &nfiles);
	qsort(files, nfiles, sizeof(*files), cmp_str);
	for (f = 0; f < nfiles; f++) {
		FILE *fp = fopen(files[f], "rb");
		yaml_parser_t parser;
		yaml_document_t doc;
		yaml_node_t *root, *cs = NULL;
		yaml_node_pair_t *pr;
		yaml_node_item_t *it;
		char category[256];
		const char *rel = files[f] + strlen(dir);
		const char *slash;

		while (*rel == '/')
			rel++;
		slash = strchr(rel, '/');
		snprintf(category, sizeof(category), "%.*s",
		    slash ? (int)(slash - rel) : (int)strlen(rel), rel);
		if (fp == NULL)
			continue;
		yaml_parser_initialize(&parser);
		yaml_parser_set_input_file(&parser, fp);
		if (!yaml_parser_load(&parser, &doc)) {
			printf("not ok %d - %s: YAML error\n", ++num, rel);
			yaml_parser_delete(&parser);
			fclose(fp);
			continue;
		}
		root = yaml_document_get_root_node(&doc);
		if (root && root->type == YAML_MAPPING_NODE)
			for (pr = root->data.mapping.pairs.start;
			     pr < root->data.mapping.pairs.top; pr++) {
				yaml_node_t *k =
				    yaml_document_get_node(&doc, pr->key);
				if (k && k->type == YAML_SCALAR_NODE &&
				    strcmp((char *)k->data.scalar.value,
					"cases") == 0)
					cs = yaml_document_get_node(&doc,
					    pr->value);
			}
		if (cs && cs->type == YAML_SEQUENCE_NODE) {
			/* Notes seen in this file, to number repeats. */
			char **seen = NULL;
			size_t nseen = 0;

			for (it = cs->data.sequence.items.start;
			     it < cs->data.sequence.items.top; it++) {
				yaml_node_t *m =
				    yaml_document_get_node(&doc, *it);
				struct rcase c;
				char why[1024] = "", desc[512];
				bool ok, listed;
				struct cat *ct;
				char *key;
				if (m == NULL || m->type != YAML_MAPPING_NODE)
					continue;
				case_read(&doc, m, category, &c);
				if (filter && strstr(c.note, filter) == NULL) {
					case_free(&c);
					continue;
				}
				ok = run_case(&c, why, sizeof(why));
				/* Notes repeat across files: the manifest names
				 * a case by its file and its note. */
				{
					int rep = 1;

					for (size_t k = 0; k < nseen; k++)
						rep += strcmp(seen[k],
							   c.note) == 0;
					seen = axg_reallocarray(seen, nseen + 1,
					    sizeof(*seen));
					seen[nseen++] = axg_strdup(c.note);
					key = rep == 1
					    ? axg_asprintf("%s: %s", rel,
						  c.note)
					    : axg_asprintf("%s: %s #%d", rel,
						  c.note, rep);
				}
				listed = in_todo(key);
				tap_desc(c.note, desc, sizeof(desc));
				num++;
				ct = cat_get(category);
				ct->total++;
				if (ok) {
					pass++;
					ct->pass++;
					printf("ok %d - %s%s\n", num, desc,
					    listed ? " # TODO" : "");
				} else {
					printf("not ok %d - %s%s\n", num, desc,
					    listed ? " # TODO unsupported"
						   : "");
					if (!listed || verbose)
						printf("# %s\n", why);
					if (wt)
						fprintf(wt, "%s\n", key);
				}
				free(key);
				case_free(&c);
			}
			for (size_t k = 0; k < nseen; k++)
				free(seen[k]);
			free(seen);
		}
		yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
		fclose(fp);
	}
	if (summary)
		for (i = 0; i < ncats; i++)
			printf("# %-40s %d/%d\n", cats[i].name, cats[i].pass,
			    cats[i].total);
	printf("1..%d\n", num);
	if (compile_errors)
		printf("# rego conformance: %d/%d compile-error cases passed\n",
		    pass, num);
	else
		printf("# rego conformance: %d/%d passed\n", pass, num);
	if (wt)
		fclose(wt);
	for (f = 0; f < nfiles; f++)
		free(files[f]);
	free(files);
	for (i = 0; i < ntodo; i++)
		free(todo[i]);
	free(todo);
	for (i = 0; i < ncats; i++)
		free(cats[i].name);
	free(cats);
	return 0;
}
