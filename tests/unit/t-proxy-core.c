/*
 * Tests of the proxy core with real sockets on 127.0.0.0/8: the proxy,
 * an echo upstream, a TLS-port echo upstream, a small HTTP upstream and a
 * DNS server (UDP, answering chosen A/AAAA records) all run on one event
 * loop in a second thread; the test talks to the proxy over blocking
 * sockets and with curl.  Every case asserts the status, the connection
 * state, exactly one audit record and whether an upstream was dialed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>

#include "common/common.h"
#include "proxy/proxy.h"
#include "tests/tap.h"

/* ---- shared state (event thread <-> test thread) ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct rec {
	enum px_audit_kind kind;
	enum px_outcome outcome;
	int status;
	char stage[16], rule[64], reason[160], host[256], method[16], sni[256],
	    upstream[64];
	uint16_t port;
	bool dialed;
	uint64_t up, down;
};

#define MAX_RECS 512
static struct rec recs[MAX_RECS];
static int nrecs;
static int echo_accepts, tls_accepts, http_accepts;
static char http_seen[8192]; /* the last request the HTTP upstream got */
static int dns_queries[16];  /* A queries per name index */

static int echo_port, tls_port, http_port, dns_port, px_port, pxb_port;
static int https_port; /* openssl s_server with a test CA */
static int px6_port;   /* the proxy's listener on [::1], 0 if none */

static void
on_record(void *arg, const struct px_audit_record *r)
{
	struct rec *o;

	(void)arg;
	pthread_mutex_lock(&mu);
	if (nrecs < MAX_RECS) {
		o = &recs[nrecs++];
		o->kind = r->kind;
		o->outcome = r->outcome;
		o->status = r->status;
		axg_strlcpy(o->stage, r->stage, sizeof(o->stage));
		axg_strlcpy(o->rule, r->rule, sizeof(o->rule));
		axg_strlcpy(o->reason, r->reason, sizeof(o->reason));
		axg_strlcpy(o->host, r->host, sizeof(o->host));
		axg_strlcpy(o->method, r->method, sizeof(o->method));
		axg_strlcpy(o->sni, r->sni, sizeof(o->sni));
		o->port = r->port;
		o->dialed = r->dialed;
		if (r->upstream != NULL)
			px_addr_str(r->upstream, o->upstream,
			    sizeof(o->upstream));
		else
			o->upstream[0] = '\0';
		o->up = r->bytes_up;
		o->down = r->bytes_down;
	}
	pthread_mutex_unlock(&mu);
}

static int
get_int(int *p)
{
	int v;

	pthread_mutex_lock(&mu);
	v = *p;
	pthread_mutex_unlock(&mu);
	return v;
}

static void
bump(int *p)
{
	pthread_mutex_lock(&mu);
	(*p)++;
	pthread_mutex_unlock(&mu);
}

static void
msleep(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait until at least base+n records exist (3 s at most), then a little
 * longer to catch extras; return how many arrived since base. */
static int
records_since(int base, int n)
{
	for (int i = 0; i < 300 && get_int(&nrecs) < base + n; i++)
		msleep(10);
	msleep(60);
	return get_int(&nrecs) - base;
}

static struct rec
rec_at(int i)
{
	struct rec r;

	pthread_mutex_lock(&mu);
	r = recs[i];
	pthread_mutex_unlock(&mu);
	return r;
}

/* ---- the test decider ---- */

static int
port_allowed(const struct px_hostport *t)
{
	return t->port == echo_port || t->port == tls_port ||
	    t->port == http_port ||
	    (https_port != 0 && t->port == https_port) || t->port == px_port;
}

static const char *const allowed_hosts[] = { "allowed.test", "rebind.test",
	"mixed.test", "retry.test", "v6only.test", "nx.test", "servfail.test",
	"slow.test", "127.0.0.1" };

static int
host_allowed(const struct px_hostport *t)
{
	for (size_t i = 0; i < AXG_ARRAY_LEN(allowed_hosts); i++)
		if (strcmp(t->host, allowed_hosts[i]) == 0)
			return 1;
	return 0;
}

static void
judge_target(const struct px_hostport *t, struct px_decision *out)
{
	memset(out, 0, sizeof(*out));
	if (!host_allowed(t)) {
		axg_strlcpy(out->rule, "hosts", sizeof(out->rule));
		snprintf(out->reason, sizeof(out->reason),
		    "host %.100s not allowed", t->host);
	} else if (!port_allowed(t)) {
		axg_strlcpy(out->rule, "ports", sizeof(out->rule));
		snprintf(out->reason, sizeof(out->reason),
		    "port %u not allowed", (unsigned)t->port);
	} else {
		out->allow = true;
		axg_strlcpy(out->rule, "test-allow", sizeof(out->rule));
		axg_strlcpy(out->reason, "listed", sizeof(out->reason));
	}
}

static int
dec_connect(void *arg, const struct px_hostport *t,
    const struct sockaddr *client, struct px_decision *out)
{
	(void)arg;
	(void)client;
	judge_target(t, out);
	return 0;
}

/* In this test 127.0.0.1 and 127.0.0.5 stand for public addresses; every
 * other address is internal. */
static int
dec_address(void *arg, const struct px_hostport *t, const struct sockaddr *sa,
    struct px_decision *out)
{
	char buf[64];

	(void)arg;
	(void)t;
	memset(out, 0, sizeof(out[0]));
	px_addr_str(sa, buf, sizeof(buf));
	if (strcmp(buf, "127.0.0.1") == 0 || strcmp(buf, "127.0.0.5") == 0) {
		out->allow = true;
		axg_strlcpy(out->rule, "test-public", sizeof(out->rule));
		return 0;
	}
	axg_strlcpy(out->rule, "internal-address", sizeof(out->rule));
	snprintf(out->reason, sizeof(out->reason), "%s is %s", buf,
	    px_addr_class_name(px_addr_classify(sa)));
	return 0;
}

static int
dec_http(void *arg, const struct px_http_info *req, struct px_decision *out)
{
	(void)arg;
	judge_target(req->target, out);
	return 0;
}

static enum px_scan_verdict
scan_body(void *arg, const char *p, size_t n, bool last, char *reason,
    size_t rlen)
{
	(void)arg;
	(void)last;
	if (p != NULL && memmem(p, n, "SECRET", 6) != NULL) {
		axg_strlcpy(reason, "test secret in body", rlen);
		return PX_SCAN_BLOCK;
	}
	return PX_SCAN_ALLOW;
}

/* ---- upstreams on the event loop ---- */

static void
echo_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	evbuffer_add_buffer(bufferevent_get_output(bev),
	    bufferevent_get_input(bev));
}

static void
close_when_flushed(struct bufferevent *bev, void *arg)
{
	(void)arg;
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		bufferevent_free(bev);
}

static void
echo_event(struct bufferevent *bev, short what, void *arg)
{
	(void)arg;
	if (what & BEV_EVENT_EOF) {
		bufferevent_setcb(bev, NULL, close_when_flushed, NULL, NULL);
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			bufferevent_free(bev);
		return;
	}
	bufferevent_free(bev);
}

static void
echo_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct bufferevent *bev =
	    bufferevent_socket_new(evconnlistener_get_base(l), fd,
		BEV_OPT_CLOSE_ON_FREE);

	(void)sa;
	(void)salen;
	bump(arg);
	bufferevent_setcb(bev, echo_read, NULL, echo_event, NULL);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static void
http_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len = evbuffer_get_length(in);
	char *p = (char *)evbuffer_pullup(in, (ev_ssize_t)len);
	char *end = p != NULL ? memmem(p, len, "\r\n\r\n", 4) : NULL;
	const char *resp;

	(void)arg;
	if (end == NULL)
		return;
	if (memmem(p, len, "Transfer-Encoding: chunked", 26) != NULL &&
	    memmem(end, len - (size_t)(end - p), "0\r\n\r\n", 5) == NULL)
		return;
	if (memmem(p, (size_t)(end - p), "Content-Length: 5", 17) != NULL &&
	    len - (size_t)(end - p) - 4 < 5)
		return;
	pthread_mutex_lock(&mu);
	axg_strlcpy(http_seen, "", sizeof(http_seen));
	memcpy(http_seen, p,
	    len < sizeof(http_seen) - 1 ? len : sizeof(http_seen) - 1);
	http_seen[len < sizeof(http_seen) - 1 ? len : sizeof(http_seen) - 1] =
	    '\0';
	pthread_mutex_unlock(&mu);
	if (strncmp(p, "GET /chunked ", 13) == 0)
		resp = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
		       "X-Up: 1\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
	else if (strncmp(p, "GET /eof ", 9) == 0)
		resp = "HTTP/1.1 200 OK\r\n\r\nuntil-close";
	else
		resp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: "
		       "close\r\nKeep-Alive: x\r\n\r\nhello";
	evbuffer_drain(in, len);
	evbuffer_add(bufferevent_get_output(bev), resp, strlen(resp));
	bufferevent_setcb(bev, NULL, close_when_flushed, echo_event, NULL);
}

static void
http_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct bufferevent *bev =
	    bufferevent_socket_new(evconnlistener_get_base(l), fd,
		BEV_OPT_CLOSE_ON_FREE);

	(void)sa;
	(void)salen;
	(void)arg;
	bump(&http_accepts);
	bufferevent_setcb(bev, http_read, NULL, echo_event, NULL);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static struct evconnlistener *
listen_on(struct event_base *base, const char *ip, evconnlistener_cb cb,
    void *arg, int *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	struct evconnlistener *l;

	inet_pton(AF_INET, ip, &sin.sin_addr);
	l = evconnlistener_new_bind(base, cb, arg,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 64,
	    (struct sockaddr *)&sin, sizeof(sin));
	if (l == NULL)
		return NULL;
	getsockname(evconnlistener_get_fd(l), (struct sockaddr *)&sin, &len);
	*port = ntohs(sin.sin_port);
	return l;
}

/* ---- the DNS server ---- */

enum {
	N_ALLOWED,
	N_REBIND,
	N_MIXED,
	N_RETRY,
	N_V6ONLY,
	N_NX,
	N_SERVFAIL,
	N_SLOW,
	N_COUNT
};
static const char *const dns_names[N_COUNT] = { "allowed.test", "rebind.test",
	"mixed.test", "retry.test", "v6only.test", "nx.test", "servfail.test",
	"slow.test" };

static void
dns_read(evutil_socket_t fd, short what, void *arg)
{
	uint8_t q[512], r[512];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t n =
	    recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from, &fl);
	char name[256];
	size_t off = 12, nl = 0, rl;
	unsigned qtype;
	int idx = -1, rcode = 0, nans = 0;
	uint8_t addrs[4][16];
	int alen = 4;

	(void)what;
	(void)arg;
	if (n < 17)
		return;
	while (off < (size_t)n && q[off] != 0 && nl < 200) {
		unsigned l = q[off];

		if (off + 1 + l > (size_t)n)
			return;
		if (nl > 0)
			name[nl++] = '.';
		memcpy(name + nl, q + off + 1, l);
		nl += l;
		off += 1 + l;
	}
	name[nl] = '\0';
	off++;
	if (off + 4 > (size_t)n)
		return;
	qtype = (unsigned)q[off] << 8 | q[off + 1];
	off += 4;
	for (int i = 0; i < N_COUNT; i++)
		if (strcasecmp(name, dns_names[i]) == 0)
			idx = i;
	if (qtype == 1 && idx >= 0)
		bump(&dns_queries[idx]);
	if (idx == N_SLOW)
		return; /* never answer */
	if (idx < 0 || idx == N_NX)
		rcode = 3;
	else if (idx == N_SERVFAIL)
		rcode = 2;
	else if (qtype == 1) {
		const char *a[2] = { NULL, NULL };

		switch (idx) {
		case N_ALLOWED:
			a[0] = "127.0.0.1";
			break;
		case N_REBIND:
			a[0] = get_int(&dns_queries[N_REBIND]) == 1
			    ? "127.0.0.1"
			    : "127.0.0.3";
			break;
		case N_MIXED:
			a[0] = "127.0.0.1";
			a[1] = "127.0.0.3";
			break;
		case N_RETRY:
			a[0] = "127.0.0.5";
			a[1] = "127.0.0.1";
			break;
		default:
			break;
		}
		for (int i = 0; i < 2 && a[i] != NULL; i++)
			inet_pton(AF_INET, a[i], addrs[nans++]);
	} else if (qtype == 28 && idx == N_V6ONLY) {
		inet_pton(AF_INET6, "fd00::1", addrs[nans++]);
		alen = 16;
	}
	memcpy(r, q, off);
	r[2] = 0x81;
	r[3] = (uint8_t)(0x80 | rcode);
	r[6] = 0;
	r[7] = (uint8_t)nans;
	r[8] = r[9] = r[10] = r[11] = 0;
	rl = off;
	for (int i = 0; i < nans; i++) {
		uint8_t rr[12] = { 0xc0, 0x0c, 0, (uint8_t)qtype, 0, 1, 0, 0, 0,
			0, 0, (uint8_t)alen };

		memcpy(r + rl, rr, 12);
		memcpy(r + rl + 12, addrs[i], (size_t)alen);
		rl += 12 + (size_t)alen;
	}
	sendto(fd, r, rl, 0, (struct sockaddr *)&from, fl);
}

/* ---- the event thread ---- */

static struct event_base *base;

static void *
loop_main(void *arg)
{
	(void)arg;
	event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

/* ---- client helpers ---- */

static int
cli_connect(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct timeval tv = { 3, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
cli_send(int fd, const void *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
}

static void
cli_sends(int fd, const char *s)
{
	cli_send(fd, s, strlen(s));
}

/* Read until the end of a head (or EOF/timeout).  Returns bytes read. */
static size_t
cli_read_head(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);

		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			break;
	}
	buf[n] = '\0';
	return n;
}

/* Read until EOF; *how gets 0 on EOF, the errno on error/timeout. */
static size_t
cli_read_all(int fd, char *buf, size_t cap, int *how)
{
	size_t n = 0;

	*how = 0;
	for (;;) {
		ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);

		if (r == 0)
			break;
		if (r < 0) {
			*how = errno;
			break;
		}
		n += (size_t)r;
		if (n + 1 >= cap)
			break;
	}
	buf[n] = '\0';
	return n;
}

static int
status_of(const char *buf)
{
	int s = 0;

	if (strncmp(buf, "HTTP/1.1 ", 9) == 0)
		sscanf(buf + 9, "%3d", &s);
	return s;
}

/* Send a request, read the whole answer to EOF. */
static int
roundtrip(int port, const char *req, char *buf, size_t cap, bool *closed)
{
	int fd = cli_connect(port), how;

	if (fd < 0)
		return -1;
	cli_sends(fd, req);
	cli_read_all(fd, buf, cap, &how);
	*closed = how == 0;
	close(fd);
	return status_of(buf);
}

/* Copy what the HTTP upstream last received. */
static void
copy_seen(char *out, size_t cap)
{
	pthread_mutex_lock(&mu);
	axg_strlcpy(out, http_seen, cap);
	pthread_mutex_unlock(&mu);
}

/* ---- cases ---- */

struct deny_case {
	const char *name;
	const char *req; /* %d: echo port, %h: http port (by order) */
	int status;
	const char *stage;
	const char *body; /* substring of the answer */
};

static void
run_refusal(const char *name, const char *req, int status, const char *stage,
    const char *want, int want_kind)
{
	char buf[4096];
	bool closed;
	int base_recs = get_int(&nrecs);
	int e0 = get_int(&echo_accepts), h0 = get_int(&http_accepts);
	int got = roundtrip(px_port, req, buf, sizeof(buf), &closed), n;
	struct rec r;

	is_int(got, status, "%s: status %d", name, status);
	ok(closed, "%s: connection closed", name);
	ok(strstr(buf, "Connection: close") != NULL, "%s: Connection: close",
	    name);
	if (want != NULL)
		like_str(buf, want, "%s: answer names it", name);
	n = records_since(base_recs, 1);
	is_int(n, 1, "%s: exactly one audit record", name);
	r = rec_at(base_recs);
	ok(!r.dialed && get_int(&echo_accepts) == e0 &&
		get_int(&http_accepts) == h0,
	    "%s: no upstream dial", name);
	is_str(r.stage, stage, "%s: decided at %s", name, stage);
	if (want_kind >= 0)
		is_int(r.kind, want_kind, "%s: record kind", name);
}

static void
test_connect_refusals(void)
{
	char req[512];

	snprintf(req, sizeof(req),
	    "CONNECT evil.test:%d HTTP/1.1\r\nHost: evil.test:%d\r\n\r\n",
	    echo_port, echo_port);
	run_refusal("CONNECT denied host", req, 403, "connect",
	    "{\"error\":\"policy_denied\",\"reason\":\"host evil.test not "
	    "allowed\",\"rule\":\"hosts\"}",
	    PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT allowed.test:22 HTTP/1.1\r\nHost: x\r\n\r\n");
	run_refusal("CONNECT allowed host, denied port", req, 403, "connect",
	    "\"rule\":\"ports\"", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT evil.test:%d HTTP/1.1\r\nHost: x\r\n\r\n"
	    "GET http://allowed.test:%d/cl HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\n\r\n",
	    echo_port, http_port, http_port);
	run_refusal("pipelined request after a denied CONNECT", req, 403,
	    "connect", "policy_denied", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT evil.test:%d HTTP/1.1\r\nHost: x\r\n\r\n"
	    "\x16\x03\x01\x01\x05hello",
	    tls_port);
	run_refusal("early TLS bytes after a denied CONNECT", req, 403,
	    "connect", "policy_denied", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT 127.0.0.3:%d HTTP/1.1\r\nHost: x\r\n\r\n", echo_port);
	run_refusal("CONNECT literal address not listed", req, 403, "connect",
	    "policy_denied", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n", px_port);
	run_refusal("CONNECT to the proxy itself", req, 403, "address",
	    "\"rule\":\"self\"", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT 0x7f.1:%d HTTP/1.1\r\nHost: x\r\n\r\n", px_port);
	run_refusal("CONNECT to the proxy itself, legacy spelling", req, 403,
	    "address", "\"rule\":\"self\"", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
	    px_port, px_port);
	run_refusal("absolute-form request to the proxy's own address", req,
	    403, "address", "\"rule\":\"self\"", PX_AUDIT_HTTP);
	snprintf(req, sizeof(req),
	    "CONNECT mixed.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", echo_port);
	run_refusal("name with a mixed answer", req, 403, "address",
	    "127.0.0.3 is loopback", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT v6only.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", echo_port);
	run_refusal("AAAA-only unique-local answer", req, 403, "address",
	    "fd00::1 is unique-local", PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT nx.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", echo_port);
	run_refusal("NXDOMAIN", req, 502, "dns", "upstream_failed",
	    PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT servfail.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", echo_port);
	run_refusal("SERVFAIL", req, 502, "dns", "upstream_failed",
	    PX_AUDIT_CONNECT);
	{
		uint64_t t0 = axg_monotonic_ns();

		snprintf(req, sizeof(req),
		    "CONNECT slow.test:%d HTTP/1.1\r\nHost: x\r\n\r\n",
		    echo_port);
		run_refusal("resolver never answers", req, 504, "dns",
		    "upstream_timeout", PX_AUDIT_CONNECT);
		ok(axg_monotonic_ns() - t0 < 2500000000ull,
		    "DNS timeout is bounded");
	}
	snprintf(req, sizeof(req),
	    "CONNECT allowed.test HTTP/1.1\r\nHost: x\r\n\r\n");
	run_refusal("CONNECT without a port", req, 400, "parse", "missing port",
	    PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT allowed.test:%d HTTP/1.1\r\nHost: x\r\nContent-Length: "
	    "5\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n",
	    echo_port);
	run_refusal("CL and TE", req, 400, "parse", "bad_request", -1);
	snprintf(req, sizeof(req),
	    "CONNECT bad_host.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", echo_port);
	run_refusal("invalid host name", req, 400, "parse", "invalid character",
	    PX_AUDIT_CONNECT);
	snprintf(req, sizeof(req),
	    "CONNECT [fe80::1%%25eth0]:%d HTTP/1.1\r\nHost: x\r\n\r\n",
	    echo_port);
	run_refusal("zone id", req, 400, "parse", "zone", PX_AUDIT_CONNECT);
	run_refusal("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505,
	    "parse", "bad_request", PX_AUDIT_REJECT);
	{
		char big[20000];

		memset(big, 'a', sizeof(big));
		memcpy(big, "CONNECT ", 8);
		big[sizeof(big) - 1] = '\0';
		/* a CONNECT, even one too long to parse */
		run_refusal("1 MiB-style long host", big, 414, "parse",
		    "head_too_large", PX_AUDIT_CONNECT);
	}
}

static int tunnel_proxy_port; /* 0: px_port */

static int
open_tunnel(const char *host, int port, char *head, size_t cap)
{
	char req[512];
	int fd = cli_connect(tunnel_proxy_port ? tunnel_proxy_port : px_port);

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req),
	    "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host, port, host,
	    port);
	cli_sends(fd, req);
	cli_read_head(fd, head, cap);
	return fd;
}

static void
test_tunnels(void)
{
	char head[1024], buf[4096];
	int base_recs, fd, how, e0;
	struct rec r;
	size_t n;

	/* allowed tunnel, echo, half-close */
	base_recs = get_int(&nrecs);
	e0 = get_int(&echo_accepts);
	fd = open_tunnel("allowed.test", echo_port, head, sizeof(head));
	is_int(status_of(head), 200, "CONNECT allowed: 200");
	cli_sends(fd, "ping through the tunnel");
	shutdown(fd, SHUT_WR);
	n = cli_read_all(fd, buf, sizeof(buf), &how);
	ok(n == 23 && memcmp(buf, "ping through the tunnel", 23) == 0 &&
		how == 0,
	    "echo comes back and the half-close passes both ways");
	close(fd);
	is_int(records_since(base_recs, 1), 1, "tunnel: exactly one record");
	r = rec_at(base_recs);
	ok(r.outcome == PX_OUTCOME_ALLOWED && r.dialed && r.up == 23 &&
		r.down == 23 && strcmp(r.host, "allowed.test") == 0 &&
		strcmp(r.rule, "test-allow") == 0,
	    "tunnel record: allowed, dialed, 23 bytes each way, rule");
	is_int(get_int(&echo_accepts), e0 + 1, "tunnel: one upstream dial");

	/* legacy IPv4 spelling canonicalised before the decision */
	base_recs = get_int(&nrecs);
	snprintf(buf, sizeof(buf), "%d", echo_port);
	fd = open_tunnel("2130706433", echo_port, head, sizeof(head));
	is_int(status_of(head), 200,
	    "CONNECT 2130706433: decided as 127.0.0.1");
	/* an address needs no lookup and a local upstream answers at once:
	 * still, only what follows the head goes up the tunnel */
	cli_sends(fd, "ping by address");
	shutdown(fd, SHUT_WR);
	n = cli_read_all(fd, buf, sizeof(buf), &how);
	ok(n == 15 && memcmp(buf, "ping by address", 15) == 0,
	    "tunnel to an address: the echo is exactly what was sent");
	close(fd);
	records_since(base_recs, 1);
	is_str(rec_at(base_recs).host, "127.0.0.1",
	    "the record names the canonical host");

	/* DNS rebinding: the first answer is dialed; never a second lookup */
	base_recs = get_int(&nrecs);
	fd = open_tunnel("rebind.test", echo_port, head, sizeof(head));
	is_int(status_of(head), 200, "rebind.test first answer 127.0.0.1: 200");
	cli_sends(fd, "x");
	n = (size_t)recv(fd, buf, sizeof(buf), 0);
	ok(n == 1, "rebind tunnel works");
	is_int(get_int(&dns_queries[N_REBIND]), 1,
	    "one A query for the tunnel (no second resolution)");
	close(fd);
	records_since(base_recs, 1);
	base_recs = get_int(&nrecs);
	fd = open_tunnel("rebind.test", echo_port, head, sizeof(head));
	is_int(status_of(head), 403,
	    "rebind.test second answer 127.0.0.3: 403 address");
	close(fd);
	records_since(base_recs, 1);
	is_str(rec_at(base_recs).stage, "address",
	    "refused at the address check");

	/* next judged address after a refused dial */
	base_recs = get_int(&nrecs);
	e0 = get_int(&echo_accepts);
	fd = open_tunnel("retry.test", echo_port, head, sizeof(head));
	is_int(status_of(head), 200,
	    "retry.test: 127.0.0.5 refuses, 127.0.0.1 answers: 200");
	is_int(get_int(&dns_queries[N_RETRY]), 1,
	    "retry used the same answer (one A query)");
	close(fd);
	is_int(records_since(base_recs, 1), 1, "retry: exactly one record");
	is_str(rec_at(base_recs).upstream, "127.0.0.1",
	    "retry: the record names the judged address that answered");
	is_int(get_int(&echo_accepts), e0 + 1, "retry: dialed the echo once");

	/* a bigger transfer: backpressure keeps it flowing */
	{
		static char big[1 << 20], back[1 << 20];
		size_t sent = 0, got = 0;
		struct pollfd pfd;
		int rounds = 0;

		for (size_t i = 0; i < sizeof(big); i++)
			big[i] = (char)(i * 7);
		base_recs = get_int(&nrecs);
		fd = open_tunnel("allowed.test", echo_port, head, sizeof(head));
		pfd.fd = fd;
		while (got < sizeof(big) && rounds++ < 20000) {
			pfd.events =
			    POLLIN | (sent < sizeof(big) ? POLLOUT : 0);
			if (poll(&pfd, 1, 3000) <= 0)
				break;
			if ((pfd.revents & POLLOUT) && sent < sizeof(big)) {
				ssize_t w = send(fd, big + sent,
				    sizeof(big) - sent > 65536
					? 65536
					: sizeof(big) - sent,
				    MSG_DONTWAIT | MSG_NOSIGNAL);
				if (w > 0)
					sent += (size_t)w;
			}
			if (pfd.revents & POLLIN) {
				ssize_t rr = recv(fd, back + got,
				    sizeof(back) - got, MSG_DONTWAIT);
				if (rr <= 0)
					break;
				got += (size_t)rr;
			}
		}
		ok(got == sizeof(big) && memcmp(big, back, got) == 0,
		    "1 MiB echoed intact through the tunnel");
		close(fd);
		is_int(records_since(base_recs, 1), 1,
		    "1 MiB tunnel: exactly one record");
	}
}

/* Build a ClientHello record with the given SNI (NULL: none). */
static size_t
hello(uint8_t *out, const char *sni)
{
	uint8_t b[512];
	size_t n = 0, sl = sni ? strlen(sni) : 0, ext = sni ? sl + 9 : 0;

	b[n++] = 1;
	b[n++] = 0;
	b[n++] = 0;
	b[n++] = (uint8_t)(2 + 32 + 1 + 4 + 2 + 2 + ext);
	b[n++] = 3;
	b[n++] = 3;
	memset(b + n, 1, 32);
	n += 32;
	b[n++] = 0;
	b[n++] = 0;
	b[n++] = 2;
	b[n++] = 0x13;
	b[n++] = 1;
	b[n++] = 1;
	b[n++] = 0;
	b[n++] = 0;
	b[n++] = (uint8_t)ext;
	if (sni) {
		b[n++] = 0;
		b[n++] = 0;
		b[n++] = 0;
		b[n++] = (uint8_t)(sl + 5);
		b[n++] = 0;
		b[n++] = (uint8_t)(sl + 3);
		b[n++] = 0;
		b[n++] = 0;
		b[n++] = (uint8_t)sl;
		memcpy(b + n, sni, sl);
		n += sl;
	}
	out[0] = 22;
	out[1] = 3;
	out[2] = 1;
	out[3] = 0;
	out[4] = (uint8_t)n;
	memcpy(out + 5, b, n);
	return n + 5;
}

static void
sni_case(const char *name, const char *sni, const char *raw, bool want_ok)
{
	uint8_t h[600];
	char head[1024], buf[1024];
	size_t hl = raw ? strlen(raw) : hello(h, sni);
	int base_recs = get_int(&nrecs), fd, how;
	size_t n;
	struct rec r;

	fd = open_tunnel("allowed.test", tls_port, head, sizeof(head));
	is_int(status_of(head), 200, "%s: 200 before the ClientHello", name);
	cli_send(fd, raw ? (const void *)raw : h, hl);
	if (want_ok) {
		n = 0;
		while (n < hl) {
			ssize_t rr = recv(fd, buf + n, sizeof(buf) - n, 0);

			if (rr <= 0)
				break;
			n += (size_t)rr;
		}
		ok(n == hl && memcmp(buf, h, hl) == 0,
		    "%s: hello passed to the upstream", name);
		close(fd);
		records_since(base_recs, 1);
		r = rec_at(base_recs);
		ok(r.outcome == PX_OUTCOME_ALLOWED &&
			strcmp(r.sni, sni ? sni : "") == 0,
		    "%s: allowed record with the SNI", name);
		return;
	}
	n = cli_read_all(fd, buf, sizeof(buf), &how);
	ok(n == 0 && (how == ECONNRESET || how == 0),
	    "%s: tunnel reset, nothing forwarded", name);
	close(fd);
	is_int(records_since(base_recs, 1), 1, "%s: exactly one record", name);
	r = rec_at(base_recs);
	ok(r.outcome == PX_OUTCOME_DENIED && strcmp(r.stage, "sni") == 0 &&
		r.up == 0,
	    "%s: denied at sni, no bytes up", name);
}

static void
test_sni(void)
{
	sni_case("SNI matches", "allowed.test", NULL, true);
	sni_case("SNI mismatch", "evil.test", NULL, false);
	sni_case("SNI absent", NULL, NULL, false);
	sni_case("SNI an IP literal", "127.0.0.1", NULL, false);
	sni_case("plain HTTP on a TLS port", NULL,
	    "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
	/* proxy B runs sni_mode MATCH_IF_SET */
	tunnel_proxy_port = pxb_port;
	sni_case("match-if-set: SNI absent allowed", NULL, NULL, true);
	sni_case("match-if-set: SNI mismatch", "evil.test", NULL, false);
	sni_case("match-if-set: plain HTTP", NULL,
	    "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
	tunnel_proxy_port = 0;
}

static void
test_http(void)
{
	char req[1024], buf[8192];
	bool closed;
	int base_recs, h0, fd, how;
	struct rec r;

	/* allowed GET, rewritten to origin-form */
	base_recs = get_int(&nrecs);
	h0 = get_int(&http_accepts);
	snprintf(req, sizeof(req),
	    "GET http://Allowed.TEST:%d/cl?q=1 HTTP/1.1\r\nHost: "
	    "allowed.test.:%d\r\nProxy-Connection: keep-alive\r\n"
	    "Connection: close, X-Hop\r\nX-Hop: 1\r\nX-End: 2\r\n\r\n",
	    http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 200,
	    "GET allowed: 200");
	like_str(buf, "\r\n\r\nhello", "GET allowed: body");
	like_str(buf, "Via: 1.1 axgate", "response has Via");
	ok(strstr(buf, "Keep-Alive:") == NULL,
	    "hop-by-hop response field removed");
	copy_seen(req, sizeof(req));
	like_str(req, "GET /cl?q=1 HTTP/1.1\r\n", "upstream got origin-form");
	ok(strstr(req, "Proxy-Connection") == NULL &&
		strstr(req, "X-Hop") == NULL,
	    "hop-by-hop request fields removed");
	like_str(req, "X-End: 2", "end-to-end field kept");
	like_str(req, "Via: 1.1 axgate", "Via added upstream");
	is_int(records_since(base_recs, 1), 1, "GET: exactly one record");
	r = rec_at(base_recs);
	ok(r.kind == PX_AUDIT_HTTP && r.status == 200 && r.dialed &&
		strcmp(r.method, "GET") == 0,
	    "GET record: http, 200, dialed");
	is_int(get_int(&http_accepts), h0 + 1, "GET: one upstream dial");

	/* chunked response, close-delimited response */
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/chunked HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nConnection: close\r\n\r\n",
	    http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 200,
	    "chunked response: 200");
	like_str(buf, "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
	    "chunked response relayed");
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/chunked HTTP/1.0\r\n\r\n", http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 200,
	    "HTTP/1.0 client, chunked upstream answer: 200");
	ok(strstr(buf, "\r\n\r\nhello world") != NULL &&
		strstr(buf, "Transfer-Encoding") == NULL && closed,
	    "HTTP/1.0 client gets the body decoded, delimited by the close");
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/eof HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\n\r\n",
	    http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 200,
	    "close-delimited response: 200");
	ok(strstr(buf, "until-close") != NULL && closed,
	    "close-delimited body relayed, then the client is closed");

	/* keep-alive: the second request is decided on its own */
	base_recs = get_int(&nrecs);
	h0 = get_int(&http_accepts);
	fd = cli_connect(px_port);
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/chunked HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\n\r\n",
	    http_port, http_port);
	cli_sends(fd, req);
	{
		size_t n = 0;

		while (
		    n < sizeof(buf) - 1 && strstr(buf, "0\r\n\r\n") == NULL) {
			ssize_t rr = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);

			if (rr <= 0)
				break;
			n += (size_t)rr;
			buf[n] = '\0';
		}
	}
	ok(status_of(buf) == 200 &&
		strstr(buf, "Connection: keep-alive") != NULL,
	    "keep-alive: first request 200, connection kept");
	snprintf(req, sizeof(req),
	    "GET http://evil.test:%d/ HTTP/1.1\r\nHost: evil.test:%d\r\n\r\n",
	    http_port, http_port);
	cli_sends(fd, req);
	cli_read_all(fd, buf, sizeof(buf), &how);
	ok(status_of(buf) == 403 && how == 0,
	    "keep-alive: second request to another host re-decided: 403, "
	    "closed");
	close(fd);
	is_int(records_since(base_recs, 2), 2, "keep-alive: two records");
	is_int(get_int(&http_accepts), h0 + 1,
	    "keep-alive: the denied request dialed nothing");

	/* chunked request body streamed */
	snprintf(req, sizeof(req),
	    "POST http://allowed.test:%d/cl HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n0\r\n\r\n",
	    http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 200,
	    "chunked POST: 200");
	copy_seen(req, sizeof(req));
	like_str(req, "\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	    "chunked body reached the upstream");

	/* refusals on the plain path */
	snprintf(req, sizeof(req),
	    "GET http://evil.test:%d/ HTTP/1.1\r\nHost: evil.test:%d\r\n\r\n",
	    http_port, http_port);
	run_refusal("GET denied host", req, 403, "http", "policy_denied",
	    PX_AUDIT_HTTP);
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
	    http_port);
	run_refusal("Host differs from the target", req, 400, "parse",
	    "Host does not match", PX_AUDIT_HTTP);
	run_refusal("origin-form to the proxy",
	    "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, "parse",
	    "origin-form", PX_AUDIT_HTTP);
	snprintf(req, sizeof(req),
	    "GET https://allowed.test:%d/ HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\n\r\n",
	    http_port, http_port);
	run_refusal("https:// on the plain path", req, 400, "parse",
	    "use CONNECT", PX_AUDIT_HTTP);
	snprintf(req, sizeof(req),
	    "POST http://allowed.test:%d/ HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nContent-Length: 5\r\nContent-Length: "
	    "6\r\n\r\nhello",
	    http_port, http_port);
	run_refusal("two Content-Lengths", req, 400, "parse", "bad_request",
	    PX_AUDIT_REJECT);
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test:%d\r\n"
	    "Via: 1.1 axgate\r\n\r\n",
	    http_port, http_port);
	run_refusal("Via loop", req, 508, "parse", "Via", PX_AUDIT_HTTP);
	snprintf(req, sizeof(req),
	    "GET http://127.0.0.3:%d/ HTTP/1.1\r\nHost: 127.0.0.3:%d\r\n\r\n",
	    http_port, http_port);
	run_refusal("GET literal internal address", req, 403, "http",
	    "policy_denied", PX_AUDIT_HTTP);

	/* body limits and framing errors inside the body */
	snprintf(req, sizeof(req),
	    "POST http://allowed.test:%d/cl HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nContent-Length: 2000000\r\n\r\nxx",
	    http_port, http_port);
	run_refusal("Content-Length over the body limit", req, 413, "limit",
	    "body_too_large", PX_AUDIT_HTTP);
	base_recs = get_int(&nrecs);
	snprintf(req, sizeof(req),
	    "POST http://allowed.test:%d/cl HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "ffffffffffffffff1\r\nx\r\n0\r\n\r\n",
	    http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 400,
	    "chunk size overflow in a streamed body: 400");
	ok(closed, "chunk size overflow: connection closed");
	is_int(records_since(base_recs, 1), 1, "chunk overflow: one record");

	/* two pipelined requests, both allowed, answered in order */
	base_recs = get_int(&nrecs);
	h0 = get_int(&http_accepts);
	snprintf(req, sizeof(req),
	    "GET http://allowed.test:%d/chunked HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\n\r\n"
	    "GET http://allowed.test:%d/cl HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nConnection: close\r\n\r\n",
	    http_port, http_port, http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 200,
	    "pipelined: first answer 200");
	{
		const char *second = strstr(buf, "0\r\n\r\nHTTP/1.1 200");

		ok(second != NULL && strstr(second, "hello") != NULL && closed,
		    "pipelined: second answer follows, then close");
	}
	is_int(records_since(base_recs, 2), 2, "pipelined: two records");
	is_int(get_int(&http_accepts), h0 + 2,
	    "pipelined: each request its own upstream");

	/* the scan hook blocks a body */
	base_recs = get_int(&nrecs);
	snprintf(req, sizeof(req),
	    "POST http://allowed.test:%d/cl HTTP/1.1\r\nHost: "
	    "allowed.test:%d\r\nContent-Length: 8\r\n\r\nxSECRETx",
	    http_port, http_port);
	is_int(roundtrip(px_port, req, buf, sizeof(buf), &closed), 403,
	    "scan hook blocks the body: 403");
	like_str(buf, "test secret in body", "answer gives the scan reason");
	is_int(records_since(base_recs, 1), 1,
	    "scan block: exactly one record");
	is_str(rec_at(base_recs).stage, "scan", "scan block: stage");
}

static int
run_curl(const char *args, char *out, size_t cap)
{
	char cmd[1024];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "curl -sS --max-time 5 %s 2>&1", args);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	{
		char sink[4096];

		/* read the rest so curl never sees a closed pipe */
		while (fread(sink, 1, sizeof(sink), p) > 0)
			;
	}
	return pclose(p);
}

static void
test_curl(void)
{
	char args[512], out[4096];
	int base_recs;

	if (access("/usr/bin/curl", X_OK) != 0) {
		tap_skip("curl -x", "curl is not installed");
		tap_skip("curl --proxytunnel", "curl is not installed");
		tap_skip("curl -x denied", "curl is not installed");
		return;
	}
	base_recs = get_int(&nrecs);
	snprintf(args, sizeof(args),
	    "-x http://127.0.0.1:%d http://allowed.test:%d/cl", px_port,
	    http_port);
	ok(run_curl(args, out, sizeof(out)) == 0 && strcmp(out, "hello") == 0,
	    "curl -x: body through the proxy");
	snprintf(args, sizeof(args),
	    "--proxytunnel -x http://127.0.0.1:%d http://allowed.test:%d/cl",
	    px_port, http_port);
	ok(run_curl(args, out, sizeof(out)) == 0 && strcmp(out, "hello") == 0,
	    "curl --proxytunnel: body through a CONNECT tunnel");
	snprintf(args, sizeof(args),
	    "-w '%%{http_code}' -o /dev/null -x http://127.0.0.1:%d "
	    "http://evil.test:%d/cl",
	    px_port, http_port);
	run_curl(args, out, sizeof(out));
	is_str(out, "403", "curl -x denied host: 403");
	is_int(records_since(base_recs, 3), 3, "curl: one record per request");
}

/* ---- HTTPS through a tunnel: a test CA made with the openssl CLI ---- */

static char tmpdir[64];
static pid_t srv_pid;

static int
free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* Make the CA and a certificate for allowed.test, start s_server. */
static bool
https_setup(void)
{
	char cmd[2048], arg[64];
	FILE *p;
	int fd = -1;

	if (access("/usr/bin/openssl", X_OK) != 0 ||
	    access("/usr/bin/curl", X_OK) != 0)
		return false;
	axg_strlcpy(tmpdir, "/tmp/t-proxy-XXXXXX", sizeof(tmpdir));
	if (mkdtemp(tmpdir) == NULL)
		return false;
	snprintf(cmd, sizeof(cmd),
	    "cd %s && ( "
	    "openssl req -x509 -newkey ec -pkeyopt "
	    "ec_paramgen_curve:prime256v1 "
	    "-nodes -keyout ca.key -out ca.pem -days 1 -subj "
	    "/CN=axgate-test-ca "
	    "&& openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
	    "-nodes -keyout srv.key -out srv.csr -subj /CN=allowed.test && "
	    "printf 'subjectAltName=DNS:allowed.test\\n' > ext.cnf && "
	    "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key "
	    "-CAcreateserial -out srv.pem -days 1 -extfile ext.cnf "
	    ") >/dev/null 2>&1 && echo ok",
	    tmpdir);
	p = popen(cmd, "r");
	if (p == NULL || fgets(arg, sizeof(arg), p) == NULL ||
	    strncmp(arg, "ok", 2) != 0) {
		if (p != NULL)
			pclose(p);
		return false;
	}
	pclose(p);
	https_port = free_port();
	srv_pid = fork();
	if (srv_pid == 0) {
		char acc[32], cert[128], key[128];
		int devnull = open("/dev/null", O_RDWR);

		snprintf(acc, sizeof(acc), "127.0.0.1:%d", https_port);
		snprintf(cert, sizeof(cert), "%s/srv.pem", tmpdir);
		snprintf(key, sizeof(key), "%s/srv.key", tmpdir);
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execl("/usr/bin/openssl", "openssl", "s_server", "-quiet",
		    "-accept", acc, "-cert", cert, "-key", key, "-www",
		    (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 300 && fd < 0; i++) {
		fd = cli_connect(https_port);
		if (fd < 0)
			msleep(10);
	}
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void
https_teardown(void)
{
	char cmd[128];
	FILE *p;

	if (srv_pid > 0) {
		kill(srv_pid, SIGTERM);
		waitpid(srv_pid, NULL, 0);
	}
	if (tmpdir[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		p = popen(cmd, "r");
		if (p != NULL)
			pclose(p);
	}
}

static void
test_https(bool ready)
{
	char args[1024], out[4096];
	int base_recs;
	struct rec r;

	if (!ready) {
		for (int i = 0; i < 6; i++)
			tap_skip("HTTPS through a tunnel",
			    "openssl or curl missing, or s_server did not "
			    "start");
		return;
	}
	base_recs = get_int(&nrecs);
	snprintf(args, sizeof(args),
	    "--proxytunnel -x http://127.0.0.1:%d --cacert %s/ca.pem "
	    "https://allowed.test:%d/",
	    px_port, tmpdir, https_port);
	ok(run_curl(args, out, sizeof(out)) == 0 &&
		strstr(out, "s_server") != NULL,
	    "curl https through CONNECT: verified TLS to the test upstream");
	records_since(base_recs, 1);
	r = rec_at(base_recs);
	ok(r.outcome == PX_OUTCOME_ALLOWED &&
		strcmp(r.sni, "allowed.test") == 0,
	    "the record carries the ClientHello's SNI");

	base_recs = get_int(&nrecs);
	snprintf(args, sizeof(args),
	    "--proxytunnel -x http://127.0.0.1:%d --cacert %s/ca.pem "
	    "--connect-to evil.test:%d:allowed.test:%d https://evil.test:%d/",
	    px_port, tmpdir, https_port, https_port, https_port);
	ok(run_curl(args, out, sizeof(out)) != 0,
	    "CONNECT allowed.test with SNI evil.test: curl fails");
	is_int(records_since(base_recs, 1), 1, "SNI mismatch: one record");
	r = rec_at(base_recs);
	ok(r.outcome == PX_OUTCOME_DENIED && strcmp(r.stage, "sni") == 0 &&
		strcmp(r.sni, "evil.test") == 0,
	    "SNI mismatch: denied at sni, SNI recorded");

	snprintf(args, sizeof(args),
	    "-w '%%{http_code}' -o /dev/null -x http://127.0.0.1:%d "
	    "https://evil.test:%d/",
	    px_port, https_port);
	run_curl(args, out, sizeof(out));
	ok(strncmp(out, "403", 3) == 0 || strstr(out, "403") != NULL,
	    "CONNECT to a denied host for https: 403");
}

/* {CONNECT, plain HTTP} x {TLS, plain} x {allowed, denied host} x
 * {allowed, denied port}: status, connection state, one record, dial. */
static void
test_matrix(bool tls_ready)
{
	for (int m = 0; m < 16; m++) {
		bool connect = m & 8, tls = m & 4, host_ok = m & 2,
		     port_ok = m & 1;
		const char *host = host_ok ? "allowed.test" : "evil.test";
		int port = port_ok ? (tls ? https_port : http_port) : 8443;
		char name[128], req[512], buf[8192];
		int base_recs = get_int(&nrecs), fd, how, want, accepts0;
		int *accepts = tls ? NULL : &http_accepts;
		struct rec r;
		size_t n;

		snprintf(name, sizeof(name), "matrix %s %s host %s port %s",
		    connect ? "CONNECT" : "plain-HTTP", tls ? "TLS" : "plain",
		    host_ok ? "allowed" : "denied",
		    port_ok ? "allowed" : "denied");
		if (tls && !tls_ready) {
			tap_skip(name, "no TLS test upstream");
			continue;
		}
		accepts0 = accepts ? get_int(accepts) : 0;
		if (connect)
			snprintf(req, sizeof(req),
			    "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n",
			    host, port, host, port);
		else
			snprintf(req, sizeof(req),
			    "GET %s://%s:%d/cl HTTP/1.1\r\nHost: %s:%d\r\n\r\n",
			    tls ? "https" : "http", host, port, host, port);
		want = !connect && tls ? 400 : host_ok && port_ok ? 200 : 403;
		fd = cli_connect(px_port);
		cli_sends(fd, req);
		if (want != 200) {
			cli_read_all(fd, buf, sizeof(buf), &how);
			ok(status_of(buf) == want && how == 0,
			    "%s: %d and closed", name, want);
			close(fd);
			is_int(records_since(base_recs, 1), 1, "%s: one record",
			    name);
			r = rec_at(base_recs);
			ok(!r.dialed &&
				(!accepts || get_int(accepts) == accepts0),
			    "%s: no dial", name);
			continue;
		}
		if (connect) {
			cli_read_head(fd, buf, sizeof(buf));
			is_int(status_of(buf), 200, "%s: 200", name);
			if (tls) {
				uint8_t h[600];
				size_t hl = hello(h, "allowed.test");

				cli_send(fd, h, hl);
			} else {
				cli_sends(fd,
				    "GET /cl HTTP/1.1\r\nHost: "
				    "allowed.test\r\n\r\n");
			}
		}
		n = cli_read_all(fd, buf, sizeof(buf), &how);
		if (tls) {
			size_t off = 0;

			/* a ServerHello or an alert: either is TLS from the
			 * upstream, through the tunnel */
			ok(off + 5 <= n &&
				(buf[off] == 0x16 || buf[off] == 0x15) &&
				buf[off + 1] == 3,
			    "%s: 200 and a TLS record back", name);
			if (off + 5 > n) {
				char esc[256];

				axg_str_escape(esc, sizeof(esc), buf, n);
				tap_diag("got %zu bytes: %s", n, esc);
			}
		} else
			ok(memmem(buf, n, "hello", 5) != NULL &&
				strncmp(buf, "HTTP/1.1 200", 12) == 0,
			    "%s: the upstream's 200 and body", name);
		close(fd);
		is_int(records_since(base_recs, 1), 1, "%s: one record", name);
		r = rec_at(base_recs);
		ok(r.dialed && r.outcome == PX_OUTCOME_ALLOWED &&
			(!accepts || get_int(accepts) == accepts0 + 1),
		    "%s: dialed once", name);
	}
}

static void
test_ipv6_listener(void)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct timeval tv = { 3, 0 };
	char req[256], buf[2048];
	int fd, how, base_recs;

	if (px6_port == 0) {
		tap_skip("IPv6 listener", "no ::1 on this machine");
		tap_skip("IPv6 listener record", "no ::1 on this machine");
		return;
	}
	base_recs = get_int(&nrecs);
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	s6.sin6_port = htons((uint16_t)px6_port);
	s6.sin6_addr = in6addr_loopback;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&s6, sizeof(s6)) != 0) {
		close(fd);
		fd = -1;
	}
	snprintf(req, sizeof(req),
	    "CONNECT [::1]:%d HTTP/1.1\r\nHost: [::1]:%d\r\n\r\n", echo_port,
	    echo_port);
	if (fd >= 0) {
		cli_sends(fd, req);
		cli_read_all(fd, buf, sizeof(buf), &how);
		close(fd);
	} else {
		buf[0] = '\0';
	}
	is_int(status_of(buf), 403, "IPv6 listener: CONNECT [::1] denied");
	records_since(base_recs, 1);
	is_str(rec_at(base_recs).host, "::1", "IPv6 listener: canonical host");
}

static void
test_limits(void)
{
	int a, b, c, how, base_recs;
	char buf[1024];

	/* proxy B: 2 connections per client, 300 ms head timeout */
	a = cli_connect(pxb_port);
	b = cli_connect(pxb_port);
	msleep(50);
	base_recs = get_int(&nrecs);
	c = cli_connect(pxb_port);
	cli_read_all(c, buf, sizeof(buf), &how);
	is_int(status_of(buf), 503, "third connection from a client: 503");
	like_str(buf, "too many connections from this client",
	    "the limit is named");
	is_int(records_since(base_recs, 1), 1, "limit: exactly one record");
	close(c);
	/* slowloris: a partial head then silence */
	base_recs = get_int(&nrecs);
	cli_sends(a, "GET http://allowed.test/ HT");
	cli_read_all(a, buf, sizeof(buf), &how);
	is_int(status_of(buf), 408, "partial head past the head timeout: 408");
	is_int(records_since(base_recs, 1), 1, "head timeout: one record");
	/* an idle connection without a byte is closed without a record */
	base_recs = get_int(&nrecs);
	cli_read_all(b, buf, sizeof(buf), &how);
	ok(how == 0, "silent connection closed at the head timeout");
	is_int(records_since(base_recs, 0), 0, "no record for no request");
	close(a);
	close(b);
	/* idle tunnel */
	{
		char req[256], head[512];
		int fd = cli_connect(pxb_port);
		uint64_t t0;
		struct rec r;

		base_recs = get_int(&nrecs);
		snprintf(req, sizeof(req),
		    "CONNECT allowed.test:%d HTTP/1.1\r\nHost: x\r\n\r\n",
		    echo_port);
		cli_sends(fd, req);
		cli_read_head(fd, head, sizeof(head));
		is_int(status_of(head), 200, "proxy B tunnel: 200");
		t0 = axg_monotonic_ns();
		cli_read_all(fd, buf, sizeof(buf), &how);
		ok(how == 0 && axg_monotonic_ns() - t0 < 2000000000ull,
		    "idle tunnel closed by the idle timeout");
		close(fd);
		is_int(records_since(base_recs, 1), 1, "idle: one record");
		r = rec_at(base_recs);
		is_str(r.stage, "idle", "idle: stage");
	}
	/* a busy tunnel still ends at its lifetime */
	{
		char req[256], head[512];
		int fd = cli_connect(pxb_port), rounds = 0;
		uint64_t t0 = axg_monotonic_ns();
		bool open = true;

		base_recs = get_int(&nrecs);
		snprintf(req, sizeof(req),
		    "CONNECT allowed.test:%d HTTP/1.1\r\nHost: x\r\n\r\n",
		    echo_port);
		cli_sends(fd, req);
		cli_read_head(fd, head, sizeof(head));
		while (open && rounds++ < 40) {
			ssize_t rr;

			cli_sends(fd, "x");
			rr = recv(fd, buf, sizeof(buf), 0);
			open = rr > 0;
			msleep(50);
		}
		ok(!open && axg_monotonic_ns() - t0 < 1500000000ull,
		    "busy tunnel closed at its lifetime");
		close(fd);
		is_int(records_since(base_recs, 1), 1, "lifetime: one record");
		is_str(rec_at(base_recs).stage, "lifetime", "lifetime: stage");
	}
	/* Connections are handed over once their client has sent
	 * (TCP_DEFER_ACCEPT): two silent ones do not yet count against the
	 * limit of 2 per client, so a third that sends its head at once is
	 * served; the silent ones are handed over later and closed at the
	 * head timeout. */
	{
		char req[256], head[512];
		int s1 = cli_connect(pxb_port), s2 = cli_connect(pxb_port);
		int fd = cli_connect(pxb_port);

		snprintf(req, sizeof(req),
		    "CONNECT allowed.test:%d HTTP/1.1\r\nHost: x\r\n\r\n",
		    echo_port);
		cli_sends(fd, req);
		cli_read_head(fd, head, sizeof(head));
		is_int(status_of(head), 200,
		    "silent connections do not count until they send");
		close(fd);
		cli_read_all(s1, buf, sizeof(buf), &how);
		ok(how == 0, "a silent connection is closed in the end");
		cli_read_all(s2, buf, sizeof(buf), &how);
		ok(how == 0, "... and the other one");
		close(s1);
		close(s2);
	}
}

int
main(void)
{
	struct px_config cfg, cfgb;
	struct px_decider dec = { .decide_connect = dec_connect,
		.decide_address = dec_address,
		.decide_http = dec_http };
	struct px_audit_hook audit = { .record = on_record };
	struct px_scan_hook scan = { .on_body = scan_body };
	struct px_proxy *px, *pxb;
	struct evconnlistener *le, *lt, *lh;
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct event *dns_ev;
	evutil_socket_t dfd;
	pthread_t th;
	char err[256];
	bool https_ready;

	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	base = event_base_new();
	le = listen_on(base, "127.0.0.1", echo_accept, &echo_accepts,
	    &echo_port);
	lt = listen_on(base, "127.0.0.1", echo_accept, &tls_accepts, &tls_port);
	lh = listen_on(base, "127.0.0.1", http_accept, NULL, &http_port);
	if (le == NULL || lt == NULL || lh == NULL)
		tap_skip_all("cannot listen on 127.0.0.1");
	/* DNS on UDP 127.0.0.1 */
	dfd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &sin->sin_addr);
	{
		socklen_t l = sizeof(*sin);

		if (bind(dfd, (struct sockaddr *)sin, sizeof(*sin)) != 0 ||
		    getsockname(dfd, (struct sockaddr *)sin, &l) != 0)
			tap_skip_all("cannot bind UDP on 127.0.0.1");
	}
	dns_port = ntohs(sin->sin_port);
	evutil_make_socket_nonblocking(dfd);
	dns_ev = event_new(base, dfd, EV_READ | EV_PERSIST, dns_read, NULL);
	event_add(dns_ev, NULL);

	px_config_default(&cfg);
	snprintf(cfg.resolver, sizeof(cfg.resolver), "127.0.0.1:%d", dns_port);
	cfg.dns_timeout_ms = 800;
	cfg.max_request_body = 1024 * 1024;
	cfg.connect_timeout_ms = 1000;
	cfg.tls_ports[0] = (uint16_t)tls_port;
	cfg.tls_ports[1] = 0;
	https_ready = https_setup();
	cfg.tls_ports[1] = (uint16_t)https_port;
	cfg.tls_ports[2] = 0;
	px = px_proxy_new(base, &cfg, &dec, &audit, &scan, err, sizeof(err));
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &sin->sin_addr);
	if (px == NULL || px_proxy_listen(px, &ss, err, sizeof(err)) != 0)
		tap_skip_all("cannot start the proxy");
	px_port = ntohs(sin->sin_port);
	{
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		memset(&ss, 0, sizeof(ss));
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		if (px_proxy_listen(px, &ss, err, sizeof(err)) == 0)
			px6_port = ntohs(s6->sin6_port);
	}

	cfgb = cfg;
	cfgb.max_conns_per_client = 2;
	cfgb.head_timeout_ms = 300;
	cfgb.idle_timeout_ms = 300;
	cfgb.sni_mode = PX_SNI_MATCH_IF_SET;
	cfgb.lifetime_ms = 800;
	pxb = px_proxy_new(base, &cfgb, &dec, &audit, NULL, err, sizeof(err));
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &sin->sin_addr);
	if (pxb == NULL || px_proxy_listen(pxb, &ss, err, sizeof(err)) != 0)
		tap_skip_all("cannot start the second proxy");
	pxb_port = ntohs(sin->sin_port);

	pthread_create(&th, NULL, loop_main, NULL);
	test_connect_refusals();
	test_tunnels();
	test_sni();
	test_http();
	test_curl();
	test_https(https_ready);
	test_matrix(https_ready);
	test_ipv6_listener();
	test_limits();
	event_base_loopbreak(base);
	pthread_join(th, NULL);

	{
		struct px_stats st;

		px_proxy_stats(px, &st);
		ok(st.accepted > 0 && st.denied > 0 && st.allowed > 0 &&
			st.dns_failures >= 3,
		    "stats count connections, decisions and DNS failures");
	}
	px_proxy_free(px);
	px_proxy_free(pxb);
	evconnlistener_free(le);
	evconnlistener_free(lt);
	evconnlistener_free(lh);
	event_free(dns_ev);
	close(dfd);
	event_base_free(base);
	https_teardown();
	return tap_done();
}
