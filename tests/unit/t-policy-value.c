/* Unit tests of policy/value*.c and the builtin registry. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value.h"
#include "tests/tap.h"

static struct axv *
J(const char *text)
{
	char err[128];
	struct axv *v =
	    axv_from_json(text, strlen(text), NULL, err, sizeof(err));

	if (v == NULL)
		tap_diag("parse %s: %s", text, err);
	return v;
}

static void
is_json(struct axv *v, const char *want, const char *name)
{
	char *s = v ? axv_json_str(v) : axg_strdup("(null)");

	is_str(s, want, "%s", name);
	free(s);
}

static void
test_json_roundtrip(void)
{
	struct axv *v;

	v = J(" {\"b\": [1, 2.5, true, null], \"a\": \"x\\u00e9\\n\"} ");
	is_json(v, "{\"a\":\"xé\\n\",\"b\":[1,2.5,true,null]}",
	    "object keys come out sorted");
	axv_unref(v);
	v = J("123456789012345678901234567890");
	is_json(v, "123456789012345678901234567890", "big integer kept exact");
	axv_unref(v);
	v = J("1e3");
	is_json(v, "1000", "integral float becomes an integer");
	axv_unref(v);
	v = J("\"\\ud83d\\ude00\"");
	is_json(v, "\"\xf0\x9f\x98\x80\"", "surrogate pair decoded");
	axv_unref(v);
}

static void
test_json_errors(void)
{
	char err[128] = "";
	struct axv_json_limits lim = { 0, 3 };

	ok(axv_from_json("{\n  \"a\": tru\n}", 14, NULL, err, sizeof(err)) ==
		NULL,
	    "bad literal rejected");
	like_str(err, "line 2, column 8", "error is located");
	ok(axv_from_json("[[[[1]]]]", 9, &lim, err, sizeof(err)) == NULL,
	    "depth limit");
	like_str(err, "nesting too deep", "depth error says so");
	ok(axv_from_json("[1,]", 4, NULL, err, sizeof(err)) == NULL,
	    "trailing comma rejected");
	ok(axv_from_json("1 2", 3, NULL, err, sizeof(err)) == NULL,
	    "trailing garbage rejected");
	ok(axv_from_json("\"\xff\"", 3, NULL, err, sizeof(err)) == NULL,
	    "bad UTF-8 rejected");
	lim.max_depth = 0;
	lim.max_bytes = 4;
	ok(axv_from_json("[1,2,3]", 7, &lim, err, sizeof(err)) == NULL,
	    "size limit");
}

static void
test_order(void)
{
	const char *chain[] = { "null", "false", "true", "-5", "1", "1.5",
		"99999999999999999999", "\"\"", "\"a\"", "\"ab\"", "[]", "[1]",
		"[1,2]", "[2]", "{}", "{\"a\":1}", "{\"a\":2}", "{\"b\":0}" };
	size_t i;
	bool sorted = true;

	for (i = 0; i + 1 < AXG_ARRAY_LEN(chain); i++) {
		struct axv *a = J(chain[i]), *b = J(chain[i + 1]);
		if (axv_compare(a, b) >= 0 || axv_compare(b, a) <= 0) {
			tap_diag("%s should sort before %s", chain[i],
			    chain[i + 1]);
			sorted = false;
		}
		axv_unref(a);
		axv_unref(b);
	}
	ok(sorted, "OPA's total order over kinds and within kinds");
	{
		struct axv *s = axv_set_new(0), *o = J("{}");
		ok(axv_compare(o, s) < 0, "objects sort before sets");
		axv_unref(s);
		axv_unref(o);
	}
	{
		struct axv *a = J("1"), *b = J("1.0"), *c = J("2.5"),
			   *d = J("2.50");
		ok(axv_equal(a, b), "1 == 1.0");
		ok(axv_equal(c, d), "2.5 == 2.50");
		ok(axv_hash(a) == axv_hash(b), "equal numbers hash alike");
		axv_unref(a);
		axv_unref(b);
		axv_unref(c);
		axv_unref(d);
	}
}

static void
test_composites(void)
{
	struct axv *s = axv_set_new(0), *o = axv_object_new(0), *k;
	char *t;

	axv_set_add(s, axv_int(3));
	axv_set_add(s, axv_cstr("x"));
	axv_set_add(s, axv_int(1));
	axv_set_add(s, axv_int(3));
	is_int((long long)axv_set_len(s), 3, "set drops duplicates");
	t = axv_to_rego_string(s);
	is_str(t, "{1, 3, \"x\"}", "set as Rego text, sorted");
	free(t);
	is_json(s, "[1,3,\"x\"]", "set as JSON array");
	k = axv_int(3);
	ok(axv_set_contains(s, k), "set membership");
	axv_unref(k);

	axv_object_put(o, axv_array_new(0), axv_cstr("empty array key"));
	axv_object_put(o, axv_cstr("s"), axv_int(1));
	axv_object_put(o, axv_cstr("s"), axv_int(2));
	is_int((long long)axv_object_len(o), 2, "put replaces");
	is_json(o, "{\"s\":2,\"[]\":\"empty array key\"}",
	    "composite key as JSON text");
	ok(axv_object_gets(o, "s") != NULL, "lookup by C string");
	ok(!axv_object_put_unique(o, axv_cstr("s"), axv_int(5)),
	    "put_unique reports a conflict");
	ok(axv_object_put_unique(o, axv_cstr("s"), axv_int(2)),
	    "put_unique accepts the same value");
	axv_unref(o);
	axv_unref(s);
	s = axv_set_new(0);
	t = axv_to_rego_string(s);
	is_str(t, "set()", "empty set as Rego text");
	free(t);
	axv_unref(s);
}

static void
test_numbers(void)
{
	struct axv *a = J("9223372036854775807"), *one = axv_int(1), *r;
	struct axv *b, *c;

	r = axv_num_add(a, one);
	is_json(r, "9223372036854775808", "int64 overflow goes exact");
	b = axv_num_sub(r, one);
	ok(axv_equal(a, b), "and comes back");
	axv_unref(b);
	b = axv_num_mul(r, r);
	is_json(b, "85070591730234615865843651857942052864", "big multiply");
	c = axv_num_div(b, r);
	ok(axv_equal(c, r), "exact big division");
	axv_unref(c);
	axv_unref(b);
	axv_unref(r);
	b = axv_int(7);
	c = axv_int(2);
	r = axv_num_div(b, c);
	is_json(r, "3.5", "7 / 2");
	axv_unref(r);
	r = axv_num_rem(b, c);
	is_json(r, "1", "7 % 2");
	axv_unref(r);
	r = axv_int(-7);
	axv_unref(b);
	b = axv_num_rem(r, c);
	is_json(b, "-1", "-7 % 2 truncates like Go");
	axv_unref(b);
	axv_unref(r);
	axv_unref(c);
	r = J("0.1");
	b = J("0.2");
	c = axv_num_add(r, b);
	is_json(c, "0.30000000000000004", "float sum, shortest text");
	axv_unref(a);
	axv_unref(one);
	axv_unref(r);
	axv_unref(b);
	axv_unref(c);
}

/* Literals past binary64's range: exact when integral, written back as
 * they came (OPA keeps a json.Number's text), refused with a fraction or
 * past the digit limit. */
static void
test_huge_literals(void)
{
	static const char frac[] =
	    "1.00000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000"
	    "000000001e309";
	struct axv *a = J("2e308"), *b = J("20e307"), *c = J("1e308"), *r;
	char err[128];

	is_json(a, "2e308", "2e308 written as it came");
	ok(a && b && axv_equal(a, b), "2e308 == 20e307, exactly");
	ok(a && c && axv_num_cmp(a, c) > 0, "2e308 > 1e308");
	ok(a && axv_num_is_int(a), "2e308 is an integer");
	r = a ? axv_num_sub(a, b) : NULL;
	is_json(r, "0", "2e308 - 20e307");
	axv_unref(r);
	axv_unref(a);
	axv_unref(b);
	axv_unref(c);
	a = J("[-2.5e308]");
	is_json(a, "[-2.5e308]", "a fraction that the exponent absorbs");
	axv_unref(a);
	a = axv_from_json(frac, strlen(frac), NULL, err, sizeof(err));
	ok(a == NULL, "a fraction left after the exponent is refused");
	axv_unref(a);
	a = axv_from_json("1e5000", 6, NULL, err, sizeof(err));
	ok(a == NULL, "more than 4096 digits is refused");
	axv_unref(a);
}

static int
call(const char *name, const char *a, const char *b, char **res,
    struct axp_bctx *ctx)
{
	const struct axp_builtin *bi = axp_builtin_lookup(name, strlen(name));
	struct axv *args[2] = { NULL, NULL }, *out = NULL;
	int rc;

	*res = NULL;
	if (bi == NULL)
		return -100;
	memset(ctx, 0, sizeof(*ctx));
	ctx->name = bi->name;
	args[0] = J(a);
	if (b)
		args[1] = J(b);
	rc = bi->fn(ctx, args, &out);
	if (rc == AXP_BI_OK) {
		*res = axv_json_str(out);
		axv_unref(out);
	}
	axv_unref(args[0]);
	axv_unref(args[1]);
	return rc;
}

static void
test_builtins(void)
{
	struct axp_bctx ctx;
	char *r;

	ok(axp_builtin_lookup("plus", 4) != NULL, "plus is registered");
	ok(axp_builtin_lookup("plu", 3) == NULL, "prefix is not a match");
	ok(axp_builtin_lookup("nope", 4) == NULL, "unknown name");
	is_str(axp_builtin_infix("%"), "rem", "infix % is rem");
	is_int(call("plus", "1", "2", &r, &ctx), AXP_BI_OK, "plus ok");
	is_str(r, "3", "1 + 2");
	free(r);
	is_int(call("div", "1", "0", &r, &ctx), AXP_BI_ERROR, "div by 0");
	is_str(ctx.msg, "div: divide by zero", "OPA's message");
	is_str(axp_errcode_str(ctx.code), "eval_builtin_error", "OPA's code");
	is_int(call("plus", "1", "\"a\"", &r, &ctx), AXP_BI_ERROR, "plus type");
	is_str(ctx.msg, "plus: operand 2 must be number but got string",
	    "operand type message");
	is_str(axp_errcode_str(ctx.code), "eval_type_error", "type code");
	is_int(call("count", "\"h\xc3\xa9\"", NULL, &r, &ctx), AXP_BI_OK,
	    "count of a string");
	is_str(r, "2", "counts code points");
	free(r);
	is_int(call("concat", "\", \"", "[\"a\",\"b\"]", &r, &ctx), AXP_BI_OK,
	    "concat");
	is_str(r, "\"a, b\"", "concat joins");
	free(r);
	is_int(call("lt", "[1]", "[1,0]", &r, &ctx), AXP_BI_OK, "lt");
	is_str(r, "true", "[1] < [1, 0]");
	free(r);
	is_int(call("rem", "1.5", "1", &r, &ctx), AXP_BI_ERROR, "rem float");
	is_str(ctx.msg, "rem: modulo on floating-point number", "rem message");
	/* past binary64: an error, never an "inf" that no JSON can hold */
	is_int(call("mul", "1e308", "10", &r, &ctx), AXP_BI_ERROR,
	    "1e308 * 10 overflows a float");
	is_str(ctx.msg, "mul: arithmetic result out of range",
	    "overflow message");
	is_int(call("sum", "[1e308, 1e308]", NULL, &r, &ctx), AXP_BI_ERROR,
	    "and so does sum([1e308, 1e308])");
	is_int(call("div", "2e308", "3", &r, &ctx), AXP_BI_OK,
	    "2e308 / 3 fits a double");
	{
		struct axv *q = r ? J(r) : NULL;
		double d = q ? axv_num_get_double(q) : 0;

		ok(d > 6.66666666666666e307 && d < 6.66666666666667e307,
		    "and is its double (%s)", r ? r : "?");
		axv_unref(q);
	}
	free(r);
}

int
main(void)
{
	test_json_roundtrip();
	test_json_errors();
	test_order();
	test_composites();
	test_numbers();
	test_huge_literals();
	test_builtins();
	return tap_done();
}
