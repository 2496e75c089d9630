/*
 * t-netns-guard.h: what the root tests of netns/ share.
 *
 * netns_guard_run() runs the test body in a child process and relays its
 * TAP lines.  Whatever happens to the body (a failed check, an abort, a
 * sanitizer report, a kill), the parent then checks that nothing of the
 * child's is left on the host and sweeps what is, so a failing test never
 * leaves links or tables behind.
 *
 * in_job() runs a function on a thread that has entered a job's network
 * namespace (the caller's thread stays where it is).
 */
#ifndef T_NETNS_GUARD_H
#define T_NETNS_GUARD_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "netns/netns.h"
#include "netns/netns-int.h"
#include "tests/tap.h"

/* Skip the whole program unless we can create namespaces and veths. */
static inline void
netns_require_root(void)
{
	if (geteuid() != 0)
		tap_skip_all("needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) to "
			     "create network namespaces");
	if (access("/proc/self/ns/net", F_OK) != 0)
		tap_skip_all("the kernel has no network namespaces");
}

/* ---- counting what a pid owns on the host ---- */
struct owned {
	pid_t pid;
	int links, tables;
};

static inline void
owned_link(const char *name, const char *alias, void *arg)
{
	struct owned *o = arg;

	if (nsi_parse_host_ifname(name) >= 0 &&
	    nsi_parse_alias(alias) == o->pid)
		o->links++;
}

static inline void
owned_table(const char *name, void *arg)
{
	struct owned *o = arg;
	pid_t pid;

	if (nsi_parse_host_table(name, &pid) == 0 && pid == o->pid)
		o->tables++;
}

/* Count the links and inet tables pid owns; -1 on error. */
static inline int
owned_count(pid_t pid, int *links, int *tables)
{
	struct owned o = { pid, 0, 0 };
	struct nl_sock *rt = NULL;
	struct mnl_socket *nf = NULL;
	char err[256];
	int rc = -1;

	if (nsi_rt_open(&rt, "host", err, sizeof(err)) == 0 &&
	    nsi_nf_open(&nf, "host", err, sizeof(err)) == 0 &&
	    nsi_link_walk(rt, owned_link, &o, err, sizeof(err)) == 0 &&
	    nsi_nft_table_walk(nf, owned_table, &o, err, sizeof(err)) == 0)
		rc = 0;
	else
		tap_diag("counting objects: %s", err);
	nsi_rt_close(rt);
	nsi_nf_close(nf);
	*links = o.links;
	*tables = o.tables;
	return rc;
}

/* How many file descriptors are open (the listing's own not counted). */
static inline int
count_fds(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (dir == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;
}

/* Does an inet table of that name exist in the current namespace? */
struct find_table {
	const char *name;
	bool found;
};

static inline void
find_table_cb(const char *name, void *arg)
{
	struct find_table *f = arg;

	if (strcmp(name, f->name) == 0)
		f->found = true;
}

static inline bool
table_exists(const char *name)
{
	struct find_table f = { name, false };
	struct mnl_socket *nf = NULL;
	char err[256];

	if (nsi_nf_open(&nf, "test", err, sizeof(err)) != 0 ||
	    nsi_nft_table_walk(nf, find_table_cb, &f, err, sizeof(err)) != 0)
		tap_diag("listing tables: %s", err);
	nsi_nf_close(nf);
	return f.found;
}

static inline bool
link_exists(const char *name)
{
	struct nl_sock *rt = NULL;
	char err[256];
	int idx = 0;
	bool found;

	if (nsi_rt_open(&rt, "test", err, sizeof(err)) != 0) {
		tap_diag("%s", err);
		return false;
	}
	found = nsi_link_index(rt, name, &idx, err, sizeof(err)) == 0;
	nsi_rt_close(rt);
	return found;
}

/* Wait up to ms for exists(name) to turn false: a link (the kernel
 * removes a veth pair in the background once its namespace is gone) or a
 * table (the holder process of nsi_nf_close_async() deletes it). */
static inline bool
gone_within(bool (*exists)(const char *), const char *name, int ms)
{
	for (; ms > 0; ms -= 10) {
		if (!exists(name))
			return true;
		usleep(10000);
	}
	return !exists(name);
}

static inline bool
link_gone_within(const char *name, int ms)
{
	return gone_within(link_exists, name, ms);
}

static inline bool
table_gone_within(const char *name, int ms)
{
	return gone_within(table_exists, name, ms);
}

/* Wait up to ms until pid owns at most want links (or host tables: a free
 * hands their deletion to a holder process); the count. */
static inline int
owned_within(pid_t pid, bool of_tables, int want, int ms)
{
	int links = -1, tables = -1, *n = of_tables ? &tables : &links;

	for (;;) {
		owned_count(pid, &links, &tables);
		if (*n <= want || ms <= 0)
			return *n;
		usleep(10000);
		ms -= 10;
	}
}

static inline int
owned_links_within(pid_t pid, int want, int ms)
{
	return owned_within(pid, false, want, ms);
}

static inline int
owned_tables_within(pid_t pid, int want, int ms)
{
	return owned_within(pid, true, want, ms);
}

/* ---- running a function inside a job's namespace ---- */
struct in_job_arg {
	const struct ns_job_net *net;
	void (*fn)(void *);
	void *arg;
	int rc;
	char err[256];
};

static inline void *
in_job_main(void *p)
{
	struct in_job_arg *a = p;

	a->rc = ns_job_net_enter(a->net, a->err, sizeof(a->err));
	if (a->rc == 0)
		a->fn(a->arg);
	return NULL;
}

static inline int
in_job(const struct ns_job_net *net, void (*fn)(void *), void *arg)
{
	struct in_job_arg a = { net, fn, arg, -1, "" };
	pthread_t th;

	if (pthread_create(&th, NULL, in_job_main, &a) != 0)
		return -1;
	pthread_join(th, NULL);
	if (a.rc != 0)
		tap_diag("%s", a.err);
	return a.rc;
}

/* ---- the guard ---- */
static inline void
netns_guard_run(void (*body)(void))
{
	char err[256], line[4096];
	int p[2], st = 0, links = -1, tables = -1, n = 0, failed = 0;
	pid_t pid;
	FILE *f;

	/* Leftovers of earlier killed runs must not count against us. */
	if (ns_sweep(err, sizeof(err)) < 0)
		tap_diag("sweep before the run: %s", err);
	if (pipe(p) != 0)
		axg_fatal(99, "pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		axg_fatal(99, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		body();
		fflush(stdout);
		exit(tap_failed ? 1 : 0); /* exit, so LeakSanitizer runs */
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		fputs(line, stdout);
		if (strncmp(line, "ok ", 3) == 0)
			n++;
		else if (strncmp(line, "not ok ", 7) == 0)
			n++, failed++;
	}
	if (f != NULL)
		fclose(f);
	fflush(stdout);
	waitpid(pid, &st, 0);
	tap_count = n;
	tap_failed = failed;
	if (!ok(WIFEXITED(st), "the test body ran to its end"))
		tap_diag("  it was killed by signal %d",
		    WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	owned_count(pid, &links, &tables);
	is_int(tables, 0, "no host table of the test body is left");
	/* Links go when their namespaces die, in the background. */
	links = owned_links_within(pid, 0, 10000);
	is_int(links, 0, "no link of the test body is left");
	if (ns_sweep(err, sizeof(err)) < 0)
		tap_diag("sweep after the run: %s", err);
}

#endif /* T_NETNS_GUARD_H */
