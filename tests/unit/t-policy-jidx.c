/* Join indexes (policy/jidx.c): an indexed scan gives exactly the results
 * and errors of the plain scan, and visits only the candidates. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"
#include "tests/tap.h"

/* Evaluate query against src and data (JSON); the result or the error. */
static char *
run(const char *src, const char *data, const char *query, const char *input,
    uint64_t steps, bool strict)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *in = NULL, *res = NULL;
	struct axp_eval_opts o;
	char *out;

	axp_compiler_add_module(c, "t.rego", src, strlen(src));
	if (data)
		axp_compiler_set_data_json(c, data, strlen(data));
	if ((p = axp_compiler_compile(c)) == NULL) {
		out = axg_asprintf("compile %s",
		    axp_compiler_error(c, 0)->message);
		goto done;
	}
	if ((q = axp_query_prepare(p, query, &err)) == NULL) {
		out = axg_asprintf("query %s", err.message);
		axp_error_clear(&err);
		goto done;
	}
	if (input)
		in = axv_from_json(input, strlen(input), NULL, NULL, 0);
	memset(&o, 0, sizeof(o));
	o.max_steps = steps;
	o.strict = strict;
	if (axp_eval(q, in, &o, &res, &err) < 0) {
		out = axg_asprintf("error %s %s", axp_errcode_str(err.code),
		    err.message);
		axp_error_clear(&err);
	} else {
		out = axv_json_str(res);
	}
done:
	axv_unref(in);
	axv_unref(res);
	axp_query_free(q);
	axp_policy_free(p);
	axp_compiler_free(c);
	return out;
}

/* The same filter, indexed (the filter follows the scan) and not (an
 * expression in between keeps the planner out). */
static void
same(const char *indexed, const char *plain, const char *data,
    const char *query, const char *input, bool strict, const char *want,
    const char *name)
{
	char *a = run(indexed, data, query, input, 0, strict);
	char *b = run(plain, data, query, input, 0, strict);

	is_str(a, want, "%s: indexed", name);
	is_str(b, want, "%s: scanned", name);
	free(a);
	free(b);
}

static const char eq_idx[] = "package t\n"
			     "ids contains i if {\n"
			     "  some i, r in data.rules\n"
			     "  r.host == input.host\n"
			     "}\n";
static const char eq_plain[] = "package t\n"
			       "ids contains i if {\n"
			       "  some i, r in data.rules\n"
			       "  r == r\n"
			       "  r.host == input.host\n"
			       "}\n";

static const char fn_idx[] =
    "package t\n"
    "m := [r.id | some r in data.rules; host_matches(r.host, input.host)]\n"
    "host_matches(p, h) if p == h\n"
    "host_matches(p, h) if {\n"
    "  startswith(p, \"*.\")\n"
    "  endswith(h, trim_prefix(p, \"*\"))\n"
    "}\n"
    "mock(_, _) := true\n";
static const char fn_plain[] =
    "package t\n"
    "m := [r.id | some r in data.rules; r == r; host_matches(r.host, "
    "input.host)]\n"
    "host_matches(p, h) if p == h\n"
    "host_matches(p, h) if {\n"
    "  startswith(p, \"*.\")\n"
    "  endswith(h, trim_prefix(p, \"*\"))\n"
    "}\n"
    "mock(_, _) := true\n";

static const char rules[] = "{\"rules\": ["
			    "{\"id\": 0, \"host\": \"a.example.com\"},"
			    "{\"id\": 1, \"host\": \"*.example.com\"},"
			    "{\"id\": 2, \"host\": 7},"
			    "{\"id\": 3},"
			    "{\"id\": 4, \"host\": \"a.example.com\"},"
			    "{\"id\": 5, \"host\": \"*.com\"},"
			    "{\"id\": 6, \"host\": \"b.example.org\"},"
			    "{\"id\": 7, \"host\": \"*.b.example.org\"}"
			    "]}";

/* the same without the number host */
static const char rules_s[] = "{\"rules\": ["
			      "{\"id\": 0, \"host\": \"a.example.com\"},"
			      "{\"id\": 1, \"host\": \"*.example.com\"},"
			      "{\"id\": 3},"
			      "{\"id\": 4, \"host\": \"a.example.com\"},"
			      "{\"id\": 5, \"host\": \"*.com\"},"
			      "{\"id\": 6, \"host\": \"b.example.org\"},"
			      "{\"id\": 7, \"host\": \"*.b.example.org\"}"
			      "]}";

/* A large list: rule i has host "h<i>.example.net". */
static char *
big_data(int n)
{
	struct axg_buf b;
	int i;

	axg_buf_init(&b, 0);
	axg_buf_puts(&b, "{\"rules\": [");
	for (i = 0; i < n; i++)
		axg_buf_printf(&b,
		    "%s{\"id\": %d, \"host\": \"h%d.example.net\"}",
		    i ? "," : "", i, i);
	axg_buf_puts(&b, "]}");
	return axg_buf_steal(&b, NULL);
}

int
main(void)
{
	char *big, *got;

	same(eq_idx, eq_plain, rules, "x = data.t.ids",
	    "{\"host\": \"a.example.com\"}", false, "[{\"x\":[0,4]}]",
	    "equality: every match");
	same(eq_idx, eq_plain, rules, "x = data.t.ids", "{\"host\": 7}", false,
	    "[{\"x\":[2]}]", "equality: a number key");
	same(eq_idx, eq_plain, rules, "x = data.t.ids", "{\"host\": 7.0}",
	    false, "[{\"x\":[2]}]", "equality: equal numbers match");
	same(eq_idx, eq_plain, rules, "x = data.t.ids",
	    "{\"host\": \"nowhere\"}", false, "[{\"x\":[]}]",
	    "equality: no match");
	same(eq_idx, eq_plain, rules, "x = data.t.ids", "{}", false,
	    "[{\"x\":[]}]", "equality: undefined probe");
	same(eq_idx, eq_plain, rules,
	    "x = data.t.ids with data.rules as [{\"host\": \"q\"}]",
	    "{\"host\": \"q\"}", false, "[{\"x\":[0]}]",
	    "equality: data overridden with `with`");

	same(fn_idx, fn_plain, rules_s, "x = data.t.m",
	    "{\"host\": \"a.example.com\"}", false, "[{\"x\":[0,1,4,5]}]",
	    "function: exact and suffix matches, in order");
	same(fn_idx, fn_plain, rules_s, "x = data.t.m",
	    "{\"host\": \"x.b.example.org\"}", false, "[{\"x\":[7]}]",
	    "function: suffix matches only");
	same(fn_idx, fn_plain, rules_s, "x = data.t.m",
	    "{\"host\": \"b.example.org\"}", false, "[{\"x\":[6]}]",
	    "function: a wildcard does not match its apex");
	same(fn_idx, fn_plain, rules_s, "x = data.t.m", "{\"host\": 7}", false,
	    "[{\"x\":[]}]", "function: a non-string probe scans everything");
	same(fn_idx, fn_plain, rules_s, "x = data.t.m", "{\"host\": 7}", true,
	    "error eval_type_error endswith: operand 1 must be string but got "
	    "number",
	    "function: a non-string probe, strict: the scan's error");
	same(fn_idx, fn_plain, rules, "x = data.t.m",
	    "{\"host\": \"a.example.com\"}", false, "[{\"x\":[0,1,4,5]}]",
	    "function: an element the filter fails on is left out");
	same(fn_idx, fn_plain, rules, "x = data.t.m",
	    "{\"host\": \"a.example.com\"}", true,
	    "error eval_type_error startswith: operand 1 must be string but "
	    "got number",
	    "function: strict: the element's type error is still raised");
	same(fn_idx, fn_plain, rules,
	    "x = data.t.m with data.t.host_matches as data.t.mock",
	    "{\"host\": \"zzz\"}", false, "[{\"x\":[0,1,2,4,5,6,7]}]",
	    "function: a mocked function sees every element");

	/* the index visits the candidates only: a step limit that the
	 * scan of 5000 elements exceeds is enough */
	big = big_data(5000);
	got = run(fn_idx, big, "x = data.t.m",
	    "{\"host\": \"h4321.example.net\"}", 3000, false);
	is_str(got, "[{\"x\":[4321]}]", "indexed scan within a step limit");
	free(got);
	got = run(fn_plain, big, "x = data.t.m",
	    "{\"host\": \"h4321.example.net\"}", 3000, false);
	like_str(got, "eval_limit_error", "the plain scan exceeds it");
	free(got);
	got = run(eq_idx, big, "x = data.t.ids",
	    "{\"host\": \"h17.example.net\"}", 3000, false);
	is_str(got, "[{\"x\":[17]}]", "equality index within a step limit");
	free(got);
	free(big);
	return tap_done();
}
