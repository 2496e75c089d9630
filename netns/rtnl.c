/*
 * rtnl.c: links and addresses through libnl-route-3.
 *
 * Every call is one netlink request answered by the kernel before it
 * returns; each failure names the request, the object and libnl's reading
 * of the kernel's error.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/cache.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>

#include "common/common.h"
#include "netns/netns-int.h"

int
nsi_rt_open(struct nl_sock **out, const char *where, char *err, size_t errlen)
{
	struct nl_sock *sk;
	int e;

	*out = NULL;
	sk = nl_socket_alloc();
	if (sk == NULL)
		return axg_seterr(err, errlen,
		    "rtnetlink socket (%s): out of memory", where);
	e = nl_connect(sk, NETLINK_ROUTE);
	if (e < 0) {
		nl_socket_free(sk);
		return axg_seterr(err, errlen,
		    "rtnetlink socket (%s): nl_connect: %s", where,
		    nl_geterror(e));
	}
	*out = sk;
	return 0;
}

void
nsi_rt_close(struct nl_sock *sk)
{
	if (sk != NULL)
		nl_socket_free(sk); /* closes the socket too */
}

int
nsi_veth_add(struct nl_sock *sk, const char *host, const char *peer, int nsfd,
    int ifindex, char *err, size_t errlen)
{
	struct rtnl_link *link, *p;
	int e, rc = -1;

	link = rtnl_link_veth_alloc();
	if (link == NULL)
		return axg_seterr(err, errlen, "veth pair %s/%s: out of memory",
		    host, peer);
	p = rtnl_link_veth_get_peer(link);
	rtnl_link_set_name(link, host);
	rtnl_link_set_flags(link, IFF_UP);
	/* Chosen indexes spare two RTM_GETLINKs (each of which would also
	 * wait for the link watcher); one queue each spares the RCU grace
	 * period veth pays to drop from one queue per CPU to one. */
	rtnl_link_set_ifindex(link, ifindex);
	rtnl_link_set_num_tx_queues(link, 1);
	rtnl_link_set_num_rx_queues(link, 1);
	rtnl_link_set_ifindex(p, ifindex);
	rtnl_link_set_num_tx_queues(p, 1);
	rtnl_link_set_num_rx_queues(p, 1);
	rtnl_link_set_name(p, peer);
	/* Not the peer: veth_open() fails with ENOTCONN while the kernel is
	 * still configuring the peer, before the pair is linked. */
	rtnl_link_set_ns_fd(p, nsfd);
	e = rtnl_link_add(sk, link, NLM_F_CREATE | NLM_F_EXCL);
	if (e == -NLE_EXIST || e == -NLE_BUSY) {
		rc = 1; /* the name or the index is taken */
	} else if (e == -NLE_OPNOTSUPP) {
		axg_seterr(err, errlen,
		    "RTM_NEWLINK veth pair %s/%s: %s (the kernel has no veth "
		    "driver: load it with `modprobe veth` or enable "
		    "CONFIG_VETH)",
		    host, peer, nl_geterror(e));
	} else if (e < 0) {
		axg_seterr(err, errlen, "RTM_NEWLINK veth pair %s/%s: %s", host,
		    peer, nl_geterror(e));
	} else {
		rc = 0;
	}
	rtnl_link_put(p);
	rtnl_link_veth_release(link);
	return rc;
}

int
nsi_link_index(struct nl_sock *sk, const char *name, int *ifindex, char *err,
    size_t errlen)
{
	struct rtnl_link *link = NULL;
	int e;

	e = rtnl_link_get_kernel(sk, 0, name, &link);
	if (e < 0)
		return axg_seterr(err, errlen, "RTM_GETLINK %s: %s", name,
		    nl_geterror(e));
	*ifindex = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return 0;
}

/* Apply changes to the link with index ifindex. */
static int
link_change(struct nl_sock *sk, int ifindex, struct rtnl_link *chg)
{
	struct rtnl_link *orig;
	int e;

	orig = rtnl_link_alloc();
	if (orig == NULL)
		return -NLE_NOMEM;
	rtnl_link_set_ifindex(orig, ifindex);
	e = rtnl_link_change(sk, orig, chg, 0);
	rtnl_link_put(orig);
	return e;
}

int
nsi_link_set_alias(struct nl_sock *sk, int ifindex, const char *alias,
    char *err, size_t errlen)
{
	struct rtnl_link *chg;
	int e;

	chg = rtnl_link_alloc();
	if (chg == NULL)
		return axg_seterr(err, errlen, "link %d: out of memory",
		    ifindex);
	rtnl_link_set_ifalias(chg, alias);
	e = link_change(sk, ifindex, chg);
	rtnl_link_put(chg);
	if (e < 0)
		return axg_seterr(err, errlen,
		    "RTM_NEWLINK (alias \"%s\") on link %d: %s", alias, ifindex,
		    nl_geterror(e));
	return 0;
}

int
nsi_link_up(struct nl_sock *sk, int ifindex, const char *name, char *err,
    size_t errlen)
{
	struct rtnl_link *chg;
	int e;

	chg = rtnl_link_alloc();
	if (chg == NULL)
		return axg_seterr(err, errlen, "link %s: out of memory", name);
	rtnl_link_set_flags(chg, IFF_UP);
	e = link_change(sk, ifindex, chg);
	rtnl_link_put(chg);
	if (e < 0)
		return axg_seterr(err, errlen, "RTM_NEWLINK (up) on %s: %s",
		    name, nl_geterror(e));
	return 0;
}

int
nsi_link_del(struct nl_sock *sk, const char *name, char *err, size_t errlen)
{
	struct rtnl_link *link;
	int e;

	link = rtnl_link_alloc();
	if (link == NULL)
		return axg_seterr(err, errlen, "link %s: out of memory", name);
	rtnl_link_set_name(link, name);
	e = rtnl_link_delete(sk, link);
	rtnl_link_put(link);
	if (e == -NLE_NODEV || e == -NLE_OBJ_NOTFOUND)
		return 1;
	if (e < 0)
		return axg_seterr(err, errlen, "RTM_DELLINK %s: %s", name,
		    nl_geterror(e));
	return 0;
}

int
nsi_addr_add(struct nl_sock *sk, int ifindex, const char *ifname,
    struct in_addr a, unsigned plen, char *err, size_t errlen)
{
	char buf[INET_ADDRSTRLEN];
	struct rtnl_addr *ra;
	struct nl_addr *local;
	int e;

	inet_ntop(AF_INET, &a, buf, sizeof(buf));
	ra = rtnl_addr_alloc();
	local = nl_addr_build(AF_INET, &a, sizeof(a));
	if (ra == NULL || local == NULL) {
		e = -NLE_NOMEM;
		goto out;
	}
	nl_addr_set_prefixlen(local, (int)plen);
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, AF_INET);
	e = rtnl_addr_set_local(ra, local);
	if (e == 0)
		e = rtnl_addr_add(sk, ra, NLM_F_EXCL);
out:
	if (local != NULL)
		nl_addr_put(local);
	if (ra != NULL)
		rtnl_addr_put(ra);
	if (e < 0)
		return axg_seterr(err, errlen, "RTM_NEWADDR %s/%u on %s: %s",
		    buf, plen, ifname, nl_geterror(e));
	return 0;
}

int
nsi_link_walk(struct nl_sock *sk, nsi_link_cb cb, void *arg, char *err,
    size_t errlen)
{
	struct nl_cache *cache = NULL;
	struct nl_object *o;
	int e;

	e = rtnl_link_alloc_cache(sk, AF_UNSPEC, &cache);
	if (e < 0)
		return axg_seterr(err, errlen, "RTM_GETLINK dump: %s",
		    nl_geterror(e));
	for (o = nl_cache_get_first(cache); o != NULL;
	     o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		const char *name = rtnl_link_get_name(l);

		if (name != NULL)
			cb(name, rtnl_link_get_ifalias(l), arg);
	}
	nl_cache_free(cache);
	return 0;
}

int
nsi_addr_walk(struct nl_sock *sk, nsi_addr_cb cb, void *arg, char *err,
    size_t errlen)
{
	struct nl_cache *cache = NULL;
	struct nl_object *o;
	int e;

	e = rtnl_addr_alloc_cache(sk, &cache);
	if (e < 0)
		return axg_seterr(err, errlen, "RTM_GETADDR dump: %s",
		    nl_geterror(e));
	for (o = nl_cache_get_first(cache); o != NULL;
	     o = nl_cache_get_next(o)) {
		struct rtnl_addr *ra = (struct rtnl_addr *)o;
		struct nl_addr *l = rtnl_addr_get_local(ra);
		uint32_t v;

		if (rtnl_addr_get_family(ra) != AF_INET || l == NULL ||
		    nl_addr_get_family(l) != AF_INET)
			continue;
		memcpy(&v, nl_addr_get_binary_addr(l), sizeof(v));
		cb(ntohl(v), arg);
	}
	nl_cache_free(cache);
	return 0;
}
