/* Builtins: is_* type tests, type_name, to_number, numbers.range,
 * numbers.range_step and rand.intn. */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "is_string", "[\"Hello\"]", "true" },
	{ "is_string", "[null]", "false" },
	{ "is_string", "[false]", "false" },
	{ "is_number", "[1.5]", "true" },
	{ "is_number", "[\"1\"]", "false" },
	{ "is_boolean", "[false]", "true" },
	{ "is_boolean", "[0]", "false" },
	{ "is_array", "[[]]", "true" },
	{ "is_array", "[{\"$set\": []}]", "false" },
	{ "is_set", "[{\"$set\": []}]", "true" },
	{ "is_set", "[{}]", "false" },
	{ "is_object", "[{}]", "true" },
	{ "is_object", "[[]]", "false" },
	{ "is_null", "[null]", "true" },
	{ "is_null", "[false]", "false" },
	{ "type_name", "[null]", "\"null\"" },
	{ "type_name", "[true]", "\"boolean\"" },
	{ "type_name", "[1]", "\"number\"" },
	{ "type_name", "[\"\"]", "\"string\"" },
	{ "type_name", "[[]]", "\"array\"" },
	{ "type_name", "[{}]", "\"object\"" },
	{ "type_name", "[{\"$set\": [1]}]", "\"set\"" },
	/* to_number */
	{ "to_number", "[\"-42.0\"]", "=-42" },
	{ "to_number", "[false]", "=0" },
	{ "to_number", "[true]", "=1" },
	{ "to_number", "[null]", "=0" },
	{ "to_number", "[100.1]", "=100.1" },
	{ "to_number", "[\"3\"]", "=3" },
	{ "to_number", "[\"+7\"]", "=7" },
	{ "to_number", "[\"0.5e1\"]", "=5" },
	{ "to_number", "[\".25\"]", "0.25" },
	{ "to_number", "[\"123456789012345678901234567890\"]",
	    "=123456789012345678901234567890" },
	{ "to_number", "[\"broken\"]",
	    "!eval_builtin_error: to_number: strconv.ParseFloat: parsing "
	    "\"broken\": invalid syntax" },
	{ "to_number", "[\"\"]", "!eval_builtin_error: invalid syntax" },
	{ "to_number", "[\"1e\"]", "!eval_builtin_error: invalid syntax" },
	{ "to_number", "[\"NaN\"]", "!eval_builtin_error: invalid syntax" },
	{ "to_number", "[\" 1\"]", "!eval_builtin_error: invalid syntax" },
	{ "to_number", "[[]]",
	    "!eval_type_error: to_number: operand 1 must be one of {null, "
	    "boolean, number, string} but got array" },
	/* rand.intn, called directly (no evaluation: nothing kept) */
	{ "rand.intn", "[\"k\", 0]", "0" },
	{ "rand.intn", "[\"k\", 1]", "0" },
	{ "rand.intn", "[\"k\", -1]", "0" },
	{ "rand.intn", "[\"k\", 1.5]",
	    "!eval_type_error:operand 2 must be integer number" },
	{ "rand.intn", "[1, 5]", "!eval_type_error:operand 1 must be string" },
	/* numbers.range */
	{ "numbers.range", "[0, 3]", "=[0,1,2,3]" },
	{ "numbers.range", "[3, 0]", "=[3,2,1,0]" },
	{ "numbers.range", "[-1, 1]", "=[-1,0,1]" },
	{ "numbers.range", "[5, 5]", "=[5]" },
	{ "numbers.range", "[0, 1]", "=[0,1]" },
	{ "numbers.range", "[3.14, 4]",
	    "!eval_type_error: numbers.range: operand 1 must be integer "
	    "number but got floating-point number" },
	{ "numbers.range", "[3, 3.14]",
	    "!eval_type_error: numbers.range: operand 2 must be integer "
	    "number but got floating-point number" },
	{ "numbers.range", "[\"1\", 3]",
	    "!eval_type_error: numbers.range: operand 1 must be number but "
	    "got string" },
	{ "numbers.range", "[0, 100000000]",
	    "!eval_builtin_error: numbers.range: range of 100000001 numbers "
	    "is over the limit" },
	{ "numbers.range", "[-9223372036854775807, 9223372036854775807]",
	    "!eval_builtin_error: is over the limit" },
	{ "numbers.range_step", "[0, 10, 2]", "=[0,2,4,6,8,10]" },
	{ "numbers.range_step", "[0, -10, 2]", "=[0,-2,-4,-6,-8,-10]" },
	{ "numbers.range_step", "[10, 3, 2]", "=[10,8,6,4]" },
	{ "numbers.range_step", "[1024, 4096, 1024]",
	    "=[1024,2048,3072,4096]" },
	{ "numbers.range_step", "[2, 2, 2]", "=[2]" },
	{ "numbers.range_step", "[2, 5, 2]", "=[2,4]" },
	{ "numbers.range_step", "[0, 10, 99999999999999999999]", "=[0]" },
	{ "numbers.range_step", "[0, 10, -2]",
	    "!eval_builtin_error: numbers.range_step: step must be a positive "
	    "integer" },
	{ "numbers.range_step", "[0, 10, 0]",
	    "!eval_builtin_error: step must be a positive integer" },
	{ "numbers.range_step", "[0, 10, 1.5]",
	    "!eval_type_error: numbers.range_step: operand 3 must be integer "
	    "number but got floating-point number" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
