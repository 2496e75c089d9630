/* Unit tests of the engine through its public and internal API: compile
 * errors, limits, results. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"
#include "tests/tap.h"

static bool strict_mode;   /* strict builtin errors */
static uint64_t mem_limit; /* max_mem of the evaluations; 0: the default */

static struct axp_policy *
compile1(const char *src, struct axp_compiler **cp)
{
	struct axp_compiler *c = axp_compiler_new();

	axp_compiler_add_module(c, "t.rego", src, strlen(src));
	*cp = c;
	return axp_compiler_compile(c);
}

/* Evaluate query against src; returns the JSON result or the error. */
static char *
eval(const char *src, const char *query, const char *input, uint64_t steps)
{
	struct axp_compiler *c;
	struct axp_policy *p = compile1(src, &c);
	struct axp_query *q;
	struct axp_error err;
	struct axv *in = NULL, *res = NULL;
	struct axp_eval_opts o;
	char *out;

	if (p == NULL) {
		const struct axp_error *e = axp_compiler_error(c, 0);
		out = axg_asprintf("compile %d:%d %s %s", e->line, e->col,
		    axp_errcode_str(e->code), e->message);
		axp_compiler_free(c);
		return out;
	}
	q = axp_query_prepare(p, query, &err);
	if (q == NULL) {
		out = axg_asprintf("query %s", err.message);
		axp_error_clear(&err);
		goto done;
	}
	if (input)
		in = axv_from_json(input, strlen(input), NULL, NULL, 0);
	memset(&o, 0, sizeof(o));
	o.max_steps = steps;
	o.max_mem = mem_limit;
	o.strict = strict_mode;
	if (axp_eval(q, in, &o, &res, &err) < 0) {
		out = axg_asprintf("error %s %s", axp_errcode_str(err.code),
		    err.message);
		axp_error_clear(&err);
	} else {
		out = axv_json_str(res);
	}
	axv_unref(in);
	axv_unref(res);
	axp_query_free(q);
done:
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

static void
check(const char *src, const char *query, const char *input, const char *want,
    const char *name)
{
	char *got = eval(src, query, input, 0);

	is_str(got, want, "%s", name);
	free(got);
}

static void
check_like(const char *src, const char *query, uint64_t steps, const char *want,
    const char *name)
{
	char *got = eval(src, query, NULL, steps);

	like_str(got, want, "%s", name);
	free(got);
}

/* print(): the lines it writes through the hook. */
static void
collect_line(const char *line, void *arg)
{
	struct axg_buf *b = arg;

	axg_buf_puts(b, line);
	axg_buf_putc(b, '\n');
}

static void
test_print(void)
{
	struct axg_buf b = AXG_BUF_INIT;
	char *got;

	axp_set_print_hook(collect_line, &b);
	got = eval("package t\n"
		   "p if {\n"
		   "print(x)\n" /* before x is bound: reordered after */
		   "x := 1\n"
		   "print(\"s\", [x, {\"a\": \"b\"}], input.none)\n"
		   "print({y | some y in [2, 3]}, {z | some z in [\"q\"]})\n"
		   "}\n",
	    "x = data.t.p", "{}", 0);
	is_str(got, "[{\"x\":true}]", "print() never fails its body");
	is_str(b.data,
	    "1\n"
	    "s [1, {\"a\": \"b\"}] <undefined>\n"
	    "{2, 3} {\"q\"}\n",
	    "print writes strings as they are, other values as Rego, "
	    "undefined as <undefined>");
	free(got);
	axg_buf_reset(&b);
	got = eval("package t\np if {\nsome v in [1, 2]\nprint(\"v\", v)\n"
		   "}\n",
	    "x = data.t.p", NULL, 0);
	is_str(b.data ? b.data : "", "v 1\nv 2\n",
	    "print in an iteration prints once per value");
	free(got);
	axg_buf_reset(&b);
	got = eval("package t\np if {\nfalse\nprint(\"no\")\n}\n",
	    "x = data.t.p", NULL, 0);
	is_str(b.data ? b.data : "", "",
	    "print after a failed expression "
	    "prints nothing");
	free(got);
	axp_set_print_hook(NULL, NULL);
	got = eval("package t\np if print(\"dropped\")\n", "x = data.t.p", NULL,
	    0);
	is_str(got, "[{\"x\":true}]", "without a hook print is a no-op");
	free(got);
	got = eval("package t\np if {\nsome x\nprint(x)\n}\n", "x = data.t.p",
	    NULL, 0);
	is_str(got, "compile 4:7 rego_compile_error var x is undeclared",
	    "print of a var nothing binds: undeclared, at the var");
	free(got);
	got = eval("package t\nprint(x) := x\np := print(3)\n", "x = data.t.p",
	    NULL, 0);
	is_str(got, "[{\"x\":3}]", "a user function named print is called");
	free(got);
	axg_buf_free(&b);
}

/* max([input.a[k19], max([input.a[k18], ... max([input.a[k0], leaf])])]),
 * for the caller to free. */
static char *
nested_calls(const char *leaf)
{
	struct axg_buf e = AXG_BUF_INIT, t;
	int i;

	axg_buf_puts(&e, leaf);
	for (i = 0; i < 20; i++) {
		axg_buf_init(&t, 0);
		axg_buf_printf(&t, "max([input.a[k%d], %s])", i, e.data);
		axg_buf_free(&e);
		e = t;
	}
	return axg_buf_steal(&e, NULL);
}

/* Ordering the args of nested calls takes linear time: each level looks
 * at its args once, and again only at those that mention a var a ref arg
 * binds.  (It used to look at some nested calls more than twice per level.) */
static void
test_nested_call_order(void)
{
	char *e = nested_calls("y"), *src, *got;

	src = axg_asprintf("package t\np if {\nx := %s\nx > 0\n}\n", e);
	got = eval(src, "x = data.t.p", NULL, 0);
	like_str(got, "compile 3:1 rego_unsafe_var_error var ",
	    "20 nested calls with an unbound leaf: an unsafe var, at once");
	free(got);
	free(src);
	free(e);
	e = nested_calls("1");
	src = axg_asprintf("package t\np := x if {\nx := %s\n}\n", e);
	got = eval(src, "x = data.t.p", "{\"a\": {\"q\": 1}}", 0);
	is_str(got, "[{\"x\":1}]",
	    "20 nested calls whose ref args bind their vars: ordered");
	free(got);
	free(src);
	free(e);
}

/* The memory an evaluation holds is bounded: past the limit it ends with
 * eval_limit_error, and what it had made is released. */
static void
test_memory_limit(void)
{
	static const char src[] = "package t\n"
				  "p := count(x) if {\n"
				  "x := [sprintf"
				  "(\"item %d-%d\", [i, j]) | "
				  "some i in numbers.range(1, 500); some j in "
				  "numbers.range(1, 400)]\n"
				  "}\n";
	char *got;

	mem_limit = 1 << 20;
	got = eval(src, "x = data.t.p", NULL, 0);
	is_str(got,
	    "error eval_limit_error evaluation memory limit exceeded (1 MiB)",
	    "200,000 strings held at once pass a 1 MiB limit");
	free(got);
	mem_limit = 0;
	got = eval(src, "x = data.t.p", NULL, 0);
	is_str(got, "[{\"x\":200000}]", "and fit the default limit");
	free(got);
	mem_limit = 1 << 20;
	got =
	    eval("package t\np := count({1 | some i in numbers.range(1, 500); "
		 "some j in numbers.range(1, 400); "
		 "s := sprintf"
		 "(\"item %d-%d\", [i, j])})\n",
		"x = data.t.p", NULL, 0);
	is_str(got, "[{\"x\":1}]",
	    "what is made and dropped along the way does not count");
	free(got);
	mem_limit = 0;
}

/* The step limit is exact: the fewest steps an evaluation needs pass, one
 * fewer ends it, whether or not the limit falls on a multiple of the
 * interval at which the memory limit is checked. */
static void
test_step_limit(void)
{
	static const char src[] =
	    "package t\np := count([x | some x in numbers.range(1, %d)])\n";
	static const int sizes[] = { 1, 60, 250, 700 };
	int bad = 0;
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(sizes); i++) {
		char *m = axg_asprintf(src, sizes[i]), *got = NULL;
		uint64_t lo = 1, hi = 100000;
		/* the fewest steps that give the answer */
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			free(got);
			got = eval(m, "x = data.t.p", NULL, mid);
			if (strncmp(got, "error", 5) == 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		free(got);
		got = eval(m, "x = data.t.p", NULL, lo);
		bad += strncmp(got, "[{\"x\":", 6) != 0;
		free(got);
		got = eval(m, "x = data.t.p", NULL, lo - 1);
		bad += strcmp(got,
			   "error eval_limit_error evaluation step limit "
			   "exceeded") != 0;
		free(got);
		free(m);
	}
	is_int(bad, 0, "the step limit lets exactly the steps it allows");
}

int
main(void)
{
	test_memory_limit();
	test_step_limit();
	test_nested_call_order();
	test_print();
	check("package t\np if input.x == 1\n", "x = data.t.p", "{\"x\":1}",
	    "[{\"x\":true}]", "complete rule from input");
	check("package t\np if input.x == 1\n", "x = data.t.p", "{\"x\":2}",
	    "[]", "undefined rule");
	check("package t\ns contains x if some x in [3, 1, 3]\n",
	    "x = data.t.s", NULL, "[{\"x\":[1,3]}]",
	    "partial set, sorted, deduplicated");
	check("package t\no[k] := v if some k, v in {\"a\": 1}\n",
	    "x = data.t.o", NULL, "[{\"x\":{\"a\":1}}]", "partial object");
	check("package t\nf(x) := y if y := x * 2\n", "y = data.t.f(21)", NULL,
	    "[{\"y\":42}]", "function call");
	check("package t\np := x if { y > 1; y := 2; x := y + 1 }\n",
	    "x = data.t.p", NULL, "[{\"x\":3}]",
	    "body reordered so vars are bound first");
	check("package t\np := x if { x := input.v with input as {\"v\": 7} "
	      "}\n",
	    "x = data.t.p", NULL, "[{\"x\":7}]", "with input");
	/* rego.metadata: METADATA blocks read as OPA reads them */
	check("# METADATA\n# description: pkg\npackage t\n\n"
	      "# METADATA\n# title: T\n# authors:\n# - Jane Doe <j@x.org>\n"
	      "# related_resources: [https://x.org/r]\n"
	      "p := rego.metadata.rule()\n",
	    "x = data.t.p", NULL,
	    "[{\"x\":{\"authors\":[{\"email\":\"j@x.org\",\"name\":"
	    "\"Jane Doe\"}],\"related_resources\":[{\"ref\":\"https://x.org/"
	    "r\"}],\"scope\":\"rule\",\"title\":\"T\"}}]",
	    "rego.metadata.rule: the block above the rule, normalised");
	check("# METADATA\n# description: pkg\npackage t\n\n"
	      "# METADATA\n# scope: document\n# title: D\np := 1 if false\n\n"
	      "p := rego.metadata.chain()\n",
	    "x = data.t.p", NULL,
	    "[{\"x\":[{\"path\":[\"t\",\"p\"]},{\"annotations\":{\"scope\":"
	    "\"document\",\"title\":\"D\"},\"path\":[\"t\",\"p\"]},"
	    "{\"annotations\":{\"description\":\"pkg\",\"scope\":"
	    "\"package\"},\"path\":[\"t\"]}]}]",
	    "rego.metadata.chain: rule, document and package scopes");
	check("package t\n\n# a comment, not a block\n"
	      "p := rego.metadata.rule()\n",
	    "x = data.t.p", NULL, "[{\"x\":{}}]",
	    "no METADATA block: rego.metadata.rule() is {}");
	check("package t\n\n# METADATA\n# title: [unclosed\n"
	      "p := rego.metadata.rule()\n",
	    "x = data.t.p", NULL,
	    "compile 5:6 rego_parse_error METADATA block at t.rego:3: yaml: "
	    "line 1: did not find expected ',' or ']'",
	    "a METADATA block that is not YAML is a located error");
	check("package t\np := 1\n", "x = rego.metadata.chain()", NULL,
	    "[{\"x\":[]}]", "rego.metadata.chain() in a query is []");
	/* rand.intn: one value per (str, n) throughout an evaluation, in
	 * range; different strings draw on their own */
	check("package t\np := count({rand.intn(\"k\", 1000000) | "
	      "numbers.range(1, 50)[_]})\n",
	    "x = data.t.p", NULL, "[{\"x\":1}]",
	    "rand.intn gives one value for the same arguments");
	check("package t\np := count({rand.intn(format_int(i, 10), "
	      "1000000) | some i in numbers.range(1, 50)}) > 1\n",
	    "x = data.t.p", NULL, "[{\"x\":true}]",
	    "and draws again for other arguments");
	check("package t\np := [x | some i in numbers.range(1, 200); "
	      "x := rand.intn(format_int(i, 10), -3); x < 0]\n",
	    "x = data.t.p", NULL, "[{\"x\":[]}]",
	    "a negative n draws from [0, |n|)");
	check("package t\np := 1\np := 2\n", "x = data.t.p", NULL,
	    "error eval_conflict_error complete rules must not produce "
	    "multiple outputs",
	    "conflict error");
	strict_mode = true;
	check("package t\np := 1 / 0\n", "x = data.t.p", NULL,
	    "error eval_builtin_error div: divide by zero",
	    "builtin error code and message (strict builtin errors)");
	strict_mode = false;
	check("package t\np := 1 / 0\n", "x = data.t.p", NULL, "[]",
	    "a builtin error makes the call undefined otherwise");
	check("package t\np if { x }\n", "x = data.t.p", NULL,
	    "compile 2:8 rego_unsafe_var_error var x is unsafe",
	    "unsafe var located");
	check_like("package t\np if q\nq if p\n", "x = data.t.p", 0,
	    "rego_recursion_error rule data.t.p is recursive",
	    "recursion detected at compile time");
	check_like("package t\np := [x | some a in numbers; some b in numbers; "
		   "some c in numbers; x := [a, b, c]]\nnumbers := [1, 2, 3, "
		   "4, "
		   "5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\n",
	    "x = data.t.p", 1000, "error eval_limit_error",
	    "the step limit ends a runaway evaluation");
	check_like("package t\np := x if x := 1\n", "x = data.t.p", 0,
	    "[{\"x\":1}]", "a query binds its variables");
	check("package t\n", "x := {1, 2} | {3}", NULL, "[{\"x\":[1,2,3]}]",
	    "set union in a query");
	check("package t\n", "x := $\"a{1 + 1}b\"", NULL, "[{\"x\":\"a2b\"}]",
	    "template string");
	/* the experimental logic keywords, only where imported */
	check("package t\np := and + or if { and := 1; or := 2 }\n",
	    "x = data.t.p", NULL, "[{\"x\":3}]",
	    "and/or are names without their import");
	check("package t\nimport future.keywords.and\nimport "
	      "future.keywords.or\np if input.a and input.b or input.c\n",
	    "x = data.t.p", "{\"a\":false,\"b\":true,\"c\":true}",
	    "[{\"x\":true}]", "and binds tighter than or");
	check("package t\nimport future.keywords.or\np := [i | i := "
	      "input.xs[_]; i > 0 or i < 5]\n",
	    "x = data.t.p", "{\"xs\":[1,2,-9]}", "[{\"x\":[1,2,-9]}]",
	    "or succeeds once per outer solution");
	check("package t\nimport future.keywords.and\np if { a := -1\n"
	      "{ a := 1; a > 0 } and { a := 2; a > 1 }\na == -1 }\n",
	    "x = data.t.p", NULL, "[{\"x\":true}]",
	    "operand bodies have their own scope");
	check("package t\nimport future.keywords.not\np if not { some x in "
	      "[1, 2]; x == 3 }\n",
	    "x = data.t.p", NULL, "[{\"x\":true}]", "not with a body");
	check("package t\nimport future.keywords.or\np if (input.x > 0 or "
	      "input.y > 0 with input as {\"x\": 0, \"y\": 1})\n",
	    "x = data.t.p", NULL, "[{\"x\":true}]",
	    "with applies to a whole parenthesised group");
	check("package t\nimport future.keywords.or\np if { x > 0 or true }\n",
	    "x = data.t.p", NULL,
	    "compile 3:8 rego_unsafe_var_error var x is unsafe",
	    "an unbound var in an operand is unsafe");
	check("package t\np := [[k, v] | walk({\"a\": [1]}, [k, v])]\n",
	    "x = data.t.p", NULL,
	    "[{\"x\":[[[],{\"a\":[1]}],[[\"a\"],[1]],[[\"a\",0],1]]}]",
	    "walk is a relation over every path, pre-order");
	return tap_done();
}
