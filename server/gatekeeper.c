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
	pthread_mutex_t lock; /* guards gate, gen and cacheable */
	struct gate *gate;
	uint64_t gen;	/* names (this keeper, gate) in decision caches */
	bool cacheable; /* connect/address depend on host, port, addr only */
	struct ocsf_writer *audit;
	char *job;
	uint64_t next_conn; /* atomic */
	uint64_t conn_base;
	struct srv_decision_stats st; /* updated atomically */
};

/* What one connection holds: the gate it started with, its generation,
 * and its id. */
struct srv_snap {
	struct srv_gatekeeper *k;
	struct gate *g;
	uint64_t gen;
	bool cacheable;
	char conn_uid[24];
};

#define ADD(field, n) __atomic_add_fetch(&(field), (n), __ATOMIC_RELAXED)

/* ---- the decision cache ----
 *
 * Each thread that decides (a proxy worker) keeps the last connect and
 * address decisions it made, direct-mapped by (generation, entry point,
 * host, port, address).  A generation names one gate of one keeper: a
 * new one is drawn from a process-wide counter when a keeper is made and
 * at every swap, so a reload never finds a decision of the old policy,
 * while connections still holding the old gate find theirs.
 *
 * Only gates without `rego:` modules are cached: their connect and
 * address decisions come from the built-in rules (policy/builtin), which
 * read nothing but the host (and what the input derives from it), the
 * port, and for an address the address and its class (derived from the
 * address).  A user's module may read anything (the client, the job),
 * so with one every decision is evaluated.  Evaluation errors are never
 * cached.  Every decision, cached or not, is counted in the statistics
 * and audited by the proxy. */
#define DC_SLOTS 256 /* per thread; a power of two */

struct dc_entry {
	uint64_t gen; /* 0: empty */
	uint32_t hash;
	uint16_t port;
	uint8_t entry;
	bool allow;
	char host[PX_HOST_MAX + 1];
	char addr[INET6_ADDRSTRLEN];
	char rule[sizeof(((struct px_decision *)0)->rule)];
	char reason[sizeof(((struct px_decision *)0)->reason)];
};

struct dc {
	struct dc_entry e[DC_SLOTS];
};

static uint64_t dc_next_gen; /* atomic */
static pthread_once_t dc_once = PTHREAD_ONCE_INIT;
static pthread_key_t dc_key;
static bool dc_key_ok;

static void
dc_free(void *p)
{
	free(p);
}

static void
dc_init(void)
{
	dc_key_ok = pthread_key_create(&dc_key, dc_free) == 0;
}

static uint64_t
dc_new_gen(void)
{
	return ADD(dc_next_gen, 1);
}

/* This thread's cache, made on first use (NULL without a key). */
static struct dc *
dc_get(void)
{
	struct dc *c;

	pthread_once(&dc_once, dc_init);
	if (!dc_key_ok)
		return NULL;
	c = pthread_getspecific(dc_key);
	if (c == NULL) {
		c = axg_calloc(1, sizeof(*c));
		if (pthread_setspecific(dc_key, c) != 0) {
			free(c);
			return NULL;
		}
	}
	return c;
}

static uint32_t
dc_hash(uint64_t gen, enum gate_entry e, const char *host, unsigned port,
    const char *addr)
{
	uint32_t h = 2166136261u;
	const char *s;

	h = (h ^ (uint32_t)gen) * 16777619u;
	h = (h ^ (uint32_t)(gen >> 32)) * 16777619u;
	h = (h ^ (uint32_t)e) * 16777619u;
	h = (h ^ port) * 16777619u;
	for (s = host; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	h = (h ^ 0xffu) * 16777619u;
	for (s = addr; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The slot of a key: *hit tells whether it holds that key's decision. */
static struct dc_entry *
dc_slot(struct dc *c, uint64_t gen, enum gate_entry e, const char *host,
    unsigned port, const char *addr, uint32_t hash, bool *hit)
{
	struct dc_entry *d = &c->e[hash & (DC_SLOTS - 1)];

	*hit = d->gen == gen && d->hash == hash && d->entry == (uint8_t)e &&
	    d->port == port && strcmp(d->host, host) == 0 &&
	    strcmp(d->addr, addr) == 0;
	return d;
}

/* Are g's connect and address decisions those of the built-in rules
 * alone (no `rego:` modules)? */
static bool
gate_cacheable(const struct gate *g)
{
	const struct axv *doc = g != NULL ? gate_document(g) : NULL;
	const struct axv *rego =
	    doc != NULL ? axv_object_gets((struct axv *)doc, "rego") : NULL;

	if (doc == NULL)
		return false;
	return rego == NULL ||
	    (axv_kind(rego) == AXV_ARRAY && axv_array_len(rego) == 0);
}

struct srv_gatekeeper *
srv_gatekeeper_new(struct gate *g, struct ocsf_writer *audit, const char *job)
{
	struct srv_gatekeeper *k = axg_calloc(1, sizeof(*k));

	pthread_mutex_init(&k->lock, NULL);
	k->gate = gate_ref(g);
	k->gen = dc_new_gen();
	k->cacheable = gate_cacheable(g);
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
	/* this thread's cache (a worker's goes when its thread ends) */
	pthread_once(&dc_once, dc_init);
	if (dc_key_ok && pthread_getspecific(dc_key) != NULL) {
		free(pthread_getspecific(dc_key));
		pthread_setspecific(dc_key, NULL);
	}
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

	bool cacheable = gate_cacheable(g);
	uint64_t gen = dc_new_gen();

	gate_ref(g);
	pthread_mutex_lock(&k->lock);
	old = k->gate;
	k->gate = g;
	k->gen = gen;
	k->cacheable = cacheable;
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
	pthread_mutex_lock(&k->lock);
	s->g = gate_ref(k->gate);
	s->gen = k->gen;
	s->cacheable = k->cacheable;
	pthread_mutex_unlock(&k->lock);
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

static void
count(struct srv_gatekeeper *k, enum gate_entry e, int rc, bool allow,
    uint64_t dt)
{
	unsigned i;

	for (i = 0; i < SRV_LATENCY_BUCKETS; i++)
		if (dt <= srv_latency_bounds_ns[i])
			break;
	ADD(k->st.buckets[i], 1);
	ADD(k->st.sum_ns, dt);
	ADD(k->st.count, 1);
	if (rc < 0)
		ADD(k->st.errors[e], 1);
	else if (allow)
		ADD(k->st.allowed[e], 1);
	else
		ADD(k->st.denied[e], 1);
}

/* Evaluate: gate_decide()'s result (-1: a fail-closed deny). */
static int
evaluate(struct srv_snap *s, enum gate_entry e, const struct gate_request *r,
    struct px_decision *out)
{
	struct gate_decision d;
	struct axv *in = gate_input(r);
	uint64_t t0 = axg_monotonic_ns();
	int rc = gate_decide(s->g, e, in, &d);

	count(s->k, e, rc, d.allow, axg_monotonic_ns() - t0);
	axv_unref(in);
	out->allow = d.allow;
	axg_strlcpy(out->rule, d.rule, sizeof(out->rule));
	axg_strlcpy(out->reason, d.reason, sizeof(out->reason));
	return rc < 0 ? -1 : 0;
}

static int
decide(struct srv_snap *s, enum gate_entry e, const struct gate_request *r,
    struct px_decision *out)
{
	(void)evaluate(s, e, r, out);
	/* a fail-closed denial is still an answer: the proxy refuses */
	return 0;
}

/* decide() through this thread's cache, for connect and address
 * decisions (r->host set; addr "" for connect). */
static int
decide_cached(struct srv_snap *s, enum gate_entry e,
    const struct gate_request *r, const char *addr, struct px_decision *out)
{
	uint64_t t0;
	struct dc *c;
	struct dc_entry *d;
	uint32_t h;
	bool hit;
	int rc;

	if (!s->cacheable || r->host == NULL || strlen(r->host) > PX_HOST_MAX ||
	    (c = dc_get()) == NULL)
		return decide(s, e, r, out);
	t0 = axg_monotonic_ns();
	h = dc_hash(s->gen, e, r->host, r->port, addr);
	d = dc_slot(c, s->gen, e, r->host, r->port, addr, h, &hit);
	if (hit) {
		out->allow = d->allow;
		axg_strlcpy(out->rule, d->rule, sizeof(out->rule));
		axg_strlcpy(out->reason, d->reason, sizeof(out->reason));
		count(s->k, e, 0, d->allow, axg_monotonic_ns() - t0);
		return 0;
	}
	rc = evaluate(s, e, r, out);
	if (rc == 0) { /* errors are never cached */
		d->gen = s->gen;
		d->hash = h;
		d->entry = (uint8_t)e;
		d->port = (uint16_t)r->port;
		d->allow = out->allow;
		axg_strlcpy(d->host, r->host, sizeof(d->host));
		axg_strlcpy(d->addr, addr, sizeof(d->addr));
		axg_strlcpy(d->rule, out->rule, sizeof(d->rule));
		axg_strlcpy(d->reason, out->reason, sizeof(d->reason));
	}
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
	return decide_cached(arg, GATE_CONNECT, &r, "", out);
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
	return decide_cached(arg, GATE_ADDRESS, &r, r.addr, out);
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
