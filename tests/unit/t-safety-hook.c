/*
 * Tests of the leak hook in a real proxy: three px_proxy instances on
 * 127.0.0.1 (block, redact and log mode, one scanner) and an HTTP upstream
 * that records every byte it receives, all on one event loop in a second
 * thread.  The test sends requests over blocking sockets, in several
 * writes, with secrets in the query, a header and the body (Content-Length
 * and chunked, split across writes and chunks), and checks the status,
 * what reached the upstream, the findings reported and the audit path.
 */
#include "config.h"

#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>

#include "common/common.h"
#include "proxy/proxy.h"
#include "safety/safety.h"
#include "tests/tap.h"

/* Made-up tokens in the shape of a GitHub classic PAT. */
#define TOK	 "ghp_R7kQ2mXv9LpT4wZs8NbY3cHd6FjG1aUe5Kio"
#define TOK2	 "ghp_Zq8Wn3Lk5Pv1Xc7Bm2Rt9Yd4Hs6Jf0GaEuTi"
#define TOK_RULE "github-pat"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct event_base *base;

/* ---- what the upstream received ---- */

static int up_accepts;	    /* connections */
static size_t up_bytes;	    /* bytes, all connections */
static char up_last[65536]; /* the last complete request */
static int up_done;	    /* complete requests */
static char up_cur[65536];  /* what the latest connection received */

/* ---- findings and audit records ---- */

struct seen {
	char rule[64], where[64], preview[LEAK_PREVIEW_MAX];
	enum leak_action action;
	uint64_t offset, length;
};

#define MAX_SEEN 64
static struct seen seen[MAX_SEEN];
static int nseen;
static char audit_path[4096];
static char audit_stage[32];
static char audit_reason[160];
static int naudit;

static void
on_report(void *arg, const struct leak_report *r)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	if (nseen < MAX_SEEN) {
		struct seen *s = &seen[nseen++];

		axg_strlcpy(s->rule, r->rule_id, sizeof(s->rule));
		axg_strlcpy(s->where, r->where, sizeof(s->where));
		axg_strlcpy(s->preview, r->preview, sizeof(s->preview));
		s->action = r->action;
		s->offset = r->offset;
		s->length = r->length;
	}
	pthread_mutex_unlock(&mu);
}

static void
on_record(void *arg, const struct px_audit_record *r)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	axg_strlcpy(audit_path, r->path != NULL ? r->path : "",
	    sizeof(audit_path));
	axg_strlcpy(audit_stage, r->stage, sizeof(audit_stage));
	axg_strlcpy(audit_reason, r->reason != NULL ? r->reason : "",
	    sizeof(audit_reason));
	naudit++;
	pthread_mutex_unlock(&mu);
}

static int
dec_http(void *arg, const struct px_http_info *req, struct px_decision *out)
{
	(void)arg;
	(void)req;
	memset(out, 0, sizeof(*out));
	out->allow = true;
	axg_strlcpy(out->rule, "test", sizeof(out->rule));
	return 0;
}

static int
dec_address(void *arg, const struct px_hostport *t, const struct sockaddr *sa,
    struct px_decision *out)
{
	(void)arg;
	(void)t;
	(void)sa;
	memset(out, 0, sizeof(*out));
	out->allow = true;
	return 0;
}

/* ---- the upstream: records, answers once a request is complete ---- */

struct upconn {
	struct axg_buf in;
	bool answered;
};

static bool
request_complete(const char *p, size_t n)
{
	const char *end = memmem(p, n, "\r\n\r\n", 4);
	size_t head, body;
	const char *cl;

	if (end == NULL)
		return false;
	head = (size_t)(end - p) + 4;
	body = n - head;
	if (memmem(p, head, "Transfer-Encoding: chunked", 26) != NULL)
		return (body >= 5 && memcmp(p + head, "0\r\n\r\n", 5) == 0) ||
		    memmem(p + head, body, "\r\n0\r\n\r\n", 7) != NULL;
	cl = memmem(p, head, "Content-Length: ", 16);
	if (cl != NULL) {
		unsigned long want = strtoul(cl + 16, NULL, 10);

		return body >= want;
	}
	return true;
}

static void
up_free(struct bufferevent *bev, struct upconn *u)
{
	axg_buf_free(&u->in);
	free(u);
	bufferevent_free(bev);
}

static void
up_write(struct bufferevent *bev, void *arg)
{
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		up_free(bev, arg);
}

static void up_event(struct bufferevent *bev, short what, void *arg);

static void
up_read(struct bufferevent *bev, void *arg)
{
	struct upconn *u = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n = evbuffer_get_length(in);

	axg_buf_reserve(&u->in, n);
	evbuffer_remove(in, u->in.data + u->in.len, n);
	u->in.len += n;
	u->in.data[u->in.len] = '\0';
	pthread_mutex_lock(&mu);
	up_bytes += n;
	axg_strlcpy(up_cur, u->in.data, sizeof(up_cur));
	if (!u->answered && request_complete(u->in.data, u->in.len)) {
		u->answered = true;
		axg_strlcpy(up_last, u->in.data, sizeof(up_last));
		up_done++;
		pthread_mutex_unlock(&mu);
		evbuffer_add_printf(bufferevent_get_output(bev),
		    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
		    "Connection: close\r\n\r\nok");
		bufferevent_setcb(bev, up_read, up_write, up_event, u);
		return;
	}
	pthread_mutex_unlock(&mu);
}

static void
up_event(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		up_free(bev, arg);
}

static void
up_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct bufferevent *bev;
	struct upconn *u = axg_calloc(1, sizeof(*u));

	(void)l;
	(void)sa;
	(void)salen;
	(void)arg;
	axg_buf_init(&u->in, 0);
	pthread_mutex_lock(&mu);
	up_accepts++;
	pthread_mutex_unlock(&mu);
	bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(bev, up_read, NULL, up_event, u);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static void *
loop(void *arg)
{
	(void)arg;
	event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

/* ---- the client side ---- */

static int up_port;

static void
msleep(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A snapshot of the counters before a request. */
struct mark {
	int accepts, done, seen, audit;
	size_t bytes;
};

static struct mark
mark_now(void)
{
	struct mark m;

	pthread_mutex_lock(&mu);
	m.accepts = up_accepts;
	m.done = up_done;
	m.seen = nseen;
	m.audit = naudit;
	m.bytes = up_bytes;
	pthread_mutex_unlock(&mu);
	return m;
}

/* Send the parts (NULL-terminated) to the proxy on port, 60 ms apart,
 * and read the answer until the proxy closes; return the status. */
static int
request(int port, const char *const *parts)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char buf[4096];
	size_t got = 0;
	int fd, status = -1;

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	sin.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		goto out;
	for (size_t i = 0; parts[i] != NULL; i++) {
		if (i > 0)
			msleep(60);
		if (send(fd, parts[i], strlen(parts[i]), MSG_NOSIGNAL) < 0)
			break;
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pfd, 1, 3000) <= 0 || got + 1 >= sizeof(buf))
			break;
		r = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	if (got > 12 && strncmp(buf, "HTTP/1.1 ", 9) == 0)
		status = (int)strtol(buf + 9, NULL, 10);
out:
	if (fd >= 0)
		close(fd);
	msleep(80); /* let the records and the upstream settle */
	if (status != 200) {
		pthread_mutex_lock(&mu);
		tap_diag("status %d, stage %s: %s", status, audit_stage,
		    audit_reason);
		pthread_mutex_unlock(&mu);
	}
	return status;
}

static void
last_request(char *out, size_t len)
{
	pthread_mutex_lock(&mu);
	axg_strlcpy(out, up_last, len);
	pthread_mutex_unlock(&mu);
}

static struct seen
seen_at(int i)
{
	struct seen s;

	pthread_mutex_lock(&mu);
	s = seen[i];
	pthread_mutex_unlock(&mu);
	return s;
}

static bool
audit_has_secret(void)
{
	bool r;

	pthread_mutex_lock(&mu);
	r = strstr(audit_path, TOK) != NULL;
	pthread_mutex_unlock(&mu);
	return r;
}

/* Undo chunked framing of the body after the head in req (in place). */
static const char *
dechunk(char *req)
{
	char *p = strstr(req, "\r\n\r\n"), *o, *start;

	if (p == NULL)
		return "";
	p += 4;
	o = start = p;
	if (strstr(req, "Transfer-Encoding: chunked") == NULL)
		return p;
	for (;;) {
		char *e;
		unsigned long n = strtoul(p, &e, 16);

		if (n == 0 || strncmp(e, "\r\n", 2) != 0)
			break;
		memmove(o, e + 2, n);
		o += n;
		p = e + 2 + n + 2;
	}
	*o = '\0';
	return start;
}

/* ---- the cases ---- */

static int pxb_port, pxr_port, pxl_port;

static void
t_block(void)
{
	char body[256], head[512], big[20000];
	struct mark m;
	int st;

	/* a token in the query string */
	m = mark_now();
	snprintf(head, sizeof(head),
	    "GET http://127.0.0.1:%d/x?access_token=" TOK
	    "&a=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
	    up_port, up_port);
	st = request(pxb_port, (const char *const[]){ head, NULL });
	is_int(st, 403, "block: token in the query => 403");
	is_int(mark_now().accepts, m.accepts, "block: query: no upstream");
	ok(mark_now().seen > m.seen, "block: query: a finding reported");
	if (mark_now().seen > m.seen) {
		struct seen s = seen_at(m.seen);

		is_str(s.rule, TOK_RULE, "block: query: rule id");
		is_str(s.where, "url", "block: query: where");
		is_int(s.action, LEAK_ACTION_BLOCKED, "block: query: action");
		ok(strstr(s.preview, "R7kQ2mXv9") == NULL,
		    "block: query: the preview is masked (%s)", s.preview);
	}
	ok(!audit_has_secret(), "block: query: the audit path has no secret");
	like_str(audit_path, "%5BREDACTED:" TOK_RULE "%5D",
	    "block: query: the audit path is redacted");

	/* a token in a header */
	m = mark_now();
	snprintf(head, sizeof(head),
	    "GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Authorization: token " TOK "\r\n\r\n",
	    up_port, up_port);
	st = request(pxb_port, (const char *const[]){ head, NULL });
	is_int(st, 403, "block: token in a header => 403");
	is_int(mark_now().accepts, m.accepts, "block: header: no upstream");
	if (mark_now().seen > m.seen) {
		struct seen s = seen_at(m.seen);

		is_str(s.where, "header:Authorization", "block: header: where");
		is_int(s.offset, 6, "block: header: offset in the value");
		is_int(s.length, 40, "block: header: length");
	} else {
		ok(0, "block: header: a finding reported");
	}

	/* Content-Length body, the token split across two writes */
	m = mark_now();
	snprintf(body, sizeof(body), "{\"prompt\":\"use %s please\"}", TOK);
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/v1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n"
	    "%.30s",
	    up_port, up_port, strlen(body), body);
	st = request(pxb_port, (const char *const[]){ head, body + 30, NULL });
	is_int(st, 403, "block: token split in a Content-Length body => 403");
	is_int(mark_now().bytes, m.bytes,
	    "block: length body: not a byte reached the upstream");
	ok(mark_now().seen > m.seen &&
		strcmp(seen_at(m.seen).where, "body") == 0,
	    "block: length body: reported in the body");
	if (mark_now().seen > m.seen)
		is_int(seen_at(m.seen).offset, 15, "block: body offset");

	/* chunked body, the token split across two chunks and writes */
	m = mark_now();
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/v1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"
	    "10\r\nkey is ghp_R7kQ2\r\n",
	    up_port, up_port);
	st = request(pxb_port,
	    (const char *const[]){ head,
		"1f\r\nmXv9LpT4wZs8NbY3cHd6FjG1aUe5Kio\r\n", "0\r\n\r\n",
		NULL });
	is_int(st, 403, "block: token split across chunks => 403");
	is_int(mark_now().bytes, m.bytes,
	    "block: chunked body: not a byte reached the upstream");

	/* a clean request goes through, body intact */
	m = mark_now();
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/ok HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Content-Length: 11\r\n\r\nhello world",
	    up_port, up_port);
	st = request(pxb_port, (const char *const[]){ head, NULL });
	is_int(st, 200, "block: a clean request => 200");
	is_int(mark_now().done, m.done + 1, "block: clean: upstream got it");
	{
		char got[65536];

		last_request(got, sizeof(got));
		like_str(got, "Content-Length: 11\r\n",
		    "block: clean: framing kept");
		like_str(got, "\r\n\r\nhello world",
		    "block: clean: body intact");
	}
	is_int(mark_now().seen, m.seen, "block: clean: no finding");

	/* a long clean prefix, then the token: the prefix may go, the
	 * token never */
	m = mark_now();
	memset(big, 'a', sizeof(big));
	for (size_t i = 80; i < 18000; i += 81)
		big[i] = '\n';
	memcpy(big + 18000, " " TOK " ", 42);
	big[18042] = '\0';
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/big HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Content-Length: %zu\r\n\r\n",
	    up_port, up_port, strlen(big));
	st = request(pxb_port, (const char *const[]){ head, big, NULL });
	is_int(st, 403, "block: token after 18 KB => 403");
	is_int(mark_now().done, m.done,
	    "block: big: the upstream never got a whole request");
	{
		char got[65536];

		pthread_mutex_lock(&mu);
		axg_strlcpy(got, up_cur, sizeof(got));
		pthread_mutex_unlock(&mu);
		ok(strstr(got, "ghp_") == NULL,
		    "block: big: no token upstream");
	}
}

static void
t_redact(void)
{
	char head[1024], got[65536];
	struct mark m;
	int st;

	m = mark_now();
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/v1?key=" TOK " HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%d\r\nAuthorization: Bearer " TOK "\r\n"
	    "Content-Length: 42\r\n\r\nk=ghp_R7kQ2mXv9LpT4",
	    up_port, up_port);
	st = request(pxr_port,
	    (const char *const[]){ head, "wZs8NbY3cHd6FjG1aUe5Kio", NULL });
	is_int(st, 200, "redact: forwarded => 200");
	last_request(got, sizeof(got));
	ok(strstr(got, "ghp_") == NULL,
	    "redact: no token reached the upstream");
	like_str(got, "/v1?key=%5BREDACTED:" TOK_RULE "%5D HTTP/1.1",
	    "redact: the query is redacted");
	like_str(got, "Authorization: Bearer [REDACTED:",
	    "redact: the header value is redacted");
	/* the client sent a Content-Length: so does the proxy, the new one */
	like_str(got, "\r\nContent-Length: 23\r\n",
	    "redact: the body keeps a Content-Length, the redacted length");
	ok(strstr(got, "Transfer-Encoding") == NULL &&
		strstr(got, "Content-Length: 42") == NULL,
	    "redact: not chunked, no stale Content-Length");
	{
		const char *b = strstr(got, "\r\n\r\n");
		is_str(b != NULL ? b + 4 : "", "k=[REDACTED:" TOK_RULE "]",
		    "redact: the body is redacted");
	}
	ok(mark_now().seen - m.seen >= 3, "redact: three findings reported");
	if (mark_now().seen > m.seen)
		is_int(seen_at(m.seen).action, LEAK_ACTION_REDACTED,
		    "redact: action");

	/* chunked, split across chunks, in a long body */
	{
		static char body[30000];
		char *at = body;

		m = mark_now();
		memset(body, 0, sizeof(body));
		for (int i = 0; i < 300; i++)
			at += snprintf(at, sizeof(body) - (size_t)(at - body),
			    "line %03d of clean text, nothing to see here at "
			    "all\n",
			    i);
		snprintf(at, sizeof(body) - (size_t)(at - body),
		    "token: %s end\n", TOK);
		snprintf(head, sizeof(head),
		    "POST http://127.0.0.1:%d/up HTTP/1.1\r\nHost: "
		    "127.0.0.1:%d\r\nTransfer-Encoding: chunked\r\n\r\n",
		    up_port, up_port);
		{
			size_t n = strlen(body), cut = n - 30;
			char *c1 = axg_malloc(cut + 32);
			char c2[128];

			snprintf(c1, cut + 32, "%zx\r\n%.*s\r\n", cut, (int)cut,
			    body);
			snprintf(c2, sizeof(c2), "%zx\r\n%s\r\n0\r\n\r\n",
			    n - cut, body + cut);
			st = request(pxr_port,
			    (const char *const[]){ head, c1, c2, NULL });
			free(c1);
		}
		is_int(st, 200, "redact: long chunked body => 200");
		last_request(got, sizeof(got));
		ok(strstr(got, "ghp_") == NULL,
		    "redact: long body: no token upstream");
		{
			const char *want =
			    "token: [REDACTED:" TOK_RULE "] end\n";
			size_t n =
			    strlen(body) - strlen("token: " TOK " end\n");
			const char *d = dechunk(got);

			is_int(strlen(d), n + strlen(want),
			    "redact: long body: length");
			ok(strncmp(d, body, n) == 0,
			    "redact: long body: clean text intact");
			like_str(d, want, "redact: long body: token replaced");
		}
	}

	/* a clean request in redact mode is forwarded as it was */
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/c HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Content-Length: 5\r\n\r\nhello",
	    up_port, up_port);
	st = request(pxr_port, (const char *const[]){ head, NULL });
	is_int(st, 200, "redact: clean => 200");
	last_request(got, sizeof(got));
	like_str(got, "\r\nContent-Length: 5\r\n\r\nhello",
	    "redact: clean body intact, with its Content-Length");
}

static void
t_log(void)
{
	char head[512], got[65536];
	struct mark m;
	int st;

	m = mark_now();
	snprintf(head, sizeof(head),
	    "POST http://127.0.0.1:%d/v1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Content-Length: 48\r\n\r\ntoken=" TOK " x",
	    up_port, up_port);
	st = request(pxl_port, (const char *const[]){ head, NULL });
	is_int(st, 200, "log: forwarded => 200");
	last_request(got, sizeof(got));
	like_str(got, "Content-Length: 48\r\n", "log: framing kept");
	like_str(got, "\r\n\r\ntoken=" TOK " x",
	    "log: the upstream got the body as sent");
	ok(mark_now().seen == m.seen + 1, "log: one finding reported");
	if (mark_now().seen > m.seen) {
		is_int(seen_at(m.seen).action, LEAK_ACTION_LOGGED,
		    "log: action");
		is_int(seen_at(m.seen).offset, 6, "log: offset in the body");
	}
	/* a token in the query: forwarded as sent, audited redacted */
	m = mark_now();
	snprintf(head, sizeof(head),
	    "GET http://127.0.0.1:%d/x?access_token=" TOK
	    "&a=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
	    up_port, up_port);
	st = request(pxl_port, (const char *const[]){ head, NULL });
	is_int(st, 200, "log: token in the query => 200");
	last_request(got, sizeof(got));
	like_str(got, "GET /x?access_token=" TOK "&a=1 HTTP/1.1",
	    "log: query: the upstream got the URL as sent");
	ok(mark_now().audit > m.audit, "log: query: audited");
	ok(!audit_has_secret(), "log: query: the audit path has no secret");
	like_str(audit_path, "/x?access_token=%5BREDACTED:" TOK_RULE "%5D&a=1",
	    "log: query: the audit path is redacted");
}

static void
t_ignored(void)
{
	char head[512];
	int st;

	/* TOK2 is registered as the proxy's own credential */
	snprintf(head, sizeof(head),
	    "GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Authorization: token " TOK2 "\r\n\r\n",
	    up_port, up_port);
	st = request(pxb_port, (const char *const[]){ head, NULL });
	is_int(st, 200, "block: an ignored value is not a finding");
}

static void
t_connect(struct leak_hook *hb, struct leak_hook *hl)
{
	char why[160] = "";
	struct mark m;

	is_int(leak_hook_connect(hb, "api.github.com", 14, why, sizeof(why)),
	    LEAK_ALLOW, "connect: a clean host is allowed");
	is_int(leak_hook_connect(hb, TOK ".exfil.example",
		   strlen(TOK ".exfil.example"), why, sizeof(why)),
	    LEAK_BLOCK, "connect: a token as a DNS label blocks");
	like_str(why, TOK_RULE, "connect: the reason names the rule");
	m = mark_now();
	is_int(leak_hook_connect(hb,
		   "ghp_R7kQ2mXv9LpT4wZs8N.bY3cHd6FjG1aUe5Kio.x.example", 51,
		   why, sizeof(why)),
	    LEAK_BLOCK, "connect: a token split over labels blocks");
	if (mark_now().seen > m.seen) {
		is_str(seen_at(m.seen).where, "connect", "connect: where");
		is_int(seen_at(m.seen).offset, 0, "connect: offset");
		is_int(seen_at(m.seen).length, 41,
		    "connect: length spans the dot");
	} else {
		ok(0, "connect: a finding reported");
	}
	m = mark_now();
	is_int(leak_hook_connect(hl, TOK ".exfil.example",
		   strlen(TOK ".exfil.example"), why, sizeof(why)),
	    LEAK_ALLOW, "connect: log mode allows");
	is_int(mark_now().seen, m.seen + 1, "connect: log mode reports");
}

static void
t_modes(void)
{
	enum leak_mode m = LEAK_MODE_OFF;

	is_int(leak_mode_parse("redact", &m), 0, "mode: redact parses");
	is_int(m, LEAK_MODE_REDACT, "mode: redact");
	is_int(leak_mode_parse("loud", &m), -1, "mode: unknown refused");
	is_str(leak_mode_name(LEAK_MODE_BLOCK), "block", "mode: name");
	is_str(leak_action_name(LEAK_ACTION_REDACTED), "redacted",
	    "action: name");
}

static struct px_proxy *
start_proxy(const struct px_scan_hook *scan, int *port)
{
	struct px_decider dec = { .decide_address = dec_address,
		.decide_http = dec_http };
	struct px_audit_hook audit = { .record = on_record };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct px_config cfg;
	struct px_proxy *px;
	char err[256];

	px_config_default(&cfg);
	cfg.max_request_body = 1024 * 1024;
	px = px_proxy_new(base, &cfg, &dec, &audit, scan, err, sizeof(err));
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &sin->sin_addr);
	if (px == NULL || px_proxy_listen(px, &ss, err, sizeof(err)) != 0)
		tap_skip_all("cannot start a proxy on 127.0.0.1");
	*port = ntohs(sin->sin_port);
	return px;
}

int
main(void)
{
	struct leak_ruleset *rs;
	struct leak_scan *sc;
	struct leak_hook *hb, *hr, *hl, *ho;
	struct px_scan_hook sb, sr, sl, so;
	struct px_proxy *pxb, *pxr, *pxl;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	struct evconnlistener *lu;
	pthread_t th;
	char err[256];

	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	rs = leak_ruleset_new(NULL, err, sizeof(err));
	sc = rs != NULL ? leak_scan_new(rs, err, sizeof(err)) : NULL;
	if (sc == NULL) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	leak_scan_ignore_value(sc, TOK2, strlen(TOK2));
	hb = leak_hook_new(sc, LEAK_MODE_BLOCK, on_report, NULL);
	hr = leak_hook_new(sc, LEAK_MODE_REDACT, on_report, NULL);
	hl = leak_hook_new(sc, LEAK_MODE_LOG, on_report, NULL);
	ho = leak_hook_new(sc, LEAK_MODE_OFF, on_report, NULL);
	leak_hook_fill(hb, &sb);
	leak_hook_fill(hr, &sr);
	leak_hook_fill(hl, &sl);
	leak_hook_fill(ho, &so);

	base = event_base_new();
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	lu = evconnlistener_new_bind(base, up_accept, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 64,
	    (struct sockaddr *)&sin, sizeof(sin));
	if (lu == NULL)
		tap_skip_all("cannot listen on 127.0.0.1");
	getsockname(evconnlistener_get_fd(lu), (struct sockaddr *)&sin, &slen);
	up_port = ntohs(sin.sin_port);
	pxb = start_proxy(&sb, &pxb_port);
	pxr = start_proxy(&sr, &pxr_port);
	pxl = start_proxy(&sl, &pxl_port);
	ok(so.filter_head == NULL && so.on_body == NULL,
	    "off: the hook has no callbacks");
	pthread_create(&th, NULL, loop, NULL);

	t_modes();
	t_block();
	t_redact();
	t_log();
	t_ignored();
	t_connect(hb, hl);

	event_base_loopbreak(base);
	pthread_join(th, NULL);
	px_proxy_free(pxb);
	px_proxy_free(pxr);
	px_proxy_free(pxl);
	evconnlistener_free(lu);
	event_base_free(base);
	leak_hook_free(hb);
	leak_hook_free(hr);
	leak_hook_free(hl);
	leak_hook_free(ho);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return tap_done();
}
