/*
 * sweep.c: remove what launchers that were killed left on the host.
 *
 * A killed launcher's namespace goes away with its last process, and its
 * veth pair with it; what stays is the host-side table, and the veth pair
 * too while a process of the job survives.  Both carry the owner's pid
 * (table name, link alias); only those whose owner is gone are removed.
 * A link without an alias is left alone: it is either being set up right
 * now, or its namespace had no process yet and dies with its owner.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "netns/netns-int.h"

#define MAX_STALE 1024

struct stale {
	char names[MAX_STALE][IFNAMSIZ > 64 ? IFNAMSIZ : 64];
	unsigned n;
};

static void
stale_link(const char *name, const char *alias, void *arg)
{
	struct stale *s = arg;
	pid_t pid;

	if (nsi_parse_host_ifname(name) < 0)
		return;
	pid = nsi_parse_alias(alias);
	if (pid <= 0 || !nsi_pid_dead(pid) || s->n >= MAX_STALE)
		return;
	axg_strlcpy(s->names[s->n++], name, sizeof(s->names[0]));
}

static void
stale_table(const char *name, void *arg)
{
	struct stale *s = arg;
	pid_t pid;

	if (nsi_parse_host_table(name, &pid) != 0 || !nsi_pid_dead(pid) ||
	    s->n >= MAX_STALE || strlen(name) >= sizeof(s->names[0]))
		return;
	axg_strlcpy(s->names[s->n++], name, sizeof(s->names[0]));
}

int
nsi_sweep(struct nl_sock *rt, struct mnl_socket *nf, int *tables, char *err,
    size_t errlen)
{
	struct stale *s = axg_calloc(1, sizeof(*s));
	int removed = 0, rc = -1, r;
	unsigned i;

	*tables = 0;
	if (nsi_link_walk(rt, stale_link, s, err, errlen) != 0)
		goto out;
	for (i = 0; i < s->n; i++) {
		r = nsi_link_del(rt, s->names[i], err, errlen);
		if (r < 0)
			goto out;
		if (r == 0) {
			axg_info("sweep: removed link %s", s->names[i]);
			removed++;
		}
	}
	s->n = 0;
	if (nsi_nft_table_walk(nf, stale_table, s, err, errlen) != 0)
		goto out;
	for (i = 0; i < s->n; i++) {
		r = nsi_nft_del_table(nf, s->names[i], err, errlen);
		if (r < 0)
			goto out;
		if (r == 0) {
			axg_info("sweep: removed table inet %s", s->names[i]);
			removed++;
			(*tables)++;
		}
	}
	rc = removed;
out:
	free(s);
	return rc;
}

int
ns_sweep(char *err, size_t errlen)
{
	struct nl_sock *rt = NULL;
	struct mnl_socket *nf = NULL;
	int rc = -1, tables = 0;

	if (nsi_rt_open(&rt, "host", err, errlen) == 0 &&
	    nsi_nf_open(&nf, "host", err, errlen) == 0)
		rc = nsi_sweep(rt, nf, &tables, err, errlen);
	if (tables > 0)
		nsi_nf_close_async(nf, NULL);
	else
		nsi_nf_close(nf);
	nsi_rt_close(rt);
	return rc;
}
