/* Builtins: graphql.*; results, errors, and the bounds on hostile input. */
#include "config.h"

#include "common/common.h"
#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "graphql.parse_query", "[\"{a(x: [1, \\\"s\\\"]) { b }}\"]",
	    "{\"Operations\": [{\"Name\": \"\", \"Operation\": \"query\", "
	    "\"SelectionSet\": [{\"Alias\": \"a\", \"Name\": \"a\", "
	    "\"Arguments\": [{\"Name\": \"x\", \"Value\": {\"Children\": "
	    "[{\"Name\": \"\", \"Value\": {\"ExpectedTypeHasDefault\": false, "
	    "\"Kind\": 1, \"Raw\": \"1\"}}, {\"Name\": \"\", \"Value\": "
	    "{\"ExpectedTypeHasDefault\": false, \"Kind\": 3, \"Raw\": "
	    "\"s\"}}], \"ExpectedTypeHasDefault\": false, \"Kind\": 8, "
	    "\"Raw\": \"\"}}], \"SelectionSet\": [{\"Alias\": \"b\", "
	    "\"Name\": \"b\"}]}]}]}" },
	{ "graphql.parse_query", "[\"\"]", "{}" },
	{ "graphql.parse_query", "[\"{ a\"]",
	    "!eval_builtin_error: graphql.parse_query: Expected Name, found "
	    "<EOF> in GraphQL string at location 1:4" },
	{ "graphql.parse_query", "[\"{ a(x: 'y') }\"]",
	    "!eval_builtin_error: Unexpected <Invalid> in GraphQL string at "
	    "location 1:8" },
	{ "graphql.parse_query", "[\"{ a(x: \\\"\\\\u00e9\\\") }\"]",
	    "{\"Operations\": [{\"Name\": \"\", \"Operation\": \"query\", "
	    "\"SelectionSet\": [{\"Alias\": \"a\", \"Arguments\": "
	    "[{\"Name\": \"x\", \"Value\": {\"ExpectedTypeHasDefault\": "
	    "false, \"Kind\": 3, \"Raw\": \"\\u00e9\"}}], \"Name\": "
	    "\"a\"}]}]}" },
	{ "graphql.parse_query", "[1]",
	    "!eval_type_error: graphql.parse_query: operand 1 must be string" },
	{ "graphql.parse_schema", "[\"enum E { A @deprecated }\"]",
	    "{\"Definitions\": [{\"BuiltIn\": false, \"Description\": \"\", "
	    "\"EnumValues\": [{\"Description\": \"\", \"Directives\": "
	    "[{\"Location\": \"\", \"Name\": \"deprecated\"}], \"Name\": "
	    "\"A\"}], \"Kind\": \"ENUM\", \"Name\": \"E\"}]}" },
	{ "graphql.parse_schema", "[\"type T { f: [String }\"]",
	    "!eval_builtin_error: Expected ], found } in GraphQL string at "
	    "location 1:21" },
	{ "graphql.schema_is_valid", "[\"type Query { a: Int }\"]", "true" },
	{ "graphql.schema_is_valid", "[\"type Query { a: Nope }\"]", "false" },
	{ "graphql.schema_is_valid", "[\"type Query { a: Int a: Int }\"]",
	    "false" },
	{ "graphql.schema_is_valid", "[\"type __Q { a: Int }\"]", "false" },
	{ "graphql.schema_is_valid", "[42]", "false" },
	{ "graphql.is_valid",
	    "[\"{ a { b } }\", \"type Query { a: A } type A { b: Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ a { c } }\", \"type Query { a: A } type A { b: Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a }\", \"type Query { a: A } type A { b: Int }\"]", "false" },
	{ "graphql.is_valid",
	    "[\"query($v: Int) { a }\", \"type Query { a: Int }\"]", "false" },
	{ "graphql.is_valid",
	    "[\"{ ...F } fragment F on Query { ...F }\", "
	    "\"type Query { a: Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a(x: 1) }\", \"type Query { a(x: Int): Int }\"]", "true" },
	{ "graphql.is_valid",
	    "[\"{ a(x: 1.5) }\", \"type Query { a(x: Int): Int }\"]", "false" },
	{ "graphql.is_valid",
	    "[\"{ a(x: 4000000000) }\", \"type Query { a(x: Float): Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ a(x: 99999999999999999999) }\", "
	    "\"type Query { a(x: Float): Int }\"]",
	    "false" },
	{ "graphql.parse",
	    "[\"{ a(x: 99999999999999999999) }\", "
	    "\"type Query { a(x: Int): Int }\"]",
	    "!eval_builtin_error: graphql.parse: Int cannot represent non "
	    "32-bit "
	    "signed integer value: 99999999999999999999 in GraphQL string" },
	{ "graphql.is_valid",
	    "[\"{ a(x: [1, 2]) }\", \"type Query { a(x: [Float!]): Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ a(x: null) }\", \"type Query { a(x: Int!): Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a(e: B) }\", \"type Query { a(e: E): Int } enum E { A }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a(i: {y: 1}) }\", \"type Query { a(i: I): Int } "
	    "input I { x: Int! y: Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a(i: {x: 1, y: 2}) }\", \"type Query { a(i: I): Int } "
	    "input I { x: Int! y: Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"query($v: Int) { a(x: $v) }\", "
	    "\"type Query { a(x: Int!): Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"query($v: Int = 1) { a(x: $v) }\", "
	    "\"type Query { a(x: Int!): Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ a { ... on B { b } } }\", "
	    "\"type Query { a: A } type A { a: Int } type B { b: Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ u { ... on B { b } } }\", "
	    "\"type Query { u: U } union U = A | B type A { a: Int } "
	    "type B { b: Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"subscription { a b }\", "
	    "\"type Query { q: Int } type Subscription { a: Int b: Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a(x: 1, y: 2) a(y: 2, x: 1) }\", "
	    "\"type Query { a(x: Int, y: Int): Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ a(x: 1, y: 2) a(x: 1, y: 3) }\", "
	    "\"type Query { a(x: Int, y: Int): Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[\"{ a { b } a { b } }\", \"type Query { a: A } type A { b: Int "
	    "}\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ u { ... on A { x } ... on B { x } } }\", \"type Query { u: U "
	    "} "
	    "union U = A | B type A { x: Int } type B { x: Int }\"]",
	    "true" },
	{ "graphql.is_valid",
	    "[\"{ u { ... on A { x } ... on B { x } } }\", \"type Query { u: U "
	    "} "
	    "union U = A | B type A { x: Int } type B { x: String }\"]",
	    "false" },
	{ "graphql.parse",
	    "[\"{ a { b } ...F } fragment F on Query { a { b: c } }\", "
	    "\"type Query { a: A } type A { b: Int c: Int }\"]",
	    "!eval_builtin_error: graphql.parse: Fields \"a\" conflict because "
	    "subfields \"b\" conflict because b and c are different fields. "
	    "Use different aliases on the fields to fetch both if this was "
	    "intentional in GraphQL string at location 1:40" },
	{ "graphql.parse",
	    "[\"{ a(x: \\\"s\\\") }\", \"type Query { a(x: Int): Int }\"]",
	    "!eval_builtin_error: graphql.parse: Int cannot represent "
	    "non-integer value: \"s\" in GraphQL string at location 1:9" },
	{ "graphql.parse",
	    "[\"{ a { c } }\", \"type Query { a: A } type A { b: Int }\"]",
	    "!eval_builtin_error: graphql.parse: Cannot query field \"c\" on "
	    "type \"A\". Did you mean \"b\"? in GraphQL string at location "
	    "1:7" },
	{ "graphql.parse",
	    "[\"{ u { b } }\", \"type Query { u: U } union U = A | B "
	    "type A { a: Int } type B { b: Int }\"]",
	    "!eval_builtin_error: graphql.parse: Cannot query field \"b\" on "
	    "type \"U\". Did you mean to use an inline fragment on \"B\"? in "
	    "GraphQL string at location 1:7" },
	{ "graphql.parse", "[\"{ a }\", \"type Query { a: Int }\"]",
	    "[{\"Operations\": [{\"Name\": \"\", \"Operation\": \"query\", "
	    "\"SelectionSet\": [{\"Alias\": \"a\", \"Name\": \"a\"}]}]}, "
	    "{\"Definitions\": [{\"BuiltIn\": false, \"Description\": \"\", "
	    "\"Fields\": [{\"Description\": \"\", \"Name\": \"a\", \"Type\": "
	    "{\"NamedType\": \"Int\", \"NonNull\": false}}], \"Kind\": "
	    "\"OBJECT\", \"Name\": \"Query\"}]}]" },
	{ "graphql.parse_and_verify", "[\"{ b }\", \"type Query { a: Int }\"]",
	    "[false, {}, {}]" },
	{ "graphql.is_valid",
	    "[{\"Operations\": [{\"Operation\": \"query\", \"SelectionSet\": "
	    "[null]}]}, \"type Query { a: Int }\"]",
	    "false" },
	{ "graphql.is_valid",
	    "[{\"Operations\": [{\"SelectionSet\": [{\"Name\": \"a\", "
	    "\"Arguments\": [{\"Name\": \"x\"}]}, {\"Name\": \"a\", "
	    "\"Arguments\": [{\"Name\": \"x\"}]}]}]}, "
	    "\"type Query { a(x: Int): Int }\"]",
	    "true" },
	{ "graphql.parse_and_verify",
	    "[{\"Operations\": [{\"Operation\": \"query\", \"SelectionSet\": "
	    "[{\"Alias\": \"a\", \"Name\": \"a\"}]}]}, "
	    "\"type Query { a: Int }\"]",
	    "[true, {\"Operations\": [{\"Name\": \"\", \"Operation\": "
	    "\"query\", \"SelectionSet\": [{\"Alias\": \"a\", \"Name\": "
	    "\"a\"}]}]}, {\"Definitions\": [{\"BuiltIn\": false, "
	    "\"Description\": \"\", \"Fields\": [{\"Description\": \"\", "
	    "\"Name\": \"a\", \"Type\": {\"NamedType\": \"Int\", \"NonNull\": "
	    "false}}], \"Kind\": \"OBJECT\", \"Name\": \"Query\"}]}]" },
};

/* Call a builtin on string arguments; returns its status, *msg the error
 * message (static) when it failed. */
static int
call(const char *fn, const char *a, const char *b, struct axv **out,
    const char **msg)
{
	static struct axp_bctx ctx;
	const struct axp_builtin *bi = axp_builtin_lookup(fn, strlen(fn));
	struct axv *args[2] = { axv_cstr(a), b != NULL ? axv_cstr(b) : NULL };
	int rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.name = fn;
	*out = NULL;
	rc = bi->fn(&ctx, args, out);
	*msg = ctx.msg;
	axv_unref(args[0]);
	axv_unref(args[1]);
	return rc;
}

static char *
repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	axg_buf_puts(&b, head);
	for (size_t i = 0; i < n; i++)
		axg_buf_puts(&b, unit);
	axg_buf_puts(&b, tail);
	axg_buf_putc(&b, 0);
	return axg_buf_steal(&b, NULL);
}

static void
want_error(const char *what, const char *fn, const char *a, const char *b,
    const char *text)
{
	struct axv *out;
	const char *msg;
	int rc = call(fn, a, b, &out, &msg);

	if (!ok(rc == AXP_BI_ERROR && strstr(msg, text) != NULL, "%s", what))
		tap_diag("rc %d: %s", rc, msg);
	axv_unref(out);
}

static void
want_bool(const char *what, const char *fn, const char *a, const char *b,
    bool want)
{
	struct axv *out;
	const char *msg;
	int rc = call(fn, a, b, &out, &msg);

	if (!ok(rc == AXP_BI_OK && axv_kind(out) == AXV_BOOL &&
		    axv_bool_get(out) == want,
		"%s", what))
		tap_diag("rc %d: %s", rc, msg);
	axv_unref(out);
}

static void
bounds(void)
{
	char *s;

	s = repeat("", "{a", 100000, "");
	want_error("deep selections end with an error", "graphql.parse_query",
	    s, NULL, "nesting deeper than");
	free(s);
	s = repeat("{ a(x: ", "[", 100000, "");
	want_error("deep list values end with an error", "graphql.parse_query",
	    s, NULL, "nesting deeper than");
	free(s);
	s = repeat("{ a(x: ", "{b: ", 100000, "");
	want_error("deep object values end with an error",
	    "graphql.parse_query", s, NULL, "nesting deeper than");
	free(s);
	s = repeat("type T { f: ", "[", 100000, "");
	want_error("deep list types end with an error", "graphql.parse_schema",
	    s, NULL, "nesting deeper than");
	free(s);
	s = repeat("{", " a", 300000, "}");
	want_error("too many tokens end with an error", "graphql.parse_query",
	    s, NULL, "more than 250000 tokens");
	free(s);
	s = repeat("#", "xxxxxxxxxxxxxxxx", 300000, "\n{a}");
	want_error("a huge document is refused", "graphql.parse_query", s, NULL,
	    "larger than");
	want_bool("a huge document is not valid", "graphql.is_valid", s,
	    "type Query { a: Int }", false);
	free(s);

	/* a long chain of fragments: the walk into spreads is bounded */
	{
		struct axg_buf b;

		axg_buf_init(&b, 0);
		axg_buf_puts(&b, "{ ...F0 }\n");
		for (int i = 0; i < 5000; i++)
			axg_buf_printf(&b, "fragment F%d on Query { ...F%d }\n",
			    i, i + 1);
		axg_buf_puts(&b, "fragment F5000 on Query { a }\n");
		axg_buf_putc(&b, 0);
		want_bool("a long chain of fragments is refused",
		    "graphql.is_valid", b.data, "type Query { a: Int }", false);
		axg_buf_free(&b);
	}
	/* many operations spreading one big fragment: the walk is bounded */
	{
		struct axg_buf b;

		axg_buf_init(&b, 0);
		for (int i = 0; i < 3200; i++)
			axg_buf_printf(&b, "query Q%d { ...F }\n", i);
		axg_buf_puts(&b, "fragment F on Query {");
		for (int i = 0; i < 3200; i++)
			axg_buf_puts(&b, " a");
		axg_buf_puts(&b, " }");
		axg_buf_putc(&b, 0);
		want_error("too many selections to visit end with an error",
		    "graphql.parse", b.data, "type Query { a: Int }",
		    "validation visits more than");
		axg_buf_free(&b);
	}
	/* comparing many fields of one name pairwise is bounded */
	s = repeat("{", " a", 2000, " }");
	want_error("too many fields to compare end with an error",
	    "graphql.parse", s, "type Query { a: Int }",
	    "validation compares more than");
	free(s);
	/* long lists are looked up through an index, not searched */
	{
		struct axg_buf q, sc;

		axg_buf_init(&q, 0);
		axg_buf_init(&sc, 0);
		axg_buf_puts(&q, "{ f(");
		axg_buf_puts(&sc, "type Query { f(");
		for (int i = 0; i < 40000; i++) {
			axg_buf_printf(&q, "a%d: %d ", i, i);
			axg_buf_printf(&sc, "a%d: Int! ", i);
		}
		axg_buf_puts(&q, ") }");
		axg_buf_puts(&sc, "): Int }");
		axg_buf_putc(&q, 0);
		axg_buf_putc(&sc, 0);
		want_bool("a field with 40000 arguments is valid",
		    "graphql.is_valid", q.data, sc.data, true);
		axg_buf_free(&q);
		axg_buf_free(&sc);
	}
	/* and a short one is fine */
	want_bool("a short chain of fragments is valid", "graphql.is_valid",
	    "{ ...F0 } fragment F0 on Query { ...F1 } "
	    "fragment F1 on Query { a }",
	    "type Query { a: Int }", true);
}

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	bounds();
	return tap_done();
}
