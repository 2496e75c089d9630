/*
 * ns.c: a job's network namespace, from creation to teardown.
 *
 * Order of ns_job_net_new() in proxy mode, each step undone by the one exit
 * path if a later one fails:
 *
 *  1. netlink sockets in the caller's namespace (rtnetlink, nfnetlink);
 *  2. a helper thread unshares a new network namespace, keeps it with an fd
 *     of /proc/thread-self/ns/net, disables IPv6 there (before any link can
 *     get a link-local address) and opens the namespace's netlink sockets;
 *     the thread then ends, and the caller's thread never switched;
 *  3. lo up;
 *  4. the veth pair, the host end up, named after the first free /30 of the
 *     pool: the kernel's name uniqueness (NLM_F_EXCL) is the lock, so
 *     concurrent launchers that pick the same slot see EEXIST and move on
 *     (no lock file that a killed launcher could leave held or stale);
 *  5. the owner alias on the host end, at once, for ns_sweep();
 *  6. the host-side table, then the job namespace's (both need the
 *     slot's address); the addresses of both ends, the job end up.
 *
 * No process lives in the namespace before this returns, so nothing can
 * send while the steps are incomplete.
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "netns/netns-int.h"

/* How many taken names to step over before giving up. */
#define MAX_CLAIM_TRIES 256

const char *const nsi_step_names[NSI_STEP_COUNT] = {
	"host sockets",
	"unshare+sysctl+sockets+lo",
	"link/addr scan",
	"veth create",
	"job nft batch",
	"alias+addrs+up",
	"host nft batch",
	"close sockets",
	"free: del table",
	"free: del link",
	"free: scan for tasks",
	"free: close ns",
};
uint64_t nsi_prof[NSI_STEP_COUNT];

/* Charge the time since *t to step, and restart *t. */
static void
prof(enum nsi_step step, uint64_t *t)
{
	uint64_t now = axg_monotonic_ns();

	__atomic_fetch_add(&nsi_prof[step], now - *t, __ATOMIC_RELAXED);
	*t = now;
}

struct ns_job_net {
	enum ns_mode mode;
	int nsfd;
	int id;
	struct in_addr host_in, job_in;
	char host_addr[INET_ADDRSTRLEN];
	char job_addr[INET_ADDRSTRLEN];
	char host_if[IFNAMSIZ];
	char job_if[IFNAMSIZ];
	char table[64];
	bool have_link;	 /* the veth pair exists: delete it */
	bool have_table; /* the host table exists: delete it */
	/* The host's netfilter socket of the set-up, kept for the teardown:
	 * closing it while a deletion (a sweep's) is being reclaimed would
	 * wait for that (see nsi_nf_close_async()). */
	struct mnl_socket *hnf;
	struct nl_sock *hrt; /* the host's rtnetlink socket, likewise */
	bool swept;	     /* a sweep deleted tables on hnf */
};

/* ---- steps 2 and 3: the helper thread ---- */
struct inner {
	bool want_nf;
	int nsfd;
	struct nl_sock *rt;
	struct mnl_socket *nf;
	int rc;
	char err[256];
};

/* Write "1" to a sysctl of the current thread's network namespace. */
static int
sysctl_one(const char *path, char *err, size_t errlen)
{
	int fd, e;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return axg_seterr(err, errlen, "open %s: %s", path,
		    strerror(errno));
	if (write(fd, "1", 1) != 1) {
		e = errno;
		close(fd);
		return axg_seterr(err, errlen, "write %s: %s", path,
		    strerror(e));
	}
	close(fd);
	return 0;
}

static int
disable_ipv6(char *err, size_t errlen)
{
	/* No IPv6 in this kernel: nothing to disable. */
	if (access("/proc/sys/net/ipv6", F_OK) != 0 && errno == ENOENT)
		return 0;
	/* "all" also applies to every existing link (lo). */
	if (sysctl_one("/proc/sys/net/ipv6/conf/all/disable_ipv6", err,
		errlen) != 0 ||
	    sysctl_one("/proc/sys/net/ipv6/conf/default/disable_ipv6", err,
		errlen) != 0)
		return -1;
	return 0;
}

static void *
inner_main(void *arg)
{
	struct inner *in = arg;
	char *err = in->err;
	size_t errlen = sizeof(in->err);

	in->rc = -1;
	if (unshare(CLONE_NEWNET) != 0) {
		int e = errno;

		axg_seterr(err, errlen, "unshare(CLONE_NEWNET): %s%s",
		    strerror(e),
		    e == EPERM ? " (needs CAP_SYS_ADMIN)"
			: e == EINVAL
			? " (the kernel has no network namespaces: "
			  "enable CONFIG_NET_NS)"
			: "");
		return NULL;
	}
	in->nsfd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (in->nsfd < 0) {
		axg_seterr(err, errlen, "open /proc/thread-self/ns/net: %s",
		    strerror(errno));
		return NULL;
	}
	if (disable_ipv6(err, errlen) != 0)
		return NULL;
	if (nsi_rt_open(&in->rt, "job namespace", err, errlen) != 0 ||
	    (in->want_nf &&
		nsi_nf_open(&in->nf, "job namespace", err, errlen) != 0) ||
	    nsi_link_up(in->rt, 1, "lo (job namespace)", err, errlen) != 0)
		return NULL;
	in->rc = 0;
	return NULL;
}

/* Start the helper thread; ns_join() waits for it.  The caller's thread
 * works on the host's side meanwhile. */
static int
ns_start(struct inner *in, pthread_t *th, char *err, size_t errlen)
{
	int e;

	in->nsfd = -1;
	in->rc = -1;
	e = pthread_create(th, NULL, inner_main, in);
	if (e != 0)
		return axg_seterr(err, errlen,
		    "network namespace: pthread_create: %s", strerror(e));
	return 0;
}

static int
ns_join(struct inner *in, pthread_t th, char *err, size_t errlen)
{
	pthread_join(th, NULL);
	if (in->rc != 0)
		return axg_seterr(err, errlen, "network namespace: %s",
		    in->err);
	return 0;
}

/* ---- step 4: picking a /30 ---- */
struct used {
	const struct nsi_pool *pool;
	uint8_t *bits;
};

static void
mark(struct used *u, long slot)
{
	if (slot >= 0 && (uint32_t)slot < u->pool->slots)
		u->bits[slot / 8] |= (uint8_t)(1u << (slot % 8));
}

static bool
is_marked(const struct used *u, uint32_t slot)
{
	return (u->bits[slot / 8] >> (slot % 8)) & 1;
}

static void
used_link(const char *name, const char *alias, void *arg)
{
	(void)alias;
	mark(arg, nsi_parse_host_ifname(name));
}

static void
used_addr(uint32_t a, void *arg)
{
	struct used *u = arg;

	mark(u, nsi_pool_slot_of(u->pool, a));
}

static long
next_free(const struct used *u, uint32_t from)
{
	uint32_t s;

	for (s = from; s < u->pool->slots; s++)
		if (!is_marked(u, s))
			return (long)s;
	return -1;
}

/* Links with our names and addresses inside the pool are taken: fills
 * u->bits (which the caller frees). */
static int
scan_used(struct nl_sock *hrt, struct used *u, char *err, size_t errlen)
{
	u->bits = axg_calloc(1, u->pool->slots / 8 + 1);
	if (nsi_link_walk(hrt, used_link, u, err, errlen) != 0 ||
	    nsi_addr_walk(hrt, used_addr, u, err, errlen) != 0)
		return -1;
	return 0;
}

static int
claim_slot(struct ns_job_net *net, struct nl_sock *hrt, const struct used *u,
    char *err, size_t errlen)
{
	const struct nsi_pool *pool = u->pool;
	unsigned tries = 0;
	long slot;
	int rc = -1;

	uint64_t t = axg_monotonic_ns();

	for (slot = next_free(u, 0); slot >= 0;
	     slot = next_free(u, (uint32_t)slot + 1)) {
		int r;

		snprintf(net->host_if, sizeof(net->host_if), "%s%ld%c",
		    NSI_LINK_PREFIX, slot, NSI_HOST_SUFFIX);
		snprintf(net->job_if, sizeof(net->job_if), "%s%ld%c",
		    NSI_LINK_PREFIX, slot, NSI_JOB_SUFFIX);
		r = nsi_veth_add(hrt, net->host_if, net->job_if, net->nsfd,
		    NSI_IFINDEX_BASE + (int)slot, err, errlen);
		prof(NSI_STEP_VETH, &t);
		if (r < 0)
			goto out;
		if (r == 0) {
			net->id = (int)slot;
			net->have_link = true;
			rc = 0;
			goto out;
		}
		/* Taken since the scan by a concurrent launcher. */
		if (++tries >= MAX_CLAIM_TRIES)
			break;
	}
	axg_seterr(err, errlen,
	    "address pool %u.%u.%u.%u/%u: no free /30 (%u jobs at most)",
	    pool->base >> 24, (pool->base >> 16) & 0xff,
	    (pool->base >> 8) & 0xff, pool->base & 0xff, pool->plen,
	    pool->slots);
out:
	return rc;
}

/* ---- teardown, shared by free and the failure path ---- */

/* Is a task in the namespace nsfd: one of our threads, or the main thread
 * of another process?  (Costs one fstatat per process on the host.) */
static bool
ns_in_use(int nsfd)
{
	char path[64];
	struct stat ns, st;
	struct dirent *d;
	pid_t self = getpid();
	DIR *dir;
	bool used = false;

	if (fstat(nsfd, &ns) != 0)
		return true;
	/* Our own threads, then every process (by its main thread). */
	dir = opendir("/proc/self/task");
	if (dir == NULL)
		return true;
	while (!used && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%.16s/ns/net", d->d_name);
		if (fstatat(dirfd(dir), path, &st, 0) == 0 &&
		    st.st_ino == ns.st_ino && st.st_dev == ns.st_dev)
			used = true;
	}
	closedir(dir);
	dir = opendir("/proc");
	if (dir == NULL)
		return true;
	while (!used && (d = readdir(dir)) != NULL) {
		uint64_t pid;

		if (axg_parse_u64(d->d_name, 1, INT32_MAX, &pid) != 0 ||
		    (pid_t)pid == self)
			continue;
		/* Relative to /proc: no walk from the root per process. */
		snprintf(path, sizeof(path), "%.16s/ns/net", d->d_name);
		if (fstatat(dirfd(dir), path, &st, 0) == 0 &&
		    st.st_ino == ns.st_ino && st.st_dev == ns.st_dev)
			used = true;
		if (used)
			axg_debug("job namespace: process %s is in it",
			    d->d_name);
	}
	closedir(dir);
	return used;
}

static void
teardown(struct ns_job_net *net, struct nl_sock *hrt, struct mnl_socket *hnf,
    bool empty)
{
	char err[256];
	struct nl_sock *own_rt = net->hrt;
	struct mnl_socket *own_nf = net->hnf;
	const char *later = NULL; /* the table the holder deletes */
	bool deleted = false;
	uint64_t t = axg_monotonic_ns();

	net->hnf = NULL;
	net->hrt = NULL;
	if (net->have_table && hnf == NULL && own_nf != NULL) {
		/* The holder that closes the set-up's socket deletes it: the
		 * job's processes are gone, the table only waits for the
		 * namespace's end. */
		later = net->table;
		net->have_table = false;
	}
	if (net->have_table) {
		if (hnf == NULL && own_nf == NULL &&
		    nsi_nf_open(&own_nf, "host", err, sizeof(err)) != 0)
			axg_warn("removing table %s: %s", net->table, err);
		else if (nsi_nft_del_table(hnf ? hnf : own_nf, net->table, err,
			     sizeof(err)) < 0)
			axg_warn("removing table %s: %s", net->table, err);
		else
			deleted = true;
		net->have_table = false;
		prof(NSI_STEP_DEL_TABLE, &t);
	}
	/* With no task left in the namespace, closing our fd lets the kernel
	 * destroy it, and the veth pair with it, in the background.  Deleting
	 * the link here instead makes us wait for the device's references to
	 * drain (RCU barriers: most of the teardown's time).  A task still in
	 * there gets its link cut now. */
	if (net->have_link && net->nsfd >= 0 &&
	    (empty || !ns_in_use(net->nsfd))) {
		struct nl_sock *rt = hrt ? hrt : own_rt;

		/* Until the kernel has destroyed it, the host end is listed
		 * with its owner's alias, and this owner is about to exit:
		 * drop the alias, or the next launcher's sweep takes the link
		 * for a killed launcher's and deletes it itself (waiting for
		 * its references to drain, and logging it).  A sweep leaves
		 * links without an alias alone. */
		if (rt != NULL &&
		    nsi_link_set_alias(rt, NSI_IFINDEX_BASE + net->id, "", err,
			sizeof(err)) != 0)
			axg_debug("clearing the alias of %s: %s", net->host_if,
			    err);
		net->have_link = false;
	}
	prof(NSI_STEP_SCAN_NS, &t);
	if (net->have_link) {
		if (hrt == NULL && own_rt == NULL &&
		    nsi_rt_open(&own_rt, "host", err, sizeof(err)) != 0)
			axg_warn("removing link %s: %s", net->host_if, err);
		else if (nsi_link_del(hrt ? hrt : own_rt, net->host_if, err,
			     sizeof(err)) < 0)
			axg_warn("removing link %s: %s", net->host_if, err);
		net->have_link = false;
		prof(NSI_STEP_DEL_LINK, &t);
	}
	/* The table is gone (the kernel acknowledged it) or about to be;
	 * the reclaim of its memory is left, which closing the socket would
	 * wait for. */
	if (later != NULL || deleted || net->swept)
		nsi_nf_close_async(own_nf, later);
	else
		nsi_nf_close(own_nf);
	nsi_rt_close(own_rt);
	if (net->nsfd >= 0)
		close(net->nsfd);
	net->nsfd = -1;
	prof(NSI_STEP_DEL_NS, &t);
}

static int
check_config(const struct ns_config *cfg, char *err, size_t errlen)
{
	size_t i;

	if (cfg->mode == NS_MODE_BLOCK) {
		if (cfg->nports != 0)
			return axg_seterr(err, errlen,
			    "block mode takes no ports (%zu given)",
			    cfg->nports);
		return 0;
	}
	if (cfg->mode != NS_MODE_PROXY)
		return axg_seterr(err, errlen, "unknown network mode %d",
		    (int)cfg->mode);
	if (cfg->nports == 0 || cfg->nports > NS_MAX_PORTS ||
	    cfg->ports == NULL)
		return axg_seterr(err, errlen,
		    "proxy mode needs 1..%d ports (%zu given)", NS_MAX_PORTS,
		    cfg->nports);
	for (i = 0; i < cfg->nports; i++)
		if (cfg->ports[i] == 0)
			return axg_seterr(err, errlen, "port %zu is 0", i + 1);
	return 0;
}

/* The host table, named for this process and the network's id.  A table
 * of that name can be this process's earlier network's, whose deletion
 * its free handed to a holder process (nsi_nf_close_async) that has not
 * sent it yet: wait for it a little, then fail as for any name taken. */
static int
host_table(struct mnl_socket *hnf, const struct ns_job_net *net,
    const struct ns_config *cfg, char *err, size_t errlen)
{
	for (int tries = 0;; tries++) {
		int rc = nsi_nft_host_table(hnf, net->table, net->host_if,
		    net->host_in, cfg->ports, cfg->nports, err, errlen);
		if (rc != -2 || tries == 100)
			return rc < 0 ? -1 : rc;
		usleep(5000);
	}
}

struct ns_job_net *
ns_job_net_new(const struct ns_config *cfg, char *err, size_t errlen)
{
	struct ns_job_net *net;
	struct nsi_pool pool;
	struct used u = { &pool, NULL };
	struct inner in;
	struct nl_sock *hrt = NULL;
	struct mnl_socket *hnf = NULL;
	pthread_t th;
	int hidx, jidx, scan_rc = 0;
	char alias[64], scan_err[256];
	uint64_t t = axg_monotonic_ns();

	if (check_config(cfg, err, errlen) != 0)
		return NULL;
	if (cfg->mode == NS_MODE_PROXY &&
	    nsi_pool_parse(cfg->pool, &pool, err, errlen) != 0)
		return NULL;

	net = axg_calloc(1, sizeof(*net));
	net->mode = cfg->mode;
	net->nsfd = -1;
	net->id = -1;
	memset(&in, 0, sizeof(in));
	in.want_nf = cfg->mode == NS_MODE_PROXY;

	if (cfg->mode == NS_MODE_PROXY &&
	    (nsi_rt_open(&hrt, "host", err, errlen) != 0 ||
		nsi_nf_open(&hnf, "host", err, errlen) != 0))
		goto fail;
	prof(NSI_STEP_SOCKETS, &t);
	if (ns_start(&in, &th, err, errlen) != 0)
		goto fail_in;
	/* While the helper thread builds the namespace (the unshare is the
	 * slowest step), the host's side: the sweep, and which slots are
	 * taken. */
	if (cfg->mode == NS_MODE_PROXY && cfg->sweep) {
		char e[256];
		int tables;

		if (nsi_sweep(hrt, hnf, &tables, e, sizeof(e)) < 0)
			axg_warn("sweep of leftover job networks: %s", e);
		net->swept = tables > 0;
	}
	if (cfg->mode == NS_MODE_PROXY)
		scan_rc = scan_used(hrt, &u, scan_err, sizeof(scan_err));
	prof(NSI_STEP_SCAN, &t);
	if (ns_join(&in, th, err, errlen) != 0)
		goto fail_in;
	net->nsfd = in.nsfd;
	in.nsfd = -1;
	prof(NSI_STEP_UNSHARE, &t);
	if (scan_rc != 0) {
		axg_seterr(err, errlen, "%s", scan_err);
		goto fail_in;
	}
	if (cfg->mode == NS_MODE_BLOCK)
		goto done;

	if (claim_slot(net, hrt, &u, err, errlen) != 0)
		goto fail_in;
	/* The owner first, so that a sweep can tell whose link it is. */
	t = axg_monotonic_ns();
	hidx = jidx = NSI_IFINDEX_BASE + net->id;
	snprintf(alias, sizeof(alias), "%s%ld", NSI_ALIAS_PREFIX,
	    (long)getpid());
	if (nsi_link_set_alias(hrt, hidx, alias, err, errlen) != 0)
		goto fail_in;
	prof(NSI_STEP_ADDRS, &t);
	nsi_pool_addrs(&pool, (uint32_t)net->id, &net->host_in, &net->job_in);
	snprintf(net->table, sizeof(net->table), "%s%d_%ld", NSI_HOST_TABLE,
	    net->id, (long)getpid());
	/* The host table before the job's: its hooks keep the kernel's
	 * per-hook static keys on, so registering the job's chains does not
	 * patch kernel text again (that waits for every CPU). */
	if (host_table(hnf, net, cfg, err, errlen) != 0)
		goto fail_in;
	net->have_table = true;
	prof(NSI_STEP_HOST_NFT, &t);
	if (nsi_nft_job_table(in.nf, net->host_in, cfg->ports, cfg->nports, err,
		errlen) != 0)
		goto fail_in;
	prof(NSI_STEP_JOB_NFT, &t);
	inet_ntop(AF_INET, &net->host_in, net->host_addr,
	    sizeof(net->host_addr));
	inet_ntop(AF_INET, &net->job_in, net->job_addr, sizeof(net->job_addr));
	if (nsi_addr_add(hrt, hidx, net->host_if, net->host_in, 30, err,
		errlen) != 0 ||
	    nsi_addr_add(in.rt, jidx, net->job_if, net->job_in, 30, err,
		errlen) != 0 ||
	    nsi_link_up(in.rt, jidx, net->job_if, err, errlen) != 0)
		goto fail_in;
	prof(NSI_STEP_ADDRS, &t);
done:
	free(u.bits);
	nsi_rt_close(in.rt);
	nsi_nf_close(in.nf);
	net->hrt = hrt; /* for the teardown; NULL in block mode */
	net->hnf = hnf;
	prof(NSI_STEP_CLOSE, &t);
	return net;

fail_in:
	free(u.bits);
	nsi_rt_close(in.rt);
	nsi_nf_close(in.nf);
	if (in.nsfd >= 0)
		close(in.nsfd);
fail:
	teardown(net, hrt, hnf, true); /* no task has entered it yet */
	nsi_rt_close(hrt);
	if (net->swept)
		nsi_nf_close_async(hnf, NULL);
	else
		nsi_nf_close(hnf);
	free(net);
	return NULL;
}

void
ns_job_net_free(struct ns_job_net *net)
{
	if (net == NULL)
		return;
	teardown(net, NULL, NULL, false);
	free(net);
}

void
ns_job_net_free_empty(struct ns_job_net *net)
{
	if (net == NULL)
		return;
	teardown(net, NULL, NULL, true);
	free(net);
}

int
ns_job_net_fd(const struct ns_job_net *net)
{
	return net->nsfd;
}

int
ns_job_net_enter(const struct ns_job_net *net, char *err, size_t errlen)
{
	if (setns(net->nsfd, CLONE_NEWNET) != 0)
		return axg_seterr(err, errlen,
		    "setns into the job's network namespace: %s",
		    strerror(errno));
	return 0;
}

enum ns_mode
ns_job_net_mode(const struct ns_job_net *net)
{
	return net->mode;
}

int
ns_job_net_id(const struct ns_job_net *net)
{
	return net->id;
}

const char *
ns_job_net_host_addr(const struct ns_job_net *net)
{
	return net->host_addr;
}

const char *
ns_job_net_job_addr(const struct ns_job_net *net)
{
	return net->job_addr;
}

const char *
ns_job_net_host_ifname(const struct ns_job_net *net)
{
	return net->host_if;
}

const char *
ns_job_net_job_ifname(const struct ns_job_net *net)
{
	return net->job_if;
}

const char *
ns_job_net_host_table(const struct ns_job_net *net)
{
	return net->table;
}
