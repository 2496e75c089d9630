/* Benchmark of builtin calls: regex.match with a cached pattern against a
 * new pattern each call (compile + JIT), and glob.match.  Figures are
 * ratios to the cached regex.match measured in the same run. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "policy/builtins.h"
#include "policy/value.h"

#define N 20000

static double
run(const char *name, struct axv *(*make)(int, int), int nargs, int fresh)
{
	const struct axp_builtin *b = axp_builtin_lookup(name, strlen(name));
	uint64_t t0 = axg_monotonic_ns();
	struct axp_bctx ctx;
	int i, k;

	for (i = 0; i < N; i++) {
		struct axv *args[3], *out = NULL;
		for (k = 0; k < nargs; k++)
			args[k] = make(k, fresh ? i : 0);
		memset(&ctx, 0, sizeof(ctx));
		ctx.name = name;
		if (b->fn(&ctx, args, &out) == AXP_BI_ERROR)
			axg_fatal(1, "%s: %s", name, ctx.msg);
		axv_unref(out);
		for (k = 0; k < nargs; k++)
			axv_unref(args[k]);
	}
	return (double)(axg_monotonic_ns() - t0) / N;
}

static struct axv *
rx_args(int k, int i)
{
	char buf[64];

	if (k == 0) {
		snprintf(buf, sizeof(buf), "^api-%d\\.[a-z]+\\.example\\.com$",
		    i);
		return axv_cstr(buf);
	}
	return axv_cstr("api-0.eu.example.com");
}

static struct axv *
glob_args(int k, int i)
{
	(void)i;
	if (k == 0)
		return axv_cstr("api-*.*.example.com");
	if (k == 1)
		return axv_null();
	return axv_cstr("api-0.eu.example.com");
}

int
main(void)
{
	double cached = run("regex.match", rx_args, 2, 0);
	double fresh = run("regex.match", rx_args, 2, 1);
	double glob = run("glob.match", glob_args, 3, 0);

	printf("regex.match, cached pattern:   %.0f ns/call (baseline 1.00)\n",
	    cached);
	printf("regex.match, new pattern each: %.2fx baseline\n",
	    fresh / cached);
	printf("glob.match:                    %.2fx baseline\n",
	    glob / cached);
	return 0;
}
