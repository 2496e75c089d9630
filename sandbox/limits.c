/* limits.c: the job's rlimits.  Memory and CPU-rate limits, and the
 * process limit where it can be, are cgroups of the job's own (cgroup.c);
 * else the process limit is RLIMIT_NPROC, which counts every task of the
 * job's user on the host. */
#include "config.h"

#include <sys/resource.h>

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

void
sbx_limits_build(const struct sbx_spec *spec, struct sbx_plan *plan)
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
}
