/*
 * nft.c: the two nftables tables of a job, built with libnftnl and sent
 * with libmnl as one atomic batch each (the kernel applies a batch all or
 * nothing).
 *
 * Inside the job's namespace, table "inet axgate":
 *   output  (policy drop): oif lo accept; ip daddr <host> tcp dport <port>
 *           accept (per port); meta l4proto tcp reject with tcp reset;
 *           reject with icmpx admin-prohibited.
 *   input   (policy drop): iif lo accept; ip saddr <host> tcp sport <port>
 *           accept (per port: the replies).
 *   forward (policy drop).
 * On the host, table "inet axgate_<id>_<pid>" (explicit drops, policy
 * accept, so that unrelated traffic is untouched):
 *   input:   iifname <veth> ip daddr <host> tcp dport <port> accept (per
 *            port); iifname <veth> drop.
 *   forward: iifname <veth> drop; oifname <veth> drop.
 *
 * No rule uses conntrack: the only flows allowed are TCP between the job
 * and the proxy's ports, which addresses and ports alone describe, and a
 * ct expression would switch conntrack on in both namespaces (the host's
 * included, for all its traffic) and cost its per-namespace set-up.  The
 * golden dumps in tests/integration/netns-ruleset-*.golden show the rules
 * as nft prints them.
 *
 * Every message asks for an ACK; the kernel processes the batch inside
 * sendmsg(), so all answers are queued when it returns and are read without
 * waiting.  An error names the message that failed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "common/common.h"
#include "netns/netns-int.h"

#define BATCH_BUF_SIZE (64 * 1024)
#define BATCH_MAX_MSGS 64
#define RECV_BUF_SIZE  16384

int
nsi_nf_open(struct mnl_socket **out, const char *where, char *err,
    size_t errlen)
{
	struct mnl_socket *nl;
	int e;

	*out = NULL;
	nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (nl == NULL) {
		e = errno;
		if (e == EPROTONOSUPPORT)
			return axg_seterr(err, errlen,
			    "netfilter netlink socket (%s): %s (the kernel has "
			    "no nfnetlink: enable CONFIG_NETFILTER_NETLINK and "
			    "CONFIG_NF_TABLES)",
			    where, strerror(e));
		return axg_seterr(err, errlen,
		    "netfilter netlink socket (%s): %s", where, strerror(e));
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		mnl_socket_close(nl);
		return axg_seterr(err, errlen,
		    "netfilter netlink socket (%s): bind: %s", where,
		    strerror(e));
	}
	*out = nl;
	return 0;
}

void
nsi_nf_close(struct mnl_socket *nl)
{
	if (nl != NULL)
		mnl_socket_close(nl);
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* How long the holder keeps the socket after the caller let go of it.
 * The release of a netfilter netlink socket takes the namespace's
 * nftables commit mutex and, if a commit's objects are still waiting for
 * their RCU grace period, waits for it there (nft_rcv_nl_event flushing
 * the destroy work).  Every device registered in the namespace meanwhile
 * waits for the same mutex (nf_tables_netdev_event): the next launcher's
 * veth pair took 5-6 ms instead of 2.5 in back-to-back launches.  Released
 * after the grace period (10-20 ms here), the socket takes the mutex for
 * no time at all. */
#define HOLD_NS (100 * 1000 * 1000L)

/* What ps shows of the holder, which outlives its launcher by HOLD_NS:
 * not the launcher's command line (a job's workspace, its command), which
 * it would otherwise keep. */
#define HOLD_TITLE "axgate: nftables socket release"
#define HOLD_COMM  "axgate-nfhold"

/* The bounds of this process's command line in its memory (fields 48 and
 * 49 of /proc/self/stat), or false. */
static bool
arg_area(uintptr_t *start, uintptr_t *end)
{
	char buf[1024];
	unsigned long long a = 0, b = 0;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	const char *q;

	if (f != NULL)
		fclose(f);
	buf[n] = '\0';
	/* After the command name, in parentheses: field 3 on. */
	if ((q = strrchr(buf, ')')) == NULL)
		return false;
	q++;
	for (int field = 3; field < 48; field++) {
		q = strchr(q + 1, ' ');
		if (q == NULL)
			return false;
	}
	if (sscanf(q, " %llu %llu", &a, &b) != 2 || a == 0 || b <= a)
		return false;
	*start = (uintptr_t)a;
	*end = (uintptr_t)b;
	return true;
}

static char *del_table_batch(const char *table, size_t *len);

/* What the holder sends first: a batch deleting one table, or nothing. */
struct hold_msg {
	const void *buf;
	size_t len;
};

/* The holder of nsi_nf_close_async(): raw system calls only (it may have
 * been cloned from a multi-threaded process).  Keep nothing but the socket
 * and the pipe, take a name of its own, send the deletion batch if there
 * is one (the kernel commits it within the send; its answer is dropped
 * with the socket), wait for the pipe's EOF (the caller has closed its
 * copy of the socket by then), let the deletions' grace period pass, and
 * drop the last reference.  [args, args_end) is its copy of the command
 * line, or empty. */
static void __attribute__((noreturn)) holder(int fd, int rfd, uintptr_t args,
    uintptr_t args_end, const struct hold_msg *m)
{
	struct timespec hold = { HOLD_NS / 1000000000L, HOLD_NS % 1000000000L };
	unsigned lo = (unsigned)(fd < rfd ? fd : rfd);
	unsigned hi = (unsigned)(fd < rfd ? rfd : fd);
	static const char title[] = HOLD_TITLE;
	char *cmd = (char *)args, c;

	for (size_t i = 0; i < args_end - args; i++)
		cmd[i] = i + 1 < sizeof(title) && i + 1 < args_end - args
		    ? title[i]
		    : '\0';
	syscall(SYS_prctl, PR_SET_NAME, HOLD_COMM, 0UL, 0UL, 0UL);
	if (lo > 0)
		syscall(__NR_close_range, 0U, lo - 1, 0U);
	if (hi > lo + 1)
		syscall(__NR_close_range, lo + 1, hi - 1, 0U);
	syscall(__NR_close_range, hi + 1, ~0U, 0U);
	if (m->len > 0) {
		struct sockaddr_nl to = { .nl_family = AF_NETLINK };

		while (syscall(SYS_sendto, fd, m->buf, m->len, 0, &to,
			   sizeof(to)) < 0 &&
		    errno == EINTR)
			;
	}
	while (syscall(SYS_read, rfd, &c, 1) < 0)
		;
	while (syscall(SYS_nanosleep, &hold, &hold) < 0)
		;
	syscall(SYS_close, fd);
	syscall(SYS_exit_group, 0);
	for (;;)
		;
}

/* vfork: nothing copied for the short-lived middle process, which clones
 * the holder (a copy, with its own stack) and exits at once, so the
 * holder is nobody's child here: no zombie for the caller to reap,
 * however long it runs.  Nothing but system calls after the vfork. */
static bool __attribute__((noinline)) start_holder(int fd, int rfd,
    uintptr_t args, uintptr_t args_end, const struct hold_msg *m)
{
	pid_t mid = vfork();
	int st;

	if (mid == 0) {
		long h = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL,
		    NULL, NULL);

		if (h == 0)
			holder(fd, rfd, args, args_end, m);
		syscall(SYS_exit_group, h < 0 ? 1 : 0);
	}
	if (mid < 0)
		return false;
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

void
nsi_nf_close_async(struct mnl_socket *nl, const char *del_table)
{
	int p[2] = { -1, -1 };
	uintptr_t args = 0, args_end = 0;
	struct hold_msg m = { NULL, 0 };
	char *buf = NULL, err[256];
	bool started;

	if (nl == NULL)
		return;
	if (del_table != NULL)
		buf = del_table_batch(del_table, &m.len);
	m.buf = buf;
	if (!arg_area(&args, &args_end))
		args = args_end = 0;
	started = pipe2(p, O_CLOEXEC) == 0 &&
	    start_holder(mnl_socket_get_fd(nl), p[0], args, args_end, &m);
	/* The holder has its copy: this close is not the last one; the
	 * pipe's EOF tells it so. */
	if (started)
		mnl_socket_close(nl);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	free(buf);
	if (started)
		return;
	if (del_table != NULL &&
	    nsi_nft_del_table(nl, del_table, err, sizeof(err)) < 0)
		axg_warn("removing table %s: %s", del_table, err);
	mnl_socket_close(nl);
}

/* ---- a batch: messages plus what each one is, for error messages ---- */
struct batch {
	char *buf;
	struct mnl_nlmsg_batch *b;
	uint32_t seq0, seq;
	unsigned n;			  /* messages needing an answer */
	const char *what[BATCH_MAX_MSGS]; /* indexed by seq - seq0 - 1 */
	const char *where;		  /* "job namespace", "host" */
	const char *table;
	int kerr; /* the first error the kernel answered, or 0 */
};

static void
batch_init(struct batch *bt, const char *where, const char *table)
{
	memset(bt, 0, sizeof(*bt));
	/* zeroed: the alignment padding of each message goes to the kernel
	 * as it is */
	bt->buf = axg_calloc(1, BATCH_BUF_SIZE);
	bt->b = mnl_nlmsg_batch_start(bt->buf, BATCH_BUF_SIZE);
	bt->seq0 = (uint32_t)time(NULL);
	bt->seq = bt->seq0;
	bt->where = where;
	bt->table = table;
	nftnl_batch_begin(mnl_nlmsg_batch_current(bt->b), bt->seq++);
	mnl_nlmsg_batch_next(bt->b);
}

static void
batch_fini(struct batch *bt)
{
	if (bt->b != NULL)
		mnl_nlmsg_batch_stop(bt->b);
	free(bt->buf);
}

/* Start a message; returns its header, sized for what follows. */
static struct nlmsghdr *
batch_msg(struct batch *bt, uint16_t type, uint16_t flags, const char *what)
{
	struct nlmsghdr *nlh;

	if (bt->n >= BATCH_MAX_MSGS)
		axg_fatal(70, "nft batch: more than %d messages",
		    BATCH_MAX_MSGS);
	bt->what[bt->n++] = what;
	nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(bt->b), type,
	    NFPROTO_INET, flags | NLM_F_ACK, bt->seq++);
	return nlh;
}

static void
batch_next(struct batch *bt)
{
	if (!mnl_nlmsg_batch_next(bt->b))
		axg_fatal(70, "nft batch: buffer of %d bytes full",
		    BATCH_BUF_SIZE);
}

/* Send and collect one answer per message; -1 with the first error. */
static int
batch_send(struct mnl_socket *nl, struct batch *bt, char *err, size_t errlen)
{
	char rbuf[RECV_BUF_SIZE];
	uint32_t portid = mnl_socket_get_portid(nl);
	unsigned answers = 0;
	int first_err = 0;
	const char *first_what = NULL;
	ssize_t r;

	nftnl_batch_end(mnl_nlmsg_batch_current(bt->b), bt->seq++);
	batch_next(bt);
	if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(bt->b),
		mnl_nlmsg_batch_size(bt->b)) < 0)
		return axg_seterr(err, errlen,
		    "nftables batch for table %s (%s): send: %s", bt->table,
		    bt->where, strerror(errno));
	while (answers < bt->n) {
		struct nlmsghdr *nlh;
		int len;

		r = recv(mnl_socket_get_fd(nl), rbuf, sizeof(rbuf),
		    MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break; /* EAGAIN: nothing more will come */
		len = (int)r;
		for (nlh = (struct nlmsghdr *)rbuf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nlmsgerr *e;
			uint32_t i;

			if (nlh->nlmsg_pid != portid ||
			    nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			answers++;
			if (e->error == 0 || first_err != 0)
				continue;
			first_err = -e->error;
			i = nlh->nlmsg_seq - bt->seq0 - 1;
			first_what = i < bt->n ? bt->what[i] : "batch";
		}
	}
	if (first_err != 0) {
		const char *hint = "";

		if (first_err == EOPNOTSUPP || first_err == EAFNOSUPPORT ||
		    first_err == EPROTONOSUPPORT)
			hint = " (the kernel lacks nf_tables or the inet "
			       "family: enable CONFIG_NF_TABLES_INET)";
		else if (first_err == ENOENT &&
		    strstr(first_what, "reject") != NULL)
			hint = " (the kernel lacks the nft reject expression: "
			       "enable CONFIG_NFT_REJECT_INET)";
		bt->kerr = first_err;
		return axg_seterr(err, errlen,
		    "nftables batch for table %s (%s): %s: %s%s", bt->table,
		    bt->where, first_what, strerror(first_err), hint);
	}
	if (answers < bt->n)
		return axg_seterr(err, errlen,
		    "nftables batch for table %s (%s): %u of %u answers "
		    "received",
		    bt->table, bt->where, answers, bt->n);
	return 0;
}

/* ---- objects ---- */
static void
add_table(struct batch *bt, const char *name, uint16_t flags)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (t == NULL)
		axg_fatal(70, "out of memory");
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, name);
	nlh = batch_msg(bt, NFT_MSG_NEWTABLE, NLM_F_CREATE | flags, "NEWTABLE");
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	batch_next(bt);
}

static void
add_chain(struct batch *bt, const char *table, const char *name, uint32_t hook,
    int32_t prio, uint32_t policy, const char *what)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	if (c == NULL)
		axg_fatal(70, "out of memory");
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, prio);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, policy);
	nlh = batch_msg(bt, NFT_MSG_NEWCHAIN, NLM_F_CREATE, what);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	batch_next(bt);
}

static struct nftnl_rule *
rule_new(const char *table, const char *chain)
{
	struct nftnl_rule *r = nftnl_rule_alloc();

	if (r == NULL)
		axg_fatal(70, "out of memory");
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	return r;
}

static void
rule_commit(struct batch *bt, struct nftnl_rule *r, const char *what)
{
	struct nlmsghdr *nlh;

	nlh = batch_msg(bt, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND, what);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_next(bt);
}

static struct nftnl_expr *
expr_new(const char *name)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (e == NULL)
		axg_fatal(70, "out of memory");
	return e;
}

static void
x_meta(struct nftnl_rule *r, uint32_t key)
{
	struct nftnl_expr *e = expr_new("meta");

	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
	nftnl_rule_add_expr(r, e);
}

static void
x_cmp(struct nftnl_rule *r, uint32_t op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = expr_new("cmp");

	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	nftnl_rule_add_expr(r, e);
}

static void
x_payload(struct nftnl_rule *r, uint32_t base, uint32_t off, uint32_t len)
{
	struct nftnl_expr *e = expr_new("payload");

	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	nftnl_rule_add_expr(r, e);
}

static void
x_verdict(struct nftnl_rule *r, int verdict)
{
	struct nftnl_expr *e = expr_new("immediate");

	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	nftnl_rule_add_expr(r, e);
}

static void
x_reject(struct nftnl_rule *r, uint32_t type, uint8_t code)
{
	struct nftnl_expr *e = expr_new("reject");

	nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, type);
	nftnl_expr_set(e, NFTNL_EXPR_REJECT_CODE, &code, sizeof(code));
	nftnl_rule_add_expr(r, e);
}

static void
x_ifindex(struct nftnl_rule *r, uint32_t key, uint32_t ifindex)
{
	x_meta(r, key);
	x_cmp(r, NFT_CMP_EQ, &ifindex, sizeof(ifindex));
}

static void
x_ifname(struct nftnl_rule *r, uint32_t key, const char *ifname)
{
	char name[IFNAMSIZ];

	memset(name, 0, sizeof(name));
	axg_strlcpy(name, ifname, sizeof(name));
	x_meta(r, key);
	x_cmp(r, NFT_CMP_EQ, name, sizeof(name));
}

/* meta nfproto ipv4 ip daddr <a> meta l4proto tcp tcp dport <port> */
static void
x_tcp_to(struct nftnl_rule *r, struct in_addr a, uint16_t port)
{
	uint8_t proto4 = NFPROTO_IPV4, tcp = IPPROTO_TCP;
	uint16_t nport = htons(port);

	x_meta(r, NFT_META_NFPROTO);
	x_cmp(r, NFT_CMP_EQ, &proto4, sizeof(proto4));
	x_payload(r, NFT_PAYLOAD_NETWORK_HEADER, 16, 4);
	x_cmp(r, NFT_CMP_EQ, &a.s_addr, sizeof(a.s_addr));
	x_meta(r, NFT_META_L4PROTO);
	x_cmp(r, NFT_CMP_EQ, &tcp, sizeof(tcp));
	x_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2);
	x_cmp(r, NFT_CMP_EQ, &nport, sizeof(nport));
}

/* meta nfproto ipv4 ip saddr <a> meta l4proto tcp tcp sport <port> */
static void
x_tcp_from(struct nftnl_rule *r, struct in_addr a, uint16_t port)
{
	uint8_t proto4 = NFPROTO_IPV4, tcp = IPPROTO_TCP;
	uint16_t nport = htons(port);

	x_meta(r, NFT_META_NFPROTO);
	x_cmp(r, NFT_CMP_EQ, &proto4, sizeof(proto4));
	x_payload(r, NFT_PAYLOAD_NETWORK_HEADER, 12, 4);
	x_cmp(r, NFT_CMP_EQ, &a.s_addr, sizeof(a.s_addr));
	x_meta(r, NFT_META_L4PROTO);
	x_cmp(r, NFT_CMP_EQ, &tcp, sizeof(tcp));
	x_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 2);
	x_cmp(r, NFT_CMP_EQ, &nport, sizeof(nport));
}

int
nsi_nft_job_table(struct mnl_socket *nl, struct in_addr host,
    const uint16_t *ports, size_t nports, char *err, size_t errlen)
{
	const char *t = NSI_JOB_TABLE;
	uint8_t tcp = IPPROTO_TCP;
	struct nftnl_rule *r;
	struct batch bt;
	size_t i;
	int rc;

	batch_init(&bt, "job namespace", t);
	add_table(&bt, t, NLM_F_EXCL);
	add_chain(&bt, t, "output", NF_INET_LOCAL_OUT, 0, NF_DROP,
	    "NEWCHAIN output");
	add_chain(&bt, t, "input", NF_INET_LOCAL_IN, 0, NF_DROP,
	    "NEWCHAIN input");
	add_chain(&bt, t, "forward", NF_INET_FORWARD, 0, NF_DROP,
	    "NEWCHAIN forward");

	r = rule_new(t, "output");
	x_ifindex(r, NFT_META_OIF, 1); /* lo is ifindex 1 in every netns */
	x_verdict(r, NF_ACCEPT);
	rule_commit(&bt, r, "NEWRULE output: oif lo accept");
	for (i = 0; i < nports; i++) {
		r = rule_new(t, "output");
		x_tcp_to(r, host, ports[i]);
		x_verdict(r, NF_ACCEPT);
		rule_commit(&bt, r, "NEWRULE output: tcp to the proxy accept");
	}
	r = rule_new(t, "output");
	x_meta(r, NFT_META_L4PROTO);
	x_cmp(r, NFT_CMP_EQ, &tcp, sizeof(tcp));
	x_reject(r, NFT_REJECT_TCP_RST, 0);
	rule_commit(&bt, r, "NEWRULE output: tcp reject with tcp reset");
	r = rule_new(t, "output");
	x_reject(r, NFT_REJECT_ICMPX_UNREACH,
	    NFT_REJECT_ICMPX_ADMIN_PROHIBITED);
	rule_commit(&bt, r,
	    "NEWRULE output: reject with icmpx admin-prohibited");

	r = rule_new(t, "input");
	x_ifindex(r, NFT_META_IIF, 1);
	x_verdict(r, NF_ACCEPT);
	rule_commit(&bt, r, "NEWRULE input: iif lo accept");
	for (i = 0; i < nports; i++) {
		r = rule_new(t, "input");
		x_tcp_from(r, host, ports[i]);
		x_verdict(r, NF_ACCEPT);
		rule_commit(&bt, r, "NEWRULE input: tcp from the proxy accept");
	}

	rc = batch_send(nl, &bt, err, errlen);
	batch_fini(&bt);
	return rc;
}

int
nsi_nft_host_table(struct mnl_socket *nl, const char *table, const char *ifname,
    struct in_addr host, const uint16_t *ports, size_t nports, char *err,
    size_t errlen)
{
	struct nftnl_rule *r;
	struct batch bt;
	size_t i;
	int rc;

	batch_init(&bt, "host", table);
	add_table(&bt, table, NLM_F_EXCL);
	/* Before the usual filter chains (priority 0). */
	add_chain(&bt, table, "input", NF_INET_LOCAL_IN, -10, NF_ACCEPT,
	    "NEWCHAIN input");
	add_chain(&bt, table, "forward", NF_INET_FORWARD, -10, NF_ACCEPT,
	    "NEWCHAIN forward");
	for (i = 0; i < nports; i++) {
		r = rule_new(table, "input");
		x_ifname(r, NFT_META_IIFNAME, ifname);
		x_tcp_to(r, host, ports[i]);
		x_verdict(r, NF_ACCEPT);
		rule_commit(&bt, r, "NEWRULE input: tcp to the proxy accept");
	}
	r = rule_new(table, "input");
	x_ifname(r, NFT_META_IIFNAME, ifname);
	x_verdict(r, NF_DROP);
	rule_commit(&bt, r, "NEWRULE input: drop from the job");
	r = rule_new(table, "forward");
	x_ifname(r, NFT_META_IIFNAME, ifname);
	x_verdict(r, NF_DROP);
	rule_commit(&bt, r, "NEWRULE forward: drop from the job");
	r = rule_new(table, "forward");
	x_ifname(r, NFT_META_OIFNAME, ifname);
	x_verdict(r, NF_DROP);
	rule_commit(&bt, r, "NEWRULE forward: drop to the job");

	rc = batch_send(nl, &bt, err, errlen);
	if (rc < 0 && bt.kerr == EEXIST)
		rc = -2;
	batch_fini(&bt);
	return rc;
}

/* A batch deleting table, without answers asked for (a holder sends it
 * and goes on): malloc'd, *len bytes. */
static char *
del_table_batch(const char *table, size_t *len)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;
	struct batch bt;
	char *out;

	if (t == NULL)
		axg_fatal(70, "out of memory");
	batch_init(&bt, "host", table);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, table);
	nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(bt.b),
	    NFT_MSG_DELTABLE, NFPROTO_INET, 0, bt.seq++);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	batch_next(&bt);
	nftnl_batch_end(mnl_nlmsg_batch_current(bt.b), bt.seq++);
	batch_next(&bt);
	*len = mnl_nlmsg_batch_size(bt.b);
	out = axg_malloc(*len);
	memcpy(out, mnl_nlmsg_batch_head(bt.b), *len);
	batch_fini(&bt);
	return out;
}

int
nsi_nft_del_table(struct mnl_socket *nl, const char *table, char *err,
    size_t errlen)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;
	struct batch bt;
	int rc;

	if (t == NULL)
		axg_fatal(70, "out of memory");
	batch_init(&bt, "host", table);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, table);
	nlh = batch_msg(&bt, NFT_MSG_DELTABLE, 0, "DELTABLE");
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	batch_next(&bt);
	rc = batch_send(nl, &bt, err, errlen);
	if (rc < 0 && bt.kerr == ENOENT)
		rc = 1;
	batch_fini(&bt);
	return rc;
}

struct walk {
	nsi_table_cb cb;
	void *arg;
};

static int
table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct walk *w = data;
	struct nftnl_table *t = nftnl_table_alloc();
	const char *name;

	if (t == NULL)
		return MNL_CB_ERROR;
	if (nftnl_table_nlmsg_parse(nlh, t) == 0 &&
	    nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY) == NFPROTO_INET &&
	    (name = nftnl_table_get_str(t, NFTNL_TABLE_NAME)) != NULL)
		w->cb(name, w->arg);
	nftnl_table_free(t);
	return MNL_CB_OK;
}

int
nsi_nft_table_walk(struct mnl_socket *nl, nsi_table_cb cb, void *arg, char *err,
    size_t errlen)
{
	char buf[RECV_BUF_SIZE];
	uint32_t portid = mnl_socket_get_portid(nl), seq = (uint32_t)time(NULL);
	struct walk w = { cb, arg };
	struct nlmsghdr *nlh;
	ssize_t r;

	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETTABLE, NFPROTO_INET,
	    NLM_F_DUMP, seq);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return axg_seterr(err, errlen,
		    "nftables GETTABLE dump: send: %s", strerror(errno));
	for (;;) {
		r = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return axg_seterr(err, errlen,
			    "nftables GETTABLE dump: recv: %s",
			    strerror(errno));
		r = mnl_cb_run(buf, (size_t)r, seq, portid, table_cb, &w);
		if (r == MNL_CB_STOP)
			return 0;
		if (r < 0)
			return axg_seterr(err, errlen,
			    "nftables GETTABLE dump: %s", strerror(errno));
	}
}
