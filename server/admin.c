/* admin.c: the admin listener of `axgate serve`: /healthz, /readyz,
 * /metrics, POST /-/reload and OPA's Data API.
 *
 * Plain HTTP/1.1, one request per connection (every answer closes it),
 * heads parsed by the proxy's strict parser, bounded in size, count and
 * time. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "server/server-int.h"

struct adm_conn {
	struct srv_admin *a;
	struct bufferevent *bev;
	bool answered;
	TAILQ_ENTRY(adm_conn) link;
};

struct srv_admin {
	struct event_base *base;
	struct evconnlistener *lst;
	struct srv_admin_ops ops;
	unsigned nconns;
	TAILQ_HEAD(, adm_conn) conns;
};

static void
conn_free(struct adm_conn *c)
{
	TAILQ_REMOVE(&c->a->conns, c, link);
	c->a->nconns--;
	bufferevent_free(c->bev);
	free(c);
}

static const char *
status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 411:
		return "Length Required";
	case 413:
		return "Content Too Large";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return "Error";
	}
}

/* Send the answer and close once it is written. */
static void
reply(struct adm_conn *c, int status, const char *ctype, const char *body,
    size_t len)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);

	evbuffer_add_printf(out,
	    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	    "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
	    status, status_text(status), ctype, len);
	evbuffer_add(out, body, len);
	c->answered = true;
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_enable(c->bev, EV_WRITE);
}

static void
reply_json_error(struct adm_conn *c, int status, const char *code,
    const char *msg)
{
	struct axg_buf b = AXG_BUF_INIT;
	struct axv *m = axv_cstr(msg);

	axg_buf_printf(&b, "{\"code\":\"%s\",\"message\":", code);
	axv_to_json(m, &b, false);
	axg_buf_puts(&b, "}\n");
	axv_unref(m);
	reply(c, status, "application/json", b.data, b.len);
	axg_buf_free(&b);
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Percent-decode p[0..n) into a new string; NULL on a bad escape or a
 * NUL byte. */
static char *
pct_decode(const char *p, size_t n)
{
	char *out = axg_malloc(n + 1);
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == '%') {
			int hi, lo;

			if (i + 2 >= n)
				goto bad;
			hi = hexval(p[i + 1]);
			lo = hexval(p[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				goto bad;
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else
			out[o++] = p[i];
	}
	out[o] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static void
do_data(struct adm_conn *c, const struct px_request *req, const char *path,
    size_t path_len, const char *body, size_t body_len)
{
	struct axg_buf out = AXG_BUF_INIT;
	struct gate *g;
	char *dec;
	int status;
	bool post = req->method_len == 4 && memcmp(req->method, "POST", 4) == 0;

	dec = pct_decode(path, path_len);
	if (dec == NULL) {
		reply_json_error(c, 400, "invalid_parameter",
		    "bad percent-encoding in the path");
		return;
	}
	g = c->a->ops.gate(c->a->ops.arg);
	srv_data_api(g, dec, post ? body : NULL, post ? body_len : 0, &status,
	    &out);
	gate_unref(g);
	free(dec);
	reply(c, status, "application/json", out.data, out.len);
	axg_buf_free(&out);
}

static bool
method_is(const struct px_request *req, const char *m)
{
	return req->method_len == strlen(m) &&
	    memcmp(req->method, m, req->method_len) == 0;
}

static void
route(struct adm_conn *c, const struct px_request *req, const char *body,
    size_t body_len)
{
	struct srv_admin *a = c->a;
	size_t plen = req->path_len;
	const char *q = memchr(req->path, '?', plen);
	char err[1024];

	if (q != NULL)
		plen = (size_t)(q - req->path);
#define IS(p) (plen == strlen(p) && memcmp(req->path, p, plen) == 0)
	if (IS("/healthz") || IS("/readyz") || IS("/metrics")) {
		if (!method_is(req, "GET") && !method_is(req, "HEAD")) {
			reply(c, 405, "text/plain", "use GET\n", 8);
			return;
		}
		if (IS("/healthz"))
			reply(c, 200, "text/plain", "ok\n", 3);
		else if (IS("/readyz")) {
			if (a->ops.ready(a->ops.arg))
				reply(c, 200, "text/plain", "ready\n", 6);
			else
				reply(c, 503, "text/plain", "not ready\n", 10);
		} else {
			struct axg_buf m = AXG_BUF_INIT;

			a->ops.metrics(a->ops.arg, &m);
			reply(c, 200, "text/plain; version=0.0.4", m.data,
			    m.len);
			axg_buf_free(&m);
		}
		return;
	}
	if (IS("/-/reload")) {
		if (!method_is(req, "POST")) {
			reply(c, 405, "text/plain", "use POST\n", 9);
			return;
		}
		if (a->ops.reload(a->ops.arg, "admin API", err, sizeof(err)) <
		    0)
			reply_json_error(c, 500, "reload_failed", err);
		else {
			struct gate *g = a->ops.gate(a->ops.arg);
			struct axg_buf b = AXG_BUF_INIT;
			struct axv *n = axv_cstr(gate_name(g));

			axg_buf_puts(&b,
			    "{\"result\":\"reloaded\",\"policy\":");
			axv_to_json(n, &b, false);
			axg_buf_printf(&b, ",\"digest\":\"%s\"}\n",
			    gate_digest(g));
			reply(c, 200, "application/json", b.data, b.len);
			axv_unref(n);
			axg_buf_free(&b);
			gate_unref(g);
		}
		return;
	}
	if (IS("/v1/data") ||
	    (plen > 9 && memcmp(req->path, "/v1/data/", 9) == 0)) {
		if (!method_is(req, "GET") && !method_is(req, "POST")) {
			reply_json_error(c, 405, "method_not_allowed",
			    "use GET or POST");
			return;
		}
		do_data(c, req, req->path + 8, plen - 8, body, body_len);
		return;
	}
#undef IS
	reply_json_error(c, 404, "resource_not_found", "no such endpoint");
}

static void
readcb(struct bufferevent *bev, void *arg)
{
	struct adm_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct px_http_limits lim = { SRV_ADMIN_MAX_HEAD, 4096, 64 };
	struct px_header hdrs[64];
	struct px_request req;
	size_t len = evbuffer_get_length(in);
	char err[256];
	int status = 400, n;
	const char *buf;

	if (c->answered)
		return;
	if (len > SRV_ADMIN_MAX_HEAD + SRV_ADMIN_MAX_BODY) {
		reply(c, 413, "text/plain", "too large\n", 10);
		return;
	}
	buf = (const char *)evbuffer_pullup(in, -1);
	n = px_http1_parse_request(buf, len, &lim, &req, hdrs, &status, err,
	    sizeof(err));
	if (n < 0) {
		reply(c, status, "text/plain", "bad request\n", 12);
		return;
	}
	if (n == 0) {
		if (len >= SRV_ADMIN_MAX_HEAD)
			reply(c, 431, "text/plain", "head too large\n", 15);
		return;
	}
	if (req.form != PX_FORM_ORIGIN) {
		reply(c, 400, "text/plain", "origin-form only\n", 17);
		return;
	}
	if (req.body == PX_BODY_CHUNKED) {
		reply(c, 411, "text/plain", "Content-Length required\n", 24);
		return;
	}
	if (req.body == PX_BODY_LENGTH) {
		if (req.content_length > SRV_ADMIN_MAX_BODY) {
			reply(c, 413, "text/plain", "body too large\n", 15);
			return;
		}
		if (len - (size_t)n < req.content_length)
			return; /* wait for the rest */
	}
	route(c, &req, buf + n,
	    req.body == PX_BODY_LENGTH ? (size_t)req.content_length : 0);
}

static void
writecb(struct bufferevent *bev, void *arg)
{
	struct adm_conn *c = arg;

	if (c->answered &&
	    evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		conn_free(c);
}

static void
eventcb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_free(arg);
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct srv_admin *a = arg;
	struct adm_conn *c;
	struct timeval tv = { SRV_ADMIN_TIMEOUT_S, 0 };

	(void)l;
	(void)sa;
	(void)salen;
	if (a->nconns >= SRV_ADMIN_MAX_CONNS) {
		evutil_closesocket(fd);
		return;
	}
	c = axg_calloc(1, sizeof(*c));
	c->a = a;
	c->bev = bufferevent_socket_new(a->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		free(c);
		return;
	}
	TAILQ_INSERT_TAIL(&a->conns, c, link);
	a->nconns++;
	bufferevent_setcb(c->bev, readcb, writecb, eventcb, c);
	bufferevent_set_timeouts(c->bev, &tv, &tv);
	bufferevent_setwatermark(c->bev, EV_READ, 0,
	    SRV_ADMIN_MAX_HEAD + SRV_ADMIN_MAX_BODY + 1);
	bufferevent_enable(c->bev, EV_READ);
}

static void
accept_error_cb(struct evconnlistener *l, void *arg)
{
	(void)l;
	(void)arg;
	axg_warn("admin: accept: %s", strerror(errno));
}

struct srv_admin *
srv_admin_new(struct event_base *base, int fd, const struct srv_admin_ops *ops,
    char *err, size_t errlen)
{
	struct srv_admin *a = axg_calloc(1, sizeof(*a));

	a->base = base;
	a->ops = *ops;
	TAILQ_INIT(&a->conns);
	evutil_make_socket_nonblocking(fd);
	a->lst = evconnlistener_new(base, accept_cb, a, LEV_OPT_CLOSE_ON_FREE,
	    -1, fd);
	if (a->lst == NULL) {
		free(a);
		axg_seterr(err, errlen, "admin: cannot listen");
		return NULL;
	}
	evconnlistener_set_error_cb(a->lst, accept_error_cb);
	return a;
}

void
srv_admin_free(struct srv_admin *a)
{
	if (a == NULL)
		return;
	evconnlistener_free(a->lst);
	while (!TAILQ_EMPTY(&a->conns))
		conn_free(TAILQ_FIRST(&a->conns));
	free(a);
}
