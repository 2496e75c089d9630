/* Unit tests of policy/builtins-encoding.c: base64, hex, urlquery, json,
 * yaml. */
#include "config.h"

#include "tests/unit/policy-bi-rows.h"

static const struct bi_row rows[] = {
	/* base64 */
	{ "base64.encode", "[\"hello\"]", "\"aGVsbG8=\"" },
	{ "base64.encode", "[\"subjects?_d\"]", "\"c3ViamVjdHM/X2Q=\"" },
	{ "base64.encode", "[\"\"]", "\"\"" },
	{ "base64.encode", "[1]",
	    "!eval_type_error:base64.encode: operand 1 must be string but got "
	    "number" },
	{ "base64.decode", "[\"aGVsbG8=\"]", "\"hello\"" },
	{ "base64.decode", "[\"c3ViamVjdHM/X2Q=\"]", "\"subjects?_d\"" },
	{ "base64.decode", "[\"aGVs\\nbG8=\"]", "\"hello\"" },
	{ "base64.decode", "[\"aGVsbG8\"]",
	    "!eval_builtin_error:base64.decode: illegal base64 data at input "
	    "byte 4" },
	{ "base64.decode", "[\"a$\"]",
	    "!eval_builtin_error:illegal base64 data at input byte 1" },
	{ "base64.decode", "[\"aGVsbG8=x\"]",
	    "!eval_builtin_error:illegal base64 data at input byte 8" },
	{ "base64.is_valid", "[\"aGVsbG8=\"]", "true" },
	{ "base64.is_valid", "[\"{'not':'base64'}\"]", "false" },
	{ "base64url.encode", "[\"subjects?_d\"]", "\"c3ViamVjdHM_X2Q=\"" },
	{ "base64url.encode_no_pad", "[\"hello\"]", "\"aGVsbG8\"" },
	{ "base64url.decode", "[\"aGVsbG8=\"]", "\"hello\"" },
	{ "base64url.decode", "[\"aGVsbG8\"]", "\"hello\"" },
	{ "base64url.decode", "[\"aGVsbA\"]", "\"hell\"" },
	{ "base64url.decode", "[\"c3ViamVjdHM_X2Q\"]", "\"subjects?_d\"" },
	{ "base64url.decode", "[\"aGVsb\"]",
	    "!eval_builtin_error:illegal base64url string: aGVsb" },
	{ "base64url.decode", "[\"c3ViamVjdHM/X2Q=\"]",
	    "!eval_builtin_error:illegal base64 data at input byte 11" },
	/* hex */
	{ "hex.encode", "[\"lorem ipsum\"]", "\"6c6f72656d20697073756d\"" },
	{ "hex.decode", "[\"6c6f72656D20697073756d\"]", "\"lorem ipsum\"" },
	{ "hex.decode", "[\"6c6g\"]",
	    "!eval_builtin_error:hex.decode: invalid byte: U+0067 'g'" },
	{ "hex.decode", "[\"6c6\"]",
	    "!eval_builtin_error:odd length hex string" },
	{ "hex.decode", "[\"6c6z\"]", "!eval_builtin_error:U+007A 'z'" },
	/* urlquery */
	{ "urlquery.encode", "[\"a=b+1\"]", "\"a%3Db%2B1\"" },
	{ "urlquery.encode", "[\"\"]", "\"\"" },
	{ "urlquery.encode", "[\"x y/~é\"]", "\"x+y%2F~%C3%A9\"" },
	{ "urlquery.decode", "[\"a%3Db%2B1\"]", "\"a=b+1\"" },
	{ "urlquery.decode", "[\"a+b%20c\"]", "\"a b c\"" },
	{ "urlquery.decode", "[\"a%zzb\"]",
	    "!eval_builtin_error:urlquery.decode: invalid URL escape "
	    "\"%zz\"" },
	{ "urlquery.decode", "[\"ab%4\"]",
	    "!eval_builtin_error:invalid URL escape \"%4\"" },
	{ "urlquery.encode_object", "[{\"a\": \"c=b+1\"}]", "\"a=c%3Db%2B1\"" },
	{ "urlquery.encode_object",
	    "[{\"b\": [\"2\", \"1\"], \"a\": {\"$set\": [\"y\", \"x\"]}}]",
	    "\"a=x&a=y&b=2&b=1\"" },
	{ "urlquery.encode_object", "[{\"a\": 1}]",
	    "!eval_builtin_error:query parameters must be strings or arrays "
	    "of strings" },
	{ "urlquery.encode_object", "[{\"a\": [1]}]",
	    "!eval_builtin_error:multiple value types not allowed" },
	{ "urlquery.encode_object", "[\"a\"]",
	    "!eval_type_error:operand 1 must be object but got string" },
	{ "urlquery.decode_object", "[\"a=value_a1&b=value_b&a=value_a2\"]",
	    "{\"a\":[\"value_a1\",\"value_a2\"],\"b\":[\"value_b\"]}" },
	{ "urlquery.decode_object", "[\"a=value_a1&b\"]",
	    "{\"a\":[\"value_a1\"],\"b\":[\"\"]}" },
	{ "urlquery.decode_object", "[\"\"]", "{}" },
	{ "urlquery.decode_object", "[\"a=1;b=2\"]",
	    "!eval_builtin_error:invalid semicolon separator in query" },
	{ "urlquery.decode_object", "[\"x%2=1\"]",
	    "!eval_builtin_error:invalid URL escape \"%2\"" },
	/* json */
	{ "json.marshal", "[[{\"foo\": {\"$set\": [3, 1, 2]}}]]",
	    "\"[{\\\"foo\\\":[1,2,3]}]\"" },
	{ "json.marshal", "[[1234567890, 2000000, 1e9, 1.5]]",
	    "\"[1234567890,2000000,1000000000,1.5]\"" },
	{ "json.marshal", "[\"<a&b>\\u2028\"]",
	    "\"\\\"\\\\u003ca\\\\u0026b\\\\u003e\\\\u2028\\\"\"" },
	{ "json.marshal", "[{\"b\": null, \"a\": [true]}]",
	    "\"{\\\"a\\\":[true],\\\"b\\\":null}\"" },
	{ "json.marshal_with_options",
	    "[{\"a\": [1, 2], \"b\": {}}, {\"pretty\": true}]",
	    "\"{\\n\\t\\\"a\\\": "
	    "[\\n\\t\\t1,\\n\\t\\t2\\n\\t],\\n\\t\\\"b\\\": "
	    "{}\\n}\"" },
	{ "json.marshal_with_options",
	    "[[1], {\"prefix\": \"--\", \"indent\": \" \"}]",
	    "\"--[\\n-- 1\\n--]\"" },
	{ "json.marshal_with_options",
	    "[[1], {\"indent\": \" \", \"pretty\": false}]", "\"[1]\"" },
	{ "json.marshal_with_options", "[[1], {}]", "\"[1]\"" },
	{ "json.marshal_with_options", "[[1], {\"pretty\": 1}]",
	    "!eval_type_error:operand 2 pretty option must be a boolean" },
	{ "json.marshal_with_options", "[[1], {\"colour\": 1}]",
	    "!eval_type_error:operand 2 object contained unknown key colour" },
	{ "json.unmarshal", "[\"[{\\\"foo\\\":[1,2,3]}]\"]",
	    "[{\"foo\":[1,2,3]}]" },
	{ "json.unmarshal", "[1]",
	    "!eval_type_error:operand 1 must be string but got number" },
	{ "json.unmarshal", "[\"{\"]", "!eval_builtin_error:json.unmarshal: " },
	{ "json.is_valid", "[\"plainstring\"]", "false" },
	{ "json.is_valid", "[\"{\"]", "false" },
	{ "json.is_valid", "[\"{\\\"json\\\": \\\"ok\\\"}\"]", "true" },
	{ "json.is_valid", "[1]", "false" },
	/* yaml */
	{ "yaml.is_valid", "[\"foo:\\n- qux: bar\\n- baz: 2\"]", "true" },
	{ "yaml.is_valid", "[\"foo:\\n- qux: bar\\n- baz: {\"]", "false" },
	{ "yaml.is_valid", "[\"{\\\"json\\\": \\\"ok\\\"}\"]", "true" },
	{ "yaml.is_valid", "[1]", "false" },
	{ "yaml.unmarshal", "[\"[1,2,3\"]",
	    "!eval_builtin_error:yaml.unmarshal: yaml: line 1: did not find" },
	{ "yaml.unmarshal",
	    "[\"a: 1\\nb: [x, 'y', \\\"z\\\"]\\nc: ~\\nd: yes\\ne: off\\n"
	    "f: 1.5\\ng: 0x1f\\nh: '1'\\ni: 12345678901234567890123\\n"
	    "j: !!str 7\\n3: three\"]",
	    "{\"3\":\"three\",\"a\":1,\"b\":[\"x\",\"y\",\"z\"],\"c\":null,"
	    "\"d\":true,\"e\":false,\"f\":1.5,\"g\":31,\"h\":\"1\","
	    "\"i\":12345678901234567890123,\"j\":\"7\"}" },
	{ "yaml.unmarshal", "[\"\"]", "null" },
	{ "yaml.unmarshal", "[\"x: &a [1, 2]\\nz: *a\\n\"]",
	    "{\"x\":[1,2],\"z\":[1,2]}" },
	/* YAML 1.1, as Go's yaml.v2: a key "y" is the boolean true */
	{ "yaml.unmarshal", "[\"y: 1\"]", "{\"true\":1}" },
	{ "yaml.unmarshal", "[\"x: *nope\"]",
	    "!eval_builtin_error:unknown anchor 'nope' referenced" },
	{ "yaml.unmarshal", "[\"a: 1\\n---\\nb: 2\\n\"]", "{\"a\":1}" },
	{ "yaml.unmarshal", "[\"x: .inf\"]",
	    "!eval_builtin_error:unsupported value" },
	{ "yaml.marshal", "[[{\"foo\": {\"$set\": [1, 2, 3]}}]]",
	    "\"- foo:\\n  - 1\\n  - 2\\n  - 3\\n\"" },
	{ "yaml.marshal",
	    "[{\"b\": \"true\", \"a\": \"x\", \"c\": \"1.5\", \"d\": {}, "
	    "\"e\": [], \"f\": null, \"g\": \"two\\nlines\"}]",
	    "\"a: x\\nb: \\\"true\\\"\\nc: \\\"1.5\\\"\\nd: {}\\ne: []\\n"
	    "f: null\\ng: |-\\n  two\\n  lines\\n\"" },
	{ "yaml.marshal", "[\"a: b\"]", "\"'a: b'\\n\"" },
};

/* Alias bombs stop at the node bound instead of eating memory. */
static void
test_yaml_bomb(void)
{
	struct axg_buf b;
	struct bi_row r;
	char *args;
	int i;

	axg_buf_init(&b, 0);
	axg_buf_puts(&b, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\\n");
	for (i = 1; i < 10; i++)
		axg_buf_printf(&b,
		    "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
		    "*a%d, *a%d, *a%d]\\n",
		    i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
		    i - 1, i - 1, i - 1);
	args = axg_asprintf("[\"%s\"]", b.data);
	r.name = "yaml.unmarshal";
	r.args = args;
	r.want = "!eval_builtin_error:excessive aliasing";
	bi_check(&r, false);
	free(args);
	axg_buf_free(&b);
}

/* Round trips through the encoders and decoders. */
static void
test_roundtrip(void)
{
	const char *doc = "[{\"a\":[1,2.5,\"x y\",true,null,{}],"
			  "\"b\":\"yes\",\"c\":\"0x10\",\"d\":\"\"}]";
	struct axv *y, *back, *want;
	struct axp_bctx ctx;
	char err[64];

	want = axv_from_json(doc, strlen(doc), NULL, err, sizeof(err));
	{
		struct axv *av[1] = { want };
		int rc = bi_call("yaml.marshal", av, 1, &ctx, &y);
		is_int(rc, AXP_BI_OK, "yaml.marshal of a mixed document");
		av[0] = y;
		rc = bi_call("yaml.unmarshal", av, 1, &ctx, &back);
		is_int(rc, AXP_BI_OK, "yaml.unmarshal of its output");
		ok(back && axv_equal(back, want), "yaml round trip is exact");
		if (back && !axv_equal(back, want))
			tap_diag("yaml: %s", axv_str(y));
		axv_unref(back);
		axv_unref(y);
	}
	axv_unref(want);
}

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	test_yaml_bomb();
	test_roundtrip();
	return tap_done();
}
