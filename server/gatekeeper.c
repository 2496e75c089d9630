/* gatekeeper.c: the proxy's decider and audit hook, backed by a gate and
 * an OCSF writer (server.h). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include "common/common.h"
#include "server/server-int.h"

const uint64_t srv_latency_bounds_ns[SRV_LATENCY_BUCKETS] = {
	1000,
	2500,
	5000,
	10000,
	25000,
	50000,
	100000,
	250000,
	500000,
	1000000,
	5000000,
	25000000,
};

struct srv_gatekeeper {
	pthread_mutex_t lock; /* guards gate */
	struct gate *gate;
	struct ocsf_writer *audit;
	char *job;
	uint64_t next_conn; /* atomic */
	uint64_t conn_base;
	struct srv_decision_stats st; /* updated atomically */
};

/* What one connection holds: the gate it started with, and its id. */
struct srv_snap {
	struct srv_gatekeeper *k;
	struct gate *g;
	char conn_uid[24];
};

#define ADD(field, n) __atomic_add_fetch(&(field), (n), __ATOMIC_RELAXED)

struct srv_gatekeeper *
srv_gatekeeper_new(struct gate *g, struct ocsf_writer *audit, const char *job)
{
	struct srv_gatekeeper *k = axg_calloc(1, sizeof(*k));

	pthread_mutex_init(&k->lock, NULL);
	k->gate = gate_ref(g);
	k->audit = audit;
	k->job = job != NULL ? axg_strdup(job) : NULL;
	/* connection ids differ between runs without a random source */
	k->conn_base = ((uint64_t)axg_now_ms() << 20) ^ (uint64_t)getpid();
	return k;
}

void
srv_gatekeeper_free(struct srv_gatekeeper *k)
{
	if (k == NULL)
		return;
	gate_unref(k->gate);
	pthread_mutex_destroy(&k->lock);
	free(k->job);
	free(k);
}

void
srv_gatekeeper_set_audit(struct srv_gatekeeper *k, struct ocsf_writer *audit)
{
	k->audit = audit;
}

struct ocsf_writer *
srv_gatekeeper_writer(struct srv_gatekeeper *k)
{
	return k->audit;
}

void
srv_gatekeeper_swap(struct srv_gatekeeper *k, struct gate *g)
{
	struct gate *old;

	gate_ref(g);
	pthread_mutex_lock(&k->lock);
	old = k->gate;
	k->gate = g;
	pthread_mutex_unlock(&k->lock);
	gate_unref(old);
}

struct gate *
srv_gatekeeper_gate(struct srv_gatekeeper *k)
{
	struct gate *g;

	pthread_mutex_lock(&k->lock);
	g = gate_ref(k->gate);
	pthread_mutex_unlock(&k->lock);
	return g;
}

void
srv_gatekeeper_stats(struct srv_gatekeeper *k, struct srv_decision_stats *out)
{
	const uint64_t *src = (const uint64_t *)&k->st;
	uint64_t *dst = (uint64_t *)out;
	size_t i;

	for (i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* ---- the decider ---- */

static void *
acquire(void *arg)
{
	struct srv_gatekeeper *k = arg;
	struct srv_snap *s = axg_calloc(1, sizeof(*s));

	s->k = k;
	s->g = srv_gatekeeper_gate(k);
	snprintf(s->conn_uid, sizeof(s->conn_uid), "c-%016llx",
	    (unsigned long long)(k->conn_base + ADD(k->next_conn, 1)));
	return s;
}

static void
release(void *arg, void *snap)
{
	struct srv_snap *s = snap;

	(void)arg;
	gate_unref(s->g);
	free(s);
}

static int
decide(struct srv_snap *s, enum gate_entry e, const struct gate_request *r,
    struct px_decision *out)
{
	struct srv_gatekeeper *k = s->k;
	struct gate_decision d;
	struct axv *in = gate_input(r);
	uint64_t t0 = axg_monotonic_ns(), dt;
	int rc = gate_decide(s->g, e, in, &d);
	unsigned i;

	dt = axg_monotonic_ns() - t0;
	axv_unref(in);
	for (i = 0; i < SRV_LATENCY_BUCKETS; i++)
		if (dt <= srv_latency_bounds_ns[i])
			break;
	ADD(k->st.buckets[i], 1);
	ADD(k->st.sum_ns, dt);
	ADD(k->st.count, 1);
	if (rc < 0)
		ADD(k->st.errors[e], 1);
	else if (d.allow)
		ADD(k->st.allowed[e], 1);
	else
		ADD(k->st.denied[e], 1);
	out->allow = d.allow;
	axg_strlcpy(out->rule, d.rule, sizeof(out->rule));
	axg_strlcpy(out->reason, d.reason, sizeof(out->reason));
	/* a fail-closed denial is still an answer: the proxy refuses */
	return 0;
}

static void
request_base(struct srv_snap *s, struct gate_request *r, enum gate_entry e,
    const struct px_hostport *t, const struct sockaddr *client, char *cbuf,
    size_t clen)
{
	memset(r, 0, sizeof(*r));
	r->entry = e;
	r->host = t->host;
	r->port = t->port;
	r->job = s->k->job;
	r->tokens = -1;
	if (client != NULL)
		r->client_addr = px_addr_str(client, cbuf, clen);
}

static int
decide_connect(void *arg, const struct px_hostport *t,
    const struct sockaddr *client, struct px_decision *out)
{
	struct gate_request r;
	char cbuf[INET6_ADDRSTRLEN];

	request_base(arg, &r, GATE_CONNECT, t, client, cbuf, sizeof(cbuf));
	return decide(arg, GATE_CONNECT, &r, out);
}

static int
decide_address(void *arg, const struct px_hostport *t,
    const struct sockaddr *addr, struct px_decision *out)
{
	struct gate_request r;
	char abuf[INET6_ADDRSTRLEN];

	request_base(arg, &r, GATE_ADDRESS, t, NULL, NULL, 0);
	r.addr = px_addr_str(addr, abuf, sizeof(abuf));
	r.addr_class = px_addr_class_name(px_addr_classify(addr));
	return decide(arg, GATE_ADDRESS, &r, out);
}

/* Headers to the policy, at most this many. */
#define SRV_MAX_HEADERS 128

static int
decide_http(void *arg, const struct px_http_info *req, struct px_decision *out)
{
	struct gate_request r;
	struct gate_header h[SRV_MAX_HEADERS];
	char cbuf[INET6_ADDRSTRLEN];
	char *method, *path, *query = NULL, *q;
	size_t i,
	    n = req->nheaders < SRV_MAX_HEADERS ? req->nheaders
						: SRV_MAX_HEADERS;
	int rc;

	request_base(arg, &r, GATE_HTTP, req->target, req->client, cbuf,
	    sizeof(cbuf));
	method = axg_strndup(req->method, req->method_len);
	path = axg_strndup(req->path, req->path_len);
	if ((q = strchr(path, '?')) != NULL) {
		*q = '\0';
		query = q + 1;
	}
	for (i = 0; i < n; i++) {
		h[i].name = req->headers[i].name;
		h[i].name_len = req->headers[i].name_len;
		h[i].value = req->headers[i].value;
		h[i].value_len = req->headers[i].value_len;
	}
	r.scheme = "http";
	r.method = method;
	r.path = path;
	r.query = query;
	r.headers = h;
	r.nheaders = n;
	rc = decide(arg, GATE_HTTP, &r, out);
	free(method);
	free(path);
	return rc;
}

/* ---- for inference.c (server-int.h) ---- */

struct gate *
srv_snap_gate(void *snap)
{
	return ((struct srv_snap *)snap)->g;
}

struct srv_gatekeeper *
srv_snap_keeper(void *snap)
{
	return ((struct srv_snap *)snap)->k;
}

const char *
srv_snap_conn_uid(void *snap)
{
	return ((struct srv_snap *)snap)->conn_uid;
}

const char *
srv_gatekeeper_job(struct srv_gatekeeper *k)
{
	return k->job;
}

int
srv_snap_decide(void *snap, const struct gate_request *r,
    struct px_decision *out)
{
	return decide(snap, r->entry, r, out);
}

void
srv_gatekeeper_decider(struct srv_gatekeeper *k, struct px_decider *out)
{
	memset(out, 0, sizeof(*out));
	out->decide_connect = decide_connect;
	out->decide_address = decide_address;
	out->decide_http = decide_http;
	out->acquire = acquire;
	out->release = release;
	out->arg = k;
}

/* ---- the audit hook ---- */

static unsigned
sa_port(const struct sockaddr *sa)
{
	if (sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET)
		return ntohs(
		    ((const struct sockaddr_in *)(const void *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(
		    ((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	return 0;
}

struct ends {
	char src_ip[INET6_ADDRSTRLEN];
	char dst_ip[INET6_ADDRSTRLEN];
	struct ocsf_endpoint src, dst;
	struct ocsf_policy policy;
};

static void
fill_ends(struct ends *e, const struct srv_snap *s,
    const struct px_audit_record *r)
{
	memset(e, 0, sizeof(*e));
	if (r->client != NULL) {
		e->src.ip =
		    px_addr_str(r->client, e->src_ip, sizeof(e->src_ip));
		e->src.port = sa_port(r->client);
	}
	e->src.uid = s->k->job;
	if (r->host[0] != '\0')
		e->dst.hostname = r->host;
	if (r->upstream != NULL)
		e->dst.ip =
		    px_addr_str(r->upstream, e->dst_ip, sizeof(e->dst_ip));
	e->dst.port = r->port;
	e->policy.name = gate_name(s->g);
	e->policy.uid = gate_digest(s->g);
}

static const char *
nz(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : NULL;
}

static enum ocsf_net_activity
net_activity(const struct px_audit_record *r)
{
	if (strcmp(r->stage, "open") == 0)
		return OCSF_NET_OPEN;
	switch (r->outcome) {
	case PX_OUTCOME_ALLOWED:
		return OCSF_NET_CLOSE;
	case PX_OUTCOME_DENIED:
		/* refused before the tunnel, or cut after it opened */
		return r->dialed ? OCSF_NET_RESET : OCSF_NET_REFUSE;
	default:
		if (strcmp(r->stage, "dns") == 0 ||
		    strcmp(r->stage, "dial") == 0)
			return OCSF_NET_FAIL;
		return r->dialed ? OCSF_NET_RESET : OCSF_NET_REFUSE;
	}
}

static void
emit_net(struct srv_snap *s, const struct px_audit_record *r)
{
	struct ocsf_net_event ev;
	struct ends e;
	int rc;

	fill_ends(&e, s, r);
	memset(&ev, 0, sizeof(ev));
	ev.activity = net_activity(r);
	ev.correlation_uid = s->k->job;
	ev.connection_uid = s->conn_uid;
	ev.src = e.src;
	ev.dst = e.dst;
	ev.policy = e.policy;
	ev.rule = nz(r->rule);
	ev.reason = nz(r->reason);
	if (ev.activity == OCSF_NET_CLOSE || ev.activity == OCSF_NET_RESET) {
		ev.bytes_out = r->bytes_up;
		ev.bytes_in = r->bytes_down;
		ev.start_ms = r->start_ms;
		ev.end_ms = r->start_ms + r->duration_us / 1000;
	}
	rc = ocsf_emit_net(s->k->audit, &ev);
	if (rc != OCSF_QUEUED)
		ADD(s->k->st.audit_failed, 1);
}

static void
emit_http(struct srv_snap *s, const struct px_audit_record *r)
{
	struct ocsf_http_event ev;
	struct ends e;
	char url[2048], path[2048];
	const char *q;
	int rc;

	fill_ends(&e, s, r);
	memset(&ev, 0, sizeof(ev));
	ev.correlation_uid = s->k->job;
	ev.connection_uid = s->conn_uid;
	ev.allowed = r->outcome == PX_OUTCOME_ALLOWED;
	ev.method = nz(r->method) ? r->method : "UNKNOWN";
	if (r->host[0] != '\0') {
		snprintf(url, sizeof(url), "http://%s:%u%s", r->host, r->port,
		    r->path[0] ? r->path : "/");
		ev.url.url_string = url;
		ev.url.scheme = "http";
		ev.url.hostname = r->host;
		ev.url.port = r->port;
	}
	if (r->path[0] != '\0') {
		axg_strlcpy(path, r->path, sizeof(path));
		if ((q = strchr(r->path, '?')) != NULL) {
			path[q - r->path] = '\0';
			ev.url.query = q + 1;
		}
		ev.url.path = path;
	}
	ev.http_version = "HTTP/1.1";
	ev.status_code = r->status > 0 ? r->status : ev.allowed ? 200 : 403;
	ev.latency_ms = (int64_t)(r->duration_us / 1000);
	ev.src = e.src;
	ev.dst = e.dst;
	ev.policy = e.policy;
	ev.rule = nz(r->rule);
	ev.reason = nz(r->reason);
	ev.bytes_out = r->bytes_up;
	ev.bytes_in = r->bytes_down;
	if (nz(r->route) != NULL || nz(r->backend_url) != NULL) {
		ev.route = nz(r->route);
		ev.backend_url = nz(r->backend_url);
		ev.backend_method = ev.backend_url != NULL ? ev.method : NULL;
	}
	rc = ocsf_emit_http(s->k->audit, &ev);
	if (rc != OCSF_QUEUED)
		ADD(s->k->st.audit_failed, 1);
}

static void
on_record(void *arg, const struct px_audit_record *r)
{
	struct srv_snap *s = r->snap;

	(void)arg;
	if (s == NULL || s->k->audit == NULL)
		return;
	if (r->kind == PX_AUDIT_CONNECT ||
	    (r->kind == PX_AUDIT_REJECT && strcmp(r->method, "CONNECT") == 0))
		emit_net(s, r);
	else
		emit_http(s, r);
}

void
srv_gatekeeper_audit(struct srv_gatekeeper *k, struct px_audit_hook *out)
{
	memset(out, 0, sizeof(*out));
	out->record = on_record;
	out->opened = on_record;
	out->arg = k;
}
