/*
 * pool.c: the IPv4 pool jobs take their /30 from, and the names (links,
 * tables, aliases) that carry a job id and an owner pid.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "common/common.h"
#include "netns/netns-int.h"

int
nsi_pool_parse(const char *cidr, struct nsi_pool *pool, char *err,
    size_t errlen)
{
	char addr[INET_ADDRSTRLEN];
	const char *slash;
	struct in_addr in;
	uint64_t plen;
	uint32_t base, mask;
	size_t n;

	if (cidr == NULL)
		cidr = NS_DEFAULT_POOL;
	slash = strchr(cidr, '/');
	if (slash == NULL || (n = (size_t)(slash - cidr)) >= sizeof(addr))
		return axg_seterr(err, errlen,
		    "address pool \"%s\": want an IPv4 CIDR such as %s", cidr,
		    NS_DEFAULT_POOL);
	memcpy(addr, cidr, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET, addr, &in) != 1)
		return axg_seterr(err, errlen,
		    "address pool \"%s\": \"%s\" is not an IPv4 address", cidr,
		    addr);
	if (axg_parse_u64(slash + 1, 16, 30, &plen) != 0)
		return axg_seterr(err, errlen,
		    "address pool \"%s\": prefix length must be 16..30", cidr);
	base = ntohl(in.s_addr);
	mask = ~(uint32_t)0 << (32 - plen);
	if ((base & ~mask) != 0)
		return axg_seterr(err, errlen,
		    "address pool \"%s\": host bits set (the network is "
		    "%u.%u.%u.%u/%u)",
		    cidr, (base & mask) >> 24, ((base & mask) >> 16) & 0xff,
		    ((base & mask) >> 8) & 0xff, (base & mask) & 0xff,
		    (unsigned)plen);
	pool->base = base;
	pool->plen = (unsigned)plen;
	pool->slots = (uint32_t)1 << (30 - plen);
	if (pool->slots > NSI_MAX_SLOTS)
		pool->slots = NSI_MAX_SLOTS;
	return 0;
}

void
nsi_pool_addrs(const struct nsi_pool *pool, uint32_t id, struct in_addr *host,
    struct in_addr *job)
{
	uint32_t net = pool->base + id * 4;

	host->s_addr = htonl(net + 1);
	job->s_addr = htonl(net + 2);
}

long
nsi_pool_slot_of(const struct nsi_pool *pool, uint32_t a)
{
	uint32_t off;

	if (a < pool->base)
		return -1;
	off = (a - pool->base) / 4;
	if (off >= pool->slots)
		return -1;
	return (long)off;
}

/* Parse a decimal id of 1..5 digits without leading zeros. */
static long
parse_id(const char *s, size_t n)
{
	uint64_t v;

	if (n == 0 || n > 5 || (n > 1 && s[0] == '0'))
		return -1;
	if (axg_parse_u64n(s, n, 0, NSI_MAX_SLOTS - 1, &v) != 0)
		return -1;
	return (long)v;
}

long
nsi_parse_host_ifname(const char *name)
{
	size_t pl = strlen(NSI_LINK_PREFIX), n = strlen(name);

	if (n < pl + 2 || strncmp(name, NSI_LINK_PREFIX, pl) != 0 ||
	    name[n - 1] != NSI_HOST_SUFFIX)
		return -1;
	return parse_id(name + pl, n - pl - 1);
}

int
nsi_parse_host_table(const char *name, pid_t *pid)
{
	size_t pl = strlen(NSI_HOST_TABLE);
	const char *id, *us;
	uint64_t v;

	if (strncmp(name, NSI_HOST_TABLE, pl) != 0)
		return -1;
	id = name + pl;
	us = strchr(id, '_');
	if (us == NULL || parse_id(id, (size_t)(us - id)) < 0)
		return -1;
	if (axg_parse_u64(us + 1, 1, INT32_MAX, &v) != 0)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

pid_t
nsi_parse_alias(const char *alias)
{
	uint64_t v;

	if (alias == NULL || !axg_startswith(alias, NSI_ALIAS_PREFIX))
		return -1;
	if (axg_parse_u64(alias + strlen(NSI_ALIAS_PREFIX), 1, INT32_MAX, &v) !=
	    0)
		return -1;
	return (pid_t)v;
}

bool
nsi_pid_dead(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}
