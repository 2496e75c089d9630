/*
 * forward.c: plain HTTP through the proxy (absolute-form requests).
 *
 * Each request on a client connection is checked and decided on its own
 * (the policy, the address judged) before anything goes upstream.  An
 * upstream connection whose last response was read whole with exact
 * framing (Content-Length, chunked or none; HTTP/1.1, no "Connection:
 * close") is kept per (host, port, judged address) in the worker's pool
 * (upool.c) and a later bodiless request decided for that same address
 * may go on it; any other ending (close-delimited, HTTP/1.0, an error, an
 * aborted or partly sent request) closes it.  A kept connection found
 * closed before its answer started is replaced by a new dial, once; with
 * the pool off every request dials its own and says "Connection: close".
 * The request is
 * rewritten to origin-form; hop-by-hop fields (and those named in
 * Connection) are removed, Host is rewritten from the canonical target,
 * Via is added.  Upgrade is not supported on this path: the field is
 * removed, so the upstream answers a plain request.  Bodies are streamed
 * with their framing checked and bounded, through the scan hook.
 */
#include "config.h"

#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "proxy/proxy-int.h"

/* The largest rewritten body forwarded with a Content-Length (gathered
 * first); a longer one goes chunked. */
#define RELENGTH_MAX (64u * 1024 * 1024)

struct px_fwd {
	char method[32];
	char *path;
	char *audit_path; /* the path to audit, if not path (a scan hook's) */
	bool is_head;
	bool keep_alive; /* the client's wish */
	bool client_10;	 /* an HTTP/1.0 client: no chunked answers */
	struct evbuffer *head_out;
	enum px_body_kind req_kind;
	uint64_t req_left;
	struct px_chunked req_ch;
	bool req_done;
	bool resp_started; /* something was sent to the client */
	bool resp_head_done;
	int resp_status;
	enum px_body_kind resp_kind;
	uint64_t resp_left;
	uint64_t resp_total;
	struct px_chunked resp_ch;
	bool resp_done;
	bool resp_keep;
	/* the scan hook's per-request interface */
	void *scan_req;
	void (*scan_end)(void *req_state);
	bool filtering; /* filter_body sees the body */
	bool rechunk;	/* the body goes upstream chunked */
	/* a rewritten body that came with a Content-Length: gathered in
	 * held and sent with its new length at the end */
	bool relength;
	struct evbuffer *held;
	bool head_sent; /* head_out was moved to the upstream */
	bool reused;	/* sent on a kept upstream connection */
	bool up_keep;	/* the upstream connection may be kept after */
};

const char *
px_fwd_method(const struct px_fwd *f)
{
	return f->method;
}

const char *
px_fwd_path(const struct px_fwd *f)
{
	if (f->audit_path != NULL)
		return f->audit_path;
	return f->path != NULL ? f->path : "";
}

void
px_fwd_free(struct px_fwd *f)
{
	if (f == NULL)
		return;
	if (f->scan_end != NULL)
		f->scan_end(f->scan_req);
	if (f->head_out != NULL)
		evbuffer_free(f->head_out);
	if (f->held != NULL)
		evbuffer_free(f->held);
	free(f->path);
	free(f->audit_path);
	free(f);
}

static bool
name_is(const struct px_header *h, const char *name)
{
	size_t n = strlen(name);

	return h->name_len == n && axg_strncaseeq(h->name, name, n);
}

/* Is h hop-by-hop given every Connection field of the message? */
static bool
hop(const struct px_header *h, const struct px_header *hdrs, size_t n)
{
	if (px_http_is_hop_by_hop(h, NULL, 0))
		return true;
	for (size_t i = 0; i < n; i++)
		if (name_is(&hdrs[i], "connection") &&
		    px_http_is_hop_by_hop(h, hdrs[i].value, hdrs[i].value_len))
			return true;
	return false;
}

static bool
pool_on(const struct px_proxy *px)
{
	return px->cfg.http_pool_max_idle > 0 && px->cfg.http_pool_idle_ms > 0;
}

/* The pool key of the upstream (host, port, address ss). */
static bool
key_of(const struct px_conn *c, const struct sockaddr_storage *ss, char *key,
    size_t keylen)
{
	char ip[INET6_ADDRSTRLEN];
	const void *a = ss->ss_family == AF_INET6
	    ? (const void *)&((const struct sockaddr_in6 *)(const void *)ss)
		  ->sin6_addr
	    : (const void *)&((const struct sockaddr_in *)(const void *)ss)
		  ->sin_addr;

	if (inet_ntop(ss->ss_family, a, ip, sizeof(ip)) == NULL)
		return false;
	return (size_t)snprintf(key, keylen, "%s|%u|%s", c->target.host,
		   (unsigned)c->target.port, ip) < keylen;
}

/* Only a request without a body goes on a kept connection: it can be
 * sent again whole if that connection turns out closed. */
bool
px_fwd_pool_key(const struct px_conn *c, const struct sockaddr_storage *ss,
    char *key, size_t keylen)
{
	return c->fwd != NULL && c->fwd->req_kind == PX_BODY_NONE &&
	    pool_on(c->px) && key_of(c, ss, key, keylen);
}

void
px_fwd_mark_reused(struct px_conn *c)
{
	c->fwd->reused = true;
	c->dialed = true;
	c->px->stats.http_reused++;
	bufferevent_setwatermark(c->up, EV_WRITE, 0, 0);
}

/* Keep c->up for the next request to the same upstream, or close it. */
static void
release_upstream(struct px_conn *c)
{
	struct px_proxy *px = c->px;
	struct px_fwd *f = c->fwd;
	char key[PX_UPOOL_KEY_MAX];

	if (c->up == NULL)
		return;
	if (f->up_keep && f->req_done && f->resp_done && c->dialed &&
	    pool_on(px) && key_of(c, &c->up_addr, key, sizeof(key))) {
		if (px->http_pool == NULL)
			px->http_pool = px_upool_new(px->base, 256, 1024, NULL);
		px_upool_put(px->http_pool, key, c->up, &c->up_addr, true,
		    px->cfg.http_pool_max_idle, px->cfg.http_pool_idle_ms);
		c->up = NULL;
	}
	if (c->up != NULL)
		bufferevent_free(c->up);
	c->up = NULL;
}

static void
info_of(struct px_conn *c, const struct px_request *req,
    struct px_http_info *info)
{
	memset(info, 0, sizeof(*info));
	info->target = &c->target;
	info->method = req->method;
	info->method_len = req->method_len;
	info->path = c->fwd->path;
	info->path_len = strlen(c->fwd->path);
	info->headers = req->headers;
	info->nheaders = req->nheaders;
	info->client = (const struct sockaddr *)&c->client_addr;
	info->has_body = req->body != PX_BODY_NONE;
}

/* The answer to a scan verdict other than ALLOW. */
static int
scan_status(enum px_scan_verdict v)
{
	switch (v) {
	case PX_SCAN_MALFORMED:
		return 400;
	case PX_SCAN_TOO_LARGE:
		return 413;
	case PX_SCAN_UNSUPPORTED:
		return 415;
	default:
		return 403;
	}
}

/* Ask the per-request scan interface about the head.  Returns 0 to go
 * on (edit filled), -1 after refusing the request. */
static int
scan_filter_head(struct px_conn *c, const struct px_http_info *info,
    struct px_scan_edit *edit)
{
	struct px_proxy *px = c->px;
	struct px_fwd *f = c->fwd;
	char why[160] = "credential found in the request";
	enum px_scan_verdict v;

	v = px->scan.filter_head(px->scan.arg, info, &f->scan_req, edit, why,
	    sizeof(why));
	f->scan_end = px->scan.end_request;
	if (edit->path != NULL) {
		free(f->path);
		f->path = axg_strndup(edit->path, edit->path_len);
	} else if (edit->audit_path != NULL) {
		f->audit_path =
		    axg_strndup(edit->audit_path, edit->audit_path_len);
	}
	if (v != PX_SCAN_ALLOW) {
		axg_strlcpy(c->rule, "scan", sizeof(c->rule));
		px_conn_refuse(c, PX_OUTCOME_DENIED, scan_status(v), "scan",
		    why);
		return -1;
	}
	f->filtering = px->scan.filter_body != NULL;
	/* A rewritten body keeps the client's framing: with a
	 * Content-Length (bounded) it is gathered and sent with its new
	 * length; chunked, or unbounded, it streams chunked. */
	f->relength = f->filtering && edit->body_rewritten &&
	    f->req_kind == PX_BODY_LENGTH && f->req_left <= RELENGTH_MAX;
	f->rechunk = f->filtering && f->req_kind != PX_BODY_NONE &&
	    !f->relength &&
	    (edit->body_rewritten || f->req_kind == PX_BODY_CHUNKED);
	if (f->relength)
		f->held = evbuffer_new();
	return 0;
}

int
px_fwd_begin(struct px_conn *c, const struct px_request *req)
{
	struct px_scan_edit edit;
	struct px_proxy *px = c->px;
	struct px_fwd *f;
	struct px_http_info info;
	struct px_decision d;
	char err[160];
	int rc;

	px_fwd_free(c->fwd);
	f = c->fwd = axg_calloc(1, sizeof(*f));
	c->is_connect = false;
	axg_strlcpy(f->method, "", sizeof(f->method));
	if (req->method_len < sizeof(f->method)) {
		memcpy(f->method, req->method, req->method_len);
		f->method[req->method_len] = '\0';
	}
	f->path = req->path != NULL ? axg_strndup(req->path, req->path_len)
				    : axg_strndup(req->target, req->target_len);
	f->is_head = strcmp(f->method, "HEAD") == 0;
	f->client_10 = req->version_minor == 0;
	/* RFC 9112 9.3: a proxy never keeps an HTTP/1.0 client's
	 * connection, whatever its Connection: keep-alive says */
	f->keep_alive = req->keep_alive && !f->client_10;
	f->req_kind = req->body;
	f->req_left = req->content_length;

	if (req->form != PX_FORM_ABSOLUTE)
		goto bad_form;
	if (req->scheme_len != 4 || !axg_strncaseeq(req->scheme, "http", 4)) {
		px_conn_refuse(c, PX_OUTCOME_ERROR, 400, "parse",
		    "only http:// targets on the plain path (use CONNECT for "
		    "https)");
		return -1;
	}
	if (px_host_parse_authority(req->authority, req->authority_len, 80,
		&c->target, err, sizeof(err)) != 0) {
		px_conn_refuse(c, PX_OUTCOME_ERROR, 400, "parse", err);
		return -1;
	}
	/* a credential spelled as a host name (a DNS label), as for CONNECT:
	 * before the decision, so that it reaches no resolver and no audit */
	if (px_conn_host_leaks(c, req->authority, req->authority_len)) {
		free(f->path);
		f->path = axg_strdup("/");
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, "scan", c->reason);
		return -1;
	}
	if (req->host_index >= 0) {
		const struct px_header *h = &req->headers[req->host_index];
		struct px_hostport hh;

		if (px_host_parse_authority(h->value, h->value_len, 80, &hh,
			err, sizeof(err)) != 0 ||
		    !px_hostport_equal(&hh, &c->target)) {
			px_conn_refuse(c, PX_OUTCOME_ERROR, 400, "parse",
			    "Host does not match the request target");
			return -1;
		}
	}
	for (size_t i = 0; i < req->nheaders; i++) {
		const struct px_header *h = &req->headers[i];
		size_t vl = strlen(px->cfg.via);

		if (name_is(h, "via") && h->value_len >= vl &&
		    memmem(h->value, h->value_len, px->cfg.via, vl) != NULL) {
			px_conn_refuse(c, PX_OUTCOME_ERROR, 508, "parse",
			    "request already passed this proxy (Via)");
			return -1;
		}
	}
	if (px->cfg.max_request_body != 0 && req->body == PX_BODY_LENGTH &&
	    req->content_length > px->cfg.max_request_body) {
		px_conn_refuse(c, PX_OUTCOME_ERROR, 413, "limit",
		    "request body larger than the limit");
		return -1;
	}
	info_of(c, req, &info);
	memset(&d, 0, sizeof(d));
	if (px->dec.decide_http == NULL) {
		axg_strlcpy(d.reason, "no http policy", sizeof(d.reason));
		rc = 0;
	} else {
		rc = px->dec.decide_http(c->snap, &info, &d);
	}
	if (rc != 0) {
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, "http",
		    "policy evaluation failed");
		return -1;
	}
	px_decision_copy(c, &d);
	if (!d.allow) {
		px_conn_refuse(c, PX_OUTCOME_DENIED, 403, "http", NULL);
		return -1;
	}
	memset(&edit, 0, sizeof(edit));
	if (px->has_scan && px->scan.filter_head != NULL) {
		edit.values =
		    axg_calloc(req->nheaders + 1, sizeof(*edit.values));
		edit.value_lens =
		    axg_calloc(req->nheaders + 1, sizeof(*edit.value_lens));
		if (scan_filter_head(c, &info, &edit) != 0)
			goto refused;
	} else if (px->has_scan && px->scan.on_head != NULL) {
		char why[160] = "credential found in the request";

		if (px->scan.on_head(px->scan.arg, &info, why, sizeof(why)) ==
		    PX_SCAN_BLOCK) {
			axg_strlcpy(c->rule, "scan", sizeof(c->rule));
			px_conn_refuse(c, PX_OUTCOME_DENIED, 403, "scan", why);
			return -1;
		}
	}

	/* the head as the upstream will see it */
	f->head_out = evbuffer_new();
	evbuffer_add_printf(f->head_out, "%s %s HTTP/1.1\r\n", f->method,
	    f->path);
	if (c->target.port == 80)
		evbuffer_add_printf(f->head_out, "Host: %s%s%s\r\n",
		    c->target.kind == PX_HOST_IPV6 ? "[" : "", c->target.host,
		    c->target.kind == PX_HOST_IPV6 ? "]" : "");
	else
		evbuffer_add_printf(f->head_out, "Host: %s\r\n",
		    c->target.authority);
	for (size_t i = 0; i < req->nheaders; i++) {
		const struct px_header *h = &req->headers[i];

		if (name_is(h, "host") || hop(h, req->headers, req->nheaders))
			continue;
		if ((f->rechunk || f->relength) &&
		    (name_is(h, "content-length") ||
			name_is(h, "transfer-encoding")))
			continue;
		evbuffer_add(f->head_out, h->name, h->name_len);
		evbuffer_add(f->head_out, ": ", 2);
		if (edit.values != NULL && edit.values[i] != NULL)
			evbuffer_add(f->head_out, edit.values[i],
			    edit.value_lens[i]);
		else
			evbuffer_add(f->head_out, h->value, h->value_len);
		evbuffer_add(f->head_out, "\r\n", 2);
	}
	if (f->rechunk)
		evbuffer_add_printf(f->head_out,
		    "Transfer-Encoding: chunked\r\n");
	free(edit.values);
	free(edit.value_lens);
	/* relength: the Content-Length and the blank line come at the end */
	evbuffer_add_printf(f->head_out, "Via: 1.%d %s\r\n%s%s",
	    req->version_minor, px->cfg.via,
	    pool_on(px) ? "" : "Connection: close\r\n",
	    f->relength ? "" : "\r\n");
	if (f->req_kind == PX_BODY_CHUNKED)
		px_chunked_init(&f->req_ch, px->cfg.max_request_body,
		    px->cfg.http.max_line);
	return 0;

refused:
	free(edit.values);
	free(edit.value_lens);
	return -1;

bad_form:
	px_conn_refuse(c, PX_OUTCOME_ERROR, 400, "parse",
	    req->form == PX_FORM_ORIGIN
		? "origin-form request: a proxy needs an absolute URI"
		: "request target form not supported by the proxy");
	return -1;
}

/* ---- request body ---- */

struct scan_ctx {
	struct px_conn *c;
	bool blocked;
	char why[160];
	enum px_scan_verdict v; /* why blocked (0: a plain BLOCK) */
};

static int
scan_chunk(void *arg, const char *p, size_t n)
{
	struct scan_ctx *s = arg;
	struct px_proxy *px = s->c->px;

	if (!px->has_scan || px->scan.on_body == NULL || n == 0)
		return 0;
	if (px->scan.on_body(px->scan.arg, p, n, false, s->why,
		sizeof(s->why)) == PX_SCAN_BLOCK) {
		s->blocked = true;
		return -1;
	}
	return 0;
}

/* The filter's way out: the head goes first, then the bytes, framed
 * as chunks when the body is forwarded chunked. */
static int
emit_up(void *arg, const char *p, size_t n)
{
	struct px_conn *c = arg;
	struct px_fwd *f = c->fwd;
	struct evbuffer *out;

	if (c->up == NULL || f == NULL)
		return -1;
	if (f->relength)
		return n > 0 ? evbuffer_add(f->held, p, n) : 0;
	out = bufferevent_get_output(c->up);
	if (!f->head_sent) {
		evbuffer_add_buffer(out, f->head_out);
		f->head_sent = true;
	}
	if (n == 0)
		return 0;
	if (f->rechunk)
		evbuffer_add_printf(out, "%zx\r\n", n);
	evbuffer_add(out, p, n);
	if (f->rechunk)
		evbuffer_add(out, "\r\n", 2);
	return 0;
}

static int
filter_chunk(void *arg, const char *p, size_t n)
{
	struct scan_ctx *s = arg;
	struct px_conn *c = s->c;

	if (n == 0)
		return 0;
	s->v = c->px->scan.filter_body(c->fwd->scan_req, p, n, false, emit_up,
	    c, s->why, sizeof(s->why));
	if (s->v != PX_SCAN_ALLOW) {
		s->blocked = true;
		return -1;
	}
	return 0;
}

static bool
scan_last(struct px_conn *c, struct scan_ctx *s)
{
	struct px_proxy *px = c->px;

	if (c->fwd->filtering) {
		s->v = px->scan.filter_body(c->fwd->scan_req, NULL, 0, true,
		    emit_up, c, s->why, sizeof(s->why));
		if (s->v != PX_SCAN_ALLOW) {
			s->blocked = true;
			return true;
		}
		if (c->fwd->relength) {
			struct px_fwd *f = c->fwd;
			struct evbuffer *out = bufferevent_get_output(c->up);

			evbuffer_add_printf(f->head_out,
			    "Content-Length: %zu\r\n\r\n",
			    evbuffer_get_length(f->held));
			evbuffer_add_buffer(out, f->head_out);
			evbuffer_add_buffer(out, f->held);
			f->head_sent = true;
			return false;
		}
		emit_up(c, NULL, 0);
		if (c->fwd->rechunk)
			evbuffer_add(bufferevent_get_output(c->up), "0\r\n\r\n",
			    5);
		return false;
	}
	if (!px->has_scan || px->scan.on_body == NULL)
		return false;
	if (px->scan.on_body(px->scan.arg, NULL, 0, true, s->why,
		sizeof(s->why)) == PX_SCAN_BLOCK) {
		s->blocked = true;
		return true;
	}
	return false;
}

static void
abort_request(struct px_conn *c, int status, const char *stage, const char *why,
    enum px_outcome outcome)
{
	if (c->up != NULL) {
		struct linger lg = { 1, 0 };
		evutil_socket_t fd = bufferevent_getfd(c->up);

		if (fd >= 0)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		bufferevent_free(c->up);
		c->up = NULL;
	}
	if (c->fwd->resp_started) {
		axg_strlcpy(c->reason, why, sizeof(c->reason));
		px_conn_audit(c, PX_AUDIT_HTTP, outcome, c->fwd->resp_status,
		    stage);
		px_conn_reset(c);
		return;
	}
	if (status == 403 || strcmp(stage, "scan") == 0)
		axg_strlcpy(c->rule, stage, sizeof(c->rule));
	px_conn_refuse(c, outcome, status, stage, why);
}

void
px_fwd_idle(struct px_conn *c)
{
	if (c->fwd == NULL || c->fwd->resp_started) {
		px_conn_free(c);
		return;
	}
	if (!c->fwd->req_done)
		abort_request(c, 408, "parse",
		    "request body not received within the idle timeout",
		    PX_OUTCOME_ERROR);
	else
		abort_request(c, 504, "upstream",
		    "the upstream did not answer within the idle timeout",
		    PX_OUTCOME_ERROR);
}

static void
req_body_done(struct px_conn *c)
{
	struct scan_ctx s = { c, false, "credential found in the request",
		PX_SCAN_ALLOW };

	c->fwd->req_done = true;
	/* after a bodiless request reading goes on, bounded by the head
	 * watermark: a pipelined head waits in the input (px_fwd_connected) */
	if (c->fwd->req_kind != PX_BODY_NONE)
		bufferevent_disable(c->cli, EV_READ);
	if (scan_last(c, &s))
		abort_request(c, scan_status(s.v), "scan", s.why,
		    PX_OUTCOME_DENIED);
}

/* Move at most 16 segments' worth of body from in to out, scanning it.
 * Returns the bytes moved, or -1 after the request was aborted. */
static ssize_t
req_body_batch(struct px_conn *c, struct evbuffer *in, struct evbuffer *out)
{
	struct px_fwd *f = c->fwd;
	struct scan_ctx s = { c, false, "credential found in the request",
		PX_SCAN_ALLOW };
	size_t avail = evbuffer_get_length(in), take = 0;
	struct evbuffer_iovec vec[16];
	px_chunk_data_cb data_cb = f->filtering ? filter_chunk : scan_chunk;
	int nv;

	if (avail == 0)
		return 0;
	if (f->req_kind == PX_BODY_LENGTH) {
		size_t want = avail < f->req_left ? avail : (size_t)f->req_left;

		nv = evbuffer_peek(in, (ev_ssize_t)want, NULL, vec, 16);
		for (int i = 0; i < nv && i < 16 && take < want; i++) {
			size_t l = vec[i].iov_len;

			if (take + l > want)
				l = want - take;
			data_cb(&s, vec[i].iov_base, l);
			if (s.blocked)
				break;
			take += l;
		}
		f->req_left -= take;
	} else {
		char err[160];
		int rc = 0;

		nv = evbuffer_peek(in, -1, NULL, vec, 16);
		for (int i = 0; i < nv && i < 16 && rc == 0; i++) {
			size_t used;

			rc = px_chunked_feed(&f->req_ch, vec[i].iov_base,
			    vec[i].iov_len, &used, data_cb, &s, err,
			    sizeof(err));
			take += used;
		}
		if (rc < 0 && !s.blocked) {
			uint64_t max = c->px->cfg.max_request_body;

			abort_request(c,
			    max != 0 && strstr(err, "limit") != NULL ? 413
								     : 400,
			    "parse", err, PX_OUTCOME_ERROR);
			return -1;
		}
		f->req_left = rc == 1 ? 0 : 1;
	}
	if (s.blocked) {
		abort_request(c, scan_status(s.v), "scan", s.why,
		    PX_OUTCOME_DENIED);
		return -1;
	}
	c->bytes_up += take;
	c->px->stats.bytes_up += take;
	if (f->filtering)
		evbuffer_drain(in, take); /* emit_up forwarded it */
	else
		evbuffer_remove_buffer(in, out, take);
	return (ssize_t)take;
}

void
px_fwd_client_read(struct px_conn *c)
{
	struct px_fwd *f = c->fwd;
	struct evbuffer *in = bufferevent_get_input(c->cli);
	struct evbuffer *out;
	size_t hwm = c->px->cfg.tunnel_high_watermark;
	ssize_t n;

	if (f != NULL && f->req_done && f->req_kind == PX_BODY_NONE)
		return; /* the next head: left in the input, bounded */
	if (f == NULL || f->req_done || c->up == NULL) {
		bufferevent_disable(c->cli, EV_READ);
		return;
	}
	out = bufferevent_get_output(c->up);
	do {
		n = req_body_batch(c, in, out);
		if (n < 0)
			return; /* aborted */
	} while (n > 0 && f->req_left > 0 && evbuffer_get_length(out) < hwm);
	if (f->req_left == 0) {
		req_body_done(c);
		return;
	}
	if (evbuffer_get_length(out) >= hwm) {
		bufferevent_disable(c->cli, EV_READ);
		bufferevent_setwatermark(c->up, EV_WRITE, hwm / 2, hwm / 2);
	}
}

/* ---- response ---- */

static void
fwd_finish(struct px_conn *c)
{
	struct px_fwd *f = c->fwd;
	bool keep = f->resp_keep && f->req_done && !c->cli_eof;

	px_conn_audit(c, PX_AUDIT_HTTP, PX_OUTCOME_ALLOWED, f->resp_status,
	    "done");
	release_upstream(c);
	px_fwd_free(f);
	c->fwd = NULL;
	if (keep) {
		px_conn_start_head(c);
		return;
	}
	c->state = PX_ST_CLOSING;
	bufferevent_disable(c->cli, EV_READ);
	px_conn_arm(c, c->px->cfg.idle_timeout_ms);
	if (evbuffer_get_length(bufferevent_get_output(c->cli)) == 0) {
		/* nothing left to flush: make the write callback run now */
		shutdown(bufferevent_getfd(c->cli), SHUT_WR);
		px_conn_free(c);
	}
}

static int
send_resp_head(struct px_conn *c, const char *p, const struct px_response *r)
{
	struct px_fwd *f = c->fwd;
	struct evbuffer *out = c->px->scratch; /* px_send_now() sends it */
	const char *eol = memchr(p, '\r', r->head_len);

	if (r->status >= 100 && r->status < 200) {
		if (r->status == 101)
			return -1; /* no upgrade was asked for */
		evbuffer_add_printf(out, "HTTP/1.1 %d Continue\r\n\r\n",
		    r->status);
		f->resp_started = true;
		return 0;
	}
	f->resp_head_done = true;
	f->resp_started = true;
	f->resp_status = r->status;
	f->resp_kind = r->body;
	f->resp_left = r->content_length;
	f->resp_keep = f->keep_alive && r->body != PX_BODY_CLOSE &&
	    !(f->client_10 && r->body == PX_BODY_CHUNKED);
	f->up_keep =
	    r->keep_alive && r->version_minor == 1 && r->body != PX_BODY_CLOSE;
	evbuffer_add(out, "HTTP/1.1", 8);
	evbuffer_add(out, p + 8, (size_t)(eol - p) - 8);
	evbuffer_add(out, "\r\n", 2);
	for (size_t i = 0; i < r->nheaders; i++) {
		const struct px_header *h = &r->headers[i];

		if (hop(h, r->headers, r->nheaders))
			continue;
		/* an HTTP/1.0 client gets the body decoded, delimited by
		 * the close */
		if (f->client_10 && r->body == PX_BODY_CHUNKED &&
		    name_is(h, "transfer-encoding"))
			continue;
		evbuffer_add(out, h->name, h->name_len);
		evbuffer_add(out, ": ", 2);
		evbuffer_add(out, h->value, h->value_len);
		evbuffer_add(out, "\r\n", 2);
	}
	evbuffer_add_printf(out, "Via: 1.1 %s\r\nConnection: %s\r\n\r\n",
	    c->px->cfg.via, f->resp_keep ? "keep-alive" : "close");
	if (r->body == PX_BODY_CHUNKED)
		px_chunked_init(&f->resp_ch, c->px->cfg.max_response_body,
		    c->px->cfg.http.max_line);
	if (r->body == PX_BODY_NONE)
		f->resp_done = true;
	return 0;
}

static int
add_decoded(void *arg, const char *p, size_t n)
{
	return evbuffer_add(arg, p, n);
}

static void
resp_body(struct px_conn *c)
{
	struct px_fwd *f = c->fwd;
	struct evbuffer *in = bufferevent_get_input(c->up);
	struct evbuffer *out = c->px->scratch; /* px_send_now() sends it */
	size_t avail = evbuffer_get_length(in), take = 0;
	uint64_t max = c->px->cfg.max_response_body;
	size_t hwm = c->px->cfg.tunnel_high_watermark;
	bool decoded = false;

	if (f->resp_kind == PX_BODY_LENGTH) {
		take = avail < f->resp_left ? avail : (size_t)f->resp_left;
		f->resp_left -= take;
		if (f->resp_left == 0)
			f->resp_done = true;
	} else if (f->resp_kind == PX_BODY_CHUNKED) {
		struct evbuffer_iovec vec[64];
		int nv = evbuffer_peek(in, -1, NULL, vec, 64), rc = 0;
		char err[160];

		/* 64 segments per call; the rest stays for the next read or
		 * the write callback (see px_fwd_client_writecb) */
		for (int i = 0; i < nv && i < 64 && rc == 0; i++) {
			size_t used;

			rc = px_chunked_feed(&f->resp_ch, vec[i].iov_base,
			    vec[i].iov_len, &used,
			    f->client_10 ? add_decoded : NULL, out, err,
			    sizeof(err));
			take += used;
		}
		if (rc < 0) {
			abort_request(c, 502, "upstream", err,
			    PX_OUTCOME_ERROR);
			return;
		}
		if (rc == 1)
			f->resp_done = true;
		decoded = f->client_10; /* already added to out */
	} else if (f->resp_kind == PX_BODY_CLOSE) {
		take = avail;
	}
	f->resp_total += take;
	if (max != 0 && f->resp_total > max) {
		abort_request(c, 502, "limit", "response body over the limit",
		    PX_OUTCOME_ERROR);
		return;
	}
	c->bytes_down += take;
	c->px->stats.bytes_down += take;
	if (decoded)
		evbuffer_drain(in, take);
	else
		evbuffer_remove_buffer(in, out, take);
	px_send_now(c->cli, out);
	if (f->resp_done) {
		fwd_finish(c);
		return;
	}
	out = bufferevent_get_output(c->cli);
	if (evbuffer_get_length(out) >= hwm) {
		bufferevent_disable(c->up, EV_READ);
		bufferevent_setwatermark(c->cli, EV_WRITE, hwm / 2, hwm / 2);
	}
}

void
px_fwd_upstream_readcb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct px_fwd *f = c->fwd;
	struct evbuffer *in = bufferevent_get_input(bev);

	c->last_activity_ns = px_now_ns();
	px_read_more(bev);
	/* what an aborted answer left unsent is not this one's */
	evbuffer_drain(c->px->scratch, evbuffer_get_length(c->px->scratch));
	while (!f->resp_head_done) {
		struct px_response r;
		size_t len = evbuffer_get_length(in);
		char err[160];
		const char *p;
		int rc;

		if (len == 0)
			return;
		if (len > c->px->cfg.http.max_head)
			len = c->px->cfg.http.max_head;
		p = (const char *)evbuffer_pullup(in, (ev_ssize_t)len);
		rc = px_http1_parse_response(p, len, &c->px->cfg.http,
		    f->is_head, &r, c->px->hdrs, err, sizeof(err));
		if (rc == 0)
			return;
		if (rc < 0 || send_resp_head(c, p, &r) != 0) {
			abort_request(c, 502, "upstream",
			    rc < 0 ? err : "unexpected 101 from the upstream",
			    PX_OUTCOME_ERROR);
			return;
		}
		evbuffer_drain(in, r.head_len);
	}
	if (f->resp_done) {
		px_send_now(c->cli, c->px->scratch);
		fwd_finish(c);
		return;
	}
	resp_body(c);
}

void
px_fwd_upstream_writecb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	c->last_activity_ns = px_now_ns();
	if (c->fwd != NULL && !c->fwd->req_done &&
	    evbuffer_get_length(bufferevent_get_output(bev)) <=
		c->px->cfg.tunnel_high_watermark / 2) {
		bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
		bufferevent_enable(c->cli, EV_READ);
		if (evbuffer_get_length(bufferevent_get_input(c->cli)) > 0)
			px_fwd_client_read(c);
	}
}

void
px_fwd_upstream_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;
	struct px_fwd *f = c->fwd;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	if (f->reused && !f->resp_started &&
	    evbuffer_get_length(bufferevent_get_input(bev)) == 0) {
		/* the kept connection had been closed by the upstream: the
		 * same request (no body, head kept) on a new connection */
		f->reused = false;
		f->head_sent = false;
		bufferevent_free(c->up);
		c->up = NULL;
		c->px->stats.http_retried++;
		px_conn_redial(c);
		return;
	}
	if (!f->resp_head_done) {
		abort_request(c, 502, "upstream",
		    "upstream closed before a response", PX_OUTCOME_ERROR);
		return;
	}
	if (f->resp_kind == PX_BODY_CLOSE && (what & BEV_EVENT_EOF)) {
		evbuffer_drain(c->px->scratch,
		    evbuffer_get_length(c->px->scratch));
		resp_body(c);
		if (c->fwd == f && !f->resp_done) {
			f->resp_done = true;
			f->resp_keep = false;
			fwd_finish(c);
		}
		return;
	}
	axg_strlcpy(c->reason, "upstream closed mid-response",
	    sizeof(c->reason));
	px_conn_audit(c, PX_AUDIT_HTTP, PX_OUTCOME_ERROR, f->resp_status,
	    "upstream");
	px_conn_free(c);
}

void
px_fwd_connected(struct px_conn *c)
{
	struct px_fwd *f = c->fwd;

	c->state = PX_ST_FORWARD;
	bufferevent_setcb(c->up, px_fwd_upstream_readcb,
	    px_fwd_upstream_writecb, px_fwd_upstream_eventcb, c);
	/* a filtered body sends the head with its first bytes; on a kept
	 * connection a copy goes, for a resend if it turns out closed */
	if (f->reused) {
		struct evbuffer *copy = c->px->scratch;

		evbuffer_drain(copy, evbuffer_get_length(copy));
		evbuffer_add(copy, evbuffer_pullup(f->head_out, -1),
		    evbuffer_get_length(f->head_out));
		px_send_now(c->up, copy);
	} else if (!f->filtering || f->req_kind == PX_BODY_NONE) {
		px_send_now(c->up, f->head_out);
	}
	f->head_sent =
	    f->reused || !f->filtering || f->req_kind == PX_BODY_NONE;
	px_bev_enable(c->up);
	c->last_activity_ns = px_now_ns();
	px_conn_arm(c, c->px->cfg.idle_timeout_ms);
	if (f->req_kind == PX_BODY_NONE) {
		/* Keep reading the client, bounded by the head watermark
		 * (set by px_conn_start_head): its end of stream is noticed
		 * and its next request waits in the input, and the next
		 * px_conn_start_head() changes nothing in epoll.  On a kept
		 * upstream this undoes, in the same loop turn, the disabling
		 * of px_conn_resolve_and_dial(). */
		bufferevent_enable(c->cli, EV_READ);
		if (!f->req_done) /* not again on a resend */
			req_body_done(c);
		return;
	}
	bufferevent_setwatermark(c->cli, EV_READ, 0, 0);
	bufferevent_enable(c->cli, EV_READ);
	if (evbuffer_get_length(bufferevent_get_input(c->cli)) > 0)
		px_fwd_client_read(c);
}

void
px_fwd_client_writecb(struct px_conn *c)
{
	if (c->up != NULL && c->fwd != NULL && !c->fwd->resp_done &&
	    evbuffer_get_length(bufferevent_get_output(c->cli)) <=
		c->px->cfg.tunnel_high_watermark / 2) {
		bufferevent_setwatermark(c->cli, EV_WRITE, 0, 0);
		bufferevent_enable(c->up, EV_READ);
		if (evbuffer_get_length(bufferevent_get_input(c->up)) > 0)
			px_fwd_upstream_readcb(c->up, c);
	}
}

void
px_fwd_client_event(struct px_conn *c, short what)
{
	if ((what & BEV_EVENT_EOF) && c->fwd != NULL && c->fwd->req_done) {
		c->cli_eof = true; /* half-close: still send the answer */
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		axg_strlcpy(c->reason, "client went away", sizeof(c->reason));
		px_conn_free(c);
	}
}
