/*
 * netns.h: a job's network.
 *
 * ns_job_net_new() builds the network a job runs in:
 *
 *  - proxy mode: a fresh network namespace; a veth pair whose host end
 *    (axg<id>h) stays in the caller's namespace and whose peer (axg<id>j)
 *    lives in the job's; a /30 of its own from a pool (host end .1, job end
 *    .2); lo up; no default route (only the connected /30); IPv6 disabled
 *    inside; an nftables table "inet axgate" inside that accepts only TCP to
 *    the host address on the given ports (plus lo, and the replies: TCP
 *    from those ports, matched without conntrack) and rejects everything
 *    else at once (TCP with a reset, the rest, IPv6 and UDP included, with
 *    ICMP admin-prohibited); and a host-side table "inet axgate_<id>_<pid>"
 *    that drops whatever arrives from the job's veth and is not for those
 *    ports.  No NAT, no forwarding, no conntrack.
 *  - block mode: a fresh network namespace with only lo up (and IPv6
 *    disabled).  No veth, no rules.
 *
 * The namespace is anonymous: the object holds it with a file descriptor
 * and the job holds it by living in it.  Nothing is mounted under
 * /run/netns, so when the launcher and its job die the kernel destroys the
 * namespace, and the veth pair with it, by itself.  Only the host-side
 * table can outlive a killed launcher; its name carries the owner's pid, as
 * the host link's alias does ("axgate owner=<pid>"), so ns_sweep() at the
 * next start-up removes what belongs to dead owners and nothing else.  Pids
 * are those of the namespace the library runs in.
 *
 * The caller's thread never changes namespace: the namespace is created by
 * a short-lived helper thread, and everything inside it is configured
 * through netlink sockets that thread opened there.
 *
 * Errors: functions return NULL or -1 and write a message naming the step,
 * the object and the error into err[errlen].  A failed ns_job_net_new()
 * leaves nothing behind.  All of it needs CAP_NET_ADMIN and CAP_SYS_ADMIN.
 */
#ifndef AXG_NETNS_H
#define AXG_NETNS_H

#include <stddef.h>
#include <stdint.h>

enum ns_mode {
	NS_MODE_PROXY = 0, /* veth pair to the host, only the ports allowed */
	NS_MODE_BLOCK,	   /* lo only */
};

/* The most ports a job may reach on the host address. */
#define NS_MAX_PORTS 8
/* The pool used when ns_config.pool is NULL. */
#define NS_DEFAULT_POOL "10.200.0.0/16"

struct ns_config {
	enum ns_mode mode;
	/* IPv4 pool in CIDR form ("10.200.0.0/16"), prefix length 16..30;
	 * NULL for NS_DEFAULT_POOL.  Each job takes one /30 of it.  Every
	 * launcher on a host must use the same pool (or disjoint ones). */
	const char *pool;
	/* TCP ports of the host address the job may connect to (the proxy's
	 * port, and 80 for inference.local): 1..NS_MAX_PORTS of them in proxy
	 * mode, none in block mode.  Copied. */
	const uint16_t *ports;
	size_t nports;
	/* Proxy mode: first remove what launchers that died left behind, as
	 * ns_sweep() does, on the sockets the set-up uses (a failed sweep is
	 * logged, and the set-up goes on). */
	bool sweep;
};

/* Opaque. */
struct ns_job_net;

/* Build a job's network as described above.  Returns a new object that the
 * caller frees with ns_job_net_free(), or NULL with a message. */
struct ns_job_net *
ns_job_net_new(const struct ns_config *cfg, char *err, size_t errlen);

/* Tear the network down: remove the host-side table, close the namespace,
 * and make sure the veth pair goes.  When no task is left in the namespace
 * (the normal case: the job has been reaped), closing its last fd makes the
 * kernel destroy it, and both veth ends with it, in the background: the host
 * end may still be listed for a few milliseconds after this returns, but no
 * process can use it.  When a task is still in there, the host end is
 * deleted before this returns, so that task is cut off from the host at
 * once.  (Deleting a link waits for its references to drain, the slowest
 * step of a teardown, hence the two paths.)  NULL is a no-op.  Problems are
 * logged with axg_warn(); the next ns_sweep() removes what could not be.
 * A host end left to the kernel loses its owner alias first, so that a
 * sweep does not take it for a killed launcher's.  The host-side table is
 * deleted by a short-lived process that holds nothing but the set-up's
 * netfilter socket (it is not the caller's child): it sends the deletion
 * at once, so that the caller waits neither for the commit nor for the
 * kernel's text patching when that table held the last netfilter hook of
 * its kind, and keeps the socket past the RCU grace period whose end its
 * close would otherwise wait for (it may outlive the caller by a hundred
 * milliseconds).  The table is gone within milliseconds; one that
 * survives (that process could not run) is named after its owner, whom
 * the next sweep finds dead.  If the process cannot be started, the table
 * is deleted here. */
void ns_job_net_free(struct ns_job_net *net);

/* The same for a caller that knows that no task is left in the namespace
 * (it reaped every process that ever entered it: a PID namespace's init
 * that joined it, say): no look through /proc for tasks, and the veth
 * pair goes with the namespace.  A task still in there would keep its
 * link to the host after the host-side table is gone: when in doubt, use
 * ns_job_net_free(). */
void ns_job_net_free_empty(struct ns_job_net *net);

/* The job namespace's file descriptor (O_CLOEXEC), for setns(fd,
 * CLONE_NEWNET).  Owned by the object: valid until ns_job_net_free(). */
int ns_job_net_fd(const struct ns_job_net *net);

/* Move the calling thread into the job's namespace; -1 with a message. */
int ns_job_net_enter(const struct ns_job_net *net, char *err, size_t errlen);

enum ns_mode ns_job_net_mode(const struct ns_job_net *net);

/* The job id: the index of the job's /30 in the pool; -1 in block mode. */
int ns_job_net_id(const struct ns_job_net *net);

/* Dotted-quad addresses: the host end (where the proxy listens) and the
 * job end (the source address of the job's connections).  "" in block
 * mode.  Owned by the object. */
const char *ns_job_net_host_addr(const struct ns_job_net *net);
const char *ns_job_net_job_addr(const struct ns_job_net *net);

/* Interface names: host end (in the caller's namespace) and job end (in the
 * job's).  "" in block mode.  Owned by the object. */
const char *ns_job_net_host_ifname(const struct ns_job_net *net);
const char *ns_job_net_job_ifname(const struct ns_job_net *net);

/* The name of the host-side nftables table (family inet); "" in block
 * mode.  Owned by the object. */
const char *ns_job_net_host_table(const struct ns_job_net *net);

/* Remove the leftovers of launchers that died without cleaning up: host
 * links named axg<id>h whose alias names a dead owner pid, and inet tables
 * named axgate_<id>_<pid> with a dead pid.  Returns the number of objects
 * removed, or -1 with a message. */
int ns_sweep(char *err, size_t errlen);

#endif /* AXG_NETNS_H */
