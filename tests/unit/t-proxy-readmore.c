/*
 * Tests of px_read_more(): after libevent's bufferevent has read its 4 KiB,
 * a read callback reads on from the socket up to the read high watermark,
 * leaving the end of stream for the bufferevent to report.  Real sockets
 * (a socketpair) and a real event loop.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "proxy/proxy-int.h"
#include "tests/tap.h"

struct run {
	struct event_base *base;
	size_t before, after; /* input length around the first call */
	int calls;
	bool eof;
	bool more; /* call px_read_more */
	size_t total;
};

static void
readcb(struct bufferevent *bev, void *arg)
{
	struct run *r = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	if (r->calls++ == 0) {
		r->before = evbuffer_get_length(in);
		if (r->more)
			px_read_more(bev);
		r->after = evbuffer_get_length(in);
	}
	r->total += evbuffer_get_length(in);
	evbuffer_drain(in, evbuffer_get_length(in));
}

static void
eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct run *r = arg;

	(void)bev;
	if (what & BEV_EVENT_EOF)
		r->eof = true;
	event_base_loopbreak(r->base);
}

static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

/* Send n bytes into one end of a socketpair (then close it when eof), run
 * the loop on the other end until the end of stream or a second. */
static void
run_case(struct run *r, size_t n, bool eof, size_t high)
{
	int sv[2];
	char *data = axg_malloc(n);
	struct bufferevent *bev;
	struct timeval tv = { 1, 0 };
	struct event *t;
	int sz = 1 << 20;
	size_t off = 0;

	memset(data, 'x', n);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		printf("Bail out! socketpair: %s\n", strerror(errno));
		exit(1);
	}
	(void)setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	(void)setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	while (off < n) {
		ssize_t w = write(sv[1], data + off, n - off);
		if (w <= 0) {
			printf("Bail out! write: %s\n", strerror(errno));
			exit(1);
		}
		off += (size_t)w;
	}
	if (eof)
		close(sv[1]);
	evutil_make_socket_nonblocking(sv[0]);
	r->base = event_base_new();
	bev = bufferevent_socket_new(r->base, sv[0], BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(bev, readcb, NULL, eventcb, r);
	if (high != 0)
		bufferevent_setwatermark(bev, EV_READ, 0, high);
	bufferevent_enable(bev, EV_READ);
	t = evtimer_new(r->base, timeout_cb, r->base);
	evtimer_add(t, &tv);
	event_base_dispatch(r->base);
	event_free(t);
	bufferevent_free(bev);
	event_base_free(r->base);
	if (!eof)
		close(sv[1]);
	free(data);
}

int
main(void)
{
	struct run r;

	/* 200 KiB waiting: libevent reads 4 KiB, px_read_more the rest */
	memset(&r, 0, sizeof(r));
	r.more = true;
	run_case(&r, 200 * 1024, true, 0);
	is_int(r.before, 4096, "libevent's own read takes 4 KiB");
	is_int(r.after, 200 * 1024, "px_read_more reads the rest at once");
	ok(r.eof && r.total == 200 * 1024,
	    "the end of stream is still reported, every byte delivered");
	ok(r.calls <= 2, "in at most 2 callbacks (%d)", r.calls);

	/* the same without it: one callback per 4 KiB */
	memset(&r, 0, sizeof(r));
	run_case(&r, 200 * 1024, true, 0);
	ok(r.calls >= 50 && r.total == 200 * 1024,
	    "without px_read_more: %d callbacks", r.calls);

	/* the read high watermark bounds it */
	memset(&r, 0, sizeof(r));
	r.more = true;
	run_case(&r, 200 * 1024, true, 10000);
	ok(r.after > 4096 && r.after <= 10000,
	    "it stops at the read high watermark (%zu)", r.after);
	ok(r.eof && r.total == 200 * 1024, "and the rest follows");

	/* at most PX_READ_MORE_MAX per call */
	memset(&r, 0, sizeof(r));
	r.more = true;
	run_case(&r, 600 * 1024, false, 0);
	is_int(r.after, 4096 + PX_READ_MORE_MAX,
	    "one call reads at most PX_READ_MORE_MAX");
	is_int(r.total, 600 * 1024, "and the rest follows");

	/* less than 4 KiB waiting: nothing more is read */
	memset(&r, 0, sizeof(r));
	r.more = true;
	run_case(&r, 100, true, 0);
	ok(r.before == 100 && r.after == 100 && r.eof,
	    "a short input is left as it is");
	return tap_done();
}
