/*
 * sink.c: where the lines go.  Used by the writer thread only.
 *
 * file    O_APPEND, the whole batch in one write() (a short write, which
 *         only a full disk causes, continues where it stopped)
 * stdout  the same on file descriptor 1, never closed
 * syslog  RFC 5424 messages, one datagram each, on a local unix socket
 * syslog+tcp  RFC 5424 messages with RFC 6587 octet-counting framing on a
 *         non-blocking TCP connection; after a broken connection the
 *         current frame is sent again whole on the next one
 *
 * A sink keeps its place in the current batch, so a failed or
 * would-block write is simply called again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit-int.h"

#define POLL_SLICE_MS	100  /* a would-block write waits this long */
#define CONNECT_TIMEOUT 1000 /* ms */

struct ocsf_sink {
	struct ocsf_sink_spec spec;
	char name[1100];
	int fd;
	int facility;
	char hostname[256];
	int pid;
	/* progress in the current batch */
	size_t off;	     /* bytes of the byte stream already written */
	size_t next;	     /* datagram sinks: next line */
	struct axg_buf msgs; /* TCP: the framed messages of the batch */
	size_t *frame_end;   /* TCP: end offset of each frame */
	size_t nframes, frame_cap;
	bool built;
	struct axg_buf tmp; /* one datagram */
};

const char *
ocsf_sink_name(const struct ocsf_sink *s)
{
	return s->name;
}

static int
file_open(struct ocsf_sink *s, char *err, size_t errlen)
{
	int fd = open(s->spec.target,
	    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);

	if (fd < 0)
		return axg_seterr(err, errlen, "%s: %s", s->spec.target,
		    strerror(errno));
	if (s->fd >= 0)
		close(s->fd);
	s->fd = fd;
	return 0;
}

static void
sock_close(struct ocsf_sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* Wait up to ms for events on fd; 1 ready, 0 timeout, -1 error. */
static int
wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	if (r > 0 && (p.revents & (POLLERR | POLLNVAL)) &&
	    !(p.revents & events))
		return -1;
	return r;
}

static int
unix_connect(struct ocsf_sink *s, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	axg_strlcpy(sun.sun_path, s->spec.target, sizeof(sun.sun_path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return axg_seterr(err, errlen, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;

		close(fd);
		return axg_seterr(err, errlen, "connect %s: %s", s->spec.target,
		    strerror(e));
	}
	s->fd = fd;
	return 0;
}

static int
tcp_connect(struct ocsf_sink *s, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai;
	int rc, fd = -1, e = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(s->spec.target, s->spec.port, &hints, &res);
	if (rc != 0)
		return axg_seterr(err, errlen, "%s: %s", s->spec.target,
		    gai_strerror(rc));
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
		    ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			socklen_t l = sizeof(e);

			e = ETIMEDOUT;
			if (wait_fd(fd, POLLOUT, CONNECT_TIMEOUT) > 0 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) == 0 &&
			    e == 0)
				break;
		} else {
			e = errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return axg_seterr(err, errlen, "connect %s:%s: %s",
		    s->spec.target, s->spec.port, strerror(e));
	s->fd = fd;
	return 0;
}

/* A collector never sends: a readable socket means it closed or reset. */
static bool
tcp_peer_gone(int fd)
{
	char c;
	ssize_t r;

	if (wait_fd(fd, POLLIN, 0) == 0)
		return false;
	r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

struct ocsf_sink *
ocsf_sink_open(const struct ocsf_sink_spec *spec, const struct ocsf_config *c,
    char *err, size_t errlen)
{
	struct ocsf_sink *s = axg_calloc(1, sizeof(*s));
	size_t i;

	s->spec = *spec;
	s->fd = -1;
	s->facility = c->syslog_facility >= 0 && c->syslog_facility <= 23
	    ? c->syslog_facility
	    : OCSF_SYSLOG_FACILITY;
	s->pid = (int)getpid();
	axg_buf_init(&s->msgs, 0);
	axg_buf_init(&s->tmp, 0);
	if (gethostname(s->hostname, sizeof(s->hostname) - 1) != 0 ||
	    s->hostname[0] == '\0')
		axg_strlcpy(s->hostname, "-", sizeof(s->hostname));
	/* RFC 5424 HOSTNAME: printable US-ASCII, no spaces */
	for (i = 0; s->hostname[i] != '\0'; i++)
		if (s->hostname[i] <= ' ' || s->hostname[i] > '~')
			s->hostname[i] = '_';
	switch (spec->kind) {
	case OCSF_SINK_FILE:
		snprintf(s->name, sizeof(s->name), "file:%s", spec->target);
		if (file_open(s, err, errlen) < 0)
			goto fail;
		break;
	case OCSF_SINK_STDOUT:
		snprintf(s->name, sizeof(s->name), "stdout");
		s->fd = STDOUT_FILENO;
		break;
	case OCSF_SINK_FD:
		snprintf(s->name, sizeof(s->name), "fd:%s", spec->target);
		{
			uint64_t fd = 0;

			(void)axg_parse_u64(spec->target, 0, 65535, &fd);
			s->fd = (int)fd;
			break;
		}
	case OCSF_SINK_SYSLOG:
		snprintf(s->name, sizeof(s->name), "syslog:%s", spec->target);
		/* connected lazily: a syslog daemon that is down is retried */
		break;
	case OCSF_SINK_SYSLOG_TCP:
		snprintf(s->name, sizeof(s->name), "syslog+tcp://%s%s%s:%s",
		    strchr(spec->target, ':') ? "[" : "", spec->target,
		    strchr(spec->target, ':') ? "]" : "", spec->port);
		break;
	default:
		axg_seterr(err, errlen, "audit sink: unknown kind %d",
		    (int)spec->kind);
		goto fail;
	}
	return s;
fail:
	ocsf_sink_close(s);
	return NULL;
}

void
ocsf_sink_close(struct ocsf_sink *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0 && s->spec.kind != OCSF_SINK_STDOUT &&
	    s->spec.kind != OCSF_SINK_FD)
		close(s->fd);
	axg_buf_free(&s->msgs);
	axg_buf_free(&s->tmp);
	free(s->frame_end);
	free(s);
}

void
ocsf_sink_begin(struct ocsf_sink *s)
{
	s->off = 0;
	s->next = 0;
	s->built = false;
	s->nframes = 0;
	axg_buf_reset(&s->msgs);
}

int
ocsf_sink_reopen(struct ocsf_sink *s, char *err, size_t errlen)
{
	switch (s->spec.kind) {
	case OCSF_SINK_FILE:
		return file_open(s, err, errlen);
	case OCSF_SINK_SYSLOG:
	case OCSF_SINK_SYSLOG_TCP:
		sock_close(s);
		/* a TCP frame cut by the close is sent again whole */
		if (s->spec.kind == OCSF_SINK_SYSLOG_TCP) {
			size_t start = 0;

			for (size_t i = 0; i < s->nframes; i++) {
				if (s->frame_end[i] > s->off)
					break;
				start = s->frame_end[i];
			}
			s->off = start;
		}
		return 0;
	default:
		return 0;
	}
}

/* ---- syslog framing ---- */

/* "<PRI>1 TIMESTAMP HOST axgate PID ocsf-CLASS - " then the line without
 * its newline. */
static void
syslog_msg(struct ocsf_sink *s, struct axg_buf *b, const struct ocsf_line *l)
{
	/* OCSF severity_id to syslog severity */
	static const int sev[] = { 6, 6, 5, 4, 3, 2, 1 };
	int pri = s->facility * 8 +
	    (l->meta.severity_id < AXG_ARRAY_LEN(sev) ? sev[l->meta.severity_id]
						      : 6);
	time_t secs = (time_t)(l->meta.time_ms / 1000);
	struct tm tm;
	char ts[80]; /* room for any int fields: no truncation warning */

	gmtime_r(&secs, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, (unsigned)(l->meta.time_ms % 1000));
	axg_buf_printf(b, "<%d>1 %s %s axgate %d ocsf-%u - ", pri, ts,
	    s->hostname, s->pid, (unsigned)l->meta.class_uid);
	axg_buf_append(b, l->data, l->len > 0 ? l->len - 1 : 0);
}

static void
tcp_build(struct ocsf_sink *s, const struct ocsf_batch *b)
{
	if (s->frame_cap < b->n) {
		s->frame_end =
		    axg_reallocarray(s->frame_end, b->n, sizeof(*s->frame_end));
		s->frame_cap = b->n;
	}
	for (size_t i = 0; i < b->n; i++) {
		axg_buf_reset(&s->tmp);
		syslog_msg(s, &s->tmp, &b->lines[i]);
		axg_buf_printf(&s->msgs, "%zu ", s->tmp.len);
		axg_buf_append(&s->msgs, s->tmp.data, s->tmp.len);
		s->frame_end[i] = s->msgs.len;
	}
	s->nframes = b->n;
	s->built = true;
}

/* Write data[off..len) to a stream fd. */
static int
stream_write(struct ocsf_sink *s, const char *data, size_t len, bool sock,
    char *err, size_t errlen)
{
	while (s->off < len) {
		ssize_t n;

		if (sock)
			n = send(s->fd, data + s->off, len - s->off,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			n = write(s->fd, data + s->off, len - s->off);
		if (n > 0) {
			s->off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_fd(s->fd, POLLOUT, POLL_SLICE_MS) != 0)
				continue; /* ready (or error: send reports) */
			return 1;
		}
		return axg_seterr(err, errlen, "write: %s",
		    n == 0 ? "wrote nothing" : strerror(errno));
	}
	return 0;
}

int
ocsf_sink_write(struct ocsf_sink *s, const struct ocsf_batch *b, bool fsync,
    char *err, size_t errlen)
{
	int rc;

	switch (s->spec.kind) {
	case OCSF_SINK_FILE:
	case OCSF_SINK_STDOUT:
	case OCSF_SINK_FD:
		rc = stream_write(s, b->data, b->len, false, err, errlen);
		if (rc == 0 && fsync && s->spec.kind == OCSF_SINK_FILE &&
		    b->len > 0 && fdatasync(s->fd) < 0)
			return axg_seterr(err, errlen, "fdatasync: %s",
			    strerror(errno));
		return rc;
	case OCSF_SINK_SYSLOG_TCP:
		if (!s->built)
			tcp_build(s, b);
		if (s->fd >= 0 && tcp_peer_gone(s->fd))
			(void)ocsf_sink_reopen(s, NULL, 0);
		if (s->fd < 0 && tcp_connect(s, err, errlen) < 0)
			return -1;
		rc = stream_write(s, s->msgs.data, s->msgs.len, true, err,
		    errlen);
		if (rc < 0)
			(void)ocsf_sink_reopen(s, NULL, 0);
		return rc;
	case OCSF_SINK_SYSLOG:
		if (s->fd < 0 && unix_connect(s, err, errlen) < 0)
			return -1;
		while (s->next < b->n) {
			ssize_t n;

			axg_buf_reset(&s->tmp);
			syslog_msg(s, &s->tmp, &b->lines[s->next]);
			n = send(s->fd, s->tmp.data, s->tmp.len,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n >= 0) {
				s->next++;
				continue;
			}
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (wait_fd(s->fd, POLLOUT, POLL_SLICE_MS) != 0)
					continue;
				return 1;
			}
			rc = axg_seterr(err, errlen, "send: %s",
			    strerror(errno));
			sock_close(s);
			return rc;
		}
		return 0;
	}
	return axg_seterr(err, errlen, "unknown sink");
}
