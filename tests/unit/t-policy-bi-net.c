/* Unit tests of policy/builtins-net.c. */
#include "config.h"

#include "tests/unit/policy-bi-rows.h"

static const struct bi_row rows[] = {
	{ "net.cidr_contains", "[\"172.17.0.0/24\", \"172.17.0.0/16\"]",
	    "false" },
	{ "net.cidr_contains", "[\"10.0.0.0/8\", \"192.168.1.0/24\"]",
	    "false" },
	{ "net.cidr_contains", "[\"10.0.0.0/8\", \"10.1.1.1/32\"]", "true" },
	{ "net.cidr_contains",
	    "[\"2001:4860:4860::8888/32\", \"2001:4860:4860:1234::8888/40\"]",
	    "true" },
	{ "net.cidr_contains",
	    "[\"2001:4860:4860::8888/32\", "
	    "\"2001:4860:4860:1234:5678:1234:5678:8888/128\"]",
	    "true" },
	{ "net.cidr_contains", "[\"2001:4860::/96\", \"2001:4860::/32\"]",
	    "false" },
	{ "net.cidr_contains",
	    "[\"2001:4860::/32\", \"fd1e:5bfe:8af3:9ddc::/64\"]", "false" },
	{ "net.cidr_contains", "[\"10.0.0.0/8\", \"10.1.2.3\"]", "true" },
	{ "net.cidr_contains", "[\"10.0.0.0/8\", \"192.168.1.1\"]", "false" },
	{ "net.cidr_contains", "[\"10.0.0.0/8\", \"::ffff:10.1.2.3\"]",
	    "true" },
	{ "net.cidr_contains", "[\"::/0\", \"10.1.2.3\"]", "false" },
	{ "net.cidr_contains", "[\"not-a-cidr\", \"192.168.1.67\"]",
	    "!eval_builtin_error:net.cidr_contains: invalid CIDR address: "
	    "not-a-cidr" },
	{ "net.cidr_contains", "[\"192.168.1.0/28\", \"not-a-cidr\"]",
	    "!eval_builtin_error:invalid CIDR address: not-a-cidr" },
	{ "net.cidr_contains", "[\"010.0.0.0/8\", \"10.0.0.1\"]",
	    "!eval_builtin_error:invalid CIDR address" },
	{ "net.cidr_contains", "[1, \"10.0.0.1\"]",
	    "!eval_type_error:operand 1 must be string but got number" },
	{ "net.cidr_intersects", "[\"192.168.1.0/25\", \"192.168.1.64/25\"]",
	    "true" },
	{ "net.cidr_intersects", "[\"192.168.1.0/24\", \"192.168.2.0/24\"]",
	    "false" },
	{ "net.cidr_intersects",
	    "[\"fd1e:5bfe:8af3:9ddc::/64\", \"2001:4860:4860::8888/32\"]",
	    "false" },
	{ "net.cidr_intersects", "[\"10.0.0.0/8\", \"10.2.0.0/16\"]", "true" },
	{ "net.cidr_intersects", "[\"10.0.0.0/8\", \"10.2.0.0\"]",
	    "!eval_builtin_error:invalid CIDR address: 10.2.0.0" },
	{ "net.cidr_is_valid", "[\"192.168.1.0/24\"]", "true" },
	{ "net.cidr_is_valid", "[\"\"]", "false" },
	{ "net.cidr_is_valid", "[\"there goes a string\"]", "false" },
	{ "net.cidr_is_valid", "[\"192.168.1.2\"]", "false" },
	{ "net.cidr_is_valid", "[\"2002::1234:abcd:ffff:c0a8:101/64\"]",
	    "true" },
	{ "net.cidr_is_valid", "[\"10.0.0.0/33\"]", "false" },
	{ "net.cidr_is_valid", "[7]", "false" },
	{ "net.cidr_expand", "[\"192.168.1.1/30\"]",
	    "[\"192.168.1.0\",\"192.168.1.1\",\"192.168.1.2\","
	    "\"192.168.1.3\"]" },
	{ "net.cidr_expand", "[\"172.16.100.255/30\"]",
	    "[\"172.16.100.252\",\"172.16.100.253\",\"172.16.100.254\","
	    "\"172.16.100.255\"]" },
	{ "net.cidr_expand", "[\"192.168.1.1/32\"]", "[\"192.168.1.1\"]" },
	{ "net.cidr_expand", "[\"10.0.0.255/23\"]", NULL },
	{ "net.cidr_expand", "[\"fe80::ffff/127\"]",
	    "[\"fe80::fffe\",\"fe80::ffff\"]" },
	{ "net.cidr_expand", "[\"192.168.1.1/33\"]",
	    "!eval_builtin_error:net.cidr_expand: invalid CIDR address: "
	    "192.168.1.1/33" },
	{ "net.cidr_expand", "[\"10.0.0.0/8\"]",
	    "!eval_builtin_error:more than 65536 addresses" },
	{ "net.cidr_contains_matches", "[\"1.1.1.0/24\", \"1.1.1.1\"]",
	    "[[\"1.1.1.0/24\",\"1.1.1.1\"]]" },
	{ "net.cidr_contains_matches",
	    "[[\"1.1.2.0/24\", \"1.1.1.0/24\"], [\"1.1.1.1\", \"1.1.2.1\"]]",
	    "[[0,1],[1,0]]" },
	{ "net.cidr_contains_matches",
	    "[[[\"1.1.2.0/24\", 1], \"1.1.1.0/24\"], [\"1.1.1.1\", "
	    "\"1.1.2.1\"]]",
	    "[[0,1],[1,0]]" },
	{ "net.cidr_contains_matches",
	    "[[\"1.1.2.0/24\", \"1.1.1.0/24\"], [\"1.1.1.1\", 1]]",
	    "!eval_builtin_error:net.cidr_contains_matches: operand 2: "
	    "element must be string or non-empty array" },
	{ "net.cidr_contains_matches",
	    "[{\"$set\": [\"1.1.1.0/24\", \"1.1.2.0/24\"]}, {\"$set\": "
	    "[\"1.1.1.1\", \"1.1.2.1\"]}]",
	    "[[\"1.1.1.0/24\",\"1.1.1.1\"],[\"1.1.2.0/24\",\"1.1.2.1\"]]" },
	{ "net.cidr_contains_matches",
	    "[{\"$set\": [[\"1.1.1.0/24\", \"bar\"], [\"1.1.2.0/24\", "
	    "\"foo\"]]}, {\"$set\": [[\"1.1.1.1\", \"baz\"], [\"1.1.2.1\", "
	    "\"qux\"]]}]",
	    "[[[\"1.1.1.0/24\",\"bar\"],[\"1.1.1.1\",\"baz\"]],"
	    "[[\"1.1.2.0/24\",\"foo\"],[\"1.1.2.1\",\"qux\"]]]" },
	{ "net.cidr_contains_matches",
	    "[{\"$set\": [[\"1.1.1.0/24\", \"bar\"]]}, {\"$set\": [[], "
	    "[\"1.1.2.1\", \"qux\"]]}]",
	    "!eval_builtin_error:operand 2: element must be string or "
	    "non-empty array" },
	{ "net.cidr_contains_matches",
	    "[{\"k1\": \"1.1.1.1/24\", \"k2\": [\"1.1.1.2/24\", 1]}, "
	    "\"1.1.1.128\"]",
	    "[[\"k1\",\"1.1.1.128\"],[\"k2\",\"1.1.1.128\"]]" },
	{ "net.cidr_contains_matches", "[[\"x\"], \"1.1.1.1\"]",
	    "!eval_builtin_error:invalid CIDR address: x" },
	{ "net.cidr_merge",
	    "[[\"2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128\", "
	    "\"2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128\"]]",
	    "[\"2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128\"]" },
	{ "net.cidr_merge",
	    "[[\"2601:600:8a80:207e:a57d:7567:e2c9:e7b3/64\", "
	    "\"2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128\"]]",
	    "[\"2601:600:8a80:207e::/64\"]" },
	{ "net.cidr_merge", "[[\"2601:600:8a80:207e:a57d:7567:e2c9:e7b3\"]]",
	    "!eval_builtin_error:net.cidr_merge: IPv6 invalid: needs prefix "
	    "length" },
	{ "net.cidr_merge", "[[\"192.0.128.0/24\", \"0.0.0.0/0\"]]",
	    "[\"0.0.0.0/0\"]" },
	{ "net.cidr_merge", "[[\"192.0.128.0/24\", \"192.0.129.0/24\"]]",
	    "[\"192.0.128.0/23\"]" },
	{ "net.cidr_merge",
	    "[[\"192.0.2.112/30\", \"192.0.2.116/31\", \"192.0.2.118/31\"]]",
	    "[\"192.0.2.112/29\"]" },
	{ "net.cidr_merge", "[[\"192.0.129.0/24\", \"192.0.130.0/24\"]]",
	    "[\"192.0.129.0/24\",\"192.0.130.0/24\"]" },
	{ "net.cidr_merge",
	    "[[\"192.0.2.112/30\", \"192.0.2.116/32\", \"192.0.2.118/31\"]]",
	    "[\"192.0.2.112/30\",\"192.0.2.116/32\",\"192.0.2.118/31\"]" },
	{ "net.cidr_merge",
	    "[[\"192.0.2.112/31\", \"192.0.2.116/31\", \"192.0.2.118/31\"]]",
	    "[\"192.0.2.112/31\",\"192.0.2.116/30\"]" },
	{ "net.cidr_merge",
	    "[[\"192.0.1.254/31\", \"192.0.2.0/28\", \"192.0.2.16/28\", "
	    "\"192.0.2.32/28\", \"192.0.2.48/28\", \"192.0.2.64/28\", "
	    "\"192.0.2.80/28\", \"192.0.2.96/28\", \"192.0.2.112/28\", "
	    "\"192.0.2.128/28\", \"192.0.2.144/28\", \"192.0.2.160/28\", "
	    "\"192.0.2.176/28\", \"192.0.2.192/28\", \"192.0.2.208/28\", "
	    "\"192.0.2.224/28\", \"192.0.2.240/28\", \"192.0.3.0/28\"]]",
	    "[\"192.0.1.254/31\",\"192.0.2.0/24\",\"192.0.3.0/28\"]" },
	{ "net.cidr_merge",
	    "[[\"::/0\", \"::192.0.2.0/124\", \"ff00::101/128\"]]",
	    "[\"::/0\"]" },
	{ "net.cidr_merge",
	    "[[\"fe80::/120\", \"192.0.2.0/24\", \"192.0.3.0/24\", "
	    "\"192.0.4.0/25\", \"192.0.4.128/25\"]]",
	    "[\"192.0.2.0/23\",\"192.0.4.0/24\",\"fe80::/120\"]" },
	{ "net.cidr_merge", "[[]]", "[]" },
	{ "net.cidr_merge",
	    "[[\"192.0.2.112\", \"192.0.2.116/31\", \"192.0.2.118/31\"]]",
	    "[\"192.0.2.0/24\"]" },
	{ "net.cidr_merge", "[[\"192.0.128.0\", \"192.0.129.0\"]]",
	    "[\"192.0.128.0/23\"]" },
	{ "net.cidr_merge",
	    "[[\"10.0.0.4/31\", \"10.0.0.6/31\", "
	    "\"10.0.0.0/30\"]]",
	    "[\"10.0.0.0/29\"]" },
	{ "net.cidr_merge",
	    "[{\"$set\": [\"192.0.2.112/30\", \"192.0.2.116/31\", "
	    "\"192.0.2.118/31\"]}]",
	    "[\"192.0.2.112/29\"]" },
	{ "net.cidr_merge", "[[\"foo\"]]", "!eval_builtin_error:" },
	{ "net.cidr_merge", "[[1]]",
	    "!eval_builtin_error:element must be string" },
	{ "net.cidr_merge", "[\"10.0.0.0/8\"]",
	    "!eval_type_error:operand 1 must be one of {array, set}" },
};

int
main(void)
{
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(rows); i++) {
		struct axv *r;
		if (rows[i].want != NULL) {
			bi_check(&rows[i], false);
			continue;
		}
		/* a /23: 512 addresses */
		{
			struct axp_bctx ctx;
			struct axv *a = axv_cstr("10.0.0.255/23");
			int rc = bi_call("net.cidr_expand", &a, 1, &ctx, &r);
			is_int(rc, AXP_BI_OK, "cidr_expand /23");
			is_int(axv_set_len(r), 512, "a /23 has 512 addresses");
			is_str(axv_str(axv_set_at(r, 0)), "10.0.0.0",
			    "first address");
			ok(axv_set_contains(r, axv_set_at(r, 0)), "contains");
			axv_unref(r);
			axv_unref(a);
		}
	}
	return tap_done();
}
