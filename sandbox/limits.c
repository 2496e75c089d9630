/* limits.c: the job's rlimits.  Memory and CPU-rate limits, and the
 * process limit where it can be, are cgroups of the job's own (cgroup.c);
 * else the process limit is RLIMIT_NPROC, which counts every task of the
 * job's user on the host. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

static void
add_rlimit(struct sbx_plan *plan, int res, rlim_t v)
{
	plan->rlimits[plan->n_rlimits].resource = res;
	plan->rlimits[plan->n_rlimits].rl.rlim_cur = v;
	plan->rlimits[plan->n_rlimits].rl.rlim_max = v;
	plan->n_rlimits++;
}

int
sbx_limits_build(const struct sbx_spec *spec, struct sbx_plan *plan, char *err,
    size_t errlen)
{
	plan->n_rlimits = 0;
	add_rlimit(plan, RLIMIT_CORE, 0);
	if (spec->max_processes != 0 && !sbx_cg_pids(plan->cgroups))
		add_rlimit(plan, RLIMIT_NPROC, spec->max_processes);
	if (spec->max_open_files != 0)
		add_rlimit(plan, RLIMIT_NOFILE, spec->max_open_files);
	if (spec->max_file_size_mb != 0)
		add_rlimit(plan, RLIMIT_FSIZE,
		    (rlim_t)spec->max_file_size_mb << 20);
	if (spec->cpu_time_sec != 0)
		add_rlimit(plan, RLIMIT_CPU, spec->cpu_time_sec);
	(void)err;
	(void)errlen;
	return 0;
}
