/* inference.c: the proxy's inference hook (server.h): routes, the policy's
 * data.axgate.inference, token budgets, host-held keys, the prompt scan
 * and the API Activity events. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <netinet/in.h>
#include <sys/mman.h>

#include <jansson.h>

#include "common/common.h"
#include "safety/safety.h"
#include "server/server-int.h"

#define HOUR_MS	    (3600ULL * 1000)
#define KEY_MAX	    8192
#define MAX_CHARGES 100000 /* per job and hour, older ones merge */
/* keep-alive pool per backend, unless the policy's inference.keepalive
 * says otherwise: below the 5 s idle timeout of common servers (Node,
 * uvicorn), so the proxy is normally the side that closes */
#define POOL_MAX_IDLE 8
#define POOL_IDLE_MS  4000
#define MAX_PRELOAD   64

/* ---- budgets ---- */

struct charge {
	uint64_t t_ms;
	int64_t tokens;
};

struct bjob {
	struct bjob *next;
	char *id;
	struct charge *v;
	size_t n, cap;
	int64_t reserved;
};

struct srv_budget {
	pthread_mutex_t lock;
	struct bjob *jobs;
};

struct srv_budget *
srv_budget_new(void)
{
	struct srv_budget *b = axg_calloc(1, sizeof(*b));

	pthread_mutex_init(&b->lock, NULL);
	return b;
}

void
srv_budget_free(struct srv_budget *b)
{
	if (b == NULL)
		return;
	while (b->jobs != NULL) {
		struct bjob *n = b->jobs->next;

		free(b->jobs->id);
		free(b->jobs->v);
		free(b->jobs);
		b->jobs = n;
	}
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static struct bjob *
bjob_get(struct srv_budget *b, const char *id)
{
	struct bjob *j;

	for (j = b->jobs; j != NULL; j = j->next)
		if (strcmp(j->id, id) == 0)
			return j;
	j = axg_calloc(1, sizeof(*j));
	j->id = axg_strdup(id);
	j->next = b->jobs;
	b->jobs = j;
	return j;
}

/* Drop charges older than an hour; the sum of the rest. */
static int64_t
bjob_used(struct bjob *j, uint64_t now)
{
	size_t i = 0, k;
	int64_t sum = 0;

	while (i < j->n && j->v[i].t_ms + HOUR_MS <= now)
		i++;
	if (i > 0) {
		memmove(j->v, j->v + i, (j->n - i) * sizeof(j->v[0]));
		j->n -= i;
	}
	for (k = 0; k < j->n; k++)
		sum += j->v[k].tokens;
	return sum;
}

/* Reserve tokens within max per hour: 0, or -1 with *retry (seconds). */
static int
budget_reserve(struct srv_budget *b, const char *id, int64_t tokens,
    int64_t max, unsigned *retry)
{
	uint64_t now = axg_now_ms();
	struct bjob *j;
	int64_t used, freed = 0;
	int rc = 0;

	pthread_mutex_lock(&b->lock);
	j = bjob_get(b, id);
	used = bjob_used(j, now);
	if (used + j->reserved + tokens > max) {
		rc = -1;
		*retry = 3600;
		if (j->reserved + tokens <= max) {
			for (size_t k = 0; k < j->n; k++) {
				freed += j->v[k].tokens;
				if (used - freed + j->reserved + tokens <=
				    max) {
					*retry =
					    (unsigned)((j->v[k].t_ms + HOUR_MS -
							   now + 999) /
						1000);
					break;
				}
			}
		}
		if (*retry == 0)
			*retry = 1;
	} else {
		j->reserved += tokens;
	}
	pthread_mutex_unlock(&b->lock);
	return rc;
}

static void
budget_settle(struct srv_budget *b, const char *id, int64_t reserved,
    int64_t used)
{
	uint64_t now = axg_now_ms();
	struct bjob *j;

	pthread_mutex_lock(&b->lock);
	j = bjob_get(b, id);
	j->reserved -= reserved;
	if (used > 0) {
		(void)bjob_used(j, now);
		if (j->n > 0 &&
		    (j->n >= MAX_CHARGES || j->v[j->n - 1].t_ms == now)) {
			j->v[j->n - 1].tokens += used;
		} else {
			if (j->n == j->cap) {
				j->cap = j->cap ? 2 * j->cap : 16;
				j->v = axg_reallocarray(j->v, j->cap,
				    sizeof(j->v[0]));
			}
			j->v[j->n].t_ms = now;
			j->v[j->n].tokens = used;
			j->n++;
		}
	}
	pthread_mutex_unlock(&b->lock);
}

/* ---- the hook ---- */

/* A key file read before the process lost file access. */
struct held_key {
	char *path;
	char *val; /* NULL: the file could not be read */
	size_t len, cap;
};

struct srv_inference {
	struct srv_gatekeeper *k;
	struct srv_budget *b;
	struct srv_scan *scan;
	struct held_key held[MAX_PRELOAD];
	size_t nheld;
};

/* One call in flight. */
struct inf_call {
	struct srv_inference *s;
	char job[128];
	char client[INET6_ADDRSTRLEN];
	char route[128];
	char provider[16];
	char model[256];
	char operation[48];
	int64_t reserved;
	bool budgeted;
};

struct srv_inference *
srv_inference_new(struct srv_gatekeeper *k, struct srv_budget *b,
    struct srv_scan *scan)
{
	struct srv_inference *s = axg_calloc(1, sizeof(*s));

	s->k = k;
	s->b = b;
	s->scan = scan;
	return s;
}

void
srv_inference_free(struct srv_inference *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nheld; i++) {
		struct held_key *h = &s->held[i];

		if (h->val != NULL) {
			explicit_bzero(h->val, h->cap);
			(void)munlock(h->val, h->cap);
			free(h->val);
		}
		free(h->path);
	}
	free(s);
}

static const char *
ostr(const struct axv *o, const char *key)
{
	struct axv *v;

	if (o == NULL || axv_kind(o) != AXV_OBJECT)
		return NULL;
	v = axv_object_gets(o, key);
	return v != NULL && axv_kind(v) == AXV_STRING ? axv_str(v) : NULL;
}

static int64_t
oint(const struct axv *o, const char *key)
{
	struct axv *v;
	int64_t i;

	if (o == NULL || axv_kind(o) != AXV_OBJECT)
		return -1;
	v = axv_object_gets(o, key);
	if (v == NULL || axv_kind(v) != AXV_NUMBER || !axv_num_get_i64(v, &i))
		return -1;
	return i;
}

/* The object at key, or NULL. */
static const struct axv *
oobj(const struct axv *o, const char *key)
{
	struct axv *v;

	if (o == NULL || axv_kind(o) != AXV_OBJECT)
		return NULL;
	v = axv_object_gets(o, key);
	return v != NULL &&
		(axv_kind(v) == AXV_OBJECT || axv_kind(v) == AXV_ARRAY)
	    ? v
	    : NULL;
}

static const struct axv *
pick_route(const struct axv *inf, const char *model)
{
	const struct axv *routes = oobj(inf, "routes");
	const char *def = ostr(inf, "default_provider");
	size_t i, n = routes != NULL ? axv_array_len(routes) : 0;
	const char *m;

	if (model[0] != '\0')
		for (i = 0; i < n; i++) {
			m = ostr(axv_array_get(routes, i), "model");
			if (m != NULL && strcmp(m, model) == 0)
				return axv_array_get(routes, i);
		}
	if (def != NULL)
		for (i = 0; i < n; i++) {
			m = ostr(axv_array_get(routes, i), "name");
			if (m != NULL && strcmp(m, def) == 0)
				return axv_array_get(routes, i);
		}
	return NULL;
}

/* endpoint + path, without doubling a trailing /v1. */
static void
backend_url(const char *endpoint, const char *path, char *out, size_t len)
{
	size_t el = strlen(endpoint);

	while (el > 0 && endpoint[el - 1] == '/')
		el--;
	if (el >= 3 && strncmp(endpoint + el - 3, "/v1", 3) == 0 &&
	    strncmp(path, "/v1/", 4) == 0)
		path += 3;
	snprintf(out, len, "%.*s%s", (int)el, endpoint, path);
}

static void AXG_PRINTF(4, 5) refuse(struct px_inf_route *out, int status,
    const char *error, const char *fmt, ...)
{
	va_list ap;

	out->status = status;
	if (error != NULL)
		axg_strlcpy(out->error, error, sizeof(out->error));
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

/* The route's key, or NULL (none configured, or an error: *failed). */
static char *
read_key(struct srv_inference *s, const struct axv *route,
    struct px_inf_route *out, bool *failed)
{
	const char *env = ostr(route, "api_key_env");
	const char *file = ostr(route, "api_key_file");
	char err[256];
	char *key;
	size_t len;

	*failed = false;
	if (env != NULL) {
		const char *v = getenv(env);

		if (v == NULL || v[0] == '\0') {
			refuse(out, 502, "missing_credential",
			    "the route's key variable %s is not set", env);
			*failed = true;
			return NULL;
		}
		return axg_strdup(v);
	}
	if (file == NULL)
		return NULL;
	for (size_t i = 0; i < s->nheld; i++)
		if (strcmp(s->held[i].path, file) == 0) {
			if (s->held[i].val == NULL)
				break;
			key = axg_malloc(s->held[i].len + 1);
			memcpy(key, s->held[i].val, s->held[i].len + 1);
			return key;
		}
	key = axg_read_file(file, KEY_MAX, &len, err, sizeof(err));
	if (key == NULL) {
		refuse(out, 502, "missing_credential",
		    "the route's key file %s cannot be read", file);
		*failed = true;
		return NULL;
	}
	while (len > 0 &&
	    (key[len - 1] == '\n' || key[len - 1] == '\r' ||
		key[len - 1] == ' '))
		key[--len] = '\0';
	return key;
}

/* The prompt with every finding replaced by [REDACTED:rule] in out->body,
 * if it is still a JSON object with the same model; -1 otherwise (the
 * prompt is then blocked: fail closed). */
static int
redact_prompt(const struct px_inf_request *req, const struct leak_findings *fs,
    struct px_inf_route *out)
{
	size_t len = 0;
	char *b = leak_redact(req->body, req->body_len, fs, &len);
	json_t *doc, *m;
	bool ok;

	if (b == NULL)
		return -1;
	doc = json_loadb(b, len, JSON_REJECT_DUPLICATES, NULL);
	m = json_object_get(doc, "model");
	ok = json_is_object(doc) &&
	    (req->model[0] == '\0' ||
		(json_is_string(m) &&
		    strcmp(json_string_value(m), req->model) == 0));
	json_decref(doc);
	if (!ok) {
		explicit_bzero(b, len);
		free(b);
		return -1;
	}
	out->body = b;
	out->body_len = len;
	return 0;
}

/* Scan the prompt; -1 (out filled) when a credential blocks it.  In
 * redact mode the prompt goes on with the credentials replaced. */
static int
scan_prompt(struct srv_inference *s, const struct px_inf_request *req,
    const char *key, struct px_inf_route *out)
{
	struct leak_scan *sc;
	struct leak_findings fs;
	enum leak_mode mode;
	char err[160];
	int n, rc = 0;

	if (s->scan == NULL || (mode = srv_scan_mode(s->scan)) == LEAK_MODE_OFF)
		return 0;
	sc = srv_scan_scanner(s->scan);
	if (key != NULL)
		leak_scan_ignore_value(sc, key, strlen(key));
	leak_findings_init(&fs);
	n = leak_scan_buffer(sc, req->body, req->body_len, &fs, err,
	    sizeof(err));
	if (key != NULL)
		leak_scan_clear_ignored(sc);
	if (n < 0) {
		if (mode != LEAK_MODE_LOG) {
			refuse(out, 403, "credential_detected",
			    "the prompt could not be scanned: %s", err);
			rc = -1;
		}
	} else if (fs.n > 0) {
		struct leak_report r;

		memset(&r, 0, sizeof(r));
		r.rule_id = fs.v[0].rule_id;
		r.title = fs.v[0].description;
		r.where = "body";
		r.offset = fs.v[0].offset;
		r.length = fs.v[0].length;
		r.encoding = fs.v[0].encoding;
		r.preview = fs.v[0].preview;
		r.action = mode == LEAK_MODE_LOG ? LEAK_ACTION_LOGGED
						 : LEAK_ACTION_BLOCKED;
		if (mode == LEAK_MODE_REDACT &&
		    redact_prompt(req, &fs, out) == 0) {
			r.action = LEAK_ACTION_REDACTED;
			mode = LEAK_MODE_LOG; /* forwarded, redacted */
		}
		srv_scan_report(s->scan, &r);
		if (mode != LEAK_MODE_LOG) {
			out->status = 403;
			axg_strlcpy(out->error, "credential_detected",
			    sizeof(out->error));
			axg_strlcpy(out->rule, "scan", sizeof(out->rule));
			snprintf(out->reason, sizeof(out->reason),
			    "a credential (%s) is in the prompt",
			    fs.v[0].rule_id);
			rc = -1;
		}
	}
	leak_findings_free(&fs);
	return rc;
}

static int
route_cb(void *arg, void *snap, const struct px_inf_request *req,
    struct px_inf_route *out)
{
	struct srv_inference *s = arg;
	const struct axv *inf =
	    oobj(gate_document(srv_snap_gate(snap)), "inference");
	const struct axv *route = pick_route(inf, req->model);
	const struct axv *bud = oobj(inf, "token_budget");
	const char *job = srv_gatekeeper_job(s->k);
	const char *name = route != NULL ? ostr(route, "name") : "";
	int64_t per_req = oint(bud, "max_tokens_per_request");
	int64_t per_hour = oint(bud, "max_tokens_per_hour");
	int64_t want = req->est_prompt_tokens +
	    (req->max_tokens > 0 ? req->max_tokens : 0);
	struct inf_call *call;
	struct gate_request r;
	struct px_decision d;
	char cbuf[INET6_ADDRSTRLEN] = "";
	char *key = NULL;
	bool failed;

	if (req->client != NULL)
		px_addr_str(req->client, cbuf, sizeof(cbuf));
	memset(&r, 0, sizeof(r));
	r.entry = GATE_INFERENCE;
	r.route = name;
	r.model = req->model;
	r.path = req->path;
	r.job = job;
	r.client_addr = cbuf;
	r.tokens = want;
	memset(&d, 0, sizeof(d));
	if (srv_snap_decide(snap, &r, &d) != 0 || !d.allow) {
		axg_strlcpy(out->rule, d.rule, sizeof(out->rule));
		refuse(out, 403, "permission_error", "%s",
		    d.reason[0] ? d.reason : "denied by policy");
		return -1;
	}
	axg_strlcpy(out->rule, d.rule, sizeof(out->rule));
	axg_strlcpy(out->reason, d.reason, sizeof(out->reason));
	if (route == NULL) {
		refuse(out, 404, "not_found_error", "no route serves model %s",
		    req->model);
		return -1;
	}
	if (per_req > 0 && req->max_tokens > per_req) {
		snprintf(out->reason, sizeof(out->reason),
		    "max_tokens %lld is above the per-request budget of %lld",
		    (long long)req->max_tokens, (long long)per_req);
		out->status = 429;
		axg_strlcpy(out->error, "token_budget_exceeded",
		    sizeof(out->error));
		return -1;
	}
	key = read_key(s, route, out, &failed);
	if (failed)
		return -1;
	if (scan_prompt(s, req, key, out) != 0)
		goto fail;
	call = axg_calloc(1, sizeof(*call));
	call->s = s;
	axg_strlcpy(call->job, job != NULL ? job : cbuf, sizeof(call->job));
	axg_strlcpy(call->client, cbuf, sizeof(call->client));
	axg_strlcpy(call->route, name, sizeof(call->route));
	axg_strlcpy(call->provider,
	    ostr(route, "provider") ? ostr(route, "provider") : "openai",
	    sizeof(call->provider));
	axg_strlcpy(call->model,
	    req->model[0]
		? req->model
		: (ostr(route, "model") ? ostr(route, "model") : "unknown"),
	    sizeof(call->model));
	axg_strlcpy(call->operation, req->operation, sizeof(call->operation));
	if (per_hour > 0) {
		if (budget_reserve(s->b, call->job, want, per_hour,
			&out->retry_after) != 0) {
			snprintf(out->reason, sizeof(out->reason),
			    "the hourly token budget of %lld is spent",
			    (long long)per_hour);
			out->status = 429;
			axg_strlcpy(out->error, "rate_limit_error",
			    sizeof(out->error));
			free(call);
			goto fail;
		}
		call->reserved = want;
		call->budgeted = true;
	}
	axg_strlcpy(out->route, name, sizeof(out->route));
	axg_strlcpy(out->provider, call->provider, sizeof(out->provider));
	backend_url(ostr(route, "endpoint"), req->path, out->url,
	    sizeof(out->url));
	if (ostr(route, "ca_file") != NULL)
		axg_strlcpy(out->ca_file, ostr(route, "ca_file"),
		    sizeof(out->ca_file));
	{
		const struct axv *ka = oobj(inf, "keepalive");
		int64_t mi = oint(ka, "max_idle"),
			ms = oint(ka, "idle_timeout_ms");

		out->pool_max_idle = mi >= 0 ? (unsigned)mi : POOL_MAX_IDLE;
		out->pool_idle_ms = ms >= 0 ? (unsigned)ms : POOL_IDLE_MS;
	}
	out->key = key;
	out->call = call;
	return 0;
fail:
	if (key != NULL) {
		memset(key, 0, strlen(key));
		free(key);
	}
	return -1;
}

static void
finish_cb(void *arg, void *snap, void *callp, const struct px_inf_result *res)
{
	struct srv_inference *s = arg;
	struct inf_call *call = callp;
	struct ocsf_writer *w = srv_gatekeeper_writer(s->k);
	struct ocsf_api_event ev;
	char ip[INET6_ADDRSTRLEN];

	if (call->budgeted)
		budget_settle(s->b, call->job, call->reserved,
		    res->prompt_tokens + res->completion_tokens);
	if (w != NULL) {
		memset(&ev, 0, sizeof(ev));
		ev.correlation_uid = srv_gatekeeper_job(s->k);
		ev.connection_uid = srv_snap_conn_uid(snap);
		ev.operation = call->operation;
		ev.provider = call->provider;
		ev.model = call->model;
		ev.prompt_tokens = res->prompt_tokens;
		ev.completion_tokens = res->completion_tokens;
		ev.total_tokens = res->prompt_tokens + res->completion_tokens;
		ev.status_code = res->status;
		ev.latency_ms = (int64_t)res->latency_ms;
		ev.failed = res->failed;
		ev.status_detail = res->detail;
		ev.src.ip = call->client[0] ? call->client : NULL;
		ev.src.uid = srv_gatekeeper_job(s->k);
		ev.dst.hostname = res->backend_host;
		if (res->backend != NULL) {
			ev.dst.ip = px_addr_str(res->backend, ip, sizeof(ip));
			ev.dst.port = res->backend->sa_family == AF_INET
			    ? ntohs(((const struct sockaddr_in *)(const void *)
					 res->backend)
					->sin_port)
			    : ntohs(((const struct sockaddr_in6 *)(const void *)
					 res->backend)
					->sin6_port);
		}
		(void)ocsf_emit_api(w, &ev);
	}
	free(call);
}

static char *
models_cb(void *arg, void *snap)
{
	struct srv_inference *s = arg;
	const struct axv *inf =
	    oobj(gate_document(srv_snap_gate(snap)), "inference");
	const struct axv *routes = oobj(inf, "routes");
	size_t i, n = routes != NULL ? axv_array_len(routes) : 0;
	json_t *list = json_array(), *doc;
	char *out;

	for (i = 0; i < n; i++) {
		const struct axv *rt = axv_array_get(routes, i);
		const char *model = ostr(rt, "model");
		const char *prov = ostr(rt, "provider");
		struct gate_request r;
		struct px_decision d;

		if (model == NULL)
			continue;
		memset(&r, 0, sizeof(r));
		r.entry = GATE_INFERENCE;
		r.route = ostr(rt, "name");
		r.model = model;
		r.path = "/v1/models";
		r.job = srv_gatekeeper_job(s->k);
		r.tokens = 0;
		memset(&d, 0, sizeof(d));
		if (srv_snap_decide(snap, &r, &d) != 0 || !d.allow)
			continue;
		json_array_append_new(list,
		    json_pack("{s:s, s:s, s:s, s:i, s:s, s:s}", "id", model,
			"object", "model", "type", "model", "created", 0,
			"owned_by", prov != NULL ? prov : "", "display_name",
			model));
	}
	doc = json_pack("{s:s, s:o, s:b}", "object", "list", "data", list,
	    "has_more", 0);
	out = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	return out;
}

/* Read path into a held key (locked in memory, trimmed like read_key). */
static int
hold_key(struct srv_inference *s, const char *path)
{
	struct held_key *h;
	char err[256];
	char *v;
	size_t len;

	for (size_t i = 0; i < s->nheld; i++)
		if (strcmp(s->held[i].path, path) == 0)
			return s->held[i].val != NULL ? 0 : -1;
	if (s->nheld >= MAX_PRELOAD) {
		axg_warn("inference: more than %d key files: %s is read when "
			 "needed",
		    MAX_PRELOAD, path);
		return -1;
	}
	h = &s->held[s->nheld++];
	h->path = axg_strdup(path);
	v = axg_read_file(path, KEY_MAX, &len, err, sizeof(err));
	if (v == NULL) {
		/* the message names the file only */
		axg_warn("inference: the key file %s cannot be read", path);
		return -1;
	}
	while (len > 0 &&
	    (v[len - 1] == '\n' || v[len - 1] == '\r' || v[len - 1] == ' '))
		v[--len] = '\0';
	h->cap = len + 1;
	h->val = axg_malloc(h->cap);
	(void)mlock(h->val, h->cap);
	(void)madvise(h->val, h->cap, MADV_DONTDUMP);
	memcpy(h->val, v, h->cap);
	h->len = len;
	explicit_bzero(v, len);
	free(v);
	return 0;
}

int
srv_inference_preload(struct srv_inference *s, struct gate *g,
    struct px_proxy *px)
{
	const struct axv *inf = oobj(gate_document(g), "inference");
	const struct axv *routes = oobj(inf, "routes");
	size_t i, n = routes != NULL ? axv_array_len(routes) : 0;
	char err[256];
	int failed = 0;

	for (i = 0; i < n; i++) {
		const struct axv *rt = axv_array_get(routes, i);
		const char *file = ostr(rt, "api_key_file");
		const char *ca = ostr(rt, "ca_file");

		if (file != NULL && hold_key(s, file) < 0)
			failed++;
		if (ca != NULL && px != NULL &&
		    px_proxy_inference_load_ca(px, ca, err, sizeof(err)) < 0) {
			axg_warn("inference: route %s: %s", ostr(rt, "name"),
			    err);
			failed++;
		}
	}
	return failed;
}

size_t
srv_inference_files(struct gate *g, const char **out, size_t max)
{
	const struct axv *inf = oobj(gate_document(g), "inference");
	const struct axv *routes = oobj(inf, "routes");
	size_t i, n = routes != NULL ? axv_array_len(routes) : 0, k = 0;

	for (i = 0; i < n; i++) {
		const struct axv *rt = axv_array_get(routes, i);
		const char *f[2] = { ostr(rt, "api_key_file"),
			ostr(rt, "ca_file") };

		for (size_t j = 0; j < 2; j++)
			if (f[j] != NULL && f[j][0] != '\0' && k < max)
				out[k++] = f[j];
	}
	return k;
}

bool
srv_inference_needs_default_ca(struct gate *g)
{
	const struct axv *inf = oobj(gate_document(g), "inference");
	const struct axv *routes = oobj(inf, "routes");
	size_t i, n = routes != NULL ? axv_array_len(routes) : 0;

	for (i = 0; i < n; i++) {
		const struct axv *rt = axv_array_get(routes, i);
		const char *url = ostr(rt, "endpoint");
		const char *ca = ostr(rt, "ca_file");

		if (url != NULL && strncasecmp(url, "https:", 6) == 0 &&
		    (ca == NULL || ca[0] == '\0'))
			return true;
	}
	return false;
}

void
srv_inference_hook(struct srv_inference *s, struct px_inference_hook *out)
{
	memset(out, 0, sizeof(*out));
	out->route = route_cb;
	out->models = models_cb;
	out->finish = finish_cb;
	out->arg = s;
}
