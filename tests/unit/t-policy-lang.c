/* Unit tests of language corners of the engine: how the rule tree merges
 * with base data, ref heads, keywords as ref-head names, function heads
 * with template strings, and load-time refusals. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"
#include "tests/tap.h"

/* Evaluate query against src (and data, a JSON text or NULL); returns the
 * JSON result, or the first error as "compile L:C CODE MSG", "query MSG"
 * or "error CODE MSG". */
static char *
eval(const char *src, const char *data, const char *query, const char *input)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *in = NULL, *res = NULL;
	struct axp_eval_opts o;
	char *out;

	axp_compiler_add_module(c, "t.rego", src, strlen(src));
	if (data != NULL)
		axp_compiler_set_data_json(c, data, strlen(data));
	if ((p = axp_compiler_compile(c)) == NULL) {
		const struct axp_error *e = axp_compiler_error(c, 0);
		out = axg_asprintf("compile %d:%d %s %s", e->line, e->col,
		    axp_errcode_str(e->code), e->message);
		goto done;
	}
	if ((q = axp_query_prepare(p, query, &err)) == NULL) {
		out = axg_asprintf("query %s", err.message);
		axp_error_clear(&err);
		goto done;
	}
	if (input)
		in = axv_from_json(input, strlen(input), NULL, NULL, 0);
	memset(&o, 0, sizeof(o));
	if (axp_eval(q, in, &o, &res, &err) < 0) {
		out = axg_asprintf("error %s %s", axp_errcode_str(err.code),
		    err.message);
		axp_error_clear(&err);
	} else {
		out = axv_json_str(res);
	}
done:
	axv_unref(in);
	axv_unref(res);
	axp_query_free(q);
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

static void
check(const char *src, const char *data, const char *query, const char *input,
    const char *want, const char *name)
{
	char *got = eval(src, data, query, input);

	is_str(got, want, "%s", name);
	free(got);
}

static void
check_like(const char *src, const char *query, const char *want,
    const char *name)
{
	char *got = eval(src, NULL, query, NULL);

	like_str(got, want, "%s", name);
	free(got);
}

/* The virtual document of a package: base data and rules. */
static void
test_extent(void)
{
	check("package t.c\nk := \"bar\"\n", "{\"t\":{\"c\":{\"k\":\"foo\"}}}",
	    "x = data.t.c", NULL, "[{\"x\":{\"k\":\"foo\"}}]",
	    "base data keeps its value over a rule's");
	check("package t.c\no.b := 2\n", "{\"t\":{\"c\":{\"o\":{\"a\":1}}}}",
	    "x = data.t.c", NULL, "[{\"x\":{\"o\":{\"a\":1,\"b\":2}}}]",
	    "base objects merge with rule values");
	check_like("package t\np.q.r := 1\np.q[s] := 2 if s := \"r\"\n",
	    "x = data.t.p.q", "eval_conflict_error object keys must be unique",
	    "a ref-head rule and a rule below it defining one key conflict");
	check("package t\np.q.r := 1\np.q[s] := 2 if s := \"z\"\n", NULL,
	    "x = data.t.p.q", NULL, "[{\"x\":{\"r\":1,\"z\":2}}]",
	    "distinct keys of a ref-head rule and a rule below merge");
}

/* `with` names a ref head when a dot follows it, even at a line's start
 * right after another expression (not a with modifier). */
static void
test_keyword_heads(void)
{
	check("package t\np if {\n  with.foo == \"a\"\n  with.bar(1) == 1\n}\n"
	      "with.foo := \"a\"\nwith.bar(x) := x\n",
	    NULL, "x = data.t.p", NULL, "[{\"x\":true}]",
	    "with.foo on the line after an expression is a ref, not a "
	    "modifier");
	check("package t\np := x if {\n  x := input.v\n  with input as "
	      "{\"v\": 3}\n}\n",
	    NULL, "x = data.t.p", NULL, "[{\"x\":3}]",
	    "a with modifier on its own line still applies");
}

/* Function arguments: their vars are the function's locals; values to
 * compute are unified in the body. */
static void
test_func_args(void)
{
	check("package t\nfoo[\"bar\"](x) := x + 1\nx := foo.bar(2)\n", NULL,
	    "x = data.t", NULL, "[{\"x\":{\"foo\":{},\"x\":3}}]",
	    "an argument named like a rule of the package is a local");
	check("package t\np := f(\"foo bar\")\nf($\"{x} {input.y}\") := 42 if "
	      "x = \"foo\"\n",
	    NULL, "x = data.t.p", "{\"y\":\"bar\"}", "[{\"x\":42}]",
	    "a template string argument is computed once the body binds it");
	check("package t\np := f(\"foo baz\")\nf($\"{x} {input.y}\") := 42 if "
	      "x = \"foo\"\n",
	    NULL, "x = data.t.p", "{\"y\":\"bar\"}", "[]",
	    "a template string argument that differs does not match");
	check("package t\np := f([1, 2])\nf([count([1]), y]) := y\n", NULL,
	    "x = data.t.p", NULL, "[{\"x\":2}]",
	    "a call nested in an array argument");
}

/* x := ... in a comprehension declares the comprehension's own x, even
 * where the enclosing query has an unbound x. */
static void
test_compr_scope(void)
{
	check("package t\n", NULL, "x = [x | x := input.xs[_]]",
	    "{\"xs\":[\"a\"]}", "[{\"x\":[\"a\"]}]",
	    "x := in a comprehension shadows the query's x");
	check("package t\n", NULL, "x = $\"{[x | x := input.xs[_]]}\"",
	    "{\"xs\":[\"a\"]}", "[{\"x\":\"[\\\"a\\\"]\"}]",
	    "a comprehension inside a template string");
	check("package t\n", NULL,
	    "x = {$\"{x}-{y}\": y | x := input.xs[_]; y := input.ys[_]}",
	    "{\"xs\":[\"a\"],\"ys\":[\"c\"]}", "[{\"x\":{\"a-c\":\"c\"}}]",
	    "a template string key of an object comprehension");
	check_like("package t\n", "x = [y | y := z]", "is unsafe",
	    "an unbound capture is still unsafe");
}

/* A call's ref argument binds the vars another argument compares. */
static void
test_call_args_order(void)
{
	const char *src = "package t\np := foo if {\n\tsome foo\n\tfoo == "
			  "input.foos[foo]\n}\n";

	check(src, NULL, "x = data.t.p", "{\"foos\":[2,1,0]}", "[{\"x\":1}]",
	    "foo == input.foos[foo] binds foo by the ref");
	check(src, NULL, "x = data.t.p", "{\"foos\":[\"foo\"]}", "[]",
	    "no index equals its value: undefined");
}

/* data[k] with k bound reads only that child of the rule tree, so a rule
 * that reads data[k] is not its own dependency. */
static void
test_dynamic_data(void)
{
	check("package t\np := data.t[k].allow.x if k := \"u\"\n"
	      "u.allow.x := 5\n",
	    NULL, "x = data.t.p", NULL, "[{\"x\":5}]",
	    "data[k] picks one package at evaluation");
	check("package t\np := data[k].v if k := \"base\"\n",
	    "{\"base\":{\"v\":7}}", "x = data.t.p", NULL, "[{\"x\":7}]",
	    "data[k] reaches base data outside the rule tree");
	check("package t\np := data[k] if k := \"nothing\"\n", NULL,
	    "x = data.t.p", NULL, "[]", "data[k] of no child is undefined");
}

/* AXP_COMPILE_OFFLINE: a call of http.send is a located compile error. */
static void
test_offline(void)
{
	const char *src = "package t\n\np := r if {\n\tr := http.send("
			  "{\"method\": \"get\", \"url\": \"http://a/\"})\n}\n";
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	const struct axp_error *e;

	axp_compiler_add_module(c, "net.rego", src, strlen(src));
	axp_compiler_set_flags(c, AXP_COMPILE_OFFLINE);
	p = axp_compiler_compile(c);
	ok(p == NULL, "offline: a policy calling http.send does not compile");
	e = axp_compiler_error(c, 0);
	ok(e != NULL && e->line == 4 && e->col == 7,
	    "offline: the error is at the call");
	like_str(e ? e->message : "",
	    "http.send is not available in axgate policies",
	    "offline: the error says why");
	axp_policy_free(p);
	axp_compiler_free(c);

	c = axp_compiler_new();
	axp_compiler_add_module(c, "net.rego", src, strlen(src));
	p = axp_compiler_compile(c);
	ok(p != NULL, "without the flag the policy compiles");
	axp_policy_free(p);
	axp_compiler_free(c);
}

/* Every compile error of src, "L:C CODE MSG" joined by "; ". */
static char *
compile_errors(const char *src)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axg_buf b;
	size_t i;
	char *out;

	axp_compiler_add_module(c, "t.rego", src, strlen(src));
	p = axp_compiler_compile(c);
	axg_buf_init(&b, 0);
	for (i = 0; i < axp_compiler_error_count(c); i++) {
		const struct axp_error *e = axp_compiler_error(c, i);
		axg_buf_printf(&b, "%s%d:%d %s %s", i ? "; " : "", e->line,
		    e->col, axp_errcode_str(e->code), e->message);
	}
	out = axg_strdup(p != NULL ? "compiled" : b.data ? b.data : "");
	axg_buf_free(&b);
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

static void
check_errors(const char *src, const char *want, const char *name)
{
	char *got = compile_errors(src);

	is_str(got, want, "%s", name);
	free(got);
}

/* Unsafe vars as OPA reports them: at the expression they are in, and
 * naming the rule where the line it is declared on holds another rule. */
static void
test_unsafe_errors(void)
{
	check_errors("package t\nallow if {\n\tfirst := users[0]\n\tt := "
		     "first.title\n\tt == \"CEO\"\n}\n",
	    "3:2 rego_unsafe_var_error var users is unsafe",
	    "an unsafe ref head is located at its expression");
	check_errors("package t\nf(x) if {\n\tx == y\n}\n",
	    "3:2 rego_unsafe_var_error var y is unsafe",
	    "an unsafe operand is located at its expression");
	check_errors("package t\np := x if {\n\ttrue\n}\n",
	    "2:6 rego_unsafe_var_error var x is unsafe",
	    "an unsafe var of a head is located at the var");
	check_errors("package t\np if { x == 2 } q if { true }\n",
	    "2:8 rego_unsafe_var_error var x is unsafe in rule p",
	    "a line declaring two rules names the rule");
	check_errors("package t\np(x) foobar if {\n\tx == 2\n}\n",
	    "3:2 rego_unsafe_var_error var x is unsafe in rule foobar",
	    "the rule is named when it starts on a line shared with another");
	check_errors("package t\na.b.c if { x == 2 } d if { true }\n",
	    "2:12 rego_unsafe_var_error var x is unsafe in rule a.b.c",
	    "a ref-head rule is named as written");
	check_errors("package t\np := x if { true } q if { true }\n",
	    "2:6 rego_unsafe_var_error var x is unsafe in rule p",
	    "an unsafe head var names its rule on a shared line");
	check_errors("package t\np if { false } else if { x == 2 }\n",
	    "2:26 rego_unsafe_var_error var x is unsafe",
	    "an else clause on its rule's line is not named");
	check_errors("package t\np if { x == 2 } p if { true }\n",
	    "2:8 rego_unsafe_var_error var x is unsafe",
	    "rules of one name on a line are not named");
	check_errors("package t\np if { true } q if { true }\nr if { y == 1 "
		     "}\n",
	    "3:8 rego_unsafe_var_error var y is unsafe",
	    "a rule on its own line after a shared one is not named");
	check_errors("package t\np if { a == 1 } q if { b == 1 }\n",
	    "2:8 rego_unsafe_var_error var a is unsafe in rule p; 2:24 "
	    "rego_unsafe_var_error var b is unsafe in rule q",
	    "each rule of a shared line is named in its own errors");
}

int
main(void)
{
	test_extent();
	test_keyword_heads();
	test_func_args();
	test_compr_scope();
	test_call_args_order();
	test_dynamic_data();
	test_offline();
	test_unsafe_errors();
	return tap_done();
}
