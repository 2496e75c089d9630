/*
 * pids.c: a pids cgroup of the job's own for process.max_processes.
 *
 * RLIMIT_NPROC counts every task of the job's user on the whole host: the
 * other jobs', the threads of a proxy serving as the same user, any daemon
 * of that user.  A job with max_processes 8 could not fork at all beside
 * a daemon with eight threads.  So where a pids controller can be used,
 * the limit is a group of the job's own, axgate-<launcher pid>-<n>, beside the
 * launcher's own group in the pids hierarchy (cgroup v1 "pids", or cgroup
 * v2 where our group delegates "pids"), with pids.max, and the job's init
 * moved into it before it forks.  The group goes when the job has ended;
 * the groups of launchers that were killed are swept by the next launch.
 * Without a usable controller the limit stays RLIMIT_NPROC, which is
 * stricter, never looser, than what the policy asked for.
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

#define PIDS_FILE_MAX	 (1 << 20)
#define PIDS_PREFIX	 "axgate-"
#define PIDS_RMDIR_TRIES 50 /* 2 ms apart: tasks leave a group lazily */

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

/* The pids hierarchy's mount point and our group in it, joined; NULL when
 * none is mounted or our group cannot be placed in it. */
static char *
pids_parent(void)
{
	char *mi = axg_read_file("/proc/self/mountinfo", PIDS_FILE_MAX, NULL,
		 NULL, 0),
	     *cg = axg_read_file("/proc/self/cgroup", 65536, NULL, NULL, 0);
	char *res = NULL, *save = NULL, mnt[1024] = "", root[1024] = "";
	char v2mnt[1024] = "";
	const char *self = NULL;
	size_t selflen = 0;
	bool v1 = false;

	if (mi == NULL || cg == NULL)
		goto out;
	for (char *l = strtok_r(mi, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *dash = strstr(l, " - ");
		char r[1024], m[1024], fs[64], opts[1024];

		/* id parent maj:min root mountpoint ... - fstype src opts */
		if (dash == NULL ||
		    sscanf(l, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fs, opts) != 2)
			continue;
		if (strcmp(fs, "cgroup") == 0) {
			if (sbx_in_list(opts, strlen(opts), "pids")) {
				axg_strlcpy(mnt, m, sizeof(mnt));
				axg_strlcpy(root, r, sizeof(root));
				v1 = true;
			}
		} else if (strcmp(fs, "cgroup2") == 0 && v2mnt[0] == '\0') {
			axg_strlcpy(v2mnt, m, sizeof(v2mnt));
		}
	}
	/* our group: "N:pids:/path" (v1) or "0::/path" (v2) */
	for (char *l = cg; *l != '\0';) {
		char *end = strchr(l, '\n'), *c1 = strchr(l, ':'), *c2;

		if (end == NULL)
			end = l + strlen(l);
		c2 = c1 != NULL && c1 < end
		    ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1))
		    : NULL;
		if (c2 != NULL &&
		    ((v1 &&
			 sbx_in_list(c1 + 1, (size_t)(c2 - c1 - 1), "pids")) ||
			(!v1 && c2 == c1 + 1 && c1 == l + 1 && l[0] == '0'))) {
			self = c2 + 1;
			selflen = (size_t)(end - self);
			break;
		}
		l = *end ? end + 1 : end;
	}
	if (self == NULL || selflen == 0 || self[0] != '/')
		goto out;
	if (v1) {
		size_t rl = strlen(root);

		/* a mount of a sub-tree: our path must lie inside it */
		if (strcmp(root, "/") != 0) {
			if (selflen < rl || memcmp(self, root, rl) != 0 ||
			    (selflen > rl && self[rl] != '/'))
				goto out;
			self += rl;
			selflen -= rl;
		}
		res = axg_asprintf("%s%.*s", mnt, (int)selflen, self);
	} else if (v2mnt[0] != '\0') {
		char *sub, *ctl;

		/* our group must hand "pids" down to its children */
		res = axg_asprintf("%s%.*s", v2mnt, (int)selflen, self);
		sub = axg_asprintf("%s/cgroup.subtree_control", res);
		ctl = axg_read_file(sub, 4096, NULL, NULL, 0);
		if (ctl == NULL || strstr(ctl, "pids") == NULL) {
			free(res);
			res = NULL;
		}
		free(sub);
		free(ctl);
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

/* Remove the groups of launchers that are gone (axgate-<pid>, that pid
 * not running).  A group still holding tasks stays: rmdir says EBUSY. */
static void
pids_sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		uint64_t pid;
		char *path;

		const char *p = e->d_name + strlen(PIDS_PREFIX);
		const char *dash = strchr(p, '-');

		/* axgate-<pid>-<n> */
		if (strncmp(e->d_name, PIDS_PREFIX, strlen(PIDS_PREFIX)) != 0 ||
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

/* Write the number v into dir/name. */
static int
write_num(const char *dir, const char *name, long v)
{
	char *f = axg_asprintf("%s/%s", dir, name), num[32];
	int rc;

	snprintf(num, sizeof(num), "%ld", v);
	rc = write_str(f, num);
	free(f);
	return rc;
}

/* No group for this job (errno says why): RLIMIT_NPROC it is. */
static char *
no_group(char *dir, const char *what)
{
	axg_debug("sandbox: %s %s (%s): the process limit stays RLIMIT_NPROC",
	    what, dir, strerror(errno));
	free(dir);
	return NULL;
}

char *
sbx_pids_create(uint32_t max)
{
	char *parent = pids_parent(), *dir;

	if (parent == NULL)
		return NULL;
	pids_sweep(parent);
	/* one group per job, also for several jobs of one process; a name
	 * taken (a launcher of ours before, with our pid) is skipped */
	for (int i = 0;; i++) {
		static atomic_uint seq;

		dir = axg_asprintf("%s/" PIDS_PREFIX "%ld-%u", parent,
		    (long)getpid(), atomic_fetch_add(&seq, 1));
		if (mkdir(dir, 0755) == 0)
			break;
		if (errno != EEXIST || i == 16) {
			free(parent);
			return no_group(dir, "cannot create");
		}
		free(dir);
	}
	free(parent);
	if (write_num(dir, "pids.max", (long)max) == -1) {
		int e = errno;

		rmdir(dir);
		errno = e;
		return no_group(dir, "cannot set pids.max in");
	}
	return dir;
}

int
sbx_pids_attach(const char *dir, pid_t pid, char *err, size_t errlen)
{
	if (write_num(dir, "cgroup.procs", (long)pid) == -1)
		return axg_seterr(err, errlen,
		    "process.max_processes: moving the job into "
		    "%s/cgroup.procs: %s",
		    dir, strerror(errno));
	return 0;
}

void
sbx_pids_remove(char *dir)
{
	if (dir == NULL)
		return;
	for (int i = 0; i < PIDS_RMDIR_TRIES; i++) {
		struct timespec ts = { 0, 2000000 };

		if (rmdir(dir) == 0 || errno == ENOENT)
			break;
		if (errno != EBUSY) {
			axg_debug("sandbox: removing %s: %s", dir,
			    strerror(errno));
			break;
		}
		nanosleep(&ts, NULL);
	}
	free(dir);
}
