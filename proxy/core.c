/*
 * core.c: the proxy object, listeners, per-client limits, connection
 * lifetime, timers, audit records and final answers.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "proxy/proxy-int.h"

static void cli_readcb(struct bufferevent *bev, void *arg);
static void cli_writecb(struct bufferevent *bev, void *arg);
static void cli_eventcb(struct bufferevent *bev, short what, void *arg);
static void timer_cb(evutil_socket_t fd, short what, void *arg);

void
px_config_default(struct px_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	px_http_limits_default(&cfg->http);
	cfg->max_conns = 10000;
	cfg->max_conns_per_client = 1000;
	cfg->head_timeout_ms = 10000;
	cfg->idle_timeout_ms = 300000;
	cfg->lifetime_ms = 0;
	cfg->connect_timeout_ms = 10000;
	cfg->dns_timeout_ms = 5000;
	cfg->max_request_body = 64 * 1024 * 1024;
	cfg->max_response_body = 0;
	cfg->tunnel_high_watermark = 256 * 1024;
	cfg->max_addresses = 16;
	cfg->sni_mode = PX_SNI_REQUIRE;
	cfg->tunnel_splice = true;
	cfg->tls_ports[0] = 443;
	axg_strlcpy(cfg->via, "axgate", sizeof(cfg->via));
	cfg->http_pool_max_idle = 64;
	cfg->http_pool_idle_ms = 15000;
}

uint64_t
px_now_ns(void)
{
	return axg_monotonic_ns();
}

/* ---- per-client counts ---- */

static void
client_key(const struct sockaddr_storage *ss, uint8_t key[16], int *family)
{
	memset(key, 0, 16);
	*family = ss->ss_family;
	if (ss->ss_family == AF_INET)
		memcpy(key,
		    &((const struct sockaddr_in *)(const void *)ss)->sin_addr,
		    4);
	else if (ss->ss_family == AF_INET6)
		memcpy(key,
		    &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr,
		    16);
}

static unsigned
client_hash(const uint8_t key[16])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % PX_CLIENT_BUCKETS;
}

static struct px_client *
client_get(struct px_proxy *px, const struct sockaddr_storage *ss)
{
	uint8_t key[16];
	int family;
	unsigned h;
	struct px_client *cl;

	client_key(ss, key, &family);
	h = client_hash(key);
	for (cl = px->clients[h]; cl != NULL; cl = cl->next)
		if (cl->family == family && memcmp(cl->addr, key, 16) == 0)
			return cl;
	cl = axg_calloc(1, sizeof(*cl));
	memcpy(cl->addr, key, 16);
	cl->family = family;
	cl->next = px->clients[h];
	px->clients[h] = cl;
	return cl;
}

static void
client_put(struct px_proxy *px, struct px_client *cl)
{
	unsigned h;
	struct px_client **pp;

	if (--cl->count > 0)
		return;
	h = client_hash(cl->addr);
	for (pp = &px->clients[h]; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == cl) {
			*pp = cl->next;
			free(cl);
			return;
		}
	}
}

/* ---- audit ---- */

void
px_decision_copy(struct px_conn *c, const struct px_decision *d)
{
	axg_strlcpy(c->rule, d->rule, sizeof(c->rule));
	axg_strlcpy(c->reason, d->reason, sizeof(c->reason));
}

static void
fill_record(struct px_conn *c, struct px_audit_record *r,
    enum px_audit_kind kind, enum px_outcome outcome, int status,
    const char *stage)
{
	const char *method = "", *path = "";

	memset(r, 0, sizeof(*r));
	if (c->fwd != NULL) {
		method = px_fwd_method(c->fwd);
		path = px_fwd_path(c->fwd);
	} else if (c->inf != NULL) {
		method = px_inf_method(c->inf);
		path = px_inf_path(c->inf);
	} else if (c->is_connect) {
		method = "CONNECT";
	}
	r->kind = kind;
	r->outcome = outcome;
	r->status = status;
	r->stage = stage;
	r->rule = c->rule;
	r->reason = c->reason;
	r->host = c->target.host;
	r->port = c->target.port;
	r->method = method;
	r->path = path;
	r->sni = c->sni != NULL ? c->sni : "";
	r->client = (const struct sockaddr *)&c->client_addr;
	r->upstream = c->dialed ? (const struct sockaddr *)&c->up_addr : NULL;
	r->dialed = c->dialed;
	r->bytes_up = c->bytes_up;
	r->bytes_down = c->bytes_down;
	r->start_ms = c->req_start_ms;
	r->duration_us = (px_now_ns() - c->req_start_ns) / 1000;
	r->snap = c->snap;
	r->route = c->inf != NULL ? px_inf_route_name(c->inf) : "";
	r->backend_url = c->inf != NULL ? px_inf_backend_url(c->inf) : "";
}

void
px_conn_audit(struct px_conn *c, enum px_audit_kind kind,
    enum px_outcome outcome, int status, const char *stage)
{
	struct px_proxy *px = c->px;
	struct px_audit_record r;

	if (!c->in_request)
		return;
	c->in_request = false;
	if (outcome == PX_OUTCOME_ALLOWED)
		px->stats.allowed++;
	else if (outcome == PX_OUTCOME_DENIED)
		px->stats.denied++;
	else
		px->stats.errors++;
	if (!px->has_audit)
		return;
	fill_record(c, &r, kind, outcome, status, stage);
	px->audit.record(px->audit.arg, &r);
}

void
px_conn_audit_open(struct px_conn *c)
{
	struct px_proxy *px = c->px;
	struct px_audit_record r;

	if (!px->has_audit || px->audit.opened == NULL)
		return;
	fill_record(c, &r, PX_AUDIT_CONNECT, PX_OUTCOME_ALLOWED, 200, "open");
	px->audit.opened(px->audit.arg, &r);
}

/* ---- final answers ---- */

const char *
px_status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 404:
		return "Not Found";
	case 429:
		return "Too Many Requests";
	case 500:
		return "Internal Server Error";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 408:
		return "Request Timeout";
	case 413:
		return "Content Too Large";
	case 414:
		return "URI Too Long";
	case 415:
		return "Unsupported Media Type";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	case 508:
		return "Loop Detected";
	default:
		return "Error";
	}
}

void
px_send_now(struct bufferevent *bev, struct evbuffer *src)
{
	struct evbuffer *out = bufferevent_get_output(bev);
	evutil_socket_t fd = bufferevent_getfd(bev);

	if (fd >= 0 && evbuffer_get_length(out) == 0)
		while (
		    evbuffer_get_length(src) > 0 && evbuffer_write(src, fd) > 0)
			;
	/* the rest (or an error, which the bufferevent then reports) */
	if (evbuffer_get_length(src) > 0)
		evbuffer_add_buffer(out, src);
}

void
px_bev_enable(struct bufferevent *bev)
{
	/* writing is enabled from the start (a new bufferevent's default)
	 * and stays so on every path that gets here */
	bufferevent_enable(bev,
	    (bufferevent_get_enabled(bev) & EV_WRITE) ? EV_READ
						      : EV_READ | EV_WRITE);
}

/* Read from fd into in up to room bytes; false once the socket is empty,
 * at its end, or failing (which the bufferevent's next read reports). */
static bool
read_into(struct evbuffer *in, evutil_socket_t fd, size_t room)
{
	struct evbuffer_iovec v[2];
	struct iovec iov[2];
	int nv = evbuffer_reserve_space(in, (ev_ssize_t)room, v, 2);
	size_t want = 0, left;
	ssize_t n;

	if (nv <= 0)
		return false;
	/* the space reserved may be larger than asked for */
	for (int i = 0; i < nv; i++) {
		iov[i].iov_base = v[i].iov_base;
		iov[i].iov_len =
		    v[i].iov_len < room - want ? v[i].iov_len : room - want;
		want += iov[i].iov_len;
	}
	do
		n = readv(fd, iov, nv);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		evbuffer_commit_space(in, v, 0);
		return false;
	}
	left = (size_t)n;
	for (int i = 0; i < nv; i++) {
		v[i].iov_len = iov[i].iov_len < left ? iov[i].iov_len : left;
		left -= v[i].iov_len;
	}
	evbuffer_commit_space(in, v, nv);
	return (size_t)n == want;
}

void
px_read_more(struct bufferevent *bev)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	evutil_socket_t fd = bufferevent_getfd(bev);
	size_t have = evbuffer_get_length(in), lo = 0, hi = 0, room;

	if (fd < 0 || have < PX_READ_MORE_AFTER ||
	    !(bufferevent_get_enabled(bev) & EV_READ))
		return;
	bufferevent_getwatermark(bev, EV_READ, &lo, &hi);
	room = PX_READ_MORE_MAX;
	if (hi != 0)
		room = hi > have ? hi - have : 0;
	if (room > PX_READ_MORE_MAX)
		room = PX_READ_MORE_MAX;
	if (room == 0)
		return;
	/* the bufferevent keeps its input's end frozen outside its own
	 * reads */
	evbuffer_unfreeze(in, 0);
	while (room > 0) {
		size_t before = evbuffer_get_length(in);
		bool more = read_into(in, fd,
		    room < PX_READ_MORE_STEP ? room : PX_READ_MORE_STEP);
		size_t got = evbuffer_get_length(in) - before;

		room -= got < room ? got : room;
		if (!more)
			break;
	}
	evbuffer_freeze(in, 0);
}

void
px_conn_arm(struct px_conn *c, unsigned ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	evtimer_add(c->timer, &tv);
}

void
px_conn_reply_close(struct px_conn *c, int status, const char *error,
    const char *reason, const char *rule)
{
	struct evbuffer *body = evbuffer_new();
	struct evbuffer *msg = c->px->scratch;

	if (c->up != NULL) {
		bufferevent_free(c->up);
		c->up = NULL;
	}
	if (c->dnsreq != NULL) {
		struct evdns_getaddrinfo_request *r = c->dnsreq;

		c->dnsreq = NULL;
		evdns_getaddrinfo_cancel(r);
	}
	/* Nothing after the head is interpreted: drop what is buffered
	 * (reading stops below unless the answer is written at once). */
	evbuffer_drain(bufferevent_get_input(c->cli),
	    evbuffer_get_length(bufferevent_get_input(c->cli)));
	evbuffer_add_printf(body, "{\"error\":");
	px_json_string(body, error);
	evbuffer_add_printf(body, ",\"reason\":");
	px_json_string(body, reason != NULL ? reason : "");
	if (rule != NULL) {
		evbuffer_add_printf(body, ",\"rule\":");
		px_json_string(body, rule);
	}
	evbuffer_add_printf(body, "}\n");
	/* the whole answer in one write when the socket takes it */
	evbuffer_drain(msg, evbuffer_get_length(msg));
	evbuffer_add_printf(msg,
	    "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	    status, px_status_text(status), evbuffer_get_length(body));
	evbuffer_add_buffer(msg, body);
	evbuffer_free(body);
	px_send_now(c->cli, msg);
	px_conn_close_after_write(c);
}

void
px_conn_reply_raw(struct px_conn *c, int status, const char *extra,
    const char *ctype, const char *body, size_t len)
{
	struct evbuffer *out;

	if (c->up != NULL) {
		bufferevent_free(c->up);
		c->up = NULL;
	}
	bufferevent_disable(c->cli, EV_READ);
	evbuffer_drain(bufferevent_get_input(c->cli),
	    evbuffer_get_length(bufferevent_get_input(c->cli)));
	out = bufferevent_get_output(c->cli);
	evbuffer_add_printf(out,
	    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\n%sConnection: close\r\n\r\n",
	    status, px_status_text(status), ctype, len,
	    extra != NULL ? extra : "");
	evbuffer_add(out, body, len);
	px_conn_close_after_write(c);
}

void
px_conn_close_after_write(struct px_conn *c)
{
	c->state = PX_ST_CLOSING;
	bufferevent_setcb(c->cli, cli_readcb, cli_writecb, cli_eventcb, c);
	bufferevent_setwatermark(c->cli, EV_WRITE, 0, 0);
	px_conn_arm(c, PX_LINGER_MS);
	if (evbuffer_get_length(bufferevent_get_output(c->cli)) == 0) {
		/* written: on to the lingering close, which reads (and
		 * discards) anyway, so reading is left as it is: turning it
		 * off and on again would cost an epoll_ctl */
		cli_writecb(c->cli, c);
		return;
	}
	bufferevent_disable(c->cli, EV_READ);
	bufferevent_enable(c->cli, EV_WRITE);
}

void
px_conn_refuse(struct px_conn *c, enum px_outcome outcome, int status,
    const char *stage, const char *reason)
{
	const char *error;

	if (reason != NULL && reason != c->reason)
		axg_strlcpy(c->reason, reason, sizeof(c->reason));
	px_conn_audit(c,
	    c->is_connect			   ? PX_AUDIT_CONNECT
		: c->fwd != NULL || c->inf != NULL ? PX_AUDIT_HTTP
						   : PX_AUDIT_REJECT,
	    outcome, status, stage);
	switch (status) {
	case 403:
		error = "policy_denied";
		break;
	case 408:
		error = "head_timeout";
		break;
	case 413:
		error = "body_too_large";
		break;
	case 414:
	case 431:
		error = "head_too_large";
		break;
	case 415:
		error = "unsupported_encoding";
		break;
	case 502:
		error = "upstream_failed";
		break;
	case 503:
		error = "limit_reached";
		break;
	case 504:
		error = "upstream_timeout";
		break;
	default:
		error = "bad_request";
		break;
	}
	px_conn_reply_close(c, status, error, c->reason,
	    status == 403 ? c->rule : NULL);
}

/* Close both sides with a TCP reset. */
void
px_conn_reset(struct px_conn *c)
{
	struct linger lg = { 1, 0 };
	evutil_socket_t fd;

	if (c->cli != NULL && (fd = bufferevent_getfd(c->cli)) >= 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (c->up != NULL && (fd = bufferevent_getfd(c->up)) >= 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	px_conn_free(c);
}

void
px_conn_free(struct px_conn *c)
{
	struct px_proxy *px = c->px;

	if (c->in_request)
		px_conn_audit(c,
		    c->is_connect			   ? PX_AUDIT_CONNECT
			: c->fwd != NULL || c->inf != NULL ? PX_AUDIT_HTTP
							   : PX_AUDIT_REJECT,
		    PX_OUTCOME_ERROR, 0, "closed");
	if (c->dnsreq != NULL) {
		struct evdns_getaddrinfo_request *r = c->dnsreq;

		c->dnsreq = NULL;
		evdns_getaddrinfo_cancel(r);
	}
	px_tunnel_free(c); /* before the sockets close */
	if (c->up != NULL)
		bufferevent_free(c->up);
	if (c->cli != NULL)
		bufferevent_free(c->cli);
	if (c->timer != NULL)
		event_free(c->timer);
	if (c->fwd != NULL)
		px_fwd_free(c->fwd);
	if (c->inf != NULL)
		px_inf_free(c->inf);
	free(c->addrs);
	free(c->sni);
	if (px->dec.release != NULL)
		px->dec.release(px->dec.arg, c->snap);
	client_put(px, c->client);
	TAILQ_REMOVE(&px->conns, c, link);
	px->stats.active--;
	free(c);
}

/* ---- reading heads ---- */

void
px_conn_start_head(struct px_conn *c)
{
	c->state = PX_ST_HEAD;
	c->head_start_ns = px_now_ns();
	bufferevent_setcb(c->cli, cli_readcb, cli_writecb, cli_eventcb, c);
	/* read no more than a head's worth before it is judged */
	bufferevent_setwatermark(c->cli, EV_READ, 0, c->px->cfg.http.max_head);
	px_bev_enable(c->cli);
	px_conn_arm(c, c->px->cfg.head_timeout_ms);
	if (evbuffer_get_length(bufferevent_get_input(c->cli)) > 0)
		px_conn_on_head(c);
}

static void
drain_input(struct px_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->cli);
	size_t n = evbuffer_get_length(in);

	c->drained += n;
	evbuffer_drain(in, n);
	if (c->drained > PX_LINGER_BYTES)
		px_conn_free(c);
}

static void
cli_readcb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	c->last_activity_ns = px_now_ns();
	switch (c->state) {
	case PX_ST_HEAD:
		px_conn_on_head(c);
		break;
	case PX_ST_SNI:
	case PX_ST_TUNNEL:
		px_tunnel_readcb(bev, c);
		break;
	case PX_ST_FORWARD:
		px_read_more(bev);
		px_fwd_client_read(c);
		break;
	case PX_ST_DRAINING:
		drain_input(c);
		break;
	default:
		/* resolving, dialing, closing: leave it buffered (bounded by
		 * the read watermark) */
		break;
	}
}

static void
cli_writecb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	switch (c->state) {
	case PX_ST_CLOSING:
		if (evbuffer_get_length(bufferevent_get_output(bev)) > 0)
			return;
		shutdown(bufferevent_getfd(bev), SHUT_WR);
		c->state = PX_ST_DRAINING;
		bufferevent_setwatermark(bev, EV_READ, 0, 0);
		bufferevent_enable(bev, EV_READ);
		drain_input(c);
		break;
	case PX_ST_SNI:
	case PX_ST_TUNNEL:
		px_tunnel_writecb(bev, c);
		break;
	case PX_ST_FORWARD:
	case PX_ST_HEAD:
		px_fwd_client_writecb(c);
		break;
	default:
		break;
	}
}

static void
cli_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;

	switch (c->state) {
	case PX_ST_SNI:
	case PX_ST_TUNNEL:
		px_tunnel_eventcb(bev, what, c);
		break;
	case PX_ST_FORWARD:
		px_fwd_client_event(c, what);
		break;
	case PX_ST_RESOLVING:
	case PX_ST_DIALING:
		/* An end of stream waits: the client may have half-closed
		 * after its request.  Reading stopped with it and starts
		 * again once the upstream is connected, which reports it
		 * again to the tunnel or the forwarder. */
		if ((what & BEV_EVENT_ERROR) ||
		    ((what & BEV_EVENT_EOF) && !(what & BEV_EVENT_READING))) {
			axg_strlcpy(c->reason, "client went away",
			    sizeof(c->reason));
			px_conn_audit(c,
			    c->is_connect ? PX_AUDIT_CONNECT : PX_AUDIT_HTTP,
			    PX_OUTCOME_ERROR, 0, "client");
			px_conn_free(c);
		}
		break;
	default:
		if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
			px_conn_free(c);
		break;
	}
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct px_conn *c = arg;

	(void)fd;
	(void)what;
	px_conn_timer_fired(c);
}

/* ---- accepting ---- */

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct px_proxy *px = arg;
	struct px_conn *c;
	struct px_client *cl;
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa,
	    (size_t)salen < sizeof(ss) ? (size_t)salen : sizeof(ss));
	px->stats.accepted++;
	cl = client_get(px, &ss);
	cl->count++;
	c = axg_calloc(1, sizeof(*c));
	c->px = px;
	c->client = cl;
	c->client_addr = ss;
	for (int i = 0; i < px->nlisteners; i++)
		if (px->listeners[i] == l)
			c->inf_port = px->listen_inference[i];
	c->snap = px->dec.acquire != NULL ? px->dec.acquire(px->dec.arg)
					  : px->dec.arg;
	c->conn_start_ns = c->last_activity_ns = px_now_ns();
	TAILQ_INSERT_TAIL(&px->conns, c, link);
	px->stats.active++;
	c->timer = evtimer_new(px->base, timer_cb, c);
	/* TCP_NODELAY comes from the listener (add_listener) */
	c->cli = bufferevent_socket_new(px->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->timer == NULL || c->cli == NULL) {
		if (c->cli == NULL)
			evutil_closesocket(fd);
		px_conn_free(c);
		return;
	}
	if (px->stats.active > px->cfg.max_conns ||
	    cl->count > px->cfg.max_conns_per_client) {
		px->stats.refused_limit++;
		c->in_request = true;
		c->req_start_ns = c->conn_start_ns;
		c->req_start_ms = axg_now_ms();
		bufferevent_setcb(c->cli, cli_readcb, cli_writecb, cli_eventcb,
		    c);
		px_conn_refuse(c, PX_OUTCOME_ERROR, 503, "limit",
		    px->stats.active > px->cfg.max_conns
			? "too many connections"
			: "too many connections from this client");
		return;
	}
	/* The listener hands over a connection only once the client has
	 * sent something (TCP_DEFER_ACCEPT, add_listener): its head is
	 * most likely here.  Read it now, one readv, instead of waiting for
	 * epoll to say so and for the bufferevent's FIONREAD before its
	 * read.  The end of stream or an error is left for the
	 * bufferevent's own read to report. */
	{
		struct evbuffer *in = bufferevent_get_input(c->cli);

		evbuffer_unfreeze(in, 0);
		read_into(in, fd, px->cfg.http.max_head);
		evbuffer_freeze(in, 0);
	}
	px_conn_start_head(c);
}

static void
accept_error_cb(struct evconnlistener *l, void *arg)
{
	(void)l;
	(void)arg;
	axg_warn("proxy: accept: %s", strerror(errno));
}

/* ---- the proxy object ---- */

/* libevent's own messages (evdns among them) go through our log. */
static void
event_log(int severity, const char *msg)
{
	if (severity >= EVENT_LOG_WARN)
		axg_warn("libevent: %s", msg);
	else
		axg_debug("libevent: %s", msg);
}

struct px_proxy *
px_proxy_new(struct event_base *base, const struct px_config *cfg,
    const struct px_decider *decider, const struct px_audit_hook *audit,
    const struct px_scan_hook *scan, char *err, size_t errlen)
{
	struct px_proxy *px;

	if (cfg->http.max_headers == 0 || cfg->http.max_head == 0 ||
	    cfg->http.max_headers > 10000) {
		axg_seterr(err, errlen, "proxy: invalid header limits");
		return NULL;
	}
	if (cfg->idle_timeout_ms == 0 || cfg->head_timeout_ms == 0 ||
	    cfg->dns_timeout_ms == 0 || cfg->connect_timeout_ms == 0 ||
	    cfg->tunnel_high_watermark < 1024 || cfg->max_addresses == 0) {
		axg_seterr(err, errlen,
		    "proxy: timeouts, the watermark and max_addresses must be "
		    "set");
		return NULL;
	}
	event_set_log_callback(event_log);
	px = axg_calloc(1, sizeof(*px));
	px->base = base;
	px->cfg = *cfg;
	px->dec = *decider;
	if (audit != NULL && audit->record != NULL) {
		px->audit = *audit;
		px->has_audit = true;
	}
	if (scan != NULL) {
		px->scan = *scan;
		px->has_scan = true;
	}
	TAILQ_INIT(&px->conns);
	px->hdrs = axg_calloc(cfg->http.max_headers, sizeof(*px->hdrs));
	px->scratch = evbuffer_new();
	if (px->scratch == NULL) {
		axg_seterr(err, errlen, "proxy: out of memory");
		goto fail;
	}
	px->dns = evdns_base_new(base, 0);
	if (px->dns == NULL) {
		axg_seterr(err, errlen, "proxy: cannot create a DNS resolver");
		goto fail;
	}
	if (cfg->resolver[0] != '\0') {
		if (evdns_base_nameserver_ip_add(px->dns, cfg->resolver) != 0) {
			axg_seterr(err, errlen,
			    "proxy: bad resolver address %s", cfg->resolver);
			goto fail;
		}
	} else if (evdns_base_resolv_conf_parse(px->dns,
		       DNS_OPTION_NAMESERVERS | DNS_OPTION_MISC,
		       "/etc/resolv.conf") != 0) {
		axg_warn("proxy: could not read /etc/resolv.conf");
	}
	{
		char tmo[32];
		unsigned t = cfg->dns_timeout_ms / 2;

		if (t < 100)
			t = 100;
		snprintf(tmo, sizeof(tmo), "%u.%03u", t / 1000, t % 1000);
		evdns_base_set_option(px->dns, "timeout:", tmo);
		evdns_base_set_option(px->dns, "attempts:", "2");
		evdns_base_set_option(px->dns, "randomize-case:", "0");
	}
	return px;
fail:
	px_proxy_free(px);
	return NULL;
}

static int
add_listener(struct px_proxy *px, evutil_socket_t fd, char *err, size_t errlen)
{
	struct evconnlistener *l;

	if (px->nlisteners >= PX_MAX_LISTENERS)
		return axg_seterr(err, errlen, "proxy: too many listeners");
	evutil_make_socket_nonblocking(fd);
	{
		int one = 1;

		/* small heads and answers must not wait for Nagle: accepted
		 * sockets inherit this from the listener (one system call
		 * less per connection) */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		/* and accept a connection only once its client has sent
		 * (a client always speaks first here): the head is read at
		 * once (accept_cb), and a client that connects and stays
		 * silent is kept by the kernel for about a second before it
		 * counts against the limits and its head timeout starts */
		setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one,
		    sizeof(one));
	}
	l = evconnlistener_new(px->base, accept_cb, px,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, -1, fd);
	if (l == NULL)
		return axg_seterr(err, errlen, "proxy: cannot listen");
	evconnlistener_set_error_cb(l, accept_error_cb);
	{
		socklen_t len = sizeof(px->listen_addrs[0]);

		memset(&px->listen_addrs[px->nlisteners], 0, len);
		getsockname(fd,
		    (struct sockaddr *)&px->listen_addrs[px->nlisteners], &len);
	}
	px->listeners[px->nlisteners++] = l;
	return 0;
}

static bool
addr_port(const struct sockaddr *sa, const void **addr, size_t *alen,
    uint16_t *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		*addr = &s4->sin_addr;
		*alen = 4;
		*port = ntohs(s4->sin_port);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		*addr = &s6->sin6_addr;
		*alen = 16;
		*port = ntohs(s6->sin6_port);
		return true;
	}
	return false;
}

bool
px_is_self(const struct px_proxy *px, const struct sockaddr *sa)
{
	const void *a, *la;
	size_t al, lal;
	uint16_t port, lport;
	static const uint8_t zero[16];

	if (!addr_port(sa, &a, &al, &port))
		return false;
	for (int i = 0; i < px->nlisteners; i++) {
		const struct sockaddr *l =
		    (const struct sockaddr *)&px->listen_addrs[i];

		if (!addr_port(l, &la, &lal, &lport) || lport != port)
			continue;
		if (lal == al && memcmp(la, a, al) == 0)
			return true;
		/* a wildcard listener answers on every local address; the
		 * loopback ones at least are certainly ours */
		if (memcmp(la, zero, lal) == 0 &&
		    (px_addr_classify(sa) == PX_ADDR_LOOPBACK ||
			px_addr_classify(sa) == PX_ADDR_UNSPECIFIED))
			return true;
	}
	return false;
}

int
px_proxy_listen(struct px_proxy *px, struct sockaddr_storage *addr, char *err,
    size_t errlen)
{
	evutil_socket_t fd;
	socklen_t len = addr->ss_family == AF_INET6
	    ? sizeof(struct sockaddr_in6)
	    : sizeof(struct sockaddr_in);
	int one = 1;

	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return axg_seterr(err, errlen, "proxy: socket: %s",
		    strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)addr, len) != 0 ||
	    listen(fd, 1024) != 0 ||
	    getsockname(fd, (struct sockaddr *)addr, &len) != 0) {
		axg_seterr(err, errlen, "proxy: bind/listen: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (add_listener(px, fd, err, errlen) != 0) {
		close(fd);
		return -1;
	}
	return 0;
}

int
px_proxy_listen_fd(struct px_proxy *px, int fd, char *err, size_t errlen)
{
	return add_listener(px, fd, err, errlen);
}

int
px_proxy_listen_inference_fd(struct px_proxy *px, int fd, char *err,
    size_t errlen)
{
	if (add_listener(px, fd, err, errlen) != 0)
		return -1;
	px->listen_inference[px->nlisteners - 1] = true;
	return 0;
}

void
px_proxy_free(struct px_proxy *px)
{
	if (px == NULL)
		return;
	px_proxy_stop_accepting(px);
	while (!TAILQ_EMPTY(&px->conns))
		px_conn_free(TAILQ_FIRST(&px->conns));
	if (px->dns != NULL)
		evdns_base_free(px->dns, 0);
	for (int i = 0; i < PX_CLIENT_BUCKETS; i++) {
		while (px->clients[i] != NULL) {
			struct px_client *n = px->clients[i]->next;

			free(px->clients[i]);
			px->clients[i] = n;
		}
	}
	px_inf_proxy_free(px);
	px_upool_free(px->http_pool);
	if (px->scratch != NULL)
		evbuffer_free(px->scratch);
	px_tunnel_pool_free(px);
	free(px->hdrs);
	free(px);
}

void
px_proxy_stop_accepting(struct px_proxy *px)
{
	/* listen_addrs stay: px_is_self() still knows our own addresses */
	for (int i = 0; i < px->nlisteners; i++) {
		if (px->listeners[i] != NULL)
			evconnlistener_free(px->listeners[i]);
		px->listeners[i] = NULL;
	}
}

void
px_proxy_stats(const struct px_proxy *px, struct px_stats *out)
{
	*out = px->stats;
}
