/* config.c: axgate.yaml, the configuration of `axgate serve`.
 *
 * Parsed strictly with libyaml: every key must be known, every value has
 * its type and range, and the first problem is reported as
 * "FILE:LINE:COL: key.path: message". */
#include "config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/common.h"
#include "server/server.h"

#define CFG_MAX_BYTES  (1024 * 1024)
#define CFG_MAX_VISITS 100000

struct cfg {
	const char *file;
	char *dir; /* folder of the file, for a relative policy path */
	yaml_document_t *doc;
	struct srv_config *c;
	char *err;
	size_t errlen;
	bool failed;
	size_t visits;
};

static void AXG_PRINTF(4, 5) cfg_err(struct cfg *x, const yaml_node_t *n,
    const char *kp, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	if (x->failed)
		return;
	x->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (n != NULL)
		snprintf(x->err, x->errlen, "%s:%zu:%zu: %s%s%s", x->file,
		    n->start_mark.line + 1, n->start_mark.column + 1, kp,
		    kp[0] ? ": " : "", what);
	else
		snprintf(x->err, x->errlen, "%s: %s%s%s", x->file, kp,
		    kp[0] ? ": " : "", what);
}

static yaml_node_t *
node_at(struct cfg *x, int id)
{
	if (++x->visits > CFG_MAX_VISITS)
		return NULL;
	return yaml_document_get_node(x->doc, id);
}

static const char *
get_str(struct cfg *x, yaml_node_t *n, const char *kp)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE) {
		cfg_err(x, n, kp, "must be a string");
		return NULL;
	}
	if (strlen((const char *)n->data.scalar.value) !=
	    n->data.scalar.length) {
		cfg_err(x, n, kp, "NUL byte in string");
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static int
get_u64(struct cfg *x, yaml_node_t *n, const char *kp, uint64_t min,
    uint64_t max, uint64_t *out)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    axg_parse_u64((const char *)n->data.scalar.value, min, max, out) <
		0) {
		cfg_err(x, n, kp, "must be a whole number from %llu to %llu",
		    (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

static int
get_uint(struct cfg *x, yaml_node_t *n, const char *kp, uint64_t min,
    uint64_t max, unsigned *out)
{
	uint64_t v;

	if (get_u64(x, n, kp, min, max, &v) < 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int
get_bool(struct cfg *x, yaml_node_t *n, const char *kp, bool *out)
{
	const char *s = n != NULL && n->type == YAML_SCALAR_NODE &&
		n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
	    ? (const char *)n->data.scalar.value
	    : "";

	if (strcmp(s, "true") == 0)
		*out = true;
	else if (strcmp(s, "false") == 0)
		*out = false;
	else {
		cfg_err(x, n, kp, "must be true or false");
		return -1;
	}
	return 0;
}

/* A sequence: its length, or -1 after an error. */
static long
seq_len(struct cfg *x, yaml_node_t *n, const char *kp, long max)
{
	long len;

	if (n == NULL || n->type != YAML_SEQUENCE_NODE) {
		cfg_err(x, n, kp, "must be a list");
		return -1;
	}
	len = n->data.sequence.items.top - n->data.sequence.items.start;
	if (len > max) {
		cfg_err(x, n, kp, "more than %ld items", max);
		return -1;
	}
	return len;
}

static yaml_node_t *
seq_item(struct cfg *x, yaml_node_t *n, long i)
{
	return node_at(x, n->data.sequence.items.start[i]);
}

typedef void (
    *pair_fn)(struct cfg *x, const char *key, yaml_node_t *v, const char *kp);

/* Walk a mapping whose keys come from keys[]; unknown and duplicate keys
 * are errors. */
static void
walk_map(struct cfg *x, yaml_node_t *map, const char *kp,
    const char *const *keys, pair_fn fn)
{
	uint64_t seen = 0;

	if (map == NULL || map->type != YAML_MAPPING_NODE) {
		cfg_err(x, map, kp, "must be a mapping");
		return;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top && !x->failed; p++) {
		yaml_node_t *k = node_at(x, p->key), *v = node_at(x, p->value);
		const char *ks;
		char child[256];
		size_t i;

		if (k == NULL || v == NULL) {
			cfg_err(x, map, kp, "document too large (aliases?)");
			return;
		}
		if (k->type != YAML_SCALAR_NODE) {
			cfg_err(x, k, kp, "keys must be strings");
			return;
		}
		ks = (const char *)k->data.scalar.value;
		snprintf(child, sizeof(child), "%s%s%s", kp, kp[0] ? "." : "",
		    ks);
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(keys[i], ks) == 0)
				break;
		if (keys[i] == NULL) {
			char list[512] = "";

			for (size_t j = 0; keys[j] != NULL; j++) {
				size_t l = strlen(list);

				snprintf(list + l, sizeof(list) - l, "%s%s",
				    j ? ", " : "", keys[j]);
			}
			cfg_err(x, k, child,
			    "unknown key (expected one of: %s)", list);
			return;
		}
		if (seen & (1ull << i)) {
			cfg_err(x, k, child, "duplicate key");
			return;
		}
		seen |= 1ull << i;
		fn(x, ks, v, child);
	}
}

/* ---- addresses ---- */

int
srv_parse_addr(const char *s, bool bare_loopback, struct srv_listen *out,
    char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *port, *colon;
	struct addrinfo hints, *ai = NULL;
	uint64_t pn;
	size_t hl;
	int rc;

	memset(out, 0, sizeof(*out));
	if (bare_loopback && axg_parse_u64(s, 0, 65535, &pn) == 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&out->addr;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)pn);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		snprintf(out->text, sizeof(out->text), "127.0.0.1:%u",
		    (unsigned)pn);
		return 0;
	}
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (end == NULL || end[1] != ':')
			return axg_seterr(err, errlen,
			    "%s: expected [ADDRESS]:PORT", s);
		hl = (size_t)(end - s - 1);
		port = end + 2;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL || memchr(s, ':', (size_t)(colon - s)))
			return axg_seterr(err, errlen,
			    "%s: expected ADDRESS:PORT (IPv6 in brackets)", s);
		hl = (size_t)(colon - s);
		port = colon + 1;
	}
	if (hl == 0 || hl >= sizeof(host))
		return axg_seterr(err, errlen, "%s: bad address", s);
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (axg_parse_u64(port, 0, 65535, &pn) < 0)
		return axg_seterr(err, errlen, "%s: bad port", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0 || ai == NULL || ai->ai_addrlen > sizeof(out->addr)) {
		if (ai != NULL)
			freeaddrinfo(ai);
		return axg_seterr(err, errlen,
		    "%s: not a numeric IPv4 or IPv6 address", host);
	}
	memcpy(&out->addr, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (out->addr.ss_family == AF_INET6)
		snprintf(out->text, sizeof(out->text), "[%s]:%u", host,
		    (unsigned)pn);
	else
		snprintf(out->text, sizeof(out->text), "%s:%u", host,
		    (unsigned)pn);
	return 0;
}

static void
get_addr(struct cfg *x, yaml_node_t *n, const char *kp, bool bare,
    struct srv_listen *out)
{
	const char *s = get_str(x, n, kp);
	char why[256];

	if (s != NULL && srv_parse_addr(s, bare, out, why, sizeof(why)) < 0)
		cfg_err(x, n, kp, "%s", why);
}

/* ---- sections ---- */

static void
audit_pair(struct cfg *x, const char *key, yaml_node_t *v, const char *kp)
{
	struct ocsf_config *a = &x->c->audit;
	char why[256];
	const char *s;
	uint64_t u;
	long n;

	if (strcmp(key, "sinks") == 0) {
		n = seq_len(x, v, kp, OCSF_MAX_SINKS);
		a->nsinks = 0;
		for (long i = 0; i < n && !x->failed; i++) {
			yaml_node_t *it = seq_item(x, v, i);

			s = get_str(x, it, kp);
			if (s != NULL &&
			    ocsf_config_add_sink(a, s, why, sizeof(why)) < 0)
				cfg_err(x, it, kp, "%s", why);
		}
	} else if (strcmp(key, "overflow") == 0) {
		s = get_str(x, v, kp);
		if (s != NULL &&
		    ocsf_overflow_parse(s, &a->overflow, why, sizeof(why)) < 0)
			cfg_err(x, v, kp, "%s", why);
	} else if (strcmp(key, "queue_size") == 0) {
		if (get_u64(x, v, kp, 16, 1u << 24, &u) == 0)
			a->queue_size = (size_t)u;
	} else if (strcmp(key, "fsync") == 0) {
		get_bool(x, v, kp, &a->fsync);
	} else if (strcmp(key, "drain_timeout_ms") == 0) {
		get_uint(x, v, kp, 0, 600000, &a->drain_timeout_ms);
	}
}

static void
sni_mode(struct cfg *x, yaml_node_t *v, const char *kp, enum px_sni_mode *out)
{
	const char *s = get_str(x, v, kp);

	if (s == NULL)
		return;
	if (strcmp(s, "off") == 0)
		*out = PX_SNI_OFF;
	else if (strcmp(s, "require") == 0)
		*out = PX_SNI_REQUIRE;
	else if (strcmp(s, "match-if-set") == 0)
		*out = PX_SNI_MATCH_IF_SET;
	else
		cfg_err(x, v, kp, "must be one of: off, require, match-if-set");
}

static void
limits_pair(struct cfg *x, const char *key, yaml_node_t *v, const char *kp)
{
	struct px_config *l = &x->c->limits;
	const uint64_t big = UINT64_C(1) << 50;
	const unsigned day = 86400000;
	uint64_t u;

	if (strcmp(key, "max_head") == 0) {
		if (get_u64(x, v, kp, 256, 1u << 20, &u) == 0)
			l->http.max_head = (size_t)u;
	} else if (strcmp(key, "max_line") == 0) {
		if (get_u64(x, v, kp, 64, 1u << 20, &u) == 0)
			l->http.max_line = (size_t)u;
	} else if (strcmp(key, "max_headers") == 0) {
		if (get_u64(x, v, kp, 1, 10000, &u) == 0)
			l->http.max_headers = (size_t)u;
	} else if (strcmp(key, "max_conns") == 0)
		get_uint(x, v, kp, 1, 10000000, &l->max_conns);
	else if (strcmp(key, "max_conns_per_client") == 0)
		get_uint(x, v, kp, 1, 10000000, &l->max_conns_per_client);
	else if (strcmp(key, "head_timeout_ms") == 0)
		get_uint(x, v, kp, 1, day, &l->head_timeout_ms);
	else if (strcmp(key, "idle_timeout_ms") == 0)
		get_uint(x, v, kp, 1, day, &l->idle_timeout_ms);
	else if (strcmp(key, "lifetime_ms") == 0)
		get_uint(x, v, kp, 0, day, &l->lifetime_ms);
	else if (strcmp(key, "connect_timeout_ms") == 0)
		get_uint(x, v, kp, 1, day, &l->connect_timeout_ms);
	else if (strcmp(key, "dns_timeout_ms") == 0)
		get_uint(x, v, kp, 1, day, &l->dns_timeout_ms);
	else if (strcmp(key, "max_request_body") == 0)
		get_u64(x, v, kp, 0, big, &l->max_request_body);
	else if (strcmp(key, "max_response_body") == 0)
		get_u64(x, v, kp, 0, big, &l->max_response_body);
	else if (strcmp(key, "tunnel_high_watermark") == 0) {
		if (get_u64(x, v, kp, 4096, 1u << 30, &u) == 0)
			l->tunnel_high_watermark = (size_t)u;
	} else if (strcmp(key, "max_addresses") == 0)
		get_uint(x, v, kp, 1, 256, &l->max_addresses);
	else if (strcmp(key, "http_pool_max_idle") == 0)
		get_uint(x, v, kp, 0, 1024, &l->http_pool_max_idle);
	else if (strcmp(key, "http_pool_idle_ms") == 0)
		get_uint(x, v, kp, 0, day, &l->http_pool_idle_ms);
	else if (strcmp(key, "max_stream_line") == 0) {
		if (get_u64(x, v, kp, 1024, 1u << 30, &u) == 0)
			l->max_stream_line = (size_t)u;
	} else if (strcmp(key, "sni_mode") == 0)
		sni_mode(x, v, kp, &l->sni_mode);
	else if (strcmp(key, "tls_ports") == 0) {
		long n = seq_len(x, v, kp, PX_MAX_TLS_PORTS - 1);
		unsigned p;

		memset(l->tls_ports, 0, sizeof(l->tls_ports));
		for (long i = 0; i < n && !x->failed; i++)
			if (get_uint(x, seq_item(x, v, i), kp, 1, 65535, &p) ==
			    0)
				l->tls_ports[i] = (uint16_t)p;
	} else if (strcmp(key, "via") == 0) {
		const char *s = get_str(x, v, kp);

		if (s != NULL &&
		    (s[0] == '\0' || strlen(s) >= sizeof(l->via) ||
			strpbrk(s, " \t\r\n,") != NULL))
			cfg_err(x, v, kp, "must be one token of 1 to %zu bytes",
			    sizeof(l->via) - 1);
		else if (s != NULL)
			axg_strlcpy(l->via, s, sizeof(l->via));
	}
}

static const char *const audit_keys[] = { "sinks", "overflow", "queue_size",
	"fsync", "drain_timeout_ms", NULL };
static const char *const limit_keys[] = { "max_head", "max_line", "max_headers",
	"max_conns", "max_conns_per_client", "head_timeout_ms",
	"idle_timeout_ms", "lifetime_ms", "connect_timeout_ms",
	"dns_timeout_ms", "max_request_body", "max_response_body",
	"tunnel_high_watermark", "max_addresses", "sni_mode", "tls_ports",
	"via", "http_pool_max_idle", "http_pool_idle_ms", "max_stream_line",
	NULL };

static void
top_pair(struct cfg *x, const char *key, yaml_node_t *v, const char *kp)
{
	struct srv_config *c = x->c;
	const char *s;

	if (strcmp(key, "listeners") == 0) {
		long n = seq_len(x, v, kp, SRV_MAX_LISTENERS);

		c->nlisteners = 0;
		for (long i = 0; i < n && !x->failed; i++)
			get_addr(x, seq_item(x, v, i), kp, false,
			    &c->listeners[c->nlisteners++]);
		if (n == 0)
			cfg_err(x, v, kp, "must name at least one address");
	} else if (strcmp(key, "inference_listeners") == 0) {
		long n = seq_len(x, v, kp, SRV_MAX_INFERENCE_LISTENERS);

		c->ninference_listeners = 0;
		for (long i = 0; i < n && !x->failed; i++)
			get_addr(x, seq_item(x, v, i), kp, false,
			    &c->inference_listeners[c->ninference_listeners++]);
	} else if (strcmp(key, "policy") == 0) {
		s = get_str(x, v, kp);
		if (s == NULL)
			return;
		if (s[0] == '\0') {
			cfg_err(x, v, kp, "must not be empty");
			return;
		}
		free(c->policy);
		c->policy = s[0] == '/' ? axg_strdup(s)
					: axg_asprintf("%s/%s", x->dir, s);
	} else if (strcmp(key, "audit") == 0) {
		walk_map(x, v, kp, audit_keys, audit_pair);
	} else if (strcmp(key, "limits") == 0) {
		walk_map(x, v, kp, limit_keys, limits_pair);
	} else if (strcmp(key, "resolver") == 0) {
		struct srv_listen r;

		get_addr(x, v, kp, false, &r);
		if (!x->failed)
			axg_strlcpy(c->limits.resolver, r.text,
			    sizeof(c->limits.resolver));
	} else if (strcmp(key, "admin") == 0) {
		s = v->type == YAML_SCALAR_NODE
		    ? (const char *)v->data.scalar.value
		    : NULL;
		if (s != NULL && strcmp(s, "off") == 0) {
			c->admin_set = false;
			return;
		}
		get_addr(x, v, kp, true, &c->admin);
		c->admin_set = !x->failed;
	} else if (strcmp(key, "user") == 0) {
		s = get_str(x, v, kp);
		if (s != NULL && (s[0] == '\0' || strlen(s) > 64))
			cfg_err(x, v, kp, "must be a user name");
		else if (s != NULL) {
			free(c->user);
			c->user = axg_strdup(s);
		}
	} else if (strcmp(key, "workers") == 0) {
		get_uint(x, v, kp, 0, SRV_MAX_WORKERS, &c->workers);
	} else if (strcmp(key, "drain_timeout_ms") == 0) {
		get_uint(x, v, kp, 0, 3600000, &c->drain_timeout_ms);
	}
}

static const char *const top_keys[] = { "listeners", "inference_listeners",
	"policy", "audit", "limits", "resolver", "admin", "user", "workers",
	"drain_timeout_ms", NULL };

void
srv_config_init(struct srv_config *c)
{
	memset(c, 0, sizeof(*c));
	ocsf_config_init(&c->audit);
	px_config_default(&c->limits);
	c->drain_timeout_ms = 10000;
}

void
srv_config_clear(struct srv_config *c)
{
	free(c->policy);
	free(c->user);
	memset(c, 0, sizeof(*c));
}

int
srv_config_load(struct srv_config *c, const char *path, char *err,
    size_t errlen)
{
	struct cfg x = { .file = path, .c = c, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc, next;
	yaml_node_t *root;
	char *text, *slash;
	size_t len;
	char why[256];

	text = axg_read_file(path, CFG_MAX_BYTES, &len, why, sizeof(why));
	if (text == NULL)
		return axg_seterr(err, errlen, "%s", why);
	x.dir = axg_strdup(path);
	slash = strrchr(x.dir, '/');
	if (slash == NULL) {
		free(x.dir);
		x.dir = axg_strdup(".");
	} else if (slash == x.dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (!yaml_parser_initialize(&parser))
		axg_fatal(1, "yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		axg_seterr(err, errlen, "%s:%zu:%zu: %s", path,
		    parser.problem_mark.line + 1,
		    parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "YAML syntax error");
		yaml_parser_delete(&parser);
		free(text);
		free(x.dir);
		return -1;
	}
	x.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root == NULL)
		cfg_err(&x, NULL, "", "empty file");
	else
		walk_map(&x, root, "", top_keys, top_pair);
	if (!x.failed && yaml_parser_load(&parser, &next)) {
		if (yaml_document_get_root_node(&next) != NULL)
			cfg_err(&x, NULL, "",
			    "more than one YAML document in the file");
		yaml_document_delete(&next);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	free(x.dir);
	return x.failed ? -1 : 0;
}
