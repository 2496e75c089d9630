/*
 * bench-policy: the egress decision benchmark (make bench).
 *
 * Generates the data of the shared egress benchmark for 10 and 10,000
 * entries, compiles both layouts (egress.rego: object lookups,
 * egress_naive.rego: a list scanned per request), and for each input
 * prints the median and p99 nanoseconds of a prepared evaluation, the
 * ratio to a baseline measured just before that row (the trivial query
 * `input.port == 443`: this machine's speed drifts, so each row has its
 * own) and to the reference figures of OPA and regorus.
 * Also prints compile time and the memory of the compiled 10,000-entry
 * policy.
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "policy/axpolicy.h"
#include "policy/policy-int.h"
#include "policy/value.h"

#define ITER 2001

static const char *inputs[] = { "exact", "wildcard", "miss", "badport" };

/* Reference medians in ns (midpoints of the README's ranges). */
static double
ref_opa(int layout, int input, int n)
{
	if (layout == 1)
		return n <= 10 ? 122500 : 137.5e6;
	return input == 1 ? 68000 : 33500;
}

static double
ref_regorus(int layout, int input, int n)
{
	if (layout == 1)
		return n <= 10 ? 0 : 32.5e6;
	return input == 1 ? 27000 : 12750;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
gen_data(const char *shared, int n, const char *dir)
{
	char script[4096], num[32];
	pid_t pid;
	int st;

	snprintf(script, sizeof(script), "%s/bench/egress/gen_data.py", shared);
	snprintf(num, sizeof(num), "%d", n);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("python3", "python3", script, num, dir, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

static struct axv *
read_json(const char *path)
{
	char err[256], *t;
	size_t len;
	struct axv *v;

	t = axg_read_file(path, 256u << 20, &len, err, sizeof(err));
	if (t == NULL) {
		fprintf(stderr, "bench-policy: %s\n", err);
		return NULL;
	}
	v = axv_from_json(t, len, NULL, err, sizeof(err));
	free(t);
	if (v == NULL)
		fprintf(stderr, "bench-policy: %s: %s\n", path, err);
	return v;
}

/* Median and p99 of ITER evaluations. */
static int
measure(struct axp_query *q, struct axv *input, uint64_t *med, uint64_t *p99,
    char *result, size_t rlen)
{
	static uint64_t t[ITER];
	struct axv *res = NULL;
	int i;

	for (i = 0; i < 50; i++) { /* warm up */
		struct axv *ex = NULL;
		if (axp_eval_exprs(q, input, NULL, &res, &ex, NULL) < 0)
			return -1;
		if (i == 0) {
			char *s = axv_json_str(ex);
			snprintf(result, rlen, "%s", s);
			free(s);
		}
		axv_unref(res);
		axv_unref(ex);
	}
	for (i = 0; i < ITER; i++) {
		uint64_t a = axg_monotonic_ns();
		axp_eval(q, input, NULL, &res, NULL);
		t[i] = axg_monotonic_ns() - a;
		axv_unref(res);
	}
	qsort(t, ITER, sizeof(t[0]), cmp_u64);
	*med = t[ITER / 2];
	*p99 = t[ITER * 99 / 100];
	return 0;
}

/* The baseline query, measured again before each row. */
struct baseline {
	struct axp_query *q;
	struct axv *input;
};

static uint64_t
baseline_ns(const struct baseline *b)
{
	uint64_t med, p99;
	char result[64];

	if (measure(b->q, b->input, &med, &p99, result, sizeof(result)) < 0)
		return 1;
	return med ? med : 1;
}

static void
bench_size(const char *shared, int n, const struct baseline *bl)
{
	char dir[] = "/tmp/axg-bench.XXXXXX", path[4200];
	const char *files[2] = { "egress.rego", "egress_naive.rego" };
	const char *queries[2] = { "data.egress.decision",
		"data.egress_naive.decision" };
	struct axv *data = NULL;
	int layout, in;

	if (mkdtemp(dir) == NULL || gen_data(shared, n, dir) < 0) {
		printf("entries=%d: skipped (python3 could not generate the "
		       "data)\n",
		    n);
		return;
	}
	snprintf(path, sizeof(path), "%s/data.json", dir);
	data = read_json(path);
	for (layout = 0; layout < 2 && data; layout++) {
		struct axp_compiler *c = axp_compiler_new();
		struct axp_policy *p;
		struct axp_query *q;
		struct axp_error err;
		char *src;
		size_t len;
		uint64_t t0, t1;
		struct mallinfo2 m0, m1;

		snprintf(path, sizeof(path), "%s/bench/egress/%s", shared,
		    files[layout]);
		src = axg_read_file(path, 1 << 20, &len, NULL, 0);
		m0 = mallinfo2();
		t0 = axg_monotonic_ns();
		axp_compiler_add_module(c, files[layout], src ? src : "",
		    src ? len : 0);
		free(src);
		c->data = axv_ref(data);
		p = axp_compiler_compile(c);
		t1 = axg_monotonic_ns();
		m1 = mallinfo2();
		if (p == NULL) {
			const struct axp_error *e = axp_compiler_error(c, 0);
			printf("entries=%d %-6s: skipped: %s:%d:%d: %s\n", n,
			    layout ? "scan" : "lookup", e ? e->file : "",
			    e ? e->line : 0, e ? e->col : 0,
			    e ? e->message : "");
			axp_compiler_free(c);
			continue;
		}
		printf("entries=%d %-6s: compile %.2f ms, compiled policy "
		       "%.1f KiB (heap growth, data shared)\n",
		    n, layout ? "scan" : "lookup", (double)(t1 - t0) / 1e6,
		    (double)(m1.uordblks - m0.uordblks) / 1024.0);
		q = axp_query_prepare(p, queries[layout], &err);
		for (in = 0; q && in < 4; in++) {
			struct axv *input;
			uint64_t med, p99, base;
			char result[160];
			double ro = ref_opa(layout, in, n),
			       rr = ref_regorus(layout, in, n);
			snprintf(path, sizeof(path), "%s/input_%s.json", dir,
			    inputs[in]);
			input = read_json(path);
			base = baseline_ns(bl);
			if (input == NULL ||
			    measure(q, input, &med, &p99, result,
				sizeof(result)) < 0) {
				printf("  %-8s: evaluation failed\n",
				    inputs[in]);
				axv_unref(input);
				continue;
			}
			printf("  %-8s median %9llu ns  p99 %9llu ns  "
			       "x%.1f baseline (%llu ns)  OPA/this %.0f",
			    inputs[in], (unsigned long long)med,
			    (unsigned long long)p99, (double)med / (double)base,
			    (unsigned long long)base, ro / (double)med);
			if (rr > 0)
				printf("  regorus/this %.0f", rr / (double)med);
			printf("\n    -> %.100s\n", result);
			axv_unref(input);
		}
		axp_error_clear(&err);
		axp_query_free(q);
		axp_policy_free(p);
		axp_compiler_free(c);
	}
	axv_unref(data);
	{
		pid_t pid = fork();
		int st;
		if (pid == 0) {
			execlp("rm", "rm", "-rf", dir, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, &st, 0);
	}
}

int
main(void)
{
	const char *shared = getenv("AXG_SHARED_DIR");
	struct axp_compiler *c;
	struct axp_policy *p;
	struct baseline bl;

	if (shared == NULL || *shared == '\0') {
		printf("bench-policy: skipped: AXG_SHARED_DIR is not set\n");
		return 0;
	}
	/* the baseline: a trivial prepared query */
	c = axp_compiler_new();
	axp_compiler_add_module(c, "b.rego", "package b\n", 10);
	p = axp_compiler_compile(c);
	bl.q = axp_query_prepare(p, "input.port == 443", NULL);
	bl.input = axv_from_json("{\"port\":443}", 12, NULL, NULL, 0);
	printf("baseline (input.port == 443): median %llu ns\n",
	    (unsigned long long)baseline_ns(&bl));
	bench_size(shared, 10, &bl);
	bench_size(shared, 10000, &bl);
	axv_unref(bl.input);
	axp_query_free(bl.q);
	axp_policy_free(p);
	axp_compiler_free(c);
	return 0;
}
