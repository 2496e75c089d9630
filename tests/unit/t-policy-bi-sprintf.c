/* Builtin: sprintf with Go's fmt rules. */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	{ "sprintf", "[\"hi\", []]", "\"hi\"" },
	{ "sprintf", "[\"hi %s\", [\"there\"]]", "\"hi there\"" },
	{ "sprintf", "[\"hi %02d\", [5]]", "\"hi 05\"" },
	{ "sprintf", "[\"hi %02X.%02X\", [127, 1]]", "\"hi 7F.01\"" },
	{ "sprintf", "[\"hi %.2f\", [3.1415]]", "\"hi 3.14\"" },
	{ "sprintf", "[\"hi %s\", [true]]", "\"hi true\"" },
	{ "sprintf", "[\"%s\", [123456789123456789123]]",
	    "\"123456789123456789123\"" },
	{ "sprintf", "[\"%s\", [1208925819614629174706175]]",
	    "\"1208925819614629174706175\"" },
	{ "sprintf", "[\"%x\", [1208925819614629174706175]]",
	    "\"ffffffffffffffffffff\"" },
	{ "sprintf", "[\"%d\", [-42]]", "\"-42\"" },
	{ "sprintf", "[\"%+d|% d|%5d|%-5d|%05d\", [7, 7, 7, 7, -7]]",
	    "\"+7| 7|    7|7    |-0007\"" },
	{ "sprintf",
	    "[\"%x %X %o %O %b %#x %#o %#b\", [255, 255, 8, 8, 5, "
	    "255, 8, 5]]",
	    "\"ff FF 10 0o10 101 0xff 010 0b101\"" },
	{ "sprintf", "[\"%.3d|%8.3d\", [7, -7]]", "\"007|    -007\"" },
	{ "sprintf", "[\"%c%c|%q|%U\", [72, 233, 65, 8364]]",
	    "\"H\u00e9|'A'|U+20AC\"" },
	{ "sprintf", "[\"%v|%v|%v\", [1.5, 0.000012, 1234567.5]]",
	    "\"1.5|1.2e-05|1.2345675e+06\"" },
	{ "sprintf", "[\"%v\", [123456.7]]", "\"123456.7\"" },
	{ "sprintf",
	    "[\"%g|%e|%E|%8.3f|%-8.2f|\", [0.1, 1.5, 1.5, 3.14159, "
	    "2.5]]",
	    "\"0.1|1.500000e+00|1.500000E+00|   3.142|2.50    |\"" },
	{ "sprintf", "[\"%f\", [1e20]]", "\"100000000000000000000.000000\"" },
	{ "sprintf", "[\"%d\", [1e20]]", "\"%!d(float64=1e+20)\"" },
	{ "sprintf", "[\"%d\", [\"x\"]]", "\"%!d(string=x)\"" },
	{ "sprintf", "[\"%s\", [5]]", "\"%!s(int=5)\"" },
	{ "sprintf", "[\"%f\", [5]]", "\"%!f(int=5)\"" },
	{ "sprintf", "[\"%t\", [true]]", "\"%!t(string=true)\"" },
	{ "sprintf", "[\"%d %d\", [1]]", "\"1 %!d(MISSING)\"" },
	{ "sprintf", "[\"%d\", [1, \"a\", 2.5]]",
	    "\"1%!(EXTRA string=a, float64=2.5)\"" },
	{ "sprintf", "[\"100%%\", []]", "\"100%\"" },
	{ "sprintf", "[\"%\", []]", "\"%!(NOVERB)\"" },
	{ "sprintf", "[\"%v\", [[1, \"a\", {\"b\": null}]]]",
	    "\"[1, \\\"a\\\", {\\\"b\\\": null}]\"" },
	{ "sprintf", "[\"%v %v\", [{\"$set\": []}, {\"$set\": [2, 1]}]]",
	    "\"set() {1, 2}\"" },
	{ "sprintf", "[\"%s\", [null]]", "\"null\"" },
	{ "sprintf", "[\"%q\", [\"a\\\"b\\n\"]]",
	    "\"\\\"a\\\\\\\"b\\\\n\\\"\"" },
	{ "sprintf",
	    "[\"%5s|%-5s|%.2s|%x|% X\", [\"ab\", \"ab\", \"\u00e5\u00e4"
	    "\u00f6\", \"hi\", \"hi\"]]",
	    "\"   ab|ab   |\u00e5\u00e4|6869|68 69\"" },
	{ "sprintf", "[\"%[2]d %[1]d\", [1, 2]]", "\"2 1\"" },
	{ "sprintf", "[\"%*d|%-*d|\", [4, 7, 3, 8]]", "\"   7|8  |\"" },
	{ "sprintf", "[\"%T %T %T %T\", [1, 1.5, \"s\", 99999999999999999999]]",
	    "\"int float64 string *big.Int\"" },
	{ "sprintf", "[\"%d\", \"x\"]",
	    "!eval_type_error: sprintf: operand 2 must be array but got "
	    "string" },
	{ "sprintf", "[1, []]",
	    "!eval_type_error: sprintf: operand 1 must be string but got "
	    "number" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
