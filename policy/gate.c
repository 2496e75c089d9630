/* gate.c: load, compile and query an axgate policy (gate.h). */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "common/common.h"
#include "policy/gate.h"
#include "policy/policy-int.h"
#include "policy/value-build.h"
#include "policy/value-int.h"

/* A `rego:` module larger than this is refused. */
#define GATE_MAX_MODULE_BYTES (4u << 20)
/* At most this many `rego:` modules. */
#define GATE_MAX_MODULES 64

static const char *const entry_names[GATE_NENTRIES] = {
	[GATE_CONNECT] = "connect",
	[GATE_ADDRESS] = "address",
	[GATE_HTTP] = "http",
	[GATE_INFERENCE] = "inference",
};

struct gate {
	int refs;
	struct axp_policy *pol;
	struct axp_query *q[GATE_NENTRIES];
	struct axv *doc; /* data.axgate.policy */
	char *source;
	char name[128];
	char mode[16];
	char digest[17];
};

const char *
gate_entry_name(enum gate_entry e)
{
	return (unsigned)e < GATE_NENTRIES ? entry_names[e] : "?";
}

enum gate_entry
gate_entry_parse(const char *name)
{
	unsigned i;

	for (i = 0; i < GATE_NENTRIES; i++)
		if (strcmp(name, entry_names[i]) == 0)
			return (enum gate_entry)i;
	return GATE_NENTRIES;
}

static void
    AXG_PRINTF(2, 3) gerr(struct axp_polfile_errors *errs, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (errs->n >= AXP_POLFILE_MAX_ERRORS) {
		errs->truncated = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(errs->msg[errs->n], sizeof(errs->msg[0]), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(errs->msg[0]))
		memcpy(errs->msg[errs->n] + sizeof(errs->msg[0]) - 4, "...", 4);
	errs->n++;
}

static void
compiler_errors(struct axp_compiler *c, struct axp_polfile_errors *errs)
{
	size_t i, n = axp_compiler_error_count(c);

	for (i = 0; i < n; i++) {
		const struct axp_error *e = axp_compiler_error(c, i);

		if (e->line > 0)
			gerr(errs, "%s:%d:%d: %s: %s", e->file ? e->file : "",
			    e->line, e->col, axp_errcode_str(e->code),
			    e->message);
		else
			gerr(errs, "%s: %s: %s",
			    e->file && e->file[0] ? e->file : "policy",
			    axp_errcode_str(e->code), e->message);
	}
	if (n == 0)
		gerr(errs, "policy: compile failed");
}

static void
copy_str(char *dst, size_t len, const struct axv *v, const char *dflt)
{
	axg_strlcpy(dst,
	    v != NULL && axv_kind(v) == AXV_STRING ? axv_str(v) : dflt, len);
}

static struct gate *
build(const char *name, const char *yaml, size_t len,
    const struct axp_polfile_opts *opts, const struct gate_module *extra,
    size_t nextra, struct axp_polfile_errors *errs)
{
	struct axv *doc, *rego = NULL, *data = NULL, *ax;
	struct axp_compiler *c = NULL;
	struct gate *g = NULL;
	/* The built-in SHA-256: no crypto library initialisation on the
	 * launcher's start-up path. */
	struct axg_sha256 md;
	unsigned char sum[AXG_SHA256_LEN];
	size_t i;

	memset(errs, 0, sizeof(*errs));
	doc = axp_polfile_load_mem(name, yaml, len, opts, errs, &rego);
	if (doc == NULL)
		return NULL;
	axg_sha256_init(&md);
	axg_sha256_update(&md, yaml, len);

	c = axp_compiler_new();
	axp_compiler_set_flags(c, AXP_COMPILE_OFFLINE);
	for (i = 0; i < gate_builtin_nmodules; i++) {
		const struct gate_module *m = &gate_builtin_modules[i];

		(void)axp_compiler_add_module(c, m->name, m->text,
		    strlen(m->text));
	}
	if (axv_array_len(rego) > GATE_MAX_MODULES) {
		gerr(errs, "%s: rego: more than %u modules", name,
		    GATE_MAX_MODULES);
		goto fail;
	}
	for (i = 0; i < axv_array_len(rego); i++) {
		const char *path = axv_str(axv_array_get(rego, i));
		char err[512];
		size_t n;
		char *text = axg_read_file(path, GATE_MAX_MODULE_BYTES, &n, err,
		    sizeof(err));

		if (text == NULL) {
			gerr(errs, "%s: rego[%zu]: %s", name, i, err);
			continue;
		}
		axg_sha256_update(&md, text, n);
		(void)axp_compiler_add_module(c, path, text, n);
		free(text);
	}
	for (i = 0; i < nextra; i++) {
		axg_sha256_update(&md, extra[i].text, strlen(extra[i].text));
		(void)axp_compiler_add_module(c, extra[i].name, extra[i].text,
		    strlen(extra[i].text));
	}
	if (errs->n > 0 || axp_compiler_error_count(c) > 0) {
		if (errs->n == 0)
			compiler_errors(c, errs);
		goto fail;
	}

	ax = axv_object_new(1);
	axv_object_put(ax, axv_cstr("policy"), axv_ref(doc));
	data = axv_object_new(1);
	axv_object_put(data, axv_cstr("axgate"), ax);
	axv_unref(c->data);
	c->data = axv_ref(data);

	g = axg_calloc(1, sizeof(*g));
	g->refs = 1;
	g->pol = axp_compiler_compile(c);
	if (g->pol == NULL) {
		compiler_errors(c, errs);
		goto fail;
	}
	for (i = 0; i < GATE_NENTRIES; i++) {
		char q[64];
		struct axp_error e;

		snprintf(q, sizeof(q), "data.axgate.%s", entry_names[i]);
		g->q[i] = axp_query_prepare(g->pol, q, &e);
		if (g->q[i] == NULL) {
			gerr(errs, "%s: %s: %s", name, q,
			    e.message ? e.message : "cannot prepare");
			axp_error_clear(&e);
			goto fail;
		}
	}
	g->doc = axv_ref(doc);
	g->source = axg_strdup(name);
	copy_str(g->name, sizeof(g->name), axv_object_gets(doc, "name"), "");
	copy_str(g->mode, sizeof(g->mode),
	    axv_object_gets(axv_object_gets(doc, "network"), "mode"), "proxy");
	axg_sha256_final(&md, sum);
	for (i = 0; i < 8; i++)
		snprintf(g->digest + 2 * i, 3, "%02x", sum[i]);
	axp_compiler_free(c);
	axv_unref(data);
	axv_unref(rego);
	axv_unref(doc);
	return g;
fail:
	gate_unref(g);
	axp_compiler_free(c);
	axv_unref(data);
	axv_unref(rego);
	axv_unref(doc);
	return NULL;
}

struct gate *
gate_load_mem(const char *name, const char *yaml, size_t len,
    const struct axp_polfile_opts *opts, struct axp_polfile_errors *errs)
{
	return build(name, yaml, len, opts, NULL, 0, errs);
}

struct gate *
gate_load(const char *path, const struct axp_polfile_opts *opts,
    struct axp_polfile_errors *errs)
{
	return gate_load_extra(path, opts, NULL, 0, errs);
}

struct gate *
gate_load_extra(const char *path, const struct axp_polfile_opts *opts,
    const struct gate_module *extra, size_t nextra,
    struct axp_polfile_errors *errs)
{
	char err[512];
	size_t len;
	char *text;
	struct gate *g;

	memset(errs, 0, sizeof(*errs));
	text =
	    axg_read_file(path, AXP_POLFILE_MAX_BYTES, &len, err, sizeof(err));
	if (text == NULL) {
		gerr(errs, "%s", err);
		return NULL;
	}
	g = build(path, text, len, opts, extra, nextra, errs);
	free(text);
	return g;
}

struct gate *
gate_ref(struct gate *g)
{
	if (g != NULL)
		__atomic_add_fetch(&g->refs, 1, __ATOMIC_RELAXED);
	return g;
}

void
gate_unref(struct gate *g)
{
	unsigned i;

	if (g == NULL || __atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (i = 0; i < GATE_NENTRIES; i++)
		axp_query_free(g->q[i]);
	axp_policy_free(g->pol);
	axv_unref(g->doc);
	free(g->source);
	free(g);
}

const char *
gate_name(const struct gate *g)
{
	return g->name;
}

const char *
gate_mode(const struct gate *g)
{
	return g->mode;
}

const char *
gate_digest(const struct gate *g)
{
	return g->digest;
}

const char *
gate_source(const struct gate *g)
{
	return g->source;
}

const struct axv *
gate_document(const struct gate *g)
{
	return g->doc;
}

static int
    AXG_PRINTF(2, 3) deny(struct gate_decision *out, const char *fmt, ...)
{
	va_list ap;

	out->allow = false;
	axg_strlcpy(out->rule, "error", sizeof(out->rule));
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	return -1;
}

int
gate_decide(const struct gate *g, enum gate_entry e, struct axv *input,
    struct gate_decision *out)
{
	struct axv *res = NULL, *ex = NULL, *d, *allow, *v;
	struct axp_eval_opts strict = { .strict = true };
	struct axp_error err;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((unsigned)e >= GATE_NENTRIES)
		return deny(out, "%s", "no such entry point");
	/* strict: a builtin error anywhere denies (fail closed), where
	 * OPA would make the call undefined and let the rest decide */
	rc = axp_eval_exprs(g->q[e], input, &strict, &res, &ex, &err);
	if (rc < 0) {
		char msg[400];

		snprintf(msg, sizeof(msg), "%s: %s", axp_errcode_str(err.code),
		    err.message ? err.message : "");
		axp_error_clear(&err);
		return deny(out, "policy error: %s", msg);
	}
	rc = -1;
	if (axv_array_len(ex) == 0) {
		deny(out, "data.axgate.%s is undefined: denied",
		    entry_names[e]);
		goto out;
	}
	d = axv_array_get(axv_array_get(ex, 0), 0);
	allow = d != NULL && axv_kind(d) == AXV_OBJECT
	    ? axv_object_gets(d, "allow")
	    : NULL;
	if (allow == NULL || axv_kind(allow) != AXV_BOOL) {
		deny(out,
		    "data.axgate.%s is not an object with a boolean "
		    "\"allow\": denied",
		    entry_names[e]);
		goto out;
	}
	out->allow = axv_bool_get(allow);
	v = axv_object_gets(d, "rule");
	copy_str(out->rule, sizeof(out->rule), v, "");
	v = axv_object_gets(d, "reason");
	copy_str(out->reason, sizeof(out->reason), v, "");
	rc = 0;
out:
	axv_unref(res);
	axv_unref(ex);
	return rc;
}

int
gate_query(const struct gate *g, const char *query, struct axv *input,
    struct axv **result, char *err, size_t errlen)
{
	struct axp_error e;
	struct axp_query *q;
	struct axv *res = NULL, *ex = NULL, *out;
	size_t i;

	*result = NULL;
	q = axp_query_prepare(g->pol, query, &e);
	if (q == NULL) {
		axg_seterr(err, errlen, "%s:%d:%d: %s: %s",
		    e.file && e.file[0] ? e.file : "query", e.line, e.col,
		    axp_errcode_str(e.code), e.message ? e.message : "");
		axp_error_clear(&e);
		return -1;
	}
	if (axp_eval_exprs(q, input, NULL, &res, &ex, &e) < 0) {
		axg_seterr(err, errlen, "%s: %s", axp_errcode_str(e.code),
		    e.message ? e.message : "");
		axp_error_clear(&e);
		axp_query_free(q);
		return -1;
	}
	out = axv_array_new(axv_array_len(res));
	for (i = 0; i < axv_array_len(res); i++) {
		struct axv *row = axv_object_new(2);

		axv_object_put(row, axv_cstr("expressions"),
		    axv_ref(axv_array_get(ex, i)));
		axv_object_put(row, axv_cstr("bindings"),
		    axv_ref(axv_array_get(res, i)));
		axv_array_push(out, row);
	}
	axv_unref(res);
	axv_unref(ex);
	axp_query_free(q);
	*result = out;
	return 0;
}

/* A path segment may be any text except what would change the query's
 * shape; segments are quoted as Rego strings. */
int
gate_data(const struct gate *g, const char *path, struct axv *input,
    struct axv **value, char *err, size_t errlen)
{
	struct axg_buf q;
	struct axv *res = NULL;
	const char *p = path, *slash;
	int rc;

	*value = NULL;
	axg_buf_init(&q, 4096);
	axg_buf_puts(&q, "data");
	while (*p == '/')
		p++;
	while (*p != '\0') {
		slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n > 0) {
			struct axv *seg;
			int bad;

			if (!axg_utf8_valid(p, n)) {
				axg_buf_free(&q);
				return axg_seterr(err, errlen,
				    "path: not valid UTF-8");
			}
			seg = axv_string(p, n);
			bad = axg_buf_puts(&q, "[") < 0 ||
			    axv_to_json(seg, &q, false) < 0 ||
			    axg_buf_puts(&q, "]") < 0;
			axv_unref(seg);
			if (bad) {
				axg_buf_free(&q);
				return axg_seterr(err, errlen,
				    "path: too long");
			}
		}
		p += n;
		while (*p == '/')
			p++;
	}
	rc = gate_query(g, q.data, input, &res, err, errlen);
	axg_buf_free(&q);
	if (rc < 0)
		return -1;
	if (axv_array_len(res) > 0) {
		struct axv *ex =
		    axv_object_gets(axv_array_get(res, 0), "expressions");

		*value = axv_ref(axv_array_get(ex, 0));
	}
	axv_unref(res);
	return 0;
}

struct axp_policy *
gate_policy(const struct gate *g)
{
	return g->pol;
}

/* The strings every input document uses (its keys, the host types and
 * entry names), made once and immortal: building an input allocates only
 * the request's own strings. */
enum {
	K_ADDR,
	K_ADDR_CLASS,
	K_CLIENT,
	K_HEADERS,
	K_HOST,
	K_HOST_SUFFIXES,
	K_HOST_TYPE,
	K_JOB,
	K_KIND,
	K_METHOD,
	K_MODEL,
	K_PATH,
	K_PORT,
	K_QUERY,
	K_ROUTE,
	K_SCHEME,
	K_SNI,
	K_TOKENS,
	K_IPV4,
	K_IPV6,
	K_NAME,
	K_ENTRY, /* the entry names follow */
	K_COUNT = K_ENTRY + GATE_NENTRIES
};

static const char *const interned_text[K_ENTRY] = { "addr", "addr_class",
	"client", "headers", "host", "host_suffixes", "host_type", "job",
	"kind", "method", "model", "path", "port", "query", "route", "scheme",
	"sni", "tokens", "ipv4", "ipv6", "name" };

static struct axv *interned[K_COUNT];
static bool keys_ordered; /* K_ADDR..K_TOKENS name keys in key order */
static pthread_once_t interned_once = PTHREAD_ONCE_INIT;

static void
interned_init(void)
{
	keys_ordered = true;
	for (int i = 0; i < K_COUNT; i++) {
		interned[i] = axv_cstr(
		    i < K_ENTRY ? interned_text[i] : entry_names[i - K_ENTRY]);
		interned[i]->refs = AXV_IMMORTAL;
		if (i > 0 && i <= K_TOKENS &&
		    strcmp(interned_text[i - 1], interned_text[i]) >= 0)
			keys_ordered = false;
	}
}

static struct axv *
istr(int k)
{
	return interned[k];
}

/* The input document is built as pairs in key order, then as one object
 * (no search per key). */
struct kvs {
	struct axv_kv kv[24];
	size_t n;
	int last;     /* the last key put */
	bool ordered; /* each key put after the one before in key order */
};

static void
put(struct kvs *p, int k, struct axv *v)
{
	if (p->n < AXG_ARRAY_LEN(p->kv)) {
		p->ordered = p->ordered && (p->n == 0 || k > p->last);
		p->last = k;
		p->kv[p->n].k = istr(k);
		p->kv[p->n++].v = v;
	} else {
		axv_unref(v);
	}
}

/* The object of the pairs: keys put in order need no sorting. */
static struct axv *
kvs_object(struct kvs *p)
{
	if (p->ordered && keys_ordered)
		return axv_object_build_sorted(p->kv, p->n);
	return axv_object_build(p->kv, p->n);
}

static void
put_str(struct kvs *p, int k, const char *v)
{
	if (v != NULL)
		put(p, k, axv_cstr(v));
}

/* Header names lower-cased; a repeated field is joined with ", " as
 * RFC 9110 allows for list fields. */
static struct axv *
headers_object(const struct gate_header *h, size_t n)
{
	struct axv *o = axv_object_new(n);
	char name[256];
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct axv *k, *old, *v;
		size_t nl = h[i].name_len < sizeof(name) - 1 ? h[i].name_len
							     : sizeof(name) - 1;

		for (j = 0; j < nl; j++) {
			char c = h[i].name[j];
			name[j] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		}
		k = axv_string(name, nl);
		old = axv_object_get(o, k);
		if (old != NULL) {
			struct axg_buf b;

			axg_buf_init(&b, 0);
			axg_buf_append(&b, axv_str(old), axv_strlen(old));
			axg_buf_puts(&b, ", ");
			axg_buf_append(&b, h[i].value, h[i].value_len);
			v = axv_string(b.data, b.len);
			axg_buf_free(&b);
		} else {
			v = axv_string(h[i].value, h[i].value_len);
		}
		axv_object_put(o, k, v);
	}
	return o;
}

/* What the rules would otherwise work out from the host name on every
 * decision: whether it is an IP literal, and its parent domains
 * ("a.b.example.com" -> "b.example.com", "example.com", "com"), which is
 * what wildcard endpoints are indexed by. */
static void
host_facts(struct kvs *in, const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];
	struct axv *sfx;
	const char *p;

	/* an IPv4 literal starts with a digit, an IPv6 one has a colon */
	if (host[0] >= '0' && host[0] <= '9' &&
	    inet_pton(AF_INET, host, buf) == 1) {
		put(in, K_HOST_TYPE, istr(K_IPV4));
		return;
	}
	if (strchr(host, ':') != NULL && inet_pton(AF_INET6, host, buf) == 1) {
		put(in, K_HOST_TYPE, istr(K_IPV6));
		return;
	}
	/* keys in sorted order: host_suffixes before host_type */
	sfx = axv_array_new(4);
	for (p = strchr(host, '.'); p != NULL && p[1] != '\0';
	     p = strchr(p + 1, '.'))
		axv_array_push(sfx, axv_cstr(p + 1));
	put(in, K_HOST_SUFFIXES, sfx);
	put(in, K_HOST_TYPE, istr(K_NAME));
}

struct axv *
gate_input(const struct gate_request *r)
{
	struct kvs in, client;

	(void)pthread_once(&interned_once, interned_init);
	in.n = client.n = 0;
	in.ordered = client.ordered = true;
	/* keys in sorted order */
	put_str(&in, K_ADDR, r->addr);
	put_str(&in, K_ADDR_CLASS, r->addr_class);
	put_str(&client, K_ADDR, r->client_addr);
	put_str(&client, K_JOB, r->job);
	put(&in, K_CLIENT, kvs_object(&client));
	if (r->entry == GATE_HTTP)
		put(&in, K_HEADERS, headers_object(r->headers, r->nheaders));
	put_str(&in, K_HOST, r->host);
	if (r->host != NULL)
		host_facts(&in, r->host);
	put_str(&in, K_JOB, r->job);
	if ((unsigned)r->entry < GATE_NENTRIES)
		put(&in, K_KIND, istr(K_ENTRY + r->entry));
	else
		put_str(&in, K_KIND, "?");
	put_str(&in, K_METHOD, r->method);
	put_str(&in, K_MODEL, r->model);
	put_str(&in, K_PATH, r->path);
	if (r->port > 0)
		put(&in, K_PORT, axv_int(r->port));
	put_str(&in, K_QUERY, r->query);
	put_str(&in, K_ROUTE, r->route);
	put_str(&in, K_SCHEME, r->scheme);
	put_str(&in, K_SNI, r->sni);
	if (r->entry == GATE_INFERENCE && r->tokens >= 0)
		put(&in, K_TOKENS, axv_int(r->tokens));
	return kvs_object(&in);
}
