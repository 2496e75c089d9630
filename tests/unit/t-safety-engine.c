/*
 * t-safety-engine.c: the scanner's internals: the keyword prefilter (SIMD
 * and scalar filters report exactly the occurrences a naive search finds,
 * in the same order), whole scans with each filter (the same findings on
 * random text and on the corpus) and the rules' compilation on first use
 * (every built-in rule compiles, once per process; threads racing to
 * compile the same rules agree on the findings).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"
#include "safety/safety.h"
#include "tests/rnd.h"
#include "tests/tap.h"

struct hits {
	size_t *end;
	uint32_t *id;
	size_t n, cap;
};

static int
record(size_t end, uint32_t id, void *arg)
{
	struct hits *h = arg;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->end = axg_reallocarray(h->end, h->cap, sizeof(*h->end));
		h->id = axg_reallocarray(h->id, h->cap, sizeof(*h->id));
	}
	h->end[h->n] = end;
	h->id[h->n++] = id;
	return 0;
}

static int
stop_at_first(size_t end, uint32_t id, void *arg)
{
	(void)end;
	(void)id;
	(*(int *)arg)++;
	return 7;
}

static void
hits_free(struct hits *h)
{
	free(h->end);
	free(h->id);
	memset(h, 0, sizeof(*h));
}

/* Every (end, id) pair, sorted, as the naive search finds them. */
static int
cmp_pair(const void *a, const void *b)
{
	const size_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static size_t *
sorted_pairs(const struct hits *h)
{
	size_t *v = axg_calloc(2 * (h->n ? h->n : 1), sizeof(*v));

	for (size_t i = 0; i < h->n; i++) {
		v[2 * i] = h->end[i];
		v[2 * i + 1] = h->id[i];
	}
	qsort(v, h->n, 2 * sizeof(*v), cmp_pair);
	return v;
}

static void
test_prefilter(void)
{
	static const char *const kws[] = { "key", "ghp_", "AKIA", "password",
		"sk-", "xoxb-", "-----begin", "datadog", "eyj", "aaa", "a_b",
		"@@@", "~~~", "zzzzzzzzzzzzzzzzzzzzzzzzzz" };
	struct leak_ac_pattern pats[AXG_ARRAY_LEN(kws)];
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
				    "NOPQRSTUVWXYZ0123456789_-@~ \n\"=:";
	size_t lens[] = { 0, 1, 2, 3, 5, 11, 12, 15, 16, 31, 32, 33, 47, 64, 69,
		70, 71, 134, 135, 100, 1000, 4099, 65537 };
	bool all_same = true, all_naive = true, all_order = true;

	for (size_t i = 0; i < AXG_ARRAY_LEN(kws); i++) {
		char *lower = axg_strdup(kws[i]);
		axg_str_lower(lower);
		pats[i] = (struct leak_ac_pattern){ lower, strlen(lower),
			(uint32_t)i };
	}
	struct leak_ac *ac = leak_ac_new(pats, AXG_ARRAY_LEN(kws));

	for (size_t li = 0; li < AXG_ARRAY_LEN(lens); li++) {
		size_t n = lens[li];
		/* Exact size, so that a read past the end trips ASan. */
		uint8_t *p = axg_malloc(n ? n : 1);
		for (size_t i = 0; i < n; i++)
			p[i] = (uint8_t)alpha[rnd() % (sizeof(alpha) - 1)];
		/* Plant keywords, in mixed case, at every alignment, and one
		 * flush against the end. */
		for (size_t i = 0; n > 0 && i < n / 7 + 1; i++) {
			const char *k = kws[rnd() % AXG_ARRAY_LEN(kws)];
			size_t kl = strlen(k), at = rnd() % n;
			if (i == 0)
				at = n >= kl ? n - kl : 0;
			for (size_t j = 0; j < kl && at + j < n; j++)
				p[at + j] = (uint8_t)((rnd() & 1) &&
					    k[j] >= 'a' && k[j] <= 'z'
					? k[j] - 32
					: k[j]);
		}
		struct hits hs = { 0 }, hv = { 0 }, hn = { 0 }, h2 = { 0 };
		leak_ac_set_simd(ac, false);
		leak_ac_scan(ac, p, n, record, &hs);
		leak_ac_set_simd(ac, true);
		leak_ac_set_avx512(ac, false);
		leak_ac_scan(ac, p, n, record, &h2);
		leak_ac_set_simd(ac, true);
		leak_ac_scan(ac, p, n, record, &hv);
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < AXG_ARRAY_LEN(kws); k++)
				if (i + pats[k].len <= n &&
				    axg_strncaseeq((const char *)p + i,
					pats[k].bytes, pats[k].len))
					record(i + pats[k].len, (uint32_t)k,
					    &hn);
		if (hs.n != hv.n || hs.n != h2.n ||
		    (hs.n > 0 &&
			(memcmp(hs.end, hv.end, hs.n * sizeof(*hs.end)) != 0 ||
			    memcmp(hs.id, hv.id, hs.n * sizeof(*hs.id)) != 0 ||
			    memcmp(hs.end, h2.end, hs.n * sizeof(*hs.end)) !=
				0 ||
			    memcmp(hs.id, h2.id, hs.n * sizeof(*hs.id)) != 0)))
			all_same = false;
		size_t *a = sorted_pairs(&hs), *b = sorted_pairs(&hn);
		if (hs.n != hn.n ||
		    (hs.n > 0 && memcmp(a, b, 2 * hs.n * sizeof(*a)) != 0)) {
			tap_diag("length %zu: filter %zu hits, naive %zu", n,
			    hs.n, hn.n);
			all_naive = false;
		}
		/* Reported by the position of the keyword's window: the
		 * keyword starts never go back by more than a keyword. */
		for (size_t i = 1; i < hv.n; i++)
			if (hv.end[i] + 64 < hv.end[i - 1])
				all_order = false;
		free(a);
		free(b);
		hits_free(&hs);
		hits_free(&hv);
		hits_free(&hn);
		hits_free(&h2);
		free(p);
	}
	ok(all_same,
	    "SIMD (AVX-512 where there is, and AVX2) and scalar filters "
	    "report the same hits in order");
	ok(all_naive, "the filter finds exactly the naive search's hits");
	ok(all_order, "hits come in position order");

	/* A callback's non-zero return stops the scan at once. */
	char text[200];
	memset(text, ' ', sizeof(text));
	memcpy(text + 40, "key", 3);
	memcpy(text + 120, "key", 3);
	for (int simd = 0; simd < 3; simd++) {
		int calls = 0;
		leak_ac_set_simd(ac, simd != 0);
		leak_ac_set_avx512(ac, simd == 2);
		int rc = leak_ac_scan(ac, (const uint8_t *)text, sizeof(text),
		    stop_at_first, &calls);
		ok(rc == 7 && calls == 1, "stop at the first hit (%s)",
		    simd == 2  ? "AVX-512"
			: simd ? "AVX2"
			       : "scalar");
	}
	leak_ac_set_simd(ac, true);
	leak_ac_free(ac);
	for (size_t i = 0; i < AXG_ARRAY_LEN(kws); i++)
		free((char *)pats[i].bytes);
}

struct stopper {
	size_t calls, stop_at;
	size_t last_end;
};

static int
stop_at_nth(size_t end, uint32_t id, void *arg)
{
	struct stopper *st = arg;

	(void)id;
	st->last_end = end;
	return ++st->calls == st->stop_at ? 7 : 0;
}

/* The filter's pair hash gives every two pairs of letters and digits
 * (case folded) their own entries, so on text of letters and digits it
 * lets a keyword end only after a pair that ends some keyword. */
static void
test_prefilter_pairs(void)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	enum { NKW = 64, N = 1 << 18 };
	struct leak_ac_pattern pats[NKW];
	char kw[NKW][9];
	static bool last[256][256];
	size_t passed = 0, stray = 0;

	memset(last, 0, sizeof(last));
	for (size_t i = 0; i < NKW; i++) {
		size_t len = 3 + i % 6;
		for (size_t j = 0; j < len; j++)
			kw[i][j] = alnum[rnd() % (sizeof(alnum) - 1)];
		kw[i][len] = '\0';
		pats[i] = (struct leak_ac_pattern){ kw[i], len, (uint32_t)i };
		last[(uint8_t)kw[i][len - 2]][(uint8_t)kw[i][len - 1]] = true;
	}
	struct leak_ac *ac = leak_ac_new(pats, NKW);
	uint8_t *p = axg_malloc(N), *out = axg_malloc(N);
	for (size_t i = 0; i < N; i++) {
		char c = alnum[rnd() % (sizeof(alnum) - 1)];
		p[i] = (uint8_t)(c >= 'a' && (rnd() & 1) ? c - 32 : c);
	}
	leak_ac_filter(ac, p, N, out);
	for (size_t e = 2; e < N; e++) {
		if (out[e] == 0)
			continue;
		passed++;
		stray += !last[p[e - 1] | 0x20][p[e] | 0x20];
	}
	ok(passed > 0 && stray == 0,
	    "on letters and digits, the filter passes only ends of a keyword's "
	    "last pair (%zu ends passed, %zu after another pair)",
	    passed, stray);
	free(p);
	free(out);
	leak_ac_free(ac);
}

/* A keyword in every block of 8 ends: the SIMD loops collect the blocks
 * with a candidate and report them in batches, which here fill up many
 * times over.  Every path reports every hit, in order, and a callback
 * that stops the scan deep inside a batch stops it at once. */
static void
test_prefilter_batches(void)
{
	static const char unit[] = "key Token "; /* ends 3 and 9 of 10 */
	const struct leak_ac_pattern pats[] = { { "key", 3, 0 },
		{ "token", 5, 1 } };
	struct leak_ac *ac = leak_ac_new(pats, AXG_ARRAY_LEN(pats));
	size_t n = 10 * 3001, want = 2 * 3001;
	uint8_t *p = axg_malloc(n);
	bool all_found = true, all_stop = true;

	for (size_t i = 0; i < n; i += 10)
		memcpy(p + i, unit, 10);
	for (int simd = 0; simd < 3; simd++) {
		struct hits h = { 0 };
		leak_ac_set_simd(ac, simd != 0);
		leak_ac_set_avx512(ac, simd == 2);
		leak_ac_scan(ac, p, n, record, &h);
		bool good = h.n == want;
		for (size_t i = 0; good && i < h.n; i++)
			good = h.end[i] == 10 * (i / 2) + (i % 2 ? 9 : 3) &&
			    h.id[i] == i % 2;
		all_found = all_found && good;
		hits_free(&h);
		/* Stop at hits in the first batch, deep in a later one, at
		 * a batch's last and at the very last hit. */
		const size_t stops[] = { 1, 2, 100, 777, 1024, 1025, want };
		for (size_t k = 0; k < AXG_ARRAY_LEN(stops); k++) {
			struct stopper st = { 0, stops[k], 0 };
			size_t i = stops[k] - 1;
			int rc = leak_ac_scan(ac, p, n, stop_at_nth, &st);
			if (rc != 7 || st.calls != stops[k] ||
			    st.last_end != 10 * (i / 2) + (i % 2 ? 9 : 3)) {
				tap_diag("path %d, stop %zu: rc %d, %zu calls",
				    simd, stops[k], rc, st.calls);
				all_stop = false;
			}
		}
	}
	leak_ac_set_simd(ac, true);
	ok(all_found,
	    "a hit in every block: every path reports each, in order");
	ok(all_stop,
	    "a callback's non-zero return stops each path at once, "
	    "wherever it falls in a batch");
	free(p);
	leak_ac_free(ac);
}

/* A keyword whose rules all need an assigned value is skipped when too
 * short a value follows it; one that also has a rule without that need
 * is not, nor is one whose assignment rule needs less. */
static void
test_assign_shortcut(void)
{
	char err[256];
	struct leak_ruleset *rs = leak_ruleset_alloc();
	const char *both[] = { "qzkey" }, *only[] = { "qzpat" };
	struct leak_findings f;
	bool good = true;

	good = good &&
	    leak_ruleset_add(rs, "qz-assign", NULL, both, 1,
		"qzkey\\s*=\\s*([a-z0-9]{12,})", 0, NULL, 0, LEAK_RF_ASSIGN,
		LEAK_V_NONE, 0, 0, true, err, sizeof(err)) == 0;
	good = good &&
	    leak_ruleset_add(rs, "qz-dash", NULL, both, 1, "qzkey-([a-z]{4})",
		0, NULL, 0, 0, LEAK_V_NONE, 0, 0, true, err, sizeof(err)) == 0;
	good = good &&
	    leak_ruleset_add(rs, "qz-short", NULL, only, 1,
		"qzpat\\s*=\\s*([a-z0-9]{6,})", 0, NULL, 0, LEAK_RF_ASSIGN,
		LEAK_V_NONE, 0, 0, true, err, sizeof(err)) == 0;
	rs = good ? leak_ruleset_finish(rs, err, sizeof(err)) : rs;
	ok(good && rs != NULL, "rules sharing a keyword load: %s",
	    good ? "" : err);
	if (!good || rs == NULL) {
		leak_ruleset_free(rs);
		return;
	}
	struct leak_scan *sc = leak_scan_new(rs, err, sizeof(err));
	static const struct {
		const char *text, *rule;
	} cases[] = {
		{ "x qzkey-wrtk y", "qz-dash" },
		{ "x qzkey = k3j9x7q2m4v8p6 y", "qz-assign" },
		{ "x qzpat = k3j9x7 y", "qz-short" },
		{ "x qzkey = k3j9x7 y", NULL },
	};
	leak_findings_init(&f);
	for (size_t i = 0; i < AXG_ARRAY_LEN(cases); i++) {
		leak_findings_reset(&f);
		int n = leak_scan_buffer(sc, cases[i].text,
		    strlen(cases[i].text), &f, err, sizeof(err));
		bool want = cases[i].rule != NULL;
		ok(n == (want ? 1 : 0) &&
			(!want || strcmp(f.v[0].rule_id, cases[i].rule) == 0),
		    "\"%s\": %s", cases[i].text,
		    want ? cases[i].rule : "nothing");
	}
	leak_findings_free(&f);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
}

/* ---- compilation on first use ---- */

struct worker {
	const struct leak_ruleset *rs;
	const char *text;
	size_t found;
	int rc;
};

static void *
work(void *arg)
{
	struct worker *w = arg;
	char err[256];
	struct leak_findings f;
	struct leak_scan *sc = leak_scan_new(w->rs, err, sizeof(err));

	leak_findings_init(&f);
	w->rc = sc != NULL ? leak_scan_buffer(sc, w->text, strlen(w->text), &f,
				 err, sizeof(err))
			   : -1;
	w->found = f.n;
	leak_findings_free(&f);
	leak_scan_free(sc);
	return NULL;
}

static void
test_lazy(void)
{
	char err[256];
	struct leak_ruleset *rs = leak_ruleset_new(NULL, err, sizeof(err));
	size_t n;

	ok(rs != NULL, "built-in rules load: %s", rs ? "" : err);
	if (rs == NULL)
		return;
	n = leak_ruleset_count(rs);
	size_t compiled = 0;
	for (size_t i = 0; i < n; i++)
		compiled += leak_rule_state(rs, i) != 0;
	ok(compiled == 0, "no rule is compiled at load (%zu of %zu)", compiled,
	    n);

	/* Every built-in rule compiles (a bad one fails here, not on the
	 * first request that happens to hit its keyword). */
	bool each = true;
	for (size_t i = 0; i < n; i++) {
		err[0] = '\0';
		if (leak_rule_code(rs, i, err, sizeof(err)) == NULL) {
			tap_diag("%s", err);
			each = false;
		}
	}
	ok(each, "every one of the %zu built-in rules compiles", n);
	ok(leak_ruleset_compile_all(rs, err, sizeof(err)) == 0,
	    "compile_all after that is a no-op");

	/* A second rule set (as a YAML file or a fuzzer makes them) shares
	 * the built-in rules' code; its own rules are its own. */
	static const char one_rule[] = "rules:\n"
				       "  - id: own-rule\n"
				       "    keywords: [ownkw]\n"
				       "    regex: 'ownkw_[a-z0-9]{16}'\n";
	struct leak_ruleset *rs2 = leak_ruleset_new_yaml(one_rule,
	    strlen(one_rule), "own.yaml", err, sizeof(err));
	ok(rs2 != NULL, "a rule set with a user rule loads: %s",
	    rs2 ? "" : err);
	if (rs2 != NULL) {
		bool shared = true;
		for (size_t i = 0; i < n; i++) {
			const struct leak_rule_code *a =
			    leak_rule_code(rs, i, err, sizeof(err));
			const struct leak_rule_code *b =
			    leak_rule_code(rs2, i, err, sizeof(err));
			shared = shared && a != NULL && b != NULL &&
			    atomic_load(&a->re) == atomic_load(&b->re);
		}
		ok(shared, "it shares the compiled built-in rules");
		size_t own = leak_ruleset_count(rs2) - 1;
		ok(leak_rule_state(rs2, own) == 0,
		    "its user rule is compiled on first use");
		ok(leak_rule_code(rs2, own, err, sizeof(err)) != NULL &&
			leak_rule_state(rs2, own) == 1,
		    "... and then it is");
	}
	leak_ruleset_free(rs2);
	leak_ruleset_free(rs);

	/* Threads share a fresh rule set and race to compile the same
	 * rules: each finds what one thread alone finds. */
	static const char text[] =
	    "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmn9z\n"
	    "aws_access_key_id=AKIAZ7Q3JX5LM2NV4WPY\n"
	    "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1lMjAyNg==\n"
	    "DATABASE_URL=postgres://app:Vq8rT2xLm9Kp@db:5432/app\n";
	rs = leak_ruleset_new(NULL, err, sizeof(err));
	struct worker one = { rs, text, 0, 0 };
	work(&one);
	leak_ruleset_free(rs);
	rs = leak_ruleset_new(NULL, err, sizeof(err));
	enum { NT = 8 };
	pthread_t th[NT];
	struct worker w[NT];
	for (int i = 0; i < NT; i++) {
		w[i] = (struct worker){ rs, text, 0, 0 };
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	bool same = one.found >= 4;
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		same = same && w[i].rc == (int)one.found &&
		    w[i].found == one.found;
	}
	ok(same, "%d threads compiling on first use find what one does (%zu)",
	    NT, one.found);
	leak_ruleset_free(rs);

	/* A bad user rule is still refused at load, with its id and the
	 * PCRE2 message. */
	static const char bad[] = "rules:\n"
				  "  - id: broken-rule\n"
				  "    keywords: [broken]\n"
				  "    regex: 'broken([a-z'\n";
	rs = leak_ruleset_new_yaml(bad, strlen(bad), "bad.yaml", err,
	    sizeof(err));
	ok(rs == NULL, "a user rule with a bad regex is refused at load");
	like_str(err, "rule broken-rule", "... naming the rule");
	like_str(err, "missing", "... with the PCRE2 error");
	leak_ruleset_free(rs);
}

/* ---- whole scans: the SIMD and scalar filters give the same findings ---- */

static bool
same_findings(const struct leak_findings *a, const struct leak_findings *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].rule_id, b->v[i].rule_id) != 0 ||
		    a->v[i].offset != b->v[i].offset ||
		    a->v[i].length != b->v[i].length ||
		    a->v[i].encoding != b->v[i].encoding)
			return false;
	return true;
}

/* Scan p[0..n) with each filter; true if both agree.  *found: findings. */
static bool
scan_both(struct leak_ruleset *rs, struct leak_scan *sc, const char *p,
    size_t n, size_t *found)
{
	struct leak_findings f[2];
	char err[256];
	bool same;

	for (int simd = 0; simd < 2; simd++) {
		leak_findings_init(&f[simd]);
		leak_ac_set_simd(rs->ac, simd != 0);
		if (leak_scan_buffer(sc, p, n, &f[simd], err, sizeof(err)) < 0)
			tap_diag("scan: %s", err);
	}
	same = same_findings(&f[0], &f[1]);
	*found += f[1].n;
	leak_findings_free(&f[0]);
	leak_findings_free(&f[1]);
	return same;
}

static void
test_scan_paths(void)
{
	static const char *const plant[] = {
		"GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmn9z",
		"aws_access_key_id=AKIAZ7Q3JX5LM2NV4WPY",
		/* hex of "key=AKIAZ7Q3JX5LM2NV4WPY" */
		"6b65793d414b49415a37513358354c4d324e5634575059",
		"Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1lMjAyNg==",
		"password = \"Vq8rT2xLm9Kp\"",
		"%67hp_0123456789abcdefghijABCDEFGHIJklmn9z",
		"token: sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
		"key",
		"token",
		"secret",
		"auth",
		"pass",
		"pat",
		"commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	};
	static const char noise[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
				    "OPQRSTUVWXYZ0123456789_-=:\"' \n{}/.%\\";
	char err[256];
	struct leak_ruleset *rs = leak_ruleset_new(NULL, err, sizeof(err));
	struct leak_scan *sc = rs ? leak_scan_new(rs, err, sizeof(err)) : NULL;
	bool all = true;
	size_t found = 0;

	if (sc == NULL) {
		ok(0, "scanner: %s", err);
		leak_ruleset_free(rs);
		return;
	}
	for (int round = 0; round < 300; round++) {
		size_t n = (size_t)(rnd() % 3000) + 1;
		char *p = axg_malloc(n);
		for (size_t i = 0; i < n; i++)
			p[i] = noise[rnd() % (sizeof(noise) - 1)];
		for (size_t k = 0; k < n / 200 + 1; k++) {
			const char *s = plant[rnd() % AXG_ARRAY_LEN(plant)];
			size_t l = strlen(s), at = rnd() % n;
			memcpy(p + at, s, at + l <= n ? l : n - at);
		}
		all = all && scan_both(rs, sc, p, n, &found);
		free(p);
	}
	ok(all && found > 100,
	    "random text: SIMD and scalar scans find the same (%zu)", found);

	/* The labelled corpus is compared in t-safety-corpus, on the text
	 * its templates generate: the template files themselves hold no
	 * secret, so scanning them compared nothing. */
	leak_ac_set_simd(rs->ac, true);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
}

static void
b64_encode(struct axg_buf *out, const char *s)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
				 "rstuvwxyz0123456789+/";
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(uint8_t)s[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)(uint8_t)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (uint8_t)s[i + 2];
		axg_buf_putc(out, al[v >> 18 & 63]);
		axg_buf_putc(out, al[v >> 12 & 63]);
		axg_buf_putc(out, i + 1 < n ? al[v >> 6 & 63] : '=');
		axg_buf_putc(out, i + 2 < n ? al[v & 63] : '=');
	}
}

/* The base64 run search reads a bit mask of the alphabet (built with SIMD
 * or not) and skips from one run of 24 or more bytes to the next: a run
 * is found at every offset (across the mask's 64-bit words), after short
 * runs, '=' and long identifiers, with the same findings on both paths. */
static void
test_base64_runs(void)
{
	static const char *const before[] = { " ", "\n", "blob=", "x: \"",
		"a_long_identifier_name_in_code ", "ab== ", "k=v;", "(",
		"0123456789abcdef0123456789abcdef0123 ",
		"x==", "?data=", "BLOB=", "a=b&payload=", "aGVsbG8gd29ybGQh=",
		"aGVsbG8gd29ybGQhIHRoaXMgaXMgdGV4dA==" };
	static const char *const filler[] = { "the ", "a=b ", "key ", "==", "x",
		"word_word ", "\n", "abc=", "Zz9 " };
	char err[256];
	struct leak_ruleset *rs = leak_ruleset_new(NULL, err, sizeof(err));
	struct leak_scan *sc = rs ? leak_scan_new(rs, err, sizeof(err)) : NULL;
	struct axg_buf enc = AXG_BUF_INIT, text = AXG_BUF_INIT;
	size_t cases = 0, found = 0;
	bool same = true;

	if (sc == NULL) {
		ok(0, "scanner: %s", err);
		leak_ruleset_free(rs);
		return;
	}
	axg_buf_init(&enc, 0);
	b64_encode(&enc,
	    "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmn9z");
	for (size_t bi = 0; bi < AXG_ARRAY_LEN(before); bi++)
		for (size_t pad = 0; pad < 140; pad++) {
			axg_buf_init(&text, 0);
			while (text.len < pad)
				axg_buf_puts(&text,
				    filler[rnd() % AXG_ARRAY_LEN(filler)]);
			axg_buf_puts(&text, before[bi]);
			size_t off = text.len;
			axg_buf_append(&text, enc.data, enc.len);
			axg_buf_puts(&text, rnd() % 2 ? " done\n" : "");
			struct leak_findings f[2];
			for (int simd = 0; simd < 2; simd++) {
				leak_findings_init(&f[simd]);
				leak_ac_set_simd(rs->ac, simd != 0);
				if (leak_scan_buffer(sc, text.data, text.len,
					&f[simd], err, sizeof(err)) < 0)
					tap_diag("scan: %s", err);
			}
			same = same && same_findings(&f[0], &f[1]);
			/* Whatever precedes the run, "x=" and "x==" too, it
			 * is decoded from its first byte. */
			cases++;
			bool hit = false;
			for (size_t k = 0; k < f[1].n; k++)
				hit = hit ||
				    (f[1].v[k].encoding == LEAK_ENC_BASE64 &&
					f[1].v[k].offset >= off &&
					f[1].v[k].offset + f[1].v[k].length <=
					    off + enc.len);
			if (hit)
				found++;
			else if (found + 1 == cases)
				tap_diag("not found after \"%.*s\"",
				    (int)(off < 60 ? off : 60),
				    text.data + off - (off < 60 ? off : 60));
			leak_findings_free(&f[0]);
			leak_findings_free(&f[1]);
			axg_buf_free(&text);
		}
	ok(same, "base64 runs: SIMD and scalar scans find the same");
	ok(found == cases && cases > 1000,
	    "a base64 secret is found at every offset (%zu of %zu)", found,
	    cases);
	leak_ac_set_simd(rs->ac, true);
	axg_buf_free(&enc);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
}

/* Append one random piece of an assignment-like text to b. */
static void
put_piece(struct axg_buf *b)
{
	static const char *const pieces[] = { "=", ":", ":=", "=>", "->", ">",
		" is ", " ", "  ", "\"", "'", "`", "]", "(", ".", "_", "-",
		"Bearer ", "token ", "\t", "\n", "&", ";", ",", "{", "}", "/",
		"+", "x", "Q", "7", "f", "0", "ab", "Zz", "9c", "e1f", "pat",
		"key", "=\"", "\": \"", "SK", "a.b",
		/* quotes as JSON-escaped text writes them */
		"\\", "\\\"", "=\\\"", "\\\": \\\"", "\\\\\\\"" };

	axg_buf_puts(b, pieces[rnd() % AXG_ARRAY_LEN(pieces)]);
}

/* Rules with a check before the regex (an assignment with a value of
 * value_min bytes, or a precheck): wherever the regex matches at a
 * keyword, the check must pass, else the check loses findings. */
static void
test_prechecks(void)
{
	static const char *const lead[] = { "", " ", "x", "_", "-", "\"", "(",
		"a.", "9" };
	char err[256];
	struct leak_ruleset *rs = leak_ruleset_new(NULL, err, sizeof(err));
	pcre2_match_data *md = pcre2_match_data_create(16, NULL);
	size_t tried = 0, matched = 0, lost = 0;

	if (rs == NULL) {
		ok(0, "rules: %s", err);
		return;
	}
	for (size_t ki = 0; ki < rs->nkws; ki++) {
		const struct leak_keyword *k = &rs->kws[ki];
		for (size_t j = 0; j < k->nrules; j++) {
			const struct leak_rule *r = &rs->rules[k->rules[j]];
			if ((r->flags & LEAK_RF_WINDOW) ||
			    (!(r->flags & LEAK_RF_ASSIGN) && r->pre == NULL))
				continue;
			const struct leak_rule_code *code =
			    leak_rule_code(rs, k->rules[j], err, sizeof(err));
			if (code == NULL) {
				ok(0, "rule %s: %s", r->id, err);
				continue;
			}
			for (int c = 0; c < 4000; c++) {
				struct axg_buf b = AXG_BUF_INIT;
				axg_buf_init(&b, 0);
				axg_buf_puts(&b,
				    lead[rnd() % AXG_ARRAY_LEN(lead)]);
				size_t start = b.len;
				for (size_t i = 0; i < k->len; i++) {
					char ch = k->text[i];
					if (rnd() % 4 == 0 && ch >= 'a' &&
					    ch <= 'z')
						ch = (char)(ch - 32);
					axg_buf_putc(&b, ch);
				}
				size_t end = b.len;
				if (c % 2 == 0) {
					/* A value-like tail: name bytes, an
					 * assignment, then value bytes. */
					for (int i = (int)(rnd() % 5); i > 0;
					     i--)
						put_piece(&b);
					int vl = (int)(rnd() % 20);
					for (int i = 0; i < vl; i++)
						axg_buf_putc(&b,
						    "aZ09._-/+=k"[rnd() % 11]);
				} else if (c % 4 == 1) {
					/* pat<14 alnum>.<64 hex>, give or
					 * take a byte. */
					for (int i = 13 + (int)(rnd() % 3);
					     i > 0; i--)
						axg_buf_putc(&b,
						    "aZ09"[rnd() % 4]);
					axg_buf_putc(&b, '.');
					for (int i = 63 + (int)(rnd() % 3);
					     i > 0; i--)
						axg_buf_putc(&b,
						    "0123456789abcdef"[rnd() %
							16]);
				} else {
					for (int i = (int)(rnd() % 12); i > 0;
					     i--)
						put_piece(&b);
				}
				if (rnd() % 2)
					put_piece(&b);
				const uint8_t *p = (const uint8_t *)b.data;
				size_t n = b.len;
				size_t we =
				    end + r->after < n ? end + r->after : n;
				int rc =
				    pcre2_match(atomic_load_explicit(&code->re,
						    memory_order_relaxed),
					p, we, start, 0, md, NULL);
				tried++;
				if (rc >= 0) {
					matched++;
					bool pass = true;
					if (r->flags & LEAK_RF_ASSIGN)
						pass =
						    leak_assigned_value_len(p,
							n, end) >= r->value_min;
					if (r->pre != NULL)
						pass = pass &&
						    r->pre(p, n, start, end);
					if (!pass && lost++ < 5)
						tap_diag("rule %s: check fails "
							 "where the regex "
							 "matches: %s",
						    r->id, b.data);
				}
				axg_buf_free(&b);
			}
		}
	}
	ok(lost == 0 && matched > 1000,
	    "prechecks pass wherever the regex matches (%zu of %zu texts "
	    "matched, %zu lost)",
	    matched, tried, lost);
	pcre2_match_data_free(md);
	leak_ruleset_free(rs);
}

int
main(void)
{
	test_prefilter();
	test_prefilter_batches();
	test_prefilter_pairs();
	test_lazy(); /* first: it counts the rules compiled so far */
	test_scan_paths();
	test_base64_runs();
	test_prechecks();
	test_assign_shortcut();
	return tap_done();
}
