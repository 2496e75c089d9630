/*
 * t-safety-corpus.c: precision and recall of the built-in rules on the
 * labelled corpus in tests/data/leaks/.
 *
 * positives.txt: "rule-id<TAB>line" per case; negatives.txt: one line per
 * case that must stay quiet.  Lines are templates, so no real-looking key
 * sits in the repository: the secrets are generated at run time from a
 * fixed seed (one per line), which keeps the run reproducible.
 *
 *   @{alnum:N} @{hex:N} @{HEX:N} @{upper:N} @{b32:N} @{lower:N}
 *   @{digits:N} @{b64:N} @{url:N} @{alpha:N} @{bech32:N}
 *                                   N random bytes of that alphabet
 *   @{uuid:}                        a random UUID
 *   @{S:TEXT}                       TEXT is the secret (its span is checked)
 *   @{b64e:TEXT} @{b64u:TEXT}       base64 / base64url of TEXT
 *   @{hexe:TEXT} @{HEXE:TEXT}       lower / upper-case hex of TEXT
 *   @{pct:TEXT}                     percent-encode every byte but [A-Za-z]
 *   @{json:TEXT}                    JSON-escape ('/' as \/, others \u00XX)
 *   @{nl:}                          a newline
 *   @{pem:LABEL}                    a PEM block of that label, 20 lines
 *
 * A positive counts as found when a finding overlaps its secret, and as
 * found by its rule when that finding has the expected id.  Every other
 * finding, on either file, is a false positive.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"
#include "safety/safety.h"
#include "tests/tap.h"

static uint64_t rng;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *
alphabet(const char *kind)
{
	static const struct {
		const char *k, *a;
	} t[] = {
		{ "alnum",
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz012345"
		    "6789" },
		{ "alpha",
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" },
		{ "bech32", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" },
		{ "hex", "0123456789abcdef" },
		{ "HEX", "0123456789ABCDEF" },
		{ "upper", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" },
		{ "b32", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" },
		{ "lower", "abcdefghijklmnopqrstuvwxyz0123456789" },
		{ "digits", "0123456789" },
		{ "b64",
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz012345"
		    "6789"
		    "+/" },
		{ "url",
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz012345"
		    "6789"
		    "_-" },
	};
	for (size_t i = 0; i < AXG_ARRAY_LEN(t); i++)
		if (strcmp(t[i].k, kind) == 0)
			return t[i].a;
	return NULL;
}

static void
put_random(struct axg_buf *out, const char *a, size_t n)
{
	size_t al = strlen(a);
	for (size_t i = 0; i < n; i++)
		axg_buf_putc(out, a[next_rand() % al]);
}

static void
b64enc(struct axg_buf *out, const char *p, size_t n, bool url)
{
	const char *a = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
			      "vwxyz0123456789-_"
			    : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
			      "vwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(uint8_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)(uint8_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= (uint8_t)p[i + 2];
		axg_buf_putc(out, a[(v >> 18) & 63]);
		axg_buf_putc(out, a[(v >> 12) & 63]);
		if (i + 1 < n)
			axg_buf_putc(out, a[(v >> 6) & 63]);
		else if (!url)
			axg_buf_putc(out, '=');
		if (i + 2 < n)
			axg_buf_putc(out, a[v & 63]);
		else if (!url)
			axg_buf_putc(out, '=');
	}
}

struct span {
	size_t s, e;
	bool set;
};

/* Expand the template at *pp into out, up to an unmatched '}' or NUL. */
static void
expand(const char **pp, struct axg_buf *out, struct span *sp)
{
	const char *p = *pp;

	while (*p != '\0' && *p != '}') {
		if (p[0] != '@' || p[1] != '{') {
			axg_buf_putc(out, *p++);
			continue;
		}
		p += 2;
		const char *colon = strchr(p, ':');
		if (colon == NULL) {
			axg_buf_puts(out, "@{");
			continue;
		}
		char kind[16];
		axg_strlcpy(kind, p,
		    (size_t)(colon - p) + 1 < sizeof(kind)
			? (size_t)(colon - p) + 1
			: sizeof(kind));
		p = colon + 1;
		struct axg_buf arg = AXG_BUF_INIT;
		axg_buf_init(&arg, 0);
		size_t at = out->len;
		struct span inner = { 0 };
		expand(&p, &arg, &inner);
		if (*p == '}')
			p++;
		const char *a = alphabet(kind);
		if (a != NULL) {
			uint64_t n = 0;
			axg_parse_u64(arg.data ? arg.data : "0", 0, 100000, &n);
			put_random(out, a, (size_t)n);
		} else if (strcmp(kind, "uuid") == 0) {
			put_random(out, "0123456789abcdef", 8);
			axg_buf_putc(out, '-');
			put_random(out, "0123456789abcdef", 4);
			axg_buf_puts(out, "-4");
			put_random(out, "0123456789abcdef", 3);
			axg_buf_putc(out, '-');
			axg_buf_putc(out, "89ab"[next_rand() % 4]);
			put_random(out, "0123456789abcdef", 3);
			axg_buf_putc(out, '-');
			put_random(out, "0123456789abcdef", 12);
		} else if (strcmp(kind, "S") == 0) {
			axg_buf_append(out, arg.data, arg.len);
			sp->s = at;
			sp->e = out->len;
			sp->set = true;
		} else if (strcmp(kind, "b64e") == 0 ||
		    strcmp(kind, "b64u") == 0) {
			b64enc(out, arg.data, arg.len, kind[3] == 'u');
		} else if (strcmp(kind, "hexe") == 0 ||
		    strcmp(kind, "HEXE") == 0) {
			for (size_t i = 0; i < arg.len; i++)
				axg_buf_printf(out,
				    kind[0] == 'h' ? "%02x" : "%02X",
				    (unsigned char)arg.data[i]);
		} else if (strcmp(kind, "pct") == 0) {
			for (size_t i = 0; i < arg.len; i++) {
				unsigned char c = (unsigned char)arg.data[i];
				if ((c >= 'a' && c <= 'z') ||
				    (c >= 'A' && c <= 'Z'))
					axg_buf_putc(out, (char)c);
				else
					axg_buf_printf(out, "%%%02X", c);
			}
		} else if (strcmp(kind, "json") == 0) {
			for (size_t i = 0; i < arg.len; i++) {
				unsigned char c = (unsigned char)arg.data[i];
				if (c == '/')
					axg_buf_puts(out, "\\/");
				else if (c == '\n')
					axg_buf_puts(out, "\\n");
				else if (c == '"' || c == '\\' || i % 5 == 2)
					axg_buf_printf(out, "\\u%04x", c);
				else
					axg_buf_putc(out, (char)c);
			}
		} else if (strcmp(kind, "nl") == 0) {
			axg_buf_putc(out, '\n');
		} else if (strcmp(kind, "pem") == 0) {
			axg_buf_printf(out, "-----BEGIN %s-----\n", arg.data);
			for (int l = 0; l < 20; l++) {
				put_random(out, alphabet("b64"), 64);
				axg_buf_putc(out, '\n');
			}
			put_random(out, alphabet("b64"), 20);
			axg_buf_printf(out, "==\n-----END %s-----", arg.data);
		} else {
			axg_buf_printf(out, "@{%s:%s}", kind, arg.data);
		}
		if (inner.set && !sp->set && strcmp(kind, "S") != 0) {
			/* A secret inside an encoding: the whole encoded
			 * text is the span. */
			sp->s = at;
			sp->e = out->len;
			sp->set = true;
		}
		axg_buf_free(&arg);
	}
	*pp = p;
}

struct stats {
	size_t pos, found, exact, neg, fp;
	uint64_t digest; /* of every finding, in order */
};

static void
digest(uint64_t *h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ULL;
}

static void
run_file(struct leak_scan *sc, const char *path, bool positive,
    struct stats *st)
{
	char err[256];
	size_t len;
	char *text = axg_read_file(path, 8 << 20, &len, err, sizeof(err));
	struct leak_findings f;
	size_t lineno = 0;

	if (text == NULL) {
		ok(0, "read %s: %s", path, err);
		return;
	}
	leak_findings_init(&f);
	for (char *line = text, *nl; line != NULL && *line != '\0';
	     line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		lineno++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		const char *want = NULL, *tpl = line;
		char idbuf[80];
		if (positive) {
			char *tab = strchr(line, '\t');
			if (tab == NULL) {
				tap_diag("%s:%zu: no tab", path, lineno);
				continue;
			}
			axg_strlcpy(idbuf, line,
			    (size_t)(tab - line) + 1 < sizeof(idbuf)
				? (size_t)(tab - line) + 1
				: sizeof(idbuf));
			want = idbuf;
			tpl = tab + 1;
		}
		rng = 0x9e3779b97f4a7c15ULL ^ (lineno * 0x100000001b3ULL) ^
		    (positive ? 1 : 2);
		struct axg_buf in = AXG_BUF_INIT;
		struct span sp = { 0 };
		const char *p = tpl;
		axg_buf_init(&in, 0);
		while (*p != '\0') {
			expand(&p, &in, &sp);
			if (*p == '}')
				axg_buf_putc(&in, *p++);
		}
		if (!sp.set) {
			sp.s = 0;
			sp.e = in.len;
		}
		leak_findings_reset(&f);
		if (leak_scan_buffer(sc, in.data, in.len, &f, err,
			sizeof(err)) < 0)
			tap_diag("%s:%zu: scan failed: %s", path, lineno, err);
		bool found = false, exact = false;
		for (size_t i = 0; i < f.n; i++) {
			const struct leak_finding *x = &f.v[i];
			digest(&st->digest, &lineno, sizeof(lineno));
			digest(&st->digest, x->rule_id, strlen(x->rule_id));
			digest(&st->digest, &x->offset, sizeof(x->offset));
			digest(&st->digest, &x->length, sizeof(x->length));
			digest(&st->digest, &x->encoding, sizeof(x->encoding));
			bool over = positive && x->offset < sp.e &&
			    sp.s < x->offset + x->length;
			if (over) {
				found = true;
				if (strcmp(x->rule_id, want) == 0)
					exact = true;
			} else {
				st->fp++;
				tap_diag("FP %s:%zu: %s at %llu+%llu: %.*s",
				    path, lineno, x->rule_id,
				    (unsigned long long)x->offset,
				    (unsigned long long)x->length,
				    (int)(x->length < 60 ? x->length : 60),
				    in.data + x->offset);
			}
		}
		if (positive) {
			st->pos++;
			st->found += found;
			st->exact += exact;
			if (!found)
				tap_diag("MISS %s:%zu: want %s: %s", path,
				    lineno, want, in.data);
			else if (!exact)
				tap_diag("OTHER %s:%zu: want %s, got %s", path,
				    lineno, want, f.v[0].rule_id);
		} else {
			st->neg++;
		}
		axg_buf_free(&in);
	}
	leak_findings_free(&f);
	free(text);
}

int
main(void)
{
	const char *top = getenv("top_srcdir");
	char err[256], pos[4096], neg[4096];
	struct stats st = { 0 };
	struct leak_ruleset *rs;
	struct leak_scan *sc;

	snprintf(pos, sizeof(pos), "%s/tests/data/leaks/positives.txt",
	    top ? top : ".");
	snprintf(neg, sizeof(neg), "%s/tests/data/leaks/negatives.txt",
	    top ? top : ".");
	rs = leak_ruleset_new(NULL, err, sizeof(err));
	if (!ok(rs != NULL, "built-in rules compile"))
		return tap_done();
	sc = leak_scan_new(rs, err, sizeof(err));
	run_file(sc, pos, true, &st);
	run_file(sc, neg, false, &st);

	double recall = st.pos ? 100.0 * (double)st.found / (double)st.pos : 0;
	double exact = st.pos ? 100.0 * (double)st.exact / (double)st.pos : 0;
	double precision = st.found + st.fp
	    ? 100.0 * (double)st.found / (double)(st.found + st.fp)
	    : 0;
	printf("# safety corpus: %zu positives, %zu negatives: recall %.2f%% "
	       "(rule id exact %.2f%%), precision %.2f%%, %zu false "
	       "positives\n",
	    st.pos, st.neg, recall, exact, precision, st.fp);
	ok(st.pos >= 300, "at least 300 positives (%zu)", st.pos);
	ok(st.neg >= 200, "at least 200 negatives (%zu)", st.neg);
	ok(recall >= 98.0, "recall %.2f%% >= 98%%", recall);
	ok(precision >= 99.0, "precision %.2f%% >= 99%%", precision);
	ok(exact >= 90.0, "rule ids right for %.2f%% >= 90%%", exact);

	/* The scalar prefilter finds exactly the same, and so does the
	 * AVX2 one where the default is AVX-512 (where the CPU has no AVX2
	 * that is the scalar one again). */
	static const struct {
		bool simd, avx512;
		const char *name;
	} paths[] = { { false, false, "scalar" }, { true, false, "AVX2" } };
	for (size_t i = 0; i < AXG_ARRAY_LEN(paths); i++) {
		struct stats s2 = { 0 };
		leak_ac_set_simd(rs->ac, paths[i].simd);
		leak_ac_set_avx512(rs->ac, paths[i].avx512);
		run_file(sc, pos, true, &s2);
		run_file(sc, neg, false, &s2);
		ok(s2.digest == st.digest && s2.found == st.found &&
			s2.exact == st.exact && s2.fp == st.fp,
		    "the %s prefilter gives the same findings", paths[i].name);
	}
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return tap_done();
}
