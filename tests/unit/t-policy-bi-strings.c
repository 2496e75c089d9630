/* Builtins: the string family (builtins-strings.c). */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "concat", "[\"/\", [\"\", \"foo\", \"bar\", \"0\", \"baz\"]]",
	    "\"/foo/bar/0/baz\"" },
	{ "concat", "[\",\", {\"$set\": [\"2\", \"1\"]}]", "\"1,2\"" },
	/* predicates */
	{ "contains", "[\"abcdefgh\", \"defg\"]", "true" },
	{ "contains", "[\"abcdefgh\", \"ac\"]", "false" },
	{ "contains", "[\"abc\", \"\"]", "true" },
	{ "contains", "[\"abc\", 1]",
	    "!eval_type_error: contains: operand 2 must be string but got "
	    "number" },
	{ "startswith", "[\"abcdefgh\", \"abc\"]", "true" },
	{ "startswith", "[\"abcdefgh\", \"bcd\"]", "false" },
	{ "startswith", "[\"ab\", \"abc\"]", "false" },
	{ "endswith", "[\"abcdefgh\", \"fgh\"]", "true" },
	{ "endswith", "[\"abcdefgh\", \"fg\"]", "false" },
	{ "endswith", "[1, \"fg\"]",
	    "!eval_type_error: endswith: operand 1 must be string but got "
	    "number" },
	{ "strings.any_prefix_match",
	    "[[\"a/b/c\", \"a/b/d\", \"e/f/g\"], [\"a/\", \"d/\"]]", "true" },
	{ "strings.any_prefix_match",
	    "[[\"a/b/c\", \"a/b/d\", \"e/f/g\"], [\"f/\", \"d/\"]]", "false" },
	{ "strings.any_prefix_match", "[[], [\"a\"]]", "false" },
	{ "strings.any_prefix_match", "[[\"a\"], []]", "false" },
	{ "strings.any_prefix_match", "[[\"a/b/c\", \"e/f\"], \"a/\"]",
	    "true" },
	{ "strings.any_prefix_match", "[\"a/b/c\", {\"$set\": [\"a/\"]}]",
	    "true" },
	{ "strings.any_prefix_match", "[[1, 2], [\"f/\"]]",
	    "!eval_type_error: strings.any_prefix_match: operand 1 must be "
	    "array of strings but got array containing number" },
	{ "strings.any_prefix_match", "[1, [\"f/\"]]",
	    "!eval_type_error: strings.any_prefix_match: operand 1 must be one "
	    "of {string, set, array} but got number" },
	{ "strings.any_prefix_match", "[[\"a\"], [1]]",
	    "!eval_type_error: strings.any_prefix_match: operand 2 must be "
	    "array of strings but got array containing number" },
	{ "strings.any_suffix_match",
	    "[[\"a/b/c\", \"a/b/d\", \"e/f/g\"], [\"/c\", \"/a\"]]", "true" },
	{ "strings.any_suffix_match", "[[\"aa/bb/cc\"], [\"aa/b\"]]", "false" },
	{ "strings.any_suffix_match", "[\"a/b/g\", [\"/c\", \"/a\"]]",
	    "false" },
	{ "strings.any_suffix_match", "[[\"a\"], 1]",
	    "!eval_type_error: strings.any_suffix_match: operand 2 must be one "
	    "of {string, set, array} but got number" },
	/* indexof, indexof_n, substring */
	{ "indexof", "[\"abcdefgh\", \"cde\"]", "=2" },
	{ "indexof", "[\"abcabcabcdefgh\", \"cde\"]", "=8" },
	{ "indexof", "[\"abc\", \"x\"]", "=-1" },
	{ "indexof", "[\"\u03bcx\", \"x\"]", "=1" },
	{ "indexof", "[\"\u03bc\", \"\u03bc\u03bc\"]", "=-1" },
	{ "indexof", "[\"sk\u00f6n var v\u00e5ren\", \"v\u00e5r\"]", "=9" },
	{ "indexof", "[\"\U0001F600\U0001F600x\", \"x\"]", "=2" },
	{ "indexof", "[\"abc\", \"\"]", "=0" },
	{ "indexof_n", "[\"dog cat dog\", \"dog\"]", "=[0,8]" },
	{ "indexof_n", "[\"aaa\", \"aa\"]", "=[0,1]" },
	{ "indexof_n", "[\"\u00e5\u00e5x\u00e5\", \"\u00e5\"]", "=[0,1,3]" },
	{ "indexof_n", "[\"abc\", \"z\"]", "=[]" },
	{ "indexof_n", "[\"abc\", \"\"]",
	    "!eval_builtin_error: indexof_n: empty search character" },
	{ "substring", "[\"abcdefgh\", 2, 3]", "\"cde\"" },
	{ "substring", "[\"\u00e5\u00e4\u00f6\", 0, 2]", "\"\u00e5\u00e4\"" },
	{ "substring", "[\"abcdefgh\", 2, -1]", "\"cdefgh\"" },
	{ "substring", "[\"a\u00e5\u00e4\u00f6\", 2, -1]", "\"\u00e4\u00f6\"" },
	{ "substring", "[\"abcdefgh\", 2, 10000]", "\"cdefgh\"" },
	{ "substring", "[\"aaa\", 3, -1]", "\"\"" },
	{ "substring", "[\"\u00e5\u00e4\u00f6\", 4, -1]", "\"\"" },
	{ "substring", "[\"aaa\", -1, -1]",
	    "!eval_builtin_error: substring: negative offset" },
	{ "substring", "[\"aaa\", 1.5, 1]",
	    "!eval_type_error: substring: operand 2 must be integer number "
	    "but got floating-point number" },
	/* lower, upper, strings.reverse */
	{ "lower", "[\"AbCdEf\"]", "\"abcdef\"" },
	{ "upper", "[\"AbCdEf\"]", "\"ABCDEF\"" },
	{ "lower", "[\"\u00c5\u00c4\u00d6 \u0394\u0416\"]",
	    "\"\u00e5\u00e4\u00f6 \u03b4\u0436\"" },
	{ "upper", "[\"stra\u00dfe \u00e9\u0101\"]",
	    "\"STRA\u00dfE \u00c9\u0100\"" },
	{ "upper", "[1]",
	    "!eval_type_error: upper: operand 1 must be string but got "
	    "number" },
	{ "strings.reverse", "[\"bar\"]", "\"rab\"" },
	{ "strings.reverse", "[\"\"]", "\"\"" },
	{ "strings.reverse", "[\"1\U0001F600\U0001D6FE\"]",
	    "\"\U0001D6FE\U0001F6001\"" },
	{ "strings.reverse", "[\"2\ufe0f\u20e3\"]", "\"\u20e3\ufe0f2\"" },
	{ "strings.reverse", "[123]",
	    "!eval_type_error: reverse: operand 1 must be string but got "
	    "number" },
	/* replace, strings.replace_n */
	{ "replace", "[\"\", \"hi\", \"bye\"]", "\"\"" },
	{ "replace", "[\"foo.bar.baz\", \".\", \",\"]", "\"foo,bar,baz\"" },
	{ "replace", "[\"foo...bar\", \"..\", \",,\"]", "\"foo,,.bar\"" },
	{ "replace", "[\"ab\", \"\", \"-\"]", "\"-a-b-\"" },
	{ "replace", "[\"ab\", \"b\", 1]",
	    "!eval_type_error: replace: operand 3 must be string but got "
	    "number" },
	{ "strings.replace_n",
	    "[{\"<\": \"&lt;\", \">\": \"&gt;\"}, \"This is <b>HTML</b>!\"]",
	    "\"This is &lt;b&gt;HTML&lt;/b&gt;!\"" },
	{ "strings.replace_n", "[{\"f\": \"x\", \"foo\": \"xxx\"}, \"foobar\"]",
	    "\"xoobar\"" },
	{ "strings.replace_n",
	    "[{\"old1\": \"new1\", \"old2\": \"new2\"}, \"Everything is new1, "
	    "new2\"]",
	    "\"Everything is new1, new2\"" },
	{ "strings.replace_n", "[{\"a\": \"b\", \"b\": \"a\"}, \"abba\"]",
	    "\"baab\"" },
	{ "strings.replace_n", "[{\"f\": 100}, \"foo\"]",
	    "!eval_type_error: strings.replace_n: operand 1 non-string value "
	    "found in pattern object" },
	{ "strings.replace_n", "[{\"foo\": \"baz\"}, 100]",
	    "!eval_type_error: strings.replace_n: operand 2 must be string but "
	    "got number" },
	/* split, strings.split_n */
	{ "split", "[\"\", \".\"]", "[\"\"]" },
	{ "split", "[\"test\", \"\"]", "[\"t\", \"e\", \"s\", \"t\"]" },
	{ "split", "[\"\", \"\"]", "[]" },
	{ "split", "[\"foo\", \".\"]", "[\"foo\"]" },
	{ "split", "[\"a.b..c\", \".\"]", "[\"a\", \"b\", \"\", \"c\"]" },
	{ "split", "[\"a\u00e5b\", \"\"]", "[\"a\", \"\u00e5\", \"b\"]" },
	{ "strings.split_n", "[\"a.b.c.d\", \".\", 2]", "[\"a\", \"b\"]" },
	{ "strings.split_n", "[\"a.b.c.d\", \".\", 10]",
	    "[\"a\", \"b\", \"c\", \"d\"]" },
	{ "strings.split_n", "[\"a.b.c.d\", \".\", 0]", "[]" },
	{ "strings.split_n", "[\"a.b.c.d\", \".\", -2]", "[\"c\", \"d\"]" },
	{ "strings.split_n", "[\"a.b.c.d\", \".\", -10]",
	    "[\"a\", \"b\", \"c\", \"d\"]" },
	{ "strings.split_n", "[\"abc\", \"\", -2]", "[\"b\", \"c\"]" },
	{ "strings.split_n", "[\"\", \".\", 2]", "[\"\"]" },
	{ "strings.split_n", "[\"a.b.c\", \".\", 1.5]",
	    "!eval_type_error: strings.split_n: operand 3 must be integer "
	    "number but got floating-point number" },
	/* trim family */
	{ "trim", "[\"\", \".\"]", "\"\"" },
	{ "trim", "[\"...foo.bar...\", \".\"]", "\"foo.bar\"" },
	{ "trim", "[\"...foo.bar...\", \".fr\"]", "\"oo.ba\"" },
	{ "trim", "[\"\u00a1\u00a1\u00a1foo, bar!!!\", \"!\u00a1\"]",
	    "\"foo, bar\"" },
	{ "trim", "[\"\u00a1\u00a1\u00a1foo, bar!!!\", \"i\"]",
	    "\"\u00a1\u00a1\u00a1foo, bar!!!\"" },
	{ "trim", "[\"...\", \".\"]", "\"\"" },
	{ "trim_left", "[\"..a..\", \".\"]", "\"a..\"" },
	{ "trim_right", "[\"\u00a1\u00a1\u00a1foo, bar!!!\", \"!\u00a1\"]",
	    "\"\u00a1\u00a1\u00a1foo, bar\"" },
	{ "trim_right", "[\"x\u00e5\u00e5\", \"\u00e5\"]", "\"x\"" },
	{ "trim_prefix",
	    "[\"\u00a1\u00a1\u00a1foo, bar!!!\", "
	    "\"\u00a1\u00a1\u00a1foo\"]",
	    "\", bar!!!\"" },
	{ "trim_prefix", "[\"abc\", \"x\"]", "\"abc\"" },
	{ "trim_suffix", "[\"\u00a1\u00a1\u00a1foo, bar!!!\", \", bar!!!\"]",
	    "\"\u00a1\u00a1\u00a1foo\"" },
	{ "trim_suffix", "[\"abc\", \"ab\"]", "\"abc\"" },
	{ "trim_space", "[\" \\t\\n foo, bar \\n\\t\\r\\n\"]", "\"foo, bar\"" },
	{ "trim_space", "[\"\u3000x\u00a0\"]", "\"x\"" },
	{ "trim_space", "[\"   \"]", "\"\"" },
	{ "trim", "[\"a\", 1]",
	    "!eval_type_error: trim: operand 2 must be string but got number" },
	/* strings.count */
	{ "strings.count", "[\"cheese\", \"e\"]", "=3" },
	{ "strings.count", "[\"aaaa\", \"aa\"]", "=2" },
	{ "strings.count", "[\"five\", \"\"]", "=5" },
	{ "strings.count", "[\"h\u00e9\", \"\"]", "=3" },
	/* format_int */
	{ "format_int", "[15.5, 16]", "\"f\"" },
	{ "format_int", "[3.1, 10]", "\"3\"" },
	{ "format_int", "[0, 2]", "\"0\"" },
	{ "format_int", "[-0.5, 10]", "\"0\"" },
	{ "format_int", "[255, 2]", "\"11111111\"" },
	{ "format_int", "[-8, 8]", "\"-10\"" },
	{ "format_int", "[18446744073709551617, 16]", "\"10000000000000001\"" },
	{ "format_int", "[18446744073709551617, 8]",
	    "\"2000000000000000000001\"" },
	{ "format_int", "[18446744073709551617, 2]",
	    "\"100000000000000000000000000000000000000000000000000000000000000"
	    "01\"" },
	{ "format_int", "[-18446744073709551617, 10]",
	    "\"-18446744073709551617\"" },
	{ "format_int", "[-15.9, 16]", "\"-f\"" },
	{ "format_int", "[1e300, 16]",
	    "\"17e43c8800759c00000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000000000000000000000000000\"" },
	{ "format_int", "[10, 3]",
	    "!eval_type_error: format_int: operand 2 must be one of {2, 8, 10, "
	    "16}" },
	{ "format_int", "[\"10\", 10]",
	    "!eval_type_error: format_int: operand 1 must be number but got "
	    "string" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
