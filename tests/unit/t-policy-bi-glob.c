/* Builtins: glob.match, glob.quote_meta. */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "glob.match", "[\"*.github.com\", [\".\"], \"api.github.com\"]",
	    "true" },
	{ "glob.match", "[\"*.github.com\", [\".\"], \"api.cdn.github.com\"]",
	    "false" },
	{ "glob.match", "[\"api.**.com\", [\".\"], \"api.github.com\"]",
	    "true" },
	{ "glob.match", "[\"api.**.com\", [\".\"], \"api.cdn.github.com\"]",
	    "true" },
	{ "glob.match", "[\"*:github:com\", [\":\"], \"api:github:com\"]",
	    "true" },
	{ "glob.match", "[\"*.github.com\", [\".\"], \"api.not-github.com\"]",
	    "false" },
	{ "glob.match", "[\"[abc]at\", [], \"cat\"]", "true" },
	{ "glob.match", "[\"[!abc]at\", [], \"cat\"]", "false" },
	{ "glob.match", "[\"[a-c]at\", [], \"bat\"]", "true" },
	{ "glob.match", "[\"[!a-c]at\", [], \"fat\"]", "true" },
	{ "glob.match", "[\"?at\", [], \"fat\"]", "true" },
	{ "glob.match", "[\"?at\", [], \"at\"]", "false" },
	{ "glob.match", "[\"?at\", [\"f\"], \"bat\"]", "true" },
	{ "glob.match", "[\"?at\", [\"f\"], \"fat\"]", "false" },
	{ "glob.match", "[\"{cat,bat,[fr]at}\", [], \"cat\"]", "true" },
	{ "glob.match", "[\"{cat,bat,[fr]at}\", [], \"rat\"]", "true" },
	{ "glob.match", "[\"{cat,bat,[fr]at}\", [], \"at\"]", "false" },
	{ "glob.match", "[\"{a,b{c,d}}x\", [], \"bdx\"]", "true" },
	{ "glob.match", "[\"{a,}x\", [], \"x\"]", "true" },
	{ "glob.match", "[\"*\", [\".\"], \"foo\"]", "true" },
	{ "glob.match", "[\"*\", [], \"foo\"]", "true" },
	{ "glob.match", "[\"*\", [], \"foo.bar\"]", "false" },
	{ "glob.match", "[\"*\", null, \"foo.bar\"]", "true" },
	{ "glob.match", "[\"foo*\", null, \"foo.bar\"]", "true" },
	{ "glob.match", "[\"\\\\*x\", null, \"*x\"]", "true" },
	{ "glob.match", "[\"\\\\*x\", null, \"ax\"]", "false" },
	{ "glob.match", "[\"\u00e5?\", null, \"\u00e5\u00e4\"]", "true" },
	{ "glob.match", "[\"\", null, \"\"]", "true" },
	{ "glob.match",
	    "[\"a*a*a*a*a*a*a*a*a*a*b\", null, "
	    "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]",
	    "false" },
	{ "glob.match", "[\"[abc\", null, \"a\"]",
	    "!eval_builtin_error: glob.match: input:[abc, pos:4, unexpected "
	    "end of input in '['" },
	{ "glob.match", "[\"pqrs]\", null, \"a\"]",
	    "!eval_builtin_error: set-close ']' with no preceding '['" },
	{ "glob.match", "[\"{a,b\", null, \"a\"]",
	    "!eval_builtin_error: unexpected end of input in '{'" },
	{ "glob.match", "[\"*\", \".\", \"a\"]",
	    "!eval_type_error: glob.match: operand 2 must be one of {array, "
	    "null} but got string" },
	{ "glob.quote_meta", "[\"*.github.com\"]", "\"\\\\*.github.com\"" },
	{ "glob.quote_meta", "[\"[a]{b}?\\\\\"]",
	    "\"\\\\[a\\\\]\\\\{b\\\\}\\\\?\\\\\\\\\"" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
