/*
 * Tests of netns/ (root, real kernel): concurrent launchers get distinct
 * /30s, a failed set-up leaves nothing, ns_sweep removes what a killed
 * launcher left (and nothing of live ones), and 100 create/free cycles leak
 * neither links, tables nor file descriptors.
 */
#include "config.h"

#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <arpa/inet.h>

#include "tests/unit/t-netns-guard.h"

#define NCONC	6
#define NCYCLES 100

static const uint16_t ports[] = { 3128, 80 };

/* Read one line from fd within ms; false on timeout or EOF. */
static bool
read_line(int fd, char *buf, size_t len, int ms)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, ms) != 1)
			return false;
		r = read(fd, buf + n, 1);
		if (r != 1)
			return false;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return true;
}

/* ---- concurrent creation ---- */
static void
conc_child(int start_fd, int out_fd, int release_fd)
{
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_job_net *net;
	char err[512], line[600], c;
	int n;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)read(start_fd, &c, 1); /* EOF when the parent says go */
	net = ns_job_net_new(&cfg, err, sizeof(err));
	if (net == NULL)
		n = snprintf(line, sizeof(line), "ERR %s\n", err);
	else
		n = snprintf(line, sizeof(line), "%d %s %s %s\n",
		    ns_job_net_id(net), ns_job_net_host_addr(net),
		    ns_job_net_job_addr(net), ns_job_net_host_ifname(net));
	(void)write(out_fd, line, (size_t)n);
	(void)read(release_fd, &c, 1);
	ns_job_net_free(net);
	exit(net != NULL ? 0 : 1);
}

static void
test_concurrent(void)
{
	int startp[2], outp[2], relp[2], i, j, good = 0, st;
	pid_t pids[NCONC];
	int ids[NCONC];
	uint32_t hosts[NCONC], jobs[NCONC];
	bool distinct = true, paired = true, clean = true;

	if (pipe(startp) != 0 || pipe(outp) != 0 || pipe(relp) != 0) {
		ok(0, "pipes");
		return;
	}
	fflush(stdout);
	for (i = 0; i < NCONC; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(startp[1]);
			close(outp[0]);
			close(relp[1]);
			conc_child(startp[0], outp[1], relp[0]);
		}
	}
	close(startp[0]);
	close(outp[1]);
	close(relp[0]);
	close(startp[1]); /* go, all at once */
	for (i = 0; i < NCONC; i++) {
		char line[600], h[32], jb[32], ifn[32];

		ids[i] = -1;
		hosts[i] = jobs[i] = 0;
		if (!read_line(outp[0], line, sizeof(line), 30000)) {
			tap_diag("launcher %d did not answer", i);
			continue;
		}
		if (sscanf(line, "%d %31s %31s %31s", &ids[i], h, jb, ifn) !=
		    4) {
			tap_diag("launcher %d: %s", i, line);
			ids[i] = -1;
			continue;
		}
		hosts[i] = ntohl(inet_addr(h));
		jobs[i] = ntohl(inet_addr(jb));
		good++;
	}
	is_int(good, NCONC, "%d concurrent launchers all got a network", NCONC);
	for (i = 0; i < NCONC; i++) {
		if (ids[i] < 0)
			continue;
		if ((hosts[i] & 3) != 1 || jobs[i] != hosts[i] + 1)
			paired = false;
		for (j = 0; j < i; j++)
			if (ids[j] == ids[i] ||
			    (hosts[j] & ~3u) == (hosts[i] & ~3u))
				distinct = false;
	}
	ok(distinct, "their ids and /30s are all distinct");
	ok(paired, "each has host .1 and job .2 of its /30");
	close(relp[1]); /* let them free and exit */
	close(outp[0]);
	for (i = 0; i < NCONC; i++) {
		int links = -1, tables = -1;

		waitpid(pids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			clean = false;
		tables = owned_tables_within(pids[i], 0, 5000);
		links = owned_links_within(pids[i], 0, 10000);
		if (tables != 0 || links != 0)
			clean = false;
	}
	ok(clean, "they freed everything and exited cleanly");
}

/* ---- a failed set-up leaves nothing ---- */
#define NDECOY 64

static void
test_rollback(void)
{
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_job_net *net;
	struct mnl_socket *nf = NULL;
	struct in_addr dummy = { htonl(0x7f000063) };
	char err[512], name[64];
	int i, made = 0, fds0, links = -1, tables = -1;

	/* Take every host table name the next job could get, so that the
	 * last step of its set-up fails. */
	if (nsi_nf_open(&nf, "test", err, sizeof(err)) != 0) {
		ok(0, "%s", err);
		return;
	}
	for (i = 0; i < NDECOY; i++) {
		snprintf(name, sizeof(name), "%s%d_%ld", NSI_HOST_TABLE, i,
		    (long)getpid());
		if (nsi_nft_host_table(nf, name, "axgnone", dummy, ports, 1,
			err, sizeof(err)) == 0)
			made++;
	}
	is_int(made, NDECOY, "made %d decoy host tables", NDECOY);
	fds0 = count_fds();
	net = ns_job_net_new(&cfg, err, sizeof(err));
	ok(net == NULL, "set-up fails when its host table name is taken");
	like_str(err, "NEWTABLE", "the message names the failed message");
	like_str(err, "File exists", "... and the kernel's error");
	tap_diag("%s", err);
	ns_job_net_free(net);
	is_int(count_fds(), fds0, "no file descriptor is left");
	for (i = 0; i < NDECOY; i++) {
		snprintf(name, sizeof(name), "%s%d_%ld", NSI_HOST_TABLE, i,
		    (long)getpid());
		nsi_nft_del_table(nf, name, err, sizeof(err));
	}
	nsi_nf_close(nf);
	owned_count(getpid(), &links, &tables);
	links = owned_links_within(getpid(), 0, 10000);
	is_int(links, 0, "the veth pair was removed");
	is_int(tables, 0, "no table is left");
}

/* ---- a name still being deleted ---- */
/* A free hands its host table's deletion to a holder process; a network
 * made right after, with the same id, finds that name still taken for a
 * moment.  Here every name the next network could get is taken, and
 * another process deletes them 100 ms later: the set-up waits, and
 * succeeds. */
static void
test_name_being_deleted(void)
{
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_job_net *net;
	struct mnl_socket *nf = NULL;
	struct in_addr dummy = { htonl(0x7f000063) };
	char err[512], name[64];
	int i, made = 0, st = 0;
	pid_t self = getpid(), pid;

	if (nsi_nf_open(&nf, "test", err, sizeof(err)) != 0) {
		ok(0, "%s", err);
		return;
	}
	for (i = 0; i < NDECOY; i++) {
		snprintf(name, sizeof(name), "%s%d_%ld", NSI_HOST_TABLE, i,
		    (long)self);
		if (nsi_nft_host_table(nf, name, "axgnone", dummy, ports, 1,
			err, sizeof(err)) == 0)
			made++;
	}
	nsi_nf_close(nf);
	is_int(made, NDECOY, "being deleted: made %d host tables of our names",
	    NDECOY);
	pid = fork();
	if (pid == 0) {
		struct mnl_socket *nf2 = NULL;

		usleep(100000);
		if (nsi_nf_open(&nf2, "test", err, sizeof(err)) != 0)
			_exit(1);
		for (i = 0; i < NDECOY; i++) {
			snprintf(name, sizeof(name), "%s%d_%ld", NSI_HOST_TABLE,
			    i, (long)self);
			nsi_nft_del_table(nf2, name, err, sizeof(err));
		}
		_exit(0);
	}
	net = ns_job_net_new(&cfg, err, sizeof(err));
	if (!ok(net != NULL,
		"  the set-up waits for the deletion and succeeds"))
		tap_diag("%s", err);
	waitpid(pid, &st, 0);
	ns_job_net_free(net);
	owned_links_within(getpid(), 0, 10000);
	owned_tables_within(getpid(), 0, 5000);
}

/* ---- sweep ---- */
/* The launcher: builds a network, starts a "job" that lives in it, reports
 * and waits to be killed. */
static void
launcher(int out_fd)
{
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_job_net *net;
	char err[512], line[600], c = 0;
	int rp[2], n;
	pid_t job;

	alarm(60);
	net = ns_job_net_new(&cfg, err, sizeof(err));
	if (net == NULL || pipe(rp) != 0) {
		n = snprintf(line, sizeof(line), "ERR %s\n", err);
		(void)write(out_fd, line, (size_t)n);
		_exit(1);
	}
	job = fork();
	if (job == 0) {
		/* The surviving job: it keeps the namespace (and so the veth
		 * pair) alive after the launcher is killed. */
		alarm(60);
		if (ns_job_net_enter(net, err, sizeof(err)) == 0)
			c = 'r';
		(void)write(rp[1], &c, 1);
		for (;;)
			pause();
	}
	(void)read(rp[0], &c, 1);
	n = snprintf(line, sizeof(line), "%s %s %ld %c\n",
	    ns_job_net_host_ifname(net), ns_job_net_host_table(net), (long)job,
	    c);
	(void)write(out_fd, line, (size_t)n);
	for (;;)
		pause();
}

static void
test_sweep(void)
{
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_job_net *mine;
	char line[600], ifn[32], table[64], err[512], c = 0;
	long job = -1;
	int p[2], r, st;
	pid_t l;

	/* The orphaned job is re-parented to us, so we can reap it. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	mine = ns_job_net_new(&cfg, err, sizeof(err));
	ok(mine != NULL, "a live launcher's network (ours)");
	if (pipe(p) != 0)
		return;
	fflush(stdout);
	l = fork();
	if (l == 0) {
		close(p[0]);
		/* Leave "mine" alone: freeing it here would remove the
		 * parent's link and table. */
		launcher(p[1]);
	}
	close(p[1]);
	if (!ok(read_line(p[0], line, sizeof(line), 30000) &&
		    sscanf(line, "%31s %63s %ld %c", ifn, table, &job, &c) ==
			4 &&
		    c == 'r',
		"a launcher built a network and started a job in it")) {
		tap_diag("%s", line);
		kill(l, SIGKILL);
		waitpid(l, &st, 0);
		ns_job_net_free(mine);
		return;
	}
	close(p[0]);
	kill(l, SIGKILL);
	waitpid(l, &st, 0);
	ok(link_exists(ifn), "after the launcher is killed, %s is left", ifn);
	ok(table_exists(table), "... and table %s", table);
	/* Another sweeper running at the same time may remove them first:
	 * what matters is that they go. */
	r = ns_sweep(err, sizeof(err));
	ok(r >= 0, "ns_sweep ran (%d objects removed)", r);
	if (r < 0)
		tap_diag("%s", err);
	ok(!link_exists(ifn), "%s is gone", ifn);
	ok(!table_exists(table), "%s is gone", table);
	ok(link_exists(ns_job_net_host_ifname(mine)),
	    "the live launcher's link is untouched");
	ok(table_exists(ns_job_net_host_table(mine)),
	    "the live launcher's table is untouched");
	if (job > 0) {
		kill((pid_t)job, SIGKILL);
		waitpid((pid_t)job, &st, 0);
	}
	ns_job_net_free(mine);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	/* the free hands the table's deletion to a holder: wait for it, or
	 * the next test counts it at its start and not at its end */
	owned_links_within(getpid(), 0, 10000);
	owned_tables_within(getpid(), 0, 5000);
}

/* ---- leaks over many cycles ---- */
static void
test_cycles(void)
{
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 2, false };
	struct ns_config bcfg = { NS_MODE_BLOCK, NULL, NULL, 0, false };
	int fds0, fds1, l0 = -1, t0 = -1, l1 = -1, t1 = -1, i, failed = 0;
	char err[512];
	uint64_t t;

	fds0 = count_fds();
	owned_count(getpid(), &l0, &t0);
	t = axg_monotonic_ns();
	for (i = 0; i < NCYCLES; i++) {
		struct ns_job_net *net;

		net = ns_job_net_new(i % 10 == 9 ? &bcfg : &cfg, err,
		    sizeof(err));
		if (net == NULL) {
			if (failed++ == 0)
				tap_diag("cycle %d: %s", i, err);
			continue;
		}
		ns_job_net_free(net);
	}
	t = axg_monotonic_ns() - t;
	fds1 = count_fds();
	t1 = owned_tables_within(getpid(), t0, 5000);
	l1 = owned_links_within(getpid(), l0, 10000);
	is_int(failed, 0, "%d create/free cycles (1 in 10 block mode)",
	    NCYCLES);
	tap_diag("%.1f ms per cycle", (double)t / 1e6 / NCYCLES);
	is_int(fds1, fds0, "no file descriptor leaked");
	is_int(l1, l0, "no link leaked");
	is_int(t1, t0, "no table leaked");
}

static void
body(void)
{
	test_concurrent();
	test_rollback();
	test_name_being_deleted();
	test_sweep();
	test_cycles();
}

int
main(void)
{
	netns_require_root();
	netns_guard_run(body);
	return tap_done();
}
