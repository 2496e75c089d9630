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

static const char cidr_idx[] =
    "package t\n"
    "m := [n.id | some n in data.nets; net.cidr_contains(n.cidr, "
    "input.addr)]\n";
static const char cidr_plain[] =
    "package t\n"
    "m := [n.id | some n in data.nets; n == n; net.cidr_contains(n.cidr, "
    "input.addr)]\n";

/* overlapping IPv4 and IPv6 networks, host bits set, forms the index
 * leaves to the filter (mapped, bad, not a string) */
static const char nets[] = "{\"nets\": ["
			   "{\"id\": 0, \"cidr\": \"10.0.0.0/8\"},"
			   "{\"id\": 1, \"cidr\": \"10.1.2.0/24\"},"
			   "{\"id\": 2, \"cidr\": \"10.1.2.77/24\"},"
			   "{\"id\": 3, \"cidr\": \"192.168.0.0/16\"},"
			   "{\"id\": 4, \"cidr\": \"0.0.0.0/0\"},"
			   "{\"id\": 5, \"cidr\": \"2001:db8::/32\"},"
			   "{\"id\": 6, \"cidr\": \"2001:db8:1::/48\"},"
			   "{\"id\": 7, \"cidr\": \"::ffff:10.0.0.0/104\"},"
			   "{\"id\": 8, \"cidr\": \"10.1.2.3/32\"},"
			   "{\"id\": 9, \"cidr\": \"172.16.0.0/12\"},"
			   "{\"id\": 10, \"cidr\": \"fe80::/10\"},"
			   "{\"id\": 11, \"cidr\": \"10.1.0.0/16\"}"
			   "]}";
static const char nets_bad[] = "{\"nets\": ["
			       "{\"id\": 0, \"cidr\": \"10.0.0.0/8\"},"
			       "{\"id\": 1, \"cidr\": \"10.1.2.0/24\"},"
			       "{\"id\": 2, \"cidr\": \"not a network\"},"
			       "{\"id\": 3, \"cidr\": \"192.168.0.0/16\"},"
			       "{\"id\": 4, \"cidr\": \"10.9.0.0/16\"}"
			       "]}";

static void
cidr_cases(void)
{
	static const struct {
		const char *input, *want, *name;
	} c[] = {
		{ "{\"addr\": \"10.1.2.3\"}", "[{\"x\":[0,1,2,4,8,11]}]",
		    "cidr: every containing network, in order" },
		{ "{\"addr\": \"10.200.0.1\"}", "[{\"x\":[0,4]}]",
		    "cidr: a wider network only" },
		{ "{\"addr\": \"8.8.8.8\"}", "[{\"x\":[4]}]",
		    "cidr: the default route" },
		{ "{\"addr\": \"2001:db8:1::5\"}", "[{\"x\":[5,6]}]",
		    "cidr: IPv6" },
		{ "{\"addr\": \"2001:db9::1\"}", "[{\"x\":[]}]",
		    "cidr: IPv6, no match" },
		{ "{\"addr\": \"::ffff:10.1.2.3\"}", "[{\"x\":[0,1,2,4,8,11]}]",
		    "cidr: an IPv4-mapped address counts as IPv4" },
		{ "{\"addr\": \"10.1.2.0/25\"}", "[{\"x\":[0,1,2,4,11]}]",
		    "cidr: a network probe is scanned" },
		{ "{\"addr\": \"nonsense\"}", "[{\"x\":[]}]",
		    "cidr: a bad probe is scanned" },
	};
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(c); i++)
		same(cidr_idx, cidr_plain, nets, "x = data.t.m", c[i].input,
		    false, c[i].want, c[i].name);
	same(cidr_idx, cidr_plain, nets_bad, "x = data.t.m",
	    "{\"addr\": \"10.9.1.1\"}", false, "[{\"x\":[0,4]}]",
	    "cidr: an element the filter fails on is left out");
	same(cidr_idx, cidr_plain, nets_bad, "x = data.t.m",
	    "{\"addr\": \"10.9.1.1\"}", true,
	    "error eval_builtin_error net.cidr_contains: invalid CIDR "
	    "address: not a network",
	    "cidr: strict: the element's error is still raised");
}

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

	cidr_cases();

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
	/* 5000 networks 10.x.y.0/24: one candidate */
	{
		struct axg_buf b;
		int i;

		axg_buf_init(&b, 0);
		axg_buf_puts(&b, "{\"nets\": [");
		for (i = 0; i < 5000; i++)
			axg_buf_printf(&b,
			    "%s{\"id\": %d, \"cidr\": \"10.%d.%d.0/24\"}",
			    i ? "," : "", i, i / 256, i % 256);
		axg_buf_puts(&b, "]}");
		big = axg_buf_steal(&b, NULL);
	}
	got = run(cidr_idx, big, "x = data.t.m", "{\"addr\": \"10.3.7.9\"}",
	    3000, false);
	is_str(got, "[{\"x\":[775]}]", "cidr index within a step limit");
	free(got);
	got = run(cidr_plain, big, "x = data.t.m", "{\"addr\": \"10.3.7.9\"}",
	    3000, false);
	like_str(got, "eval_limit_error", "the plain cidr scan exceeds it");
	free(got);
	free(big);
	return tap_done();
}
