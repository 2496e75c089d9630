/* Builtins: count, sum, product, max, min, sort. */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "count", "[[1, 2, 3, 4]]", "=4" },
	{ "count", "[\"h\u00e9\"]", "=2" },
	{ "sum", "[[1, 2, 3, 4]]", "=10" },
	{ "sum", "[{\"$set\": [1, 2, 3, 4]}]", "=10" },
	{ "sum", "[[]]", "=0" },
	{ "sum", "[[49649733057, 1]]", "=49649733058" },
	{ "sum", "[[1.5, 2.5]]", "=4" },
	{ "sum", "[[0.1, 0.2]]", "0.30000000000000004" },
	{ "sum", "[[9223372036854775807, 1]]", "=9223372036854775808" },
	{ "sum", "[[1, \"2\"]]",
	    "!eval_type_error: sum: operand 1 must be array of numbers but got "
	    "array containing string" },
	{ "sum", "[{\"$set\": [1, null]}]",
	    "!eval_type_error: sum: operand 1 must be set of numbers but got "
	    "set containing null" },
	{ "sum", "[\"12\"]",
	    "!eval_type_error: sum: operand 1 must be one of {array, set} but "
	    "got string" },
	{ "product", "[[1, 2, 3, 4]]", "=24" },
	{ "product", "[{\"$set\": [1, 2, 3, 4]}]", "=24" },
	{ "product", "[[]]", "=1" },
	{ "product", "[[0.5, 4]]", "=2" },
	{ "product", "[[{}]]",
	    "!eval_type_error: product: operand 1 must be array of numbers but "
	    "got array containing object" },
	{ "max", "[[1, 2, 3, 4]]", "=4" },
	{ "max", "[{\"$set\": [1, 2, 3, 4]}]", "=4" },
	{ "max", "[[]]", "undefined" },
	{ "max", "[{\"$set\": []}]", "undefined" },
	{ "max", "[[1, \"a\", null, [0]]]", "[0]" },
	{ "max", "[[2.5, 2]]", "=2.5" },
	{ "max", "[1]",
	    "!eval_type_error: max: operand 1 must be one of {array, set} but "
	    "got number" },
	{ "min", "[[3, 1, 2]]", "=1" },
	{ "min", "[{\"$set\": [\"b\", \"a\"]}]", "\"a\"" },
	{ "min", "[[1, \"a\", null]]", "null" },
	{ "min", "[[]]", "undefined" },
	{ "sort", "[[3, 1, 2]]", "=[1,2,3]" },
	{ "sort", "[{\"$set\": [3, 1, 2]}]", "=[1,2,3]" },
	{ "sort", "[[\"b\", 1, null, false, [1], {}, \"a\"]]",
	    "=[null,false,1,\"a\",\"b\",[1],{}]" },
	{ "sort", "[[]]", "=[]" },
	{ "sort", "[{}]",
	    "!eval_type_error: sort: operand 1 must be one of {array, set} but "
	    "got object" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
