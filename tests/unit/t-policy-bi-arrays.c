/* Builtins: array.concat, array.slice, array.reverse; intersection and
 * union of sets. */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "array.concat", "[[1, 2], [3, 4]]", "[1, 2, 3, 4]" },
	{ "array.concat", "[[], []]", "[]" },
	{ "array.concat", "[[[1]], [{\"a\": 1}]]", "[[1], {\"a\": 1}]" },
	{ "array.concat", "[{\"v1\": \"hello\"}, [3, 4]]",
	    "!eval_type_error: array.concat: operand 1 must be array but got "
	    "object" },
	{ "array.concat", "[[1, 2], {\"v1\": \"hello\"}]",
	    "!eval_type_error: array.concat: operand 2 must be array but got "
	    "object" },
	{ "array.concat", "[[1], {\"$set\": [2]}]",
	    "!eval_type_error: operand 2 must be array but got set" },
	{ "array.slice", "[[1, 2, 3, 4, 5], 1, 3]", "[2, 3]" },
	{ "array.slice", "[[1, 2, 3], 0, 0]", "[]" },
	{ "array.slice", "[[1, 2, 3, 4, 5], -4, -1]", "[]" },
	{ "array.slice", "[[1, 2, 3, 4, 5], 4, 1]", "[]" },
	{ "array.slice", "[[1, 2, 3, 4, 5], -1, 2]", "[1, 2]" },
	{ "array.slice", "[[1, 2, 3, 4, 5], 3, 6]", "[4, 5]" },
	{ "array.slice", "[[], 1000, 2000]", "[]" },
	{ "array.slice", "[[1, 2, 3], 1000, 2000]", "[]" },
	{ "array.slice", "[[1, 2, 3], 0, 3]", "[1, 2, 3]" },
	{ "array.slice", "[[1, 2, 3], 0.5, 3]",
	    "!eval_type_error: array.slice: operand 2 must be integer number "
	    "but got floating-point number" },
	{ "array.slice", "[[1, 2, 3], 0, \"3\"]",
	    "!eval_type_error: array.slice: operand 3 must be number but got "
	    "string" },
	{ "array.slice", "[\"abc\", 0, 1]",
	    "!eval_type_error: operand 1 must be array but got string" },
	{ "array.reverse", "[[1, 2, 3]]", "[3, 2, 1]" },
	{ "array.reverse", "[[]]", "[]" },
	{ "array.reverse", "[[[1, 2], \"x\"]]", "[\"x\", [1, 2]]" },
	{ "array.reverse", "[\"abc\"]",
	    "!eval_type_error: array.reverse: operand 1 must be array but got "
	    "string" },
	/* sets */
	{ "intersection",
	    "[{\"$set\": [{\"$set\": [1, 2, 3]}, {\"$set\": [2, 3, 4]}]}]",
	    "{\"$set\": [2, 3]}" },
	{ "intersection",
	    "[{\"$set\": [{\"$set\": [1, 2]}, {\"$set\": [3]}, "
	    "{\"$set\": [1, 2, 3]}]}]",
	    "{\"$set\": []}" },
	{ "intersection", "[{\"$set\": []}]", "{\"$set\": []}" },
	{ "intersection", "[{\"$set\": [{\"$set\": [\"a\", [1]]}]}]",
	    "{\"$set\": [\"a\", [1]]}" },
	{ "intersection", "[{\"$set\": [1, {\"$set\": [1]}]}]",
	    "!eval_type_error: intersection: operand 1 must be set of sets "
	    "but got set containing number" },
	{ "intersection", "[[{\"$set\": [1]}]]",
	    "!eval_type_error: intersection: operand 1 must be set but got "
	    "array" },
	{ "union",
	    "[{\"$set\": [{\"$set\": [1, 2, 3]}, {\"$set\": [2, 3, 4]}]}]",
	    "{\"$set\": [1, 2, 3, 4]}" },
	{ "union", "[{\"$set\": []}]", "{\"$set\": []}" },
	{ "union", "[{\"$set\": [{\"$set\": []}, {\"$set\": [\"b\"]}]}]",
	    "{\"$set\": [\"b\"]}" },
	{ "union", "[{\"$set\": [\"x\"]}]",
	    "!eval_type_error: union: operand 1 must be set of sets but got "
	    "set containing string" },
	{ "union", "[null]",
	    "!eval_type_error: union: operand 1 must be set but got null" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
