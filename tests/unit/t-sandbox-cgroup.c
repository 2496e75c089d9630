/*
 * Tests of sbx_cg_delegate() on the real cgroup v2 hierarchy: a launcher
 * whose v2 group offers a controller but does not hand it down moves
 * itself, and the children it forked, into a leaf of its own and enables
 * the controller for its group; with another process in the group it
 * refuses, saying why.
 *
 * The memory, cpu and pids controllers may all be bound to cgroup v1 (as
 * on this kind of host), so the test uses whichever controller the v2
 * root offers: the delegation does not depend on which.  Needs root.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"
#include "tests/tap.h"

static char mnt[1024]; /* the cgroup v2 mount point */

static char *
slurp(const char *dir, const char *name)
{
	char *f = axg_asprintf("%s/%s", dir, name);
	char *t = axg_read_file(f, 1 << 16, NULL, NULL, 0);

	free(f);
	return t ? t : axg_strdup("");
}

static int
put(const char *dir, const char *name, const char *text)
{
	char *f = axg_asprintf("%s/%s", dir, name);
	int fd = open(f, O_WRONLY | O_CLOEXEC), rc = -1;

	free(f);
	if (fd >= 0) {
		rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text)
		    ? 0
		    : -1;
		close(fd);
	}
	return rc;
}

static int
put_pid(const char *dir, pid_t pid)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", (long)pid);
	return put(dir, "cgroup.procs", num);
}

/* The v2 group of pid ("0::/path"), relative to the mount. */
static char *
group_of(pid_t pid)
{
	char path[64], *t, *p, *res;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
	t = axg_read_file(path, 1 << 16, NULL, NULL, 0);
	p = t ? strstr(t, "0::") : NULL;
	res = p ? axg_strndup(p + 3, strcspn(p + 3, "\n")) : axg_strdup("?");
	free(t);
	return res;
}

static pid_t
sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void
stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* A launcher in grp: moves itself there, forks a child (the proxy's
 * place), calls sbx_cg_delegate() and reports; then waits to be killed.
 * Its rc, its child's pid and the message ("rc child message") go to
 * *rc, *child and msg. */
static pid_t
launcher(const char *grp, const char *ctl, int *rc, long *child, char *msg,
    size_t msglen)
{
	int p[2];
	pid_t pid;
	ssize_t n;

	*rc = -2;
	*child = -1;
	msg[0] = '\0';
	if (pipe(p) == -1)
		return -1;
	pid = fork();
	if (pid == 0) {
		char why[768] = "";
		pid_t kid;
		int r;

		close(p[0]);
		if (put_pid(grp, getpid()) == -1)
			_exit(1);
		kid = sleeper();
		r = sbx_cg_delegate(grp, false, ctl, why, sizeof(why));
		dprintf(p[1], "%d %ld %s\n", r, (long)kid, why);
		close(p[1]);
		pause();
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], msg, msglen - 1);
	close(p[0]);
	msg[n > 0 ? n : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	sscanf(msg, "%d %ld", rc, child);
	return pid;
}

/* Remove the launcher's leaf, then the group, once their tasks are
 * gone (a task killed leaves its group a little after). */
static void
cleanup_group(const char *grp, pid_t launcher_pid)
{
	char *leaf =
	    axg_asprintf("%s/axgate-%ld-launcher", grp, (long)launcher_pid);

	for (int i = 0; i < 250; i++) {
		struct timespec ts = { 0, 4000000 };

		if ((rmdir(leaf) == 0 || errno == ENOENT) &&
		    (rmdir(grp) == 0 || errno == ENOENT))
			break;
		nanosleep(&ts, NULL);
	}
	free(leaf);
}

int
main(void)
{
	char *rootctl, *rootsub, ctl[64] = "", *g1, *g2, *s, *rel;
	bool enabled_at_root = false;
	char buf[1024];
	pid_t l1, l2, other;
	long child;
	int rc;
	FILE *mi;

	if (geteuid() != 0)
		tap_skip_all("needs root (cgroup groups and migration)");
	mi = fopen("/proc/self/mountinfo", "re");
	while (mi != NULL && fgets(buf, sizeof(buf), mi) != NULL) {
		char m[1024];
		char *dash = strstr(buf, " - cgroup2 ");

		if (dash != NULL &&
		    sscanf(buf, "%*s %*s %*s %*s %1023s", m) == 1) {
			axg_strlcpy(mnt, m, sizeof(mnt));
			break;
		}
	}
	if (mi != NULL)
		fclose(mi);
	if (mnt[0] == '\0')
		tap_skip_all("no cgroup v2 hierarchy is mounted");
	rootctl = slurp(mnt, "cgroup.controllers");
	if (sscanf(rootctl, "%63s", ctl) != 1)
		tap_skip_all(
		    "the cgroup v2 hierarchy offers no controller (all "
		    "are bound to cgroup v1)");
	rootsub = slurp(mnt, "cgroup.subtree_control");
	if (!sbx_in_list_ws(rootsub, strlen(rootsub), ctl)) {
		char plus[80];

		snprintf(plus, sizeof(plus), "+%s", ctl);
		if (put(mnt, "cgroup.subtree_control", plus) == -1)
			tap_skip_all("cannot enable a controller at the cgroup "
				     "v2 root");
		enabled_at_root = true;
	}
	tap_diag("cgroup v2 at %s, controller '%s'", mnt, ctl);

	/* A launcher alone in its group (with the child it forked). */
	g1 = axg_asprintf("%s/axtest-%ld-a", mnt, (long)getpid());
	ok(mkdir(g1, 0755) == 0, "a group for the launcher");
	l1 = launcher(g1, ctl, &rc, &child, buf, sizeof(buf));
	is_int(rc, 0, "the controller is handed down (%s)", buf);
	s = slurp(g1, "cgroup.subtree_control");
	ok(sbx_in_list_ws(s, strlen(s), ctl),
	    "the group's cgroup.subtree_control names it");
	free(s);
	rel = g1 + strlen(mnt);
	s = group_of(l1);
	snprintf(buf, sizeof(buf), "%s/axgate-%ld-launcher", rel, (long)l1);
	is_str(s, buf, "the launcher moved into a leaf of its own");
	free(s);
	s = group_of((pid_t)child);
	is_str(s, buf, "and took the child it forked with it");
	free(s);
	stop((pid_t)child);
	stop(l1);

	/* Another process shares the group: it cannot hand down. */
	g2 = axg_asprintf("%s/axtest-%ld-b", mnt, (long)getpid());
	ok(mkdir(g2, 0755) == 0, "a group shared with another process");
	other = sleeper();
	put_pid(g2, other);
	l2 = launcher(g2, ctl, &rc, &child, buf, sizeof(buf));
	is_int(rc, -1, "refused");
	like_str(buf, "holds processes other than the launcher's",
	    "the message says why");
	like_str(buf, "Delegate=yes", "and how to fix it");
	s = slurp(g2, "cgroup.subtree_control");
	ok(!sbx_in_list_ws(s, strlen(s), ctl), "nothing was enabled");
	free(s);
	s = group_of(l2);
	is_str(s, g2 + strlen(mnt), "and the launcher did not move");
	free(s);
	snprintf(buf, sizeof(buf), "%s/axgate-%ld-launcher", g2, (long)l2);
	ok(access(buf, F_OK) == -1, "no leaf was made");
	stop((pid_t)child);
	stop(l2);
	stop(other);

	cleanup_group(g1, l1);
	cleanup_group(g2, l2);
	ok(access(g1, F_OK) == -1 && access(g2, F_OK) == -1,
	    "the test's groups are gone");
	if (enabled_at_root) {
		char minus[80];

		snprintf(minus, sizeof(minus), "-%s", ctl);
		put(mnt, "cgroup.subtree_control", minus);
	}
	free(g1);
	free(g2);
	free(rootctl);
	free(rootsub);
	return tap_done();
}
