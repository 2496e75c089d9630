/* limits.c: rlimits and cgroup v2 limits.
 *
 * Memory and CPU-rate limits need cgroup v2 (memory.max, cpu.max); a spec
 * asking for them on a host without a writable v2 hierarchy that offers
 * those controllers is refused.  The process limit is a pids group of the
 * job's own where a pids controller can be used (pids.c), else
 * RLIMIT_NPROC, which counts every process of the job's user on the host. */
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

#define SBX_CG_FILE_MAX 4096

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
	if (spec->max_processes != 0 && plan->pids_dir == NULL)
		add_rlimit(plan, RLIMIT_NPROC, spec->max_processes);
	if (spec->max_open_files != 0)
		add_rlimit(plan, RLIMIT_NOFILE, spec->max_open_files);
	if (spec->max_file_size_mb != 0)
		add_rlimit(plan, RLIMIT_FSIZE,
		    (rlim_t)spec->max_file_size_mb << 20);
	if (spec->cpu_time_sec != 0)
		add_rlimit(plan, RLIMIT_CPU, spec->cpu_time_sec);
	if (spec->cpu_rate_percent > 100 * 1024)
		return axg_seterr(err, errlen,
		    "process.cpu_rate_percent %u is out of range",
		    spec->cpu_rate_percent);
	return 0;
}

/* The cgroup v2 mount point, from /proc/self/mountinfo. */
static char *
cgroup2_mount(void)
{
	char *mi =
	    axg_read_file("/proc/self/mountinfo", 1 << 20, NULL, NULL, 0);
	char *line, *save = NULL, *res = NULL;

	if (mi == NULL)
		return NULL;
	for (line = strtok_r(mi, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dash = strstr(line, " - cgroup2 ");
		char mnt[1024];

		if (dash == NULL)
			continue;
		/* id parent maj:min root mountpoint ... */
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mnt) == 1) {
			res = axg_strdup(mnt);
			break;
		}
	}
	free(mi);
	return res;
}

/* Our own cgroup v2 path ("0::/path" in /proc/self/cgroup). */
static char *
cgroup2_self(void)
{
	char *c = axg_read_file("/proc/self/cgroup", 65536, NULL, NULL, 0);
	char *p, *res = NULL;

	if (c == NULL)
		return NULL;
	p = strstr(c, "0::");
	if (p != NULL && (p == c || p[-1] == '\n')) {
		size_t n = strcspn(p + 3, "\n");

		res = axg_strndup(p + 3, n);
	}
	free(c);
	return res;
}

static bool
has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Is the controller bound to a cgroup v1 hierarchy ("N:a,b:/path" lines
 * of /proc/self/cgroup)? */
static bool
bound_to_v1(const char *ctl)
{
	char *c = axg_read_file("/proc/self/cgroup", 65536, NULL, NULL, 0);
	bool res = false;

	for (char *line = c; line != NULL && *line != '\0' && !res;) {
		char *end = strchr(line, '\n');
		char *list = strchr(line, ':');
		char *lend = list ? strchr(list + 1, ':') : NULL;

		if (list != NULL && lend != NULL && (end == NULL || lend < end))
			res = sbx_in_list(list + 1, (size_t)(lend - list - 1),
			    ctl);
		line = end ? end + 1 : NULL;
	}
	free(c);
	return res;
}

int
sbx_cgroup_check(const struct sbx_spec *spec, char *err, size_t errlen)
{
	const char *need[3], *why[3];
	size_t n = 0;
	char *mnt = NULL, *self = NULL, *path = NULL, *ctl = NULL;
	int rc = -1;

	if (spec->max_memory_mb != 0) {
		need[n] = "memory";
		why[n++] = "max_memory_mb";
	}
	if (spec->cpu_rate_percent != 0) {
		need[n] = "cpu";
		why[n++] = "cpu_rate_percent";
	}
	if (n == 0)
		return 0;
	mnt = cgroup2_mount();
	if (mnt == NULL) {
		axg_seterr(err, errlen,
		    "the policy asks for process.%s, which needs cgroup v2, "
		    "and no cgroup v2 hierarchy is mounted: boot with "
		    "systemd.unified_cgroup_hierarchy=1, or remove the limit",
		    why[0]);
		goto out;
	}
	self = cgroup2_self();
	path = axg_asprintf("%s%s/cgroup.controllers", mnt,
	    self != NULL && strcmp(self, "/") != 0 ? self : "");
	ctl = axg_read_file(path, SBX_CG_FILE_MAX, NULL, NULL, 0);
	for (size_t i = 0; i < n; i++) {
		if (ctl == NULL || !has_word(ctl, need[i])) {
			size_t l = ctl ? strcspn(ctl, "\n") : 0;

			axg_seterr(err, errlen,
			    "the policy asks for process.%s, which needs the "
			    "cgroup v2 '%s' controller, and the v2 hierarchy "
			    "at %s does not offer it (it has: %.*s%s): boot "
			    "with systemd.unified_cgroup_hierarchy=1, or "
			    "remove the limit",
			    why[i], need[i], mnt, (int)(l ? l : 6),
			    l ? ctl : "(none)",
			    bound_to_v1(need[i])
				? "; the controller is bound to a cgroup v1 "
				  "hierarchy"
				: "");
			goto out;
		}
	}
	/* The controllers exist; the launcher must also be able to create
	 * a child group there. */
	free(path);
	path = axg_asprintf("%s%s", mnt,
	    self != NULL && strcmp(self, "/") != 0 ? self : "");
	if (access(path, W_OK) == -1) {
		axg_seterr(err, errlen,
		    "the policy asks for process.%s, and the cgroup v2 group "
		    "%s is not writable: %s (delegate it to the launcher)",
		    why[0], path, strerror(errno));
		goto out;
	}
	/* Applying v2 limits is not wired into the job yet: refuse rather
	 * than run without them. */
	axg_seterr(err, errlen,
	    "the policy asks for process.%s, and this build cannot apply "
	    "cgroup v2 limits yet: remove the limit",
	    why[0]);
out:
	free(mnt);
	free(self);
	free(path);
	free(ctl);
	return rc;
}
