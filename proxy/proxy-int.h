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
/* Spliced tunnels: empty pipes kept per proxy (worker), and the largest
 * pipe asked for (the default pipe-max-size). */
#define PX_PIPE_POOL 32
#define PX_PIPE_MAX  (1024 * 1024)

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

/* One pipe of a spliced tunnel (tunnel.c). */
struct px_pipe {
	int rd, wr;
	size_t cap; /* bytes */
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
	struct px_upool *http_pool;   /* forward.c: kept plain upstreams */
	struct evbuffer *scratch;     /* an answer being built (px_send_now) */
	struct px_pipe pipe_pool[PX_PIPE_POOL]; /* tunnel.c */
	unsigned npipes_pooled;
	bool pipe_resize_failed;
};

struct px_fwd;	  /* forward.c */
struct px_inf;	  /* inference.c */
struct px_tunnel; /* tunnel.c */

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
	bool dial_ready; /* connected at once: connected() runs next */
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
	bool no_pool; /* dial a new upstream even if one is kept */
	struct px_fwd *fwd;
	bool inf_port; /* accepted on an inference listener */
	struct px_inf *inf;
	struct px_tunnel *tun; /* spliced relay (tunnel.c), or NULL */
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

/* conn.c: head dispatch, resolution, dialing, timers */
void px_conn_on_head(struct px_conn *c);
void px_conn_resolve_and_dial(struct px_conn *c);
void px_conn_timer_fired(struct px_conn *c);
/* Dial the judged addresses again, from the first, never a kept
 * upstream (a kept one turned out closed before it answered). */
void px_conn_redial(struct px_conn *c);

/* tunnel.c: the SNI check and the relay (buffered, then spliced) */
/* Write the tunnel's one audit record and free the connection. */
void
px_tunnel_finish(struct px_conn *c, enum px_outcome outcome, const char *stage);
/* Free the spliced relay's events and pipes (the sockets stay). */
void px_tunnel_free(struct px_conn *c);
/* A tunnel just opened: splice at once when nothing is buffered. */
void px_tunnel_begin(struct px_conn *c);
/* Close the pooled pipes. */
void px_tunnel_pool_free(struct px_proxy *px);
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
/* The idle timeout of a forwarded request: 408 while its body is still
 * coming, 504 while its answer has not started, else the end. */
void px_fwd_idle(struct px_conn *c);
void px_fwd_upstream_readcb(struct bufferevent *bev, void *arg);
void px_fwd_upstream_writecb(struct bufferevent *bev, void *arg);
void px_fwd_upstream_eventcb(struct bufferevent *bev, short what, void *arg);
void px_fwd_client_writecb(struct px_conn *c);
void px_fwd_client_event(struct px_conn *c, short what);
/* May the request in flight go on a kept upstream connection to the
 * judged address ss?  Then key (size PX_UPOOL_KEY_MAX) names its pool. */
#define PX_UPOOL_KEY_MAX (PX_HOST_MAX + 80)
bool px_fwd_pool_key(const struct px_conn *c, const struct sockaddr_storage *ss,
    char *key, size_t keylen);
/* The request in flight goes on the kept connection c->up. */
void px_fwd_mark_reused(struct px_conn *c);

/* Is sa (with port) one of the proxy's own listeners? */
bool px_is_self(const struct px_proxy *px, const struct sockaddr *sa);

/* Answer status with the given body (and extra header lines, each ending
 * in CRLF, or NULL) and close (lingering). */
void px_conn_reply_raw(struct px_conn *c, int status, const char *extra,
    const char *ctype, const char *body, size_t len);
/* Send what src holds on bev's socket at once when nothing is queued
 * before it (one writev, no writable-event round trip through epoll);
 * what the socket does not take is queued on bev.  src is left empty. */
void px_send_now(struct bufferevent *bev, struct evbuffer *src);
/* libevent 2.1 reads a socket at most 4 KiB at a time (after asking
 * FIONREAD), one turn of the event loop each.  Called by a read callback:
 * when at least PX_READ_MORE_AFTER bytes wait in bev's input, read on
 * from its (plain) socket up to the read high watermark, at most
 * PX_READ_MORE_MAX, in reads of PX_READ_MORE_STEP, until the socket is
 * empty.  End of stream and errors
 * are left for the bufferevent's next read to report.  Never on a TLS
 * bufferevent. */
#define PX_READ_MORE_AFTER 4096
#define PX_READ_MORE_MAX   (256 * 1024)
#define PX_READ_MORE_STEP  (64 * 1024) /* per read: malloc reuses chains */
void px_read_more(struct bufferevent *bev);
/* Enable reading on bev, and writing unless it is enabled already
 * (enabling it again would ask epoll for a writable event with nothing
 * to write). */
void px_bev_enable(struct bufferevent *bev);

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

/* upool.c: idle upstream connections per key (see there).  max_keys
 * bounds the keys, max_idle the idle connections of all keys; slot_free
 * (or NULL) frees what a key's slot holds. */
struct px_upool;
struct px_upool *px_upool_new(struct event_base *base, unsigned max_keys,
    unsigned max_idle, void (*slot_free)(void *));
void px_upool_free(struct px_upool *pl);
/* The caller's slot of key (NULL when absent and !create, or when the
 * pool holds max_keys keys). */
void **px_upool_slot(struct px_upool *pl, const char *key, bool create);
/* An idle connection to key (its callbacks cleared), or NULL; *addr and
 * *has_addr receive what was put with it.  pl may be NULL. */
struct bufferevent *px_upool_take(struct px_upool *pl, const char *key,
    struct sockaddr_storage *addr, bool *has_addr);
/* Keep bev, idle with its last response read whole and nothing pending,
 * for ms: at most max for key (the oldest goes).  Takes bev in every
 * case: freed when it cannot be kept (false). */
bool px_upool_put(struct px_upool *pl, const char *key, struct bufferevent *bev,
    const struct sockaddr_storage *addr, bool has_addr, unsigned max,
    unsigned ms);
unsigned px_upool_idle(const struct px_upool *pl);

/* json.c */
void px_json_string(struct evbuffer *out, const char *s);

#endif /* AXG_PROXY_INT_H */
