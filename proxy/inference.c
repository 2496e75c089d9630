/*
 * inference.c: requests to inference.local (proxy.h, "Inference routing").
 *
 * The request is read whole (bounded), its path must be one of the known
 * OpenAI or Anthropic operations exactly (no normalisation: any encoded,
 * dotted or extended spelling is a 404), its body a JSON object.  The hook
 * picks the route and the key; the proxy builds a new request from scratch:
 * the route's path, Host from the route, the allowlisted fields the job
 * sent, the key, and the body bytes unchanged.  Nothing the job sent that
 * is not on the allowlist reaches the backend, so a job's Authorization,
 * x-api-key, Cookie or Connection field never does.
 *
 * The response streams back as the backend sends it; decoded body bytes
 * also go through a usage reader (SSE data lines, or the JSON body).
 */
#include "config.h"

#include <string.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <event2/bufferevent_ssl.h>
#include <jansson.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "proxy/proxy-int.h"

#define INF_MAX_RESP_JSON (4u << 20) /* kept to read the usage */
#define INF_MAX_SSE_LINE  (1u << 20)
#define INF_CLIENT_HIGH	  (1u << 20) /* stop reading the backend above */
#define INF_DEFAULT_IDLE  60000
#define INF_MAX_INTERIM	  16 /* 1xx answers skipped before the final one */

struct inf_op {
	const char *method;
	const char *path;
	const char *operation;
	enum px_inf_shape shape;
};

static const struct inf_op inf_ops[] = {
	{ "POST", "/v1/chat/completions", "chat.completions", PX_INF_OPENAI },
	{ "POST", "/v1/completions", "completions", PX_INF_OPENAI },
	{ "POST", "/v1/responses", "responses", PX_INF_OPENAI },
	{ "POST", "/v1/embeddings", "embeddings", PX_INF_OPENAI },
	{ "GET", "/v1/models", "models.list", PX_INF_OPENAI },
	{ "POST", "/v1/messages", "messages", PX_INF_ANTHROPIC },
	{ "POST", "/v1/messages/count_tokens", "messages.count_tokens",
	    PX_INF_ANTHROPIC },
};

/* Request fields forwarded to the backend (by exact name, any case). */
static const char *const inf_allow[] = { "content-type", "accept",
	"anthropic-version", "anthropic-beta", "openai-organization",
	"openai-project", "openai-beta", "user-agent", NULL };

enum inf_phase {
	INF_BODY = 0, /* reading the request body */
	INF_DIAL,     /* connecting to the backend */
	INF_WAIT,     /* request sent, reading the answer */
	INF_DONE,
};

struct px_inf {
	struct px_conn *c;
	enum inf_phase phase;
	char method[16];
	char *target;	  /* as received */
	char *audit_path; /* the target as the audit records show it */
	char path[64];
	char query[64];
	const struct inf_op *op;
	bool client_10;
	struct evbuffer *fwd_hdrs; /* allowlisted fields, CRLF-terminated */
	struct evbuffer *body;
	enum px_body_kind req_kind;
	uint64_t req_left;
	struct px_chunked req_ch;
	bool client_keep; /* the client asked to keep its connection */
	/* the route */
	struct px_inf_route rt;
	bool routed, finished;
	char model[256];
	char *url;
	char bhost[PX_HOST_MAX + 1];
	int64_t est_prompt;
	uint64_t t0_ns;
	/* the response */
	bool head_sent;
	int status;
	unsigned interim; /* 1xx answers skipped */
	enum px_body_kind resp_kind;
	uint64_t resp_left;
	struct px_chunked resp_ch;
	bool client_chunked;
	bool sse;
	struct axg_buf sse_part; /* a line split between reads */
	struct evbuffer *dec;	 /* decoded bytes of one read */
	bool line_cut;		 /* an SSE line passed max_stream_line */
	struct evbuffer *json_buf;
	uint64_t resp_bytes;
	int64_t prompt_tokens, completion_tokens;
	uint64_t bytes_up, bytes_down;
	/* the backend connection */
	bool tls;
	struct px_hostport hp;
	char *pool_key;	      /* the backend's pool ("" ca: default) */
	struct evbuffer *req; /* the request, kept to resend it once when a
				 pooled connection turns out stale */
	bool reused;	      /* sent on a pooled connection */
	bool resp_started;    /* a response byte was read */
	bool resp_keep;	      /* the backend lets the connection be reused */
};

static void inf_dial_new(struct px_conn *c);

static void inf_cli_readcb(struct bufferevent *bev, void *arg);
static void inf_cli_writecb(struct bufferevent *bev, void *arg);
static void inf_cli_eventcb(struct bufferevent *bev, short what, void *arg);
static void up_readcb(struct bufferevent *bev, void *arg);
static void up_eventcb(struct bufferevent *bev, short what, void *arg);

/* ---- backend pools and TLS contexts (one set per proxy) ---- */

#define INF_POOL_MAX_BACKENDS 64
#define INF_POOL_MAX_IDLE     256 /* idle connections, all backends */

struct inf_ca {
	struct inf_ca *next;
	char *path;
	SSL_CTX *ctx;
};

/* The idle connections are in up (upool.c); each backend's slot there
 * holds its last resumable TLS session. */
struct px_inf_pool {
	struct inf_ca *cas;
	struct px_upool *up;
	struct px_inf_pool_stats st;
};

static void
sess_free(void *p)
{
	SSL_SESSION_free(p);
}

static struct px_inf_pool *
pool_of(struct px_proxy *px)
{
	if (px->inf_pool == NULL) {
		px->inf_pool = axg_calloc(1, sizeof(*px->inf_pool));
		px->inf_pool->up = px_upool_new(px->base, INF_POOL_MAX_BACKENDS,
		    INF_POOL_MAX_IDLE, sess_free);
	}
	return px->inf_pool;
}

/* A pooled connection to key, or NULL; *addr receives its peer. */
static struct bufferevent *
pool_take(struct px_proxy *px, const char *key, struct sockaddr_storage *addr,
    bool *has_addr)
{
	struct bufferevent *bev;

	if (px->inf_pool == NULL)
		return NULL;
	bev = px_upool_take(px->inf_pool->up, key, addr, has_addr);
	if (bev != NULL)
		px->inf_pool->st.reused++;
	return bev;
}

/* Keep bev (idle, its response read completely) for key: at most max for
 * the backend (the oldest goes), for ms.  Frees it when it cannot. */
static void
pool_put(struct px_proxy *px, const char *key, struct bufferevent *bev,
    const struct sockaddr_storage *addr, bool has_addr, unsigned max,
    unsigned ms)
{
	px_upool_put(pool_of(px)->up, key, bev, addr, has_addr, max, ms);
}

static SSL_CTX *
new_client_ctx(const char *ca, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (ctx == NULL) {
		axg_seterr(err, errlen, "SSL_CTX_new failed");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* sessions are kept per backend (its pool slot) */
	SSL_CTX_set_session_cache_mode(ctx,
	    SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	if (ca != NULL && SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
		ERR_clear_error();
		SSL_CTX_free(ctx);
		axg_seterr(err, errlen, "cannot read the CA file %s", ca);
		return NULL;
	}
	return ctx;
}

/* The TLS context for a route's CA file ("" or NULL: the default). */
static SSL_CTX *
ca_ctx(struct px_proxy *px, const char *path, char *err, size_t errlen)
{
	struct px_inf_pool *pl;
	struct inf_ca *ca;
	SSL_CTX *ctx;

	if (path == NULL || path[0] == '\0') {
		if (px->ssl_ctx == NULL)
			axg_seterr(err, errlen,
			    "no TLS context for https backends");
		return px->ssl_ctx;
	}
	pl = pool_of(px);
	for (ca = pl->cas; ca != NULL; ca = ca->next)
		if (strcmp(ca->path, path) == 0)
			return ca->ctx;
	ctx = new_client_ctx(path, err, errlen);
	if (ctx == NULL)
		return NULL;
	ca = axg_calloc(1, sizeof(*ca));
	ca->path = axg_strdup(path);
	ca->ctx = ctx;
	ca->next = pl->cas;
	pl->cas = ca;
	return ctx;
}

int
px_proxy_inference_load_ca(struct px_proxy *px, const char *path, char *err,
    size_t errlen)
{
	return ca_ctx(px, path, err, errlen) != NULL ? 0 : -1;
}

void
px_proxy_inference_pool_stats(const struct px_proxy *px,
    struct px_inf_pool_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (px->inf_pool != NULL) {
		*out = px->inf_pool->st;
		out->idle = px_upool_idle(px->inf_pool->up);
	}
}

static void
pool_free(struct px_inf_pool *pl)
{
	if (pl == NULL)
		return;
	px_upool_free(pl->up);
	while (pl->cas != NULL) {
		struct inf_ca *ca = pl->cas;

		pl->cas = ca->next;
		SSL_CTX_free(ca->ctx);
		free(ca->path);
		free(ca);
	}
	free(pl);
}

/* The wiped end of the kept request (it holds the key). */
static void
req_wipe(struct px_inf *f)
{
	size_t n;

	if (f->req == NULL)
		return;
	n = evbuffer_get_length(f->req);
	if (n > 0)
		OPENSSL_cleanse(evbuffer_pullup(f->req, -1), n);
	evbuffer_free(f->req);
	f->req = NULL;
}

/* ---- accessors for core.c ---- */

const char *
px_inf_method(const struct px_inf *f)
{
	return f->method;
}

const char *
px_inf_path(const struct px_inf *f)
{
	return f->audit_path != NULL ? f->audit_path : "";
}

const char *
px_inf_route_name(const struct px_inf *f)
{
	return f->rt.route;
}

const char *
px_inf_backend_url(const struct px_inf *f)
{
	return f->url != NULL ? f->url : "";
}

/* ---- the end of a call ---- */

static void
wipe_key(struct px_inf *f)
{
	if (f->rt.key != NULL) {
		OPENSSL_cleanse(f->rt.key, strlen(f->rt.key));
		free(f->rt.key);
		f->rt.key = NULL;
	}
}

static void
inf_finish(struct px_conn *c, bool failed, const char *detail)
{
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	struct px_inf_result r;

	if (!f->routed || f->finished)
		return;
	f->finished = true;
	memset(&r, 0, sizeof(r));
	r.status = f->status;
	r.prompt_tokens = f->prompt_tokens;
	r.completion_tokens = f->completion_tokens;
	if (r.prompt_tokens < 0) {
		r.prompt_tokens = f->est_prompt;
		r.estimated = true;
	}
	if (r.completion_tokens < 0) {
		r.completion_tokens = (int64_t)(f->resp_bytes / 4);
		r.estimated = true;
	}
	r.failed = failed;
	r.detail = detail;
	r.backend_host = f->bhost;
	r.backend = c->dialed ? (const struct sockaddr *)&c->up_addr : NULL;
	r.latency_ms = (px_now_ns() - f->t0_ns) / 1000000;
	r.bytes_up = f->bytes_up;
	r.bytes_down = f->bytes_down;
	if (px->inf.finish != NULL)
		px->inf.finish(px->inf.arg, c->snap, f->rt.call, &r);
}

void
px_inf_free(struct px_inf *f)
{
	if (f == NULL)
		return;
	if (f->c != NULL && f->routed && !f->finished)
		inf_finish(f->c, true, "connection closed");
	wipe_key(f);
	req_wipe(f);
	free(f->pool_key);
	if (f->rt.body != NULL) {
		OPENSSL_cleanse(f->rt.body, f->rt.body_len);
		free(f->rt.body);
	}
	if (f->fwd_hdrs != NULL)
		evbuffer_free(f->fwd_hdrs);
	if (f->body != NULL)
		evbuffer_free(f->body);
	axg_buf_free(&f->sse_part);
	if (f->dec != NULL)
		evbuffer_free(f->dec);
	if (f->json_buf != NULL)
		evbuffer_free(f->json_buf);
	free(f->target);
	free(f->audit_path);
	free(f->url);
	free(f);
}

static const char *
inf_error_code(int status)
{
	switch (status) {
	case 400:
		return "invalid_request_error";
	case 403:
		return "permission_error";
	case 404:
		return "not_found_error";
	case 413:
		return "request_too_large";
	case 429:
		return "rate_limit_error";
	case 503:
		return "unavailable";
	case 504:
		return "timeout_error";
	default:
		return "api_error";
	}
}

/* Answer with an error both SDK families parse:
 * {"error":{"type":..., "message":...}, "type":"error"}.  Nothing from
 * the request is echoed. */
static void
inf_refuse(struct px_conn *c, int status, const char *stage, const char *error,
    const char *reason, unsigned retry_after)
{
	struct px_inf *f = c->inf;
	struct evbuffer *b = evbuffer_new();
	char extra[64] = "";
	size_t len;
	char *body;

	axg_strlcpy(c->reason, reason, sizeof(c->reason));
	if (f != NULL && f->routed)
		inf_finish(c, true, reason);
	px_conn_audit(c, PX_AUDIT_HTTP,
	    status == 403 || status == 404 || status == 429 ? PX_OUTCOME_DENIED
							    : PX_OUTCOME_ERROR,
	    status, stage);
	evbuffer_add_printf(b, "{\"type\":\"error\",\"error\":{\"type\":");
	px_json_string(b, error != NULL ? error : inf_error_code(status));
	evbuffer_add_printf(b, ",\"message\":");
	px_json_string(b, reason);
	evbuffer_add_printf(b, "}}\n");
	if (retry_after > 0)
		snprintf(extra, sizeof(extra), "Retry-After: %u\r\n",
		    retry_after);
	len = evbuffer_get_length(b);
	body = (char *)evbuffer_pullup(b, -1);
	if (c->timer != NULL)
		evtimer_del(c->timer);
	px_conn_reply_raw(c, status, extra, "application/json", body, len);
	evbuffer_free(b);
}

/* ---- the head ---- */

static bool
name_is(const struct px_header *h, const char *name)
{
	size_t n = strlen(name);

	return h->name_len == n && axg_strncaseeq(h->name, name, n);
}

static bool
host_is_inference(const char *s, size_t n)
{
	struct px_hostport hp;
	char err[128];

	if (px_host_parse_authority(s, n, 80, &hp, err, sizeof(err)) != 0)
		return false;
	/* any port: an inference listener need not be on 80 */
	return hp.kind == PX_HOST_NAME && strcmp(hp.host, PX_INF_HOST) == 0;
}

bool
px_inf_wants(struct px_conn *c, const struct px_request *req)
{
	struct px_hostport hp;
	char err[128];

	if (c->inf_port)
		return true;
	if (req->form != PX_FORM_ABSOLUTE && !req->is_connect)
		return false;
	if (px_host_parse_authority(req->authority, req->authority_len,
		req->is_connect ? 0 : 80, &hp, err, sizeof(err)) != 0)
		return false;
	/* CONNECT inference.local:80 opens a tunnel whose requests are
	 * served like those of an inference listener */
	return hp.kind == PX_HOST_NAME && strcmp(hp.host, PX_INF_HOST) == 0 &&
	    (!req->is_connect || hp.port == 80);
}

static bool
allowed_header(const struct px_header *h)
{
	for (size_t i = 0; inf_allow[i] != NULL; i++)
		if (name_is(h, inf_allow[i]))
			return true;
	/* the SDKs' own telemetry fields (x-stainless-os, ...) */
	return h->name_len > 12 && axg_strncaseeq(h->name, "x-stainless-", 12);
}

static void inf_read_body(struct px_conn *c);

/* Check the head; 0 when the request is ours to serve, -1 when it was
 * answered. */
static int
inf_check_head(struct px_conn *c, const struct px_request *req)
{
	struct px_inf *f = c->inf;
	const char *path = req->path, *q;
	size_t plen = req->path_len, i;

	if (req->is_connect || (c->inf_port && req->form != PX_FORM_ORIGIN)) {
		inf_refuse(c, 400, "parse", NULL,
		    "this port serves only inference.local requests", 0);
		return -1;
	}
	if (req->form == PX_FORM_ORIGIN) {
		path = req->target;
		plen = req->target_len;
	} else if (req->form != PX_FORM_ABSOLUTE || req->scheme_len != 4 ||
	    !axg_strncaseeq(req->scheme, "http", 4)) {
		inf_refuse(c, 400, "parse", NULL,
		    "inference.local is served over http:// only", 0);
		return -1;
	}
	/* Host must name inference.local exactly (and be present on the
	 * origin-form path): never inject a key for another host. */
	if (req->host_index < 0) {
		if (req->form == PX_FORM_ORIGIN) {
			inf_refuse(c, 400, "parse", NULL,
			    "a Host field is required", 0);
			return -1;
		}
	} else if (!host_is_inference(req->headers[req->host_index].value,
		       req->headers[req->host_index].value_len)) {
		inf_refuse(c, req->form == PX_FORM_ORIGIN ? 403 : 400, "parse",
		    NULL, "Host is not inference.local", 0);
		return -1;
	}
	if (req->upgrade) {
		inf_refuse(c, 400, "parse", NULL,
		    "Upgrade is not supported on inference.local", 0);
		return -1;
	}
	q = memchr(path, '?', plen);
	{
		size_t pl = q != NULL ? (size_t)(q - path) : plen;
		size_t ql = q != NULL ? plen - pl - 1 : 0;

		if (pl >= sizeof(f->path) || ql >= sizeof(f->query)) {
			inf_refuse(c, 404, "http", NULL,
			    "unknown inference path", 0);
			return -1;
		}
		memcpy(f->path, path, pl);
		f->path[pl] = '\0';
		if (q != NULL)
			memcpy(f->query, q + 1, ql);
		f->query[ql] = '\0';
	}
	for (i = 0; i < sizeof(inf_ops) / sizeof(inf_ops[0]); i++)
		if (strcmp(inf_ops[i].path, f->path) == 0)
			break;
	if (i == sizeof(inf_ops) / sizeof(inf_ops[0])) {
		inf_refuse(c, 404, "http", NULL,
		    "unknown inference path: the OpenAI and Anthropic API "
		    "paths under /v1 are served",
		    0);
		return -1;
	}
	if (strcmp(inf_ops[i].method, f->method) != 0) {
		inf_refuse(c, 404, "http", NULL,
		    "this method is not served on this path", 0);
		return -1;
	}
	f->op = &inf_ops[i];
	/* the only query a supported SDK sends */
	if (f->query[0] != '\0' &&
	    !(f->op->shape == PX_INF_ANTHROPIC &&
		strcmp(f->query, "beta=true") == 0)) {
		inf_refuse(c, 400, "http", NULL,
		    "query parameters are not accepted", 0);
		return -1;
	}
	return 0;
}

static void
inf_models(struct px_conn *c)
{
	struct px_proxy *px = c->px;
	char *body = px->inf.models != NULL
	    ? px->inf.models(px->inf.arg, c->snap)
	    : NULL;

	if (body == NULL) {
		inf_refuse(c, 500, "http", NULL, "no model list", 0);
		return;
	}
	axg_strlcpy(c->reason, "model list", sizeof(c->reason));
	px_conn_audit(c, PX_AUDIT_HTTP, PX_OUTCOME_ALLOWED, 200, "done");
	px_conn_reply_raw(c, 200, NULL, "application/json", body, strlen(body));
	free(body);
}

/* The target as the audit records show it: without its query (which may
 * hold a secret; the one query served, "beta=true", is kept), with each
 * credential the scan hook finds in the path redacted as in the records
 * of other plain-HTTP requests.  Returns a malloc'd string. */
static char *
audit_path_of(struct px_conn *c, const char *target)
{
	struct px_proxy *px = c->px;
	const char *q = strchr(target, '?');
	size_t plen = q != NULL ? (size_t)(q - target) : strlen(target);
	const char *keep = q != NULL && strcmp(q, "?beta=true") == 0 ? q : "";
	struct px_scan_edit edit;
	struct px_http_info info;
	void *state = NULL;
	char why[160];
	char *out;

	if (!px->has_scan || px->scan.filter_head == NULL)
		return axg_asprintf("%.*s%s", (int)plen, target, keep);
	memset(&edit, 0, sizeof(edit));
	memset(&info, 0, sizeof(info));
	info.target = &c->target;
	info.method = "POST";
	info.method_len = 4;
	info.path = target;
	info.path_len = plen;
	info.client = (const struct sockaddr *)&c->client_addr;
	/* only the path is scanned here (no fields: the job's own
	 * Authorization is dropped, not forwarded); the verdict is not
	 * needed, as no path with a credential in it is ever served */
	(void)px->scan.filter_head(px->scan.arg, &info, &state, &edit, why,
	    sizeof(why));
	if (edit.path != NULL)
		out =
		    axg_asprintf("%.*s%s", (int)edit.path_len, edit.path, keep);
	else if (edit.audit_path != NULL)
		out = axg_asprintf("%.*s%s", (int)edit.audit_path_len,
		    edit.audit_path, keep);
	else
		out = axg_asprintf("%.*s%s", (int)plen, target, keep);
	if (px->scan.end_request != NULL)
		px->scan.end_request(state);
	return out;
}

void
px_inf_begin(struct px_conn *c, const struct px_request *req)
{
	struct px_proxy *px = c->px;
	struct px_inf *f = axg_calloc(1, sizeof(*f));
	struct evbuffer *in = bufferevent_get_input(c->cli);
	char err[128];

	f->c = c;
	f->prompt_tokens = f->completion_tokens = -1;
	f->t0_ns = px_now_ns();
	c->inf = f;
	c->state = PX_ST_INFERENCE;
	(void)px_host_parse_authority(PX_INF_HOST, strlen(PX_INF_HOST), 80,
	    &c->target, err, sizeof(err));
	if (req->method_len >= sizeof(f->method)) {
		axg_strlcpy(f->method, "UNKNOWN", sizeof(f->method));
	} else {
		memcpy(f->method, req->method, req->method_len);
		f->method[req->method_len] = '\0';
	}
	if (req->form == PX_FORM_ABSOLUTE)
		f->target = axg_strndup(req->path, req->path_len);
	else
		f->target = axg_strndup(req->target, req->target_len);
	f->audit_path = req->is_connect ? axg_strdup(f->target)
					: audit_path_of(c, f->target);
	f->client_10 = req->version_minor == 0;
	/* RFC 9112 9.3: an HTTP/1.1 client keeps its connection unless it
	 * sends close, an HTTP/1.0 one only with keep-alive, and a proxy
	 * never keeps a 1.0 client's.  On the proxy port (absolute form)
	 * inference.local is reached through the proxy; on an inference
	 * listener or in a tunnel to inference.local, axgate is the origin
	 * server. */
	f->client_keep = req->keep_alive && (!f->client_10 || c->inf_port);
	if (req->is_connect && !c->inf_port && px->has_inf) {
		/* a tunnel to inference.local: nothing is dialled; what the
		 * client sends in it is read as origin-form requests */
		c->is_connect = true;
		axg_strlcpy(c->rule, "inference", sizeof(c->rule));
		axg_strlcpy(c->reason, "tunnel to inference.local",
		    sizeof(c->reason));
		evbuffer_drain(in, req->head_len);
		px_conn_audit(c, PX_AUDIT_CONNECT, PX_OUTCOME_ALLOWED, 200,
		    "done");
		c->is_connect = false;
		c->inf = NULL;
		px_inf_free(f);
		c->inf_port = true;
		evbuffer_add_printf(bufferevent_get_output(c->cli),
		    "HTTP/1.1 200 Connection established\r\n\r\n");
		px_conn_start_head(c);
		return;
	}
	if (!px->has_inf) {
		inf_refuse(c, 503, "http", NULL,
		    "inference routing is not configured", 0);
		return;
	}
	if (inf_check_head(c, req) != 0)
		return;
	if (strcmp(f->op->method, "GET") == 0) {
		inf_models(c);
		return;
	}
	if (req->body == PX_BODY_NONE ||
	    (req->body == PX_BODY_LENGTH && req->content_length == 0)) {
		inf_refuse(c, 400, "http", NULL, "a JSON body is required", 0);
		return;
	}
	if (req->body == PX_BODY_LENGTH &&
	    req->content_length > PX_INF_MAX_BODY) {
		inf_refuse(c, 413, "limit", NULL,
		    "the request body is larger than 8 MiB", 0);
		return;
	}
	f->fwd_hdrs = evbuffer_new();
	f->body = evbuffer_new();
	for (size_t i = 0; i < req->nheaders; i++) {
		const struct px_header *h = &req->headers[i];

		if (!allowed_header(h))
			continue;
		evbuffer_add(f->fwd_hdrs, h->name, h->name_len);
		evbuffer_add(f->fwd_hdrs, ": ", 2);
		evbuffer_add(f->fwd_hdrs, h->value, h->value_len);
		evbuffer_add(f->fwd_hdrs, "\r\n", 2);
	}
	f->req_kind = req->body;
	f->req_left = req->content_length;
	if (req->body == PX_BODY_CHUNKED)
		px_chunked_init(&f->req_ch, PX_INF_MAX_BODY,
		    px->cfg.http.max_line);
	evbuffer_drain(in, req->head_len);
	if (req->expect_continue)
		evbuffer_add_printf(bufferevent_get_output(c->cli),
		    "HTTP/1.1 100 Continue\r\n\r\n");
	f->phase = INF_BODY;
	bufferevent_setcb(c->cli, inf_cli_readcb, inf_cli_writecb,
	    inf_cli_eventcb, c);
	bufferevent_setwatermark(c->cli, EV_READ, 0, 256 * 1024);
	bufferevent_enable(c->cli, EV_READ | EV_WRITE);
	px_conn_arm(c, px->cfg.idle_timeout_ms);
	inf_read_body(c);
}

/* ---- the request body ---- */

static int
body_data(void *arg, const char *p, size_t n)
{
	struct px_inf *f = arg;

	return evbuffer_add(f->body, p, n);
}

static void inf_dispatch(struct px_conn *c);

static void
inf_read_body(struct px_conn *c)
{
	struct px_inf *f = c->inf;
	struct evbuffer *in = bufferevent_get_input(c->cli);
	size_t len = evbuffer_get_length(in);
	char err[160];

	if (len == 0)
		return;
	if (f->req_kind == PX_BODY_LENGTH) {
		size_t n = len < f->req_left ? len : (size_t)f->req_left;

		evbuffer_remove_buffer(in, f->body, n);
		f->req_left -= n;
		if (f->req_left > 0)
			return;
	} else {
		size_t used = 0;
		const char *p = (const char *)evbuffer_pullup(in, -1);
		int rc = px_chunked_feed(&f->req_ch, p, len, &used, body_data,
		    f, err, sizeof(err));

		evbuffer_drain(in, used);
		if (rc < 0) {
			inf_refuse(c,
			    f->req_ch.total > PX_INF_MAX_BODY ? 413 : 400,
			    "parse", NULL, err, 0);
			return;
		}
		if (rc == 0)
			return;
	}
	/* what follows is the next request on a kept connection, or
	 * ignored */
	if (!f->client_keep)
		evbuffer_drain(in, evbuffer_get_length(in));
	inf_dispatch(c);
}

/* ---- routing and the backend request ---- */

/* A token count: its value, -1 if absent or null, -2 if it is not a
 * non-negative integer (a real, a string, a negative number). */
static int64_t
int_field(json_t *o, const char *name)
{
	json_t *v = json_object_get(o, name);

	if (v == NULL || json_is_null(v))
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -2;
	return (int64_t)json_integer_value(v);
}

static bool
header_value_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return false;
	return true;
}

/* Split url into TLS or not, canonical host:port and path. */
static int
parse_url(struct px_inf *f, bool *tls, struct px_hostport *hp,
    const char **path, char *err, size_t errlen)
{
	const char *u = f->url, *a, *slash;

	if (strncmp(u, "http://", 7) == 0) {
		*tls = false;
		a = u + 7;
	} else if (strncmp(u, "https://", 8) == 0) {
		*tls = true;
		a = u + 8;
	} else {
		return axg_seterr(err, errlen, "backend URL is not http(s)");
	}
	slash = strchr(a, '/');
	if (slash == NULL)
		slash = a + strlen(a);
	if (px_host_parse_authority(a, (size_t)(slash - a), *tls ? 443 : 80, hp,
		err, errlen) != 0)
		return -1;
	*path = *slash != '\0' ? slash : "/";
	return 0;
}

static struct bufferevent *
make_upstream(struct px_conn *c, char *err, size_t errlen)
{
	struct px_proxy *px = c->px;
	struct px_inf *f = c->inf;
	const struct px_hostport *hp = &f->hp;
	void **sess;
	struct bufferevent *bev;
	SSL_CTX *ctx;
	SSL *ssl;

	if (!f->tls)
		return bufferevent_socket_new(px->base, -1,
		    BEV_OPT_CLOSE_ON_FREE);
	ctx = ca_ctx(px, f->rt.ca_file, err, errlen);
	if (ctx == NULL)
		return NULL;
	ssl = SSL_new(ctx);
	if (ssl == NULL) {
		axg_seterr(err, errlen, "SSL_new failed");
		return NULL;
	}
	if (hp->kind == PX_HOST_NAME) {
		SSL_set_tlsext_host_name(ssl, hp->host);
		SSL_set1_host(ssl, hp->host);
	} else {
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), hp->host);
	}
	/* resume the backend's last session (same context: the key names
	 * the CA file) */
	if (px->inf_pool != NULL &&
	    (sess = px_upool_slot(px->inf_pool->up, f->pool_key, false)) !=
		NULL &&
	    *sess != NULL)
		SSL_set_session(ssl, *sess);
	bev = bufferevent_openssl_socket_new(px->base, -1, ssl,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		SSL_free(ssl);
		axg_seterr(err, errlen, "cannot create a TLS connection");
		return NULL;
	}
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

/* Build the request (kept in f->req) and send it on a pooled connection
 * or a new one. */
static void
inf_send(struct px_conn *c, const char *bpath)
{
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	const struct px_hostport *hp = &f->hp;
	size_t blen = evbuffer_get_length(f->body);
	bool default_port = hp->port == (f->tls ? 443 : 80);
	bool pooled = f->rt.pool_max_idle > 0 && f->rt.pool_idle_ms > 0;
	struct evbuffer *rq;
	const char *host;

	f->pool_key = axg_asprintf("%s|%s|%u|%s", f->tls ? "https" : "http",
	    hp->host, (unsigned)hp->port, f->rt.ca_file);
	rq = f->req = evbuffer_new();
	if (!default_port)
		host = hp->authority;
	else if (hp->kind == PX_HOST_IPV6)
		host = NULL;
	else
		host = hp->host;
	evbuffer_add_printf(rq, "%s %s%s%s HTTP/1.1\r\nHost: ", f->method,
	    bpath, f->query[0] ? "?" : "", f->query);
	if (host != NULL)
		evbuffer_add_printf(rq, "%s\r\n", host);
	else
		evbuffer_add_printf(rq, "[%s]\r\n", hp->host);
	evbuffer_add_buffer(rq, f->fwd_hdrs);
	if (f->rt.key != NULL) {
		if (strcmp(f->rt.provider, "anthropic") == 0)
			evbuffer_add_printf(rq, "x-api-key: %s\r\n", f->rt.key);
		else
			evbuffer_add_printf(rq, "Authorization: Bearer %s\r\n",
			    f->rt.key);
	}
	wipe_key(f);
	evbuffer_add_printf(rq,
	    "Content-Length: %zu\r\nAccept-Encoding: identity\r\n%s\r\n", blen,
	    pooled ? "" : "Connection: close\r\n");
	f->bytes_up = blen;
	evbuffer_add_buffer(rq, f->body);
	if (pooled) {
		struct sockaddr_storage addr;
		bool has_addr = false;

		c->up = pool_take(px, f->pool_key, &addr, &has_addr);
		if (c->up != NULL) {
			size_t n = evbuffer_get_length(rq);

			f->reused = true;
			c->up_addr = addr;
			c->dialed = has_addr;
			/* a copy: kept in case the connection is stale */
			evbuffer_add(bufferevent_get_output(c->up),
			    evbuffer_pullup(rq, -1), n);
			bufferevent_setcb(c->up, up_readcb, NULL, up_eventcb,
			    c);
			bufferevent_setwatermark(c->up, EV_READ, 0, 256 * 1024);
			bufferevent_enable(c->up, EV_READ | EV_WRITE);
			f->phase = INF_WAIT;
			px_conn_arm(c, px->inf.idle_timeout_ms);
			return;
		}
	}
	inf_dial_new(c);
}

/* Dial the backend and send f->req (consumed). */
static void
inf_dial_new(struct px_conn *c)
{
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	const struct px_hostport *hp = &f->hp;
	char err[160];
	int rc;

	c->up = make_upstream(c, err, sizeof(err));
	if (c->up == NULL) {
		inf_refuse(c, 502, "dial", NULL, err, 0);
		return;
	}
	evbuffer_add_buffer(bufferevent_get_output(c->up), f->req);
	req_wipe(f);
	pool_of(px)->st.dials++;
	bufferevent_setcb(c->up, up_readcb, NULL, up_eventcb, c);
	bufferevent_setwatermark(c->up, EV_READ, 0, 256 * 1024);
	bufferevent_enable(c->up, EV_READ | EV_WRITE);
	f->phase = INF_DIAL;
	px_conn_arm(c, px->cfg.connect_timeout_ms);
	if (hp->kind == PX_HOST_NAME) {
		rc = bufferevent_socket_connect_hostname(c->up, px->dns,
		    AF_UNSPEC, hp->host, hp->port);
	} else {
		/* an address: no resolver round */
		struct sockaddr_storage ss;
		socklen_t sl;

		memset(&ss, 0, sizeof(ss));
		if (hp->kind == PX_HOST_IPV4) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_addr = hp->v4;
			s4->sin_port = htons(hp->port);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_addr = hp->v6;
			s6->sin6_port = htons(hp->port);
			sl = sizeof(*s6);
		}
		rc = bufferevent_socket_connect(c->up, (struct sockaddr *)&ss,
		    (int)sl);
	}
	if (rc != 0) {
		inf_refuse(c, 502, "dial", NULL, "cannot reach the backend", 0);
		return;
	}
}

static void
inf_dispatch(struct px_conn *c)
{
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	struct px_inf_request r;
	json_error_t jerr;
	json_t *doc, *v;
	size_t len = evbuffer_get_length(f->body);
	const char *body = (const char *)evbuffer_pullup(f->body, -1);
	const char *bpath = NULL;
	char err[256];
	int rc;

	evtimer_del(c->timer);
	/* the client's input stays watched: its end (a client that left)
	 * ends the call at once and settles its budget */
	doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL || !json_is_object(doc)) {
		json_decref(doc);
		inf_refuse(c, 400, "parse", NULL,
		    "the request body is not a JSON object", 0);
		return;
	}
	memset(&r, 0, sizeof(r));
	v = json_object_get(doc, "model");
	if (v != NULL && !json_is_null(v)) {
		/* the route is picked by it: never the default for a cut
		 * or a long one (a NUL in it is refused by the parser,
		 * which is not given JSON_ALLOW_NUL) */
		size_t ml = json_is_string(v) ? json_string_length(v) : 0;

		if (!json_is_string(v) || ml >= sizeof(f->model)) {
			json_decref(doc);
			inf_refuse(c, 400, "parse", NULL,
			    "the model is not a string of at most 255 bytes",
			    0);
			return;
		}
		memcpy(f->model, json_string_value(v), ml + 1);
	}
	r.stream = json_is_true(json_object_get(doc, "stream"));
	r.max_tokens = -1;
	{
		static const char *const names[] = { "max_tokens",
			"max_completion_tokens", "max_output_tokens" };

		for (size_t k = 0; k < AXG_ARRAY_LEN(names); k++) {
			int64_t t = int_field(doc, names[k]);

			if (t == -2) {
				/* no way around the per-request budget */
				json_decref(doc);
				inf_refuse(c, 400, "parse", NULL,
				    "a max_tokens field is not a non-negative "
				    "integer",
				    0);
				return;
			}
			if (t >= 0 && r.max_tokens < 0)
				r.max_tokens = t;
		}
	}
	json_decref(doc);
	f->est_prompt = (int64_t)(len / 4);
	r.method = f->method;
	r.path = f->path;
	r.query = f->query;
	r.operation = f->op->operation;
	r.shape = f->op->shape;
	r.model = f->model;
	r.body = body;
	r.body_len = len;
	r.est_prompt_tokens = f->est_prompt;
	r.client = (const struct sockaddr *)&c->client_addr;
	memset(&f->rt, 0, sizeof(f->rt));
	rc = px->inf.route(px->inf.arg, c->snap, &r, &f->rt);
	axg_strlcpy(c->rule, f->rt.rule, sizeof(c->rule));
	if (rc != 0) {
		wipe_key(f);
		inf_refuse(c, f->rt.status > 0 ? f->rt.status : 403, "http",
		    f->rt.error[0] ? f->rt.error : NULL,
		    f->rt.reason[0] ? f->rt.reason : "refused",
		    f->rt.status == 429 ? f->rt.retry_after : 0);
		return;
	}
	f->routed = true;
	axg_strlcpy(c->reason, f->rt.reason, sizeof(c->reason));
	f->url = axg_strdup(f->rt.url);
	if (f->rt.body != NULL) {
		/* the hook's replacement (a redacted prompt) */
		evbuffer_drain(f->body, len);
		evbuffer_add(f->body, f->rt.body, f->rt.body_len);
		OPENSSL_cleanse(f->rt.body, f->rt.body_len);
		free(f->rt.body);
		f->rt.body = NULL;
	}
	if (parse_url(f, &f->tls, &f->hp, &bpath, err, sizeof(err)) != 0) {
		wipe_key(f);
		inf_refuse(c, 502, "dial", NULL, err, 0);
		return;
	}
	axg_strlcpy(f->bhost, f->hp.host, sizeof(f->bhost));
	if (f->rt.key != NULL && !header_value_ok(f->rt.key)) {
		wipe_key(f);
		inf_refuse(c, 502, "dial", NULL,
		    "the route's key is not a valid header value", 0);
		return;
	}
	inf_send(c, bpath);
}

/* ---- the response ---- */

static void
take_usage(struct px_inf *f, json_t *u)
{
	int64_t v;

	if (!json_is_object(u))
		return;
	if ((v = int_field(u, "prompt_tokens")) >= 0 ||
	    (v = int_field(u, "input_tokens")) >= 0)
		f->prompt_tokens = v;
	if ((v = int_field(u, "completion_tokens")) >= 0 ||
	    (v = int_field(u, "output_tokens")) >= 0)
		f->completion_tokens = v;
}

static void
read_usage(struct px_inf *f, const char *p, size_t n)
{
	json_t *o, *m;

	o = json_loadb(p, n, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return;
	}
	take_usage(f, json_object_get(o, "usage"));
	if (json_is_object(m = json_object_get(o, "message")))
		take_usage(f, json_object_get(m, "usage"));
	if (json_is_object(m = json_object_get(o, "response")))
		take_usage(f, json_object_get(m, "usage"));
	json_decref(o);
}

static void
sse_line(struct px_inf *f, const char *line, size_t n)
{
	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (n < 5 || memcmp(line, "data:", 5) != 0)
		return;
	line += 5;
	n -= 5;
	while (n > 0 && *line == ' ') {
		line++;
		n--;
	}
	if (n > 0 && *line == '{' && memmem(line, n, "usage", 5) != NULL)
		read_usage(f, line, n);
}

/* The longest line of a streamed (SSE) response. */
static size_t
stream_line_max(const struct px_proxy *px)
{
	return px->cfg.max_stream_line != 0 ? px->cfg.max_stream_line
					    : INF_MAX_SSE_LINE;
}

/* SSE: only whole lines go to the client, appended to out; the start of
 * a line split between reads waits in sse_part.  Each whole line also
 * goes to the usage reader.  A line longer than max_stream_line sets
 * line_cut: the lines before it are passed on, it and what follows are
 * not. */
static void
sse_feed(struct px_conn *c, const char *p, size_t n, struct evbuffer *out)
{
	struct px_inf *f = c->inf;
	size_t max = stream_line_max(c->px);

	while (n > 0 && !f->line_cut) {
		const char *nl = memchr(p, '\n', n);
		size_t ll = nl != NULL ? (size_t)(nl - p) : n;

		if (f->sse_part.len + ll > max) {
			f->line_cut = true;
			axg_buf_reset(&f->sse_part);
			return;
		}
		if (nl == NULL) {
			axg_buf_append(&f->sse_part, p, ll);
			return;
		}
		if (f->sse_part.len > 0) {
			axg_buf_append(&f->sse_part, p, ll);
			sse_line(f, f->sse_part.data, f->sse_part.len);
			evbuffer_add(out, f->sse_part.data, f->sse_part.len);
			evbuffer_add(out, "\n", 1);
			axg_buf_reset(&f->sse_part);
		} else {
			sse_line(f, p, ll);
			evbuffer_add(out, p, ll + 1);
		}
		p += ll + 1;
		n -= ll + 1;
	}
}

/* A JSON body is kept (bounded) to read its usage at the end. */
static void
usage_feed(struct px_inf *f, const char *p, size_t n)
{
	if (f->json_buf == NULL)
		return;
	if (evbuffer_get_length(f->json_buf) + n > INF_MAX_RESP_JSON) {
		evbuffer_free(f->json_buf);
		f->json_buf = NULL;
	} else {
		evbuffer_add(f->json_buf, p, n);
	}
}

static void
cli_send(struct px_conn *c, const char *p, size_t n)
{
	struct px_inf *f = c->inf;
	struct evbuffer *out = bufferevent_get_output(c->cli);

	if (n == 0)
		return;
	if (f->client_chunked)
		evbuffer_add_printf(out, "%zx\r\n", n);
	evbuffer_add(out, p, n);
	if (f->client_chunked)
		evbuffer_add(out, "\r\n", 2);
	c->bytes_down += n;
}

static void flush_dec(struct px_conn *c);

static int
resp_data(void *arg, const char *p, size_t n)
{
	struct px_conn *c = arg;
	struct px_inf *f = c->inf;

	f->resp_bytes += n;
	if (f->sse) {
		sse_feed(c, p, n, f->dec);
		flush_dec(c);
		return 0;
	}
	usage_feed(f, p, n);
	cli_send(c, p, n);
	return 0;
}

/* Decoded chunk data: gathered, and sent as one chunk per read. */
static int
resp_dec(void *arg, const char *p, size_t n)
{
	struct px_conn *c = arg;
	struct px_inf *f = c->inf;

	f->resp_bytes += n;
	if (f->sse) {
		sse_feed(c, p, n, f->dec);
		return 0;
	}
	usage_feed(f, p, n);
	return evbuffer_add(f->dec, p, n);
}

static void
flush_dec(struct px_conn *c)
{
	struct px_inf *f = c->inf;
	size_t n = evbuffer_get_length(f->dec);

	if (n == 0)
		return;
	cli_send(c, (const char *)evbuffer_pullup(f->dec, -1), n);
	evbuffer_drain(f->dec, n);
}

static void
inf_complete(struct px_conn *c)
{
	struct px_inf *f = c->inf;

	f->phase = INF_DONE;
	evtimer_del(c->timer);
	if (f->sse && f->sse_part.len > 0) {
		/* a last line without its newline */
		sse_line(f, f->sse_part.data, f->sse_part.len);
		cli_send(c, f->sse_part.data, f->sse_part.len);
		axg_buf_reset(&f->sse_part);
	}
	if (f->client_chunked)
		evbuffer_add(bufferevent_get_output(c->cli), "0\r\n\r\n", 5);
	if (f->json_buf != NULL && evbuffer_get_length(f->json_buf) > 0)
		read_usage(f, (const char *)evbuffer_pullup(f->json_buf, -1),
		    evbuffer_get_length(f->json_buf));
	inf_finish(c, f->status >= 400,
	    f->status >= 400 ? "backend error" : NULL);
	px_conn_audit(c, PX_AUDIT_HTTP, PX_OUTCOME_ALLOWED, f->status, "done");
	if (c->up != NULL) {
		SSL *ssl = f->tls ? bufferevent_openssl_get_ssl(c->up) : NULL;

		if (ssl != NULL) {
			SSL_SESSION *sess = SSL_get1_session(ssl);
			void **slot = sess != NULL
			    ? px_upool_slot(pool_of(c->px)->up, f->pool_key,
				  true)
			    : NULL;

			if (slot != NULL && SSL_SESSION_is_resumable(sess)) {
				if (*slot != NULL)
					SSL_SESSION_free(*slot);
				*slot = sess;
			} else if (sess != NULL) {
				SSL_SESSION_free(sess);
			}
		}
		if (f->resp_keep)
			pool_put(c->px, f->pool_key, c->up, &c->up_addr,
			    c->dialed, f->rt.pool_max_idle, f->rt.pool_idle_ms);
		else
			bufferevent_free(c->up);
		c->up = NULL;
	}
	if (f->client_keep && !c->cli_eof) {
		/* the next request on this connection */
		px_inf_free(f);
		c->inf = NULL;
		px_conn_start_head(c);
		return;
	}
	px_conn_close_after_write(c);
}

/* The backend failed after the answer started: an SSE client gets a
 * final error event; others see the body cut short. */
static void
inf_abort(struct px_conn *c, const char *why)
{
	struct px_inf *f = c->inf;

	if (!f->head_sent) {
		inf_refuse(c, f->phase == INF_DIAL ? 502 : 504, "upstream",
		    NULL, why, 0);
		return;
	}
	f->phase = INF_DONE;
	f->resp_keep = false;
	evtimer_del(c->timer);
	if (f->sse) {
		struct evbuffer *b = evbuffer_new();
		size_t n;

		evbuffer_add_printf(b,
		    "\n\nevent: error\ndata: {\"type\":\"error\",\"error\":"
		    "{\"type\":\"api_error\",\"message\":");
		px_json_string(b, why);
		evbuffer_add_printf(b, "}}\n\n");
		n = evbuffer_get_length(b);
		cli_send(c, (const char *)evbuffer_pullup(b, -1), n);
		evbuffer_free(b);
		if (f->client_chunked)
			evbuffer_add(bufferevent_get_output(c->cli),
			    "0\r\n\r\n", 5);
	}
	axg_strlcpy(c->reason, why, sizeof(c->reason));
	inf_finish(c, true, why);
	px_conn_audit(c, PX_AUDIT_HTTP, PX_OUTCOME_ERROR, f->status,
	    "upstream");
	if (c->up != NULL) {
		bufferevent_free(c->up);
		c->up = NULL;
	}
	px_conn_close_after_write(c);
}

static int
resp_head(struct px_conn *c)
{
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	struct evbuffer *in = bufferevent_get_input(c->up);
	struct evbuffer *out = bufferevent_get_output(c->cli);
	size_t len;
	struct px_response resp;
	const char *p, *eol, *conn_v = NULL;
	size_t conn_len = 0, i;
	char err[160];
	int rc;

again:
	len = evbuffer_get_length(in);
	if (len > px->cfg.http.max_head)
		len = px->cfg.http.max_head;
	p = (const char *)evbuffer_pullup(in, (ev_ssize_t)len);
	rc = px_http1_parse_response(p, len, &px->cfg.http, false, &resp,
	    px->hdrs, err, sizeof(err));
	if (rc == 0) {
		if (len >= px->cfg.http.max_head) {
			inf_refuse(c, 502, "upstream", NULL,
			    "the backend's response head is too large", 0);
			return -1;
		}
		return 0;
	}
	if (rc < 0) {
		inf_refuse(c, 502, "upstream", NULL, err, 0);
		return -1;
	}
	if (resp.status == 101) {
		/* the request asked for no upgrade (Upgrade is refused) */
		inf_refuse(c, 502, "upstream", NULL,
		    "the backend switched protocols unasked", 0);
		return -1;
	}
	if (resp.status >= 100 && resp.status < 200) {
		/* an interim answer: skip it (a few at most) */
		evbuffer_drain(in, resp.head_len);
		if (++f->interim > INF_MAX_INTERIM) {
			inf_refuse(c, 502, "upstream", NULL,
			    "the backend sent too many interim (1xx) "
			    "responses",
			    0);
			return -1;
		}
		goto again;
	}
	if (px->cfg.max_response_body != 0 && resp.body == PX_BODY_LENGTH &&
	    resp.content_length > px->cfg.max_response_body) {
		inf_refuse(c, 502, "upstream", NULL,
		    "the backend's response is larger than max_response_body",
		    0);
		return -1;
	}
	f->status = resp.status;
	f->resp_kind = resp.body;
	f->client_chunked = !f->client_10 &&
	    (resp.body == PX_BODY_CHUNKED || resp.body == PX_BODY_CLOSE);
	/* reusable: HTTP/1.1, not closed, framed (checked again at the
	 * end: nothing may follow the body) */
	f->resp_keep = resp.keep_alive && resp.version_minor == 1 &&
	    resp.status != 101 && resp.body != PX_BODY_CLOSE;
	/* a body the client cannot see the end of (an HTTP/1.0 client gets
	 * no chunked encoding) ends with the connection */
	if (!f->client_chunked &&
	    (resp.body == PX_BODY_CLOSE || resp.body == PX_BODY_CHUNKED))
		f->client_keep = false;
	f->resp_left = resp.content_length;
	if (resp.body == PX_BODY_CHUNKED)
		px_chunked_init(&f->resp_ch, px->cfg.max_response_body,
		    px->cfg.http.max_line);

	eol = memchr(p, '\n', resp.head_len);
	/* "HTTP/1.x NNN reason" -> our version, their code and reason */
	{
		size_t l = (size_t)(eol - p);

		if (l > 0 && p[l - 1] == '\r')
			l--;
		evbuffer_add_printf(out, "HTTP/1.1 ");
		evbuffer_add(out, p + 9, l > 9 ? l - 9 : 0);
		evbuffer_add(out, "\r\n", 2);
	}
	for (i = 0; i < resp.nheaders; i++)
		if (name_is(&resp.headers[i], "connection")) {
			conn_v = resp.headers[i].value;
			conn_len = resp.headers[i].value_len;
		}
	for (i = 0; i < resp.nheaders; i++) {
		const struct px_header *h = &resp.headers[i];

		if (px_http_is_hop_by_hop(h, conn_v, conn_len) ||
		    name_is(h, "content-length") ||
		    name_is(h, "transfer-encoding"))
			continue;
		if (name_is(h, "content-type") && h->value_len >= 17 &&
		    axg_strncaseeq(h->value, "text/event-stream", 17))
			f->sse = true;
		evbuffer_add(out, h->name, h->name_len);
		evbuffer_add(out, ": ", 2);
		evbuffer_add(out, h->value, h->value_len);
		evbuffer_add(out, "\r\n", 2);
	}
	if (resp.body == PX_BODY_LENGTH)
		evbuffer_add_printf(out, "Content-Length: %llu\r\n",
		    (unsigned long long)resp.content_length);
	else if (resp.body == PX_BODY_NONE)
		evbuffer_add_printf(out, "Content-Length: 0\r\n");
	else if (f->client_chunked)
		evbuffer_add_printf(out, "Transfer-Encoding: chunked\r\n");
	evbuffer_add_printf(out, "%s\r\n",
	    !f->client_keep    ? "Connection: close\r\n"
		: f->client_10 ? "Connection: keep-alive\r\n"
			       : "");
	evbuffer_drain(in, resp.head_len);
	f->head_sent = true;
	req_wipe(f); /* answered: never resent */
	if (f->sse)
		axg_buf_init(&f->sse_part, 0); /* bounded by sse_feed */
	else
		f->json_buf = evbuffer_new();
	f->dec = evbuffer_new();
	f->phase = INF_WAIT;
	return 1;
}

static void
up_readcb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len;
	char err[160];

	px_conn_arm(c, px->inf.idle_timeout_ms);
	if (evbuffer_get_length(in) > 0)
		f->resp_started = true;
	if (!f->head_sent) {
		int rc = resp_head(c);

		if (rc <= 0)
			return;
		if (f->resp_kind == PX_BODY_NONE) {
			inf_complete(c);
			return;
		}
	}
	len = evbuffer_get_length(in);
	f->bytes_down += len;
	if (len > 0 && f->resp_kind == PX_BODY_CLOSE &&
	    px->cfg.max_response_body != 0 &&
	    f->resp_bytes + len > px->cfg.max_response_body) {
		/* (a framed body was checked against it at its head or is
		 * by the chunked decoder) */
		inf_abort(c,
		    "the backend's response is larger than max_response_body");
		return;
	}
	if (len > 0) {
		const char *p = (const char *)evbuffer_pullup(in, -1);
		bool done = false;

		if (f->resp_kind == PX_BODY_CHUNKED) {
			size_t used = 0;
			int rc;

			rc = px_chunked_feed(&f->resp_ch, p, len, &used,
			    resp_dec, c, err, sizeof(err));
			evbuffer_drain(in, len);
			flush_dec(c);
			if (rc == 1 && used < len)
				f->resp_keep = false; /* bytes after the body */
			if (rc < 0 && !f->line_cut) {
				inf_abort(c, err);
				return;
			}
			done = rc == 1;
		} else if (f->resp_kind == PX_BODY_LENGTH) {
			size_t n =
			    len < f->resp_left ? len : (size_t)f->resp_left;

			resp_data(c, p, n);
			f->resp_left -= n;
			if (len > n)
				f->resp_keep = false; /* bytes after the body */
			evbuffer_drain(in, len);
			done = f->resp_left == 0;
		} else {
			resp_data(c, p, len);
			evbuffer_drain(in, len);
		}
		if (f->line_cut) {
			snprintf(err, sizeof(err),
			    "the backend sent a stream line longer than "
			    "max_stream_line (%zu bytes)",
			    stream_line_max(px));
			inf_abort(c, err);
			return;
		}
		if (done) {
			inf_complete(c);
			return;
		}
	}
	if (evbuffer_get_length(bufferevent_get_output(c->cli)) >
	    INF_CLIENT_HIGH)
		bufferevent_disable(c->up, EV_READ);
}

static void
ssl_error_text(struct bufferevent *bev, char *buf, size_t len)
{
	unsigned long e;

	buf[0] = '\0';
	while ((e = bufferevent_get_openssl_error(bev)) != 0)
		ERR_error_string_n(e, buf, len);
	{
		SSL *ssl = bufferevent_openssl_get_ssl(bev);

		if (ssl != NULL && SSL_get_verify_result(ssl) != X509_V_OK)
			snprintf(buf, len, "certificate verification: %s",
			    X509_verify_cert_error_string(
				SSL_get_verify_result(ssl)));
	}
}

static void
up_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;
	struct px_inf *f = c->inf;
	struct px_proxy *px = c->px;
	char why[256], ssl_err[200];

	if (what & BEV_EVENT_CONNECTED) {
		socklen_t sl = sizeof(c->up_addr);
		evutil_socket_t fd = bufferevent_getfd(bev);

		if (fd >= 0 &&
		    getpeername(fd, (struct sockaddr *)&c->up_addr, &sl) == 0)
			c->dialed = true;
		if (fd >= 0) {
			int one = 1;

			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
			    sizeof(one));
		}
		px->stats.dials++;
		if (f->tls && px->inf_pool != NULL) {
			SSL *ssl = bufferevent_openssl_get_ssl(bev);

			if (ssl != NULL && SSL_session_reused(ssl))
				px->inf_pool->st.resumed++;
		}
		f->phase = INF_WAIT;
		px_conn_arm(c, px->inf.idle_timeout_ms);
		return;
	}
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	f->resp_keep = false;
	if (f->reused && !f->resp_started && f->req != NULL) {
		/* the backend had closed the pooled connection: send the
		 * request once more on a new one */
		f->reused = false;
		bufferevent_free(c->up);
		c->up = NULL;
		c->dialed = false;
		pool_of(px)->st.retried++;
		inf_dial_new(c);
		return;
	}
	if (f->head_sent && f->resp_kind == PX_BODY_CLOSE &&
	    (what & BEV_EVENT_EOF)) {
		up_readcb(bev, c);
		if (c->inf != NULL && f->phase != INF_DONE)
			inf_complete(c);
		return;
	}
	ssl_err[0] = '\0';
	if (bufferevent_openssl_get_ssl(bev) != NULL)
		ssl_error_text(bev, ssl_err, sizeof(ssl_err));
	if (what & BEV_EVENT_EOF)
		snprintf(why, sizeof(why), "the backend closed the %s",
		    f->head_sent ? "stream" : "connection");
	else if (bufferevent_socket_get_dns_error(bev) != 0)
		snprintf(why, sizeof(why), "cannot resolve the backend: %s",
		    evutil_gai_strerror(bufferevent_socket_get_dns_error(bev)));
	else
		snprintf(why, sizeof(why), "backend connection failed%s%s",
		    ssl_err[0] ? ": " : "",
		    ssl_err[0] ? ssl_err : strerror(errno));
	inf_abort(c, why);
}

void
px_inf_timer(struct px_conn *c)
{
	struct px_inf *f = c->inf;

	switch (f->phase) {
	case INF_BODY:
		inf_refuse(c, 408, "parse", NULL,
		    "request body not received in time", 0);
		break;
	case INF_DIAL:
		inf_refuse(c, 504, "dial", NULL,
		    "the backend did not answer the connection in time", 0);
		break;
	case INF_WAIT:
		inf_abort(c,
		    "the backend sent nothing within the idle "
		    "timeout");
		break;
	default:
		px_conn_free(c);
		break;
	}
}

/* ---- the client side ---- */

static void
inf_cli_readcb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	if (c->inf->phase == INF_BODY) {
		px_read_more(bev);
		inf_read_body(c);
		return;
	}
	/* the next request on a kept connection waits (bounded by the read
	 * watermark); otherwise extra bytes are ignored */
	if (!c->inf->client_keep)
		evbuffer_drain(bufferevent_get_input(bev),
		    evbuffer_get_length(bufferevent_get_input(bev)));
}

static void
inf_cli_writecb(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	(void)bev;
	if (c->up != NULL && c->inf->head_sent)
		bufferevent_enable(c->up, EV_READ);
}

static void
inf_cli_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;

	(void)bev;
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	axg_strlcpy(c->reason, "client went away", sizeof(c->reason));
	inf_finish(c, true, "client went away");
	px_conn_audit(c, PX_AUDIT_HTTP, PX_OUTCOME_ERROR, c->inf->status,
	    "client");
	px_conn_free(c);
}

/* ---- set-up ---- */

int
px_proxy_set_inference(struct px_proxy *px,
    const struct px_inference_hook *hook, char *err, size_t errlen)
{
	SSL_CTX *ctx;
	const char *ca = hook->ca_file;
	char why[256];

	if (hook->route == NULL)
		return axg_seterr(err, errlen, "inference: no route callback");
	if (hook->no_default_ca) {
		ctx = NULL;
		goto install;
	}
	if (ca == NULL || ca[0] == '\0')
		ca = getenv(X509_get_default_cert_file_env());
	if (ca == NULL || ca[0] == '\0')
		ca = X509_get_default_cert_file();
	/* a file, read now: the proxy may lose file access later */
	ctx = new_client_ctx(ca, why, sizeof(why));
	if (ctx == NULL) {
		if (hook->ca_file != NULL && hook->ca_file[0] != '\0')
			return axg_seterr(err, errlen, "inference: %s", why);
		axg_warn("inference: %s: https backends without a route "
			 "ca_file will fail",
		    why);
		ctx = new_client_ctx(NULL, why, sizeof(why));
		if (ctx == NULL)
			return axg_seterr(err, errlen, "inference: %s", why);
	}
install:
	if (px->ssl_ctx != NULL)
		SSL_CTX_free(px->ssl_ctx);
	px->ssl_ctx = ctx;
	px->inf = *hook;
	px->inf.ca_file = NULL;
	if (px->inf.idle_timeout_ms == 0)
		px->inf.idle_timeout_ms = px->cfg.idle_timeout_ms != 0
		    ? px->cfg.idle_timeout_ms
		    : INF_DEFAULT_IDLE;
	px->has_inf = true;
	return 0;
}

void
px_inf_proxy_free(struct px_proxy *px)
{
	pool_free(px->inf_pool);
	px->inf_pool = NULL;
	if (px->ssl_ctx != NULL)
		SSL_CTX_free(px->ssl_ctx);
	px->ssl_ctx = NULL;
}
