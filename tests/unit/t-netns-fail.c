/*
 * Tests of netns/ (root): a missing kernel feature stops the set-up with a
 * message that says what is missing, and leaves nothing behind.  The
 * missing features are simulated with a seccomp filter, in a child process
 * per case (a filter cannot be removed).
 */
#include "config.h"

#include <dirent.h>
#include <seccomp.h>
#include <stdio.h>
#include <linux/netlink.h>

#include "tests/unit/t-netns-guard.h"

/* Install the filter, try a proxy-mode network, report on fd. */
static void
attempt(scmp_filter_ctx ctx, int out)
{
	static const uint16_t ports[] = { 3128 };
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 1, false };
	struct ns_job_net *net;
	char err[512], line[700];
	int fds0, n;

	if (seccomp_load(ctx) != 0) {
		n = snprintf(line, sizeof(line), "seccomp_load failed");
		(void)write(out, line, (size_t)n);
		_exit(1);
	}
	fds0 = count_fds();
	net = ns_job_net_new(&cfg, err, sizeof(err));
	n = snprintf(line, sizeof(line), "%s|%d|%s",
	    net == NULL ? "NULL" : "net", count_fds() - fds0,
	    net == NULL ? err : "");
	(void)write(out, line, (size_t)n);
	ns_job_net_free(net);
	_exit(0);
}

/* Run one case; the child's report into buf. */
static bool
run_case(scmp_filter_ctx ctx, char *buf, size_t len, pid_t *pidp)
{
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (ctx == NULL || pipe(p) != 0)
		return false;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		attempt(ctx, p[1]);
	}
	close(p[1]);
	n = read(p[0], buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	seccomp_release(ctx);
	*pidp = pid;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void
check(const char *what, scmp_filter_ctx ctx, const char *want)
{
	char buf[800];
	int links = -1, tables = -1;
	pid_t pid = 0;

	if (!ok(run_case(ctx, buf, sizeof(buf), &pid), "%s: the attempt ran",
		what)) {
		tap_diag("%s", buf);
		return;
	}
	like_str(buf, "NULL|", "%s: ns_job_net_new refuses", what);
	like_str(buf, "|0|", "%s: no file descriptor is left", what);
	like_str(buf, want, "%s: the message says what is missing", what);
	tap_diag("%s", buf);
	owned_count(pid, &links, &tables);
	is_int(tables, 0, "%s: no table is left", what);
	is_int(owned_links_within(pid, 0, 10000), 0, "%s: no link is left",
	    what);
}

static void
body(void)
{
	scmp_filter_ctx ctx;

	/* No nfnetlink (CONFIG_NETFILTER_NETLINK off). */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx != NULL)
		seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT),
		    SCMP_SYS(socket), 2, SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
		    SCMP_A2(SCMP_CMP_EQ, NETLINK_NETFILTER));
	check("no nfnetlink", ctx, "enable CONFIG_NETFILTER_NETLINK");

	/* No network namespaces (CONFIG_NET_NS off). */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx != NULL)
		seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(unshare),
		    0);
	check("no network namespaces", ctx, "enable CONFIG_NET_NS");

	/* Not allowed to create namespaces. */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx != NULL)
		seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare),
		    0);
	check("unshare refused", ctx, "needs CAP_SYS_ADMIN");

	/* No rtnetlink at all. */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx != NULL)
		seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT),
		    SCMP_SYS(socket), 2, SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
		    SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE));
	check("no rtnetlink", ctx, "rtnetlink socket (host)");

	/* nftables batches cannot be sent (libmnl uses sendto, libnl
	 * sendmsg): the host table fails after the veth pair exists, so
	 * this checks the rollback of a half-built network. */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx != NULL)
		seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sendto),
		    0);
	check("nft batch refused", ctx, "nftables batch for table axgate_");

	/* The sysctls of the new namespace cannot be written. */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx != NULL)
		seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EROFS), SCMP_SYS(write), 1,
		    SCMP_A2(SCMP_CMP_EQ, 1)); /* the "1" of a sysctl */
	check("read-only sysctl", ctx, "disable_ipv6: Read-only file system");
}

int
main(void)
{
	netns_require_root();
	netns_guard_run(body);
	return tap_done();
}
