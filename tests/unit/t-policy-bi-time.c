/* Unit tests of policy/builtins-time.c and policy/tzfile.c.  Zones come
 * from the system tz database; the zone rows are skipped without it. */
#include "config.h"

#include <unistd.h>

#include "tests/unit/policy-bi-rows.h"

#define RFC3339 "\"2006-01-02T15:04:05Z07:00\""

static const struct bi_row rows[] = {
	{ "time.now_ns", "[]", "1700000000123456789" },
	{ "test.sleep", "[\"1ms\"]", "null" },
	{ "test.sleep", "[\"0s\"]", "null" },
	{ "test.sleep", "[\"soon\"]",
	    "!eval_builtin_error:time: invalid duration" },
	{ "test.sleep", "[\"11s\"]",
	    "!eval_builtin_error:sleeps of over 10 s are refused" },
	{ "time.parse_ns", "[" RFC3339 ", \"2017-06-02T19:00:00-07:00\"]",
	    "1496455200000000000" },
	{ "time.parse_ns",
	    "[" RFC3339 ", \"1677-09-21T00:12:43.145224192-00:00\"]",
	    "-9223372036854775808" },
	{ "time.parse_ns",
	    "[" RFC3339 ", \"2262-04-11T23:47:16.854775807-00:00\"]",
	    "9223372036854775807" },
	{ "time.parse_ns",
	    "[\"01/02 03:04:05PM '06 -0700\", \"06/02 07:00:00PM '17 "
	    "-0700\"]",
	    "1496455200000000000" },
	{ "time.parse_ns",
	    "[\"02 Jan 06 15:04 -0700\", \"02 Jun 17 19:00 -0700\"]",
	    "1496455200000000000" },
	{ "time.parse_ns", "[\"RFC822Z\", \"02 Jun 17 19:00 -0700\"]",
	    "1496455200000000000" },
	{ "time.parse_ns",
	    "[\"Mon Jan _2 15:04:05 MST 2006\", \"Fri Jun  2 19:00:00 UTC "
	    "2017\"]",
	    "1496430000000000000" },
	{ "time.parse_ns", "[\"2006-01-02\", \"2020-02-29\"]",
	    "1582934400000000000" },
	{ "time.parse_ns",
	    "[\"2006-01-02 15:04:05.000\", \"2020-02-29 "
	    "01:02:03.450\"]",
	    "1582938123450000000" },
	{ "time.parse_ns", "[\"RFC3339Nano\", \"2020-02-29T01:02:03.4Z\"]",
	    "1582938123400000000" },
	{ "time.parse_ns", "[\"Kitchen\", \"3:04PM\"]",
	    "!eval_builtin_error:time outside of valid range" },
	{ "time.parse_ns",
	    "[" RFC3339 ", \"1677-09-21T00:12:43.145224191-00:00\"]",
	    "!eval_builtin_error:time.parse_ns: time outside of valid range" },
	{ "time.parse_ns",
	    "[" RFC3339 ", \"2262-04-11T23:47:16.854775808-00:00\"]",
	    "!eval_builtin_error:time outside of valid range" },
	{ "time.parse_ns", "[\"2006-01-02\", \"2021-02-29\"]",
	    "!eval_builtin_error:parsing time \"2021-02-29\": day out of "
	    "range" },
	{ "time.parse_ns", "[\"2006-01-02\", \"2021-13-01\"]",
	    "!eval_builtin_error:parsing time \"2021-13-01\": month out "
	    "of range" },
	{ "time.parse_ns", "[\"2006-01-02\", \"21-01-01\"]",
	    "!eval_builtin_error:parsing time \"21-01-01\" as "
	    "\"2006-01-02\": cannot parse \"21-01-01\" as "
	    "\"2006\"" },
	{ "time.parse_ns", "[\"2006-01-02\", \"2021-01-01x\"]",
	    "!eval_builtin_error:parsing time \"2021-01-01x\": extra "
	    "text: \"x\"" },
	{ "time.parse_ns", "[\"2006-01-02\", 1]",
	    "!eval_type_error:operand 2 must be string but got number" },
	{ "time.parse_rfc3339_ns", "[\"1970-01-01T00:00:00-00:00\"]", "0" },
	{ "time.parse_rfc3339_ns", "[\"2017-06-02T19:00:00-07:00\"]",
	    "1496455200000000000" },
	{ "time.parse_rfc3339_ns", "[\"2017-06-02T19:00:00.5+05:30\"]",
	    "1496410200500000000" },
	{ "time.parse_rfc3339_ns", "[\"1677-09-21T00:12:43.145224191-00:00\"]",
	    "!eval_builtin_error:time outside of valid range" },
	{ "time.parse_rfc3339_ns", "[\"2017-06-02\"]",
	    "!eval_builtin_error:cannot parse \"\" as \"T\"" },
	{ "time.parse_duration_ns", "[\"1h30m\"]", "5400000000000" },
	{ "time.parse_duration_ns", "[\"-1.5s\"]", "-1500000000" },
	{ "time.parse_duration_ns", "[\"300ms\"]", "300000000" },
	{ "time.parse_duration_ns", "[\"1us2\\u00b5s3\\u03bcs4ns\"]", "6004" },
	{ "time.parse_duration_ns", "[\"0\"]", "0" },
	{ "time.parse_duration_ns", "[\".5h\"]", "1800000000000" },
	{ "time.parse_duration_ns", "[\"2562047h47m16.854775807s\"]",
	    "9223372036854775807" },
	{ "time.parse_duration_ns", "[\"2562048h\"]",
	    "!eval_builtin_error:time: invalid duration \"2562048h\"" },
	{ "time.parse_duration_ns", "[\"1\"]",
	    "!eval_builtin_error:time.parse_duration_ns: time: missing unit in "
	    "duration \"1\"" },
	{ "time.parse_duration_ns", "[\"1s2x\"]",
	    "!eval_builtin_error:time: unknown unit \"x\" in duration "
	    "\"1s2x\"" },
	{ "time.parse_duration_ns", "[\"\"]",
	    "!eval_builtin_error:time: invalid duration \"\"" },
	{ "time.parse_duration_ns", "[\"h\"]",
	    "!eval_builtin_error:time: invalid duration \"h\"" },
	{ "time.date", "[1517814000000000000]", "[2018,2,5]" },
	{ "time.date", "[[1517832000000000000, \"\"]]", "[2018,2,5]" },
	{ "time.date", "[1582977600000000000]", "[2020,2,29]" },
	{ "time.date", "[-1]", "[1969,12,31]" },
	{ "time.date", "[1582977600000000000000]",
	    "!eval_builtin_error:time.date: timestamp too big" },
	{ "time.date", "[1.5]", "!eval_builtin_error:timestamp too big" },
	{ "time.date", "[\"x\"]",
	    "!eval_type_error:operand 1 must be either number (ns) or [number "
	    "(ns), string (tz)] but got string" },
	{ "time.date", "[[1, \"Nowhere/Special\"]]",
	    "!eval_builtin_error:unknown time zone Nowhere/Special" },
	{ "time.date", "[[1, \"../../etc/passwd\"]]",
	    "!eval_builtin_error:time: invalid location name" },
	{ "time.clock", "[1517832000000000000]", "[12,0,0]" },
	{ "time.clock", "[1582977600000000000]", "[12,0,0]" },
	{ "time.clock", "[-1]", "[23,59,59]" },
	{ "time.weekday", "[1517832000000000000]", "\"Monday\"" },
	{ "time.weekday", "[1517918400000000000]", "\"Tuesday\"" },
	{ "time.weekday", "[1518350400000000000]", "\"Sunday\"" },
	{ "time.weekday", "[1582977600000000000000]",
	    "!eval_builtin_error:timestamp too big" },
	{ "time.add_date", "[1585852421593912000, 3, 9, 12]",
	    "1705257221593912000" },
	{ "time.add_date", "[1585852421593912000, -1, -1, -1]",
	    "1551465221593912000" },
	{ "time.add_date", "[1580428800000000000, 0, 1, 0]",
	    "1583107200000000000" },
	{ "time.add_date", "[0, 2262, 1, 1]",
	    "!eval_builtin_error:time outside of valid range" },
	{ "time.add_date", "[-9223372036854775808, 0, 0, -1]",
	    "!eval_builtin_error:time outside of valid range" },
	{ "time.add_date", "[0, 1.5, 0, 0]",
	    "!eval_type_error:operand 2 must be integer number" },
	{ "time.add_date", "[0, 100000000000000000000, 0, 0]",
	    "!eval_builtin_error:time outside of valid range" },
	{ "time.diff", "[1580601600000000000, 1583020800000000000]",
	    "[0,0,28,0,0,0]" },
	{ "time.diff", "[1612224000000000000, 1614556800000000000]",
	    "[0,0,27,0,0,0]" },
	{ "time.diff", "[1078012800000000000, 1109635200000000000]",
	    "[1,0,1,0,0,0]" },
	{ "time.diff", "[1700000061000000000, 1700000000000000000]",
	    "[0,0,0,0,1,1]" },
	{ "time.format", "[1700000000123456789]",
	    "\"2023-11-14T22:13:20.123456789Z\"" },
	{ "time.format", "[1700000000000000000]", "\"2023-11-14T22:13:20Z\"" },
	{ "time.format",
	    "[[1700000000120000000, \"UTC\", \"Monday, 02-Jan-06 3:4:5.000 "
	    "pm Z07:00 MST (002)\"]]",
	    "\"Tuesday, 14-Nov-23 10:13:20.120 pm Z UTC (318)\"" },
	{ "time.format", "[[1700000000000000000, \"\", \"RFC1123Z\"]]",
	    "\"Tue, 14 Nov 2023 22:13:20 +0000\"" },
};

/* Rows that need the tz database. */
static const struct bi_row zone_rows[] = {
	{ "time.date", "[[1517814000000000000, \"America/Los_Angeles\"]]",
	    "[2018,2,4]" },
	{ "time.format", "[[1700000000123456789, \"America/New_York\"]]",
	    "\"2023-11-14T17:13:20.123456789-05:00\"" },
	{ "time.format",
	    "[[1700000000000000000, \"America/New_York\", \"UnixDate\"]]",
	    "\"Tue Nov 14 17:13:20 EST 2023\"" },
	{ "time.format",
	    "[[1710066600000000000, \"America/Los_Angeles\", " RFC3339 "]]",
	    "\"2024-03-10T03:30:00-07:00\"" },
	{ "time.format",
	    "[[1710061200000000000, \"America/Los_Angeles\", " RFC3339 "]]",
	    "\"2024-03-10T01:00:00-08:00\"" },
	/* past the transitions in the file: the POSIX rule decides */
	{ "time.format",
	    "[[4118126400000000000, \"America/Los_Angeles\", \"2006-01-02 "
	    "15:04 MST -07:00\"]]",
	    "\"2100-07-01 05:00 PDT -07:00\"" },
	{ "time.format",
	    "[[4102488000000000000, \"Australia/Sydney\", " RFC3339 "]]",
	    "\"2100-01-01T23:00:00+11:00\"" },
	{ "time.format",
	    "[[1688169600000000000, \"Australia/Sydney\", " RFC3339 "]]",
	    "\"2023-07-01T10:00:00+10:00\"" },
	{ "time.format",
	    "[[1688169600000000000, \"Asia/Kolkata\", \"15:04 -0700 "
	    "Z07\"]]",
	    "\"05:30 +0530 +05\"" },
	{ "time.diff",
	    "[[1700000060000000000, \"UTC\"], [1700000000000000000, "
	    "\"Asia/Shanghai\"]]",
	    "[0,0,0,0,1,0]" },
	{ "time.add_date",
	    "[[1710021600000000000, \"America/Los_Angeles\"], 0, 0, 1]",
	    "1710104400000000000" },
	{ "time.clock", "[[1700000000000000000, \"Local\"]]", NULL },
};

int
main(void)
{
	size_t i;

	bi_run(rows, AXG_ARRAY_LEN(rows));
	if (access("/usr/share/zoneinfo/America/Los_Angeles", R_OK) != 0) {
		for (i = 0; i < AXG_ARRAY_LEN(zone_rows); i++)
			tap_skip(zone_rows[i].args,
			    "no tz database in /usr/share/zoneinfo");
		return tap_done();
	}
	for (i = 0; i < AXG_ARRAY_LEN(zone_rows); i++) {
		struct axv *r;
		if (zone_rows[i].want != NULL) {
			bi_check(&zone_rows[i], false);
			continue;
		}
		/* the local zone works whatever it is */
		{
			struct bi_row row = zone_rows[i];
			struct axp_bctx ctx;
			struct axv *a = axv_array_new(2);
			axv_array_push(a, axv_int(1700000000000000000LL));
			axv_array_push(a, axv_cstr("Local"));
			is_int(bi_call(row.name, &a, 1, &ctx, &r), AXP_BI_OK,
			    "time.clock in the Local zone");
			axv_unref(r);
			axv_unref(a);
		}
	}
	return tap_done();
}
