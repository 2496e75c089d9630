/* Unit tests of graph.reachable_paths, json.match_schema/verify_schema,
 * strings.render_template and http.send: results beyond the conformance
 * cases, and the bounds that end hostile arguments with an error. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"
#include "tests/tap.h"

/* Evaluate the expression x in "p := x"; the JSON result or the error. */
static char *
eval(const char *expr)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *res = NULL;
	struct axp_eval_opts o;
	char *src = axg_asprintf("package t\n\np := %s\n", expr);
	char *out;

	memset(&err, 0, sizeof(err));
	axp_compiler_add_module(c, "t.rego", src, strlen(src));
	p = axp_compiler_compile(c);
	if (p == NULL) {
		const struct axp_error *e = axp_compiler_error(c, 0);
		out = axg_asprintf("compile %s", e ? e->message : "?");
		goto done;
	}
	q = axp_query_prepare(p, "x = data.t.p", &err);
	if (q == NULL) {
		out = axg_asprintf("query %s", err.message);
		axp_error_clear(&err);
		goto done;
	}
	memset(&o, 0, sizeof(o));
	o.strict = true;
	if (axp_eval(q, NULL, &o, &res, &err) < 0) {
		out = axg_asprintf("error %s %s", axp_errcode_str(err.code),
		    err.message);
		axp_error_clear(&err);
	} else {
		out = axv_json_str(res);
	}
	axv_unref(res);
	axp_query_free(q);
done:
	axp_policy_free(p);
	axp_compiler_free(c);
	free(src);
	return out;
}

static void
check(const char *expr, const char *want, const char *name)
{
	char *got = eval(expr);

	is_str(got, want, "%s", name);
	free(got);
}

static void
check_like(const char *expr, const char *want, const char *name)
{
	char *got = eval(expr);

	like_str(got, want, "%s", name);
	free(got);
}

int
main(void)
{
	struct axg_buf g;

	/* reachable_paths */
	check("graph.reachable_paths({\"a\": [\"b\"], \"b\": []}, [\"a\"])",
	    "[{\"x\":[[\"a\",\"b\"]]}]", "reachable_paths: one path");
	/* a complete graph of 9 vertices has 9! simple paths: bounded */
	axg_buf_init(&g, 0);
	axg_buf_puts(&g, "graph.reachable_paths({");
	for (int i = 0; i < 9; i++) {
		axg_buf_printf(&g, "%s\"%d\": [", i ? ", " : "", i);
		for (int j = 0; j < 9; j++)
			axg_buf_printf(&g, "%s\"%d\"", j ? ", " : "", j);
		axg_buf_puts(&g, "]");
	}
	axg_buf_puts(&g, "}, [\"0\"])");
	check_like(g.data, "more than 100000 steps",
	    "reachable_paths: a path explosion ends with an error");
	axg_buf_free(&g);

	/* json schema */
	check("json.match_schema({\"a\": 1}, {\"required\": [\"b\"]})",
	    "[{\"x\":[false,[{\"desc\":\"b is required\",\"error\":\"(root): b "
	    "is required\",\"field\":\"(root)\",\"type\":\"required\"}]]}]",
	    "match_schema: a missing required property");
	check("json.match_schema([1, 2, 2], {\"type\": \"array\", "
	      "\"uniqueItems\": true, \"items\": {\"type\": \"integer\", "
	      "\"maximum\": 2}})[0]",
	    "[{\"x\":false}]", "match_schema: uniqueItems");
	check("json.match_schema(7, {\"anyOf\": [{\"type\": \"integer\"}, "
	      "{\"type\": \"string\", \"maxLength\": 1}]})[0]",
	    "[{\"x\":true}]", "match_schema: anyOf");
	check("json.match_schema(3, {\"not\": {\"minimum\": 2}})[0]",
	    "[{\"x\":false}]", "match_schema: not");
	check("json.verify_schema({\"items\": [{\"type\": \"bogus\"}]})[0]",
	    "[{\"x\":false}]", "verify_schema: a bad type deep in items");
	check_like("json.match_schema(\"{\", {})", "invalid JSON",
	    "match_schema: a document that is not JSON is an error");

	/* render_template */
	check("strings.render_template(`{{if .a}}yes{{else}}no{{end}} "
	      "{{range .l}}[{{.}}]{{end}}`, {\"a\": false, \"l\": [1, \"b\"]})",
	    "[{\"x\":\"no [1][b]\"}]", "render_template: if/else and range");
	check("strings.render_template(`a  {{- .b -}}  c`, {\"b\": \"B\"})",
	    "[{\"x\":\"aBc\"}]", "render_template: trim markers");
	check_like("strings.render_template(`{{if .a}}x`, {\"a\": true})",
	    "missing end", "render_template: an unclosed block is an error");
	check_like("strings.render_template(`{{printf \"%d\" 1}}`, {})",
	    "unsupported action",
	    "render_template: an unsupported action is an error");

	/* http.send never sends */
	check_like("http.send({\"method\": \"get\", \"url\": "
		   "\"http://127.0.0.1:1\"})",
	    "eval_builtin_error http.send: network calls are not allowed",
	    "http.send: a well-formed request is refused");
	check_like("http.send({\"url\": \"x\"})",
	    "missing required request parameters(s): {\"method\"}",
	    "http.send: a missing method is a type error");
	return tap_done();
}
