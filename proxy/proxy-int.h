/*
 * proxy-int.h: what the files of proxy/ share (not part of the API).
 */
#ifndef AXG_PROXY_INT_H
#define AXG_PROXY_INT_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/queue.h>

#include <event2/bufferevent.h>
#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "common/common.h"
#include "proxy/proxy.h"

#define PX_MAX_LISTENERS  8
#define PX_CLIENT_BUCKETS 1024
/* After a refusal, discard what the client still sends for at most this
 * long and this much, so the kernel does not reset the connection before
 * the client has read the answer.  The bytes are never interpreted. */
#define PX_LINGER_MS	1000
#define PX_LINGER_BYTES (256 * 1024)

enum px_state {
	PX_ST_HEAD = 0,	 /* reading a request head */
	PX_ST_RESOLVING, /* waiting for DNS */
	PX_ST_DIALING,	 /* connecting upstream */
	PX_ST_SNI,	 /* 200 sent, reading the ClientHello */
	PX_ST_TUNNEL,	 /* relaying both ways */
	PX_ST_FORWARD,	 /* plain HTTP request in flight */
	PX_ST_CLOSING,	 /* writing a final answer */
	PX_ST_DRAINING,	 /* answer written, discarding input */
	PX_ST_INFERENCE, /* an inference.local request (inference.c) */
};

struct px_client {
	struct px_client *next;
	uint8_t addr[16];
	int family;
	unsigned count;
};

struct px_proxy {
	struct event_base *base;
	struct evdns_base *dns;
	struct px_config cfg;
	struct px_decider dec;
	struct px_audit_hook audit;
	struct px_scan_hook scan;
	bool has_audit, has_scan;
	struct evconnlistener *listeners[PX_MAX_LISTENERS];
	struct sockaddr_storage listen_addrs[PX_MAX_LISTENERS];
	int nlisteners;
	TAILQ_HEAD(, px_conn) conns;
	struct px_client *clients[PX_CLIENT_BUCKETS];
	struct px_stats stats;
	struct px_header *hdrs; /* scratch, cfg.http.max_headers */
	bool listen_inference[PX_MAX_LISTENERS];
	struct px_inference_hook inf;
	bool has_inf;
	void *ssl_ctx;		      /* SSL_CTX for https backends */
	struct px_inf_pool *inf_pool; /* inference.c: per-backend pools */
};

struct px_fwd; /* forward.c */
struct px_inf; /* inference.c */

struct px_conn {
	TAILQ_ENTRY(px_conn) link;
	struct px_proxy *px;
	void *snap; /* the decider's snapshot for this connection */
	struct bufferevent *cli;
	struct bufferevent *up;
	struct event *timer;
	enum px_state state;
	struct px_client *client;
	struct sockaddr_storage client_addr;
	struct sockaddr_storage up_addr;
	/* the request being handled */
	bool in_request; /* a head was read and no record written yet */
	bool is_connect;
	bool dialed;
	struct px_hostport target;
	struct evdns_getaddrinfo_request *dnsreq;
	bool resolving;
	struct sockaddr_storage *addrs; /* judged and allowed */
	unsigned naddrs, next_addr;
	char rule[64];
	char reason[160];
	char *sni;
	uint64_t req_start_ns, req_start_ms;
	uint64_t conn_start_ns;
	uint64_t head_start_ns;
	uint64_t last_activity_ns;
	uint64_t bytes_up, bytes_down;
	size_t drained;
	bool cli_eof, up_eof;
	bool shut_up_pending, shut_cli_pending;
	struct px_fwd *fwd;
	bool inf_port; /* accepted on an inference listener */
	struct px_inf *inf;
};

/* core.c */
void px_conn_free(struct px_conn *c);
void px_conn_audit_open(struct px_conn *c);
void px_conn_audit(struct px_conn *c, enum px_audit_kind kind,
    enum px_outcome outcome, int status, const char *stage);
/* Answer status with a JSON body and close (lingering).  For 403 the body
 * names the decision's rule and reason. */
void px_conn_reply_close(struct px_conn *c, int status, const char *error,
    const char *reason, const char *rule);

/* Scan a request's authority for a credential spelled as a host name:
 * true (rule, reason set, the target redacted for the audit) when the
 * scanner blocks it; the caller refuses with 403. */
bool px_conn_host_leaks(struct px_conn *c, const char *authority, size_t len);

/* Refuse a request: audit it (if one is in flight) and answer. */
void px_conn_refuse(struct px_conn *c, enum px_outcome outcome, int status,
    const char *stage, const char *reason);
void px_conn_reset(struct px_conn *c);
void px_conn_arm(struct px_conn *c, unsigned ms);
void px_conn_start_head(struct px_conn *c);
uint64_t px_now_ns(void);
void px_decision_copy(struct px_conn *c, const struct px_decision *d);

/* conn.c: head dispatch, resolution, dialing, tunnels */
void px_conn_on_head(struct px_conn *c);
void px_conn_resolve_and_dial(struct px_conn *c);
void px_conn_timer_fired(struct px_conn *c);
void px_tunnel_readcb(struct bufferevent *bev, void *arg);
void px_tunnel_writecb(struct bufferevent *bev, void *arg);
void px_tunnel_eventcb(struct bufferevent *bev, short what, void *arg);

/* forward.c: plain HTTP */
int px_fwd_begin(struct px_conn *c, const struct px_request *req);
void px_fwd_connected(struct px_conn *c);
void px_fwd_client_read(struct px_conn *c);
void px_fwd_free(struct px_fwd *f);
const char *px_fwd_method(const struct px_fwd *f);
/* The path for the audit record: a scan hook's audit_path, else the
 * forwarded path. */
const char *px_fwd_path(const struct px_fwd *f);
void px_fwd_upstream_readcb(struct bufferevent *bev, void *arg);
void px_fwd_upstream_writecb(struct bufferevent *bev, void *arg);
void px_fwd_upstream_eventcb(struct bufferevent *bev, short what, void *arg);
void px_fwd_client_writecb(struct px_conn *c);
void px_fwd_client_event(struct px_conn *c, short what);

/* Is sa (with port) one of the proxy's own listeners? */
bool px_is_self(const struct px_proxy *px, const struct sockaddr *sa);

/* Answer status with the given body (and extra header lines, each ending
 * in CRLF, or NULL) and close (lingering). */
void px_conn_reply_raw(struct px_conn *c, int status, const char *extra,
    const char *ctype, const char *body, size_t len);
/* Close once the output is written (lingering like a refusal). */
void px_conn_close_after_write(struct px_conn *c);
const char *px_status_text(int status);

/* inference.c */
/* Is this request for inference.local (or, on an inference listener,
 * anything at all: then it is refused there)? */
bool px_inf_wants(struct px_conn *c, const struct px_request *req);
/* Take the request over (the head is still in the client's input). */
void px_inf_begin(struct px_conn *c, const struct px_request *req);
void px_inf_timer(struct px_conn *c);
void px_inf_free(struct px_inf *f);
const char *px_inf_method(const struct px_inf *f);
const char *px_inf_path(const struct px_inf *f);
const char *px_inf_route_name(const struct px_inf *f);
const char *px_inf_backend_url(const struct px_inf *f);
void px_inf_proxy_free(struct px_proxy *px);

/* json.c */
void px_json_string(struct evbuffer *out, const char *s);

#endif /* AXG_PROXY_INT_H */
