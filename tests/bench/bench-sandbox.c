/*
 * bench-sandbox: wall time of sbx_run("/bin/true") (no network namespace)
 * against a plain fork+exec of /bin/true measured in the same run, median
 * over N runs each (N from BENCH_N, default 50).  Also profiles the steps
 * the parent prepares on every launch.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

#define N_MAX 1000

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
median_ms(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return (double)v[n / 2] / 1e6;
}

static uint64_t
plain_once(void)
{
	uint64_t t0 = axg_monotonic_ns();
	pid_t p = fork();
	int st;

	if (p == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(p, &st, 0);
	return axg_monotonic_ns() - t0;
}

/* sbx_spawn + sbx_wait + sbx_job_free, with the spawn part (prepare,
 * clone, namespaces, mounts, confinement, until execve) in *spawn. */
static uint64_t
sandbox_once(struct sbx_spec *s, uint64_t *spawn)
{
	struct sbx_result r;
	struct sbx_job *job;
	char err[512];
	uint64_t t0 = axg_monotonic_ns();
	int rc = sbx_spawn(s, &job, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "bench-sandbox: sbx_spawn: %d %s\n", rc, err);
		exit(1);
	}
	*spawn = axg_monotonic_ns() - t0;
	if (sbx_wait(job, &r) != 0) {
		fprintf(stderr, "bench-sandbox: /bin/true exited %d\n",
		    r.status);
		exit(1);
	}
	sbx_job_free(job);
	return axg_monotonic_ns() - t0;
}

int
main(void)
{
	static uint64_t plain[N_MAX], sbx[N_MAX], spawn[N_MAX], seccomp[N_MAX];
	char *argv[] = { "/bin/true", NULL };
	const char *ns = getenv("BENCH_N");
	struct sbx_spec s;
	uint64_t n64 = 50;
	int n;
	double mp, ms, mc, msp;

	if (geteuid() != 0) {
		printf("bench-sandbox: skipped (needs root)\n");
		return 0;
	}
	if (ns != NULL && axg_parse_u64(ns, 3, N_MAX, &n64) == -1)
		n64 = 50;
	n = (int)n64;
	sbx_spec_init(&s);
	s.argv = argv;
	s.user = "nobody";
	/* Interleave so both see the same machine load. */
	for (int i = 0; i < n; i++) {
		plain[i] = plain_once();
		sbx[i] = sandbox_once(&s, &spawn[i]);
	}
	for (int i = 0; i < n; i++) {
		struct sock_fprog f[2];
		char err[256];
		uint64_t t0 = axg_monotonic_ns();

		if (sbx_seccomp_build(&s, f, err, sizeof(err)) == -1)
			return 1;
		seccomp[i] = axg_monotonic_ns() - t0;
		sbx_seccomp_free(f);
	}
	mp = median_ms(plain, n);
	ms = median_ms(sbx, n);
	mc = median_ms(seccomp, n);
	msp = median_ms(spawn, n);
	printf("fork+exec /bin/true:          median %7.3f ms (n=%d)\n", mp, n);
	printf("sbx_run /bin/true (no netns): median %7.3f ms (n=%d)\n", ms, n);
	printf("ratio sbx_run / fork+exec:    %.1fx\n", ms / mp);
	printf("profile: sbx_spawn (until execve) %.3f ms, of which seccomp "
	       "compile %.3f ms; the rest is the job and the teardown\n",
	    msp, mc);
	return 0;
}
