/* Unit tests of policy/builtins-bits.c. */
#include "config.h"

#include "tests/unit/policy-bi-rows.h"

static const struct bi_row rows[] = {
	{ "bits.and", "[7, 9]", "1" },
	{ "bits.and", "[50, 0]", "0" },
	{ "bits.and", "[-1, 255]", "255" },
	{ "bits.and", "[7.2, 42]",
	    "!eval_type_error:bits.and: operand 1 must be integer number but "
	    "got floating-point number" },
	{ "bits.and", "[7, \"a\"]",
	    "!eval_type_error:bits.and: operand 2 must be number but got "
	    "string" },
	{ "bits.and", "[36893488147419103231, 18446744073709551616]",
	    "18446744073709551616" },
	{ "bits.and", "[-36893488147419103232, 36893488147419103231]", "0" },
	{ "bits.or", "[7, 9]", "15" },
	{ "bits.or", "[50, 0]", "50" },
	{ "bits.or", "[7.2, 42]",
	    "!eval_type_error:bits.or: operand 1 must be integer number" },
	{ "bits.or", "[18446744073709551616, 1]", "18446744073709551617" },
	{ "bits.or", "[-18446744073709551616, 1]", "-18446744073709551615" },
	{ "bits.xor", "[42, 3]", "41" },
	{ "bits.xor", "[-1, 18446744073709551615]", "-18446744073709551616" },
	{ "bits.negate", "[42]", "-43" },
	{ "bits.negate", "[-1]", "0" },
	{ "bits.negate", "[9223372036854775807]", "-9223372036854775808" },
	{ "bits.negate", "[-9223372036854775808]", "9223372036854775807" },
	{ "bits.negate", "[7.2]",
	    "!eval_type_error:bits.negate: operand 1 must be integer number "
	    "but got floating-point number" },
	{ "bits.lsh", "[1, 3]", "8" },
	{ "bits.lsh", "[2147483647, 1]", "4294967294" },
	{ "bits.lsh", "[9223372036854775807, 1]", "18446744073709551614" },
	{ "bits.lsh", "[-3, 64]", "-55340232221128654848" },
	{ "bits.lsh", "[0, 100000000]", "0" },
	{ "bits.lsh", "[7.2, 42]",
	    "!eval_type_error:bits.lsh: operand 1 must be integer number" },
	{ "bits.lsh", "[1, -1]",
	    "!eval_type_error:operand 2 must be an unsigned integer number but "
	    "got a negative integer" },
	{ "bits.lsh", "[1, 100000000]",
	    "!eval_builtin_error:bits.lsh: shift count larger than" },
	{ "bits.rsh", "[8, 3]", "1" },
	{ "bits.rsh", "[-8, 1]", "-4" },
	{ "bits.rsh", "[-1, 100]", "-1" },
	{ "bits.rsh", "[5, 100]", "0" },
	{ "bits.rsh", "[18446744073709551616, 60]", "16" },
	{ "bits.rsh", "[-18446744073709551617, 64]", "-2" },
	{ "bits.rsh", "[7, -1]",
	    "!eval_type_error:bits.rsh: operand 2 must be an unsigned integer "
	    "number but got a negative integer" },
	{ "bits.rsh", "[7, 1.5]",
	    "!eval_type_error:bits.rsh: operand 2 must be integer number" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
