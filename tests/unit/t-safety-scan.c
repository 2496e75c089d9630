/*
 * t-safety-scan.c: the scanner's API: findings and offsets, previews,
 * redaction, the ignore list, decoding layers, streaming, user rules in
 * YAML and sharing a rule set between threads.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety.h"
#include "tests/tap.h"

static struct leak_ruleset *rs;
static struct leak_scan *sc;

/* A format-valid, obviously synthetic token: prefix + n bytes drawn from
 * a fixed-seed generator. */
static char *
synth(const char *prefix, size_t n, uint32_t seed)
{
	static const char al[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t pl = strlen(prefix);
	char *s = axg_malloc(pl + n + 1);
	uint32_t x = seed * 2654435761u + 1;

	memcpy(s, prefix, pl);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		s[pl + i] = al[x % (sizeof(al) - 1)];
	}
	s[pl + n] = '\0';
	return s;
}

static int
scan(const char *text, size_t len, struct leak_findings *f)
{
	char err[256];

	leak_findings_reset(f);
	return leak_scan_buffer(sc, text, len, f, err, sizeof(err));
}

static void
test_rules(void)
{
	size_t n = leak_ruleset_count(rs), kinds = 0;
	char seen[512][24];

	ok(n >= 150, "at least 150 built-in rules (%zu)", n);
	/* Providers and kinds: the id up to its first '-'. */
	for (size_t i = 0; i < n; i++) {
		char p[24];
		const char *id = leak_ruleset_rule_id(rs, i);
		size_t l = strcspn(id, "-");
		axg_strlcpy(p, id, l + 1 < sizeof(p) ? l + 1 : sizeof(p));
		bool dup = false;
		for (size_t j = 0; j < kinds && !dup; j++)
			dup = strcmp(seen[j], p) == 0;
		if (!dup && kinds < 512)
			axg_strlcpy(seen[kinds++], p, sizeof(seen[0]));
	}
	ok(kinds >= 60, "rules cover at least 60 providers/kinds (%zu)", kinds);
	is_str(leak_ruleset_rule_id(rs, n), NULL, "no rule past the end");
}

static void
test_finding_and_redact(void)
{
	struct leak_findings f;
	char *tok = synth("ghp_", 36, 1);
	char *text = axg_asprintf("GITHUB_TOKEN=%s\nnext line\n", tok);
	size_t outlen;
	char *red;

	leak_findings_init(&f);
	is_int(scan(text, strlen(text), &f), 1, "one finding");
	is_str(f.v[0].rule_id, "github-pat", "rule id");
	is_int(f.v[0].offset, 13, "offset of the secret");
	is_int(f.v[0].length, 40, "length of the secret");
	is_int(f.v[0].encoding, LEAK_ENC_RAW, "found as is");
	ok(strstr(f.v[0].preview, tok + 4) == NULL &&
		strlen(f.v[0].preview) < 16,
	    "preview hides the secret (%s)", f.v[0].preview);
	red = leak_redact(text, strlen(text), &f, &outlen);
	is_str(red, "GITHUB_TOKEN=[REDACTED:github-pat]\nnext line\n",
	    "redaction replaces the secret");
	is_int(outlen, strlen(red), "redacted length");
	free(red);

	/* Several findings, in order; redaction keeps the rest. */
	char *aws = axg_strdup("AKIAQ2TXV3KB7NZRLMWD");
	char *two = axg_asprintf("a=%s b=%s", aws, tok);
	is_int(scan(two, strlen(two), &f), 2, "two findings");
	ok(f.n == 2 && f.v[0].offset < f.v[1].offset, "sorted by offset");
	red = leak_redact(two, strlen(two), &f, &outlen);
	is_str(red, "a=[REDACTED:aws-access-key-id] b=[REDACTED:github-pat]",
	    "both redacted");
	free(red);

	/* Nothing found: redaction copies the input. */
	is_int(scan("hello world", 11, &f), 0, "clean text has no finding");
	red = leak_redact("hello world", 11, &f, &outlen);
	is_str(red, "hello world", "clean text unchanged");
	free(red);
	is_int(scan("", 0, &f), 0, "empty input");

	/* Binary bytes around a secret. */
	char bin[128];
	memset(bin, 0, sizeof(bin));
	memcpy(bin + 50, tok, 40);
	is_int(scan(bin, sizeof(bin), &f), 1, "secret between NUL bytes");
	is_int(f.n ? f.v[0].offset : 0, 50, "at its offset");

	free(aws);
	free(two);
	free(text);
	free(tok);
	leak_findings_free(&f);
}

/* Format fields stand where a template will put a password: a .netrc
 * line with {self.password} is not a leak, the same line with a password
 * is, and so is a brace-quoted password in a connection string. */
static void
test_format_fields(void)
{
	static const char tmpl[] =
	    "machine api.example.com login bob password {self.password}\n";
	static const char real[] =
	    "machine api.example.com login bob password hunter2Xq9Lm\n";
	static const char odbc[] =
	    "Server=db;Uid=sa;Pwd={hunter2Xq9};Database=x\n";
	struct leak_findings f;

	leak_findings_init(&f);
	is_int(scan(tmpl, strlen(tmpl), &f), 0,
	    "netrc: {self.password} is a format field");
	is_int(scan(real, strlen(real), &f), 1, "netrc: a password is found");
	is_str(f.n ? f.v[0].rule_id : "", "netrc-password", "by its rule");
	is_int(scan(odbc, strlen(odbc), &f), 1,
	    "connection string: a password in braces is found");
	leak_findings_free(&f);
}

static void
test_ignore(void)
{
	struct leak_findings f;
	char *key = synth("sk-ant-api03-", 93, 7);
	char *req = axg_asprintf("x-api-key: %sAA\n", key);
	char *val = axg_asprintf("%sAA", key);

	leak_findings_init(&f);
	is_int(scan(req, strlen(req), &f), 1, "the key is found");
	is_str(f.n ? f.v[0].rule_id : "", "anthropic-api-key", "by its rule");
	ok(leak_scan_ignore_value(sc, val, strlen(val)) == 0,
	    "ignore the injected credential");
	is_int(scan(req, strlen(req), &f), 0,
	    "the ignored value is no finding");
	ok(leak_scan_ignore_value(sc, "short", 5) < 0,
	    "values under 8 bytes are refused");
	leak_scan_clear_ignored(sc);
	is_int(scan(req, strlen(req), &f), 1, "found again once cleared");
	free(key);
	free(req);
	free(val);
	leak_findings_free(&f);
}

static void
b64(struct axg_buf *out, const char *p)
{
	static const char a[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(p);

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(uint8_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)(uint8_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= (uint8_t)p[i + 2];
		axg_buf_putc(out, a[(v >> 18) & 63]);
		axg_buf_putc(out, a[(v >> 12) & 63]);
		axg_buf_putc(out, i + 1 < n ? a[(v >> 6) & 63] : '=');
		axg_buf_putc(out, i + 2 < n ? a[v & 63] : '=');
	}
}

static void
hexenc(struct axg_buf *b, const char *s, bool upper)
{
	for (; *s != '\0'; s++)
		axg_buf_printf(b, upper ? "%02X" : "%02x", (unsigned char)*s);
}

/* Hex-encoded text is decoded and scanned; hex that is not text (git
 * hashes, digests, keys) is not, nor are UUIDs or short runs. */
static void
test_hex(void)
{
	struct leak_findings f;
	char *tok = synth("sk_live_", 24, 5);
	struct axg_buf b = AXG_BUF_INIT;
	char *text;

	leak_findings_init(&f);
	axg_buf_init(&b, 0);
	hexenc(&b, tok, false);
	text = axg_asprintf("{\"h\":\"%s\"}", b.data);
	is_int(scan(text, strlen(text), &f), 1, "hex-encoded secret found");
	is_int(f.n ? (int)f.v[0].encoding : -1, LEAK_ENC_HEX,
	    "as a hex-encoded one");
	is_int(f.n ? f.v[0].offset : 0, 6, "at the start of the hex run");
	is_int(f.n ? f.v[0].length : 0, 2 * strlen(tok), "over all of it");
	free(text);
	axg_buf_reset(&b);
	hexenc(&b, "aws_access_key_id=AKIAZ7Q3JX5LM2NV4WPY", true);
	text = axg_asprintf("0x%s", b.data);
	is_int(scan(text, strlen(text), &f), 1, "upper-case hex after 0x");
	is_str(f.n ? f.v[0].rule_id : "", "aws-access-key-id", "its rule");
	is_int(f.n ? f.v[0].offset : 0, 2 + 2 * 18, "at the key's digits");
	free(text);
	/* An odd digit at the end is left out, the rest decoded. */
	axg_buf_reset(&b);
	hexenc(&b, tok, false);
	text = axg_asprintf("%s7 end", b.data);
	is_int(scan(text, strlen(text), &f), 1, "odd-length run: found");
	free(text);
	/* Base64 of hex of a secret: two layers. */
	struct axg_buf b2 = AXG_BUF_INIT;
	axg_buf_init(&b2, 0);
	b64(&b2, b.data);
	is_int(scan(b2.data, b2.len, &f), 1, "base64 of hex: found");
	is_int(f.n ? (int)f.v[0].encoding : -1, LEAK_ENC_BASE64,
	    "named by its outer encoding");
	axg_buf_free(&b2);
	/* Mixed case is not what a hex encoder writes. */
	char *letter = strpbrk(b.data, "abcdef");
	if (letter != NULL)
		*letter = (char)(*letter - 32);
	ok(letter != NULL && strpbrk(letter + 1, "abcdef") != NULL &&
		scan(b.data, b.len, &f) == 0,
	    "mixed-case hex is not decoded");

	static const char *const quiet[] = {
		"commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n",
		"sha256:"
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
		"7852b855",
		"id 123e4567-e89b-12d3-a456-426614174000",
		"\"integrity\": "
		"\"sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6"
		"c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==\"",
		"key="
		"0x7f454c4602010100000000000000000003003e00010000000000000000",
		/* 16 bytes of text but a short run */
		"6b65793d414b4941",
	};
	bool all = true;
	for (size_t i = 0; i < AXG_ARRAY_LEN(quiet); i++) {
		int n = scan(quiet[i], strlen(quiet[i]), &f);
		if (n != 0) {
			tap_diag("found in: %s", quiet[i]);
			all = false;
		}
	}
	ok(all, "hashes, digests, UUIDs and binary hex stay quiet");
	axg_buf_free(&b);
	leak_findings_free(&f);
	free(tok);
}

static void
test_decoding(void)
{
	struct leak_findings f;
	char *tok = synth("sk_live_", 24, 3);
	struct axg_buf b = AXG_BUF_INIT;
	char *text;

	leak_findings_init(&f);
	/* JSON \u escapes inside the secret. */
	text = axg_asprintf("{\"content\":\"key sk_l\\u0069ve_%s\"}", tok + 8);
	is_int(scan(text, strlen(text), &f), 1, "JSON-escaped secret found");
	is_int(f.n ? (int)f.v[0].encoding : -1, LEAK_ENC_ESCAPED, "as escaped");
	is_int(f.n ? f.v[0].offset : 0, 16, "offset in the escaped text");
	is_int(f.n ? f.v[0].length : 0, 37, "length in the escaped text");
	free(text);

	/* Percent-encoding. */
	text = axg_asprintf("GET /x?k=sk%%5Flive%%5F%s HTTP/1.1", tok + 8);
	is_int(scan(text, strlen(text), &f), 1, "percent-encoded secret");
	is_int(f.n ? f.v[0].offset : 0, 9, "offset of the encoded secret");
	free(text);

	/* base64, then base64 of base64 (depth 2). */
	char *plain = axg_asprintf("stripe key: %s", tok);
	axg_buf_init(&b, 0);
	b64(&b, plain);
	text = axg_asprintf("blob=%s;", b.data);
	is_int(scan(text, strlen(text), &f), 1, "base64-encoded secret");
	is_int(f.n ? (int)f.v[0].encoding : -1, LEAK_ENC_BASE64, "as base64");
	ok(f.n && f.v[0].offset >= 5 &&
		f.v[0].offset + f.v[0].length <= 5 + b.len,
	    "inside the base64 run");
	free(text);
	struct axg_buf b2 = AXG_BUF_INIT;
	axg_buf_init(&b2, 0);
	b64(&b2, b.data);
	is_int(scan(b2.data, b2.len, &f), 1, "base64 of base64 found");
	struct axg_buf b3 = AXG_BUF_INIT;
	axg_buf_init(&b3, 0);
	b64(&b3, b2.data);
	is_int(scan(b3.data, b3.len, &f), 0,
	    "three levels deep is past the decode bound");
	axg_buf_free(&b);
	axg_buf_free(&b2);
	axg_buf_free(&b3);
	free(plain);

	/* Basic auth is decoded and checked for a real password. */
	axg_buf_init(&b, 0);
	b64(&b, "deploy:Zq8vR3mXk2Lw9Tb4");
	text = axg_asprintf("Authorization: Basic %s\r\n", b.data);
	is_int(scan(text, strlen(text), &f), 1, "Basic credentials");
	is_str(f.n ? f.v[0].rule_id : "", "http-basic-auth", "by their rule");
	free(text);
	axg_buf_free(&b);
	axg_buf_init(&b, 0);
	b64(&b, "username:password");
	text = axg_asprintf("Authorization: Basic %s\r\n", b.data);
	is_int(scan(text, strlen(text), &f), 0,
	    "Basic with a placeholder password is quiet");
	free(text);
	axg_buf_free(&b);
	free(tok);
	leak_findings_free(&f);
}

static void
test_stream(void)
{
	struct leak_findings whole, st;
	char err[256];
	char *tok = synth("glpat-", 20, 11);
	struct axg_buf body = AXG_BUF_INIT;
	bool all = true;
	int splits = 0;

	leak_findings_init(&whole);
	leak_findings_init(&st);
	axg_buf_init(&body, 0);
	for (int i = 0; i < 300; i++)
		axg_buf_printf(&body, "line %d of an ordinary log message\n",
		    i);
	size_t at = body.len;
	axg_buf_printf(&body, "token=%s\n", tok);
	for (int i = 0; i < 300; i++)
		axg_buf_printf(&body, "more text %d\n", i);

	is_int(scan(body.data, body.len, &whole), 1, "whole body: one secret");
	/* Split the body in two at every position across the secret. */
	for (size_t cut = at; cut <= at + 6 + 26 + 1; cut++) {
		struct leak_stream *s = leak_stream_new(sc);
		leak_findings_reset(&st);
		leak_stream_feed(s, body.data, cut, &st, err, sizeof(err));
		leak_stream_feed(s, body.data + cut, body.len - cut, &st, err,
		    sizeof(err));
		leak_stream_finish(s, &st, err, sizeof(err));
		if (st.n != 1 || st.v[0].offset != whole.v[0].offset ||
		    st.v[0].length != whole.v[0].length)
			all = false;
		splits++;
		leak_stream_free(s);
	}
	ok(all, "split at each of %d points: found once, same offset", splits);

	/* Tiny chunks: every byte on its own. */
	struct leak_stream *s = leak_stream_new(sc);
	leak_findings_reset(&st);
	for (size_t i = 0; i < body.len; i++)
		leak_stream_feed(s, body.data + i, 1, &st, err, sizeof(err));
	leak_stream_finish(s, &st, err, sizeof(err));
	is_int(st.n, 1, "byte-by-byte: found once");
	is_int(st.n ? st.v[0].offset : 0, whole.v[0].offset,
	    "byte-by-byte: absolute offset");
	is_int(leak_stream_offset(s), 0, "finish resets the stream");

	/* A long stream with a secret every 50 KB. */
	struct axg_buf big = AXG_BUF_INIT;
	axg_buf_init(&big, 0);
	for (int k = 0; k < 20; k++) {
		for (int i = 0; i < 1500; i++)
			axg_buf_printf(&big, "filler %d ", i);
		char *t = synth("npm_", 36, 100 + (uint32_t)k);
		axg_buf_printf(&big, " NPM_TOKEN=%s ", t);
		free(t);
	}
	leak_findings_reset(&whole);
	scan(big.data, big.len, &whole);
	leak_findings_reset(&st);
	for (size_t i = 0; i < big.len; i += 4093)
		leak_stream_feed(s, big.data + i,
		    big.len - i < 4093 ? big.len - i : 4093, &st, err,
		    sizeof(err));
	leak_stream_finish(s, &st, err, sizeof(err));
	is_int(whole.n, 20, "20 secrets in the big body");
	is_int(st.n, whole.n, "the stream finds the same number");
	bool same = st.n == whole.n;
	for (size_t i = 0; same && i < st.n; i++)
		same = st.v[i].offset == whole.v[i].offset;
	ok(same, "at the same offsets");
	leak_stream_free(s);
	axg_buf_free(&big);
	axg_buf_free(&body);
	free(tok);
	leak_findings_free(&whole);
	leak_findings_free(&st);
}

static void
test_yaml(void)
{
	char err[512];
	struct leak_ruleset *u;
	struct leak_findings f;

	static const char yaml_ok[] = "rules:\n"
				      "  - id: acme-token\n"
				      "    description: ACME deploy token\n"
				      "    keywords: [acme_]\n"
				      "    regex: 'acme_[a-z0-9]{32}'\n"
				      "    entropy: 3\n"
				      "    allowlist: ['acme_0{32}']\n";

	leak_findings_init(&f);
	u = leak_ruleset_new_yaml(yaml_ok, strlen(yaml_ok), "t.yaml", err,
	    sizeof(err));
	if (ok(u != NULL, "a user rule loads"))
		ok(leak_ruleset_count(u) == leak_ruleset_count(rs) + 1,
		    "added to the built-in rules");
	else
		tap_diag("%s", err);
	if (u != NULL) {
		struct leak_scan *us = leak_scan_new(u, err, sizeof(err));
		const char *t =
		    "deploy with acme_q8w7e6r5t4y3u2i1o0p9a8s7d6f5g4h3";
		leak_scan_buffer(us, t, strlen(t), &f, err, sizeof(err));
		is_str(f.n ? f.v[0].rule_id : "", "acme-token",
		    "the user rule finds its token");
		leak_findings_reset(&f);
		t = "acme_00000000000000000000000000000000";
		leak_scan_buffer(us, t, strlen(t), &f, err, sizeof(err));
		is_int(f.n, 0, "its allowlist applies");
		leak_scan_free(us);
		leak_ruleset_free(u);
	}

	static const struct {
		const char *yaml, *want, *name;
	} bad[] = {
		{ "rules:\n  - id: bad-re\n    keywords: [xy1]\n    regex: "
		  "'a(b'\n",
		    "rule bad-re: regex: missing closing parenthesis",
		    "an invalid regex names the rule and the PCRE2 error" },
		{ "rules:\n  - id: slow\n    keywords: [aaa]\n    regex: "
		  "'(a+)+$'\n",
		    "rule slow: regex backtracks catastrophically",
		    "a catastrophic pattern is refused" },
		{ "rules:\n  - id: slow2\n    keywords: [aaa]\n"
		  "    regex: '(?:a|aa)+b'\n",
		    "rule slow2: regex backtracks catastrophically",
		    "an ambiguous alternation is refused" },
		{ "rules:\n  - id: x\n    keywords: [abc]\n    regex: ab\n"
		  "    colour: red\n",
		    "unknown field 'colour'", "unknown fields are errors" },
		{ "rules:\n  - id: github-pat\n    keywords: [abc]\n    regex: "
		  "ab\n",
		    "rule github-pat: duplicate id",
		    "duplicate ids are errors" },
		{ "rules:\n  - id: nokw\n    regex: ab\n", "needs keywords",
		    "keywords are required" },
		{ "rules:\n  - id: k\n    keywords: [ab]\n    regex: ab\n",
		    "must be 3 to 64 bytes", "two-byte keywords are refused" },
		{ "rules: [\n", "t.yaml:", "YAML syntax errors are located" },
		{ "rules:\n  - id: e\n    keywords: [abc]\n    regex: ab\n"
		  "    entropy: lots\n",
		    "entropy 'lots' is not a number",
		    "entropy must be a number" },
		{ "rules:\n  - id: BAD ID\n    keywords: [abc]\n    regex: "
		  "ab\n",
		    "may hold only", "rule ids are checked" },
	};
	for (size_t i = 0; i < AXG_ARRAY_LEN(bad); i++) {
		err[0] = '\0';
		u = leak_ruleset_new_yaml(bad[i].yaml, strlen(bad[i].yaml),
		    "t.yaml", err, sizeof(err));
		ok(u == NULL, "%s: rejected", bad[i].name);
		like_str(err, bad[i].want, "%s: message", bad[i].name);
		leak_ruleset_free(u);
	}
	u = leak_ruleset_new("/nonexistent/rules.yaml", err, sizeof(err));
	ok(u == NULL, "a missing rules file is an error");
	like_str(err, "/nonexistent/rules.yaml", "naming the file");
	leak_findings_free(&f);
}

struct worker {
	const char *text;
	size_t found;
};

static void *
work(void *arg)
{
	struct worker *w = arg;
	char err[128];
	struct leak_scan *s = leak_scan_new(rs, err, sizeof(err));
	struct leak_findings f;

	leak_findings_init(&f);
	for (int i = 0; i < 50; i++) {
		leak_findings_reset(&f);
		leak_scan_buffer(s, w->text, strlen(w->text), &f, err,
		    sizeof(err));
		w->found += f.n;
	}
	leak_findings_free(&f);
	leak_scan_free(s);
	return NULL;
}

static void
test_threads(void)
{
	char *tok = synth("xoxb-123456789012-1234567890123-", 24, 5);
	char *text = axg_asprintf("SLACK=%s password=Hx7Tq2Lm9Pz4", tok);
	struct worker w[4];
	pthread_t th[4];

	for (int i = 0; i < 4; i++) {
		w[i].text = text;
		w[i].found = 0;
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	bool all = true;
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		all = all && w[i].found == 100;
	}
	ok(all, "four threads share one rule set");
	free(tok);
	free(text);
}

/* Providers that share a prefix are told apart by the rest of the key. */
static void
test_shared_prefix(void)
{
	static const char hex40[] = "3f9a0c7e21b85d64fa07c3e19b2d8a5f60e4c7b1";
	static const char b62[] = "4eC39HqLyjWDarjtT1zdp7dcZx8Lm2Qv";
	struct leak_findings f;
	char *text;

	leak_findings_init(&f);
	text = axg_asprintf("why does sk_live_%s fail?", hex40);
	is_int(scan(text, strlen(text), &f), 1, "a bare Paystack key is found");
	is_str(f.n ? f.v[0].rule_id : "", "paystack-secret-key",
	    "as a Paystack key, not a Stripe one");
	free(text);
	text = axg_asprintf("{\"key\":\"sk_test_%s\"}", hex40);
	is_int(scan(text, strlen(text), &f), 1, "a Paystack test key");
	is_str(f.n ? f.v[0].rule_id : "", "paystack-secret-key",
	    "is Paystack's too");
	free(text);
	text = axg_asprintf("why does sk_live_%s fail?", b62);
	is_int(scan(text, strlen(text), &f), 1, "a Stripe key is found");
	is_str(f.n ? f.v[0].rule_id : "", "stripe-secret-key",
	    "and still named Stripe's");
	free(text);
	leak_findings_free(&f);
}

/* Many user rules: ids and keywords are indexed while rules are added. */
static void
test_many_rules(void)
{
	struct axg_buf y = AXG_BUF_INIT;
	struct leak_ruleset *u;
	char err[512];

	axg_buf_init(&y, 0);
	axg_buf_puts(&y, "rules:\n");
	for (int i = 0; i < LEAK_USER_RULES_MAX; i++)
		axg_buf_printf(&y,
		    "  - {id: r%d, keywords: [kw%d_, shared_], "
		    "regex: 'kw%d_[a-z]{8}'}\n",
		    i, i % 100, i % 100);
	u = leak_ruleset_new_yaml(y.data, y.len, "many.yaml", err, sizeof(err));
	ok(u != NULL, "%d user rules with shared keywords load",
	    LEAK_USER_RULES_MAX);
	if (u != NULL)
		is_int((int)leak_ruleset_count(u),
		    (int)leak_ruleset_count(rs) + LEAK_USER_RULES_MAX,
		    "all of them are in the rule set");
	leak_ruleset_free(u);
	axg_buf_reset(&y);
	axg_buf_puts(&y, "rules:\n");
	for (int i = 0; i < 600; i++)
		axg_buf_printf(&y,
		    "  - {id: r%d, keywords: [kw%d_], regex: "
		    "'kw%d_[a-z]{8}'}\n",
		    i, i, i);
	axg_buf_puts(&y, "  - {id: r317, keywords: [dup_], regex: 'dup_x'}\n");
	u = leak_ruleset_new_yaml(y.data, y.len, "dup.yaml", err, sizeof(err));
	ok(u == NULL, "a duplicate id among many is refused");
	like_str(err, "rule r317: duplicate id", "naming the id (%s)", err);
	leak_ruleset_free(u);
	u = leak_ruleset_new_yaml("rules: [{id: github-pat, keywords: [abc], "
				  "regex: abc}]",
	    54, "dup2.yaml", err, sizeof(err));
	ok(u == NULL, "a user rule may not take a built-in id");
	leak_ruleset_free(u);
	axg_buf_free(&y);
}

int
main(void)
{
	char err[256];

	rs = leak_ruleset_new(NULL, err, sizeof(err));
	if (!ok(rs != NULL, "built-in rules compile")) {
		tap_diag("%s", err);
		return tap_done();
	}
	sc = leak_scan_new(rs, err, sizeof(err));
	test_rules();
	test_finding_and_redact();
	test_format_fields();
	test_ignore();
	test_decoding();
	test_hex();
	test_stream();
	test_yaml();
	test_shared_prefix();
	test_many_rules();
	test_threads();
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return tap_done();
}
