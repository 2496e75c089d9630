/*
 * bench-netns: how long a job's network takes to build and tear down.
 *
 * Per round, in the same run, interleaved (in an order that rotates from
 * round to round) so that load on the machine hits all of them alike:
 *   unshare        unshare(CLONE_NEWNET) on a thread, then close the fd
 *   unshare -n     fork+exec of `unshare -n /bin/true` (the launcher
 *                  issue's reference)
 *   block mode     ns_job_net_new + ns_job_net_free, lo only
 *   proxy mode     ns_job_net_new + ns_job_net_free, veth + both tables
 * Prints medians and ratios against both baselines, then where proxy mode
 * spends its time, step by step.  AXG_BENCH_N sets the rounds (default 40).
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "netns/netns.h"
#include "netns/netns-int.h"

extern char **environ;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
median_ms(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return (n % 2 ? (double)v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0) /
	    1e6;
}

static void *
unshare_main(void *arg)
{
	int *fd = arg;

	*fd = -1;
	if (unshare(CLONE_NEWNET) == 0)
		*fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	return NULL;
}

static int
bare_unshare(void)
{
	pthread_t th;
	int fd = -1;

	if (pthread_create(&th, NULL, unshare_main, &fd) != 0)
		return -1;
	pthread_join(th, NULL);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static const char *
find_unshare(void)
{
	static const char *const paths[] = { "/usr/bin/unshare",
		"/bin/unshare" };
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

static int
spawn_unshare(const char *path)
{
	char *argv[] = { (char *)"unshare", (char *)"-n", (char *)"/bin/true",
		NULL };
	pid_t pid;
	int st;

	if (posix_spawn(&pid, path, NULL, NULL, argv, environ) != 0)
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

static int
job_net(const struct ns_config *cfg)
{
	struct ns_job_net *net;
	char err[512];

	net = ns_job_net_new(cfg, err, sizeof(err));
	if (net == NULL) {
		fprintf(stderr, "bench-netns: %s\n", err);
		return -1;
	}
	ns_job_net_free(net);
	return 0;
}

int
main(void)
{
	static const uint16_t ports[] = { 3128, 80 };
	struct ns_config proxy = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_config block = { NS_MODE_BLOCK, NULL, NULL, 0, false };
	const char *ushare = find_unshare();
	const char *s = getenv("AXG_BENCH_N");
	uint64_t n64 = 40, *t_un, *t_cmd, *t_blk, *t_px, t;
	uint64_t prof0[NSI_STEP_COUNT], total = 0;
	double m_un, m_cmd = 0, m_blk, m_px;
	char err[256];
	size_t i, n;

	if (getenv("AXG_BENCH_DEBUG") != NULL)
		axg_log_init("bench-netns", AXG_LOG_DEBUG);
	if (geteuid() != 0) {
		printf("bench-netns: skipped (needs root to create network "
		       "namespaces)\n");
		return 0;
	}
	if (s != NULL && axg_parse_u64(s, 1, 100000, &n64) != 0) {
		fprintf(stderr, "bench-netns: AXG_BENCH_N must be 1..100000\n");
		return 2;
	}
	n = (size_t)n64;
	if (ns_sweep(err, sizeof(err)) < 0)
		fprintf(stderr, "bench-netns: sweep: %s\n", err);
	t_un = axg_calloc(n, sizeof(*t_un));
	t_cmd = axg_calloc(n, sizeof(*t_cmd));
	t_blk = axg_calloc(n, sizeof(*t_blk));
	t_px = axg_calloc(n, sizeof(*t_px));

	/* Warm up (first-use costs: modules, conntrack, caches). */
	if (bare_unshare() != 0 || job_net(&block) != 0 ||
	    job_net(&proxy) != 0) {
		fprintf(stderr, "bench-netns: warm-up failed\n");
		return 1;
	}
	memcpy(prof0, nsi_prof, sizeof(prof0));
	for (i = 0; i < n; i++) {
		size_t k;

		/* Rotate the order, so that no case always runs right after
		 * another's teardown (the kernel's background work). */
		for (k = 0; k < 4; k++) {
			int r = 0;

			t = axg_monotonic_ns();
			switch ((i + k) % 4) {
			case 0:
				r = bare_unshare();
				t_un[i] = axg_monotonic_ns() - t;
				break;
			case 1:
				if (ushare != NULL &&
				    spawn_unshare(ushare) != 0) {
					fprintf(stderr,
					    "bench-netns: unshare -n "
					    "failed\n");
					ushare = NULL;
				}
				t_cmd[i] = axg_monotonic_ns() - t;
				break;
			case 2:
				r = job_net(&block);
				t_blk[i] = axg_monotonic_ns() - t;
				break;
			default:
				r = job_net(&proxy);
				t_px[i] = axg_monotonic_ns() - t;
				break;
			}
			if (r != 0)
				return 1;
		}
	}
	m_un = median_ms(t_un, n);
	if (ushare != NULL)
		m_cmd = median_ms(t_cmd, n);
	m_blk = median_ms(t_blk, n);
	m_px = median_ms(t_px, n);

	printf("netns create+destroy, median of %zu rounds (ms):\n", n);
	printf("  %-34s %8.2f   1.00x\n", "unshare(CLONE_NEWNET) in-process",
	    m_un);
	if (ushare != NULL)
		printf("  %-34s %8.2f   %.2fx\n", "unshare -n /bin/true", m_cmd,
		    m_cmd / m_un);
	printf("  %-34s %8.2f   %.2fx", "block mode", m_blk, m_blk / m_un);
	if (ushare != NULL)
		printf("   (%.2fx unshare -n; target <= 1.2x)", m_blk / m_cmd);
	printf("\n  %-34s %8.2f   %.2fx", "proxy mode", m_px, m_px / m_un);
	if (ushare != NULL)
		printf("   (%.2fx unshare -n; target <= 2.5x)", m_px / m_cmd);
	printf("\n");

	/* Steps, summed over block and proxy rounds; the veth and table
	 * steps are proxy mode's alone. */
	for (i = 0; i < NSI_STEP_COUNT; i++)
		total += nsi_prof[i] - prof0[i];
	printf("where the time goes (mean per round, block+proxy):\n");
	for (i = 0; i < NSI_STEP_COUNT; i++) {
		uint64_t d = nsi_prof[i] - prof0[i];

		printf("  %-26s %8.3f ms  %5.1f%%\n", nsi_step_names[i],
		    (double)d / 1e6 / (double)n,
		    total ? 100.0 * (double)d / (double)total : 0.0);
	}
	free(t_un);
	free(t_cmd);
	free(t_blk);
	free(t_px);
	return 0;
}
