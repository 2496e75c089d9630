/*
 * loadgen.c: a load generator for any HTTP forward proxy (or none), on
 * loopback.
 *
 *   loadgen --upstream [--ports E,H,D] [--hold SEC]
 *	Run the upstreams only (an echo server, an HTTP server and a
 *	"deny" server that answers every head with 403), print
 *	"upstream echo=E http=H deny=D" and serve until SIGTERM or SEC.
 *
 *   loadgen --mode MODE [--proxy HOST:PORT|direct] [--upstreams E,H,D]
 *	    [--clients N] [--duration SEC] [--bytes N] [--tunnels N]
 *	    [--deny-target HOST:PORT] [--hold SEC] [--label TEXT]
 *	Drive one mode for SEC seconds and print one line of key=value
 *	pairs: mode, target, clients, seconds, ops, errors, rate, unit,
 *	p50_us, p99_us (and mode-specific extras).  Without --upstreams it
 *	forks its own upstreams first.
 *
 * Modes:
 *   connect-echo   CONNECT to the echo upstream, send N bytes (default 64),
 *		    read them back, close; latency from connect() to the
 *		    last echoed byte.
 *   deny	    CONNECT to a denied address (--deny-target, default
 *		    127.0.0.2:80); latency from the head sent to the end of
 *		    the 403's head.  Direct: the same head to the deny server.
 *   throughput     one tunnel per client to the echo upstream, bulk data
 *		    both ways for the whole duration; rate in MB/s received.
 *   http-keepalive absolute-form GET (or POST of --bytes N) on one
 *		    kept-alive connection per client to the HTTP upstream;
 *		    direct: origin form.
 *   idle-tunnels   open --tunnels N tunnels (64 at a time), print the line
 *		    (rate = tunnels opened per second), then hold them until
 *		    SIGTERM or --hold SEC (default 60) so a script can read
 *		    the proxy's memory.
 *
 * The generator is one epoll thread over a client table allocated at the
 * start: nothing is allocated per request.  Latencies go to a preallocated
 * sample array (the first 4 Mi samples) and are sorted after the run.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"

enum mode { M_ECHO, M_DENY, M_THROUGHPUT, M_HTTP, M_IDLE };
static const char *const mode_names[] = { "connect-echo", "deny", "throughput",
	"http-keepalive", "idle-tunnels" };

#define MAX_SAMPLES (4u << 20)
#define MAX_CLIENTS 20000
#define MAX_BODY    (64u << 20)
#define SCRATCH	    (256u << 10)

static volatile sig_atomic_t stop_flag;
static char scratch[SCRATCH];

static void
on_term(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
parse_hostport(const char *s, struct sockaddr_in *out)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	uint64_t port;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &out->sin_addr) != 1 ||
	    axg_parse_u64(colon + 1, 1, 65535, &port) < 0)
		return -1;
	out->sin_port = htons((uint16_t)port);
	return 0;
}

static void
set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ------------------------------------------------------------------ */
/* The upstreams: echo, HTTP (keep-alive, bodies by Content-Length) and
 * deny (403 to every head), in one epoll loop indexed by fd. */

enum { U_LISTEN_ECHO, U_LISTEN_HTTP, U_LISTEN_DENY, U_ECHO, U_HTTP, U_DENY };

struct uconn {
	int kind;
	char *pend; /* bytes still to write (allocated on first need) */
	size_t pend_off, pend_len;
	char *head; /* the request head being read (HTTP, deny) */
	size_t hlen;
	uint64_t body_left;
	bool close_after;
};

static struct uconn *uc;
static size_t nuc;

static const char http_resp[] = "HTTP/1.1 200 OK\r\nContent-Type: "
				"text/plain\r\nContent-Length: 2\r\n\r\nok";
static const char deny_resp[] = "HTTP/1.1 403 Forbidden\r\nContent-Length: "
				"0\r\nConnection: close\r\n\r\n";

static int
listen_on(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(fd, 4096) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
port_of(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len) != 0)
		return -1;
	return ntohs(sin.sin_port);
}

static void
u_close(int ep, int fd)
{
	struct uconn *c = &uc[fd];

	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
	free(c->pend);
	free(c->head);
	memset(c, 0, sizeof(*c));
}

/* Write what can be written now; keep the rest and wait for EPOLLOUT. */
static int
u_send(int ep, int fd, const char *p, size_t n)
{
	struct uconn *c = &uc[fd];
	struct epoll_event ev = { .events = EPOLLOUT, .data.fd = fd };
	ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

	if (w < 0 && errno != EAGAIN)
		return -1;
	if (w < 0)
		w = 0;
	if ((size_t)w == n)
		return 0;
	if (c->pend == NULL)
		c->pend = axg_malloc(SCRATCH);
	memcpy(c->pend, p + w, n - (size_t)w);
	c->pend_off = 0;
	c->pend_len = n - (size_t)w;
	return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

static uint64_t
head_content_length(const char *h, size_t n)
{
	const char *p = h, *end = h + n;
	uint64_t v = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (eol == NULL)
			break;
		if ((size_t)(eol - p) > 15 &&
		    strncasecmp(p, "content-length:", 15) == 0) {
			const char *q = p + 15;

			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			while (q < eol && *q >= '0' && *q <= '9')
				v = v * 10 + (uint64_t)(*q++ - '0');
			return v;
		}
		p = eol + 1;
	}
	return v;
}

/* Consume request bytes; answer each complete request. */
static int
u_http_feed(int ep, int fd, const char *p, size_t n)
{
	struct uconn *c = &uc[fd];

	while (n > 0) {
		if (c->body_left > 0) {
			size_t k = n < c->body_left ? n : (size_t)c->body_left;

			c->body_left -= k;
			p += k;
			n -= k;
			if (c->body_left == 0 &&
			    u_send(ep, fd, http_resp, sizeof(http_resp) - 1) <
				0)
				return -1;
			continue;
		}
		if (c->head == NULL)
			c->head = axg_malloc(16384);
		if (c->hlen == 16384)
			return -1;
		c->head[c->hlen++] = *p++;
		n--;
		if (c->hlen < 4 || memcmp(c->head + c->hlen - 4, "\r\n\r\n", 4))
			continue;
		if (c->kind == U_DENY) {
			c->close_after = true;
			c->hlen = 0;
			return u_send(ep, fd, deny_resp, sizeof(deny_resp) - 1);
		}
		c->body_left = head_content_length(c->head, c->hlen);
		c->hlen = 0;
		if (c->body_left == 0 &&
		    u_send(ep, fd, http_resp, sizeof(http_resp) - 1) < 0)
			return -1;
	}
	return 0;
}

static void
u_event(int ep, int fd, uint32_t events)
{
	struct uconn *c = &uc[fd];
	ssize_t r;

	if (c->kind <= U_LISTEN_DENY) {
		int kind = c->kind + (U_ECHO - U_LISTEN_ECHO);

		for (int i = 0; i < 64; i++) {
			int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK);
			struct epoll_event ev = { .events = EPOLLIN };

			if (cfd < 0)
				return;
			if ((size_t)cfd >= nuc) {
				close(cfd);
				continue;
			}
			set_nodelay(cfd);
			memset(&uc[cfd], 0, sizeof(uc[cfd]));
			uc[cfd].kind = kind;
			ev.data.fd = cfd;
			epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
		}
		return;
	}
	if (c->pend_len > 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		r = send(fd, c->pend + c->pend_off, c->pend_len, MSG_NOSIGNAL);
		if (r < 0 && errno != EAGAIN) {
			u_close(ep, fd);
			return;
		}
		if (r > 0) {
			c->pend_off += (size_t)r;
			c->pend_len -= (size_t)r;
		}
		if (c->pend_len == 0) {
			if (c->close_after)
				u_close(ep, fd);
			else
				epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
		}
		return;
	}
	r = recv(fd, scratch, c->kind == U_ECHO ? SCRATCH : 65536, 0);
	if (r == 0 || (r < 0 && errno != EAGAIN)) {
		u_close(ep, fd);
		return;
	}
	if (r < 0)
		return;
	if (c->kind == U_ECHO ? u_send(ep, fd, scratch, (size_t)r) < 0
			      : u_http_feed(ep, fd, scratch, (size_t)r) < 0) {
		u_close(ep, fd);
		return;
	}
	if (c->close_after && c->pend_len == 0)
		u_close(ep, fd);
}

/* Serve until SIGTERM, the deadline, or (when pipefd >= 0) the pipe
 * closing.  ports[] in: wanted (0: any); out: bound. */
static int
upstream_main(int ports[3], double hold_s, int pipefd, int readyfd)
{
	struct epoll_event evs[256];
	struct rlimit rl;
	int ep = epoll_create1(0), lfd[3];
	uint64_t deadline = now_ns() + (uint64_t)(hold_s * 1e9);

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1;
	nuc = rl.rlim_cur;
	uc = axg_calloc(nuc, sizeof(*uc));
	for (int i = 0; i < 3; i++) {
		struct epoll_event ev = { .events = EPOLLIN };

		lfd[i] = listen_on(ports[i]);
		if (lfd[i] < 0 || (size_t)lfd[i] >= nuc) {
			fprintf(stderr,
			    "loadgen: cannot listen on port %d: %s\n", ports[i],
			    strerror(errno));
			return 1;
		}
		ports[i] = port_of(lfd[i]);
		uc[lfd[i]].kind = U_LISTEN_ECHO + i;
		ev.data.fd = lfd[i];
		epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev);
	}
	if (pipefd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = -1 };

		epoll_ctl(ep, EPOLL_CTL_ADD, pipefd, &ev);
	}
	if (readyfd >= 0) {
		if (write(readyfd, ports, 3 * sizeof(int)) !=
		    (ssize_t)(3 * sizeof(int)))
			return 1;
		close(readyfd);
	} else {
		printf("upstream echo=%d http=%d deny=%d\n", ports[0], ports[1],
		    ports[2]);
		fflush(stdout);
	}
	while (!stop_flag && now_ns() < deadline) {
		int n = epoll_wait(ep, evs, 256, 200);

		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd < 0)
				return 0; /* the parent went away */
			u_event(ep, evs[i].data.fd, evs[i].events);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The generator. */

enum { C_IDLE, C_CONNECTING, C_HEAD, C_ECHO, C_SEND, C_RESP, C_BULK, C_HELD };

struct client {
	int fd;
	int state;
	uint64_t t0;	    /* start of the measured interval */
	size_t got;	    /* bytes of buf used, or echoed bytes */
	size_t sent;	    /* request bytes sent (head + body) */
	uint64_t body_left; /* response body still to read */
	bool chunked;
	char buf[1024];
};

struct gen {
	enum mode mode;
	bool proxied;
	struct sockaddr_in dst; /* where clients connect */
	char head[512];		/* the request head */
	size_t headlen;
	const char *body; /* POST body (http-keepalive) */
	size_t bodylen;
	size_t nbytes; /* echo size */
	unsigned clients, tunnels;
	struct client *cl;
	int ep;
	uint32_t *lat; /* nanoseconds, clamped */
	size_t nlat;
	uint64_t ops, errors, reconnects, bytes_in, bytes_out, opened;
	uint64_t started; /* idle-tunnels: connections begun */
};

static void
record(struct gen *g, uint64_t ns)
{
	if (g->nlat < MAX_SAMPLES)
		g->lat[g->nlat++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static void
c_close(struct gen *g, struct client *c)
{
	if (c->fd >= 0)
		close(c->fd); /* also leaves the epoll set */
	c->fd = -1;
	c->state = C_IDLE;
	(void)g;
}

static void
c_watch(struct gen *g, struct client *c, uint32_t events, bool add)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(g->ep, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c->fd, &ev);
}

static void
c_start(struct gen *g, struct client *c)
{
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	c->got = 0;
	c->sent = 0;
	c->body_left = 0;
	c->chunked = false;
	c->t0 = now_ns();
	if (c->fd < 0) {
		g->errors++;
		c->state = C_IDLE;
		return;
	}
	set_nodelay(c->fd);
	if (connect(c->fd, (struct sockaddr *)&g->dst, sizeof(g->dst)) != 0 &&
	    errno != EINPROGRESS) {
		g->errors++;
		c_close(g, c);
		return;
	}
	c->state = C_CONNECTING;
	c_watch(g, c, EPOLLOUT, true);
}

/* Send the rest of head + body; true when all is out. */
static int
c_send_request(struct gen *g, struct client *c)
{
	size_t total = g->headlen + g->bodylen;

	while (c->sent < total) {
		const char *p;
		size_t n;
		ssize_t w;

		if (c->sent < g->headlen) {
			p = g->head + c->sent;
			n = g->headlen - c->sent;
		} else {
			p = g->body + (c->sent - g->headlen);
			n = total - c->sent;
		}
		w = send(c->fd, p, n, MSG_NOSIGNAL);
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		c->sent += (size_t)w;
		g->bytes_out += (size_t)w;
	}
	return 1;
}

/* The status code of a head in buf, or -1. */
static int
head_status(const char *buf)
{
	if (strncmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ')
		return -1;
	return (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
}

/* The connection is up (or the proxy's 200 arrived): do the mode's work. */
static void
c_begin_work(struct gen *g, struct client *c)
{
	c->got = 0;
	switch (g->mode) {
	case M_ECHO:
		if (send(c->fd, scratch, g->nbytes, MSG_NOSIGNAL) !=
		    (ssize_t)g->nbytes) {
			g->errors++;
			c_close(g, c);
			return;
		}
		g->bytes_out += g->nbytes;
		c->state = C_ECHO;
		c_watch(g, c, EPOLLIN, false);
		break;
	case M_THROUGHPUT:
		c->state = C_BULK;
		c_watch(g, c, EPOLLIN | EPOLLOUT, false);
		break;
	case M_IDLE:
		/* held, unwatched: the slot is free for the next tunnel */
		c->state = C_HELD;
		g->opened++;
		record(g, now_ns() - c->t0);
		epoll_ctl(g->ep, EPOLL_CTL_DEL, c->fd, NULL);
		break;
	default:
		break;
	}
}

static void
c_next_request(struct gen *g, struct client *c)
{
	int r;

	c->sent = 0;
	c->got = 0;
	c->body_left = 0;
	c->chunked = false;
	c->t0 = now_ns();
	r = c_send_request(g, c);
	if (r < 0) {
		g->errors++;
		c_close(g, c);
		return;
	}
	c->state = r ? C_RESP : C_SEND;
	c_watch(g, c, r ? EPOLLIN : EPOLLOUT, false);
}

/* Read a response head into buf; 1 when complete (buf holds head and any
 * bytes after it, got counts them), 0 to wait, -1 on error or EOF. */
static int
c_read_head(struct gen *g, struct client *c, char **end)
{
	ssize_t r =
	    recv(c->fd, c->buf + c->got, sizeof(c->buf) - 1 - c->got, 0);

	if (r == 0)
		return -1;
	if (r < 0)
		return errno == EAGAIN ? 0 : -1;
	g->bytes_in += (size_t)r;
	c->got += (size_t)r;
	c->buf[c->got] = '\0';
	*end = strstr(c->buf, "\r\n\r\n");
	if (*end != NULL)
		return 1;
	return c->got == sizeof(c->buf) - 1 ? -1 : 0;
}

static void
c_http_body(struct gen *g, struct client *c, const char *p, size_t n)
{
	if (c->chunked) {
		/* the last chunk: "0\r\n\r\n" at the end of what we have */
		if (n >= 5 && memcmp(p + n - 5, "0\r\n\r\n", 5) == 0)
			c->body_left = 0;
		return;
	}
	c->body_left -= n < c->body_left ? n : c->body_left;
	(void)g;
}

static void
c_http_done(struct gen *g, struct client *c)
{
	g->ops++;
	record(g, now_ns() - c->t0);
	c_next_request(g, c);
}

static void
c_event(struct gen *g, struct client *c, uint32_t events)
{
	char *end;
	int r;

	switch (c->state) {
	case C_CONNECTING: {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err != 0) {
			g->errors++;
			c_close(g, c);
			return;
		}
		if (g->mode == M_HTTP) {
			c_next_request(g, c);
			return;
		}
		if (!g->proxied && g->mode != M_DENY) {
			c_begin_work(g, c);
			return;
		}
		if (send(c->fd, g->head, g->headlen, MSG_NOSIGNAL) !=
		    (ssize_t)g->headlen) {
			g->errors++;
			c_close(g, c);
			return;
		}
		if (g->mode == M_DENY)
			c->t0 = now_ns();
		c->state = C_HEAD;
		c->got = 0;
		c_watch(g, c, EPOLLIN, false);
		return;
	}
	case C_HEAD:
		r = c_read_head(g, c, &end);
		if (r == 0)
			return;
		if (r < 0) {
			g->errors++;
			c_close(g, c);
			return;
		}
		if (g->mode == M_DENY) {
			if (head_status(c->buf) == 403) {
				g->ops++;
				record(g, now_ns() - c->t0);
			} else
				g->errors++;
			c_close(g, c);
			return;
		}
		if (head_status(c->buf) != 200 ||
		    (size_t)(end + 4 - c->buf) != c->got) {
			g->errors++;
			c_close(g, c);
			return;
		}
		c_begin_work(g, c);
		return;
	case C_ECHO: {
		ssize_t n = recv(c->fd, scratch, SCRATCH, 0);

		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			g->errors++;
			c_close(g, c);
			return;
		}
		g->bytes_in += (size_t)n;
		c->got += (size_t)n;
		if (c->got >= g->nbytes) {
			g->ops++;
			record(g, now_ns() - c->t0);
			c_close(g, c);
		}
		return;
	}
	case C_SEND:
		r = c_send_request(g, c);
		if (r < 0) {
			g->errors++;
			c_close(g, c);
		} else if (r > 0) {
			c->state = C_RESP;
			c_watch(g, c, EPOLLIN, false);
		}
		return;
	case C_RESP:
		if (c->body_left > 0) {
			ssize_t n = recv(c->fd, scratch, SCRATCH, 0);

			if (n < 0 && errno == EAGAIN)
				return;
			if (n <= 0) {
				g->errors++;
				c_close(g, c);
				return;
			}
			g->bytes_in += (size_t)n;
			c_http_body(g, c, scratch, (size_t)n);
			if (c->body_left == 0)
				c_http_done(g, c);
			return;
		}
		r = c_read_head(g, c, &end);
		if (r == 0)
			return;
		if (r < 0) {
			/* a proxy closing a kept-alive connection between
			 * requests is a reconnect, not an error */
			if (c->got == 0)
				g->reconnects++;
			else
				g->errors++;
			c_close(g, c);
			return;
		}
		if (head_status(c->buf) != 200) {
			g->errors++;
			c_close(g, c);
			return;
		}
		{
			size_t hl = (size_t)(end + 4 - c->buf);
			char *te = strcasestr(c->buf, "\ntransfer-encoding:");

			c->chunked = te != NULL && te < end;
			c->body_left =
			    c->chunked ? 1 : head_content_length(c->buf, hl);
			c_http_body(g, c, c->buf + hl, c->got - hl);
		}
		if (c->body_left == 0)
			c_http_done(g, c);
		return;
	case C_BULK:
		if (events & EPOLLIN) {
			ssize_t n = recv(c->fd, scratch, SCRATCH, 0);

			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				g->errors++;
				c_close(g, c);
				return;
			}
			if (n > 0)
				g->bytes_in += (size_t)n;
		}
		if (events & EPOLLOUT) {
			ssize_t w =
			    send(c->fd, g->body, g->bodylen, MSG_NOSIGNAL);

			if (w < 0 && errno != EAGAIN) {
				g->errors++;
				c_close(g, c);
				return;
			}
			if (w > 0)
				g->bytes_out += (size_t)w;
		}
		return;
	default:
		return;
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
gen_run(struct gen *g, double duration_s, double hold_s, const char *label,
    const char *target)
{
	struct epoll_event evs[256];
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(duration_s * 1e9), t1;
	double secs, rate;
	const char *unit = "ops/s";

	g->ep = epoll_create1(0);
	g->cl = axg_calloc(g->clients, sizeof(*g->cl));
	g->lat = axg_malloc(MAX_SAMPLES * sizeof(*g->lat));
	for (unsigned i = 0; i < g->clients; i++) {
		g->cl[i].fd = -1;
		if (g->mode != M_IDLE || g->started < g->tunnels) {
			c_start(g, &g->cl[i]);
			g->started++;
		}
	}
	while (!stop_flag) {
		uint64_t now = now_ns();
		int n;

		if (now >= end)
			break;
		if (g->mode == M_IDLE && g->opened + g->errors >= g->tunnels)
			break;
		n = epoll_wait(g->ep, evs, 256, 50);
		for (int i = 0; i < n; i++)
			c_event(g, evs[i].data.ptr, evs[i].events);
		/* restart the clients whose work ended */
		if (g->mode == M_IDLE) {
			for (unsigned i = 0; i < g->clients; i++) {
				struct client *c = &g->cl[i];

				if (c->state == C_HELD &&
				    g->started < g->tunnels) {
					c->fd =
					    -1; /* kept open: not ours now */
					c->state = C_IDLE;
				}
				if (c->state == C_IDLE &&
				    g->started < g->tunnels) {
					c_start(g, c);
					g->started++;
				}
			}
			continue;
		}
		for (unsigned i = 0; i < g->clients; i++)
			if (g->cl[i].state == C_IDLE)
				c_start(g, &g->cl[i]);
	}
	t1 = now_ns();
	secs = (double)(t1 - t0) / 1e9;
	if (g->mode == M_THROUGHPUT) {
		rate = (double)g->bytes_in / 1e6 / secs;
		unit = "MB/s";
	} else if (g->mode == M_IDLE) {
		rate = (double)g->opened / secs;
		unit = "tunnels/s";
		g->ops = g->opened;
	} else
		rate = (double)g->ops / secs;
	qsort(g->lat, g->nlat, sizeof(*g->lat), cmp_u32);
	printf("loadgen mode=%s target=%s clients=%u seconds=%.2f ops=%llu "
	       "errors=%llu reconnects=%llu rate=%.1f unit=%s p50_us=%.1f "
	       "p99_us=%.1f bytes_in=%llu bytes_out=%llu",
	    mode_names[g->mode], target, g->clients, secs,
	    (unsigned long long)g->ops, (unsigned long long)g->errors,
	    (unsigned long long)g->reconnects, rate, unit,
	    g->nlat ? g->lat[g->nlat / 2] / 1e3 : 0.0,
	    g->nlat ? g->lat[(size_t)((double)g->nlat * 0.99)] / 1e3 : 0.0,
	    (unsigned long long)g->bytes_in, (unsigned long long)g->bytes_out);
	if (g->mode == M_IDLE)
		printf(" tunnels=%llu", (unsigned long long)g->opened);
	if (g->mode == M_HTTP)
		printf(" body=%zu", g->bodylen);
	if (label != NULL)
		printf(" label=%s", label);
	printf("\n");
	fflush(stdout);
	if (g->mode == M_IDLE) {
		uint64_t until = now_ns() + (uint64_t)(hold_s * 1e9);

		while (!stop_flag && now_ns() < until)
			usleep(50000);
	}
	/* every fd closes at exit */
	return 0;
}

/* ------------------------------------------------------------------ */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: loadgen --upstream [--ports E,H,D] [--hold SEC]\n"
	    "       loadgen --mode connect-echo|deny|throughput|"
	    "http-keepalive|idle-tunnels\n"
	    "               [--proxy HOST:PORT|direct] [--upstreams E,H,D] "
	    "[--clients N]\n"
	    "               [--duration SEC] [--bytes N] [--tunnels N] "
	    "[--deny-target HOST:PORT]\n"
	    "               [--hold SEC] [--label TEXT]\n");
}

static int
parse_ports(const char *s, int ports[3])
{
	char buf[64], *save = NULL, *tok;
	uint64_t v;
	int i = 0;

	if (axg_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return -1;
	for (tok = strtok_r(buf, ",", &save); tok != NULL && i < 3;
	     tok = strtok_r(NULL, ",", &save)) {
		if (axg_parse_u64(tok, 0, 65535, &v) < 0)
			return -1;
		ports[i++] = (int)v;
	}
	return i == 3 ? 0 : -1;
}

static int
parse_secs(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || !(v > 0) || v > 86400)
		return -1;
	*out = v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "upstream", no_argument, NULL, 'U' },
		{ "ports", required_argument, NULL, 'P' },
		{ "upstreams", required_argument, NULL, 'u' },
		{ "mode", required_argument, NULL, 'm' },
		{ "proxy", required_argument, NULL, 'x' },
		{ "clients", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "tunnels", required_argument, NULL, 'n' },
		{ "deny-target", required_argument, NULL, 'D' },
		{ "hold", required_argument, NULL, 'H' },
		{ "label", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen g;
	struct sockaddr_in px;
	const char *proxy = "direct", *deny_target = "127.0.0.2:80",
		   *label = NULL;
	int ports[3] = { 0, 0, 0 }, o, rc = 1, mi = -1;
	bool upstream_only = false, have_upstreams = false;
	double duration = 2, hold = 60;
	uint64_t v, nbytes = 0, clients = 1, tunnels = 1000;
	bool bytes_set = false;
	pid_t up = -1;
	int up_pipe[2] = { -1, -1 };
	char target[64];
	struct rlimit rl;

	memset(&g, 0, sizeof(g));
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'U':
			upstream_only = true;
			break;
		case 'P':
		case 'u':
			if (parse_ports(optarg, ports) < 0) {
				fprintf(stderr, "loadgen: bad ports '%s'\n",
				    optarg);
				return 2;
			}
			have_upstreams = o == 'u';
			break;
		case 'm':
			for (size_t i = 0; i < AXG_ARRAY_LEN(mode_names); i++)
				if (strcmp(optarg, mode_names[i]) == 0)
					mi = (int)i;
			if (mi < 0) {
				fprintf(stderr, "loadgen: no mode '%s'\n",
				    optarg);
				return 2;
			}
			break;
		case 'x':
			proxy = optarg;
			break;
		case 'c':
			if (axg_parse_u64(optarg, 1, MAX_CLIENTS, &clients) <
			    0) {
				fprintf(stderr, "loadgen: --clients: 1 to %u\n",
				    MAX_CLIENTS);
				return 2;
			}
			break;
		case 'd':
		case 'H':
			if (parse_secs(optarg, o == 'd' ? &duration : &hold) <
			    0) {
				fprintf(stderr, "loadgen: bad seconds '%s'\n",
				    optarg);
				return 2;
			}
			break;
		case 'b':
			if (axg_parse_u64(optarg, 0, MAX_BODY, &nbytes) < 0) {
				fprintf(stderr, "loadgen: --bytes: 0 to %u\n",
				    MAX_BODY);
				return 2;
			}
			bytes_set = true;
			break;
		case 'n':
			if (axg_parse_u64(optarg, 1, 1000000, &v) < 0) {
				fprintf(stderr,
				    "loadgen: --tunnels: 1 to "
				    "1000000\n");
				return 2;
			}
			tunnels = v;
			break;
		case 'D':
			deny_target = optarg;
			break;
		case 'L':
			label = optarg;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind < argc || (!upstream_only && mi < 0)) {
		usage();
		return 2;
	}
	if (upstream_only)
		return upstream_main(ports, hold, -1, -1);

	if (!have_upstreams) {
		int ready[2];

		if (pipe(up_pipe) != 0 || pipe(ready) != 0)
			return 1;
		up = fork();
		if (up == 0) {
			close(up_pipe[1]);
			close(ready[0]);
			_exit(upstream_main(ports, duration + hold + 30,
			    up_pipe[0], ready[1]));
		}
		close(up_pipe[0]);
		close(ready[1]);
		if (up < 0 ||
		    read(ready[0], ports, sizeof(ports)) !=
			(ssize_t)sizeof(ports)) {
			fprintf(stderr,
			    "loadgen: the upstreams did not start\n");
			goto out;
		}
		close(ready[0]);
	}

	g.mode = (enum mode)mi;
	g.clients = (unsigned)clients;
	g.tunnels = (unsigned)tunnels;
	g.proxied = strcmp(proxy, "direct") != 0;
	if (g.mode == M_IDLE && !g.proxied) {
		fprintf(stderr, "loadgen: idle-tunnels needs --proxy\n");
		goto out;
	}
	if (g.mode == M_IDLE && g.clients > g.tunnels)
		g.clients = g.tunnels;
	if (g.proxied && parse_hostport(proxy, &px) < 0) {
		fprintf(stderr, "loadgen: bad --proxy '%s'\n", proxy);
		goto out;
	}
	memset(&g.dst, 0, sizeof(g.dst));
	g.dst.sin_family = AF_INET;
	g.dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	switch (g.mode) {
	case M_ECHO:
	case M_THROUGHPUT:
	case M_IDLE:
		g.dst.sin_port = htons((uint16_t)ports[0]);
		g.headlen = (size_t)snprintf(g.head, sizeof(g.head),
		    "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: "
		    "127.0.0.1:%d\r\n\r\n",
		    ports[0], ports[0]);
		g.nbytes = bytes_set ? (size_t)nbytes : 64;
		if (g.nbytes == 0 || g.nbytes > 16384) {
			fprintf(stderr,
			    "loadgen: connect-echo --bytes: 1 to "
			    "16384\n");
			goto out;
		}
		memset(scratch, 'e', g.nbytes);
		if (g.mode == M_THROUGHPUT) {
			g.bodylen = SCRATCH;
			g.body = axg_malloc(g.bodylen);
			memset((char *)g.body, 'x', g.bodylen);
		}
		break;
	case M_DENY:
		g.dst.sin_port = htons((uint16_t)ports[2]);
		{
			const char *h = g.proxied ? deny_target : "127.0.0.1";

			g.headlen = (size_t)snprintf(g.head, sizeof(g.head),
			    "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", h, h);
		}
		break;
	case M_HTTP: {
		char hostport[32];

		g.dst.sin_port = htons((uint16_t)ports[1]);
		snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", ports[1]);
		g.bodylen = (size_t)nbytes;
		g.headlen = (size_t)snprintf(g.head, sizeof(g.head),
		    "%s %s%s/ HTTP/1.1\r\nHost: %s\r\nUser-Agent: loadgen\r\n"
		    "%s%.0zu%s\r\n",
		    g.bodylen ? "POST" : "GET", g.proxied ? "http://" : "",
		    g.proxied ? hostport : "", hostport,
		    g.bodylen ? "Content-Type: text/plain\r\nContent-Length: "
			      : "",
		    g.bodylen, g.bodylen ? "\r\n" : "");
		if (g.bodylen > 0) {
			static const char text[] =
			    "The quick brown fox jumps over the lazy dog. ";
			char *b = axg_malloc(g.bodylen);

			for (size_t i = 0; i < g.bodylen; i++)
				b[i] = text[i % (sizeof(text) - 1)];
			g.body = b;
		}
		break;
	}
	}
	if (g.proxied)
		g.dst = px;
	snprintf(target, sizeof(target), "%s", proxy);
	rc = gen_run(&g, duration, hold, label, target);
	free(g.cl);
	free(g.lat);
	free((char *)g.body);
out:
	if (up > 0) {
		close(up_pipe[1]);
		kill(up, SIGTERM);
		waitpid(up, NULL, 0);
	}
	return rc;
}
