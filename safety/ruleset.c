/*
 * ruleset.c: compiling rules into an immutable rule set: PCRE2 with JIT for
 * each rule, one keyword automaton for all of them.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

#define DEFAULT_BEFORE 64
#define DEFAULT_AFTER  256
#define WINDOW_MAX     16384

/* Limits that keep a hostile user pattern from running away. */
#define RE_MATCH_LIMIT 200000
#define RE_DEPTH_LIMIT 2000
#define RE_HEAP_LIMIT  4096 /* KiB */
#define RE_MAX_LEN     4096

/* Placeholders that are never a secret: documented examples, template
 * references and masked values. */
static const char placeholder_re[] =
    "(?i)example|x{5,}|\\*{3,}|\\.{3,}|\\$\\{|\\{\\{|<[a-z_\\- ]+>|%\\("
    "|\\byour[_\\-]|_here\\b|placeholder|redacted|changeme|\\bdummy\\b"
    "|^(?:x+|0+|a+|1234.*|abcd.*|null|none|nil|true|false|undefined"
    "|secret\\d{0,3}|password\\d{0,3}|passwd|token|test\\d{0,3}|string|value"
    "|empty|hunter2)$";

/* What every rule set of the process shares: the compiled code of the
 * built-in rules (compiled on first use, never freed) and the placeholder
 * allowlist.  A YAML rule file or a fuzzer making rule set after rule set
 * compiles each built-in regex once. */
static struct leak_rule_code *shared_code;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static pcre2_code *shared_placeholder;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static pcre2_code *compile_re(const char *re, uint32_t options, bool jit,
    const char *id, const char *what, char *err, size_t errlen);

static void
shared_init(void)
{
	char err[256];

	shared_code =
	    axg_calloc(leak_builtin_rules_count + 1, sizeof(*shared_code));
	shared_placeholder = compile_re(placeholder_re, 0, true,
	    "(placeholders)", "regex", err, sizeof(err));
	if (shared_placeholder == NULL)
		axg_fatal(1, "%s", err); /* a constant pattern: a build bug */
}

static void
index_free(struct leak_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

static void
rule_clear(struct leak_rule *r)
{
	free(r->id);
	free(r->description);
	if (r->src_owned) {
		free((char *)r->re_src);
		free((char *)r->allow_src);
	}
	memset(r, 0, sizeof(*r));
}

void
leak_ruleset_free(struct leak_ruleset *rs)
{
	if (rs == NULL)
		return;
	for (size_t i = 0; i < rs->nrules; i++) {
		if (rs->code != NULL && rs->rules[i].builtin == 0) {
			pcre2_code_free(atomic_load(&rs->code[i].re));
			pcre2_code_free(atomic_load(&rs->code[i].allow));
		}
		rule_clear(&rs->rules[i]);
	}
	free(rs->rules);
	free(rs->code);
	pthread_mutex_destroy(&rs->compile_lock);
	for (size_t i = 0; i < rs->nkws; i++) {
		free(rs->kws[i].text);
		free(rs->kws[i].rules);
	}
	free(rs->kws);
	index_free(&rs->ids);
	index_free(&rs->kwix);
	leak_ac_free(rs->ac);
	free(rs);
}

static pcre2_code *
compile_re(const char *re, uint32_t options, bool jit, const char *id,
    const char *what, char *err, size_t errlen)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *code;

	code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, options,
	    &ec, &eo, NULL);
	if (code == NULL) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		axg_seterr(err, errlen, "rule %s: %s: %s at offset %zu", id,
		    what, (const char *)msg, (size_t)eo);
		return NULL;
	}
	/* JIT is a speed-up, not a requirement: without it the interpreter
	 * runs under the same limits. */
	if (jit)
		(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	return code;
}

/* Subjects that make backtracking patterns blow up: each is a long run of
 * one seed, a byte that breaks it, and then (or not) every printable byte
 * in descending order, so that a "required byte" check cannot end the
 * match before it backtracks.  Built once. */
static const char *const probe_seeds[] = { "a", "ab", "a1", "a ", "0",
	"a=", "-", "_a", "aA0", "a\n", "A", "aB", " ", "/", "." };
#define PROBE_N	  (2 * AXG_ARRAY_LEN(probe_seeds))
#define PROBE_LEN 1200
static char probe_subj[PROBE_N][PROBE_LEN];
static size_t probe_len[PROBE_N];
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void
probe_init(void)
{
	for (size_t k = 0; k < PROBE_N; k++) {
		const char *seed = probe_seeds[k / 2];
		char *subj = probe_subj[k];
		size_t sl = strlen(seed), n = 0;
		while (n + sl < 1024) {
			memcpy(subj + n, seed, sl);
			n += sl;
		}
		subj[n++] = '!';
		if (k % 2 == 1)
			for (int c = '~'; c >= ' '; c--)
				subj[n++] = (char)c;
		probe_len[k] = n;
	}
}

/* Run a user pattern against the probe subjects; a pattern that hits the
 * match limit is refused. */
static int
probe_catastrophic(pcre2_code *re, const char *id, char *err, size_t errlen)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	int rc = 0;

	pthread_once(&probe_once, probe_init);
	pcre2_set_match_limit(mc, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, RE_HEAP_LIMIT);
	for (size_t k = 0; k < PROBE_N && rc == 0; k++) {
		int m = pcre2_match(re, (PCRE2_SPTR)probe_subj[k], probe_len[k],
		    0, 0, md, mc);
		if (m == PCRE2_ERROR_MATCHLIMIT ||
		    m == PCRE2_ERROR_DEPTHLIMIT || m == PCRE2_ERROR_HEAPLIMIT ||
		    m == PCRE2_ERROR_JIT_STACKLIMIT) {
			PCRE2_UCHAR msg[128];
			pcre2_get_error_message(m, msg, sizeof(msg));
			rc = axg_seterr(err, errlen,
			    "rule %s: regex backtracks catastrophically (%s)",
			    id, (const char *)msg);
		}
	}
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	return rc;
}

/* FNV-1a, with ASCII case folded if fold. */
static uint32_t
str_hash(const char *s, size_t n, bool fold, uint32_t seed)
{
	uint32_t h = 2166136261u ^ seed;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)s[i];
		if (fold && c >= 'A' && c <= 'Z')
			c = (uint8_t)(c + 32);
		h = (h ^ c) * 16777619u;
	}
	return h;
}

static uint32_t
id_hash(const struct leak_ruleset *rs, uint32_t i)
{
	return str_hash(rs->rules[i].id, strlen(rs->rules[i].id), false, 0);
}

static uint32_t
kw_hash(const struct leak_ruleset *rs, uint32_t i)
{
	const struct leak_keyword *k = &rs->kws[i];

	return str_hash(k->text, k->len, true, k->word_start);
}

/* Make room for one more entry in ix (at most half full), rehashing the
 * entries with hash(rs, index). */
static void
index_reserve(struct leak_index *ix, const struct leak_ruleset *rs,
    uint32_t (*hash)(const struct leak_ruleset *, uint32_t))
{
	if (2 * (ix->n + 1) <= ix->cap)
		return;
	size_t cap = ix->cap ? 2 * ix->cap : 64;
	uint32_t *slot = axg_calloc(cap, sizeof(*slot));
	for (size_t i = 0; i < ix->cap; i++) {
		uint32_t v = ix->slot[i];
		if (v == 0)
			continue;
		size_t s = hash(rs, v - 1) & (cap - 1);
		while (slot[s] != 0)
			s = (s + 1) & (cap - 1);
		slot[s] = v;
	}
	free(ix->slot);
	ix->slot = slot;
	ix->cap = cap;
}

/* The slot of id in rs->ids: holding its rule index + 1, or empty. */
static uint32_t *
id_slot(struct leak_ruleset *rs, const char *id)
{
	struct leak_index *ix = &rs->ids;
	size_t s = str_hash(id, strlen(id), false, 0) & (ix->cap - 1);

	while (ix->slot[s] != 0 && strcmp(rs->rules[ix->slot[s] - 1].id, id))
		s = (s + 1) & (ix->cap - 1);
	return &ix->slot[s];
}

static int
add_keyword(struct leak_ruleset *rs, const char *kw, size_t len, uint32_t rule,
    const char *id, char *err, size_t errlen)
{
	bool ws = false;
	struct leak_keyword *k = NULL;
	struct leak_index *ix = &rs->kwix;

	if (len >= 2 && kw[0] == '\\' && kw[1] == 'b') {
		ws = true;
		kw += 2;
		len -= 2;
	}
	if (len < 3 || len > 64)
		return axg_seterr(err, errlen,
		    "rule %s: keyword '%.*s' must be 3 to 64 bytes", id,
		    (int)len, kw);
	index_reserve(ix, rs, kw_hash);
	size_t s = str_hash(kw, len, true, ws) & (ix->cap - 1);
	for (; ix->slot[s] != 0; s = (s + 1) & (ix->cap - 1)) {
		struct leak_keyword *o = &rs->kws[ix->slot[s] - 1];
		if (o->len == len && o->word_start == ws &&
		    axg_strncaseeq(o->text, kw, len)) {
			k = o;
			break;
		}
	}
	if (k == NULL) {
		if (rs->nkws == rs->capkws) {
			rs->capkws = rs->capkws ? 2 * rs->capkws : 64;
			rs->kws = axg_reallocarray(rs->kws, rs->capkws,
			    sizeof(*rs->kws));
		}
		k = &rs->kws[rs->nkws++];
		memset(k, 0, sizeof(*k));
		k->text = axg_strndup(kw, len);
		axg_str_lower(k->text);
		k->len = len;
		k->word_start = ws;
		ix->slot[s] = (uint32_t)rs->nkws;
		ix->n++;
	}
	/* Rules are added in index order: a repeat is the last entry. */
	if (k->nrules > 0 && k->rules[k->nrules - 1] == rule)
		return 0;
	if (k->nrules == k->caprules) {
		k->caprules = k->caprules ? 2 * k->caprules : 4;
		k->rules =
		    axg_reallocarray(k->rules, k->caprules, sizeof(*k->rules));
	}
	k->rules[k->nrules++] = rule;
	return 0;
}

int
leak_ruleset_add(struct leak_ruleset *rs, const char *id, const char *desc,
    const char *const *keywords, size_t nkw, const char *regex, double entropy,
    const char *const *allow, size_t nallow, unsigned flags,
    enum leak_validator v, size_t before, size_t after, bool user, char *err,
    size_t errlen)
{
	struct leak_rule r = { 0 };
	struct axg_buf ab = AXG_BUF_INIT;
	pcre2_code *code = NULL;
	uint32_t idx = (uint32_t)rs->nrules;

	if (rs->nrules >= UINT32_MAX - 1)
		return axg_seterr(err, errlen, "rule %s: too many rules", id);
	index_reserve(&rs->ids, rs, id_hash);
	if (*id_slot(rs, id) != 0)
		return axg_seterr(err, errlen, "rule %s: duplicate id", id);
	if (nkw == 0)
		return axg_seterr(err, errlen, "rule %s: no keywords", id);
	if (user && strlen(regex) > RE_MAX_LEN)
		return axg_seterr(err, errlen,
		    "rule %s: regex longer than %d bytes", id, RE_MAX_LEN);
	if (entropy < 0 || entropy > 8)
		return axg_seterr(err, errlen,
		    "rule %s: entropy must be between 0 and 8", id);
	if (before > WINDOW_MAX || after > WINDOW_MAX)
		return axg_seterr(err, errlen, "rule %s: window over %d bytes",
		    id, WINDOW_MAX);

	r.id = axg_strdup(id);
	r.description = axg_strdup(desc ? desc : id);
	r.entropy = entropy;
	r.flags = flags;
	r.validator = v;
	r.before = before ? before : DEFAULT_BEFORE;
	r.after = after ? after : DEFAULT_AFTER;
	r.priority = (flags & LEAK_RF_GENERIC) ? 1 : 2;
	r.value_min = LEAK_ASSIGN_VALUE_MIN;
	/* Anchored at the keyword unless the rule searches a window; the
	 * anchoring is compiled in, which JIT supports (PCRE2_ANCHORED at
	 * match time would fall back to the interpreter). */
	if (user)
		r.flags |= LEAK_RF_WINDOW;
	r.re_options = (r.flags & LEAK_RF_WINDOW) ? 0 : PCRE2_ANCHORED;
	if (nallow > 0) {
		axg_buf_init(&ab, 0);
		for (size_t i = 0; i < nallow; i++)
			axg_buf_printf(&ab, "%s(?:%s)", i ? "|" : "", allow[i]);
	}
	if (user) {
		/* User rules are checked now, without JIT: a bad regex or
		 * one that backtracks catastrophically is refused at load
		 * with the rule id; the JIT code is made on first use. */
		r.src_owned = true;
		r.re_src = axg_strdup(regex);
		r.allow_src = nallow > 0 ? axg_strdup(ab.data) : NULL;
		code = compile_re(regex, r.re_options, false, id, "regex", err,
		    errlen);
		if (code == NULL ||
		    probe_catastrophic(code, id, err, errlen) < 0)
			goto fail;
		pcre2_code_free(code);
		code = NULL;
		if (r.allow_src != NULL) {
			code = compile_re(r.allow_src, 0, false, id,
			    "allowlist", err, errlen);
			if (code == NULL ||
			    probe_catastrophic(code, id, err, errlen) < 0)
				goto fail;
			pcre2_code_free(code);
			code = NULL;
		}
	} else {
		/* Built-in rules are known good (a test compiles each):
		 * their sources are static and compiled on first use. */
		r.re_src = regex;
		r.allow_src = nallow > 0 ? allow[0] : NULL;
	}
	for (size_t i = 0; i < nkw; i++)
		if (add_keyword(rs, keywords[i], strlen(keywords[i]), idx, id,
			err, errlen) < 0)
			goto fail;
	if (rs->nrules == rs->caprules) {
		rs->caprules = rs->caprules ? 2 * rs->caprules : 64;
		rs->rules = axg_reallocarray(rs->rules, rs->caprules,
		    sizeof(*rs->rules));
	}
	rs->rules[rs->nrules++] = r;
	*id_slot(rs, r.id) = (uint32_t)rs->nrules;
	rs->ids.n++;
	axg_buf_free(&ab);
	return 0;
fail:
	/* Keywords already added point at idx; drop those references. */
	for (size_t i = 0; i < rs->nkws; i++)
		if (rs->kws[i].nrules > 0 &&
		    rs->kws[i].rules[rs->kws[i].nrules - 1] == idx)
			rs->kws[i].nrules--;
	axg_buf_free(&ab);
	pcre2_code_free(code);
	rule_clear(&r);
	return -1;
}

static int
add_builtin(struct leak_ruleset *rs, const struct leak_rule_def *d, char *err,
    size_t errlen)
{
	const char *kws[32];
	char *copy = axg_strdup(d->keywords);
	size_t n = 0;
	int rc;
	const char *allow[1] = { d->allow };
	uint32_t idx = (uint32_t)rs->nrules;

	for (char *p = copy, *bar; p != NULL && n < AXG_ARRAY_LEN(kws);
	     p = bar ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		if (bar != NULL)
			*bar = '\0';
		kws[n++] = p;
	}
	rc = leak_ruleset_add(rs, d->id, d->description, kws, n, d->regex,
	    d->entropy, allow, d->allow ? 1 : 0, d->flags, d->validator,
	    d->before, d->after, false, err, errlen);
	if (rc == 0) {
		rs->rules[idx].builtin = (uint32_t)(d - leak_builtin_rules) + 1;
		if (d->value_min > 0)
			rs->rules[idx].value_min = d->value_min;
		rs->rules[idx].pre = d->pre;
	}
	free(copy);
	return rc;
}

struct leak_ruleset *
leak_ruleset_finish(struct leak_ruleset *rs, char *err, size_t errlen)
{
	struct leak_ac_pattern *pats;

	/* The indexes serve only the adding of rules. */
	index_free(&rs->ids);
	index_free(&rs->kwix);
	pats = axg_calloc(rs->nkws ? rs->nkws : 1, sizeof(*pats));
	for (size_t i = 0; i < rs->nkws; i++) {
		pats[i].bytes = rs->kws[i].text;
		pats[i].len = rs->kws[i].len;
		pats[i].id = (uint32_t)i;
	}
	rs->ac = leak_ac_new(pats, rs->nkws);
	free(pats);
	for (size_t i = 0; i < rs->nkws; i++) {
		struct leak_keyword *k = &rs->kws[i];
		size_t least = SIZE_MAX;
		for (size_t j = 0; j < k->nrules; j++) {
			const struct leak_rule *r = &rs->rules[k->rules[j]];
			if ((r->flags & (LEAK_RF_ASSIGN | LEAK_RF_WINDOW)) !=
			    LEAK_RF_ASSIGN)
				least = 0;
			else if (r->value_min < least)
				least = r->value_min;
		}
		k->assign_min = least == SIZE_MAX ? 0 : least;
	}
	rs->code = axg_calloc(rs->nrules ? rs->nrules : 1, sizeof(*rs->code));
	(void)err;
	(void)errlen;
	pthread_once(&shared_once, shared_init);
	rs->placeholder = shared_placeholder;
	return rs;
}

struct leak_ruleset *
leak_ruleset_alloc(void)
{
	struct leak_ruleset *rs = axg_calloc(1, sizeof(*rs));

	pthread_mutex_init(&rs->compile_lock, NULL);
	return rs;
}

struct leak_ruleset *
leak_ruleset_new_yaml(const char *yaml, size_t len, const char *name, char *err,
    size_t errlen)
{
	struct leak_ruleset *rs = leak_ruleset_alloc();

	for (size_t i = 0; i < leak_builtin_rules_count; i++)
		if (add_builtin(rs, &leak_builtin_rules[i], err, errlen) < 0)
			goto fail;
	if (yaml != NULL &&
	    leak_rules_yaml_load(rs, yaml, len, name ? name : "(rules)", err,
		errlen) < 0)
		goto fail;
	return leak_ruleset_finish(rs, err, errlen);
fail:
	leak_ruleset_free(rs);
	return NULL;
}

struct leak_ruleset *
leak_ruleset_new(const char *rules_path, char *err, size_t errlen)
{
	struct leak_ruleset *rs;
	char *text = NULL;
	size_t len = 0;

	if (rules_path != NULL) {
		text = axg_read_file(rules_path, LEAK_RULES_FILE_MAX, &len, err,
		    errlen);
		if (text == NULL)
			return NULL;
	}
	rs = leak_ruleset_new_yaml(text, len, rules_path, err, errlen);
	free(text);
	return rs;
}

const struct leak_rule_code *
leak_rule_code(const struct leak_ruleset *rs, size_t i, char *err,
    size_t errlen)
{
	const struct leak_rule *r = &rs->rules[i];
	struct leak_rule_code *c =
	    r->builtin ? &shared_code[r->builtin - 1] : &rs->code[i];
	pcre2_code *re = NULL, *allow = NULL;
	int st = atomic_load_explicit(&c->state, memory_order_acquire);

	if (__builtin_expect(st == 1, 1))
		return c;
	/* The lock only serialises the first compilation; the rule set is
	 * otherwise read-only, so the cast is confined to this. */
	pthread_mutex_t *lock =
	    r->builtin ? &shared_lock : (pthread_mutex_t *)&rs->compile_lock;
	pthread_mutex_lock(lock);
	st = atomic_load_explicit(&c->state, memory_order_relaxed);
	if (st == 0) {
		re = compile_re(r->re_src, r->re_options, true, r->id, "regex",
		    err, errlen);
		if (re != NULL && r->allow_src != NULL)
			allow = compile_re(r->allow_src, 0, true, r->id,
			    "allowlist", err, errlen);
		if (re == NULL || (r->allow_src != NULL && allow == NULL)) {
			pcre2_code_free(re);
			st = -1;
		} else {
			atomic_store_explicit(&c->re, re, memory_order_relaxed);
			atomic_store_explicit(&c->allow, allow,
			    memory_order_relaxed);
			st = 1;
		}
		atomic_store_explicit(&c->state, st, memory_order_release);
	} else if (st < 0) {
		axg_seterr(err, errlen, "rule %s: regex does not compile",
		    r->id);
	}
	pthread_mutex_unlock(lock);
	return st == 1 ? c : NULL;
}

int
leak_rule_state(const struct leak_ruleset *rs, size_t i)
{
	const struct leak_rule *r = &rs->rules[i];
	const struct leak_rule_code *c =
	    r->builtin ? &shared_code[r->builtin - 1] : &rs->code[i];

	return atomic_load_explicit(&c->state, memory_order_acquire);
}

int
leak_ruleset_compile_all(const struct leak_ruleset *rs, char *err,
    size_t errlen)
{
	for (size_t i = 0; i < rs->nrules; i++)
		if (leak_rule_code(rs, i, err, errlen) == NULL)
			return -1;
	return 0;
}

size_t
leak_ruleset_count(const struct leak_ruleset *rs)
{
	return rs->nrules;
}

const char *
leak_ruleset_rule_id(const struct leak_ruleset *rs, size_t i)
{
	return i < rs->nrules ? rs->rules[i].id : NULL;
}

const char *
leak_ruleset_rule_description(const struct leak_ruleset *rs, size_t i)
{
	return i < rs->nrules ? rs->rules[i].description : NULL;
}
