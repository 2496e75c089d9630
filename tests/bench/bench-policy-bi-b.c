/* bench-policy-bi: cost of some builtins relative to json.unmarshal of the
 * same data, measured in one run (ratios, not absolute times). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tests/unit/policy-bi-rows.h"

#define DOC                                                                    \
	"{\"rules\":[{\"host\":\"api.example.com\",\"methods\":[\"GET\","      \
	"\"POST\"],\"limit\":100},{\"host\":\"*.internal\",\"methods\":"       \
	"[\"GET\"],\"limit\":5}],\"version\":3,\"enabled\":true}"
#define YDOC                                                                   \
	"rules:\n- host: api.example.com\n  methods: [GET, POST]\n  limit: "   \
	"100\n- host: '*.internal'\n  methods: [GET]\n  limit: 5\nversion: "   \
	"3\nenabled: true\n"
#define TOK                                                                    \
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibm"  \
	"FtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpM"  \
	"eJf36POk6yJV_adQssw5c"

static double
per_call_ns(const char *name, int n, const char *a0, const char *a1, int iters)
{
	struct axv *av[2] = { axv_cstr(a0), a1 ? axv_cstr(a1) : NULL }, *r;
	struct axp_bctx ctx;
	uint64_t t0 = axg_monotonic_ns();
	int i;

	for (i = 0; i < iters; i++) {
		if (bi_call(name, av, n, &ctx, &r) != AXP_BI_OK) {
			fprintf(stderr, "%s failed: %s\n", name, ctx.msg);
			break;
		}
		axv_unref(r);
	}
	axv_unref(av[0]);
	axv_unref(av[1]);
	return (double)(axg_monotonic_ns() - t0) / iters;
}

int
main(void)
{
	int iters = 20000;
	double base = per_call_ns("json.unmarshal", 1, DOC, NULL, iters);

	printf("baseline json.unmarshal (%zu bytes): 1.00\n", strlen(DOC));
	printf("yaml.unmarshal same document: %.2f\n",
	    per_call_ns("yaml.unmarshal", 1, YDOC, NULL, iters) / base);
	printf("io.jwt.decode: %.2f\n",
	    per_call_ns("io.jwt.decode", 1, TOK, NULL, iters) / base);
	printf("io.jwt.verify_hs256: %.2f\n",
	    per_call_ns("io.jwt.verify_hs256", 2, TOK, "your-256-bit-secret",
		iters) /
		base);
	printf("time.parse_rfc3339_ns: %.2f\n",
	    per_call_ns("time.parse_rfc3339_ns", 1,
		"2017-06-02T19:00:00.123-07:00", NULL, iters) /
		base);
	printf("net.cidr_contains: %.2f\n",
	    per_call_ns("net.cidr_contains", 2, "10.0.0.0/8", "10.1.2.3",
		iters) /
		base);
	return 0;
}
