/*
 * tunnel.c: a CONNECT tunnel once the upstream is connected: the SNI check
 * of the first bytes on TLS ports, then the relay both ways with
 * backpressure, half-close, byte counts and exactly one audit record.
 *
 * Two relays, one after the other:
 *
 *  1. Buffered (bufferevents), from the 200 on: the 200 itself, the bytes
 *     that came right behind the head, and on TLS ports everything up to
 *     and including the ClientHello that the SNI check reads.
 *  2. Spliced, once those are written out: the bufferevents are disabled
 *     (they keep owning the sockets) and a plain edge-triggered event per
 *     socket drives splice(2) socket -> pipe -> socket in each direction.
 *     The bytes never enter user space; a chunk costs two splice calls
 *     and the epoll registration never changes.
 *
 * Pipes: a direction holds a pipe only while bytes are in flight.  It
 * takes one from a small per-proxy pool when its source turns readable and
 * gives it back as soon as the pipe has drained, so an idle tunnel holds
 * its two sockets and nothing else.  A pipe is sized to the tunnel high
 * watermark where the kernel allows it: a full pipe whose destination
 * cannot take more stops the reads of its source (backpressure); the
 * kernel's socket buffers do the rest.
 *
 * Edge-triggered readiness is kept as two flags per socket.  A splice into
 * a pipe that fails with EAGAIN clears "readable" only when the pipe was
 * empty: with bytes in it, EAGAIN may mean that the pipe's slots are full,
 * and the socket may still hold data that no new edge will announce.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/proxy-int.h"

struct px_tunnel {
	struct event *ev[2]; /* 0: the client socket, 1: the upstream */
	int fd[2];
	/* direction d carries side d's bytes to side 1 - d */
	struct px_pipe pipe[2];
	size_t inpipe[2];
	bool readable[2], writable[2];
	bool eof[2];  /* side d sent its FIN */
	bool shut[2]; /* shutdown(SHUT_WR) done on side d */
};

/* ---- the pipe pool ---- */

static int
pipe_take(struct px_proxy *px, struct px_pipe *p)
{
	int fds[2];

	if (px->npipes_pooled > 0) {
		*p = px->pipe_pool[--px->npipes_pooled];
		px->stats.tunnel_pipes_pooled--;
		px->stats.tunnel_pipes++;
		return 0;
	}
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
		return -1;
	p->rd = fds[0];
	p->wr = fds[1];
	{
		int want = (int)(px->cfg.tunnel_high_watermark > PX_PIPE_MAX
			? PX_PIPE_MAX
			: px->cfg.tunnel_high_watermark);
		int got = px->pipe_resize_failed
		    ? -1
		    : fcntl(p->wr, F_SETPIPE_SZ, want);

		if (got < 0) {
			/* over the per-user pipe limit, or above
			 * pipe-max-size: keep the default size and stop
			 * asking until a resize works again */
			px->pipe_resize_failed = true;
			got = fcntl(p->wr, F_GETPIPE_SZ);
		}
		p->cap = got > 0 ? (size_t)got : 4096;
	}
	px->stats.tunnel_pipes++;
	return 0;
}

/* Give an empty pipe back (or close it when the pool is full). */
static void
pipe_give(struct px_proxy *px, struct px_pipe *p)
{
	if (p->rd < 0)
		return;
	px->stats.tunnel_pipes--;
	if (px->npipes_pooled < PX_PIPE_POOL) {
		px->pipe_pool[px->npipes_pooled++] = *p;
		px->stats.tunnel_pipes_pooled++;
	} else {
		close(p->rd);
		close(p->wr);
	}
	p->rd = p->wr = -1;
}

/* A pipe that still holds bytes is never reused. */
static void
pipe_drop(struct px_proxy *px, struct px_pipe *p)
{
	if (p->rd < 0)
		return;
	px->stats.tunnel_pipes--;
	close(p->rd);
	close(p->wr);
	p->rd = p->wr = -1;
}

void
px_tunnel_pool_free(struct px_proxy *px)
{
	while (px->npipes_pooled > 0) {
		struct px_pipe *p = &px->pipe_pool[--px->npipes_pooled];

		close(p->rd);
		close(p->wr);
	}
	px->stats.tunnel_pipes_pooled = 0;
	px->pipe_resize_failed = false;
}

/* ---- the end of a tunnel ---- */

void
px_tunnel_finish(struct px_conn *c, enum px_outcome outcome, const char *stage)
{
	px_conn_audit(c, PX_AUDIT_CONNECT, outcome, 200, stage);
	px_conn_free(c);
}

void
px_tunnel_free(struct px_conn *c)
{
	struct px_tunnel *t = c->tun;

	if (t == NULL)
		return;
	for (int i = 0; i < 2; i++) {
		if (t->ev[i] != NULL)
			event_free(t->ev[i]);
		if (t->inpipe[i] == 0)
			pipe_give(c->px, &t->pipe[i]);
		else
			pipe_drop(c->px, &t->pipe[i]);
	}
	free(t);
	c->tun = NULL;
}

/* ---- the spliced relay ---- */

/* Move what can be moved in direction d.  0, or -1 on a socket error (or
 * no pipe to be had). */
static int
pump(struct px_conn *c, int d)
{
	struct px_tunnel *t = c->tun;
	struct px_pipe *p = &t->pipe[d];
	const int from = d, to = 1 - d;
	const unsigned flags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
	ssize_t n;

	for (;;) {
		bool progress = false;

		if (t->inpipe[d] > 0 && t->writable[to]) {
			n = splice(p->rd, NULL, t->fd[to], NULL, t->inpipe[d],
			    flags);
			if (n > 0) {
				t->inpipe[d] -= (size_t)n;
				progress = true;
			} else if (n < 0 && errno == EAGAIN) {
				t->writable[to] = false;
			} else if (n < 0 && errno != EINTR) {
				return -1;
			}
		}
		if (t->inpipe[d] == 0)
			pipe_give(c->px, p);
		if (t->readable[from] && !t->eof[from]) {
			size_t room;

			if (p->rd < 0 && pipe_take(c->px, p) != 0) {
				axg_warn("proxy: tunnel: pipe: %s",
				    strerror(errno));
				return -1;
			}
			room =
			    p->cap > t->inpipe[d] ? p->cap - t->inpipe[d] : 0;
			if (room == 0)
				break; /* backpressure: the pipe is full */
			n = splice(t->fd[from], NULL, p->wr, NULL, room, flags);
			if (n > 0) {
				t->inpipe[d] += (size_t)n;
				if (d == 0) {
					c->bytes_up += (uint64_t)n;
					c->px->stats.bytes_up += (uint64_t)n;
				} else {
					c->bytes_down += (uint64_t)n;
					c->px->stats.bytes_down += (uint64_t)n;
				}
				progress = true;
			} else if (n == 0) {
				t->eof[from] = true;
			} else if (errno == EAGAIN) {
				/* with bytes in the pipe this may be a full
				 * pipe, not an empty socket */
				if (t->inpipe[d] == 0)
					t->readable[from] = false;
			} else if (errno != EINTR) {
				return -1;
			}
			if (t->inpipe[d] == 0)
				pipe_give(c->px, p);
		}
		if (!progress)
			break;
	}
	if (t->eof[from] && t->inpipe[d] == 0 && !t->shut[to]) {
		/* half-close: side `from` finished and all of it is out.
		 * When the other way is done too, the tunnel ends now and
		 * the close sends the FIN: side `to` sent its own and all of
		 * its bytes were read, so nothing unread turns it into a
		 * reset. */
		if (!t->shut[from])
			shutdown(t->fd[to], SHUT_WR);
		t->shut[to] = true;
	}
	return 0;
}

static void
spliced_cb(evutil_socket_t fd, short what, void *arg)
{
	struct px_conn *c = arg;
	struct px_tunnel *t = c->tun;
	int side = fd == t->fd[0] ? 0 : 1;

	if (what & EV_READ)
		t->readable[side] = true;
	if (what & EV_WRITE)
		t->writable[side] = true;
	c->last_activity_ns = px_now_ns();
	if (pump(c, 0) != 0 || pump(c, 1) != 0) {
		px_tunnel_finish(c, PX_OUTCOME_ALLOWED, "done");
		return;
	}
	if (t->shut[0] && t->shut[1])
		px_tunnel_finish(c, PX_OUTCOME_ALLOWED, "done");
}

/* Hand an established tunnel whose buffers are all empty to splice(2).
 * Stays buffered (and returns) if the events cannot be made. */
static void
go_spliced(struct px_conn *c)
{
	struct event_base *base = c->px->base;
	struct px_tunnel *t = axg_calloc(1, sizeof(*t));
	const short what = EV_READ | EV_WRITE | EV_ET | EV_PERSIST;

	t->fd[0] = (int)bufferevent_getfd(c->cli);
	t->fd[1] = (int)bufferevent_getfd(c->up);
	for (int i = 0; i < 2; i++) {
		t->pipe[i].rd = t->pipe[i].wr = -1;
		t->ev[i] = event_new(base, t->fd[i], what, spliced_cb, c);
	}
	if (t->fd[0] < 0 || t->fd[1] < 0 || t->ev[0] == NULL ||
	    t->ev[1] == NULL) {
		for (int i = 0; i < 2; i++)
			if (t->ev[i] != NULL)
				event_free(t->ev[i]);
		free(t);
		return;
	}
	/* the bufferevents keep the sockets (and close them on free) but
	 * never watch them again */
	bufferevent_disable(c->cli, EV_READ | EV_WRITE);
	bufferevent_disable(c->up, EV_READ | EV_WRITE);
	bufferevent_setcb(c->cli, NULL, NULL, NULL, NULL);
	bufferevent_setcb(c->up, NULL, NULL, NULL, NULL);
	c->tun = t;
	if (event_add(t->ev[0], NULL) != 0 || event_add(t->ev[1], NULL) != 0) {
		axg_warn("proxy: tunnel: event_add failed");
		px_tunnel_finish(c, PX_OUTCOME_ERROR, "relay");
		return;
	}
	/* Both sockets are connected with empty buffers: writable until a
	 * splice says otherwise, so the first bytes read go straight out
	 * (not after a second read that fails with EAGAIN, while the other
	 * socket's first edge waits its turn).  Bytes may be waiting to be
	 * read already: no need to try (and fail with EAGAIN): adding the
	 * edge-triggered events changes both sockets' epoll registrations,
	 * and the kernel reports what is ready at that moment as the first
	 * edges. */
	t->writable[0] = t->writable[1] = true;
}

/* ---- the buffered relay ---- */

static bool
buffers_empty(struct px_conn *c)
{
	return evbuffer_get_length(bufferevent_get_input(c->cli)) == 0 &&
	    evbuffer_get_length(bufferevent_get_input(c->up)) == 0 &&
	    evbuffer_get_length(bufferevent_get_output(c->cli)) == 0 &&
	    evbuffer_get_length(bufferevent_get_output(c->up)) == 0;
}

static void
maybe_splice(struct px_conn *c)
{
	if (c->tun == NULL && c->state == PX_ST_TUNNEL && !c->cli_eof &&
	    !c->up_eof && c->px->cfg.tunnel_splice && buffers_empty(c))
		go_spliced(c);
}

void
px_tunnel_begin(struct px_conn *c)
{
	maybe_splice(c);
}

/* 1: passed (now a tunnel), 0: need more, -1: refused and freed. */
static int
sni_check(struct px_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->cli);
	size_t len = evbuffer_get_length(in);
	const size_t cap = PX_HELLO_MAX * 2;
	char sni[PX_HOST_MAX + 1], err[160];
	enum px_hello_result r;
	bool ok;

	if (len > cap)
		len = cap;
	r = px_tls_hello_sni(evbuffer_pullup(in, (ev_ssize_t)len), len, sni,
	    sizeof(sni), err, sizeof(err));
	if (r == PX_HELLO_MORE && len < cap)
		return 0;
	if (r == PX_HELLO_MORE)
		axg_strlcpy(err, "ClientHello too large", sizeof(err));
	if (r == PX_HELLO_SNI) {
		free(c->sni);
		c->sni = axg_strdup(sni);
	}
	ok = (r == PX_HELLO_SNI && c->target.kind == PX_HOST_NAME &&
		 strcmp(sni, c->target.host) == 0) ||
	    (r == PX_HELLO_NO_SNI &&
		c->px->cfg.sni_mode == PX_SNI_MATCH_IF_SET);
	if (!ok) {
		if (r == PX_HELLO_SNI)
			axg_strlcpy(c->reason,
			    "SNI does not match the CONNECT "
			    "host",
			    sizeof(c->reason));
		else if (r == PX_HELLO_NO_SNI)
			axg_strlcpy(c->reason, "ClientHello without SNI",
			    sizeof(c->reason));
		else
			axg_strlcpy(c->reason, err, sizeof(c->reason));
		axg_strlcpy(c->rule, "sni", sizeof(c->rule));
		px_conn_audit(c, PX_AUDIT_CONNECT, PX_OUTCOME_DENIED, 200,
		    "sni");
		px_conn_reset(c);
		return -1;
	}
	c->state = PX_ST_TUNNEL;
	return 1;
}

static void
relay(struct px_conn *c, struct bufferevent *from, struct bufferevent *to)
{
	struct evbuffer *in = bufferevent_get_input(from);
	struct evbuffer *out = bufferevent_get_output(to);
	size_t n = evbuffer_get_length(in);
	size_t hwm = c->px->cfg.tunnel_high_watermark;

	if (n == 0)
		return;
	if (from == c->cli) {
		c->bytes_up += n;
		c->px->stats.bytes_up += n;
	} else {
		c->bytes_down += n;
		c->px->stats.bytes_down += n;
	}
	evbuffer_add_buffer(out, in);
	if (evbuffer_get_length(out) >= hwm) {
		/* backpressure: stop reading until `to` drains to half */
		bufferevent_disable(from, EV_READ);
		bufferevent_setwatermark(to, EV_WRITE, hwm / 2, hwm / 2);
	}
}

void
px_tunnel_readcb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	c->last_activity_ns = px_now_ns();
	if (bev == c->cli && c->state == PX_ST_SNI && sni_check(c) <= 0)
		return; /* waiting, or refused and freed */
	if (bev == c->cli)
		relay(c, c->cli, c->up);
	else
		relay(c, c->up, c->cli);
	maybe_splice(c);
}

static bool
both_done(struct px_conn *c)
{
	return c->cli_eof && c->up_eof &&
	    evbuffer_get_length(bufferevent_get_output(c->cli)) == 0 &&
	    evbuffer_get_length(bufferevent_get_output(c->up)) == 0;
}

void
px_tunnel_writecb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct bufferevent *other = bev == c->cli ? c->up : c->cli;
	bool other_eof = bev == c->cli ? c->up_eof : c->cli_eof;

	c->last_activity_ns = px_now_ns();
	if (evbuffer_get_length(bufferevent_get_output(bev)) <=
	    c->px->cfg.tunnel_high_watermark / 2) {
		bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
		if (!other_eof)
			bufferevent_enable(other, EV_READ);
	}
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0 &&
	    other_eof) {
		/* half-close: the other side finished; pass it on */
		shutdown(bufferevent_getfd(bev), SHUT_WR);
		if (both_done(c)) {
			px_tunnel_finish(c, PX_OUTCOME_ALLOWED, "done");
			return;
		}
	}
	maybe_splice(c);
}

void
px_tunnel_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;
	struct bufferevent *other = bev == c->cli ? c->up : c->cli;

	if (what & BEV_EVENT_ERROR) {
		px_tunnel_finish(c, PX_OUTCOME_ALLOWED, "done");
		return;
	}
	if (!(what & BEV_EVENT_EOF))
		return;
	if (bev == c->cli && c->state == PX_ST_SNI) {
		/* the client gave up before a whole ClientHello */
		axg_strlcpy(c->reason, "client closed before the ClientHello",
		    sizeof(c->reason));
		axg_strlcpy(c->rule, "sni", sizeof(c->rule));
		px_conn_audit(c, PX_AUDIT_CONNECT, PX_OUTCOME_DENIED, 200,
		    "sni");
		px_conn_free(c);
		return;
	}
	if (bev == c->cli)
		c->cli_eof = true;
	else
		c->up_eof = true;
	relay(c, bev, other);
	if (evbuffer_get_length(bufferevent_get_output(other)) == 0)
		shutdown(bufferevent_getfd(other), SHUT_WR);
	if (both_done(c))
		px_tunnel_finish(c, PX_OUTCOME_ALLOWED, "done");
}
