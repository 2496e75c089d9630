/*
 * cgroup.c: the job's own cgroups, for the process limits a cgroup enforces.
 *
 *   process.max_processes     pids.max
 *   process.max_memory_mb     memory.max and memory.swap.max = 0 (v2);
 *                             memory.limit_in_bytes and, where swap is
 *                             accounted, memory.memsw.limit_in_bytes (v1)
 *   process.cpu_rate_percent  cpu.max (v2); cpu.cfs_quota_us over a
 *                             cpu.cfs_period_us of 100 ms (v1)
 *
 * Each limit's controller is used where the launcher's own group lives: a
 * cgroup v1 hierarchy that carries it, else the cgroup v2 hierarchy, where
 * our group must offer it (cgroup.controllers) and is made to hand it down
 * (sbx_cg_delegate: cgroup v2 does that only for a group without
 * processes, so the launcher moves into a leaf of its own first).  The
 * job's group, axgate-<launcher pid>-<n>, is made in the launcher's group
 * in each hierarchy needed (once per hierarchy: v1 may mount cpu with
 * cpuacct, v2 has one for all), its limits written, and the job's init
 * moved in before it forks.  The groups go when the job has ended; those
 * of launchers that were killed (and their leaves) are swept by the next
 * launch.
 *
 * Memory and CPU-rate limits fail closed: no controller, a group that
 * cannot be made, a limit that cannot be written, and the launch is
 * refused with what is missing.  RLIMIT_NPROC counts every task of the
 * job's user on the whole host (the other jobs', a daemon's threads), so a
 * pids group is better; without one the process limit stays RLIMIT_NPROC,
 * stricter, never looser, than the policy asked.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

#define CG_FILE_MAX    (1 << 20)
#define CG_PREFIX      "axgate-"
#define CG_RMDIR_TRIES 50 /* 2 ms apart: tasks leave a group lazily */
#define CG_MAX	       3  /* hierarchies: one per controller at most */
#define CPU_PERIOD_US  100000u

/* Is w one of the comma-separated names of list (n bytes)?  A hierarchy
 * can carry several controllers: "4:cpu,pids:/". */
bool
sbx_in_list(const char *list, size_t n, const char *w)
{
	size_t wl = strlen(w);

	for (const char *p = list, *end = list + n; p < end;) {
		const char *q = memchr(p, ',', (size_t)(end - p));

		if (q == NULL)
			q = end;
		if ((size_t)(q - p) == wl && memcmp(p, w, wl) == 0)
			return true;
		p = q + 1;
	}
	return false;
}

/* Is w one of the names of a space-separated list (cgroup.controllers,
 * cgroup.subtree_control: "cpu memory pids\n")? */
bool
sbx_in_list_ws(const char *list, size_t n, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && list[j] != ' ' && list[j] != '\n')
			j++;
		if (j - i == wl && memcmp(list + i, w, wl) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

enum cg_ctl { CG_PIDS, CG_MEMORY, CG_CPU, CG_NCTL };

static const struct {
	const char *name;  /* the controller */
	const char *limit; /* the policy's key */
} ctls[CG_NCTL] = {
	{ "pids", "max_processes" },
	{ "memory", "max_memory_mb" },
	{ "cpu", "cpu_rate_percent" },
};

struct sbx_cgroups {
	struct {
		char *parent; /* the launcher's group */
		char *dir;    /* the job's, in it */
		bool v2;
	} g[CG_MAX];
	size_t n;
	bool pids; /* max_processes is a pids group's, not RLIMIT_NPROC */
	int mem;   /* the index of the memory group, or -1 */
};

static int
write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(s);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, s, n);
	if (w != (ssize_t)n) {
		int e = w < 0 ? errno : EIO;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* Write text into dir/name; on failure, what failed in why. */
static int
write_file(const char *dir, const char *name, const char *text, char *why,
    size_t whylen)
{
	char *f = axg_asprintf("%s/%s", dir, name);
	int rc = write_str(f, text);

	if (rc == -1)
		axg_seterr(why, whylen, "writing %s to %s: %s", text, f,
		    strerror(errno));
	free(f);
	return rc;
}

/* The parent pid of pid, or -1. */
static long
parent_of(long pid)
{
	char path[64], *st, *rp;
	long pp = -1;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	st = axg_read_file(path, 4096, NULL, NULL, 0);
	/* "pid (comm) state ppid ...": comm may hold spaces and ')' */
	rp = st ? strrchr(st, ')') : NULL;
	if (rp != NULL && sscanf(rp + 1, " %*c %ld", &pp) != 1)
		pp = -1;
	free(st);
	return pp;
}

/* Is pid the launcher or a child it forked (the proxy)? */
static bool
ours(long pid)
{
	return pid == (long)getpid() || parent_of(pid) == (long)getpid();
}

/* Move the launcher's processes among procs (cgroup.procs text) into the
 * group dir; with others set, say whether procs holds any other. */
static int
move_ours(const char *procs, const char *dir, bool *others, char *why,
    size_t whylen)
{
	char num[32];

	for (const char *p = procs; p != NULL && *p != '\0';) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		p = end + strspn(end, "\n");
		if (!ours(pid)) {
			if (others != NULL)
				*others = true;
			continue;
		}
		snprintf(num, sizeof(num), "%ld", pid);
		if (others == NULL &&
		    write_file(dir, "cgroup.procs", num, why, whylen) == -1)
			return -1;
	}
	return 0;
}

int
sbx_cg_delegate(const char *grp, bool root, const char *ctl, char *why,
    size_t whylen)
{
	char *f = axg_asprintf("%s/cgroup.subtree_control", grp);
	char *text = axg_read_file(f, 4096, NULL, NULL, 0), *leaf = NULL;
	char *procs = NULL, plus[64];
	bool others = false;
	int rc = -1;

	if (text != NULL && sbx_in_list_ws(text, strlen(text), ctl)) {
		rc = 0; /* handed down already */
		goto out;
	}
	free(f);
	free(text);
	f = axg_asprintf("%s/cgroup.controllers", grp);
	text = axg_read_file(f, 4096, NULL, NULL, 0);
	if (text == NULL || !sbx_in_list_ws(text, strlen(text), ctl)) {
		size_t l = text ? strcspn(text, "\n") : 0;

		axg_seterr(why, whylen,
		    "no cgroup v1 hierarchy carries it, and the cgroup v2 "
		    "group %s is not given it (%s: %.*s): run the launcher "
		    "where it is delegated, for example with systemd-run "
		    "--scope -p Delegate=yes",
		    grp, f, (int)(l ? l : 6), l ? text : "(none)");
		goto out;
	}
	/* cgroup v2 hands a controller down only from a group without
	 * processes of its own (the root excepted): the launcher, and the
	 * children it has forked (the proxy), move into a leaf of theirs,
	 * unless other processes share the group (then nothing moves). */
	if (!root) {
		free(f);
		f = axg_asprintf("%s/cgroup.procs", grp);
		procs = axg_read_file(f, CG_FILE_MAX, NULL, NULL, 0);
		move_ours(procs, NULL, &others, why, whylen);
		if (others) {
			errno = EBUSY;
			goto busy;
		}
		leaf = axg_asprintf("%s/" CG_PREFIX "%ld-launcher", grp,
		    (long)getpid());
		if (mkdir(leaf, 0755) == -1 && errno != EEXIST) {
			axg_seterr(why, whylen, "creating %s: %s", leaf,
			    strerror(errno));
			goto out;
		}
		if (move_ours(procs, leaf, NULL, why, whylen) == -1)
			goto undo;
	}
	snprintf(plus, sizeof(plus), "+%s", ctl);
	if (write_file(grp, "cgroup.subtree_control", plus, why, whylen) == 0) {
		rc = 0;
		goto out;
	}
busy:
	if (errno == EBUSY)
		axg_seterr(why, whylen,
		    "the cgroup v2 group %s holds processes other than the "
		    "launcher's, so it cannot hand '%s' down: run the "
		    "launcher in a group of its own, for example with "
		    "systemd-run --scope -p Delegate=yes",
		    grp, ctl);
undo:
	/* back where they were, and the leaf gone */
	if (leaf != NULL) {
		char ignored[8];

		move_ours(procs, grp, NULL, ignored, sizeof(ignored));
		rmdir(leaf);
	}
out:
	free(f);
	free(text);
	free(leaf);
	free(procs);
	return rc;
}

/* The launcher's group in the hierarchy that carries ctl, or NULL with
 * the reason in why.  *v2: that hierarchy is cgroup v2. */
static char *
cg_parent(const char *ctl, bool *v2, char *why, size_t whylen)
{
	char *mi = axg_read_file("/proc/self/mountinfo", CG_FILE_MAX, NULL,
		 NULL, 0),
	     *cg = axg_read_file("/proc/self/cgroup", 65536, NULL, NULL, 0);
	char *res = NULL, *save = NULL, mnt[1024] = "", root[1024] = "";
	char v2mnt[1024] = "";
	const char *self = NULL;
	size_t selflen = 0;
	bool v1 = false;
	/* For tests: as on a host with cgroup v2 alone.  (Fewer groups: a
	 * refusal, or RLIMIT_NPROC, never a weaker limit.) */
	bool ignore_v1 = getenv("AXGATE_CGROUP_IGNORE_V1") != NULL;

	*v2 = false;
	if (mi == NULL || cg == NULL) {
		axg_seterr(why, whylen, "/proc/self/%s cannot be read",
		    mi == NULL ? "mountinfo" : "cgroup");
		goto out;
	}
	for (char *l = strtok_r(mi, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *dash = strstr(l, " - ");
		char r[1024], m[1024], fs[64], opts[1024];

		/* id parent maj:min root mountpoint ... - fstype src opts */
		if (dash == NULL ||
		    sscanf(l, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fs, opts) != 2)
			continue;
		if (strcmp(fs, "cgroup") == 0 && !ignore_v1) {
			if (sbx_in_list(opts, strlen(opts), ctl)) {
				axg_strlcpy(mnt, m, sizeof(mnt));
				axg_strlcpy(root, r, sizeof(root));
				v1 = true;
			}
		} else if (strcmp(fs, "cgroup2") == 0 && v2mnt[0] == '\0') {
			axg_strlcpy(v2mnt, m, sizeof(v2mnt));
		}
	}
	if (!v1 && v2mnt[0] == '\0') {
		axg_seterr(why, whylen,
		    "no cgroup v1 hierarchy carries it and no cgroup v2 "
		    "hierarchy is mounted");
		goto out;
	}
	/* our group: "N:a,b:/path" (v1) or "0::/path" (v2) */
	for (char *l = cg; *l != '\0';) {
		char *end = strchr(l, '\n'), *c1 = strchr(l, ':'), *c2;

		if (end == NULL)
			end = l + strlen(l);
		c2 = c1 != NULL && c1 < end
		    ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1))
		    : NULL;
		if (c2 != NULL &&
		    ((v1 && sbx_in_list(c1 + 1, (size_t)(c2 - c1 - 1), ctl)) ||
			(!v1 && c2 == c1 + 1 && c1 == l + 1 && l[0] == '0'))) {
			self = c2 + 1;
			selflen = (size_t)(end - self);
			break;
		}
		l = *end ? end + 1 : end;
	}
	if (self == NULL || selflen == 0 || self[0] != '/') {
		axg_seterr(why, whylen,
		    "/proc/self/cgroup does not name the launcher's %s group",
		    v1 ? "cgroup v1" : "cgroup v2");
		goto out;
	}
	if (v1) {
		size_t rl = strlen(root);

		/* a mount of a sub-tree: our path must lie inside it */
		if (strcmp(root, "/") != 0) {
			if (selflen < rl || memcmp(self, root, rl) != 0 ||
			    (selflen > rl && self[rl] != '/')) {
				axg_seterr(why, whylen,
				    "the launcher's group %.*s lies outside "
				    "the hierarchy mounted at %s",
				    (int)selflen, self, mnt);
				goto out;
			}
			self += rl;
			selflen -= rl;
		}
		res = axg_asprintf("%s%.*s", mnt, (int)selflen, self);
	} else {
		char leaf[64];
		size_t ll;

		/* A launcher that moved itself into a leaf of its group (see
		 * sbx_cg_delegate) still counts from the group. */
		ll = (size_t)snprintf(leaf, sizeof(leaf),
		    "/" CG_PREFIX "%ld-launcher", (long)getpid());
		if (selflen > ll && memcmp(self + selflen - ll, leaf, ll) == 0)
			selflen -= ll;
		res = axg_asprintf("%s%.*s", v2mnt,
		    (int)(selflen == 1 ? 0 : selflen), self);
		if (sbx_cg_delegate(res, selflen == 1, ctl, why, whylen) ==
		    -1) {
			free(res);
			res = NULL;
		}
		*v2 = res != NULL;
	}
	/* "/sys/fs/cgroup/pids/" for the root group: no double slash */
	if (res != NULL) {
		size_t n = strlen(res);

		while (n > 1 && res[n - 1] == '/')
			res[--n] = '\0';
	}
out:
	free(mi);
	free(cg);
	return res;
}

/* Remove the groups of launchers that are gone (axgate-<pid>-<n>, that
 * pid not running).  A group still holding tasks stays: rmdir says EBUSY. */
static void
cg_sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		uint64_t pid;
		char *path;

		const char *p = e->d_name + strlen(CG_PREFIX);
		const char *dash = strchr(p, '-');

		if (strncmp(e->d_name, CG_PREFIX, strlen(CG_PREFIX)) != 0 ||
		    dash == NULL ||
		    axg_parse_u64n(p, (size_t)(dash - p), 1, 0x7fffffff,
			&pid) != 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		path = axg_asprintf("%s/%s", parent, e->d_name);
		if (rmdir(path) == 0)
			axg_debug("sandbox: removed %s, left by a launcher "
				  "that is gone",
			    path);
		free(path);
	}
	closedir(d);
}

static bool
has_file(const char *dir, const char *name)
{
	char *f = axg_asprintf("%s/%s", dir, name);
	bool r = access(f, F_OK) == 0;

	free(f);
	return r;
}

/* Write the limit of ctl into the job's group dir. */
static int
write_limit(enum cg_ctl c, const struct sbx_spec *spec, const char *dir,
    bool v2, char *why, size_t whylen)
{
	char num[64];

	switch (c) {
	case CG_PIDS:
		snprintf(num, sizeof(num), "%u", spec->max_processes);
		return write_file(dir, "pids.max", num, why, whylen);
	case CG_MEMORY:
		snprintf(num, sizeof(num), "%llu",
		    (unsigned long long)spec->max_memory_mb << 20);
		if (v2)
			return write_file(dir, "memory.max", num, why,
				   whylen) == -1 ||
				(has_file(dir, "memory.swap.max") &&
				    write_file(dir, "memory.swap.max", "0", why,
					whylen) == -1)
			    ? -1
			    : 0;
		/* memsw (memory and swap) may not go below the memory
		 * limit: set that first */
		return write_file(dir, "memory.limit_in_bytes", num, why,
			   whylen) == -1 ||
			(has_file(dir, "memory.memsw.limit_in_bytes") &&
			    write_file(dir, "memory.memsw.limit_in_bytes", num,
				why, whylen) == -1)
		    ? -1
		    : 0;
	case CG_CPU:
		if (v2) {
			snprintf(num, sizeof(num), "%llu %u",
			    (unsigned long long)spec->cpu_rate_percent *
				CPU_PERIOD_US / 100,
			    CPU_PERIOD_US);
			return write_file(dir, "cpu.max", num, why, whylen);
		}
		snprintf(num, sizeof(num), "%u", CPU_PERIOD_US);
		if (write_file(dir, "cpu.cfs_period_us", num, why, whylen) ==
		    -1)
			return -1;
		snprintf(num, sizeof(num), "%llu",
		    (unsigned long long)spec->cpu_rate_percent * CPU_PERIOD_US /
			100);
		return write_file(dir, "cpu.cfs_quota_us", num, why, whylen);
	default:
		return -1;
	}
}

/* Remove one group once its tasks are gone. */
static void
rmdir_group(const char *dir)
{
	for (int i = 0; i < CG_RMDIR_TRIES; i++) {
		struct timespec ts = { 0, 2000000 };

		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		if (errno != EBUSY) {
			axg_debug("sandbox: removing %s: %s", dir,
			    strerror(errno));
			return;
		}
		nanosleep(&ts, NULL);
	}
}

/* The job's group in parent: the one made already for another
 * controller of the same hierarchy, or a new one.  -1 with why. */
static ptrdiff_t
group_for(struct sbx_cgroups *cg, char *parent, bool v2, char *why,
    size_t whylen)
{
	static atomic_uint seq;
	char *dir;

	for (size_t i = 0; i < cg->n; i++)
		if (strcmp(cg->g[i].parent, parent) == 0) {
			free(parent);
			return (ptrdiff_t)i;
		}
	cg_sweep(parent);
	/* one group per job, also for several jobs of one process; a name
	 * taken (a launcher of ours before, with our pid) is skipped */
	for (int i = 0;; i++) {
		dir = axg_asprintf("%s/" CG_PREFIX "%ld-%u", parent,
		    (long)getpid(), atomic_fetch_add(&seq, 1));
		if (mkdir(dir, 0755) == 0)
			break;
		if (errno != EEXIST || i == 16) {
			axg_seterr(why, whylen, "creating %s: %s", dir,
			    strerror(errno));
			free(dir);
			free(parent);
			return -1;
		}
		free(dir);
	}
	cg->g[cg->n].parent = parent;
	cg->g[cg->n].dir = dir;
	cg->g[cg->n].v2 = v2;
	return (ptrdiff_t)cg->n++;
}

int
sbx_cg_create(const struct sbx_spec *spec, struct sbx_cgroups **out, char *err,
    size_t errlen)
{
	const bool want[CG_NCTL] = { spec->max_processes != 0,
		spec->max_memory_mb != 0, spec->cpu_rate_percent != 0 };
	struct sbx_cgroups *cg;
	char why[768];

	*out = NULL;
	if (spec->cpu_rate_percent > 100 * 1024)
		return axg_seterr(err, errlen,
		    "process.cpu_rate_percent %u is out of range",
		    spec->cpu_rate_percent);
	cg = axg_calloc(1, sizeof(*cg));
	cg->mem = -1;
	for (int c = 0; c < CG_NCTL; c++) {
		bool v2;
		char *parent;
		ptrdiff_t g;

		if (!want[c])
			continue;
		parent = cg_parent(ctls[c].name, &v2, why, sizeof(why));
		g = parent != NULL ? group_for(cg, parent, v2, why, sizeof(why))
				   : -1;
		if (g >= 0 &&
		    write_limit((enum cg_ctl)c, spec, cg->g[g].dir, v2, why,
			sizeof(why)) == 0) {
			cg->pids |= c == CG_PIDS;
			if (c == CG_MEMORY)
				cg->mem = (int)g;
			continue;
		}
		if (c == CG_PIDS) {
			/* pids comes first: a group made for it is its own */
			if (g >= 0) {
				rmdir_group(cg->g[g].dir);
				free(cg->g[g].dir);
				free(cg->g[g].parent);
				cg->n--;
			}
			axg_debug("sandbox: no pids group for the job (%s): "
				  "the process limit stays RLIMIT_NPROC",
			    why);
			continue;
		}
		sbx_cg_remove(cg);
		return axg_seterr(err, errlen,
		    "the policy asks for process.%s, which needs the '%s' "
		    "cgroup controller: %s; or remove the limit",
		    ctls[c].limit, ctls[c].name, why);
	}
	if (cg->n == 0) {
		free(cg);
		return 0;
	}
	*out = cg;
	return 0;
}

bool
sbx_cg_pids(const struct sbx_cgroups *cg)
{
	return cg != NULL && cg->pids;
}

unsigned long
sbx_cg_oom_kills(const struct sbx_cgroups *cg)
{
	char *f, *text, *p;
	unsigned long n = 0;

	if (cg == NULL || cg->mem < 0)
		return 0;
	/* "oom_kill N" in memory.events (v2) or memory.oom_control (v1) */
	f = axg_asprintf("%s/%s", cg->g[cg->mem].dir,
	    cg->g[cg->mem].v2 ? "memory.events" : "memory.oom_control");
	text = axg_read_file(f, 4096, NULL, NULL, 0);
	p = text ? strstr(text, "oom_kill ") : NULL;
	if (p != NULL && (p == text || p[-1] == '\n'))
		n = strtoul(p + 9, NULL, 10);
	free(f);
	free(text);
	return n;
}

int
sbx_cg_attach(const struct sbx_cgroups *cg, pid_t pid, char *err, size_t errlen)
{
	char num[32], why[768];

	snprintf(num, sizeof(num), "%ld", (long)pid);
	for (size_t i = 0; cg != NULL && i < cg->n; i++)
		if (write_file(cg->g[i].dir, "cgroup.procs", num, why,
			sizeof(why)) == -1)
			return axg_seterr(err, errlen,
			    "moving the job into its cgroup: %s", why);
	return 0;
}

void
sbx_cg_remove(struct sbx_cgroups *cg)
{
	if (cg == NULL)
		return;
	for (size_t i = 0; i < cg->n; i++) {
		rmdir_group(cg->g[i].dir);
		free(cg->g[i].dir);
		free(cg->g[i].parent);
	}
	free(cg);
}
