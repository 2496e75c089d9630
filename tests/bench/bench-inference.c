/*
 * bench-inference.c: what inference routing adds, on loopback only.
 *
 * A backend (a child process) answers every POST with a fixed OpenAI-style
 * JSON body, or with an SSE stream of STREAM_EVENTS events when the body
 * asks for one.  The proxy runs on its own event loop in a thread with an
 * inference hook that routes everything to the backend and injects a key.
 * The client is a blocking socket in the main thread.  Every figure is
 * printed next to the same request sent to the backend directly, in the
 * same run.
 *
 *  1. Non-streamed call: p50/p99 latency through inference.local against
 *     direct, with one kept client connection (the proxy's backend
 *     connection pooled, the direct client's kept) and with a new client
 *     connection per call; the added p50.
 *  2. Streamed call: events per second through the proxy against direct.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>

#include "common/common.h"
#include "proxy/proxy.h"

#define CALLS	      2000
#define STREAMS	      5
#define STREAM_EVENTS 20000

static const char answer[] =
    "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}],"
    "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}";
static const char event[] =
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok\"}}]}\n\n";

/* ---- the backend (child process) ---- */

static void be_event(struct bufferevent *bev, short what, void *arg);

static void
be_written(struct bufferevent *bev, void *arg)
{
	(void)arg;
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		bufferevent_free(bev);
}

static void
be_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer *out = bufferevent_get_output(bev);
	bool closing = false;

	(void)arg;
	for (;;) {
		struct evbuffer_ptr end;
		size_t len = evbuffer_get_length(in), hl;
		const char *p, *cl;
		unsigned long need = 0;

		end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
		if (end.pos < 0)
			break;
		hl = (size_t)end.pos + 4;
		p = (const char *)evbuffer_pullup(in, -1);
		cl = strstr(p, "Content-Length: ");
		if (cl != NULL && cl < p + end.pos)
			need = strtoul(cl + 16, NULL, 10);
		if (len < hl + need)
			break;
		closing = memmem(p, hl, "Connection: close", 17) != NULL;
		if (memmem(p + hl, need, "\"stream\":true", 13) != NULL) {
			evbuffer_add_printf(out,
			    "HTTP/1.1 200 OK\r\nContent-Type: "
			    "text/event-stream\r\n"
			    "Transfer-Encoding: chunked\r\n%s\r\n",
			    closing ? "Connection: close\r\n" : "");
			for (int i = 0; i < STREAM_EVENTS; i++)
				evbuffer_add_printf(out, "%zx\r\n%s\r\n",
				    sizeof(event) - 1, event);
			evbuffer_add_printf(out, "0\r\n\r\n");
		} else {
			evbuffer_add_printf(out,
			    "HTTP/1.1 200 OK\r\nContent-Type: application/json"
			    "\r\nContent-Length: %zu\r\n%s\r\n%s",
			    sizeof(answer) - 1,
			    closing ? "Connection: close\r\n" : "", answer);
		}
		evbuffer_drain(in, hl + need);
		if (closing)
			break;
	}
	if (closing) {
		evbuffer_drain(in, evbuffer_get_length(in));
		bufferevent_setcb(bev, NULL, be_written, be_event, NULL);
	}
}

static void
be_event(struct bufferevent *bev, short what, void *arg)
{
	(void)what;
	(void)arg;
	bufferevent_free(bev);
}

static void
be_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct bufferevent *bev =
	    bufferevent_socket_new(evconnlistener_get_base(l), fd,
		BEV_OPT_CLOSE_ON_FREE);

	(void)sa;
	(void)salen;
	(void)arg;
	bufferevent_setcb(bev, be_read, NULL, be_event, NULL);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static int
listen_loopback(int *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(fd, 1024) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) < 0)
		axg_fatal(1, "listen: %s", strerror(errno));
	*port = ntohs(sin.sin_port);
	return fd;
}

static pid_t
start_backend(int *port)
{
	int fd = listen_loopback(port);
	pid_t pid = fork();

	if (pid < 0)
		axg_fatal(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct event_base *b = event_base_new();

		evutil_make_socket_nonblocking(fd);
		evconnlistener_new(b, be_accept, NULL, LEV_OPT_CLOSE_ON_FREE,
		    -1, fd);
		alarm(600);
		event_base_dispatch(b);
		_exit(0);
	}
	close(fd);
	return pid;
}

/* ---- the proxy (a thread) ---- */

static int be_port;
static bool bench_pool = true; /* false: a new backend connection per call */

static int
route(void *arg, void *snap, const struct px_inf_request *req,
    struct px_inf_route *out)
{
	(void)arg;
	(void)snap;
	axg_strlcpy(out->route, "bench", sizeof(out->route));
	axg_strlcpy(out->provider, "openai", sizeof(out->provider));
	snprintf(out->url, sizeof(out->url), "http://127.0.0.1:%d%s", be_port,
	    req->path);
	out->key = axg_strdup("sk-bench-0123456789");
	out->pool_max_idle = bench_pool ? 8 : 0;
	out->pool_idle_ms = 30000;
	return 0;
}

static void
finish(void *arg, void *snap, void *call, const struct px_inf_result *res)
{
	(void)arg;
	(void)snap;
	(void)call;
	(void)res;
}

static void *
proxy_main(void *arg)
{
	event_base_dispatch(arg);
	return NULL;
}

/* ---- the client ---- */

static int
dial(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		axg_fatal(1, "connect: %s", strerror(errno));
	return fd;
}

/* One request; the answer's size.  keep: on *fdp (dialled if -1), the
 * answer read by its Content-Length; else on a new connection with
 * `Connection: close`, read until the server closes. */
static size_t
call(int port, int *fdp, bool via_proxy, bool stream, bool keep)
{
	char req[1024], buf[65536];
	const char *body = stream ? "{\"model\":\"m\",\"stream\":true,"
				    "\"messages\":[{\"role\":\"user\","
				    "\"content\":\"hi\"}]}"
				  : "{\"model\":\"m\",\"messages\":[{\"role\":"
				    "\"user\",\"content\":\"hi\"}]}";
	int fd, n;
	size_t got = 0, want = 0;
	ssize_t r;

	if (keep && *fdp < 0)
		*fdp = dial(port);
	fd = keep ? *fdp : dial(port);
	n = snprintf(req, sizeof(req),
	    "POST %s/v1/chat/completions HTTP/1.1\r\nHost: %s\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n"
	    "%s",
	    via_proxy ? "http://inference.local" : "",
	    via_proxy ? "inference.local" : "127.0.0.1", strlen(body),
	    keep ? "" : "Connection: close\r\n", body);
	if (write(fd, req, (size_t)n) != n)
		axg_fatal(1, "write: %s", strerror(errno));
	while ((r = read(fd, buf + (keep ? got : 0),
		    keep ? sizeof(buf) - 1 - got : sizeof(buf))) > 0) {
		got += (size_t)r;
		if (keep) {
			char *e, *cl;

			buf[got] = '\0';
			e = strstr(buf, "\r\n\r\n");
			if (e == NULL)
				continue;
			if (want == 0) {
				cl = strstr(buf, "Content-Length: ");
				if (cl == NULL || cl > e)
					axg_fatal(1, "no Content-Length");
				want = (size_t)(e + 4 - buf) +
				    strtoul(cl + 16, NULL, 10);
			}
			if (got >= want)
				break;
		}
	}
	if (!keep)
		close(fd);
	else if (r <= 0)
		axg_fatal(1, "the kept connection closed");
	return got;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
latency(int port, bool via_proxy, bool keep, uint64_t *p50, uint64_t *p99)
{
	static uint64_t t[CALLS];
	int fd = -1;

	for (int i = 0; i < 50; i++)
		(void)call(port, &fd, via_proxy, false, keep);
	for (int i = 0; i < CALLS; i++) {
		uint64_t t0 = axg_monotonic_ns();

		if (call(port, &fd, via_proxy, false, keep) <
		    sizeof(answer) - 1)
			axg_fatal(1, "short answer");
		t[i] = axg_monotonic_ns() - t0;
	}
	if (fd >= 0)
		close(fd);
	qsort(t, CALLS, sizeof(t[0]), cmp_u64);
	*p50 = t[CALLS / 2];
	*p99 = t[CALLS * 99 / 100];
}

static void
report(const char *what, int be, int pxp)
{
	uint64_t d50, d99, p50, p99;
	bool keep = strcmp(what, "kept") == 0;

	latency(be, false, keep, &d50, &d99);
	latency(pxp, true, keep, &p50, &p99);
	printf("inference: non-streamed call, %d calls (%s)\n", CALLS,
	    keep ? "one kept client connection, pooled backend"
		: strcmp(what, "new") == 0
		? "a new client connection each, pooled backend"
		: "a new client connection each, no backend pool");
	printf("  direct          p50 %7.1f us  p99 %7.1f us\n", d50 / 1e3,
	    d99 / 1e3);
	printf("  inference.local p50 %7.1f us  p99 %7.1f us  (x%.2f)\n",
	    p50 / 1e3, p99 / 1e3, (double)p50 / (double)d50);
	printf("  added at p50: %.1f us\n", ((double)p50 - (double)d50) / 1e3);
}

static double
events_per_s(int port, bool via_proxy)
{
	uint64_t t0 = axg_monotonic_ns(), dt;

	for (int i = 0; i < STREAMS; i++)
		if (call(port, NULL, via_proxy, true, false) <
		    (size_t)STREAM_EVENTS * (sizeof(event) - 1))
			axg_fatal(1, "short stream");
	dt = axg_monotonic_ns() - t0;
	return (double)STREAMS * STREAM_EVENTS / ((double)dt / 1e9);
}

int
main(void)
{
	struct event_base *base;
	struct px_proxy *px;
	struct px_config cfg;
	struct px_decider dec;
	struct px_inference_hook ih;
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	pthread_t th;
	pid_t be;
	char err[256];
	double ed, ep;
	int px_port;

	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	be = start_backend(&be_port);
	base = event_base_new();
	px_config_default(&cfg);
	cfg.max_conns_per_client = cfg.max_conns;
	memset(&dec, 0, sizeof(dec));
	px = px_proxy_new(base, &cfg, &dec, NULL, NULL, err, sizeof(err));
	if (px == NULL)
		axg_fatal(1, "%s", err);
	memset(&ih, 0, sizeof(ih));
	ih.route = route;
	ih.finish = finish;
	if (px_proxy_set_inference(px, &ih, err, sizeof(err)) < 0)
		axg_fatal(1, "%s", err);
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (px_proxy_listen(px, &ss, err, sizeof(err)) < 0)
		axg_fatal(1, "%s", err);
	px_port = ntohs(sin->sin_port);
	pthread_create(&th, NULL, proxy_main, base);

	report("kept", be_port, px_port);
	report("new", be_port, px_port);
	/* no pool and a new client connection per call, as before pooling */
	bench_pool = false;
	report("new, no pool", be_port, px_port);
	bench_pool = true;
	{
		struct px_inf_pool_stats ps;

		px_proxy_inference_pool_stats(px, &ps);
		printf("  backend connections: %llu dialled, %llu calls on a "
		       "pooled one\n",
		    (unsigned long long)ps.dials,
		    (unsigned long long)ps.reused);
	}
	ed = events_per_s(be_port, false);
	ep = events_per_s(px_port, true);
	printf("inference: streamed, %d streams of %d SSE events\n", STREAMS,
	    STREAM_EVENTS);
	printf("  direct          %10.0f events/s\n", ed);
	printf("  inference.local %10.0f events/s  (x%.2f)\n", ep, ep / ed);

	event_base_loopbreak(base);
	pthread_join(th, NULL);
	px_proxy_free(px);
	event_base_free(base);
	kill(be, SIGTERM);
	waitpid(be, NULL, 0);
	return 0;
}
