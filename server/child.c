/* child.c: the proxy in a process of its own, confined before it reads a
 * byte, for `axgate run` (server.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/common.h"
#include "sandbox/sandbox.h"
#include "server/server.h"

/* How long the launcher waits for the child to say it is ready. */
#define CHILD_READY_MS 10000

/* close(lo..hi): close_range(), or one close() each before Linux 5.9. */
static void
close_span(unsigned lo, unsigned hi)
{
	long max;

	if (syscall(__NR_close_range, lo, hi, 0U) == 0 || errno != ENOSYS)
		return;
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (unsigned fd = lo; fd <= hi && fd < (unsigned)max; fd++)
		(void)close((int)fd);
}

/* Close every descriptor but stdio and keep[0..n) (-1 entries ignored):
 * close_range() over the gaps, not a close() per possible descriptor. */
static void
close_others(const int *keep, size_t n)
{
	int k[8];
	size_t m = 0;
	unsigned lo = 3;

	for (size_t i = 0; i < n && m < AXG_ARRAY_LEN(k); i++)
		if (keep[i] >= 3)
			k[m++] = keep[i];
	/* insertion sort: a handful of fds */
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && k[j - 1] > k[j]; j--) {
			int t = k[j];

			k[j] = k[j - 1];
			k[j - 1] = t;
		}
	for (size_t i = 0; i < m; i++) {
		if ((unsigned)k[i] > lo)
			close_span(lo, (unsigned)k[i] - 1);
		lo = (unsigned)k[i] + 1;
	}
	close_span(lo, ~0U);
}

static void
report(int fd, const char *msg)
{
	size_t n = strlen(msg);

	while (n > 0) {
		ssize_t w = write(fd, msg, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		msg += w;
		n -= (size_t)w;
	}
}

static void
on_term(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

static void
check_parent(evutil_socket_t fd, short what, void *arg)
{
	pid_t *parent = arg;

	(void)fd;
	(void)what;
	if (getppid() != *parent)
		_exit(0);
}

static void __attribute__((noreturn))
child_main(const struct srv_child_opts *o, int ready_fd, pid_t parent)
{
	struct event_base *base = NULL;
	struct px_proxy *px = NULL;
	struct srv_gatekeeper *k = NULL;
	struct ocsf_writer *w = NULL;
	struct px_decider dec;
	struct px_audit_hook hook;
	struct px_scan_hook scan;
	struct srv_scan *sc = NULL;
	struct srv_budget *budget = srv_budget_new();
	struct srv_inference *inf = NULL;
	struct px_inference_hook ih;
	struct event *sigterm, *sigint, *tick;
	struct timeval one = { 1, 0 };
	char err[512], msg[600];
	int keep[4] = { ready_fd, o->listen_fd, o->audit_fd,
		o->inference_fd > 0 ? o->inference_fd : -1 };

	close_others(keep, 4);
	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	if (base == NULL) {
		snprintf(msg, sizeof(msg), "event_base_new failed");
		goto fail;
	}
	/* The resolver reads its files now, before Landlock hides them. */
	k = srv_gatekeeper_new(o->gate, NULL, o->job);
	srv_gatekeeper_decider(k, &dec);
	srv_gatekeeper_audit(k, &hook);
	/* the scanner's rules are read now too */
	sc = o->scan_rules != NULL
	    ? srv_scan_new_rules(k, o->gate, o->job, o->scan_rules, err,
		  sizeof(err))
	    : srv_scan_new(k, o->gate, o->job, err, sizeof(err));
	if (sc == NULL) {
		snprintf(msg, sizeof(msg), "credential scanner: %s", err);
		goto fail;
	}
	srv_scan_hook(sc, &scan);
	px = px_proxy_new(base, o->px, &dec, &hook, &scan, err, sizeof(err));
	if (px == NULL) {
		snprintf(msg, sizeof(msg), "proxy: %s", err);
		goto fail;
	}
	/* the CA bundle for https backends is read now too */
	inf = srv_inference_new(k, budget, sc);
	srv_inference_hook(inf, &ih);
	/* the policy cannot change under a job: skip the system bundle
	 * (tens of milliseconds) when no route needs it */
	ih.no_default_ca = !srv_inference_needs_default_ca(o->gate);
	if (px_proxy_set_inference(px, &ih, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "proxy: %s", err);
		goto fail;
	}
	/* the routes' key files (held in locked memory) and CA files too:
	 * a route whose file cannot be read fails its calls by name */
	(void)srv_inference_preload(inf, o->gate, px);
	{
		struct sbx_self self = { .user = o->user, .no_exec = true };

		if (sbx_confine_self(&self, err, sizeof(err)) < 0) {
			snprintf(msg, sizeof(msg), "%s", err);
			goto fail;
		}
	}
	/* changing credentials cleared it: set it again */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(0);
	if (o->audit_fd >= 0) {
		struct ocsf_config ac;
		struct ocsf_origin origin;
		char spec[32];

		ocsf_config_init(&ac);
		snprintf(spec, sizeof(spec), "fd:%d", o->audit_fd);
		if (ocsf_config_add_sink(&ac, spec, err, sizeof(err)) < 0) {
			snprintf(msg, sizeof(msg), "audit: %s", err);
			goto fail;
		}
		ac.overflow = OCSF_OVERFLOW_BLOCK;
		ocsf_origin_default(&origin);
		w = ocsf_writer_new(&ac, &origin, err, sizeof(err));
		if (w == NULL) {
			snprintf(msg, sizeof(msg), "audit: %s", err);
			goto fail;
		}
		srv_gatekeeper_set_audit(k, w);
	}
	if (px_proxy_listen_fd(px, o->listen_fd, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "proxy: %s", err);
		goto fail;
	}
	if (o->inference_fd > 0 &&
	    px_proxy_listen_inference_fd(px, o->inference_fd, err,
		sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "proxy: %s", err);
		goto fail;
	}
	sigterm = evsignal_new(base, SIGTERM, on_term, base);
	sigint = evsignal_new(base, SIGINT, on_term, base);
	tick = event_new(base, -1, EV_PERSIST, check_parent, &parent);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_add(tick, &one);
	report(ready_fd, "ok");
	close(ready_fd);
	event_base_dispatch(base);
	event_free(sigterm);
	event_free(sigint);
	event_free(tick);
	px_proxy_free(px);
	if (w != NULL) {
		ocsf_writer_flush(w, 2000);
		ocsf_writer_free(w);
	}
	srv_inference_free(inf);
	srv_budget_free(budget);
	srv_scan_free(sc);
	srv_gatekeeper_free(k);
	event_base_free(base);
	_exit(0);
fail:
	report(ready_fd, msg);
	_exit(1);
}

pid_t
srv_proxy_child_fork(const struct srv_child_opts *o, int *ready_fd, char *err,
    size_t errlen)
{
	int p[2];
	pid_t pid, parent = getpid();

	*ready_fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return axg_seterr(err, errlen, "proxy child: pipe: %s",
		    strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return axg_seterr(err, errlen, "proxy child: fork: %s",
		    strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		child_main(o, p[1], parent);
	}
	close(p[1]);
	*ready_fd = p[0];
	return pid;
}

int
srv_proxy_child_ready(pid_t pid, int ready_fd, char *err, size_t errlen)
{
	struct pollfd pfd;
	char buf[600];
	ssize_t n;
	int rc;

	pfd.fd = ready_fd;
	pfd.events = POLLIN;
	do
		rc = poll(&pfd, 1, CHILD_READY_MS);
	while (rc < 0 && errno == EINTR);
	n = rc > 0 ? read(ready_fd, buf, sizeof(buf) - 1) : -1;
	close(ready_fd);
	if (n == 2 && memcmp(buf, "ok", 2) == 0)
		return 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (n > 0) {
		buf[n] = '\0';
		return axg_seterr(err, errlen, "proxy child: %s", buf);
	}
	return axg_seterr(err, errlen, "proxy child: %s",
	    rc == 0 ? "not ready in time" : "exited before it was ready");
}

pid_t
srv_proxy_child_start(const struct srv_child_opts *o, char *err, size_t errlen)
{
	int fd;
	pid_t pid = srv_proxy_child_fork(o, &fd, err, errlen);

	if (pid < 0)
		return -1;
	if (srv_proxy_child_ready(pid, fd, err, errlen) < 0)
		return -1;
	return pid;
}

/* ---- relaying the child's events ---- */

struct srv_relay {
	pthread_t thread;
	int fd;
	struct ocsf_writer *w;
};

static void *
relay_main(void *arg)
{
	struct srv_relay *r = arg;
	struct axg_buf b;
	char chunk[16384];
	ssize_t n;

	axg_buf_init(&b, OCSF_LINE_MAX * 2);
	for (;;) {
		char *nl;

		n = read(r->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (axg_buf_append(&b, chunk, (size_t)n) < 0) {
			axg_warn("audit relay: a line longer than %d bytes: "
				 "dropped",
			    OCSF_LINE_MAX);
			axg_buf_reset(&b);
			continue;
		}
		while ((nl = memchr(b.data, '\n', b.len)) != NULL) {
			size_t len = (size_t)(nl - b.data);

			if (len > 0)
				(void)ocsf_emit_line(r->w, b.data, len);
			axg_buf_consume(&b, len + 1);
		}
	}
	axg_buf_free(&b);
	return NULL;
}

struct srv_relay *
srv_relay_start(int fd, struct ocsf_writer *w, char *err, size_t errlen)
{
	struct srv_relay *r = axg_calloc(1, sizeof(*r));
	int rc;

	r->fd = fd;
	r->w = w;
	rc = pthread_create(&r->thread, NULL, relay_main, r);
	if (rc != 0) {
		free(r);
		axg_seterr(err, errlen, "audit relay: %s", strerror(rc));
		return NULL;
	}
	return r;
}

void
srv_relay_stop(struct srv_relay *r)
{
	if (r == NULL)
		return;
	pthread_join(r->thread, NULL);
	free(r);
}
