/*
 * server-int.h: inside server/: the admin listener of `axgate serve`.
 */
#ifndef AXG_SERVER_INT_H
#define AXG_SERVER_INT_H

#include "common/common.h"
#include "safety/safety.h"
#include "server/server.h"

struct event_base;

/* What the admin listener asks of the daemon.  Every callback runs on the
 * admin listener's event loop. */
struct srv_admin_ops {
	void *arg;
	bool (*ready)(void *arg);
	/* Append the Prometheus text exposition. */
	void (*metrics)(void *arg, struct axg_buf *out);
	/* Reload the policy; 0, or -1 with the reason in err. */
	int (*reload)(void *arg, const char *trigger, char *err, size_t errlen);
	/* The current gate (a new reference). */
	struct gate *(*gate)(void *arg);
};

#define SRV_ADMIN_MAX_CONNS 32
#define SRV_ADMIN_MAX_HEAD  8192
#define SRV_ADMIN_MAX_BODY  (1024 * 1024)
#define SRV_ADMIN_TIMEOUT_S 10

struct srv_admin;

/* Serve the admin API on fd (bound and listening; closed on free). */
struct srv_admin *srv_admin_new(struct event_base *base, int fd,
    const struct srv_admin_ops *ops, char *err, size_t errlen);
void srv_admin_free(struct srv_admin *a);

/* The Data API, apart from the transport: answer a request for
 * /v1/data/<path> (path without the prefix, percent-decoded) with body
 * (NULL for GET).  Fills *status and the JSON answer in out. */
void srv_data_api(struct gate *g, const char *path, const char *body,
    size_t body_len, int *status, struct axg_buf *out);

/* Requests counted by rule and by where they stopped (counts.c): an
 * audit hook that counts each record and passes it on to next. */
#define SRV_COUNT_SLOTS 128

struct srv_counts;

/* out receives the hook to give the proxy; next is copied. */
struct srv_counts *
srv_counts_new(const struct px_audit_hook *next, struct px_audit_hook *out);
void srv_counts_free(struct srv_counts *c);
/* Append the Prometheus lines. */
void srv_counts_metrics(struct srv_counts *c, struct axg_buf *out);

/* ---- what inference.c needs of a connection's snapshot
 * (gatekeeper.c) ---- */
struct gate *srv_snap_gate(void *snap); /* borrowed */
struct srv_gatekeeper *srv_snap_keeper(void *snap);
const char *srv_snap_conn_uid(void *snap);
const char *srv_gatekeeper_job(struct srv_gatekeeper *k); /* NULL: none */
/* Decide r (r->entry) with the snapshot's gate, counted like the
 * proxy's own decisions. */
int srv_snap_decide(void *snap, const struct gate_request *r,
    struct px_decision *out);
/* The scanner of a srv_scan, the policy's mode, and a finding to audit
 * (scan.c). */
struct leak_scan *srv_scan_scanner(struct srv_scan *s);
enum leak_mode srv_scan_mode(struct srv_scan *s);
void srv_scan_report(struct srv_scan *s, const struct leak_report *r);

#endif /* AXG_SERVER_INT_H */
