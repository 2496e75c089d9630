/*
 * Unit tests of netns/ that need no privileges: the address pool, the
 * names that carry job ids and owner pids, and the configuration checks
 * of ns_job_net_new().
 */
#include "config.h"

#include <arpa/inet.h>
#include <unistd.h>

#include "common/common.h"
#include "netns/netns.h"
#include "netns/netns-int.h"
#include "tests/tap.h"

static const char *
ntoa(struct in_addr a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static void
test_pool(void)
{
	struct nsi_pool p;
	struct in_addr h, j;
	char err[256], b1[INET_ADDRSTRLEN], b2[INET_ADDRSTRLEN];

	is_int(nsi_pool_parse(NULL, &p, err, sizeof(err)), 0,
	    "NULL pool is the default");
	is_int(p.plen, 16, "default prefix /16");
	is_int(p.slots, 16384, "a /16 holds 16384 /30s");
	nsi_pool_addrs(&p, 0, &h, &j);
	is_str(ntoa(h, b1), "10.200.0.1", "slot 0 host address");
	is_str(ntoa(j, b2), "10.200.0.2", "slot 0 job address");
	nsi_pool_addrs(&p, 16383, &h, &j);
	is_str(ntoa(h, b1), "10.200.255.253", "last slot host address");
	is_str(ntoa(j, b2), "10.200.255.254", "last slot job address");
	is_int(nsi_pool_slot_of(&p, ntohl(inet_addr("10.200.1.6"))), 65,
	    "10.200.1.6 is in slot 65");
	is_int(nsi_pool_slot_of(&p, ntohl(inet_addr("10.201.0.1"))), -1,
	    "10.201.0.1 is outside the pool");
	is_int(nsi_pool_slot_of(&p, ntohl(inet_addr("10.199.255.255"))), -1,
	    "10.199.255.255 is outside the pool");

	is_int(nsi_pool_parse("192.168.7.0/30", &p, err, sizeof(err)), 0,
	    "a /30 pool");
	is_int(p.slots, 1, "holds one job");
	is_int(nsi_pool_parse("10.0.0.0/8", &p, err, sizeof(err)), -1,
	    "a /8 is refused");
	like_str(err, "16..30", "... naming the allowed prefix lengths");
	is_int(nsi_pool_parse("10.200.0.1/16", &p, err, sizeof(err)), -1,
	    "host bits set are refused");
	like_str(err, "10.200.0.0/16", "... naming the network");
	is_int(nsi_pool_parse("10.200.0.0", &p, err, sizeof(err)), -1,
	    "no prefix length is refused");
	is_int(nsi_pool_parse("10.200.0.0/", &p, err, sizeof(err)), -1,
	    "an empty prefix length is refused");
	is_int(nsi_pool_parse("fd00::/64", &p, err, sizeof(err)), -1,
	    "IPv6 is refused");
	is_int(nsi_pool_parse("10.200.0.0/16x", &p, err, sizeof(err)), -1,
	    "trailing garbage is refused");
	is_int(nsi_pool_parse("999.0.0.0/16", &p, err, sizeof(err)), -1,
	    "a bad address is refused");
}

static void
test_names(void)
{
	pid_t pid = 0;

	is_int(nsi_parse_host_ifname("axg0h"), 0, "axg0h is job 0");
	is_int(nsi_parse_host_ifname("axg16383h"), 16383, "axg16383h");
	is_int(nsi_parse_host_ifname("axg0j"), -1,
	    "a job end is not a host end");
	is_int(nsi_parse_host_ifname("axgh"), -1, "axgh has no id");
	is_int(nsi_parse_host_ifname("axg01h"), -1, "leading zeros: not ours");
	is_int(nsi_parse_host_ifname("axg65536h"), -1, "id out of range");
	is_int(nsi_parse_host_ifname("axg1xh"), -1, "axg1xh");
	is_int(nsi_parse_host_ifname("eth0"), -1, "eth0");

	is_int(nsi_parse_host_table("axgate_3_1234", &pid), 0,
	    "axgate_3_1234 is ours");
	is_int(pid, 1234, "... owned by pid 1234");
	is_int(nsi_parse_host_table("axgate", &pid), -1,
	    "the job namespace's table name is not a host table");
	is_int(nsi_parse_host_table("axgate_3", &pid), -1, "no pid");
	is_int(nsi_parse_host_table("axgate_3_", &pid), -1, "empty pid");
	is_int(nsi_parse_host_table("axgate_3_12x", &pid), -1, "bad pid");
	is_int(nsi_parse_host_table("axgate__12", &pid), -1, "empty id");
	is_int(nsi_parse_host_table("filter", &pid), -1, "filter");

	is_int(nsi_parse_alias("axgate owner=42"), 42, "alias owner=42");
	is_int(nsi_parse_alias("axgate owner="), -1, "empty owner");
	is_int(nsi_parse_alias("axgate owner=0"), -1, "owner 0");
	is_int(nsi_parse_alias("something else"), -1, "foreign alias");
	is_int(nsi_parse_alias(NULL), -1, "no alias");

	ok(!nsi_pid_dead(getpid()), "our own pid is alive");
	ok(nsi_pid_dead(0x3fffffff), "an unused pid is dead");
}

static void
test_config(void)
{
	static const uint16_t one[] = { 3128 };
	static const uint16_t zero[] = { 3128, 0 };
	static const uint16_t many[NS_MAX_PORTS + 1] = { 1, 2, 3, 4, 5, 6, 7, 8,
		9 };
	struct ns_config c;
	char err[256];

	c = (struct ns_config){ NS_MODE_PROXY, NULL, NULL, 0, false };
	ok(ns_job_net_new(&c, err, sizeof(err)) == NULL,
	    "proxy mode without ports is refused");
	like_str(err, "needs 1..8 ports", "... and says so");
	c = (struct ns_config){ NS_MODE_PROXY, NULL, many, NS_MAX_PORTS + 1,
		false };
	ok(ns_job_net_new(&c, err, sizeof(err)) == NULL,
	    "too many ports are refused");
	c = (struct ns_config){ NS_MODE_PROXY, NULL, zero, 2, false };
	ok(ns_job_net_new(&c, err, sizeof(err)) == NULL, "port 0 is refused");
	like_str(err, "port 2 is 0", "... naming it");
	c = (struct ns_config){ NS_MODE_BLOCK, NULL, one, 1, false };
	ok(ns_job_net_new(&c, err, sizeof(err)) == NULL,
	    "block mode with ports is refused");
	c = (struct ns_config){ (enum ns_mode)7, NULL, one, 1, false };
	ok(ns_job_net_new(&c, err, sizeof(err)) == NULL,
	    "an unknown mode is refused");
	like_str(err, "unknown network mode 7", "... naming it");
	c = (struct ns_config){ NS_MODE_PROXY, "10.0.0.0/8", one, 1, false };
	ok(ns_job_net_new(&c, err, sizeof(err)) == NULL,
	    "a bad pool is refused before anything is created");
	like_str(err, "address pool \"10.0.0.0/8\"", "... naming the pool");
	ns_job_net_free(NULL);
	ok(1, "ns_job_net_free(NULL) is a no-op");
}

int
main(void)
{
	test_pool();
	test_names();
	test_config();
	return tap_done();
}
