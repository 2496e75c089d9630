/* Builtins: regex.* (PCRE2 with RE2's rules). */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "regex.match", "[\"^a+b$\", \"aaab\"]", "true" },
	{ "regex.match", "[\"a+b\", \"xxaab\"]", "true" },
	{ "regex.match", "[\"^a+b$\", \"aaabc\"]", "false" },
	{ "regex.match", "[\"^a$\", \"a\\n\"]", "false" },
	{ "regex.match", "[\"(?m)^b$\", \"a\\nb\\n\"]", "true" },
	{ "regex.match", "[\"^.$\", \"\u00e5\"]", "true" },
	{ "regex.match", "[\"^\\\\d$\", \"\u0663\"]", "false" },
	{ "regex.match", "[\"(?i)ABC\", \"xabc\"]", "true" },
	{ "regex.match", "[\"(?P<x>a)(?:b)\", \"ab\"]", "true" },
	{ "regex.match", "[\"^[[:alpha:]]+$\", \"abc\"]", "true" },
	{ "regex.match", "[\"[\", \"x\"]",
	    "!eval_builtin_error: regex.match: error parsing regexp: " },
	{ "regex.match", "[\"(a)\\\\1\", \"aa\"]",
	    "!eval_builtin_error: invalid escape sequence (backreference)" },
	{ "regex.match", "[\"a(?=b)\", \"ab\"]",
	    "!eval_builtin_error: invalid or unsupported Perl syntax" },
	{ "regex.match", "[\"(?<!a)b\", \"ab\"]",
	    "!eval_builtin_error: invalid or unsupported Perl syntax" },
	{ "regex.match", "[\"a++\", \"aa\"]",
	    "!eval_builtin_error: invalid nested repetition operator" },
	{ "regex.match", "[\"(?>a)\", \"a\"]",
	    "!eval_builtin_error: invalid or unsupported Perl syntax" },
	{ "regex.match", "[\"[(?=]x\", \"(x\"]", "true" },
	{ "regex.match", "[\"\\\\Q(?=\\\\E\", \"(?=\"]", "true" },
	{ "regex.match",
	    "[\"(x+x+)+y\", \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx!y\"]",
	    "!eval_builtin_error: regular expression match exceeded its "
	    "limits" },
	{ "regex.match", "[1, \"a\"]",
	    "!eval_type_error: regex.match: operand 1 must be string but got "
	    "number" },
	{ "regex.is_valid", "[\"++\"]", "false" },
	{ "regex.is_valid", "[\".+\"]", "true" },
	{ "regex.is_valid", "[\"(a)\\\\1\"]", "false" },
	{ "regex.is_valid", "[5]", "false" },
	/* find_n */
	{ "regex.find_n", "[\"a.\", \"paranormal\", -1]",
	    "[\"ar\", \"an\", \"al\"]" },
	{ "regex.find_n", "[\"a.\", \"paranormal\", 2]", "[\"ar\", \"an\"]" },
	{ "regex.find_n", "[\"a.\", \"paranormal\", 0]", "[]" },
	{ "regex.find_n", "[\"^a.\", \"abacadaeaf\", -1]", "[\"ab\"]" },
	{ "regex.find_n", "[\".$\", \"abacadaeaf\", -1]", "[\"f\"]" },
	{ "regex.find_n", "[\"[abcdef]{2}\", \"abacadaeaf\", -1]",
	    "[\"ab\", \"ac\", \"ad\", \"ae\", \"af\"]" },
	{ "regex.find_n", "[\"bork\", \"paranormal\", -1]", "[]" },
	{ "regex.find_n", "[\"a*\", \"baaab\", -1]", "[\"\", \"aaa\", \"\"]" },
	{ "regex.find_n", "[\"\", \"\u00e5b\", -1]", "[\"\", \"\", \"\"]" },
	{ "regex.find_n", "[\"a\", \"a\", 1.5]",
	    "!eval_type_error: regex.find_n: operand 3 must be integer number "
	    "but got floating-point number" },
	/* find_all_string_submatch_n */
	{ "regex.find_all_string_submatch_n", "[\"a(x*)b\", \"-\", -1]", "[]" },
	{ "regex.find_all_string_submatch_n", "[\"a(x*)b\", \"-ab-\", -1]",
	    "[[\"ab\", \"\"]]" },
	{ "regex.find_all_string_submatch_n", "[\"a(x*)b\", \"-ab-axb-\", -1]",
	    "[[\"ab\", \"\"], [\"axb\", \"x\"]]" },
	{ "regex.find_all_string_submatch_n",
	    "[\"[^aouiye]([aouiye])([^aouiye])?\", \"somestri\", -1]",
	    "[[\"som\", \"o\", \"m\"], [\"ri\", \"i\", \"\"]]" },
	{ "regex.find_all_string_submatch_n",
	    "[\"[^aouiye]([aouiye])([^aouiye])?\", \"somestri\", 1]",
	    "[[\"som\", \"o\", \"m\"]]" },
	{ "regex.find_all_string_submatch_n", "[\"^.*$\", \"aaabc\", -1]",
	    "[[\"aaabc\"]]" },
	/* split */
	{ "regex.split", "[\"^[a-z]+\\\\[[0-9]+\\\\]$\", \"\"]", "[\"\"]" },
	{ "regex.split", "[\"^[a-z]+\", \"foobar baz\"]", "[\"\", \" baz\"]" },
	{ "regex.split", "[\"[a-z]+$\", \"foobar baz\"]",
	    "[\"foobar \", \"\"]" },
	{ "regex.split", "[\"^[a-z]+$\", \"foobar baz\"]", "[\"foobar baz\"]" },
	{ "regex.split", "[\"^[a-z ]+$\", \"foobar baz\"]", "[\"\", \"\"]" },
	{ "regex.split", "[\"z+\", \"pizza\"]", "[\"pi\", \"a\"]" },
	{ "regex.split", "[\"\", \"abc\"]", "[\"a\", \"b\", \"c\"]" },
	{ "regex.split", "[\",\", \"a,b,,c\"]", "[\"a\", \"b\", \"\", \"c\"]" },
	/* replace */
	{ "regex.replace", "[\"-wy-wxxy-\", \"w(x*)y\", \"0\"]", "\"-0-0-\"" },
	{ "regex.replace", "[\"foo\", \"(foo)\", \"$1$1\"]", "\"foofoo\"" },
	{ "regex.replace", "[\"foo\", \"(foo)\", \"${1}x$1x\"]", "\"foox\"" },
	{ "regex.replace", "[\"ab\", \"(?P<n>a)\", \"[$n]$$\"]", "\"[a]$b\"" },
	{ "regex.replace", "[\"foo\", \"[\", \"$1\"]",
	    "!eval_builtin_error: regex.replace: error parsing regexp" },
	{ "regex.replace", "[\"foo\", \"^[a-z]\", \"F\"]", "\"Foo\"" },
	{ "regex.replace", "[\"foo\", \"^[a-z]$\", \"F\"]", "\"foo\"" },
	{ "regex.replace", "[\"foo\", \"^[a-z]+$\", \"M\"]", "\"M\"" },
	{ "regex.replace", "[\"foo\", \"[a-z]$\", \"F\"]", "\"foF\"" },
	{ "regex.replace", "[\"foo bar\", \"[a-z]\", \"_\"]", "\"___ ___\"" },
	{ "regex.replace", "[\"foo barx\", \"[a-z]{3}\", \"_\"]", "\"_ _x\"" },
	{ "regex.replace", "[\"foo barx\", \"[a-z]{2}\", \"_\"]", "\"_o __\"" },
	{ "regex.replace", "[\"baaab\", \"a*\", \"-\"]", "\"-b-b-\"" },
	/* template_match */
	{ "regex.template_match",
	    "[\"urn:foo:{.*}\", \"urn:foo:bar:baz\", \"{\", \"}\"]", "true" },
	{ "regex.template_match",
	    "[\"urn:foo.bar:{[0-9]+}\", \"urn:fooXbar:1\", \"{\", \"}\"]",
	    "false" },
	{ "regex.template_match",
	    "[\"urn:foo.bar:<[0-9]{2}>\", \"urn:foo.bar:12\", \"<\", \">\"]",
	    "true" },
	{ "regex.template_match", "[\"urn:{a{b}\", \"urn:ab\", \"{\", \"}\"]",
	    "!eval_builtin_error: unbalanced braces" },
	{ "regex.template_match", "[\"x\", \"x\", \"{{\", \"}\"]",
	    "!eval_builtin_error: start delimiter has to be exactly one "
	    "character long but is 2 long" },
	/* globs_match */
	{ "regex.globs_match", "[\"[a-z]+\", \"[0-9]*\"]", "false" },
	{ "regex.globs_match", "[\"[a-z]*\", \"[0-9]*\"]", "true" },
	{ "regex.globs_match", "[\"[a-z]+\", \"[0-9]+\"]", "false" },
	{ "regex.globs_match", "[\"b.*\", \"bar\"]", "true" },
	{ "regex.globs_match", "[\"b.*\", \"car\"]", "false" },
	{ "regex.globs_match",
	    "[\"[a-z]+\\\\[[0-9]+\\\\]\", "
	    "\"foo\\\\[1\\\\]\"]",
	    "true" },
	{ "regex.globs_match",
	    "[\"[a-z]+\\\\[[0-9]+\\\\]\", "
	    "\"foo[\\\"bar\\\"]\"]",
	    "false" },
	{ "regex.globs_match", "[\"a?b\", \"b\"]", "true" },
	{ "regex.globs_match", "[\"[^a]x\", \"ax\"]", "false" },
	{ "regex.globs_match", "[\"[^a]x\", \".x\"]", "true" },
	{ "regex.globs_match", "[\"pqrs]\", \"[a-b]+\"]",
	    "!eval_builtin_error: regex.globs_match: input:pqrs], pos:5, "
	    "set-close ']' with no preceding '[': the input provided is "
	    "invalid" },
	{ "regex.globs_match", "[\"[ab\", \"a\"]",
	    "!eval_builtin_error: set-open '[' with no closing ']'" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
