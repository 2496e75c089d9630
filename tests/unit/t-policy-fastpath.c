/* Unit tests of the engine's fast paths: each gives the same result as
 * the general path it shortcuts (sprintf's plain %s and %d, string-keyed
 * object lookup and its hash for large objects, shared small integers,
 * the value memory cache, input.key in one statement, tests of boolean
 * builtins without a temporary, x := f() without a UNIFY, values lent to
 * bindings and to a call's array argument without references). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ir.h"
#include "policy/policy-int.h"
#include "policy/value-int.h"
#include "tests/tap.h"

/* The value of `x` in `x := <expr>`, as JSON, or the error. */
static char *
eval_expr(const char *expr, bool strict)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *res = NULL;
	struct axp_eval_opts o;
	char *src, *out;

	src = axg_asprintf("package t\nx := %s\n", expr);
	axp_compiler_add_module(c, "t.rego", src, strlen(src));
	free(src);
	p = axp_compiler_compile(c);
	if (p == NULL) {
		out = axg_asprintf("compile: %s",
		    axp_compiler_error(c, 0)->message);
		axp_compiler_free(c);
		return out;
	}
	q = axp_query_prepare(p, "x = data.t.x", &err);
	memset(&o, 0, sizeof(o));
	o.strict = strict;
	if (q == NULL) {
		out = axg_asprintf("query: %s", err.message);
		axp_error_clear(&err);
	} else if (axp_eval(q, NULL, &o, &res, &err) < 0) {
		out = axg_asprintf("error: %s", err.message);
		axp_error_clear(&err);
	} else if (axv_array_len(res) == 0) {
		out = axg_strdup("undefined");
	} else {
		out = axv_json_str(axv_object_gets(axv_array_get(res, 0), "x"));
	}
	axv_unref(res);
	axp_query_free(q);
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

static void
sprintf_is(const char *expr, const char *want)
{
	char *got = eval_expr(expr, false);

	is_str(got, want, "%s", expr);
	free(got);
}

static void
test_sprintf(void)
{
	/* the fast paths: plain %s / %v of strings, %d / %v of int64 */
	sprintf_is("sprintf"
		   "(\"%s:%d\", [\"host\", 443])",
	    "\"host:443\"");
	sprintf_is("sprintf"
		   "(\"%v|%v\", [\"s\", -7])",
	    "\"s|-7\"");
	sprintf_is("sprintf"
		   "(\"%d %d %d\", [0, 1023, 1024])",
	    "\"0 1023 1024\"");
	sprintf_is("sprintf"
		   "(\"%d\", [-9223372036854775808])",
	    "\"-9223372036854775808\"");
	sprintf_is("sprintf"
		   "(\"%d\", [9223372036854775807])",
	    "\"9223372036854775807\"");
	sprintf_is("sprintf"
		   "(\"%s\", [\"\"])",
	    "\"\"");
	sprintf_is("sprintf"
		   "(\"%s%s\", [\"é\", \"x\"])",
	    "\"éx\"");
	/* the one-pass path's edges: %%, a negative number, int64's ends,
	 * and what it leaves to the general path (%s of a number, %d of a
	 * string, missing and extra arguments, a float, a set) */
	sprintf_is("sprintf"
		   "(\"100%% %d%%\", [-7])",
	    "\"100% -7%\"");
	/* literal text copied in runs: alone, between and after verbs, and
	 * past the one-pass path's buffer (the general path then) */
	sprintf_is("sprintf"
		   "(\"no verbs at all\", [])",
	    "\"no verbs at all\"");
	sprintf_is("sprintf"
		   "(\"port %d of %s is not allowed (policy %s)\", "
		   "[22, \"a.example\", \"p\"])",
	    "\"port 22 of a.example is not allowed (policy p)\"");
	{
		char lit[601], *e, *w;
		memset(lit, 'x', 600);
		lit[600] = '\0';
		e = axg_asprintf("sprintf"
				 "(\"%%s-%s\", [\"a\"])",
		    lit);
		w = axg_asprintf("\"a-%s\"", lit);
		sprintf_is(e, w);
		free(e);
		free(w);
	}
	sprintf_is("sprintf"
		   "(\"%d %v\", [9223372036854775807, "
		   "-9223372036854775808])",
	    "\"9223372036854775807 -9223372036854775808\"");
	sprintf_is("sprintf"
		   "(\"%s\", [5])",
	    "\"%!s(int=5)\"");
	sprintf_is("sprintf"
		   "(\"%d\", [\"x\"])",
	    "\"%!d(string=x)\"");
	sprintf_is("sprintf"
		   "(\"%s %s\", [\"a\"])",
	    "\"a %!s(MISSING)\"");
	sprintf_is("sprintf"
		   "(\"%s\", [\"a\", 1])",
	    "\"a%!(EXTRA int=1)\"");
	sprintf_is("sprintf"
		   "(\"%v\", [1.5])",
	    "\"1.5\"");
	sprintf_is("sprintf"
		   "(\"%v\", [{1}])",
	    "\"{1}\"");
	sprintf_is("sprintf"
		   "(\"%\", [])",
	    "\"%!(NOVERB)\"");
	/* the general paths next to them */
	sprintf_is("sprintf"
		   "(\"%d\", [99999999999999999999])",
	    "\"99999999999999999999\"");
	sprintf_is("sprintf"
		   "(\"%5d|%-5d|%05d\", [42, 42, -42])",
	    "\"   42|42   |-0042\"");
	sprintf_is("sprintf"
		   "(\"%+d % d %.3d\", [5, 5, 7])",
	    "\"+5  5 007\"");
	sprintf_is("sprintf"
		   "(\"%x %X %#x %b %o\", [-255, 255, 255, 5, 8])",
	    "\"-ff FF 0xff 101 10\"");
	sprintf_is("sprintf"
		   "(\"%3s|%-3s|%2s\", [\"é\", \"a\", \"abcdefgh\"])",
	    "\"  é|a  |abcdefgh\"");
	sprintf_is("sprintf"
		   "(\"%.2s\", [\"abc\"])",
	    "\"ab\"");
	sprintf_is("sprintf"
		   "(\"%s\", [[1, \"a\"]])",
	    "\"[1, \\\"a\\\"]\"");
	sprintf_is("sprintf"
		   "(\"%d\", [\"x\"])",
	    "\"%!d(string=x)\"");
	sprintf_is("sprintf"
		   "(\"%s %d\", [\"a\"])",
	    "\"a %!d(MISSING)\"");
	sprintf_is("sprintf"
		   "(\"%s\", [\"a\", 1])",
	    "\"a%!(EXTRA int=1)\"");
	sprintf_is("sprintf"
		   "(\"%d\", [1.5])",
	    "\"%!d(float64=1.5)\"");
	sprintf_is("sprintf"
		   "(\"%s\", [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", "
		   "\"g\", \"h\", \"i\"])",
	    "\"a%!(EXTRA string=b, string=c, string=d, string=e, "
	    "string=f, string=g, string=h, string=i)\"");
	/* undefined and errors as before */
	sprintf_is("sprintf"
		   "(1, [])",
	    "undefined");
	{
		char *got = eval_expr("sprintf"
				      "(\"%s\", \"notarray\")",
		    true);
		like_str(got, "error: ",
		    "a wrong argument type is an error "
		    "under strict builtin errors");
		free(got);
	}
}

/* The general search: the first key equal to k. */
static struct axv *
slow_get(const struct axv *o, const struct axv *k)
{
	size_t i;

	for (i = 0; i < axv_object_len(o); i++)
		if (axv_equal(axv_object_key(o, i), k))
			return axv_object_val(o, i);
	return NULL;
}

static void
test_object_get(void)
{
	static const char *const objs[] = {
		"{\"host\": 1, \"method\": 2, \"port\": 3}",
		"{\"\": 0, \"a\": 1, \"ab\": 2, \"abc\": 3, \"b\": 4}",
		"{\"k00\": 0, \"k01\": 1, \"k02\": 2, \"k03\": 3, \"k04\": 4, "
		"\"k05\": 5, \"k06\": 6, \"k07\": 7, \"k08\": 8, \"k09\": 9, "
		"\"k1\": 10, \"k10\": 11, \"\\u00e9\": 12, \"z\": 13}",
	};
	static const char *const keys[] = { "host", "port", "method", "", "a",
		"ab", "abc", "abcd", "b", "k0", "k00", "k05", "k09", "k1",
		"k10", "k11", "\xc3\xa9", "z", "zz", "0" };
	int bad = 0, n = 0;
	size_t i, j;

	for (i = 0; i < AXG_ARRAY_LEN(objs); i++) {
		struct axv *o =
		    axv_from_json(objs[i], strlen(objs[i]), NULL, NULL, 0);
		for (j = 0; j < AXG_ARRAY_LEN(keys); j++) {
			struct axv *k = axv_cstr(keys[j]);
			n++;
			if (axv_object_get(o, k) != slow_get(o, k) ||
			    axv_object_gets(o, keys[j]) != slow_get(o, k)) {
				bad++;
				tap_diag("object %zu key \"%s\"", i, keys[j]);
			}
			axv_unref(k);
		}
		axv_unref(o);
	}
	is_int(bad, 0,
	    "string-keyed lookups agree with the general search "
	    "(%d lookups)",
	    n);

	/* non-string keys among string keys, in small and large objects */
	for (i = 0; i < 2; i++) {
		struct axv *o = axv_object_new(0), *k;
		int m = i == 0 ? 4 : 40, x;
		bad = 0;
		for (x = 0; x < m; x++) {
			axv_object_put(o, axv_int(x), axv_int(x));
			char *ks = axg_asprintf("s%d", x);
			axv_object_put(o, axv_string_own(ks, strlen(ks)),
			    axv_int(1000 + x));
		}
		axv_object_put(o, axv_null(), axv_bool(true));
		axv_object_put(o, axv_array_new(0), axv_bool(false));
		for (x = -1; x <= m; x++) {
			char ks[16];
			snprintf(ks, sizeof(ks), "s%d", x);
			k = axv_cstr(ks);
			if (axv_object_get(o, k) != slow_get(o, k))
				bad++;
			axv_unref(k);
			k = axv_int(x);
			if (axv_object_get(o, k) != slow_get(o, k))
				bad++;
			axv_unref(k);
		}
		k = axv_null();
		if (axv_object_get(o, k) != slow_get(o, k) ||
		    axv_object_get(o, k) == NULL)
			bad++;
		k = axv_array_new(0);
		if (axv_object_get(o, k) != slow_get(o, k) ||
		    axv_object_get(o, k) == NULL)
			bad++;
		axv_unref(k);
		is_int(bad, 0, "mixed key kinds, %d entries: lookups agree",
		    (int)axv_object_len(o));
		axv_unref(o);
	}
}

/* Large objects: lookups through the key hash agree with the general
 * search, before and after insertions, and when threads race to build
 * the hash. */
static void *
hash_reader(void *arg)
{
	struct axv *o = arg;
	intptr_t bad = 0;
	int x;

	for (x = 0; x < 400; x++) {
		char ks[16];
		struct axv *k;
		snprintf(ks, sizeof(ks), "key-%d", x);
		k = axv_cstr(ks);
		if (axv_object_get(o, k) != slow_get(o, k) ||
		    (x < 300) != (axv_object_get(o, k) != NULL))
			bad++;
		axv_unref(k);
	}
	return (void *)bad;
}

static void
test_object_hash(void)
{
	struct axv *o = axv_object_new(0), *k;
	int bad = 0, x, round;
	pthread_t t[4];
	intptr_t tb = 0;

	for (x = 0; x < 300; x++) {
		char *ks = axg_asprintf("key-%d", x);
		axv_object_put(o, axv_string_own(ks, strlen(ks)), axv_int(x));
	}
	axv_object_put(o, axv_int(7), axv_bool(true));
	for (x = 0; x < 4; x++)
		pthread_create(&t[x], NULL, hash_reader, o);
	for (x = 0; x < 4; x++) {
		void *r;
		pthread_join(t[x], &r);
		tb += (intptr_t)r;
	}
	is_int((int)tb, 0,
	    "threads building a large object's key hash at once agree with "
	    "the general search");
	/* insert between lookups: the hash is dropped and rebuilt */
	for (round = 0; round < 3; round++) {
		char *ks = axg_asprintf("added-%d", round);
		axv_object_put(o, axv_string_own(ks, strlen(ks)),
		    axv_int(round));
		for (x = -2; x < 310; x++) {
			char kb[32];
			snprintf(kb, sizeof(kb), x < 0 ? "added-%d" : "key-%d",
			    x < 0 ? round + x + 1 : x);
			k = axv_cstr(kb);
			if (axv_object_get(o, k) != slow_get(o, k) ||
			    axv_object_gets(o, kb) != slow_get(o, k))
				bad++;
			axv_unref(k);
		}
	}
	k = axv_int(7);
	if (axv_object_get(o, k) == NULL)
		bad++;
	axv_unref(k);
	k = axv_cstr("");
	if (axv_object_get(o, k) != NULL)
		bad++;
	axv_unref(k);
	is_int(bad, 0,
	    "a large object's lookups agree with the general "
	    "search across insertions");
	/* a string key keeps its hash: the same value looked up again, or
	 * in another large object, is not hashed again */
	k = axv_cstr("key-42");
	ok(AXV_STR(k)->hash == 0, "a new string has no hash yet");
	ok(axv_object_get(o, k) != NULL && AXV_STR(k)->hash != 0,
	    "a lookup in a large object keeps the key's hash");
	ok(axv_object_get(o, k) == slow_get(o, k),
	    "and finds the key again with it");
	axv_unref(k);
	axv_unref(o);
}

/* The JSON of a query's results on a module and an input (NULL: none),
 * or the error. */
static char *
eval_query(const char *module, const char *query, const char *input,
    bool strict)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *res = NULL, *in = NULL;
	struct axp_eval_opts o;
	char *out;

	axp_compiler_add_module(c, "t.rego", module, strlen(module));
	p = axp_compiler_compile(c);
	if (p == NULL) {
		out = axg_asprintf("compile: %s",
		    axp_compiler_error(c, 0)->message);
		axp_compiler_free(c);
		return out;
	}
	if (input != NULL)
		in = axv_from_json(input, strlen(input), NULL, NULL, 0);
	q = axp_query_prepare(p, query, &err);
	memset(&o, 0, sizeof(o));
	o.strict = strict;
	if (q == NULL) {
		out = axg_asprintf("query: %s", err.message);
		axp_error_clear(&err);
	} else if (axp_eval(q, in, &o, &res, &err) < 0) {
		out = axg_asprintf("error: %s", err.message);
		axp_error_clear(&err);
	} else {
		out = axv_json_str(res);
	}
	axv_unref(in);
	axv_unref(res);
	axp_query_free(q);
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

/* Two ways to write a rule body: the first takes a fast path, the second
 * the general one; on every input they must give the same answer. */
static void
same_answers(const char *what, const char *fast, const char *general,
    const char *const *inputs, size_t n, bool strict)
{
	char *mf = axg_asprintf("package t\nr if {\n%s\n}\n", fast);
	char *mg = axg_asprintf("package t\nr if {\n%s\n}\n", general);
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char *a = eval_query(mf, "x = data.t.r", inputs[i], strict);
		char *b = eval_query(mg, "x = data.t.r", inputs[i], strict);
		if (strcmp(a, b) != 0) {
			bad++;
			tap_diag("%s, input %s: %s vs %s", what,
			    inputs[i] ? inputs[i] : "(none)", a, b);
		}
		free(a);
		free(b);
	}
	is_int(bad, 0, "%s%s: same answers as the general path", what,
	    strict ? " (strict)" : "");
	free(mf);
	free(mg);
}

static void
test_compiled_fastpaths(void)
{
	static const char *const inputs[] = { NULL, "{}", "{\"port\": 443}",
		"{\"port\": 0}", "{\"port\": \"443\"}", "{\"port\": null}",
		"{\"port\": false}", "[1, 2]", "\"port\"", "7",
		"{\"port\": 443, \"host\": \"a.example\"}" };
	size_t n = AXG_ARRAY_LEN(inputs);
	int strict;

	for (strict = 0; strict < 2; strict++) {
		/* input.key: INPUT with a key, against input then a lookup
		 * through a local */
		same_answers("input.port", "input.port", "i := input\ni.port",
		    inputs, n, strict);
		same_answers("input.port == 443", "input.port == 443",
		    "i := input\ni[\"port\"] == 443", inputs, n, strict);
		same_answers("input[\"port\"] in a set",
		    "input[\"port\"] in {443, 0}",
		    "i := input\ni.port in {443, 0}", inputs, n, strict);
		/* a boolean builtin as a test: no temporary, no TRUTHY */
		same_answers("x > 0 as a test", "input.port > 0",
		    "b := input.port > 0\nb", inputs, n, strict);
		same_answers("startswith as a test",
		    "startswith(input.host, \"a.\")",
		    "b := startswith(input.host, \"a.\")\nb", inputs, n,
		    strict);
		same_answers("not with a test", "not input.port < 100",
		    "not lt(input.port, 100) == true", inputs, n, strict);
		/* a builtin that is not boolean keeps TRUTHY semantics */
		same_answers("object.get as a test",
		    "object.get(input, \"port\", false)",
		    "b := object.get(input, \"port\", false)\nb", inputs, n,
		    strict);
	}
	/* the compiled form: `input.port > 0` is two statements, INPUT
	 * with its key and a call whose result must be true */
	{
		static const char m[] = "package t\nr if input.port > 0\n";
		struct axp_compiler *c = axp_compiler_new();
		struct axp_policy *p;
		const struct block *b = NULL;
		uint32_t i;

		axp_compiler_add_module(c, "t.rego", m, strlen(m));
		p = axp_compiler_compile(c);
		for (i = 0; p != NULL && i < p->ngroups; i++)
			if (strcmp(p->groups[i]->name, "data.t.r") == 0)
				b = p->groups[i]->defs[0]->body;
		ok(b != NULL && b->n == 2 && b->s[0].op == IR_INPUT &&
			b->s[0].a.kind == OPD_CONST && b->s[1].op == IR_CALL &&
			b->s[1].c.kind == OPD_CONST,
		    "input.port > 0 compiles to two statements");
		axp_policy_free(p);
		axp_compiler_free(c);
	}
	/* with input as: the one-statement form reads the replaced input */
	{
		char *got =
		    eval_query("package t\nr := input.port\n"
			       "s := x if {\n"
			       "x := r with input as {\"port\": 1}\n}\n",
			"x = data.t.s", "{\"port\": 2}", false);
		is_str(got, "[{\"x\":1}]", "input.port under with input as");
		free(got);
	}
}

/* Like same_answers, for the value of r := v if { body }. */
static void
same_values(const char *what, const char *fast, const char *general,
    const char *const *inputs, size_t n)
{
	char *mf = axg_asprintf("package t\n%s\n", fast);
	char *mg = axg_asprintf("package t\n%s\n", general);
	int bad = 0, defined = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char *a = eval_query(mf, "x = data.t.r", inputs[i], false);
		char *b = eval_query(mg, "x = data.t.r", inputs[i], false);
		if (strcmp(a, b) != 0) {
			bad++;
			tap_diag("%s, input %s: %s vs %s", what,
			    inputs[i] ? inputs[i] : "(none)", a, b);
		}
		defined += strcmp(a, "[]") != 0;
		free(a);
		free(b);
	}
	is_int(bad, 0, "%s: same values as the general path", what);
	ok(defined > 0, "%s: defined for some input", what);
	free(mf);
	free(mg);
}

static void
test_lending(void)
{
	static const char *const inputs[] = { NULL, "{}",
		"{\"host\": \"a.example\", \"port\": 443}",
		"{\"host\": \"x.y.example\", \"port\": 1}", "{\"host\": 7}",
		"{\"host\": [\"a\", \"b\"]}" };
	size_t n = AXG_ARRAY_LEN(inputs);

	/* x := f(...) writes x directly; [x] := [...] takes the UNIFY */
	same_values("x := concat(...)",
	    "r := x if { x := concat(\".\", [\"w\", input.host]) }",
	    "r := x if { [x] := [concat(\".\", [\"w\", input.host])] }", inputs,
	    n);
	same_values("x = f() with x bound",
	    "r := x if { x = input.port; x = count([1, 2, 3]) - 2 }",
	    "r := x if { x = input.port; [x] = [count([1, 2, 3]) - 2] }",
	    inputs, n);
	same_values("a pattern := f()",
	    "r := b if { [_, b] := split(input.host, \".\") }",
	    "r := b if { s := split(input.host, \".\"); [_, b] := s }", inputs,
	    n);
	same_values("x := rule, x := input.a.b",
	    "h := input.host\nr := [x, y] if { x := h; y := input.host }",
	    "h := input.host\nr := [x, y] if { [x, y] := [h, input.host] }",
	    inputs, n);
	/* a call that keeps its lent array argument (a function returning
	 * it) gets an array that owns its elements */
	same_values("a function keeps its array argument",
	    "f(a) := a\nr := [f([input.host, \"c\"]), "
	    "f([input.port, input.host])]",
	    "f(a) := a\nr := [y, z] if { a1 := [input.host, \"c\"]; "
	    "y := f(a1); a2 := [input.port, input.host]; z := f(a2) }",
	    inputs, n);
	same_values("a builtin that keeps elements of its argument",
	    "r := array.concat(array.slice([input.host, input.port], 0, 1), "
	    "[input.host])",
	    "r := array.concat(array.slice(a, 0, 1), [input.host]) if "
	    "{ a := [input.host, input.port] }",
	    inputs, n);
	/* concat(sep, array.slice(...)) is one call; its errors are those
	 * of the call that fails, and a with replacing either builtin still
	 * applies */
	same_values("concat of a slice",
	    "r := [concat(\".\", array.slice(p, i, count(p))) | "
	    "p := split(input.host, \".\"); some i in numbers.range(-1, 4)]",
	    "r := [concat(\".\", s) | p := split(input.host, \".\"); "
	    "some i in numbers.range(-1, 4); s := array.slice(p, i, count(p))]",
	    inputs, n);
	{
		static const struct {
			const char *expr, *want;
		} errs[] = {
			{ "concat(\".\", array.slice(\"ab\", 0, 1))",
			    "array.slice: operand 1 must be array but got "
			    "string" },
			{ "concat(\".\", array.slice([\"a\"], 0.5, 1))",
			    "array.slice: operand 2 must be integer number "
			    "but got floating-point number" },
			{ "concat(1, array.slice([\"a\"], 0, 1))",
			    "concat: operand 1 must be string but got number" },
			{ "concat(\".\", array.slice([\"a\", 2], 0, 2))",
			    "concat: operand 2 must be array of strings but "
			    "got "
			    "array" },
		};
		for (size_t i = 0; i < AXG_ARRAY_LEN(errs); i++) {
			char *got = eval_expr(errs[i].expr, true);
			char *want = axg_asprintf("error: %s", errs[i].want);
			is_str(got, want, "strict error of %s", errs[i].expr);
			free(got);
			free(want);
		}
		{
			char *got = eval_expr("concat(\".\", "
					      "array.slice([\"a\", 2], 0, 1))",
			    true);
			is_str(got, "\"a\"",
			    "only the sliced elements are checked");
			free(got);
		}
	}
	{
		char *got = eval_query("package t\n"
				       "f(a, i, j) := [\"m\"]\n"
				       "g(s, a) := \"mocked\"\n"
				       "s := concat(\"-\", array.slice(["
				       "\"a\", \"b\"], 0, 2))\n"
				       "r := [s, x, y] if {\n"
				       "x := s with array.slice as f\n"
				       "y := s with concat as g\n}\n",
		    "x = data.t.r", NULL, false);
		is_str(got, "[{\"x\":[\"a-b\",\"m\",\"mocked\"]}]",
		    "with array.slice / concat as f: the mock is called");
		free(got);
	}
	/* input.key read once per block, but again under a with */
	{
		char *got = eval_query("package t\n"
				       "r := [x, y, z] if {\n"
				       "x := input.a\n"
				       "y := input.a with input as {\"a\": 2}\n"
				       "z := input.a\n}\n",
		    "x = data.t.r", "{\"a\": 1}", false);
		is_str(got, "[{\"x\":[1,2,1]}]",
		    "input.a again under with input as, and after it");
		free(got);
	}
	/* lent elements of a scanned collection and of a rule's cached
	 * value, kept in the result after the scan */
	same_values("scanned elements in the result",
	    "s contains [k, v] if { some k, v in {\"a\": [input.host], "
	    "\"b\": 2} }\nr := [x | some x in s]",
	    "s contains [k, v] if { o := {\"a\": [input.host], \"b\": 2}; "
	    "some k; v := o[k] }\nr := [x | some x in s]",
	    inputs, n);
}

static void
test_small_ints(void)
{
	int bad = 0;
	int64_t i;

	for (i = -3; i < 1100; i++) {
		char txt[32];
		struct axv *a = axv_int(i), *b;
		int64_t got = -99;
		snprintf(txt, sizeof(txt), "%lld", (long long)i);
		b = axv_from_json(txt, strlen(txt), NULL, NULL, 0);
		if (!axv_equal(a, b) || axv_compare(a, b) != 0 ||
		    !axv_num_get_i64(a, &got) || got != i ||
		    axv_hash(a) != axv_hash(b))
			bad++;
		axv_unref(axv_ref(a));
		axv_unref(a);
		axv_unref(b);
	}
	is_int(bad, 0, "shared small integers equal their parsed forms");
	ok(axv_int(7) == axv_int(7), "a small integer is shared");
	{
		struct axv *x = axv_int(5000), *y = axv_int(5000);
		ok(x != y && axv_equal(x, y), "a larger one is not");
		axv_unref(x);
		axv_unref(y);
	}
}

/* Strings of every cached size, made and freed in turns. */
static void *
churn(void *arg)
{
	int *bad = arg, round, n;
	struct axv *keep[200];
	char buf[200];

	memset(buf, 'x', sizeof(buf));
	for (round = 0; round < 20; round++) {
		for (n = 0; n < 200; n++) {
			buf[0] = (char)('a' + n % 26);
			keep[n] = axv_string(buf, (size_t)n);
		}
		for (n = 0; n < 200; n++) {
			if (axv_strlen(keep[n]) != (size_t)n ||
			    axv_str(keep[n])[n] != '\0' ||
			    (n > 0 && axv_str(keep[n])[0] != 'a' + n % 26))
				(*bad)++;
			axv_unref(keep[n]);
		}
	}
	return NULL;
}

static void *
unref_thread(void *v)
{
	axv_unref(v);
	return NULL;
}

static void
test_memory(void)
{
	pthread_t t[3];
	int bad[4] = { 0, 0, 0, 0 }, i;
	struct axv *shared;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, churn, &bad[i]);
	churn(&bad[3]);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	is_int(bad[0] + bad[1] + bad[2] + bad[3], 0,
	    "strings from the memory cache keep their contents "
	    "across threads");
	/* made in one thread, freed in another */
	shared = axv_cstr("made here");
	{
		pthread_t u;
		pthread_create(&u, NULL, unref_thread, shared);
		pthread_join(u, NULL);
	}
	ok(1, "a value freed by another thread");
	/* the element vectors of composites come from the same memory, and
	 * go back to it: grown, built large, freed */
	{
		int64_t before = axv_mem_live();
		struct axv *a = axv_array_new(0), *o = axv_object_new(40),
			   *st = axv_set_new(0);
		for (i = 0; i < 40; i++) {
			char k[16];
			snprintf(k, sizeof(k), "k%02d", i);
			axv_array_push(a, axv_int(i));
			axv_object_put(o, axv_cstr(k), axv_int(i));
			axv_set_add(st, axv_int(i));
		}
		ok(axv_array_len(a) == 40 && axv_object_len(o) == 40 &&
			axv_set_len(st) == 40 &&
			axv_object_gets(o, "k39") != NULL,
		    "composites grown past their inline room hold everything");
		ok(axv_mem_live() > before, "and count in the memory in use");
		axv_unref(a);
		axv_unref(o);
		axv_unref(st);
		is_int((long)(axv_mem_live() - before), 0,
		    "which they give back when freed");
	}
}

/* The policy compiled from module (NULL on errors); *cp: the compiler, to
 * free after it. */
static struct axp_policy *
compile_mod(const char *module, struct axp_compiler **cp)
{
	*cp = axp_compiler_new();
	axp_compiler_add_module(*cp, "t.rego", module, strlen(module));
	return axp_compiler_compile(*cp);
}

/* The group named name in p, or NULL. */
static const struct rgroup *
find_group(const struct axp_policy *p, const char *name)
{
	uint32_t i;

	for (i = 0; p != NULL && i < p->ngroups; i++)
		if (strcmp(p->groups[i]->name, name) == 0)
			return p->groups[i];
	return NULL;
}

/* input.key is looked up once per evaluation, whichever rules read it;
 * an input a with-modifier replaces is read as it is. */
static void
test_input_memo(void)
{
	static const char m[] = "package t\n"
				"a := input.x\n"
				"b := input.x\n"
				"w := y if {\n"
				"y := b with input.x as 5\n}\n"
				"u if not input.x\n"
				"v if {\nu with input as {\"y\": 2}\n}\n"
				"z := y if {\n"
				"y := input.x with input.x as 4\n}\n"
				"r := [a, w, b, input.x, v, z, input.x]\n";
	struct axp_compiler *c;
	struct axp_policy *p = compile_mod(m, &c);
	const struct rgroup *ga, *gb;
	char *got;

	ga = find_group(p, "data.t.a");
	gb = find_group(p, "data.t.b");
	ok(p != NULL && p->ninkeys == 1 && ga != NULL && gb != NULL &&
		ga->defs[0]->body->s[0].ikey == 1 &&
		gb->defs[0]->body->s[0].ikey == 1,
	    "rules reading input.x share one memo entry");
	axp_policy_free(p);
	axp_compiler_free(c);
	got = eval_query(m, "x = data.t.r", "{\"x\": 1}", false);
	is_str(got, "[{\"x\":[1,5,1,1,true,4,1]}]",
	    "input.x memoized, and read afresh under with input");
	free(got);
	got = eval_query(m, "x = data.t.r", "{\"y\": 1}", false);
	is_str(got, "[]", "an undefined input.x is memoized as undefined");
	free(got);
	got = eval_query(m, "x = [data.t.u, data.t.z]", "{\"y\": 1}", false);
	is_str(got, "[{\"x\":[true,4]}]",
	    "and defined under a with-modifier all the same");
	free(got);
	got = eval_query(m, "x = data.t.a with input.x as 9", "{\"x\": 1}",
	    false);
	is_str(got, "[{\"x\":9}]", "a query's with input reaches the rules");
	free(got);
}

/* split(s, sep) read only by count and concat(sep, array.slice(...)):
 * the pieces are not made, and every answer (values, errors, with-
 * modifiers replacing any of the builtins) is the general path's. */
static void
same_split(const char *what, const char *fast, const char *general,
    const char *const *inputs, size_t n, bool some_defined)
{
	int bad = 0, defined = 0, strict;
	size_t i;

	for (strict = 0; strict < 2; strict++)
		for (i = 0; i < n; i++) {
			char *a =
			    eval_query(fast, "x = data.t.r", inputs[i], strict);
			char *b = eval_query(general, "x = data.t.r", inputs[i],
			    strict);
			if (strcmp(a, b) != 0) {
				bad++;
				tap_diag("%s, input %s%s: %s vs %s", what,
				    inputs[i], strict ? " (strict)" : "", a, b);
			}
			defined +=
			    strcmp(a, "[]") != 0 && strncmp(a, "error", 5) != 0;
			free(a);
			free(b);
		}
	is_int(bad, 0, "%s: same answers as the general path", what);
	if (some_defined)
		ok(defined > 0, "%s: defined for some input", what);
}

/* tmpl with its @ replaced by use. */
static char *
with_use(const char *tmpl, const char *use)
{
	struct axg_buf b = AXG_BUF_INIT;

	for (; *tmpl != '\0'; tmpl++)
		if (*tmpl == '@')
			axg_buf_puts(&b, use);
		else
			axg_buf_putc(&b, *tmpl);
	return axg_buf_steal(&b, NULL);
}

static void
test_split_fusion(void)
{
	static const char *const inputs[] = { "{\"h\": \"a.b.c\"}",
		"{\"h\": \"\"}", "{\"h\": \".\"}", "{\"h\": \"a..b.\"}",
		"{\"h\": \"us-east.api.anthropic.com\"}",
		"{\"h\": \"h\u00e9.w\u20acr.ld\"}", "{\"h\": \"xabyababz\"}",
		"{\"h\": \"aaaa\"}", "{\"h\": 7}",
		"{\"h\": \"abcdefghij.klmnopqrstuv.w\"}", "{}" };
	static const char *const seps[] = { ".", "", "ab", "aa" };
	/* the separator, a use of parts that stops the fusion (or none),
	 * the separator */
	static const char body[] =
	    "package t\n"
	    "r := [s | parts := split(input.h, \"%s\")%s\n"
	    "n := count(parts)\n"
	    "some i in numbers.range(-1, n + 1)\n"
	    "some j in numbers.range(-1, n + 1)\n"
	    "s := concat(\"%s\", array.slice(parts, i, j))]\n";
	/* @: a use of parts that stops the fusion, or none */
	static const char *const tails[] = {
		/* a non-integer index: array.slice's error */
		"r := s if {\nparts := split(input.h, \".\")@\n"
		"s := concat(\".\", array.slice(parts, 1.5, "
		"count(parts)))\n}\n",
		/* with-modifiers replacing each builtin, from the caller */
		"q := [s | parts := split(input.h, \".\")@\n"
		"some i in numbers.range(0, count(parts))\n"
		"s := concat(\".\", array.slice(parts, i, count(parts)))]\n"
		"f(a, b) := [\"x\", \"y\", \"z\"]\n"
		"g(a) := 2\n"
		"h(a, b) := \"joined\"\n"
		"k(a, b, c) := [\"k\"]\n"
		"r := [q, q1, q2, q3, q4]\n"
		"q1 := q with split as f\n"
		"q2 := q with count as g\n"
		"q3 := q with concat as h\n"
		"q4 := q with array.slice as k\n",
	};
	size_t i, n = AXG_ARRAY_LEN(inputs);

	for (i = 0; i < AXG_ARRAY_LEN(seps); i++) {
		char *f = axg_asprintf(body, seps[i], "", seps[i]);
		char *g =
		    axg_asprintf(body, seps[i], "\nis_array(parts)", seps[i]);
		char *what =
		    axg_asprintf("split by \"%s\", joined back", seps[i]);
		same_split(what, f, g, inputs, n, true);
		free(f);
		free(g);
		free(what);
	}
	for (i = 0; i < AXG_ARRAY_LEN(tails); i++) {
		char *f0 = with_use(tails[i], "");
		char *g0 = with_use(tails[i], "\nis_array(parts)");
		char *f = axg_asprintf("package t\n%s", f0);
		char *g = axg_asprintf("package t\n%s", g0);
		same_split(i == 0 ? "split, a bad slice index"
				  : "split under with-modifiers",
		    f, g, inputs, n, i > 0);
		free(f0);
		free(g0);
		free(f);
		free(g);
	}
	/* the compiled form: no split left, and none where parts is read
	 * otherwise (or the separators differ) */
	{
		static const char m[] =
		    "package t\n"
		    "r := [s | parts := split(input.h, \".\")\n"
		    "some i in numbers.range(1, count(parts))\n"
		    "s := concat(\".\", array.slice(parts, i, count(parts)))]\n"
		    "p := [s | parts := split(input.h, \".\")\n"
		    "some i in numbers.range(1, count(parts))\n"
		    "s := concat(\"-\", array.slice(parts, i, "
		    "count(parts)))]\n";
		struct axp_compiler *c;
		struct axp_policy *p = compile_mod(m, &c);
		const struct rgroup *gr, *gp;
		const struct block *br = NULL, *bp = NULL;

		gr = find_group(p, "data.t.r");
		gp = find_group(p, "data.t.p");
		if (gr != NULL && gr->defs[0]->body->s[0].op == IR_COMPR)
			br = gr->defs[0]->body->s[0].blk;
		if (gp != NULL && gp->defs[0]->body->s[0].op == IR_COMPR)
			bp = gp->defs[0]->body->s[0].blk;
		ok(br != NULL && br->n > 1 && br->s[1].bi != NULL &&
			strcmp(br->s[1].bi->name, "internal.split_check") == 0,
		    "split joined back with its own separator: fused");
		ok(bp != NULL && bp->n > 1 && bp->s[1].bi != NULL &&
			strcmp(bp->s[1].bi->name, "split") == 0,
		    "joined with another separator: not fused");
		axp_policy_free(p);
		axp_compiler_free(c);
	}
}

/* some x in numbers.range(a, b) walks the range without the array: the
 * same answers (order, errors, the limit, with-modifiers) as the general
 * path. */
static void
test_range_fusion(void)
{
	static const char *const inputs[] = { "{\"a\": 1, \"b\": 4}",
		"{\"a\": 4, \"b\": 1}", "{\"a\": 2, \"b\": 2}",
		"{\"a\": -3, \"b\": 0}", "{\"a\": 1.5, \"b\": 3}",
		"{\"a\": \"x\", \"b\": 1}", "{\"a\": 0, \"b\": 2000000}",
		"{\"a\": 9223372036854775806, \"b\": 9223372036854775807}",
		"{}" };
	/* @: a use of the range that stops the fusion, or none */
	static const char *const mods[] = {
		"package t\n"
		"r := [y | rg := numbers.range(input.a, input.b)@\n"
		"some x in rg\ny := x * 10]\n",
		"package t\n"
		"q := [x | rg := numbers.range(input.a, input.b)@\n"
		"some x in rg]\n"
		"f(a, b) := [7, 8]\n"
		"r := [q, q1]\n"
		"q1 := q with numbers.range as f\n",
	};
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(mods); i++) {
		char *f = with_use(mods[i], "");
		char *g = with_use(mods[i], "\nis_array(rg)");
		same_split(i == 0 ? "scans of numbers.range"
				  : "numbers.range under with",
		    f, g, inputs, AXG_ARRAY_LEN(inputs), true);
		free(f);
		free(g);
	}
	{
		static const char m[] = "package t\n"
					"r := [x | some x in numbers.range(1, "
					"input.n)]\n";
		struct axp_compiler *c;
		struct axp_policy *p = compile_mod(m, &c);
		const struct rgroup *g = find_group(p, "data.t.r");
		const struct block *b = NULL;
		uint32_t j;
		bool rscan = false;

		if (g != NULL && g->defs[0]->body->s[0].op == IR_COMPR)
			b = g->defs[0]->body->s[0].blk;
		for (j = 0; b != NULL && j < b->n; j++)
			rscan |= b->s[j].op == IR_RSCAN;
		ok(rscan, "some x in numbers.range(...): a range scan");
		axp_policy_free(p);
		axp_compiler_free(c);
	}
}

/* Evaluate query on p (prepared each time), as JSON or "error". */
static char *
eval_on(struct axp_policy *p, const char *query, const char *input, bool strict)
{
	struct axp_query *q = axp_query_prepare(p, query, NULL);
	struct axv *in = input
	    ? axv_from_json(input, strlen(input), NULL, NULL, 0)
	    : NULL,
		   *res = NULL;
	struct axp_eval_opts o;
	char *out;

	memset(&o, 0, sizeof(o));
	o.strict = strict;
	if (q == NULL || axp_eval(q, in, &o, &res, NULL) < 0)
		out = axg_strdup("error");
	else
		out = axv_json_str(res);
	axv_unref(res);
	axv_unref(in);
	axp_query_free(q);
	return out;
}

/* The JSON of data.t.r on a module with base data and an input. */
static char *
eval_data(const char *module, const char *data, const char *input, bool strict)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	char *out;

	axp_compiler_add_module(c, "t.rego", module, strlen(module));
	c->data = axv_from_json(data, strlen(data), NULL, NULL, 0);
	p = axp_compiler_compile(c);
	out = p != NULL ? eval_on(p, "x = data.t.r", input, strict)
			: axg_strdup("compile error");
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

/* data.a.b[k] of base data in one statement: the same answers as reading
 * the document first, with-modifiers on data from a caller included. */
static void
test_basedata_fusion(void)
{
	static const char data[] = "{\"cfg\": {\"hosts\": {\"a\": 1, "
				   "\"b\": [2]}, \"list\": [5, 6]}}";
	static const char *const inputs[] = { "{\"k\": \"a\"}",
		"{\"k\": \"b\"}", "{\"k\": \"zz\"}", "{\"k\": 1}", "{}",
		"{\"k\": 0}" };
	/* @: d, the document, read by a second statement (no fusion) */
	static const char mod[] =
	    "package t\n"
	    "v(k) := x if {\nd := data.cfg.hosts@\nx := d[k]\n}\n"
	    "l(k) := x if {\nd := data.cfg.list@\nx := d[k]\n}\n"
	    "n(k) := x if {\nd := data.none.here@\nx := d[k]\n}\n"
	    "default qv := null\nqv := v(input.k)\n"
	    "default ql := null\nql := l(input.k)\n"
	    "default qn := null\nqn := n(input.k)\n"
	    "q := [qv, ql, qn]\n"
	    "r := [q, q1, q2] if {\n"
	    "q1 := q with data.cfg.hosts as {\"a\": 9, \"zz\": 7}\n"
	    "q2 := q with data.cfg as {\"list\": [8]}\n}\n";
	char *f = with_use(mod, ""), *g = with_use(mod, "\nd == d");
	int bad = 0, strict;
	size_t i;

	for (strict = 0; strict < 2; strict++)
		for (i = 0; i < AXG_ARRAY_LEN(inputs); i++) {
			char *a = eval_data(f, data, inputs[i], strict);
			char *b = eval_data(g, data, inputs[i], strict);
			if (strcmp(a, b) != 0 || strcmp(a, "[]") == 0) {
				bad++;
				tap_diag("input %s: %s vs %s", inputs[i], a, b);
			}
			free(a);
			free(b);
		}
	is_int(bad, 0,
	    "base data looked up in one statement: same answers, with "
	    "data replaced or not");
	{
		struct axp_compiler *c;
		struct axp_policy *p = compile_mod(f, &c);
		const struct rgroup *gv = find_group(p, "data.t.v");
		const struct block *b = gv ? gv->defs[0]->body : NULL;
		ok(b != NULL && b->n == 1 && b->s[0].op == IR_DOT &&
			b->s[0].path != NULL,
		    "data.cfg.hosts[k]: one DOT with the path");
		axp_policy_free(p);
		axp_compiler_free(c);
	}
	free(f);
	free(g);
}

/* x[k] as a test in one statement: fails on false and undefined only. */
static void
test_dot_test(void)
{
	static const char *const keys[] = { "\"t\"", "\"f\"", "\"n\"", "\"z\"",
		"\"e\"", "\"none\"", "1" };
	/* @: the value read again (no fusion) */
	static const char mod[] =
	    "package t\n"
	    "m := {\"t\": true, \"f\": false, \"n\": null, \"z\": 0, "
	    "\"e\": \"\"}\n"
	    "default p := false\ndefault q := false\ndefault s := false\n"
	    "p if {\nv := m[input.k]\nv@\n}\n"
	    "q if {\nv := input.m[input.k]\nv@\n}\n"
	    "s if {\nnot input.m[input.k]\n}\n";
	char *f = with_use(mod, ""), *g = with_use(mod, "\nv == v");
	int bad = 0;
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(keys); i++) {
		char *in = axg_asprintf("{\"k\": %s, \"m\": {\"t\": true, "
					"\"f\": false, \"n\": null}}",
		    keys[i]);
		char *a = eval_query(f, "x = [data.t.p, data.t.q, data.t.s]",
		    in, false);
		char *b = eval_query(g, "x = [data.t.p, data.t.q, data.t.s]",
		    in, false);
		if (strcmp(a, b) != 0) {
			bad++;
			tap_diag("input %s: %s vs %s", in, a, b);
		}
		free(a);
		free(b);
		free(in);
	}
	is_int(bad, 0, "x[k] as a test: same answers as through a variable");
	{
		struct axp_compiler *c;
		struct axp_policy *p = compile_mod(f, &c);
		const struct rgroup *gp = find_group(p, "data.t.q");
		const struct block *b = gp ? gp->defs[0]->body : NULL;
		ok(b != NULL && b->s[b->n - 1].op == IR_DOT &&
			b->s[b->n - 1].kind == 1,
		    "input.m[input.k] as a test: one DOT");
		axp_policy_free(p);
		axp_compiler_free(c);
	}
	free(f);
	free(g);
}

/* A rule whose value depends on the policy alone is made once, by the
 * first evaluation that needs it, and kept: not one that reads input, is
 * nondeterministic, prints, or met a builtin error it made undefined. */
static void
test_pure_rules(void)
{
	static const char m[] =
	    "package t\n"
	    "mode := object.get(data.cfg, \"mode\", \"proxy\")\n"
	    "modes := {m | some m in data.cfg.all}\n"
	    "uses := count(modes) + 1\n"
	    "host := input.host\n"
	    "now := time.now_ns()\n"
	    "loud := 1 if print(\"x\")\n"
	    "nums := [x | some s in [\"1\", \"a\"]\nx := to_number(s)]\n"
	    "r := [mode, uses]\n"
	    "w := [mode, uses] if {\n"
	    "true with data.cfg as {\"mode\": \"block\", \"all\": []}\n"
	    "} \n"
	    "v := x if {\nx := [mode, uses] with data.cfg as {\"mode\": "
	    "\"block\", \"all\": []}\n}\n";
	static const char data[] =
	    "{\"cfg\": {\"mode\": \"allow\", \"all\": [1, 2, 2]}}";
	static const char *const pure[] = { "data.t.mode", "data.t.modes",
		"data.t.uses", "data.t.r" };
	static const char *const impure[] = { "data.t.host", "data.t.now",
		"data.t.loud", "data.t.w", "data.t.v" };
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	const struct rgroup *g;
	char *got;
	int bad = 0;
	size_t i;

	axp_compiler_add_module(c, "t.rego", m, strlen(m));
	c->data = axv_from_json(data, strlen(data), NULL, NULL, 0);
	p = axp_compiler_compile(c);
	for (i = 0; i < AXG_ARRAY_LEN(pure); i++)
		bad += (g = find_group(p, pure[i])) == NULL || g->purity != 2;
	for (i = 0; i < AXG_ARRAY_LEN(impure); i++)
		bad += (g = find_group(p, impure[i])) == NULL || g->purity != 3;
	is_int(bad, 0, "rules of the policy alone are pure, the others not");
	got = eval_on(p,
	    "x = [data.t.r, data.t.host, data.t.now > 0, "
	    "data.t.loud]",
	    "{\"host\": \"h\"}", false);
	is_str(got, "[{\"x\":[[\"allow\",3],\"h\",true,1]}]", "their values");
	free(got);
	g = find_group(p, "data.t.r");
	ok(g != NULL && g->pre != NULL, "a pure rule's value is kept");
	g = find_group(p, "data.t.host");
	ok(g != NULL && g->pre == NULL, "not one that reads input");
	got = eval_on(p, "x = data.t.host", "{\"host\": \"k\"}", false);
	is_str(got, "[{\"x\":\"k\"}]", "which reads each input");
	free(got);
	got = eval_on(p, "x = data.t.r", NULL, false);
	is_str(got, "[{\"x\":[\"allow\",3]}]", "the kept value, again");
	free(got);
	got = eval_on(p, "x = data.t.v", NULL, false);
	is_str(got, "[{\"x\":[\"block\",1]}]",
	    "under a with-modifier on data the rules are evaluated again");
	free(got);
	got =
	    eval_on(p, "x = data.t.r with data.cfg.mode as \"m\"", NULL, false);
	is_str(got, "[{\"x\":[\"m\",3]}]", "as under a query's");
	free(got);
	got = eval_on(p, "x = data.t.nums", NULL, false);
	is_str(got, "[{\"x\":[1]}]", "a builtin error made undefined");
	free(got);
	g = find_group(p, "data.t.nums");
	ok(g != NULL && g->pre == NULL, "keeps the value from being kept");
	got = eval_on(p, "x = data.t.nums", NULL, true);
	is_str(got, "error", "so that a strict evaluation still fails");
	free(got);
	axp_policy_free(p);
	axp_compiler_free(c);
}

/* r := a if { P; T } and r := b if { P; not T }: the second body is not
 * run when the first succeeded, with the same answers as when it is. */
static void
test_exclusive_defs(void)
{
	static const char *const inputs[] = {
		"{\"m\": {\"ports\": [443]}, \"p\": 443}",
		"{\"m\": {\"ports\": [443]}, \"p\": 80}",
		"{\"m\": {}, \"p\": 443}", "{\"p\": 443}", "{}",
		"{\"m\": {\"ports\": [443]}, \"p\": 443, \"fail\": true}",
		"{\"m\": {\"ports\": 7}, \"p\": 443}"
	};
	/* @: a statement that makes the bodies differ (no exclusion) */
	static const char mod[] =
	    "package t\n"
	    "r := {\"ok\": true, \"m\": m} if {\n"
	    "m := input.m\ninput.p in m.ports\nnot input.fail\n}\n"
	    "r := {\"ok\": false, \"m\": m} if {\n"
	    "m := input.m@\nnot input.p in m.ports\n}\n";
	char *f = with_use(mod, ""), *g = with_use(mod, "\ntrue");
	struct axp_compiler *c;
	struct axp_policy *p;
	const struct rgroup *gr;
	int bad = 0, strict;
	size_t i;

	for (strict = 0; strict < 2; strict++)
		for (i = 0; i < AXG_ARRAY_LEN(inputs); i++) {
			char *a =
			    eval_query(f, "x = data.t.r", inputs[i], strict);
			char *b =
			    eval_query(g, "x = data.t.r", inputs[i], strict);
			if (strcmp(a, b) != 0) {
				bad++;
				tap_diag("input %s: %s vs %s", inputs[i], a, b);
			}
			free(a);
			free(b);
		}
	is_int(bad, 0, "exclusive definitions: same answers as both run");
	p = compile_mod(f, &c);
	gr = find_group(p, "data.t.r");
	ok(gr != NULL && gr->ndefs == 2 && gr->defs[1]->excl_by == 1,
	    "the second definition is marked excluded by the first");
	axp_policy_free(p);
	axp_compiler_free(c);
	p = compile_mod(g, &c);
	gr = find_group(p, "data.t.r");
	ok(gr != NULL && gr->ndefs == 2 && gr->defs[1]->excl_by == 0,
	    "not when the bodies differ before the not");
	axp_policy_free(p);
	axp_compiler_free(c);
	free(f);
	free(g);
	/* a body with several solutions before the test: both run, and
	 * their conflict is found */
	f = eval_query("package t\n"
		       "r := 1 if {\nsome x in input.xs\nx > 1\n}\n"
		       "r := 2 if {\nsome x in input.xs\nnot x > 1\n}\n",
	    "x = data.t.r", "{\"xs\": [1, 2]}", false);
	like_str(f, "complete rules must not produce multiple outputs",
	    "an iteration before the test: the conflict is found");
	free(f);
}

/* Comparisons of two int64 numbers take a shortcut: the same order as
 * the general comparison, at int64's ends and against other numbers. */
static void
test_int_compare(void)
{
	char *got = eval_expr("[9223372036854775807 > -9223372036854775808, "
			      "-9223372036854775808 < 0, 2 <= 2, 3 >= 4, "
			      "1 < 1.5, 2 > 1.5, 1 == 1.0, 1 != 2, "
			      "18446744073709551616 > 9223372036854775807, "
			      "-18446744073709551616 < -9223372036854775808, "
			      "7 < \"7\"]",
	    false);

	is_str(got, "[true,true,true,false,true,true,true,true,true,true,true]",
	    "int64 comparisons, and against floats, big numbers, strings");
	free(got);
}

int
main(void)
{
	test_sprintf();
	test_object_get();
	test_object_hash();
	test_compiled_fastpaths();
	test_input_memo();
	test_split_fusion();
	test_range_fusion();
	test_basedata_fusion();
	test_dot_test();
	test_pure_rules();
	test_exclusive_defs();
	test_int_compare();
	test_lending();
	test_small_ints();
	test_memory();
	return tap_done();
}
