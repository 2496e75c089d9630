/* polfile.c: load and check a YAML policy file (axgate-policy(5)). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "common/common.h"
#include "policy/polfile.h"
#include "policy/value-build.h"

/* Nodes visited at most: bounds alias expansion ("billion laughs"). */
#define MAX_VISITS 1000000
#define MAX_LIST   100000

struct ld {
	const char *file;
	const char *dir; /* folder of the file, for relative paths */
	yaml_document_t *doc;
	struct axp_polfile_errors *errs;
	const struct axp_polfile_opts *opts;
	size_t visits;
};

/* snprintf that is meant to truncate: messages are cut, never overflow. */
static void
    AXG_PRINTF(3, 4) cut_printf(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
}

/* A key path for messages: a chain of links on the stack as we descend,
 * rendered only when a message needs it. */
struct kp {
	const struct kp *parent;
	const char *key; /* NULL: the root, or an index */
	size_t index;
	bool is_index;
};

static void
kp_child(struct kp *out, const struct kp *parent, const char *key)
{
	out->parent = parent;
	out->key = key;
	out->index = 0;
	out->is_index = false;
}

static void
kp_index(struct kp *out, const struct kp *parent, size_t i)
{
	out->parent = parent;
	out->key = NULL;
	out->index = i;
	out->is_index = true;
}

/* "a.b[2].c", cut to fit. */
static void
kp_render(const struct kp *kp, char *out, size_t size)
{
	size_t l;

	out[0] = '\0';
	if (kp == NULL)
		return;
	if (kp->parent != NULL)
		kp_render(kp->parent, out, size);
	l = strlen(out);
	if (kp->is_index)
		cut_printf(out + l, size - l, "[%zu]", kp->index);
	else if (kp->key != NULL)
		cut_printf(out + l, size - l, "%s%s", l ? "." : "", kp->key);
}

static void AXG_PRINTF(4, 5) lerr(struct ld *ld, const yaml_node_t *node,
    const struct kp *kp, const char *fmt, ...)
{
	struct axp_polfile_errors *e = ld->errs;
	char what[384], path[256];
	va_list ap;

	if (e->n >= AXP_POLFILE_MAX_ERRORS) {
		e->truncated = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	kp_render(kp, path, sizeof(path));
	if (node != NULL)
		cut_printf(e->msg[e->n], sizeof(e->msg[0]),
		    "%s:%zu:%zu: %s%s%s", ld->file, node->start_mark.line + 1,
		    node->start_mark.column + 1, path, path[0] ? ": " : "",
		    what);
	else
		cut_printf(e->msg[e->n], sizeof(e->msg[0]), "%s: %s%s%s",
		    ld->file, path, path[0] ? ": " : "", what);
	e->n++;
}

static yaml_node_t *
node_at(struct ld *ld, int id)
{
	if (++ld->visits > MAX_VISITS)
		return NULL;
	return yaml_document_get_node(ld->doc, id);
}

static const char *
scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE
	    ? (const char *)n->data.scalar.value
	    : NULL;
}

static bool
plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* ---- typed getters: NULL/-1 after reporting the problem ---- */

static const char *
get_str(struct ld *ld, yaml_node_t *n, const struct kp *kp)
{
	const char *s = scalar(n);

	if (s == NULL) {
		lerr(ld, n, kp, "must be a string");
		return NULL;
	}
	if (strlen(s) != n->data.scalar.length) {
		lerr(ld, n, kp, "NUL byte in string");
		return NULL;
	}
	return s;
}

static int
get_int(struct ld *ld, yaml_node_t *n, const struct kp *kp, uint64_t min,
    uint64_t max, uint64_t *out)
{
	const char *s = scalar(n);

	if (s == NULL || !plain(n) || axg_parse_u64(s, min, max, out) < 0) {
		lerr(ld, n, kp, "must be a whole number from %llu to %llu",
		    (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

static int
get_bool(struct ld *ld, yaml_node_t *n, const struct kp *kp, bool *out)
{
	const char *s = scalar(n);

	if (s != NULL && plain(n) && strcmp(s, "true") == 0)
		*out = true;
	else if (s != NULL && plain(n) && strcmp(s, "false") == 0)
		*out = false;
	else {
		lerr(ld, n, kp, "must be true or false");
		return -1;
	}
	return 0;
}

static int
get_enum(struct ld *ld, yaml_node_t *n, const struct kp *kp,
    const char *const *names, const char **out)
{
	const char *s = scalar(n);
	char list[256] = "";

	for (size_t i = 0; s != NULL && names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = names[i];
			return 0;
		}
	for (size_t i = 0; names[i] != NULL; i++) {
		size_t l = strlen(list);

		cut_printf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "",
		    names[i]);
	}
	lerr(ld, n, kp, "must be one of: %s", list);
	return -1;
}

static bool
is_name(const char *s)
{
	if (*s == '\0' || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			(*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
			*s == '-'))
			return false;
	return true;
}

static bool
is_env_name(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		*s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
			(*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/*
 * Walk a mapping whose keys must come from `keys` (NULL-terminated).
 * Calls fn for each pair; unknown and duplicate keys are errors.
 */
typedef void (*pair_fn)(struct ld *ld, const char *key, yaml_node_t *val,
    const struct kp *kp, void *arg);

static bool
walk_map(struct ld *ld, yaml_node_t *map, const struct kp *kp,
    const char *const *keys, pair_fn fn, void *arg)
{
	yaml_node_pair_t *p;
	unsigned seen = 0;

	if (map == NULL || map->type != YAML_MAPPING_NODE) {
		lerr(ld, map, kp, "must be a mapping");
		return false;
	}
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(ld, p->key);
		yaml_node_t *v = node_at(ld, p->value);
		const char *ks = scalar(k);
		struct kp child;
		size_t i;

		if (k == NULL || v == NULL) {
			lerr(ld, map, kp, "document too large (aliases?)");
			return false;
		}
		if (ks == NULL) {
			lerr(ld, k, kp, "keys must be strings");
			continue;
		}
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(keys[i], ks) == 0)
				break;
		kp_child(&child, kp, ks);
		if (keys[i] == NULL) {
			char list[384] = "";

			for (size_t j = 0; keys[j] != NULL; j++) {
				size_t l = strlen(list);

				cut_printf(list + l, sizeof(list) - l, "%s%s",
				    j ? ", " : "", keys[j]);
			}
			lerr(ld, k, &child, "unknown key (expected one of: %s)",
			    list);
			continue;
		}
		if (seen & (1u << i)) {
			lerr(ld, k, &child, "duplicate key");
			continue;
		}
		seen |= 1u << i;
		fn(ld, ks, v, &child, arg);
	}
	return true;
}

/* Iterate a sequence; returns the item count or -1 if n is not a list. */
static long
seq_len(struct ld *ld, yaml_node_t *n, const struct kp *kp)
{
	long len;

	if (n == NULL || n->type != YAML_SEQUENCE_NODE) {
		lerr(ld, n, kp, "must be a list");
		return -1;
	}
	len = n->data.sequence.items.top - n->data.sequence.items.start;
	if (len > MAX_LIST) {
		lerr(ld, n, kp, "more than %d items", MAX_LIST);
		return -1;
	}
	return len;
}

static yaml_node_t *
seq_item(struct ld *ld, yaml_node_t *n, long i)
{
	return node_at(ld, n->data.sequence.items.start[i]);
}

static void
put(struct axv *obj, const char *key, struct axv *val)
{
	axv_object_put(obj, axv_cstr(key), val);
}

/* ---- filesystem ---- */

static struct axv *
expand_path(struct ld *ld, yaml_node_t *n, const struct kp *kp)
{
	const struct axp_polfile_opts *o = ld->opts;
	const char *s = get_str(ld, n, kp), *rest = NULL, *base = NULL;
	struct axv *v;
	char *full;

	if (s == NULL)
		return NULL;
	if (strcmp(s, "~") == 0 || axg_startswith(s, "~/")) {
		base = o ? o->home : NULL;
		rest = s + 1;
	} else if (axg_startswith(s, "{workspace}")) {
		base = o ? o->workspace : NULL;
		rest = s + strlen("{workspace}");
	} else if (axg_startswith(s, "{tmpdir}")) {
		base = o ? o->tmpdir : NULL;
		rest = s + strlen("{tmpdir}");
	} else if (s[0] != '/') {
		lerr(ld, n, kp,
		    "must be an absolute path, or start with {workspace}, "
		    "{tmpdir} or ~");
		return NULL;
	}
	if (rest != NULL && *rest != '\0' && *rest != '/') {
		lerr(ld, n, kp, "a placeholder must be followed by '/'");
		return NULL;
	}
	if (strstr(s, "/../") != NULL || axg_endswith(s, "/..")) {
		lerr(ld, n, kp, "'..' is not allowed in paths");
		return NULL;
	}
	if (rest == NULL || base == NULL)
		return axv_cstr(s);
	full = axg_asprintf("%s%s", base, rest);
	v = axv_string_own(full, strlen(full));
	return v;
}

static void
path_list(struct ld *ld, yaml_node_t *n, const struct kp *kp, struct axv *out)
{
	long len = seq_len(ld, n, kp);

	for (long i = 0; i < len; i++) {
		struct kp c;
		struct axv *p;

		kp_index(&c, kp, (size_t)i);
		p = expand_path(ld, seq_item(ld, n, i), &c);
		if (p != NULL)
			axv_array_push(out, p);
	}
}

static void
fs_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	struct axv *fs = arg;

	if (strcmp(key, "workspace_read_only") == 0) {
		bool b;

		if (get_bool(ld, v, kp, &b) == 0)
			put(fs, key, axv_bool(b));
		return;
	}
	struct axv *list = axv_array_new(8);

	path_list(ld, v, kp, list);
	put(fs, key, list);
}

/* ---- process ---- */

static void
env_set_pair(struct ld *ld, yaml_node_t *map, const struct kp *kp,
    struct axv *out)
{
	yaml_node_pair_t *p;

	if (map->type != YAML_MAPPING_NODE) {
		lerr(ld, map, kp, "must be a mapping of NAME: value");
		return;
	}
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(ld, p->key),
			    *v = node_at(ld, p->value);
		const char *ks = scalar(k), *vs;
		struct kp c;

		if (k == NULL || v == NULL)
			return;
		if (ks == NULL || !is_env_name(ks)) {
			lerr(ld, k, kp,
			    "'%s' is not an environment variable "
			    "name",
			    ks ? ks : "?");
			continue;
		}
		kp_child(&c, kp, ks);
		if ((vs = get_str(ld, v, &c)) == NULL)
			continue;
		if (!axv_object_put_unique(out, axv_cstr(ks), axv_cstr(vs)))
			lerr(ld, k, &c, "duplicate key");
	}
}

static void
env_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	struct axv *env = arg;

	if (strcmp(key, "pass") == 0) {
		struct axv *list = axv_array_new(8);
		long len = seq_len(ld, v, kp);

		for (long i = 0; i < len; i++) {
			yaml_node_t *it = seq_item(ld, v, i);
			struct kp c;
			const char *s;

			kp_index(&c, kp, (size_t)i);
			if ((s = get_str(ld, it, &c)) == NULL)
				continue;
			if (!is_env_name(s)) {
				lerr(ld, it, &c,
				    "'%s' is not an environment "
				    "variable name",
				    s);
				continue;
			}
			axv_array_push(list, axv_cstr(s));
		}
		put(env, key, list);
	} else {
		struct axv *set = axv_object_new(8);

		env_set_pair(ld, v, kp, set);
		put(env, key, set);
	}
}

static void
proc_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const struct {
		const char *key;
		uint64_t min, max;
	} lim[] = {
		{ "max_processes", 1, 1000000 },
		{ "max_memory_mb", 1, 1u << 30 },
		{ "cpu_rate_percent", 1, 100000 },
		{ "timeout_sec", 1, 366u * 86400 },
	};
	static const char *const env_keys[] = { "pass", "set", NULL };
	struct axv *proc = arg;
	uint64_t u;

	if (strcmp(key, "env") == 0) {
		struct axv *env = axv_object_new(2);

		walk_map(ld, v, kp, env_keys, env_pair, env);
		put(proc, key, env);
		return;
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(lim); i++)
		if (strcmp(key, lim[i].key) == 0 &&
		    get_int(ld, v, kp, lim[i].min, lim[i].max, &u) == 0)
			put(proc, key, axv_int((int64_t)u));
}

/* ---- network ---- */

struct ep_ctx {
	struct axv *ep;	   /* the normalised endpoint */
	struct axv *ports; /* [[lo, hi], ...] */
	bool has_host, has_cidr, has_port, has_ports, has_rules, wildcard;
	bool tls_port;
	yaml_node_t *rules_node;
	struct kp rules_kp;
};

static struct axv *
port_range(uint64_t lo, uint64_t hi)
{
	struct axv *r = axv_array_new(2);

	axv_array_push(r, axv_int((int64_t)lo));
	axv_array_push(r, axv_int((int64_t)hi));
	return r;
}

static void
one_port(struct ld *ld, yaml_node_t *n, const struct kp *kp, struct ep_ctx *c)
{
	const char *s = scalar(n), *dash;
	uint64_t lo, hi;

	if (s != NULL && (dash = strchr(s, '-')) != NULL) {
		if (axg_parse_u64n(s, (size_t)(dash - s), 1, 65535, &lo) < 0 ||
		    axg_parse_u64(dash + 1, 1, 65535, &hi) < 0 || lo > hi) {
			lerr(ld, n, kp,
			    "a port range is \"LOW-HIGH\" with "
			    "1 <= LOW <= HIGH <= 65535");
			return;
		}
	} else if (get_int(ld, n, kp, 1, 65535, &lo) == 0) {
		hi = lo;
	} else {
		return;
	}
	if (lo <= 443 && 443 <= hi)
		c->tls_port = true;
	axv_array_push(c->ports, port_range(lo, hi));
}

static struct axv *
parse_cidr(struct ld *ld, yaml_node_t *n, const struct kp *kp)
{
	const char *s = get_str(ld, n, kp), *slash;
	unsigned char a[16];
	char addr[INET6_ADDRSTRLEN], out[INET6_ADDRSTRLEN + 5];
	int fam, bits;
	uint64_t plen;

	if (s == NULL)
		return NULL;
	slash = strchr(s, '/');
	if (slash == NULL || (size_t)(slash - s) >= sizeof(addr)) {
		lerr(ld, n, kp, "a CIDR is ADDRESS/PREFIX, as 10.20.0.0/16");
		return NULL;
	}
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	fam = strchr(addr, ':') ? AF_INET6 : AF_INET;
	bits = fam == AF_INET ? 32 : 128;
	if (inet_pton(fam, addr, a) != 1 ||
	    axg_parse_u64(slash + 1, 0, (uint64_t)bits, &plen) < 0) {
		lerr(ld, n, kp, "invalid CIDR (ADDRESS/PREFIX, prefix 0-%d)",
		    bits);
		return NULL;
	}
	if (plen == 0) {
		lerr(ld, n, kp, "a /0 would allow every address");
		return NULL;
	}
	for (int i = (int)plen; i < bits; i++)
		if (a[i / 8] & (0x80 >> (i % 8))) {
			for (int j = (int)plen; j < bits; j++)
				a[j / 8] &= (unsigned char)~(0x80 >> (j % 8));
			inet_ntop(fam, a, addr, sizeof(addr));
			lerr(ld, n, kp,
			    "host bits are set; did you mean "
			    "%s/%d?",
			    addr, (int)plen);
			return NULL;
		}
	inet_ntop(fam, a, addr, sizeof(addr));
	cut_printf(out, sizeof(out), "%s/%d", addr, (int)plen);
	return axv_cstr(out);
}

static void
rule_allow_pair(struct ld *ld, const char *key, yaml_node_t *v,
    const struct kp *kp, void *arg)
{
	struct axv *allow = arg;
	const char *s = get_str(ld, v, kp);
	char m[32];

	if (s == NULL)
		return;
	if (strcmp(key, "method") == 0) {
		size_t n = strlen(s);

		if (n == 0 || n >= sizeof(m)) {
			lerr(ld, v, kp, "invalid HTTP method");
			return;
		}
		for (size_t i = 0; i <= n; i++)
			m[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32
								 : s[i]);
		for (size_t i = 0; i < n; i++)
			if (!((m[i] >= 'A' && m[i] <= 'Z') || m[i] == '*')) {
				lerr(ld, v, kp, "invalid HTTP method '%s'", s);
				return;
			}
		put(allow, key, axv_cstr(m));
	} else {
		if (s[0] != '/') {
			lerr(ld, v, kp, "a path pattern starts with '/'");
			return;
		}
		put(allow, key, axv_cstr(s));
	}
}

static void
rule_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const allow_keys[] = { "method", "path", NULL };
	struct axv *allow = axv_object_new(2);

	walk_map(ld, v, kp, allow_keys, rule_allow_pair, allow);
	if (axv_object_gets(allow, "method") == NULL)
		put(allow, "method", axv_cstr("*"));
	if (axv_object_gets(allow, "path") == NULL)
		put(allow, "path", axv_cstr("/**"));
	axv_array_push(arg, allow);
}

static void
ep_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	struct ep_ctx *c = arg;

	if (strcmp(key, "host") == 0) {
		char canon[256];
		const char *s = get_str(ld, v, kp), *why;
		bool wild;

		c->has_host = true;
		if (s == NULL)
			return;
		if (axp_host_pattern(s, canon, sizeof(canon), &wild, &why) <
		    0) {
			lerr(ld, v, kp, "'%s': %s", s, why);
			return;
		}
		c->wildcard = wild;
		put(c->ep, wild ? "host_suffix" : "host", axv_cstr(canon));
	} else if (strcmp(key, "cidr") == 0) {
		struct axv *cidr = parse_cidr(ld, v, kp);

		c->has_cidr = true;
		if (cidr != NULL)
			put(c->ep, "cidr", cidr);
	} else if (strcmp(key, "port") == 0) {
		c->has_port = true;
		one_port(ld, v, kp, c);
	} else if (strcmp(key, "ports") == 0) {
		long len = seq_len(ld, v, kp);

		c->has_ports = true;
		if (len == 0)
			lerr(ld, v, kp, "must list at least one port");
		for (long i = 0; i < len; i++) {
			struct kp ic;

			kp_index(&ic, kp, (size_t)i);
			one_port(ld, seq_item(ld, v, i), &ic, c);
		}
	} else if (strcmp(key, "rules") == 0) {
		c->has_rules = true;
		c->rules_node = v;
		c->rules_kp = *kp;
	}
}

struct net_ctx {
	struct axv *policies;
	/* The index: host -> entry pairs grouped once at the end. */
	struct axv_pairs exact, suffix;
	struct axv *cidr;
	struct axv *names; /* policy names seen */
	bool binaries_warned;
};

static void
index_add(struct axv_pairs *idx, struct axv *key, struct axv *entry)
{
	axv_pairs_add(idx, axv_ref(key), entry);
}

static void
endpoint(struct ld *ld, yaml_node_t *n, const struct kp *kp, const char *policy,
    struct net_ctx *nc, struct axv *eps)
{
	static const char *const keys[] = { "host", "cidr", "port", "ports",
		"rules", NULL };
	struct ep_ctx c = { 0 };
	size_t before = ld->errs->n;
	struct axv *entry;

	c.ep = axv_object_new(4);
	c.ports = axv_array_new(2);
	if (!walk_map(ld, n, kp, keys, ep_pair, &c))
		goto out;
	if (c.has_host == c.has_cidr)
		lerr(ld, n, kp,
		    "an endpoint names exactly one of host or cidr");
	if (c.has_port == c.has_ports)
		lerr(ld, n, kp,
		    "an endpoint names exactly one of port or ports");
	if (c.has_rules) {
		struct axv *rules = axv_array_new(2);
		long len = seq_len(ld, c.rules_node, &c.rules_kp);

		for (long i = 0; i < len; i++) {
			static const char *const rk[] = { "allow", NULL };
			struct kp ic;

			kp_index(&ic, &c.rules_kp, (size_t)i);
			walk_map(ld, seq_item(ld, c.rules_node, i), &ic, rk,
			    rule_pair, rules);
		}
		if (c.tls_port)
			lerr(ld, c.rules_node, &c.rules_kp,
			    "HTTP rules cannot be enforced on port 443: this "
			    "build does not inspect TLS, so only plain-HTTP "
			    "ports may carry rules");
		put(c.ep, "rules", rules);
	}
	if (ld->errs->n != before)
		goto out;
	put(c.ep, "ports", axv_ref(c.ports));

	entry = axv_object_new(3);
	put(entry, "policy", axv_cstr(policy));
	put(entry, "ports", axv_ref(c.ports));
	{
		struct axv *r = axv_object_gets(c.ep, "rules");

		if (r != NULL)
			put(entry, "rules", axv_ref(r));
	}
	if (axv_object_gets(c.ep, "host") != NULL) {
		index_add(&nc->exact, axv_object_gets(c.ep, "host"), entry);
	} else if (axv_object_gets(c.ep, "host_suffix") != NULL) {
		index_add(&nc->suffix, axv_object_gets(c.ep, "host_suffix"),
		    entry);
	} else {
		put(entry, "cidr", axv_ref(axv_object_gets(c.ep, "cidr")));
		axv_array_push(nc->cidr, entry);
	}
	axv_array_push(eps, c.ep);
	c.ep = NULL;
out:
	axv_unref(c.ep);
	axv_unref(c.ports);
}

struct pol_ctx {
	struct net_ctx *nc;
	struct axv *obj;
	const char *name;
	yaml_node_t *endpoints;
	struct kp endpoints_kp;
	yaml_node_t *map;
};

static void
pol_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	struct pol_ctx *pc = arg;

	if (strcmp(key, "name") == 0) {
		const char *s = get_str(ld, v, kp);

		if (s == NULL)
			return;
		if (!is_name(s)) {
			lerr(ld, v, kp,
			    "'%s': names use letters, digits, "
			    "'.', '_' and '-' (at most 128)",
			    s);
			return;
		}
		if (axv_object_gets(pc->nc->names, s) != NULL) {
			lerr(ld, v, kp, "another policy is already named '%s'",
			    s);
			return;
		}
		axv_object_put(pc->nc->names, axv_cstr(s), axv_bool(true));
		pc->name = s;
		put(pc->obj, key, axv_cstr(s));
	} else if (strcmp(key, "endpoints") == 0) {
		pc->endpoints = v;
		pc->endpoints_kp = *kp;
	} else if (strcmp(key, "binaries") == 0) {
		lerr(ld, v, kp,
		    "per-binary rules need connect-time attribution of the "
		    "calling program, which this build cannot enforce; remove "
		    "'binaries' (the policy would otherwise allow more than "
		    "it says)");
	}
}

static void
net_policy(struct ld *ld, yaml_node_t *n, const struct kp *kp,
    struct net_ctx *nc)
{
	static const char *const keys[] = { "name", "endpoints", "binaries",
		NULL };
	struct pol_ctx pc = { .nc = nc, .map = n };
	struct axv *eps;
	long len;

	pc.obj = axv_object_new(2);
	if (!walk_map(ld, n, kp, keys, pol_pair, &pc))
		goto out;
	if (pc.name == NULL) {
		lerr(ld, n, kp, "missing required key 'name'");
		goto out;
	}
	if (pc.endpoints == NULL) {
		lerr(ld, n, kp, "missing required key 'endpoints'");
		goto out;
	}
	len = seq_len(ld, pc.endpoints, &pc.endpoints_kp);
	eps = axv_array_new(len > 0 ? (size_t)len : 1);
	for (long i = 0; i < len; i++) {
		struct kp ic;

		kp_index(&ic, &pc.endpoints_kp, (size_t)i);
		endpoint(ld, seq_item(ld, pc.endpoints, i), &ic, pc.name, nc,
		    eps);
	}
	put(pc.obj, "endpoints", eps);
	axv_array_push(nc->policies, pc.obj);
	pc.obj = NULL;
out:
	axv_unref(pc.obj);
}

struct netsec {
	struct net_ctx *nc;
	struct axv *net;
};

static void
net_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const modes[] = { "proxy", "block", "allow", NULL };
	struct netsec *ns = arg;

	if (strcmp(key, "mode") == 0) {
		const char *m;

		if (get_enum(ld, v, kp, modes, &m) == 0) {
			put(ns->net, key, axv_cstr(m));
			if (strcmp(m, "allow") == 0)
				axg_warn("%s:%zu: network.mode is 'allow': "
					 "the job's traffic is NOT gated "
					 "(development only)",
				    ld->file, v->start_mark.line + 1);
		}
	} else {
		long len = seq_len(ld, v, kp);

		for (long i = 0; i < len; i++) {
			struct kp ic;

			kp_index(&ic, kp, (size_t)i);
			net_policy(ld, seq_item(ld, v, i), &ic, ns->nc);
		}
	}
}

/* ---- inference ---- */

struct inf_ctx {
	struct axv *inf;
	struct axv *routes;
	struct axv *route_names;
	yaml_node_t *default_node;
	struct kp default_kp;
};

static int
check_url(const char *s)
{
	const char *p;

	if (axg_startswith(s, "http://"))
		p = s + 7;
	else if (axg_startswith(s, "https://"))
		p = s + 8;
	else
		return -1;
	if (*p == '\0' || *p == '/' || strchr(p, '@') != NULL ||
	    strchr(p, '?') != NULL || strchr(p, '#') != NULL)
		return -1;
	for (; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return -1;
	return 0;
}

static char *resolve_rel(struct ld *ld, const char *p);

/* A route's ca_file: relative to the policy's folder, readable now. */
static void
route_ca(struct ld *ld, const char *s, yaml_node_t *v, const struct kp *kp,
    struct axv *route)
{
	char *full;
	FILE *fp;

	if (*s == '\0') {
		lerr(ld, v, kp, "must not be empty");
		return;
	}
	full = resolve_rel(ld, s);
	fp = fopen(full, "r");
	if (fp == NULL) {
		lerr(ld, v, kp, "cannot read the CA file %s: %s", full,
		    strerror(errno));
		free(full);
		return;
	}
	fclose(fp);
	put(route, "ca_file", axv_string_own(full, strlen(full)));
}

static void
route_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const providers[] = { "openai", "anthropic", NULL };
	struct axv *route = arg;
	const char *s;

	if (strcmp(key, "provider") == 0) {
		if (get_enum(ld, v, kp, providers, &s) == 0)
			put(route, key, axv_cstr(s));
		return;
	}
	if ((s = get_str(ld, v, kp)) == NULL)
		return;
	if (strcmp(key, "name") == 0 && !is_name(s)) {
		lerr(ld, v, kp,
		    "'%s': names use letters, digits, '.', '_' "
		    "and '-' (at most 128)",
		    s);
		return;
	}
	if (strcmp(key, "endpoint") == 0 && check_url(s) < 0) {
		lerr(ld, v, kp,
		    "must be an http:// or https:// URL with a "
		    "host and no credentials, query or fragment");
		return;
	}
	if (strcmp(key, "api_key_env") == 0 && !is_env_name(s)) {
		lerr(ld, v, kp, "'%s' is not an environment variable name", s);
		return;
	}
	if (strcmp(key, "api_key_file") == 0 && s[0] != '/') {
		lerr(ld, v, kp, "must be an absolute path");
		return;
	}
	if (strcmp(key, "model") == 0 && *s == '\0') {
		lerr(ld, v, kp, "must not be empty");
		return;
	}
	if (strcmp(key, "ca_file") == 0) {
		route_ca(ld, s, v, kp, route);
		return;
	}
	put(route, key, axv_cstr(s));
}

static void
budget_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const actions[] = { "reject", NULL };
	struct axv *b = arg;
	uint64_t u;
	const char *s;

	if (strcmp(key, "action_on_exhaust") == 0) {
		if (get_enum(ld, v, kp, actions, &s) == 0)
			put(b, key, axv_cstr(s));
	} else if (get_int(ld, v, kp, 1, UINT64_C(1) << 40, &u) == 0) {
		put(b, key, axv_int((int64_t)u));
	}
}

static void
keepalive_pair(struct ld *ld, const char *key, yaml_node_t *v,
    const struct kp *kp, void *arg)
{
	struct axv *ka = arg;
	uint64_t u;

	if (strcmp(key, "max_idle") == 0) {
		if (get_int(ld, v, kp, 0, 64, &u) == 0)
			put(ka, key, axv_int((int64_t)u));
	} else if (get_int(ld, v, kp, 1, 600000, &u) == 0) {
		put(ka, key, axv_int((int64_t)u));
	}
}

static void
inf_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const route_keys[] = { "name", "provider",
		"endpoint", "model", "api_key_env", "api_key_file", "ca_file",
		NULL };
	static const char *const keepalive_keys[] = { "max_idle",
		"idle_timeout_ms", NULL };
	static const char *const budget_keys[] = { "max_tokens_per_hour",
		"max_tokens_per_request", "action_on_exhaust", NULL };
	struct inf_ctx *ic = arg;

	if (strcmp(key, "default_provider") == 0) {
		ic->default_node = v;
		ic->default_kp = *kp;
	} else if (strcmp(key, "routes") == 0) {
		long len = seq_len(ld, v, kp);

		for (long i = 0; i < len; i++) {
			yaml_node_t *it = seq_item(ld, v, i);
			struct axv *route = axv_object_new(6);
			struct axv *name;
			struct kp c;

			kp_index(&c, kp, (size_t)i);
			walk_map(ld, it, &c, route_keys, route_pair, route);
			name = axv_object_gets(route, "name");
			if (name == NULL ||
			    !axv_object_gets(route, "provider") ||
			    !axv_object_gets(route, "endpoint")) {
				lerr(ld, it, &c,
				    "a route needs name, provider "
				    "and endpoint");
			} else if (axv_object_gets(route, "api_key_env") &&
			    axv_object_gets(route, "api_key_file")) {
				lerr(ld, it, &c,
				    "give api_key_env or "
				    "api_key_file, not both");
			} else if (axv_object_get(ic->route_names, name)) {
				lerr(ld, it, &c,
				    "another route is already "
				    "named '%s'",
				    axv_str(name));
			} else {
				axv_object_put(ic->route_names, axv_ref(name),
				    axv_bool(true));
				axv_array_push(ic->routes, route);
				continue;
			}
			axv_unref(route);
		}
	} else if (strcmp(key, "keepalive") == 0) {
		struct axv *ka = axv_object_new(2);

		walk_map(ld, v, kp, keepalive_keys, keepalive_pair, ka);
		put(ic->inf, key, ka);
	} else {
		struct axv *b = axv_object_new(3);

		walk_map(ld, v, kp, budget_keys, budget_pair, b);
		if (axv_object_gets(b, "action_on_exhaust") == NULL)
			put(b, "action_on_exhaust", axv_cstr("reject"));
		put(ic->inf, key, b);
	}
}

/* ---- safety, rego ---- */

static char *
resolve_rel(struct ld *ld, const char *p)
{
	if (p[0] == '/' || ld->dir == NULL)
		return axg_strdup(p);
	return axg_asprintf("%s/%s", ld->dir, p);
}

static void
safety_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const modes[] = { "block", "redact", "log", "off",
		NULL };
	struct axv *s = arg;
	const char *m;

	if (strcmp(key, "credential_scan") == 0) {
		if (get_enum(ld, v, kp, modes, &m) == 0)
			put(s, key, axv_cstr(m));
	} else if ((m = get_str(ld, v, kp)) != NULL) {
		char *full = resolve_rel(ld, m);

		put(s, key, axv_string_own(full, strlen(full)));
	}
}

/* ---- the top level ---- */

struct top_ctx {
	struct axv *doc;
	struct axv *rego;
	struct net_ctx nc;
	bool has_version, has_name;
};

static void
top_pair(struct ld *ld, const char *key, yaml_node_t *v, const struct kp *kp,
    void *arg)
{
	static const char *const fs_keys[] = { "read_only", "read_write",
		"deny", "workspace_read_only", NULL };
	static const char *const proc_keys[] = { "max_processes",
		"max_memory_mb", "cpu_rate_percent", "timeout_sec", "env",
		NULL };
	static const char *const net_keys[] = { "mode", "policies", NULL };
	static const char *const inf_keys[] = { "default_provider", "routes",
		"token_budget", "keepalive", NULL };
	static const char *const safety_keys[] = { "credential_scan", "rules",
		NULL };
	struct top_ctx *tc = arg;
	uint64_t u;
	const char *s;

	if (strcmp(key, "version") == 0) {
		tc->has_version = true;
		if (get_int(ld, v, kp, 1, 1, &u) == 0)
			put(tc->doc, key, axv_int(1));
	} else if (strcmp(key, "name") == 0) {
		tc->has_name = true;
		if ((s = get_str(ld, v, kp)) == NULL)
			return;
		if (!is_name(s))
			lerr(ld, v, kp,
			    "'%s': names use letters, digits, '.', "
			    "'_' and '-' (at most 128)",
			    s);
		else
			put(tc->doc, key, axv_cstr(s));
	} else if (strcmp(key, "filesystem") == 0) {
		struct axv *fs = axv_object_new(4);

		walk_map(ld, v, kp, fs_keys, fs_pair, fs);
		put(tc->doc, key, fs);
	} else if (strcmp(key, "process") == 0) {
		struct axv *proc = axv_object_new(5);

		walk_map(ld, v, kp, proc_keys, proc_pair, proc);
		put(tc->doc, key, proc);
	} else if (strcmp(key, "network") == 0) {
		struct netsec ns = { &tc->nc, axv_object_new(2) };

		walk_map(ld, v, kp, net_keys, net_pair, &ns);
		put(tc->doc, key, ns.net);
	} else if (strcmp(key, "inference") == 0) {
		struct inf_ctx ic = { axv_object_new(3), axv_array_new(4),
			axv_object_new(4), NULL, { 0 } };

		walk_map(ld, v, kp, inf_keys, inf_pair, &ic);
		if (ic.default_node != NULL &&
		    (s = get_str(ld, ic.default_node, &ic.default_kp)) !=
			NULL) {
			if (axv_object_gets(ic.route_names, s) == NULL)
				lerr(ld, ic.default_node, &ic.default_kp,
				    "'%s' names no route in inference.routes",
				    s);
			else
				put(ic.inf, "default_provider", axv_cstr(s));
		}
		put(ic.inf, "routes", ic.routes);
		axv_unref(ic.route_names);
		put(tc->doc, key, ic.inf);
	} else if (strcmp(key, "safety") == 0) {
		struct axv *sf = axv_object_new(2);

		walk_map(ld, v, kp, safety_keys, safety_pair, sf);
		put(tc->doc, key, sf);
	} else if (strcmp(key, "rego") == 0) {
		long len = seq_len(ld, v, kp);

		for (long i = 0; i < len; i++) {
			yaml_node_t *it = seq_item(ld, v, i);
			struct kp c;

			kp_index(&c, kp, (size_t)i);
			if ((s = get_str(ld, it, &c)) == NULL)
				continue;
			if (!axg_endswith(s, ".rego")) {
				lerr(ld, it, &c,
				    "a Rego module's file name "
				    "ends in .rego");
				continue;
			}
			char *full = resolve_rel(ld, s);

			axv_array_push(tc->rego,
			    axv_string_own(full, strlen(full)));
		}
	}
}

/* Fill in what the file left out, so rules never meet an undefined
 * section. */
static void
defaults(struct axv *doc)
{
	struct axv *net = axv_object_gets(doc, "network");
	struct axv *sf = axv_object_gets(doc, "safety");

	if (net == NULL) {
		net = axv_object_new(2);
		put(doc, "network", net);
	}
	if (axv_object_gets(net, "mode") == NULL)
		put(net, "mode", axv_cstr("proxy"));
	if (sf == NULL) {
		sf = axv_object_new(1);
		put(doc, "safety", sf);
	}
	if (axv_object_gets(sf, "credential_scan") == NULL)
		put(sf, "credential_scan", axv_cstr("block"));
}

struct axv *
axp_polfile_load_mem(const char *name, const char *text, size_t len,
    const struct axp_polfile_opts *opts, struct axp_polfile_errors *errs,
    struct axv **rego_files)
{
	static const char *const top_keys[] = { "version", "name", "filesystem",
		"process", "network", "inference", "safety", "rego", NULL };
	yaml_parser_t parser;
	yaml_document_t doc;
	struct ld ld = { 0 };
	struct top_ctx tc = { 0 };
	struct kp root = { 0 };
	yaml_node_t *top;
	struct axv *index, *result = NULL;
	char *dir = NULL;
	const char *slash;

	memset(errs, 0, sizeof(*errs));
	if (rego_files != NULL)
		*rego_files = NULL;
	ld.file = name;
	ld.errs = errs;
	ld.opts = opts;
	if ((slash = strrchr(name, '/')) != NULL)
		dir = axg_strndup(name, (size_t)(slash - name));
	ld.dir = dir;

	if (len > AXP_POLFILE_MAX_BYTES) {
		lerr(&ld, NULL, NULL, "larger than %u bytes",
		    AXP_POLFILE_MAX_BYTES);
		free(dir);
		return NULL;
	}
	if (!yaml_parser_initialize(&parser))
		axg_fatal(1, "yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		struct axp_polfile_errors *e = errs;

		cut_printf(e->msg[0], sizeof(e->msg[0]),
		    "%s:%zu:%zu: YAML syntax error: %s%s%s", name,
		    parser.problem_mark.line + 1,
		    parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "invalid YAML",
		    parser.context ? " " : "",
		    parser.context ? parser.context : "");
		e->n = 1;
		yaml_parser_delete(&parser);
		free(dir);
		return NULL;
	}
	ld.doc = &doc;
	tc.doc = axv_object_new(8);
	tc.rego = axv_array_new(2);
	tc.nc.policies = axv_array_new(8);
	tc.nc.cidr = axv_array_new(2);
	tc.nc.names = axv_object_new(8);

	top = yaml_document_get_root_node(&doc);
	if (top == NULL) {
		lerr(&ld, NULL, NULL,
		    "empty policy file (it needs at least "
		    "'version: 1' and a name)");
		goto out;
	}
	if (!walk_map(&ld, top, &root, top_keys, top_pair, &tc))
		goto out;
	if (!tc.has_version)
		lerr(&ld, top, &root,
		    "missing required key 'version' "
		    "(version: 1)");
	if (!tc.has_name)
		lerr(&ld, top, &root, "missing required key 'name'");
	/* Anything after the first document is a mistake, not data. */
	{
		yaml_document_t next;

		if (yaml_parser_load(&parser, &next)) {
			if (yaml_document_get_root_node(&next) != NULL)
				lerr(&ld, NULL, NULL,
				    "more than one YAML document in the file");
			yaml_document_delete(&next);
		}
	}
	if (errs->n > 0)
		goto out;

	defaults(tc.doc);
	{
		struct axv *net = axv_object_gets(tc.doc, "network");

		put(net, "policies", axv_ref(tc.nc.policies));
	}
	index = axv_object_new(3);
	put(index, "exact", axv_pairs_group(&tc.nc.exact));
	put(index, "suffix", axv_pairs_group(&tc.nc.suffix));
	put(index, "cidr", axv_ref(tc.nc.cidr));
	put(tc.doc, "index", index);
	put(tc.doc, "rego", axv_ref(tc.rego));
	result = axv_ref(tc.doc);
	if (rego_files != NULL)
		*rego_files = axv_ref(tc.rego);
out:
	axv_unref(tc.doc);
	axv_unref(tc.rego);
	axv_unref(tc.nc.policies);
	axv_pairs_clear(&tc.nc.exact);
	axv_pairs_clear(&tc.nc.suffix);
	axv_unref(tc.nc.cidr);
	axv_unref(tc.nc.names);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(dir);
	return result;
}

struct axv *
axp_polfile_load(const char *path, const struct axp_polfile_opts *opts,
    struct axp_polfile_errors *errs, struct axv **rego_files)
{
	char err[512];
	size_t len;
	char *text;
	struct axv *v;

	text =
	    axg_read_file(path, AXP_POLFILE_MAX_BYTES, &len, err, sizeof(err));
	if (text == NULL) {
		memset(errs, 0, sizeof(*errs));
		cut_printf(errs->msg[0], sizeof(errs->msg[0]), "%s", err);
		errs->n = 1;
		if (rego_files != NULL)
			*rego_files = NULL;
		return NULL;
	}
	v = axp_polfile_load_mem(path, text, len, opts, errs, rego_files);
	free(text);
	return v;
}
