/* daemon.c: `axgate serve`: bind, confine, serve with one event loop per
 * worker thread, reload on SIGHUP and the admin API, drain on SIGTERM.
 *
 * Order at start-up (all of it before a byte is read from a client):
 *   1. compile the policy;
 *   2. bind the proxy listeners (one SO_REUSEPORT socket per listener and
 *      worker) and the admin listener; create the audit files and hand
 *      them to the user the daemon will run as;
 *   3. confine the process (sbx_confine_self: the user, no capabilities,
 *      no_new_privs, Landlock, seccomp, no exec) while it is still one
 *      thread, so every thread started later is confined too;
 *   4. open the audit sinks (the writer thread), build the proxies and
 *      start the workers; READY=1.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "sandbox/sandbox.h"
#include "server/server-int.h"

#define TICK_MS 100

struct srv_daemon;

struct worker {
	struct srv_daemon *d;
	pthread_t thread;
	bool started;
	struct event_base *base;
	struct px_proxy *px;
	struct srv_scan *scan; /* a scanner per thread */
	struct srv_inference *inf;
	int fds[SRV_MAX_LISTENERS]; /* until the proxy owns them */
	int ctl[2];		    /* the main thread writes 'd' or 'q' */
	struct event *ctl_ev;
	struct event *tick;
	pthread_mutex_t lock; /* guards stats */
	struct px_stats stats;
	bool draining;
	int done; /* atomic: the loop has ended */
};

struct srv_daemon {
	const struct srv_config *cfg;
	char policy[PATH_MAX];
	struct event_base *base;
	struct srv_gatekeeper *gk;
	struct srv_counts *counts;
	struct ocsf_writer *writer;
	struct ocsf_origin origin;
	struct worker *w;
	unsigned nw;
	int admin_fd;
	struct srv_admin *admin;
	struct event *sigs[4];
	struct event *tick;
	struct srv_budget *budget; /* token budgets, shared by the workers */
	bool listen_inf[SRV_MAX_LISTENERS]; /* an inference listener */
	bool ready;
	bool stopping;
	uint64_t deadline_ns;
	uint64_t reloads_ok, reloads_failed;
};

static void
notify(const char *state)
{
	char err[256];

	if (axg_sd_notify(state, err, sizeof(err)) < 0)
		axg_warn("sd_notify %s: %s", state, err);
}

/* ---- policy ---- */

static void
join_errors(const struct axp_polfile_errors *e, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < e->n && o + 1 < len; i++) {
		snprintf(out + o, len - o, "%s%s", i ? "; " : "", e->msg[i]);
		o = strlen(out);
	}
	if (e->n == 0)
		axg_strlcpy(out, "the policy did not compile", len);
}

static void
policy_of(struct gate *g, struct ocsf_policy *p)
{
	memset(p, 0, sizeof(*p));
	if (g == NULL)
		return;
	p->name = gate_name(g);
	p->uid = gate_digest(g);
}

/* Compile the file beside the current policy and swap it in only if it
 * compiled; either way write a 3004 event and log. */
static int
reload(void *arg, const char *trigger, char *err, size_t errlen)
{
	struct srv_daemon *d = arg;
	struct axp_polfile_errors errs;
	struct ocsf_policy_event ev;
	struct gate *old, *g;
	char why[2048];

	memset(&errs, 0, sizeof(errs));
	memset(&ev, 0, sizeof(ev));
	old = srv_gatekeeper_gate(d->gk);
	g = gate_load(d->policy, NULL, &errs);
	ev.trigger = trigger;
	policy_of(old, &ev.old);
	if (g == NULL) {
		join_errors(&errs, why, sizeof(why));
		ev.change = OCSF_POLICY_RELOAD_FAILED;
		ev.cur.name = d->policy;
		ev.status_detail = why;
		ocsf_emit_policy(d->writer, &ev);
		d->reloads_failed++;
		axg_err("reload (%s) failed, policy %s (%s) kept: %s", trigger,
		    gate_name(old), gate_digest(old), why);
		gate_unref(old);
		return axg_seterr(err, errlen, "%s", why);
	}
	srv_gatekeeper_swap(d->gk, g);
	ev.change = OCSF_POLICY_RELOADED;
	policy_of(g, &ev.cur);
	ocsf_emit_policy(d->writer, &ev);
	d->reloads_ok++;
	axg_info("reload (%s): policy %s (%s) replaces %s (%s)", trigger,
	    gate_name(g), gate_digest(g), gate_name(old), gate_digest(old));
	gate_unref(old);
	gate_unref(g);
	return 0;
}

/* ---- admin callbacks ---- */

static bool
is_ready(void *arg)
{
	struct srv_daemon *d = arg;

	return d->ready && !d->stopping;
}

static struct gate *
cur_gate(void *arg)
{
	return srv_gatekeeper_gate(((struct srv_daemon *)arg)->gk);
}

static void
counter(struct axg_buf *b, const char *name, const char *help, const char *type,
    uint64_t v)
{
	axg_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help,
	    name, type, name, (unsigned long long)v);
}

static void
metrics(void *arg, struct axg_buf *b)
{
	struct srv_daemon *d = arg;
	struct srv_decision_stats ds;
	struct ocsf_stats as;
	struct px_stats t, s;
	uint64_t cum = 0;
	struct gate *g;

	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < d->nw; i++) {
		pthread_mutex_lock(&d->w[i].lock);
		s = d->w[i].stats;
		pthread_mutex_unlock(&d->w[i].lock);
		t.accepted += s.accepted;
		t.active += s.active;
		t.refused_limit += s.refused_limit;
		t.allowed += s.allowed;
		t.denied += s.denied;
		t.errors += s.errors;
		t.dns_failures += s.dns_failures;
		t.dials += s.dials;
		t.bytes_up += s.bytes_up;
		t.bytes_down += s.bytes_down;
		t.tunnel_pipes += s.tunnel_pipes;
		t.tunnel_pipes_pooled += s.tunnel_pipes_pooled;
		t.http_reused += s.http_reused;
		t.http_retried += s.http_retried;
	}
	counter(b, "axgate_connections_accepted_total",
	    "Client connections accepted.", "counter", t.accepted);
	counter(b, "axgate_connections_active", "Client connections open.",
	    "gauge", t.active);
	axg_buf_puts(b,
	    "# HELP axgate_limit_refusals_total Connections refused by a "
	    "limit.\n# TYPE axgate_limit_refusals_total counter\n");
	axg_buf_printf(b,
	    "axgate_limit_refusals_total{limit=\"connections\"} %llu\n",
	    (unsigned long long)t.refused_limit);
	axg_buf_puts(b,
	    "# HELP axgate_requests_total Requests by outcome.\n"
	    "# TYPE axgate_requests_total counter\n");
	axg_buf_printf(b,
	    "axgate_requests_total{outcome=\"allowed\"} %llu\n"
	    "axgate_requests_total{outcome=\"denied\"} %llu\n"
	    "axgate_requests_total{outcome=\"error\"} %llu\n",
	    (unsigned long long)t.allowed, (unsigned long long)t.denied,
	    (unsigned long long)t.errors);
	if (d->counts != NULL)
		srv_counts_metrics(d->counts, b);
	counter(b, "axgate_dns_failures_total", "Failed resolutions.",
	    "counter", t.dns_failures);
	counter(b, "axgate_upstream_dials_total", "Upstream connections made.",
	    "counter", t.dials);
	counter(b, "axgate_upstream_reused_total",
	    "Plain HTTP requests sent on a kept upstream connection.",
	    "counter", t.http_reused);
	counter(b, "axgate_upstream_retried_total",
	    "Plain HTTP requests sent again: their kept upstream connection "
	    "had closed.",
	    "counter", t.http_retried);
	axg_buf_puts(b,
	    "# HELP axgate_bytes_total Bytes relayed.\n"
	    "# TYPE axgate_bytes_total counter\n");
	axg_buf_printf(b,
	    "axgate_bytes_total{direction=\"up\"} %llu\n"
	    "axgate_bytes_total{direction=\"down\"} %llu\n",
	    (unsigned long long)t.bytes_up, (unsigned long long)t.bytes_down);
	axg_buf_printf(b,
	    "# HELP axgate_tunnel_pipes Pipes of spliced tunnels: held "
	    "while bytes are in flight, or pooled empty.\n"
	    "# TYPE axgate_tunnel_pipes gauge\n"
	    "axgate_tunnel_pipes{state=\"busy\"} %llu\n"
	    "axgate_tunnel_pipes{state=\"pooled\"} %llu\n",
	    (unsigned long long)t.tunnel_pipes,
	    (unsigned long long)t.tunnel_pipes_pooled);

	srv_gatekeeper_stats(d->gk, &ds);
	axg_buf_puts(b,
	    "# HELP axgate_decisions_total Policy decisions by entry point "
	    "and outcome.\n# TYPE axgate_decisions_total counter\n");
	for (int e = 0; e < GATE_NENTRIES; e++)
		axg_buf_printf(b,
		    "axgate_decisions_total{entry=\"%s\",outcome=\"allow\"} "
		    "%llu\n"
		    "axgate_decisions_total{entry=\"%s\",outcome=\"deny\"} "
		    "%llu\n"
		    "axgate_decisions_total{entry=\"%s\",outcome=\"error\"} "
		    "%llu\n",
		    gate_entry_name(e), (unsigned long long)ds.allowed[e],
		    gate_entry_name(e), (unsigned long long)ds.denied[e],
		    gate_entry_name(e), (unsigned long long)ds.errors[e]);
	axg_buf_puts(b,
	    "# HELP axgate_decision_duration_seconds Time to evaluate a "
	    "decision.\n# TYPE axgate_decision_duration_seconds histogram\n");
	for (int i = 0; i < SRV_LATENCY_BUCKETS; i++) {
		cum += ds.buckets[i];
		axg_buf_printf(b,
		    "axgate_decision_duration_seconds_bucket{le=\"%g\"} "
		    "%llu\n",
		    (double)srv_latency_bounds_ns[i] / 1e9,
		    (unsigned long long)cum);
	}
	axg_buf_printf(b,
	    "axgate_decision_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "axgate_decision_duration_seconds_sum %.9f\n"
	    "axgate_decision_duration_seconds_count %llu\n",
	    (unsigned long long)ds.count, (double)ds.sum_ns / 1e9,
	    (unsigned long long)ds.count);
	counter(b, "axgate_audit_refused_total",
	    "Audit events the writer refused.", "counter", ds.audit_failed);

	ocsf_writer_stats(d->writer, &as);
	counter(b, "axgate_audit_events_submitted_total",
	    "Audit events queued.", "counter", as.submitted);
	counter(b, "axgate_audit_events_written_total",
	    "Audit events written to every sink.", "counter", as.written);
	counter(b, "axgate_audit_events_dropped_total",
	    "Audit events dropped for lack of room.", "counter", as.dropped);
	counter(b, "axgate_audit_sink_errors_total",
	    "Failed audit sink writes or connects.", "counter", as.sink_errors);
	counter(b, "axgate_audit_queue_length", "Audit events in the queue.",
	    "gauge", as.queued);
	counter(b, "axgate_audit_queue_capacity", "Audit queue size.", "gauge",
	    as.capacity);

	axg_buf_puts(b,
	    "# HELP axgate_policy_reloads_total Policy reloads by result.\n"
	    "# TYPE axgate_policy_reloads_total counter\n");
	axg_buf_printf(b,
	    "axgate_policy_reloads_total{result=\"ok\"} %llu\n"
	    "axgate_policy_reloads_total{result=\"failed\"} %llu\n",
	    (unsigned long long)d->reloads_ok,
	    (unsigned long long)d->reloads_failed);
	g = srv_gatekeeper_gate(d->gk);
	axg_buf_puts(b,
	    "# HELP axgate_policy_info The policy in force.\n"
	    "# TYPE axgate_policy_info gauge\naxgate_policy_info{name=\"");
	for (const char *p = gate_name(g); *p; p++)
		if (*p == '"' || *p == '\\' || *p == '\n')
			axg_buf_printf(b, "\\%c", *p == '\n' ? 'n' : *p);
		else
			axg_buf_putc(b, *p);
	axg_buf_printf(b, "\",digest=\"%s\"} 1\n", gate_digest(g));
	gate_unref(g);
	counter(b, "axgate_ready", "1 when serving.", "gauge",
	    is_ready(d) ? 1 : 0);
	counter(b, "axgate_workers", "Event loops.", "gauge", d->nw);
}

/* ---- workers ---- */

static void
worker_snapshot(struct worker *w)
{
	struct px_stats s;

	px_proxy_stats(w->px, &s);
	pthread_mutex_lock(&w->lock);
	w->stats = s;
	pthread_mutex_unlock(&w->lock);
}

static void
worker_tick(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;

	(void)fd;
	(void)what;
	worker_snapshot(w);
	if (w->draining && w->stats.active == 0)
		event_base_loopbreak(w->base);
}

static void
worker_ctl(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	char cmd[16];
	ssize_t n;

	(void)what;
	n = read(fd, cmd, sizeof(cmd));
	for (ssize_t i = 0; i < n; i++) {
		if (cmd[i] == 'd' && !w->draining) {
			w->draining = true;
			px_proxy_stop_accepting(w->px);
			worker_tick(-1, 0, w);
		} else if (cmd[i] == 'q')
			event_base_loopbreak(w->base);
	}
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	event_base_dispatch(w->base);
	worker_snapshot(w);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
worker_send(struct worker *w, char cmd)
{
	ssize_t n;

	do
		n = write(w->ctl[1], &cmd, 1);
	while (n < 0 && errno == EINTR);
}

/* ---- signals and shutdown ---- */

static void
main_tick(evutil_socket_t fd, short what, void *arg)
{
	struct srv_daemon *d = arg;
	bool all_done = true;

	(void)fd;
	(void)what;
	if (!d->stopping)
		return;
	for (unsigned i = 0; i < d->nw; i++)
		if (!__atomic_load_n(&d->w[i].done, __ATOMIC_ACQUIRE))
			all_done = false;
	if (all_done || axg_monotonic_ns() >= d->deadline_ns) {
		if (!all_done)
			axg_warn("drain deadline passed: closing the "
				 "connections still open");
		for (unsigned i = 0; i < d->nw; i++)
			worker_send(&d->w[i], 'q');
		event_base_loopexit(d->base, NULL);
	}
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct srv_daemon *d = arg;
	char err[2048];

	(void)what;
	if (sig == SIGHUP) {
		axg_info("SIGHUP: reloading the policy, reopening the audit "
			 "sinks");
		ocsf_writer_reopen(d->writer);
		reload(d, "SIGHUP", err, sizeof(err));
		return;
	}
	if (d->stopping)
		return;
	axg_info("%s: no longer accepting; draining for up to %u ms",
	    sig == SIGTERM ? "SIGTERM" : "SIGINT", d->cfg->drain_timeout_ms);
	d->stopping = true;
	notify("STOPPING=1");
	d->deadline_ns =
	    axg_monotonic_ns() + (uint64_t)d->cfg->drain_timeout_ms * 1000000;
	for (unsigned i = 0; i < d->nw; i++)
		worker_send(&d->w[i], 'd');
}

/* ---- start-up ---- */

static int
bind_one(const struct srv_listen *l, struct sockaddr_storage *bound,
    bool reuseport, int *fdp, char *err, size_t errlen)
{
	socklen_t len = l->addr.ss_family == AF_INET6
	    ? sizeof(struct sockaddr_in6)
	    : sizeof(struct sockaddr_in);
	int one = 1, fd;

	fd = socket(l->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return axg_seterr(err, errlen, "%s: socket: %s", l->text,
		    strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (reuseport &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
		close(fd);
		return axg_seterr(err, errlen, "%s: SO_REUSEPORT: %s", l->text,
		    strerror(errno));
	}
	if (l->addr.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)bound, len) < 0 ||
	    listen(fd, 1024) < 0 ||
	    getsockname(fd, (struct sockaddr *)bound, &len) < 0) {
		axg_seterr(err, errlen, "%s: %s", l->text, strerror(errno));
		close(fd);
		return -1;
	}
	*fdp = fd;
	return 0;
}

static void
addr_text(const struct sockaddr_storage *ss, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(out, len, "[%s]:%u", host, port);
	} else {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
		snprintf(out, len, "%s:%u", host, port);
	}
}

static int
bind_all(struct srv_daemon *d, const struct srv_listen *ls, size_t nls,
    char *err, size_t errlen)
{
	char text[SRV_ADDR_MAX];

	for (size_t j = 0; j < nls; j++) {
		struct sockaddr_storage a = ls[j].addr;

		/* the first bind picks the port when it is 0; the other
		 * workers' sockets join it */
		for (unsigned i = 0; i < d->nw; i++)
			if (bind_one(&ls[j], &a, true, &d->w[i].fds[j], err,
				errlen) < 0)
				return -1;
		addr_text(&a, text, sizeof(text));
		axg_info("%s listening on %s (%u workers)",
		    d->listen_inf[j] ? "inference" : "proxy", text, d->nw);
	}
	if (d->cfg->admin_set) {
		struct sockaddr_storage a = d->cfg->admin.addr;

		if (bind_one(&d->cfg->admin, &a, false, &d->admin_fd, err,
			errlen) < 0)
			return -1;
		addr_text(&a, text, sizeof(text));
		axg_info("admin listening on %s", text);
	}
	return 0;
}

/* The user the daemon runs as, for the audit files it creates. */
static int
user_ids(const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	uint64_t u, g;
	const char *colon;

	if (user == NULL)
		user = "nobody";
	colon = strchr(user, ':');
	if (user[0] >= '0' && user[0] <= '9') {
		if (axg_parse_u64n(user,
			colon ? (size_t)(colon - user) : strlen(user), 0,
			0xfffffffe, &u) < 0 ||
		    (colon && axg_parse_u64(colon + 1, 0, 0xfffffffe, &g) < 0))
			return -1;
		*uid = (uid_t)u;
		*gid = colon ? (gid_t)g : (gid_t)u;
		return 0;
	}
	if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return -1;
	*uid = pw.pw_uid;
	*gid = pw.pw_gid;
	return 0;
}

/* Create each audit file now, owned by the user the daemon will be, so
 * that it can open (and after a rotation, reopen) it once confined. */
static int
prepare_audit_files(const struct srv_config *c, char *err, size_t errlen)
{
	uid_t uid;
	gid_t gid;

	if (geteuid() != 0)
		return 0;
	if (user_ids(c->user, &uid, &gid) < 0)
		return axg_seterr(err, errlen, "user %s: unknown",
		    c->user ? c->user : "nobody");
	for (size_t i = 0; i < c->audit.nsinks; i++) {
		const struct ocsf_sink_spec *s = &c->audit.sinks[i];
		int fd;

		if (s->kind != OCSF_SINK_FILE)
			continue;
		fd = open(s->target,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
		if (fd < 0)
			return axg_seterr(err, errlen, "%s: %s", s->target,
			    strerror(errno));
		if (fchown(fd, uid, gid) < 0) {
			axg_seterr(err, errlen, "%s: chown: %s", s->target,
			    strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static char *
dir_of(const char *path)
{
	char *d = axg_strdup(path), *slash = strrchr(d, '/');

	if (slash == NULL) {
		free(d);
		return axg_strdup(".");
	}
	if (slash == d)
		slash[1] = '\0';
	else
		*slash = '\0';
	return d;
}

/* Most inference files (keys and CAs) readable after confinement. */
#define MAX_ROUTE_FILES 64

static int
confine(struct srv_daemon *d, struct gate *g, char *err, size_t errlen)
{
	const struct srv_config *c = d->cfg;
	const char *rd[3 + MAX_ROUTE_FILES + 1] = { NULL };
	const char *wr[OCSF_MAX_SINKS + 1] = { NULL };
	const char *files[MAX_ROUTE_FILES];
	size_t nf;
	char *dirs[OCSF_MAX_SINKS + 1] = { NULL };
	size_t nr = 0, nw = 0;
	struct sbx_self s;
	int rc;

	dirs[0] = dir_of(d->policy);
	rd[nr++] = dirs[0];
	if (c->limits.resolver[0] == '\0' &&
	    access("/etc/resolv.conf", R_OK) == 0)
		rd[nr++] = "/etc/resolv.conf";
	/* the routes' key and CA files stay readable, one file each (read
	 * when a call needs them, so a rotated key is picked up); a file
	 * that does not exist yet cannot be granted and fails its calls by
	 * name */
	nf = srv_inference_files(g, files, MAX_ROUTE_FILES);
	for (size_t i = 0; i < nf; i++)
		if (access(files[i], F_OK) == 0)
			rd[nr++] = files[i];
	for (size_t i = 0; i < c->audit.nsinks; i++)
		if (c->audit.sinks[i].kind == OCSF_SINK_FILE) {
			dirs[nw + 1] = dir_of(c->audit.sinks[i].target);
			wr[nw] = dirs[nw + 1];
			nw++;
		}
	memset(&s, 0, sizeof(s));
	s.user = c->user;
	s.read_paths = rd;
	s.write_paths = wr;
	s.no_exec = true;
	rc = sbx_confine_self(&s, err, errlen);
	for (size_t i = 0; i <= nw; i++)
		free(dirs[i]);
	return rc;
}

/* A worker's event base.  With epoll's change list, the event changes a
 * callback makes (a bufferevent enabling writing, then disabling it once
 * the answer is out) are merged into one epoll_ctl per descriptor per loop
 * turn, just before epoll_wait, instead of one call each. */
static struct event_base *
worker_base_new(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base;

	if (cfg == NULL)
		return NULL;
	event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

static int
start_workers(struct srv_daemon *d, size_t nls, char *err, size_t errlen)
{
	struct px_decider dec;
	struct px_audit_hook hook;

	srv_gatekeeper_decider(d->gk, &dec);
	srv_gatekeeper_audit(d->gk, &hook);
	d->counts = srv_counts_new(&hook, &hook);
	for (unsigned i = 0; i < d->nw; i++) {
		struct worker *w = &d->w[i];
		struct timeval tv = { 0, TICK_MS * 1000 };

		w->base = worker_base_new();
		if (w->base == NULL)
			return axg_seterr(err, errlen, "event_base_new failed");
		{
			struct gate *g = srv_gatekeeper_gate(d->gk);
			struct px_scan_hook scan;
			char why[512];

			w->scan =
			    srv_scan_new(d->gk, g, NULL, why, sizeof(why));
			gate_unref(g);
			if (w->scan == NULL)
				return axg_seterr(err, errlen,
				    "credential scanner: %s", why);
			srv_scan_hook(w->scan, &scan);
			w->px = px_proxy_new(w->base, &d->cfg->limits, &dec,
			    &hook, &scan, err, errlen);
		}
		if (w->px == NULL)
			return -1;
		{
			struct px_inference_hook ih;

			if (d->budget == NULL)
				d->budget = srv_budget_new();
			w->inf = srv_inference_new(d->gk, d->budget, w->scan);
			srv_inference_hook(w->inf, &ih);
			if (px_proxy_set_inference(w->px, &ih, err, errlen) < 0)
				return -1;
		}
		for (size_t j = 0; j < nls; j++) {
			if ((d->listen_inf[j]
				    ? px_proxy_listen_inference_fd(w->px,
					  w->fds[j], err, errlen)
				    : px_proxy_listen_fd(w->px, w->fds[j], err,
					  errlen)) < 0)
				return -1;
			w->fds[j] = -1;
		}
		if (pipe2(w->ctl, O_CLOEXEC | O_NONBLOCK) < 0)
			return axg_seterr(err, errlen, "pipe: %s",
			    strerror(errno));
		w->ctl_ev = event_new(w->base, w->ctl[0], EV_READ | EV_PERSIST,
		    worker_ctl, w);
		w->tick = event_new(w->base, -1, EV_PERSIST, worker_tick, w);
		if (w->ctl_ev == NULL || w->tick == NULL ||
		    event_add(w->ctl_ev, NULL) < 0 ||
		    event_add(w->tick, &tv) < 0)
			return axg_seterr(err, errlen, "event_new failed");
	}
	for (unsigned i = 0; i < d->nw; i++) {
		if (pthread_create(&d->w[i].thread, NULL, worker_main,
			&d->w[i]) != 0)
			return axg_seterr(err, errlen,
			    "cannot start worker thread");
		d->w[i].started = true;
	}
	return 0;
}

static void
stop_workers(struct srv_daemon *d)
{
	for (unsigned i = 0; i < d->nw; i++) {
		struct worker *w = &d->w[i];

		if (w->started) {
			worker_send(w, 'q');
			pthread_join(w->thread, NULL);
		}
		if (w->ctl_ev != NULL)
			event_free(w->ctl_ev);
		if (w->tick != NULL)
			event_free(w->tick);
		px_proxy_free(w->px);
		srv_inference_free(w->inf);
		srv_scan_free(w->scan);
		if (w->base != NULL)
			event_base_free(w->base);
		for (int k = 0; k < 2; k++)
			if (w->ctl[k] >= 0)
				close(w->ctl[k]);
		for (int j = 0; j < SRV_MAX_LISTENERS; j++)
			if (w->fds[j] >= 0)
				close(w->fds[j]);
		pthread_mutex_destroy(&w->lock);
	}
	free(d->w);
	srv_budget_free(d->budget);
	d->budget = NULL;
	d->w = NULL;
}

static unsigned
worker_count(const struct srv_config *c)
{
	long n;

	if (c->workers > 0)
		return c->workers;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > SRV_MAX_WORKERS ? SRV_MAX_WORKERS : (unsigned)n;
}

int
srv_serve(const struct srv_config *c)
{
	static const int signals[4] = { SIGHUP, SIGTERM, SIGINT, 0 };
	struct srv_daemon d;
	struct srv_listen all[SRV_MAX_LISTENERS];
	const struct srv_listen *ls = all;
	size_t nls = c->nlisteners;
	struct axp_polfile_errors errs;
	struct ocsf_policy_event pev;
	struct ocsf_app_event aev;
	struct timeval tv = { 0, TICK_MS * 1000 };
	struct srv_admin_ops ops;
	struct gate *g = NULL;
	char err[2048];
	int status = 1;

	memset(&d, 0, sizeof(d));
	d.cfg = c;
	d.admin_fd = -1;
	signal(SIGPIPE, SIG_IGN);
	if (c->policy == NULL) {
		axg_err("no policy: give --policy FILE or policy: in the "
			"configuration");
		return 2;
	}
	if (realpath(c->policy, d.policy) == NULL) {
		axg_err("%s: %s", c->policy, strerror(errno));
		return 1;
	}
	if (nls == 0) {
		srv_parse_addr("127.0.0.1:3128", false, &all[0], err,
		    sizeof(err));
		nls = 1;
	} else {
		memcpy(all, c->listeners, nls * sizeof(all[0]));
	}
	for (size_t i = 0; i < c->ninference_listeners; i++) {
		if (nls >= SRV_MAX_LISTENERS) {
			axg_err("too many listeners");
			return 1;
		}
		d.listen_inf[nls] = true;
		all[nls++] = c->inference_listeners[i];
	}

	/* 1. the policy */
	memset(&errs, 0, sizeof(errs));
	g = gate_load(d.policy, NULL, &errs);
	if (g == NULL) {
		for (size_t i = 0; i < errs.n; i++)
			axg_err("%s", errs.msg[i]);
		return 1;
	}

	/* 2. sockets and files, with privileges */
	d.nw = worker_count(c);
	d.w = axg_calloc(d.nw, sizeof(*d.w));
	for (unsigned i = 0; i < d.nw; i++) {
		d.w[i].d = &d;
		d.w[i].ctl[0] = d.w[i].ctl[1] = -1;
		for (int j = 0; j < SRV_MAX_LISTENERS; j++)
			d.w[i].fds[j] = -1;
		pthread_mutex_init(&d.w[i].lock, NULL);
	}
	if (bind_all(&d, ls, nls, err, sizeof(err)) < 0 ||
	    prepare_audit_files(c, err, sizeof(err)) < 0)
		goto fail;

	/* 3. confinement, while this is the only thread */
	if (confine(&d, g, err, sizeof(err)) < 0)
		goto fail;

	/* 4. the audit writer, the proxies, the admin listener */
	ocsf_origin_default(&d.origin);
	d.writer = ocsf_writer_new(&c->audit, &d.origin, err, sizeof(err));
	if (d.writer == NULL)
		goto fail;
	d.gk = srv_gatekeeper_new(g, d.writer, NULL);
	d.base = event_base_new();
	if (d.base == NULL) {
		axg_strlcpy(err, "event_base_new failed", sizeof(err));
		goto fail;
	}
	if (d.admin_fd >= 0) {
		ops = (struct srv_admin_ops){ .arg = &d,
			.ready = is_ready,
			.metrics = metrics,
			.reload = reload,
			.gate = cur_gate };
		d.admin =
		    srv_admin_new(d.base, d.admin_fd, &ops, err, sizeof(err));
		if (d.admin == NULL)
			goto fail;
		d.admin_fd = -1;
	}
	for (int i = 0; signals[i] != 0; i++) {
		d.sigs[i] = evsignal_new(d.base, signals[i], on_signal, &d);
		if (d.sigs[i] == NULL || event_add(d.sigs[i], NULL) < 0) {
			axg_strlcpy(err, "cannot catch signals", sizeof(err));
			goto fail;
		}
	}
	d.tick = event_new(d.base, -1, EV_PERSIST, main_tick, &d);
	if (d.tick == NULL || event_add(d.tick, &tv) < 0) {
		axg_strlcpy(err, "event_new failed", sizeof(err));
		goto fail;
	}
	if (start_workers(&d, nls, err, sizeof(err)) < 0)
		goto fail;

	memset(&pev, 0, sizeof(pev));
	pev.change = OCSF_POLICY_LOADED;
	pev.trigger = "startup";
	policy_of(g, &pev.cur);
	ocsf_emit_policy(d.writer, &pev);
	memset(&aev, 0, sizeof(aev));
	aev.activity = OCSF_APP_START;
	ocsf_emit_app(d.writer, &aev);
	d.ready = true;
	axg_info("serving with policy %s (%s), pid %d", gate_name(g),
	    gate_digest(g), (int)getpid());
	notify("READY=1");

	event_base_dispatch(d.base);

	stop_workers(&d);
	memset(&aev, 0, sizeof(aev));
	aev.activity = OCSF_APP_STOP;
	ocsf_emit_app(d.writer, &aev);
	if (ocsf_writer_flush(d.writer, 5000) < 0)
		axg_warn("audit: some events were not written before exit");
	axg_info("stopped");
	status = 0;
	goto out;
fail:
	axg_err("%s", err);
	notify("STOPPING=1");
	if (d.writer != NULL) {
		memset(&aev, 0, sizeof(aev));
		aev.activity = OCSF_APP_STOP;
		aev.failed = true;
		aev.status_detail = err;
		ocsf_emit_app(d.writer, &aev);
	}
out:
	if (d.w != NULL)
		stop_workers(&d);
	srv_admin_free(d.admin);
	if (d.admin_fd >= 0)
		close(d.admin_fd);
	for (int i = 0; i < 4; i++)
		if (d.sigs[i] != NULL)
			event_free(d.sigs[i]);
	if (d.tick != NULL)
		event_free(d.tick);
	srv_gatekeeper_free(d.gk);
	srv_counts_free(d.counts);
	ocsf_writer_free(d.writer);
	if (d.base != NULL)
		event_base_free(d.base);
	gate_unref(g);
	return status;
}
