/*
 * conn.c: a client connection from its request head to its upstream:
 * parsing, the CONNECT decision, resolution (evdns, bounded), judging
 * every resolved address, dialing exactly a judged address, and handing a
 * CONNECT over to its tunnel (tunnel.c).
 *
 * Decisions made here:
 *  - A name whose answer mixes allowed and denied addresses is refused as
 *    a whole (a rebinding set-up looks exactly like that).
 *  - The addresses judged are the only ones ever dialed, in answer order;
 *    a failed dial tries the next judged address, never a new lookup.
 *  - On a TLS port with sni_mode REQUIRE, a tunnel whose first bytes are
 *    not a ClientHello naming the CONNECT host is reset; MATCH_IF_SET
 *    allows a ClientHello without SNI.  Both reset on non-TLS bytes.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "proxy/proxy-int.h"

static void up_eventcb(struct bufferevent *bev, short what, void *arg);
static void dial_next(struct px_conn *c);
static void connected(struct px_conn *c);

/* ---- the head ---- */

static void
begin_request(struct px_conn *c)
{
	c->in_request = true;
	c->req_start_ns = px_now_ns();
	c->req_start_ms = axg_now_ms();
	c->dialed = false;
	c->is_connect = false;
	free(c->sni);
	c->sni = NULL;
	c->bytes_up = c->bytes_down = 0;
	c->rule[0] = c->reason[0] = '\0';
	c->no_pool = false;
	memset(&c->target, 0, sizeof(c->target));
	free(c->addrs);
	c->addrs = NULL;
	c->naddrs = c->next_addr = 0;
}

static int
decide(struct px_conn *c, int rc, const struct px_decision *d,
    const char *stage)
{
	if (rc != 0) {
		axg_strlcpy(c->rule, "", sizeof(c->rule));
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, stage,
		    "policy evaluation failed");
		return -1;
	}
	px_decision_copy(c, d);
	if (!d->allow) {
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, stage, NULL);
		return -1;
	}
	return 0;
}

bool
px_conn_host_leaks(struct px_conn *c, const char *authority, size_t len)
{
	struct px_proxy *px = c->px;
	char why[160];

	if (!px->has_scan || px->scan.on_connect == NULL ||
	    px->scan.on_connect(px->scan.arg, authority, len, why,
		sizeof(why)) != PX_SCAN_BLOCK)
		return false;
	axg_strlcpy(c->rule, "scan", sizeof(c->rule));
	axg_strlcpy(c->reason, why, sizeof(c->reason));
	px_host_redact(&c->target); /* not into the audit */
	return true;
}

static void
on_connect_head(struct px_conn *c, const struct px_request *req)
{
	struct px_proxy *px = c->px;
	struct px_decision d;
	char err[160];
	int rc;

	c->is_connect = true;
	if (px_host_parse_authority(req->authority, req->authority_len, 0,
		&c->target, err, sizeof(err)) != 0) {
		px_conn_refuse(c, PX_OUTCOME_ERROR, 400, "parse", err);
		return;
	}
	if (px_conn_host_leaks(c, req->authority, req->authority_len)) {
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, "scan", c->reason);
		return;
	}
	memset(&d, 0, sizeof(d));
	rc = px->dec.decide_connect == NULL
	    ? (axg_strlcpy(d.reason, "no connect policy", sizeof(d.reason)), 0)
	    : px->dec.decide_connect(c->snap, &c->target,
		  (const struct sockaddr *)&c->client_addr, &d);
	if (decide(c, rc, &d, "connect") != 0)
		return;
	px_conn_resolve_and_dial(c);
}

void
px_conn_on_head(struct px_conn *c)
{
	struct px_proxy *px = c->px;
	struct evbuffer *in = bufferevent_get_input(c->cli);
	size_t len = evbuffer_get_length(in);
	struct px_request req;
	char err[160];
	int status = 0, rc;
	const char *p;

	if (len == 0)
		return;
	if (len > px->cfg.http.max_head)
		len = px->cfg.http.max_head;
	p = (const char *)evbuffer_pullup(in, (ev_ssize_t)len);
	rc = px_http1_parse_request(p, len, &px->cfg.http, &req, px->hdrs,
	    &status, err, sizeof(err));
	if (rc == 0)
		return;
	evtimer_del(c->timer);
	begin_request(c);
	if (rc < 0) {
		/* a malformed CONNECT is still audited as a CONNECT */
		c->is_connect = len >= 8 && memcmp(p, "CONNECT ", 8) == 0;
		px_conn_refuse(c, PX_OUTCOME_ERROR, status, "parse", err);
		return;
	}
	if (px_inf_wants(c, &req)) {
		px_inf_begin(c, &req);
		return;
	}
	if (req.is_connect) {
		on_connect_head(c, &req);
		if (c->state != PX_ST_CLOSING)
			evbuffer_drain(in, req.head_len);
		return;
	}
	if (px_fwd_begin(c, &req) != 0)
		return; /* answered and closing */
	evbuffer_drain(in, req.head_len);
	if (c->state != PX_ST_CLOSING && c->state != PX_ST_DRAINING)
		px_conn_resolve_and_dial(c);
}

/* ---- resolution and address judging ---- */

static int
judge_address(struct px_conn *c, const struct sockaddr *sa, socklen_t salen,
    struct px_decision *first_deny, bool *denied)
{
	struct px_proxy *px = c->px;
	struct px_decision d;
	int rc;

	memset(&d, 0, sizeof(d));
	{
		struct sockaddr_storage tmp;

		/* never dial the proxy itself (a loop), whatever the policy */
		memset(&tmp, 0, sizeof(tmp));
		memcpy(&tmp, sa, salen);
		if (sa->sa_family == AF_INET)
			((struct sockaddr_in *)&tmp)->sin_port =
			    htons(c->target.port);
		else
			((struct sockaddr_in6 *)&tmp)->sin6_port =
			    htons(c->target.port);
		if (px_is_self(px, (struct sockaddr *)&tmp)) {
			d.allow = false;
			axg_strlcpy(d.rule, "self", sizeof(d.rule));
			axg_strlcpy(d.reason, "the proxy's own listener",
			    sizeof(d.reason));
			if (!*denied)
				*first_deny = d;
			*denied = true;
			return 0;
		}
	}
	if (px->dec.decide_address == NULL) {
		axg_strlcpy(d.reason, "no address policy", sizeof(d.reason));
		rc = 0;
	} else {
		rc = px->dec.decide_address(c->snap, &c->target, sa, &d);
	}
	if (rc != 0) {
		d.allow = false;
		axg_strlcpy(d.reason, "policy evaluation failed",
		    sizeof(d.reason));
	}
	if (!d.allow) {
		if (!*denied)
			*first_deny = d;
		*denied = true;
		return 0;
	}
	if (!*denied && c->naddrs == 0)
		*first_deny = d; /* the allowing rule, for the record */
	c->addrs = axg_reallocarray(c->addrs, c->naddrs + 1, sizeof(*c->addrs));
	memset(&c->addrs[c->naddrs], 0, sizeof(c->addrs[0]));
	memcpy(&c->addrs[c->naddrs], sa, salen);
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)&c->addrs[c->naddrs])->sin_port =
		    htons(c->target.port);
	else
		((struct sockaddr_in6 *)&c->addrs[c->naddrs])->sin6_port =
		    htons(c->target.port);
	c->naddrs++;
	return 0;
}

static void
judged(struct px_conn *c, const struct px_decision *d, bool denied)
{
	if (denied || c->naddrs == 0) {
		px_decision_copy(c, d);
		if (c->reason[0] == '\0')
			axg_strlcpy(c->reason, "no address allowed",
			    sizeof(c->reason));
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, "address", NULL);
		return;
	}
	/* keep the connect (or http) decision's rule and reason */
	c->next_addr = 0;
	dial_next(c);
}

/* Same family and address (ports ignored)? */
static bool
same_addr(const struct sockaddr_storage *a, const struct sockaddr *b)
{
	if (a->ss_family != b->sa_family)
		return false;
	if (b->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)(const void *)a)
				   ->sin_addr,
			   &((const struct sockaddr_in *)(const void *)b)
				->sin_addr,
			   4) == 0;
	return memcmp(&((const struct sockaddr_in6 *)(const void *)a)
			   ->sin6_addr,
		   &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr,
		   16) == 0;
}

static void
dns_cb(int result, struct evutil_addrinfo *res, void *arg)
{
	struct px_conn *c = arg;
	struct px_decision first;
	bool denied = false;
	unsigned n = 0;

	if (result == EVUTIL_EAI_CANCEL) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	c->resolving = false;
	c->dnsreq = NULL;
	if (c->state != PX_ST_RESOLVING) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	evtimer_del(c->timer);
	if (result != 0 || res == NULL) {
		c->px->stats.dns_failures++;
		px_conn_refuse(c, PX_OUTCOME_ERROR,
		    result == EVUTIL_EAI_AGAIN ? 504 : 502, "dns",
		    evutil_gai_strerror(result));
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	memset(&first, 0, sizeof(first));
	for (struct evutil_addrinfo *ai = res;
	     ai != NULL && n < c->px->cfg.max_addresses; ai = ai->ai_next) {
		bool dup = false;

		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		for (unsigned k = 0; k < c->naddrs && !dup; k++)
			dup = same_addr(&c->addrs[k], ai->ai_addr);
		if (dup)
			continue;
		judge_address(c, ai->ai_addr, (socklen_t)ai->ai_addrlen, &first,
		    &denied);
		n++;
	}
	evutil_freeaddrinfo(res);
	judged(c, &first, denied);
}

void
px_conn_resolve_and_dial(struct px_conn *c)
{
	struct px_decision first;
	bool denied = false;
	struct evutil_addrinfo hints;
	struct evdns_getaddrinfo_request *r;

	memset(&first, 0, sizeof(first));
	/* The client stays readable meanwhile: its read watermark is still
	 * the head's bound (px_conn_start_head), what arrives stays unread
	 * in its input until the upstream is connected (or is dropped with
	 * a refusal), and its end of stream is noticed then (cli_eventcb).
	 * So its socket keeps its epoll registration from the head to the
	 * upstream's answer (a kept upstream) or the spliced relay. */
	if (c->target.kind == PX_HOST_IPV4) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };

		s4.sin_addr = c->target.v4;
		judge_address(c, (struct sockaddr *)&s4, sizeof(s4), &first,
		    &denied);
		judged(c, &first, denied);
		return;
	}
	if (c->target.kind == PX_HOST_IPV6) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

		s6.sin6_addr = c->target.v6;
		judge_address(c, (struct sockaddr *)&s6, sizeof(s6), &first,
		    &denied);
		judged(c, &first, denied);
		return;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	c->state = PX_ST_RESOLVING;
	c->resolving = true;
	px_conn_arm(c, c->px->cfg.dns_timeout_ms);
	r = evdns_getaddrinfo(c->px->dns, c->target.host, NULL, &hints, dns_cb,
	    c);
	if (c->resolving)
		c->dnsreq = r;
}

/* ---- dialing ---- */

/* A plain request goes on a kept upstream connection to one of its
 * judged addresses, in their order, when there is one. */
static bool
take_kept(struct px_conn *c)
{
	char key[PX_UPOOL_KEY_MAX];
	struct sockaddr_storage addr;
	bool has_addr;

	if (c->is_connect || c->no_pool || c->px->http_pool == NULL ||
	    c->next_addr != 0)
		return false;
	for (unsigned k = 0; k < c->naddrs; k++) {
		if (!px_fwd_pool_key(c, &c->addrs[k], key, sizeof(key)))
			return false;
		c->up = px_upool_take(c->px->http_pool, key, &addr, &has_addr);
		if (c->up == NULL)
			continue;
		c->up_addr = c->addrs[k];
		c->next_addr = c->naddrs; /* a failure redials from the first */
		px_fwd_mark_reused(c);
		connected(c);
		return true;
	}
	return false;
}

void
px_conn_redial(struct px_conn *c)
{
	c->no_pool = true;
	c->dialed = false;
	c->next_addr = 0;
	dial_next(c);
}

static void
dial_next(struct px_conn *c)
{
	struct px_proxy *px = c->px;

	if (take_kept(c))
		return;
	if (c->up != NULL) {
		bufferevent_free(c->up);
		c->up = NULL;
	}
	while (c->next_addr < c->naddrs) {
		struct sockaddr_storage *ss = &c->addrs[c->next_addr++];
		socklen_t len = ss->ss_family == AF_INET6
		    ? sizeof(struct sockaddr_in6)
		    : sizeof(struct sockaddr_in);
		int fd, one = 1;
		bool now;

		fd = socket(ss->ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
		if (fd < 0)
			continue;
		px->stats.dials++;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)ss, len) == 0) {
			now = true;
		} else if (errno == EINPROGRESS) {
			struct sockaddr_storage peer;
			socklen_t pl = sizeof(peer);

			/* A peer on this host has usually answered before
			 * connect() returned: then there is no writable
			 * event to wait for. */
			now =
			    getpeername(fd, (struct sockaddr *)&peer, &pl) == 0;
		} else {
			close(fd);
			continue;
		}
		c->up =
		    bufferevent_socket_new(px->base, fd, BEV_OPT_CLOSE_ON_FREE);
		if (c->up == NULL) {
			close(fd);
			break;
		}
		c->state = PX_ST_DIALING;
		c->up_addr = *ss;
		bufferevent_setcb(c->up, NULL, NULL, up_eventcb, c);
		if (now) {
			/* in a moment, once the caller (the head's parser, say)
			 * has returned: the timer, made active now */
			c->dial_ready = true;
			event_active(c->timer, EV_TIMEOUT, 1);
			return;
		}
		px_conn_arm(c, px->cfg.connect_timeout_ms);
		/* the socket is connecting: libevent waits for it */
		if (bufferevent_socket_connect(c->up, NULL, 0) == 0)
			return;
		bufferevent_free(c->up);
		c->up = NULL;
	}
	px_conn_refuse(c, PX_OUTCOME_ERROR, 502, "dial",
	    "could not connect to any allowed address");
}

static bool
is_tls_port(const struct px_config *cfg, uint16_t port)
{
	for (int i = 0; i < PX_MAX_TLS_PORTS && cfg->tls_ports[i] != 0; i++)
		if (cfg->tls_ports[i] == port)
			return true;
	return false;
}

static void
connected(struct px_conn *c)
{
	struct px_proxy *px = c->px;

	c->dialed = true;
	evtimer_del(c->timer);
	if (!c->is_connect) {
		px_fwd_connected(c);
		return;
	}
	{
		static const char ok[] =
		    "HTTP/1.1 200 Connection established\r\n\r\n";
		struct evbuffer *msg = px->scratch;

		/* written now: no writable-event round trip */
		evbuffer_drain(msg, evbuffer_get_length(msg));
		evbuffer_add(msg, ok, sizeof(ok) - 1);
		px_send_now(c->cli, msg);
	}
	px_conn_audit_open(c);
	c->state = is_tls_port(&px->cfg, c->target.port) &&
		px->cfg.sni_mode != PX_SNI_OFF
	    ? PX_ST_SNI
	    : PX_ST_TUNNEL;
	bufferevent_setcb(c->up, px_tunnel_readcb, px_tunnel_writecb,
	    px_tunnel_eventcb, c);
	bufferevent_setwatermark(c->cli, EV_READ, 0, 0);
	/* writing is enabled on both already: enabling it again would ask
	 * epoll for writable events with nothing to write */
	px_bev_enable(c->up);
	px_bev_enable(c->cli);
	c->last_activity_ns = px_now_ns();
	px_conn_arm(c, px->cfg.idle_timeout_ms);
	/* bytes that arrived right behind the head */
	if (evbuffer_get_length(bufferevent_get_input(c->cli)) > 0)
		px_tunnel_readcb(c->cli, c);
	else
		px_tunnel_begin(c);
}

static void
up_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		connected(c);
		return;
	}
	if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF))
		dial_next(c);
}

/* ---- timers ---- */

void
px_conn_timer_fired(struct px_conn *c)
{
	struct px_proxy *px = c->px;
	uint64_t now = px_now_ns(), idle_ns, left;

	switch (c->state) {
	case PX_ST_HEAD:
		if (evbuffer_get_length(bufferevent_get_input(c->cli)) == 0) {
			px_conn_free(c); /* idle keep-alive connection */
			return;
		}
		c->in_request = true;
		c->req_start_ns = c->head_start_ns;
		c->req_start_ms = axg_now_ms();
		px_conn_refuse(c, PX_OUTCOME_ERROR, 408, "parse",
		    "request head not received in time");
		return;
	case PX_ST_RESOLVING:
		px->stats.dns_failures++;
		px_conn_refuse(c, PX_OUTCOME_ERROR, 504, "dns",
		    "name resolution timed out");
		return;
	case PX_ST_DIALING:
		if (c->dial_ready) {
			c->dial_ready = false;
			connected(c);
			return;
		}
		dial_next(c);
		return;
	case PX_ST_INFERENCE:
		px_inf_timer(c);
		return;
	case PX_ST_SNI:
	case PX_ST_TUNNEL:
	case PX_ST_FORWARD:
		if (px->cfg.lifetime_ms != 0 &&
		    now - c->conn_start_ns >=
			(uint64_t)px->cfg.lifetime_ms * 1000000) {
			axg_strlcpy(c->reason, "lifetime reached",
			    sizeof(c->reason));
			if (c->state == PX_ST_TUNNEL || c->state == PX_ST_SNI)
				px_tunnel_finish(c, PX_OUTCOME_ALLOWED,
				    "lifetime");
			else
				px_conn_free(c);
			return;
		}
		idle_ns = (uint64_t)px->cfg.idle_timeout_ms * 1000000;
		if (now - c->last_activity_ns >= idle_ns) {
			axg_strlcpy(c->reason, "idle timeout",
			    sizeof(c->reason));
			if (c->state == PX_ST_TUNNEL || c->state == PX_ST_SNI)
				px_tunnel_finish(c, PX_OUTCOME_ALLOWED, "idle");
			else
				px_fwd_idle(c);
			return;
		}
		left = idle_ns - (now - c->last_activity_ns);
		if (px->cfg.lifetime_ms != 0) {
			uint64_t life =
			    (uint64_t)px->cfg.lifetime_ms * 1000000 -
			    (now - c->conn_start_ns);

			if (life < left)
				left = life;
		}
		px_conn_arm(c, (unsigned)(left / 1000000) + 1);
		return;
	case PX_ST_CLOSING:
	case PX_ST_DRAINING:
	default:
		px_conn_free(c);
		return;
	}
}
