/*
 * netns-int.h: what the files of netns/ share.
 *
 * rtnl.c   links and addresses through libnl-route-3
 * nft.c    nftables batches through libmnl + libnftnl
 * pool.c   the address pool and the names derived from a job id
 * ns.c     the namespace, ns_job_net_new/free and the getters
 * sweep.c  ns_sweep
 */
#ifndef AXG_NETNS_INT_H
#define AXG_NETNS_INT_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "netns/netns.h"

struct nl_sock;
struct mnl_socket;

/* Names. */
#define NSI_LINK_PREFIX	 "axg"
#define NSI_HOST_SUFFIX	 'h'
#define NSI_JOB_SUFFIX	 'j'
#define NSI_JOB_TABLE	 "axgate"
#define NSI_HOST_TABLE	 "axgate_" /* + <id>_<pid> */
#define NSI_ALIAS_PREFIX "axgate owner="
#define NSI_MAX_SLOTS	 65536
/* Both ends of job id's veth pair get interface index NSI_IFINDEX_BASE+id:
 * far above the small indexes the kernel hands out in order. */
#define NSI_IFINDEX_BASE 0x41580000

/* ---- ns.c: where the time goes (read by the benchmark) ----
 * Each step adds its wall time in ns to nsi_prof[step] (atomically). */
enum nsi_step {
	NSI_STEP_SOCKETS,   /* host netlink sockets */
	NSI_STEP_UNSHARE,   /* helper thread: unshare, sysctls, sockets, lo */
	NSI_STEP_SCAN,	    /* link and address dumps */
	NSI_STEP_VETH,	    /* RTM_NEWLINK veth (all attempts) */
	NSI_STEP_JOB_NFT,   /* the job namespace's nftables batch */
	NSI_STEP_ADDRS,	    /* alias, addresses, job end up */
	NSI_STEP_HOST_NFT,  /* the host table batch */
	NSI_STEP_CLOSE,	    /* closing the set-up sockets */
	NSI_STEP_DEL_TABLE, /* free: DELTABLE */
	NSI_STEP_DEL_LINK,  /* free: RTM_DELLINK */
	NSI_STEP_SCAN_NS,   /* free: looking for tasks in the namespace */
	NSI_STEP_DEL_NS,    /* free: closing the namespace fd */
	NSI_STEP_COUNT
};
extern const char *const nsi_step_names[NSI_STEP_COUNT];
extern uint64_t nsi_prof[NSI_STEP_COUNT];

/* ---- sweep.c ---- */
/* ns_sweep() on the caller's host sockets: the number of objects removed,
 * *tables of them tables, or -1 with a message. */
int nsi_sweep(struct nl_sock *rt, struct mnl_socket *nf, int *tables, char *err,
    size_t errlen);

/* ---- pool.c ---- */
struct nsi_pool {
	uint32_t base;	/* host byte order, aligned to the prefix */
	unsigned plen;	/* 16..30 */
	uint32_t slots; /* number of /30s, at most NSI_MAX_SLOTS */
};

int nsi_pool_parse(const char *cidr, struct nsi_pool *pool, char *err,
    size_t errlen);
/* The host (.1) and job (.2) addresses of slot id. */
void nsi_pool_addrs(const struct nsi_pool *pool, uint32_t id,
    struct in_addr *host, struct in_addr *job);
/* The slot holding address a (host byte order), or -1. */
long nsi_pool_slot_of(const struct nsi_pool *pool, uint32_t a);
/* Parse "axg<id>h": the id, or -1 if name is not one of ours. */
long nsi_parse_host_ifname(const char *name);
/* Parse "axgate_<id>_<pid>": 0 and the pid, or -1 if not ours. */
int nsi_parse_host_table(const char *name, pid_t *pid);
/* Parse an alias "axgate owner=<pid>": the pid, or -1. */
pid_t nsi_parse_alias(const char *alias);
/* Is the process pid gone? */
bool nsi_pid_dead(pid_t pid);

/* ---- rtnl.c (libnl-route-3); every function names its object in err ---- */
int
nsi_rt_open(struct nl_sock **out, const char *where, char *err, size_t errlen);
void nsi_rt_close(struct nl_sock *sk);
/* Create the veth pair host/peer, the peer inside the namespace nsfd, the
 * host end up, both ends with index ifindex.  Returns 0, 1 if the host name
 * or the index is taken, or -1 with a message. */
int nsi_veth_add(struct nl_sock *sk, const char *host, const char *peer,
    int nsfd, int ifindex, char *err, size_t errlen);
int nsi_link_index(struct nl_sock *sk, const char *name, int *ifindex,
    char *err, size_t errlen);
int nsi_link_set_alias(struct nl_sock *sk, int ifindex, const char *alias,
    char *err, size_t errlen);
int nsi_link_up(struct nl_sock *sk, int ifindex, const char *name, char *err,
    size_t errlen);
/* Delete a link by name; 1 if it did not exist. */
int
nsi_link_del(struct nl_sock *sk, const char *name, char *err, size_t errlen);
int nsi_addr_add(struct nl_sock *sk, int ifindex, const char *ifname,
    struct in_addr a, unsigned plen, char *err, size_t errlen);

/* Called per link by nsi_link_walk: name, alias (may be NULL). */
typedef void (*nsi_link_cb)(const char *name, const char *alias, void *arg);
int nsi_link_walk(struct nl_sock *sk, nsi_link_cb cb, void *arg, char *err,
    size_t errlen);
/* Called per IPv4 address (host byte order). */
typedef void (*nsi_addr_cb)(uint32_t addr, void *arg);
int nsi_addr_walk(struct nl_sock *sk, nsi_addr_cb cb, void *arg, char *err,
    size_t errlen);

/* ---- nft.c (libmnl + libnftnl) ---- */
int nsi_nf_open(struct mnl_socket **out, const char *where, char *err,
    size_t errlen);
void nsi_nf_close(struct mnl_socket *nl);
/* Close a socket whose batches deleted something, without waiting.  The
 * kernel frees what a commit deleted only after an RCU grace period, and
 * the release of a netfilter netlink socket waits for that (10-20 ms here)
 * whenever a deletion in its namespace is still pending, holding the
 * namespace's nftables mutex, which device registration needs too.  A
 * short-lived holder process (its only file is the socket, its parent is
 * not the caller) deletes the inet table del_table if it is not NULL
 * (its answer unread: the next sweep removes a table that survives,
 * named after its dead owner), keeps the socket until the grace period is
 * over (HOLD_NS in nft.c), closes it and exits.  The caller does not wait
 * for the deletion, nor for the kernel's patching of its text when that
 * table held the last netfilter hook of its kind.  If the holder cannot
 * be started, this deletes the table and closes as nsi_nf_close(). */
void nsi_nf_close_async(struct mnl_socket *nl, const char *del_table);
/* The job namespace's table (one atomic batch). */
int nsi_nft_job_table(struct mnl_socket *nl, struct in_addr host,
    const uint16_t *ports, size_t nports, char *err, size_t errlen);
/* The host-side table for one job (one atomic batch, NLM_F_EXCL); -2 if
 * a table of that name exists (nothing is made), -1 on other errors. */
int nsi_nft_host_table(struct mnl_socket *nl, const char *table,
    const char *ifname, struct in_addr host, const uint16_t *ports,
    size_t nports, char *err, size_t errlen);
/* Delete an inet table; 1 if it did not exist. */
int nsi_nft_del_table(struct mnl_socket *nl, const char *table, char *err,
    size_t errlen);
/* Called per inet table. */
typedef void (*nsi_table_cb)(const char *name, void *arg);
int nsi_nft_table_walk(struct mnl_socket *nl, nsi_table_cb cb, void *arg,
    char *err, size_t errlen);

#endif /* AXG_NETNS_INT_H */
