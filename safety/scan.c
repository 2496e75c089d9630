/*
 * scan.c: one pass over a buffer.
 *
 * 1. The keyword automaton reports every keyword occurrence.
 * 2. For each rule a keyword belongs to, the rule's regex is run in a
 *    window around the hit (windows of one rule that overlap are merged,
 *    so each byte is matched at most once per rule); rules whose match
 *    starts at the keyword are tried once, anchored there.
 * 3. Each match passes the gates of check.c and the ignore list.
 * 4. The same is done, up to LEAK_DECODE_DEPTH_MAX levels deep, on the
 *    text with JSON escapes and percent-encoding undone and on decoded
 *    base64 runs; findings are mapped back to the caller's offsets.
 * 5. Overlapping findings are resolved: specific rules beat generic ones,
 *    then the longer finding wins.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

#define MATCH_LIMIT   1000000
#define DEPTH_LIMIT   5000
#define JIT_STACK_MAX (512 * 1024)
#define IGNORE_MAX    64

struct cand {
	uint32_t rule;
	int prio;
	uint64_t off, len;
	enum leak_encoding enc;
};

/* Where a decoded layer's bytes came from. */
struct layer {
	const struct layer *parent;
	enum leak_encoding enc;
	const uint32_t *map;	 /* escapes: per-byte source offsets */
	size_t b64_off, b64_len; /* base64 or hex: the run in the parent */
	bool hex;		 /* hex: byte i is run bytes 2i, 2i + 1 */
	size_t len;		 /* of this layer */
};

struct ignored {
	uint8_t *v;
	size_t n;
};

struct leak_scan {
	const struct leak_ruleset *rs;
	pcre2_match_data *md, *md2;
	pcre2_match_context *mc;
	pcre2_jit_stack *js;

	/* Merged windows, per rule, of the layer being scanned. */
	bool *open;
	size_t *open_ws, *open_we;
	uint32_t *open_list;
	size_t nopen;

	struct cand *c;
	size_t nc, capc;
	bool capped; /* a candidate was dropped at the bound */

	struct ignored ign[IGNORE_MAX];
	size_t nign;

	struct axg_buf dec[LEAK_DECODE_DEPTH_MAX + 1];
	uint32_t *map[LEAK_DECODE_DEPTH_MAX + 1];
	size_t mapcap[LEAK_DECODE_DEPTH_MAX + 1];
	struct axg_buf b64[LEAK_DECODE_DEPTH_MAX + 1];
	/* Per layer: its bytes by class. */
	struct leak_runmask rm[LEAK_DECODE_DEPTH_MAX + 1];
	uint8_t hex[LEAK_DECODE_DEPTH_MAX + 1][LEAK_HEX_RUN_MAX / 2];

	int failed;
	char errmsg[256];
};

struct hitctx {
	struct leak_scan *sc;
	const uint8_t *p;
	size_t n;
	const struct layer *ly;
};

void
leak_findings_init(struct leak_findings *f)
{
	memset(f, 0, sizeof(*f));
}

void
leak_findings_reset(struct leak_findings *f)
{
	f->n = 0;
	f->truncated = false;
}

void
leak_findings_free(struct leak_findings *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

struct leak_scan *
leak_scan_new(const struct leak_ruleset *rs, char *err, size_t errlen)
{
	struct leak_scan *sc = axg_calloc(1, sizeof(*sc));
	size_t nr = rs->nrules ? rs->nrules : 1;

	sc->rs = rs;
	sc->md = pcre2_match_data_create(32, NULL);
	sc->md2 = pcre2_match_data_create(8, NULL);
	sc->mc = pcre2_match_context_create(NULL);
	sc->js = pcre2_jit_stack_create(32 * 1024, JIT_STACK_MAX, NULL);
	if (sc->md == NULL || sc->md2 == NULL || sc->mc == NULL) {
		axg_seterr(err, errlen, "scanner: cannot allocate PCRE2 state");
		leak_scan_free(sc);
		return NULL;
	}
	pcre2_set_match_limit(sc->mc, MATCH_LIMIT);
	pcre2_set_depth_limit(sc->mc, DEPTH_LIMIT);
	if (sc->js != NULL)
		pcre2_jit_stack_assign(sc->mc, NULL, sc->js);
	sc->open = axg_calloc(nr, sizeof(*sc->open));
	sc->open_ws = axg_calloc(nr, sizeof(*sc->open_ws));
	sc->open_we = axg_calloc(nr, sizeof(*sc->open_we));
	sc->open_list = axg_calloc(nr, sizeof(*sc->open_list));
	for (int d = 0; d <= LEAK_DECODE_DEPTH_MAX; d++) {
		axg_buf_init(&sc->dec[d], 0);
		axg_buf_init(&sc->b64[d], 0);
	}
	return sc;
}

void
leak_scan_free(struct leak_scan *sc)
{
	if (sc == NULL)
		return;
	pcre2_match_data_free(sc->md);
	pcre2_match_data_free(sc->md2);
	pcre2_match_context_free(sc->mc);
	pcre2_jit_stack_free(sc->js);
	free(sc->open);
	free(sc->open_ws);
	free(sc->open_we);
	free(sc->open_list);
	free(sc->c);
	leak_scan_clear_ignored(sc);
	for (int d = 0; d <= LEAK_DECODE_DEPTH_MAX; d++) {
		axg_buf_free(&sc->dec[d]);
		axg_buf_free(&sc->b64[d]);
		free(sc->map[d]);
		leak_runmask_free(&sc->rm[d]);
	}
	free(sc);
}

int
leak_scan_ignore_value(struct leak_scan *sc, const void *value, size_t len)
{
	if (len < 8 || len > 4096 || sc->nign == IGNORE_MAX)
		return -1;
	sc->ign[sc->nign].v = axg_malloc(len);
	memcpy(sc->ign[sc->nign].v, value, len);
	sc->ign[sc->nign].n = len;
	sc->nign++;
	return 0;
}

void
leak_scan_clear_ignored(struct leak_scan *sc)
{
	for (size_t i = 0; i < sc->nign; i++)
		free(sc->ign[i].v);
	sc->nign = 0;
}

static bool
is_ignored(const struct leak_scan *sc, const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < sc->nign; i++)
		if (sc->ign[i].n == n && memcmp(sc->ign[i].v, s, n) == 0)
			return true;
	return false;
}

/* Map [a, b) of layer ly to offsets in the caller's input. */
static void
map_to_root(const struct layer *ly, size_t a, size_t b, uint64_t *ra,
    uint64_t *rb, enum leak_encoding *enc)
{
	while (ly->parent != NULL) {
		if (ly->map != NULL) {
			size_t na = ly->map[a];
			/* The end: just past the source of byte b-1. */
			size_t nb = b < ly->len ? ly->map[b] : ly->map[ly->len];
			a = na;
			b = nb;
		} else if (ly->hex) {
			a = ly->b64_off + 2 * a;
			b = ly->b64_off + 2 * b;
		} else {
			size_t na = ly->b64_off + (a / 3) * 4;
			size_t nb = ly->b64_off + ((b + 2) / 3) * 4;
			if (nb > ly->b64_off + ly->b64_len)
				nb = ly->b64_off + ly->b64_len;
			a = na;
			b = nb;
		}
		if (*enc == LEAK_ENC_RAW || ly->enc >= LEAK_ENC_BASE64)
			*enc = ly->enc;
		ly = ly->parent;
	}
	*ra = a;
	*rb = b;
}

static void
add_cand(struct leak_scan *sc, const struct layer *ly, uint32_t rule, size_t a,
    size_t b)
{
	struct cand c = { .rule = rule, .enc = LEAK_ENC_RAW };

	c.prio = sc->rs->rules[rule].priority;
	uint64_t ra, rb;

	map_to_root(ly, a, b, &ra, &rb, &c.enc);
	if (rb <= ra)
		return;
	c.off = ra;
	c.len = rb - ra;
	for (size_t i = sc->nc; i > 0 && i + 16 > sc->nc; i--) {
		const struct cand *o = &sc->c[i - 1];
		if (o->rule == c.rule && o->off == c.off && o->len == c.len)
			return;
	}
	if (sc->nc == LEAK_FINDINGS_MAX * 4) {
		sc->capped = true;
		return;
	}
	if (sc->nc == sc->capc) {
		sc->capc = sc->capc ? sc->capc * 2 : 16;
		sc->c = axg_reallocarray(sc->c, sc->capc, sizeof(*sc->c));
	}
	sc->c[sc->nc++] = c;
}

static int
fail_match(struct leak_scan *sc, const struct leak_rule *r, int rc)
{
	PCRE2_UCHAR msg[128];

	pcre2_get_error_message(rc, msg, sizeof(msg));
	if (!sc->failed)
		snprintf(sc->errmsg, sizeof(sc->errmsg), "rule %s: match: %s",
		    r->id, (const char *)msg);
	sc->failed = 1;
	return -1;
}

/* Does s[0..n), split into segments at _ - . and other punctuation and
 * at camelCase humps (RSAPrivateKey: RSAPrivate, Key), have a segment
 * that is one of words[0..nw) (ASCII case aside)? */
static bool
has_segment(const uint8_t *s, size_t n, const char *const *words, size_t nw)
{
	size_t i = 0;

	while (i < n) {
		while (i < n &&
		    !((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9')))
			i++;
		size_t b = i++;
		while (i < n &&
		    ((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= '0' && s[i] <= '9') ||
			((s[i] >= 'A' && s[i] <= 'Z') &&
			    (s[i - 1] >= 'A' && s[i - 1] <= 'Z'))))
			i++;
		if (b >= n)
			break;
		for (size_t k = 0; k < nw; k++)
			if (strlen(words[k]) == i - b &&
			    axg_strncaseeq((const char *)s + b, words[k],
				i - b))
				return true;
	}
	return false;
}

/* Names around a generic keyword that hold no secret: a whole segment of
 * the identifier that is one of seg_words, any substring that is one of
 * sub_words, or one of in_words that the keyword (at kw in s) is part of
 * (monkey, bypass: not surveymonkey_token). */
static bool
benign_name(const uint8_t *s, size_t n, size_t kw)
{
	static const char *const seg_words[] = { "hash", "sha", "sha1",
		"sha256", "md5", "digest", "checksum", "uuid", "nonce",
		"public", "pub", "length", "len", "size", "count", "max", "min",
		"type", "file", "path", "url", "uri", "endpoint", "format",
		"policy", "prompt", "reset", "field", "name", "label", "header",
		"expire", "expires", "expiry", "ttl", "timeout", "limit",
		"limits", "enabled", "required", "id", "ids", "keys", "usage",
		"cache", "index", "event", "input", "class", "mode", "method",
		"strategy", "provider", "scope", "tokens", "budget", "version",
		"kind", "style", "color", "prefix", "suffix", "ref", "hint",
		"help", "pattern", "regex", "rotation", "algorithm", "alg",
		"store", "manager", "var", "col", "column", "valid",
		"validator", "error", "missing", "confirm", "old", "new",
		"forgot", "form", "input", "text", "prompt", "strength",
		"generator", "rule", "rules", "author", "authors", "page",
		"pagination", "cursor", "continuation", "next", "sync", "etag",
		"request", "trace", "correlation", "span", "csrf", "xsrf",
		"plate", "number", "plan", "identifier", "keyid", "encoding",
		"scheme", "ctor", "result", "spec", "source", "dest",
		"idempotency" };
	static const char *const sub_words[] = { "fingerprint", "publishable",
		"placeholder", "checksum", "integrity", "clienttoken",
		"client_token", "sitekey", "site_key", "site-key" };
	static const char *const in_words[] = { "keyboard", "keyword", "monkey",
		"turkey", "hotkey", "bypass", "compass", "passage", "passenger",
		"passthrough", "passing", "passed", "passes", "passive",
		"tokenizer", "secretary" };

	for (size_t k = 0; k < AXG_ARRAY_LEN(sub_words); k++)
		if (leak_contains_nocase(s, n, sub_words[k]))
			return true;
	for (size_t k = 0; k < AXG_ARRAY_LEN(in_words); k++) {
		size_t l = strlen(in_words[k]);
		for (size_t j = kw + 1 > l ? kw + 1 - l : 0;
		     j <= kw && j + l <= n; j++)
			if (axg_strncaseeq((const char *)s + j, in_words[k], l))
				return true;
	}
	return has_segment(s, n, seg_words, AXG_ARRAY_LEN(seg_words));
}

/* A value that names a key or a token itself is a name, not a secret:
 * RSAPrivateKey, pkcs8ShroudedKeyBag, setAttr-Token-B0Prime.  A random
 * token holds "Key" as a segment of its own about once in two thousand,
 * so tokens that look random (leak_mixed_random) are not asked.  Not for
 * passwords, which are often made of words (MySecretPassword). */
static bool
value_names_itself(const uint8_t *s, size_t n, const uint8_t *name,
    size_t namelen)
{
	static const char *const words[] = { "key", "keys", "token", "tokens",
		"secret", "secrets", "credential", "credentials", "password",
		"apikey" };
	size_t stem = 0, skip = 0;

	/* A word and a separator in front are a provider's prefix (Mailgun's
	 * key-, Statsig's secret-): the rest is what counts. */
	for (size_t k = 0; k < AXG_ARRAY_LEN(words) && skip == 0; k++) {
		size_t l = strlen(words[k]);
		if (n > l + 8 && axg_strncaseeq((const char *)s, words[k], l) &&
		    (s[l] == '-' || s[l] == '_' || s[l] == '.'))
			skip = l + 1;
	}
	if (!leak_mixed_random(s + skip, n - skip) &&
	    has_segment(s + skip, n - skip, words, AXG_ARRAY_LEN(words)))
		return true;
	/* The value is the name's letters and a few bytes more:
	 * PartitionKey=partitionkey1, tagkey1=tagkeyvalue1, an example's
	 * stand-in (not packagist_token=packagist_uat_<40 random>). */
	while (stem < namelen &&
	    ((name[stem] >= 'a' && name[stem] <= 'z') ||
		(name[stem] >= 'A' && name[stem] <= 'Z')))
		stem++;
	return stem >= 4 && stem <= n && n - stem <= 8 &&
	    axg_strncaseeq((const char *)s, (const char *)name, stem);
}

/* Byte classes as bit sets over ASCII (words for bytes 0-63 and 64-127;
 * no byte from 128 up is in a class): tested with a shift and no branch,
 * as the assignment check runs at every keyword hit. */
static inline bool
in_class(uint8_t c, uint64_t lo, uint64_t hi)
{
	uint64_t w = c < 64 ? lo : c < 128 ? hi : 0;

	return (w >> (c & 63)) & 1;
}

#define BIT(c) ((uint64_t)1 << ((c)&63))
/* Bytes a to b, of the same 64. */
#define BITS(a, b) (((~(uint64_t)0) >> (63 - ((b)&63))) & ~(BIT(a) - 1))
/* [A-Za-z0-9_.-] */
#define IDENT_LO (BIT('-') | BIT('.') | BITS('0', '9'))
#define IDENT_HI (BITS('A', 'Z') | BIT('_') | BITS('a', 'z'))
/* [\s"'`&;,<>()[\]{}], what a value cannot hold */
#define NOVAL_LO                                                               \
	(BITS('\t', '\r') | BIT(' ') | BIT('"') | BIT('\'') | BIT('&') |       \
	    BIT(';') | BIT(',') | BIT('<') | BIT('>') | BIT('(') | BIT(')'))
#define NOVAL_HI (BIT('`') | BIT('[') | BIT(']') | BIT('{') | BIT('}'))

static bool
ident_byte(uint8_t c)
{
	return in_class(c, IDENT_LO, IDENT_HI);
}

/* Rule ri's compiled code, or NULL (and the scan fails closed). */
static const struct leak_rule_code *
rule_code(struct leak_scan *sc, uint32_t ri)
{
	char msg[256];
	const struct leak_rule_code *c =
	    leak_rule_code(sc->rs, ri, msg, sizeof(msg));

	if (c == NULL && !sc->failed) {
		axg_strlcpy(sc->errmsg, msg, sizeof(sc->errmsg));
		sc->failed = 1;
	}
	return c;
}

/* Is the name at p[ns] a part of an ARN (arn:aws:secretsmanager:...:
 * secret:name)?  Looked for over the bytes an ARN is made of. */
static bool
in_arn(const uint8_t *p, size_t ns)
{
	size_t i = ns;

	if (ns == 0 || p[ns - 1] != ':')
		return false;
	while (i > 0 && ns - i < 256 &&
	    (ident_byte(p[i - 1]) || p[i - 1] == ':' || p[i - 1] == '/'))
		i--;
	return ns - i > 8 && memcmp(p + i, "arn:aws", 7) == 0;
}

/* Check a match (ovector in sc->md) and record it. */
static void
confirm(struct hitctx *h, uint32_t ri, const struct leak_rule_code *code,
    int rc)
{
	struct leak_scan *sc = h->sc;
	const struct leak_rule *r = &sc->rs->rules[ri];
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
	size_t a = ov[0], b = ov[1];

	for (int g = 1; g < rc; g++)
		if (ov[2 * g] != PCRE2_UNSET) {
			a = ov[2 * g];
			b = ov[2 * g + 1];
			break;
		}
	if (b <= a || b > h->n)
		return;
	/* A value followed by '(' is a call, not a literal. */
	if ((r->flags & LEAK_RF_VALUE) && b < h->n && h->p[b] == '(')
		return;
	size_t cs = ov[0]; /* the context the value checks see */
	if ((r->flags & LEAK_RF_GENERIC) && !(r->flags & LEAK_RF_WINDOW)) {
		/* The whole identifier the keyword sits in. */
		size_t ns = ov[0], ne = ov[0];
		while (ns > 0 && ident_byte(h->p[ns - 1]) && ov[0] - ns < 64)
			ns--;
		while (ne < a && ident_byte(h->p[ne]))
			ne++;
		if (benign_name(h->p + ns, ne - ns, ov[0] - ns) ||
		    in_arn(h->p, ns) ||
		    (!(r->flags & LEAK_RF_PASSWORD) &&
			value_names_itself(h->p + a, b - a, h->p + ns,
			    ne - ns)))
			return;
		cs = ns;
	}
	if (!leak_secret_ok(sc->rs, r,
		atomic_load_explicit(&code->allow, memory_order_relaxed),
		sc->md2, sc->mc, h->p + a, b - a, h->p + cs, ov[1] - cs))
		return;
	if (is_ignored(sc, h->p + a, b - a))
		return;
	add_cand(sc, h->ly, ri, a, b);
}

static int
run_window(struct hitctx *h, uint32_t ri, size_t ws, size_t we)
{
	struct leak_scan *sc = h->sc;
	const struct leak_rule *r = &sc->rs->rules[ri];
	const struct leak_rule_code *code = rule_code(sc, ri);
	size_t off = ws;

	if (code == NULL)
		return -1;
	const pcre2_code *re =
	    atomic_load_explicit(&code->re, memory_order_relaxed);
	while (off < we) {
		int rc = pcre2_match(re, (PCRE2_SPTR)h->p, we, off, 0, sc->md,
		    sc->mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0)
			return fail_match(sc, r, rc);
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
		size_t s = ov[0], e = ov[1];
		confirm(h, ri, code, rc);
		off = e > s ? e : s + 1;
	}
	return 0;
}

static int
flush_open(struct hitctx *h)
{
	struct leak_scan *sc = h->sc;
	int rc = 0;

	for (size_t i = 0; i < sc->nopen; i++) {
		uint32_t ri = sc->open_list[i];
		if (rc == 0)
			rc =
			    run_window(h, ri, sc->open_ws[ri], sc->open_we[ri]);
		sc->open[ri] = false;
	}
	sc->nopen = 0;
	return rc;
}

static bool
space_byte(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	    c == '\v';
}

/* A byte of an assigned value: not [\s"'`&;,<>()[\]{}]. */
static bool
value_byte(uint8_t c)
{
	return c >= 128 || !in_class(c, NOVAL_LO, NOVAL_HI);
}

/* After an assignment at p[at]: skip spaces, quotes and the rest of "=>"
 * (a superset of what the regexes allow between the assignment and the
 * value) and count the value bytes, up to LEAK_ASSIGN_VALUE_CAP. */
static size_t
value_len_at(const uint8_t *p, size_t n, size_t at)
{
	size_t v = 0, best = 0;

	/* At most one opener: b'...', or a call such as bytes.fromhex('...')
	 * or b64decode("...") whose argument is the value. */
	for (int opener = 0; opener < 2; opener++) {
		uint8_t q = 0; /* the last quote before the value */
		while (at < n &&
		    (space_byte(p[at]) || p[at] == '"' || p[at] == '\'' ||
			p[at] == '`' || p[at] == '>' || p[at] == '\\')) {
			if (p[at] == '"' || p[at] == '\'')
				q = p[at];
			at++;
		}
		if (opener == 0 && at + 1 < n && p[at] == 'b' &&
		    (p[at + 1] == '\'' || p[at + 1] == '"')) {
			at++;
			continue;
		}
		if (opener == 0 && at + 1 < n && p[at] == '[' &&
		    p[at + 1] == ']')
			at += 2; /* Go's []byte("...") */
		v = 0;
		while (v < LEAK_ASSIGN_VALUE_CAP && at + v < n &&
		    value_byte(p[at + v]))
			v++;
		if (v > best)
			best = v;
		/* A quoted value may hold ;,&<>()[]{} (a password's
		 * symbols): on to the closing quote (from where the value
		 * bytes stopped: a backslash among them makes this count
		 * more than the regex takes, never less). */
		if (q != 0) {
			size_t w = v;
			while (w < LEAK_ASSIGN_VALUE_CAP && at + w < n &&
			    p[at + w] != q && p[at + w] != '\\' &&
			    !space_byte(p[at + w]))
				w++;
			if (w > best)
				best = w;
		}
		if (opener > 0 || at + v >= n || p[at + v] != '(' || v >= 32)
			break;
		at += v + 1;
	}
	return best;
}

/* After "NAME," at p[at]: a quoted value (a call's next argument) or
 * "value": and a value (a name/value pair); else 0. */
static size_t
value_after_comma(const uint8_t *p, size_t n, size_t at)
{
	size_t q;

	while (at < n && space_byte(p[at]))
		at++;
	q = at;
	while (q < n && q < at + 4 && p[q] == '\\')
		q++;
	if (q < n && (p[q] == '"' || p[q] == '\'' || p[q] == '`'))
		q++;
	if (q + 5 <= n && (p[q] | 0x20) == 'v' &&
	    axg_strncaseeq((const char *)p + q, "value", 5)) {
		q += 5;
		while (q < n &&
		    (p[q] == '\\' || p[q] == '"' || p[q] == '\'' ||
			space_byte(p[q])))
			q++;
		return q < n && (p[q] == ':' || p[q] == '=')
		    ? value_len_at(p, n, q + 1)
		    : 0;
	}
	if (q == at ||
	    !(p[q - 1] == '"' || p[q - 1] == '\'' || p[q - 1] == '`'))
		return 0;
	return value_len_at(p, n, at);
}

/* After "NAME {" at p[at]: "default =" within the braces, and a value. */
static size_t
value_after_default(const uint8_t *p, size_t n, size_t at)
{
	for (size_t i = at; i + 7 <= n && i < at + 100; i++) {
		if (p[i] == '{' || p[i] == '}')
			return 0;
		if ((p[i] | 0x20) != 'd' ||
		    !axg_strncaseeq((const char *)p + i, "default", 7))
			continue;
		i += 7;
		while (i < n && space_byte(p[i]))
			i++;
		return i < n && p[i] == '=' ? value_len_at(p, n, i + 1) : 0;
	}
	return 0;
}

/* Is the word at p[at], followed by a blank, "is" or one of the words
 * that may follow a name in prose before "is" comes (the generic rules'
 * PROSE_IS): the key *we* use is, the token *for* prod is.  By its first
 * letter, as this runs at every name in prose. */
static bool
prose_start(const uint8_t *p, size_t n, size_t at)
{
	/* per first letter, its words and their lengths (at most 3) */
	static const struct {
		const char *w[3];
		uint8_t l[3];
	} by_letter[26] = {
		['a' - 'a'] = { { "at" }, { 2 } },
		['f' - 'a'] = { { "for", "from" }, { 3, 4 } },
		['h' - 'a'] = { { "here" }, { 4 } },
		['i' - 'a'] = { { "is", "i", "in" }, { 2, 1, 2 } },
		['o' - 'a'] = { { "of", "on" }, { 2, 2 } },
		['t' - 'a'] = { { "to", "they", "that" }, { 2, 4, 4 } },
		['u' - 'a'] = { { "used" }, { 4 } },
		['w' - 'a'] = { { "we" }, { 2 } },
		['y' - 'a'] = { { "you" }, { 3 } },
	};

	if (p[at] < 'a' || p[at] > 'z')
		return false;
	for (int k = 0; k < 3; k++) {
		size_t l = by_letter[p[at] - 'a'].l[k];
		const char *w = by_letter[p[at] - 'a'].w[k];
		if (l == 0)
			break;
		if (at + l < n && space_byte(p[at + l]) &&
		    (l == 1 ||
			(p[at + 1] == (uint8_t)w[1] &&
			    (l == 2 || memcmp(p + at + 2, w + 2, l - 2) == 0))))
			return true;
	}
	return false;
}

/* Does "NAME<ident bytes>["']?]?<spaces>" at p[at] end in an assignment
 * (=, :, :=, ->, >, spaces before a quote or "is", a comma before a quoted
 * value or a "value" key, || or ??, or "{ ... default =")?  Quotes may be
 * JSON-escaped.  If so, the number
 * of value bytes that follow it, up to LEAK_ASSIGN_VALUE_CAP, else 0.  The
 * generic rules' regexes need an assignment and a value of at least their
 * value_min bytes; this check costs a few bytes instead of a match.  It
 * may pass where the regex fails, never the other way round: the longest
 * name the regexes take after a keyword ("pass" + "phrase" + 20) is under
 * 32 bytes, and space runs are followed to their end as \s+ may be. */
size_t
leak_assigned_value_len(const uint8_t *p, size_t n, size_t at)
{
	size_t lim = at + 32 < n ? at + 32 : n, sp = 0;

	while (at < lim && ident_byte(p[at]))
		at++;
	/* a closing quote, perhaps JSON-escaped (\" or \\\") */
	for (size_t q = at; q < n && q < at + 4; q++) {
		if (p[q] == '"' || p[q] == '\'' || p[q] == '`') {
			at = q + 1;
			break;
		}
		if (p[q] != '\\')
			break;
	}
	if (at < n && p[at] == ']')
		at++;
	while (at < n && space_byte(p[at])) {
		at++;
		sp++;
	}
	if (at >= n)
		return 0;
	switch (p[at]) {
	case ':':
		/* ":=", or ":" with a value that starts with "=". */
		if (at + 1 < n && p[at + 1] == '=') {
			size_t a = value_len_at(p, n, at + 1);
			size_t b = value_len_at(p, n, at + 2);
			return a > b ? a : b;
		}
		AXG_FALLTHROUGH;
	case '=':
	case '>':
		at++;
		break;
	case '-':
		if (at + 1 >= n || p[at + 1] != '>')
			return 0;
		at += 2;
		break;
	case '"':
	case '\'':
	case '\\':
		if (sp == 0)
			return 0;
		break;
	case ',':
		return value_after_comma(p, n, at + 1);
	case '|':
	case '?':
		/* || and ??, ||= and ??=: a fallback value */
		if (at + 1 >= n || p[at + 1] != p[at])
			return 0;
		at += 2;
		if (at < n && p[at] == '=')
			at++;
		break;
	case '{':
		return value_after_default(p, n, at + 1);
	case 'v':
	case 'V':
		/* "value:" on the line after "- name: NAME" */
		if (sp == 0 || at + 5 >= n ||
		    !axg_strncaseeq((const char *)p + at, "value", 5))
			return 0;
		at += 5;
		while (at < n && (p[at] == ' ' || p[at] == '\t'))
			at++;
		if (at >= n || p[at] != ':')
			return 0;
		at++;
		break;
	default:
		/* "is", or a connecting word, up to two more words and "is":
		 * "the key we use is", "the password for prod is".  Any "is"
		 * may be the one (the regex may take a later one). */
		if (sp == 0 || !prose_start(p, n, at))
			return 0;
		size_t best = 0;
		for (int w = 0; w < 4; w++) {
			size_t l = 0;
			while (at + l < n && l <= 10 && p[at + l] >= 'a' &&
			    p[at + l] <= 'z')
				l++;
			if (l == 0 || l > 10 || at + l >= n ||
			    !space_byte(p[at + l]))
				break;
			if (l == 2 && p[at] == 'i' && p[at + 1] == 's') {
				size_t v = value_len_at(p, n, at + 2);
				if (v > best)
					best = v;
			}
			at += l;
			while (at < n && space_byte(p[at]))
				at++;
		}
		return best;
	}
	return value_len_at(p, n, at);
}

static int
on_hit(size_t end, uint32_t kwid, void *arg)
{
	struct hitctx *h = arg;
	struct leak_scan *sc = h->sc;
	const struct leak_keyword *k = &sc->rs->kws[kwid];
	size_t start = end - k->len;

	if (k->word_start && start > 0) {
		uint8_t c = h->p[start - 1];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9'))
			return 0;
	}
	/* The value length after an assignment, once per hit: SIZE_MAX
	 * until a rule asks. */
	size_t vlen = SIZE_MAX;
	if (k->assign_min > 0) {
		/* Most hits of the commonest keywords end here. */
		vlen = leak_assigned_value_len(h->p, h->n, end);
		if (vlen < k->assign_min)
			return 0;
	}
	for (size_t i = 0; i < k->nrules; i++) {
		uint32_t ri = k->rules[i];
		const struct leak_rule *r = &sc->rs->rules[ri];

		if (!(r->flags & LEAK_RF_WINDOW)) {
			if (r->flags & LEAK_RF_ASSIGN) {
				if (vlen == SIZE_MAX)
					vlen = leak_assigned_value_len(h->p,
					    h->n, end);
				if (vlen < r->value_min)
					continue;
			}
			if (r->pre != NULL && !r->pre(h->p, h->n, start, end))
				continue;
			size_t we =
			    end + r->after < h->n ? end + r->after : h->n;
			const struct leak_rule_code *code = rule_code(sc, ri);
			if (code == NULL)
				return -1;
			int rc = pcre2_match(atomic_load_explicit(&code->re,
						 memory_order_relaxed),
			    (PCRE2_SPTR)h->p, we, start, 0, sc->md, sc->mc);
			if (rc == PCRE2_ERROR_NOMATCH)
				continue;
			if (rc < 0)
				return fail_match(sc, r, rc);
			confirm(h, ri, code, rc);
			continue;
		}
		size_t ws = start > r->before ? start - r->before : 0;
		size_t we = end + r->after < h->n ? end + r->after : h->n;
		if (sc->open[ri] && ws <= sc->open_we[ri]) {
			/* Hits come by window position, not keyword start,
			 * so a window may also reach further back. */
			if (ws < sc->open_ws[ri])
				sc->open_ws[ri] = ws;
			if (we > sc->open_we[ri])
				sc->open_we[ri] = we;
			continue;
		}
		if (sc->open[ri]) {
			int rc =
			    run_window(h, ri, sc->open_ws[ri], sc->open_we[ri]);
			if (rc != 0)
				return rc;
		} else {
			sc->open[ri] = true;
			sc->open_list[sc->nopen++] = ri;
		}
		sc->open_ws[ri] = ws;
		sc->open_we[ri] = we;
	}
	return 0;
}

static bool
mostly_text(const uint8_t *p, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' &&
			p[i] != '\t') ||
		    p[i] == 0x7f)
			bad++;
	return bad * 10 <= n;
}

static int scan_layer(struct leak_scan *sc, const uint8_t *p, size_t n,
    const struct layer *ly, int depth);

/* Decode the hex run p[0..n) (n even) into out if it is text: printable
 * ASCII, tabs and line ends.  Digests, hashes and binary keys written as
 * hex are not text and are not decoded; most fail at the first byte, as
 * text has a high nibble of 2 to 7. */
static bool
hex_text(const uint8_t *p, size_t n, uint8_t *out)
{
	bool lower = false, upper = false;

	for (size_t i = 0; i < n; i += 2) {
		int hi = axg_hexval(p[i]), lo = axg_hexval(p[i + 1]);
		uint8_t c = (uint8_t)(hi << 4 | lo);
		if (c == 0x7f ||
		    (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
		    c >= 0x80)
			return false;
		out[i / 2] = c;
		for (size_t k = i; k < i + 2; k++) {
			lower = lower || (p[k] >= 'a' && p[k] <= 'f');
			upper = upper || (p[k] >= 'A' && p[k] <= 'F');
		}
	}
	return !(lower && upper); /* one case, as hex encoders write */
}

/* Hex runs of at least LEAK_HEX_RUN_MIN digits inside p[s..e) (a run of
 * base64 bytes, which hex digits are), decoded and scanned again. */
static int
scan_hex_runs(struct leak_scan *sc, const uint8_t *p, size_t s, size_t e,
    const struct layer *ly, int depth)
{
	size_t i = s, b;

	while (leak_runmask_hex_run(&sc->rm[depth], i, e, &b, &i)) {
		size_t len = i - b;
		if (len > LEAK_HEX_RUN_MAX)
			continue;
		len &= ~(size_t)1; /* an odd digit out is left at the end */
		uint8_t *out = sc->hex[depth];
		if (!hex_text(p + b, len, out))
			continue;
		struct layer sub = { .parent = ly,
			.enc = LEAK_ENC_HEX,
			.b64_off = b,
			.b64_len = len,
			.hex = true,
			.len = len / 2 };
		int rc = scan_layer(sc, out, len / 2, &sub, depth + 1);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Could the base64 run p[0..n) decode to mostly text?  Each 4 bytes
 * encode 3 and the first of them holds the top 6 bits of a byte, under 32
 * for ASCII: random tokens and identifiers have a fair share of higher
 * ones (g-z, digits) there, the base64 of text almost none. */
static bool
b64_texty(const uint8_t *p, size_t n)
{
	size_t groups = 0, high = 0;

	for (size_t i = 0; i + 4 <= n; i += 4) {
		uint8_t c = p[i];
		groups++;
		high += !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'f'));
	}
	return high * 4 <= groups;
}

/* Decode and scan the base64 run p[s..e), a run of at least
 * LEAK_B64_RUN_MIN bytes of the alphabet with a byte outside it (or the
 * buffer's edge) on either side, with up to two '=' of padding after it; *next
 * gets the offset just past the padding, where the search goes on. */
static int
b64_run(struct leak_scan *sc, const uint8_t *p, size_t n, size_t s, size_t e,
    size_t *next, const struct layer *ly, int depth)
{
	size_t end = e;

	while (end < n && p[end] == '=' && end - e < 2)
		end++;
	/* The byte at end is outside the alphabet or starts the next run
	 * (as in "k=v==<run>"): the search goes on from there. */
	*next = end;
	if (e - s >= LEAK_HEX_RUN_MIN) {
		int rc = scan_hex_runs(sc, p, s, e, ly, depth);
		if (rc != 0)
			return rc;
	}
	/* base64 of text has both cases; hex digests, UUIDs and identifiers
	 * do not and are not decoded. */
	if (!leak_runmask_both_cases(&sc->rm[depth], s, e) ||
	    !b64_texty(p + s, end - s))
		return 0;
	struct axg_buf *out = &sc->b64[depth];
	if (!leak_decode_base64(p + s, end - s, out) || out->len < 12 ||
	    !mostly_text((const uint8_t *)out->data, out->len))
		return 0;
	struct layer sub = { .parent = ly,
		.enc = LEAK_ENC_BASE64,
		.b64_off = s,
		.b64_len = end - s,
		.len = out->len };
	/* Deeper layers use sc->b64[depth + 1], not this buffer. */
	return scan_layer(sc, (const uint8_t *)out->data, out->len, &sub,
	    depth + 1);
}

/* Base64 runs of at least LEAK_B64_RUN_MIN bytes, decoded and scanned again
 * (and hex runs inside them).  A run is a maximal stretch of alphabet
 * bytes, decoded from its first byte whatever precedes it: a '=' before
 * it (as in "key=<run>" or "x==<run>") is the end of something else, not
 * part of this run.  The bytes are read as bits of a mask built with
 * SIMD, and the runs are found from it a word at a time. */
static int
scan_base64_runs(struct leak_scan *sc, const uint8_t *p, size_t n,
    const struct layer *ly, int depth)
{
	struct leak_runmask *rm = &sc->rm[depth];
	size_t i = 0, s, e;
	int rc;

	if (n < LEAK_B64_RUN_MIN)
		return 0;
	leak_runmask_build(rm, p, n, leak_ac_simd_level(sc->rs->ac));
	/* i is 0 or follows a byte outside the alphabet or is at the start
	 * of a run, so the run found from i starts where it really does. */
	while (i + LEAK_B64_RUN_MIN <= n && leak_runmask_b64_run(rm, i, &s, &e))
		if ((rc = b64_run(sc, p, n, s, e, &i, ly, depth)) != 0)
			return rc;
	return 0;
}

#define ISLAND_MARGIN 1024

/* Finds escapes in order; memchr results for '\\' and '%' are kept so
 * each byte is searched once. */
struct esc_iter {
	const uint8_t *p;
	size_t n;
	const uint8_t *nb, *np; /* next '\\' / '%' at or after the cursor */
};

static bool
next_escape(struct esc_iter *it, size_t from, size_t *at)
{
	const uint8_t *p = it->p;
	size_t n = it->n;

	for (size_t i = from; i < n;) {
		if (it->nb != NULL && (size_t)(it->nb - p) < i)
			it->nb = memchr(p + i, '\\', n - i);
		if (it->np != NULL && (size_t)(it->np - p) < i)
			it->np = memchr(p + i, '%', n - i);
		const uint8_t *e = it->nb;
		if (e == NULL || (it->np != NULL && it->np < e))
			e = it->np;
		if (e == NULL)
			return false;
		i = (size_t)(e - p);
		if (leak_escape_at(p, n, i) > 0) {
			*at = i;
			return true;
		}
		i++;
	}
	return false;
}

static int
scan_escape_islands(struct leak_scan *sc, const uint8_t *p, size_t n,
    const struct layer *ly, int depth)
{
	struct esc_iter it = { p, n, NULL, NULL };
	size_t at, from = 0;

	it.nb = memchr(p, '\\', n);
	it.np = memchr(p, '%', n);
	while (next_escape(&it, from, &at)) {
		size_t s = at > ISLAND_MARGIN ? at - ISLAND_MARGIN : 0;
		size_t e = at + ISLAND_MARGIN < n ? at + ISLAND_MARGIN : n;
		size_t nx;

		/* Grow the island while more escapes fall inside it. */
		while (e < n && next_escape(&it, at + 1, &nx) && nx < e) {
			at = nx;
			e = at + ISLAND_MARGIN < n ? at + ISLAND_MARGIN : n;
		}
		struct axg_buf *out = &sc->dec[depth];
		if (leak_decode_escapes(p + s, e - s, s, out, &sc->map[depth],
			&sc->mapcap[depth])) {
			struct layer sub = { .parent = ly,
				.enc = LEAK_ENC_ESCAPED,
				.map = sc->map[depth],
				.len = out->len };
			int rc = scan_layer(sc, (const uint8_t *)out->data,
			    out->len, &sub, depth + 1);
			if (rc != 0)
				return rc;
		}
		from = e;
	}
	return 0;
}

static int
scan_layer(struct leak_scan *sc, const uint8_t *p, size_t n,
    const struct layer *ly, int depth)
{
	struct hitctx h = { sc, p, n, ly };
	int rc;

	rc = leak_ac_scan(sc->rs->ac, p, n, on_hit, &h);
	if (rc == 0)
		rc = flush_open(&h);
	else
		(void)flush_open(&h);
	if (rc != 0 || depth >= LEAK_DECODE_DEPTH_MAX)
		return rc;

	/* JSON escapes and percent-encoding: only islands around escapes
	 * that can hide token bytes are decoded and scanned again. */
	if (n < UINT32_MAX) {
		rc = scan_escape_islands(sc, p, n, ly, depth);
		if (rc != 0)
			return rc;
	}
	return scan_base64_runs(sc, p, n, ly, depth);
}

static int
cand_cmp_pick(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->enc != y->enc)
		return x->enc < y->enc ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static int
cand_cmp_priority(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return cand_cmp_pick(a, b);
}

static int
cand_cmp_off(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

static void
make_preview(char *out, size_t outsz, const uint8_t *s, size_t n)
{
	/* Only a known-public prefix-like head of long secrets is shown. */
	size_t show = n >= 20 ? 4 : 0;
	char head[8] = { 0 };

	for (size_t i = 0; i < show; i++)
		head[i] = (s[i] >= 0x21 && s[i] < 0x7f) ? (char)s[i] : '?';
	snprintf(out, outsz, "%s***(%zu)", head, n);
}

/* Resolve overlaps, sort by offset and append to out. */
static int
emit_findings(struct leak_scan *sc, const uint8_t *buf, size_t len,
    struct leak_findings *out)
{
	const struct leak_ruleset *rs = sc->rs;
	size_t kept = 0;

	if (sc->nc == 0)
		return 0;
	qsort(sc->c, sc->nc, sizeof(*sc->c), cand_cmp_priority);
	/* (sc->capped may already be set by the candidate bound) */
	for (size_t i = 0; i < sc->nc; i++) {
		bool overlap = false;
		for (size_t j = 0; j < kept && !overlap; j++)
			overlap = sc->c[i].off < sc->c[j].off + sc->c[j].len &&
			    sc->c[j].off < sc->c[i].off + sc->c[i].len;
		if (!overlap && kept < LEAK_FINDINGS_MAX)
			sc->c[kept++] = sc->c[i];
		else if (!overlap)
			sc->capped = true;
	}
	qsort(sc->c, kept, sizeof(*sc->c), cand_cmp_off);
	if (out->n + kept > out->cap) {
		size_t cap = out->cap ? out->cap : 8;
		while (cap < out->n + kept)
			cap *= 2;
		out->v = axg_reallocarray(out->v, cap, sizeof(*out->v));
		out->cap = cap;
	}
	for (size_t i = 0; i < kept; i++) {
		const struct cand *c = &sc->c[i];
		struct leak_finding *f = &out->v[out->n++];
		memset(f, 0, sizeof(*f));
		f->rule_id = rs->rules[c->rule].id;
		f->description = rs->rules[c->rule].description;
		f->offset = c->off;
		f->length = c->len;
		f->encoding = c->enc;
		if (c->off + c->len <= len)
			make_preview(f->preview, sizeof(f->preview),
			    buf + c->off, c->len);
	}
	if (sc->capped)
		out->truncated = true;
	return (int)kept;
}

int
leak_scan_buffer(struct leak_scan *sc, const void *buf, size_t len,
    struct leak_findings *out, char *err, size_t errlen)
{
	struct layer root = { .len = len };
	const uint8_t *p = buf;

	sc->nc = 0;
	sc->capped = false;
	sc->failed = 0;
	sc->errmsg[0] = '\0';
	if (len == 0)
		return 0;
	if (scan_layer(sc, p, len, &root, 0) != 0 || sc->failed)
		return axg_seterr(err, errlen, "%s",
		    sc->errmsg[0] ? sc->errmsg : "scan failed");
	return emit_findings(sc, p, len, out);
}
