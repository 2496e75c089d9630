/*
 * bench-proxy.c: a load generator for the proxy, on loopback only.
 *
 * The upstreams (an echo server and a sink) run in a child process; the
 * proxy runs on its own event loop in a thread; the clients are plain
 * non-blocking sockets driven by poll() in the main thread.  Every figure
 * is printed next to the same work done directly (without the proxy) in
 * the same run, and as a ratio.  All loops are bounded in count and time.
 *
 *  1. CONNECT + 64-byte echo + close, at 1, 16 and 64 concurrent clients:
 *     rate and p50/p99 latency, against connect + echo + close direct.
 *  2. Deny latency: a denied CONNECT head to its 403, against a 64-byte
 *     echo round trip direct.
 *  3. Tunnel throughput: 256 MiB one way through a tunnel to a sink,
 *     against the same transfer direct.
 *  4. Memory per idle tunnel, at 10,000 tunnels (heap and RSS growth of
 *     this process, which holds the proxy and bare client sockets only).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static int echo_port, sink_port, px_port;

/* ---- upstreams (child process) ---- */

static void
echo_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	evbuffer_add_buffer(bufferevent_get_output(bev),
	    bufferevent_get_input(bev));
}

static void
sink_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);

	(void)arg;
	evbuffer_drain(in, evbuffer_get_length(in));
}

static void
flushed_free(struct bufferevent *bev, void *arg)
{
	(void)arg;
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		bufferevent_free(bev);
}

static void
up_event(struct bufferevent *bev, short what, void *arg)
{
	(void)arg;
	if (what & BEV_EVENT_EOF) {
		/* the sink acknowledges the end of a transfer with "k" */
		if (arg != NULL)
			bufferevent_write(bev, "k", 1);
		bufferevent_setcb(bev, NULL, flushed_free, NULL, NULL);
		return;
	}
	bufferevent_free(bev);
}

static void
up_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct bufferevent *bev =
	    bufferevent_socket_new(evconnlistener_get_base(l), fd,
		BEV_OPT_CLOSE_ON_FREE);

	(void)sa;
	(void)salen;
	bufferevent_setcb(bev, arg != NULL ? sink_read : echo_read, NULL,
	    up_event, arg);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static void
parent_gone(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

static int
listen_loopback(struct event_base *b, evconnlistener_cb cb, void *arg,
    struct evconnlistener **out)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*out = evconnlistener_new_bind(b, cb, arg,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 4096,
	    (struct sockaddr *)&sin, sizeof(sin));
	if (*out == NULL)
		return -1;
	getsockname(evconnlistener_get_fd(*out), (struct sockaddr *)&sin, &len);
	return ntohs(sin.sin_port);
}

/* Run the upstreams; report their ports on wfd; stop when rfd closes. */
static void
child_main(int wfd, int rfd)
{
	struct event_base *b = event_base_new();
	struct evconnlistener *le, *ls;
	int ports[2];
	struct event *ev;

	ports[0] = listen_loopback(b, up_accept, NULL, &le);
	ports[1] = listen_loopback(b, up_accept, (void *)1, &ls);
	if (write(wfd, ports, sizeof(ports)) != sizeof(ports))
		_exit(1);
	ev = event_new(b, rfd, EV_READ, parent_gone, b);
	event_add(ev, NULL);
	event_base_dispatch(b);
	_exit(0);
}

/* ---- the proxy ---- */

static int
allow_connect(void *arg, const struct px_hostport *t,
    const struct sockaddr *client, struct px_decision *out)
{
	(void)arg;
	(void)client;
	memset(out, 0, sizeof(*out));
	out->allow = strcmp(t->host, "deny.test") != 0;
	axg_strlcpy(out->rule, out->allow ? "bench" : "bench-deny",
	    sizeof(out->rule));
	axg_strlcpy(out->reason, out->allow ? "" : "denied for the bench",
	    sizeof(out->reason));
	return 0;
}

static int
allow_address(void *arg, const struct px_hostport *t, const struct sockaddr *sa,
    struct px_decision *out)
{
	(void)arg;
	(void)t;
	(void)sa;
	memset(out, 0, sizeof(*out));
	out->allow = true;
	return 0;
}

static struct event_base *pbase;

static void *
proxy_main(void *arg)
{
	(void)arg;
	event_base_loop(pbase, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

/* ---- client helpers ---- */

static int
dial(int port, bool nonblock)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0),
		0),
	    one = 1;

	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
hard_close(int fd)
{
	struct linger lg = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	double rate; /* per second */
	double p50_us, p99_us;
	unsigned done;
};

enum { PH_CONNECTING, PH_WANT_200, PH_WANT_ECHO };

struct client {
	int fd;
	int phase;
	uint64_t t0;
	size_t got;
	char buf[256];
};

static const char msg64[] =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static void
client_start(struct client *c, bool proxied)
{
	c->fd = dial(proxied ? px_port : echo_port, true);
	c->phase = PH_CONNECTING;
	c->t0 = axg_monotonic_ns();
	c->got = 0;
}

/* total transactions of connect (+ CONNECT) + 64-byte echo + close */
static struct result
run_echo(unsigned conc, unsigned total, bool proxied)
{
	struct client *cl = axg_calloc(conc, sizeof(*cl));
	struct pollfd *pf = axg_calloc(conc, sizeof(*pf));
	uint64_t *lat = axg_calloc(total, sizeof(*lat));
	uint64_t start = axg_monotonic_ns(), deadline = start + 30000000000ull;
	unsigned started = 0, done = 0;
	struct result res;
	char req[128];
	size_t reql;

	reql = (size_t)snprintf(req, sizeof(req),
	    "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	    echo_port);
	for (unsigned i = 0; i < conc && started < total; i++, started++)
		client_start(&cl[i], proxied);
	while (done < total && axg_monotonic_ns() < deadline) {
		for (unsigned i = 0; i < conc; i++) {
			pf[i].fd = cl[i].fd;
			pf[i].events =
			    cl[i].phase == PH_CONNECTING ? POLLOUT : POLLIN;
		}
		if (poll(pf, conc, 1000) <= 0)
			continue;
		for (unsigned i = 0; i < conc; i++) {
			struct client *c = &cl[i];
			ssize_t r;

			if (c->fd < 0 || pf[i].revents == 0)
				continue;
			if (c->phase == PH_CONNECTING) {
				if (proxied) {
					r = send(c->fd, req, reql,
					    MSG_NOSIGNAL);
					c->phase = PH_WANT_200;
				} else {
					r = send(c->fd, msg64, 64,
					    MSG_NOSIGNAL);
					c->phase = PH_WANT_ECHO;
				}
				continue;
			}
			r = recv(c->fd, c->buf + c->got,
			    sizeof(c->buf) - 1 - c->got, 0);
			if (r <= 0) {
				hard_close(c->fd);
				c->fd = -1;
				goto next;
			}
			c->got += (size_t)r;
			c->buf[c->got] = '\0';
			if (c->phase == PH_WANT_200) {
				if (strstr(c->buf, "\r\n\r\n") == NULL)
					continue;
				c->got = 0;
				c->phase = PH_WANT_ECHO;
				send(c->fd, msg64, 64, MSG_NOSIGNAL);
				continue;
			}
			if (c->got < 64)
				continue;
			lat[done++] = axg_monotonic_ns() - c->t0;
			hard_close(c->fd);
			c->fd = -1;
		next:
			if (started < total) {
				client_start(c, proxied);
				started++;
			}
		}
		/* a failed dial in client_start leaves fd -1: retry later */
		for (unsigned i = 0; i < conc; i++)
			if (cl[i].fd < 0 && started < total &&
			    (cl[i].fd = dial(proxied ? px_port : echo_port,
				 true)) >= 0) {
				cl[i].phase = PH_CONNECTING;
				cl[i].t0 = axg_monotonic_ns();
				cl[i].got = 0;
			}
	}
	for (unsigned i = 0; i < conc; i++)
		if (cl[i].fd >= 0)
			hard_close(cl[i].fd);
	res.done = done;
	res.rate = done / ((axg_monotonic_ns() - start) / 1e9);
	qsort(lat, done, sizeof(*lat), cmp_u64);
	res.p50_us = done ? lat[done / 2] / 1e3 : 0;
	res.p99_us = done ? lat[(size_t)(done * 0.99)] / 1e3 : 0;
	free(cl);
	free(pf);
	free(lat);
	return res;
}

/* A blocking request/answer round trip: time from the last byte sent to
 * the first byte of the answer (whole head for the 403). */
static void
run_rtt(bool deny, unsigned n, double *p50, double *p99)
{
	uint64_t *lat = axg_calloc(n, sizeof(*lat));
	char req[128], buf[1024];
	size_t reql;
	unsigned done = 0;

	reql = deny ? (size_t)snprintf(req, sizeof(req),
			  "CONNECT deny.test:443 HTTP/1.1\r\nHost: "
			  "deny.test\r\n\r\n")
		    : 64;
	for (unsigned i = 0; i < n; i++) {
		int fd = dial(deny ? px_port : echo_port, false);
		uint64_t t0;
		size_t got = 0;

		if (fd < 0)
			continue;
		if (!deny) {
			/* warm the connection so only the round trip counts */
			send(fd, msg64, 64, MSG_NOSIGNAL);
			while (got < 64) {
				ssize_t r = recv(fd, buf, sizeof(buf), 0);
				if (r <= 0)
					break;
				got += (size_t)r;
			}
			got = 0;
		}
		t0 = axg_monotonic_ns();
		send(fd, deny ? req : msg64, reql, MSG_NOSIGNAL);
		for (;;) {
			ssize_t r =
			    recv(fd, buf + got, sizeof(buf) - 1 - got, 0);

			if (r <= 0)
				break;
			got += (size_t)r;
			buf[got] = '\0';
			if (deny ? strstr(buf, "\r\n\r\n") != NULL : got >= 64)
				break;
		}
		lat[done++] = axg_monotonic_ns() - t0;
		hard_close(fd);
	}
	qsort(lat, done, sizeof(*lat), cmp_u64);
	*p50 = done ? lat[done / 2] / 1e3 : 0;
	*p99 = done ? lat[(size_t)(done * 0.99)] / 1e3 : 0;
	free(lat);
}

/* Send bytes one way to the sink, directly or through a tunnel; return
 * MiB/s. */
static double
run_throughput(bool proxied, size_t total)
{
	static char chunk[256 * 1024];
	int fd = dial(proxied ? px_port : sink_port, false);
	char buf[1024];
	size_t sent = 0;
	uint64_t t0;

	if (fd < 0)
		return 0;
	if (proxied) {
		size_t got = 0;

		snprintf(buf, sizeof(buf),
		    "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
		    sink_port);
		send(fd, buf, strlen(buf), MSG_NOSIGNAL);
		while (strstr(buf, "\r\n\r\n") == NULL || got == 0) {
			ssize_t r =
			    recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
			if (r <= 0)
				break;
			got += (size_t)r;
			buf[got] = '\0';
		}
	}
	memset(chunk, 'x', sizeof(chunk));
	t0 = axg_monotonic_ns();
	while (sent < total) {
		ssize_t w = send(fd, chunk, sizeof(chunk), MSG_NOSIGNAL);

		if (w <= 0)
			break;
		sent += (size_t)w;
	}
	shutdown(fd, SHUT_WR);
	if (recv(fd, buf, 1, 0) != 1) /* the sink's "k" after EOF */
		sent = 0;
	close(fd);
	return (double)sent / (1024.0 * 1024.0) /
	    ((axg_monotonic_ns() - t0) / 1e9);
}

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

/* Open n idle tunnels from a child process (so this process holds only
 * the proxy), measure this process's heap and RSS growth. */
static void
run_idle_tunnels(unsigned n)
{
	struct mallinfo2 m0, m1;
	long r0, r1;
	unsigned open = 0;
	int done[2], hold[2];
	pid_t pid;

	if (pipe(done) != 0 || pipe(hold) != 0)
		return;
	malloc_trim(0);
	m0 = mallinfo2();
	r0 = rss_kb();
	pid = fork();
	if (pid == 0) {
		char req[128], buf[256], c;
		size_t reql = (size_t)snprintf(req, sizeof(req),
		    "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: "
		    "127.0.0.1\r\n\r\n",
		    echo_port);
		unsigned k = 0;

		close(done[0]);
		close(hold[1]);
		for (; k < n; k++) {
			int fd = dial(px_port, false);

			if (fd < 0 || send(fd, req, reql, MSG_NOSIGNAL) <= 0 ||
			    recv(fd, buf, sizeof(buf), 0) <= 0)
				break;
		}
		if (write(done[1], &k, sizeof(k)) != sizeof(k))
			_exit(1);
		/* hold the tunnels until the parent has measured */
		if (read(hold[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(done[1]);
	close(hold[0]);
	if (read(done[0], &open, sizeof(open)) != sizeof(open))
		open = 0;
	usleep(300000);
	m1 = mallinfo2();
	r1 = rss_kb();
	close(hold[1]);
	waitpid(pid, NULL, 0);
	close(done[0]);
	printf("idle tunnels: %u open (asked for %u)\n", open, n);
	if (open > 0) {
		printf("  proxy heap per idle tunnel: %.0f bytes\n",
		    (double)(m1.uordblks - m0.uordblks) / open);
		printf("  proxy RSS per idle tunnel:  %.0f bytes\n",
		    (double)(r1 - r0) * 1024 / open);
		printf("  target: under 32768 bytes per idle tunnel\n");
	}
}

int
main(int argc, char **argv)
{
	int p2c[2], c2p[2], ports[2];
	pid_t pid;
	struct px_config cfg;
	struct px_decider dec = { .decide_connect = allow_connect,
		.decide_address = allow_address };
	struct px_proxy *px;
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct rlimit rl;
	pthread_t th;
	char err[256];
	unsigned idle_n = 10000;
	bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;

	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		struct rlimit want = { 2 * (rlim_t)idle_n + 200,
			2 * (rlim_t)idle_n + 200 };

		/* root may raise the hard limit; otherwise take what we get */
		if (rl.rlim_max >= want.rlim_max ||
		    setrlimit(RLIMIT_NOFILE, &want) != 0) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		getrlimit(RLIMIT_NOFILE, &rl);
		/* this process holds the proxy's 2 fds per tunnel; the
		 * upstream child and the client child 1 each */
		if (rl.rlim_cur < 2 * (rlim_t)idle_n + 100)
			idle_n = (unsigned)((rl.rlim_cur - 100) / 2);
	}
	if (quick)
		idle_n = idle_n > 1000 ? 1000 : idle_n;
	if (pipe(p2c) != 0 || pipe(c2p) != 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		child_main(c2p[1], p2c[0]);
	}
	close(p2c[0]);
	close(c2p[1]);
	if (read(c2p[0], ports, sizeof(ports)) != sizeof(ports)) {
		fprintf(stderr, "bench-proxy: upstreams did not start\n");
		return 1;
	}
	echo_port = ports[0];
	sink_port = ports[1];

	evthread_use_pthreads();
	pbase = event_base_new();
	px_config_default(&cfg);
	cfg.tls_ports[0] = 0;
	cfg.max_conns = 100000;
	cfg.max_conns_per_client = 100000;
	axg_strlcpy(cfg.resolver, "127.0.0.1:9", sizeof(cfg.resolver));
	px = px_proxy_new(pbase, &cfg, &dec, NULL, NULL, err, sizeof(err));
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (px == NULL || px_proxy_listen(px, &ss, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench-proxy: %s\n", err);
		return 1;
	}
	px_port = ntohs(sin->sin_port);
	pthread_create(&th, NULL, proxy_main, NULL);
	/* the CONNECTs name 127.0.0.1, so no DNS is involved */
	printf("bench-proxy: loopback, proxy on one event-loop thread\n");
#if defined(__SANITIZE_ADDRESS__)
	printf("note: built with AddressSanitizer: timings are slower and the "
	       "memory figures are not meaningful; configure without "
	       "--enable-sanitizers for real figures\n");
#endif

	{
		static const unsigned levels[] = { 1, 16, 64 };

		for (size_t i = 0; i < AXG_ARRAY_LEN(levels); i++) {
			unsigned total = quick ? 500 : 3000;
			struct result d = run_echo(levels[i], total, false);
			struct result p = run_echo(levels[i], total, true);

			printf("echo c=%-2u  direct %7.0f/s p50 %6.1fus p99 "
			       "%6.1fus | via CONNECT %7.0f/s p50 %6.1fus p99 "
			       "%6.1fus | rate ratio %.2f\n",
			    levels[i], d.rate, d.p50_us, d.p99_us, p.rate,
			    p.p50_us, p.p99_us,
			    d.rate > 0 ? p.rate / d.rate : 0);
		}
	}
	{
		double dp50, dp99, ep50, ep99;

		run_rtt(false, quick ? 200 : 2000, &ep50, &ep99);
		run_rtt(true, quick ? 200 : 2000, &dp50, &dp99);
		printf("deny: head to 403 p50 %.1fus p99 %.1fus | direct echo "
		       "round trip p50 %.1fus p99 %.1fus | ratio p50 %.2f "
		       "(target: 403 within 50us)\n",
		    dp50, dp99, ep50, ep99, ep50 > 0 ? dp50 / ep50 : 0);
	}
	{
		size_t total = (quick ? 64u : 256u) * 1024 * 1024;
		double best_d = 0, best_p = 0;

		for (int i = 0; i < 3; i++) {
			double d = run_throughput(false, total);
			double p = run_throughput(true, total);

			best_d = d > best_d ? d : best_d;
			best_p = p > best_p ? p : best_p;
		}
		printf("throughput: direct %.0f MiB/s | tunnel %.0f MiB/s | "
		       "ratio %.2f (target: at least 0.90)\n",
		    best_d, best_p, best_d > 0 ? best_p / best_d : 0);
	}
	run_idle_tunnels(idle_n);

	event_base_loopbreak(pbase);
	pthread_join(th, NULL);
	px_proxy_free(px);
	event_base_free(pbase);
	close(p2c[1]);
	waitpid(pid, NULL, 0);
	return 0;
}
