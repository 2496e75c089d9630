/*
 * bench-safety.c: throughput and latency of the credential scanner.
 *
 * Generates ~100 MB of clean mixed text (prompts, code, logs, JSON) and a
 * secret-dense text, and measures on one core:
 *   - a baseline pass of memchr + memcpy over the same bytes,
 *   - leak_scan_buffer over the text in 64 KB and 1 MB pieces,
 *   - the latency of scanning one 4 KB prompt (median of many batches of
 *     runs: a per-thread CPU clock read costs about a microsecond here).
 * Figures are printed as absolute numbers and as ratios to the baseline.
 * Nothing is asserted: timings depend on the machine.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/common.h"
#include "safety/safety-int.h"
#include "safety/safety.h"

#define RND_SEED 0x243f6a8885a308d3ULL
#include "tests/rnd.h"

static void
put_rand(struct axg_buf *b, const char *al, size_t n)
{
	size_t l = strlen(al);
	for (size_t i = 0; i < n; i++)
		axg_buf_putc(b, al[rnd() % l]);
}

#define HEXA  "0123456789abcdef"
#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/* About 200 common words of prompts and code review; a few of them
 * (key, token, password, secret, auth) are scanner keywords, as in real
 * traffic. */
static const char *const words[] = { "the", "a", "of", "to", "and", "in", "is",
	"it", "that", "for", "on", "with", "as", "this", "be", "are", "from",
	"at", "or", "by", "an", "not", "we", "can", "you", "if", "but", "all",
	"will", "one", "would", "there", "their", "what", "so", "out", "up",
	"about", "which", "when", "make", "like", "time", "just", "know",
	"take", "into", "year", "your", "good", "some", "could", "them", "see",
	"other", "than", "then", "now", "look", "only", "come", "its", "over",
	"think", "also", "back", "after", "use", "two", "how", "our", "work",
	"first", "well", "way", "even", "new", "want", "because", "any",
	"these", "give", "day", "most", "us", "model", "request", "answer",
	"please", "summarise", "function", "returns", "value", "user", "asks",
	"weather", "data", "table", "query", "result", "error", "file", "line",
	"build", "test", "cache", "server", "client", "network", "policy",
	"agent", "tool", "call", "output", "input", "config", "key", "token",
	"limit", "password", "reset", "secret", "session", "deploy", "branch",
	"commit", "review", "change", "latency", "budget", "memory", "thread",
	"queue", "event", "handler", "stream", "chunk", "parser", "explain",
	"difference", "between", "list", "map", "string", "number", "array",
	"object", "class", "method", "variable", "loop", "index", "count",
	"report", "summary", "table", "column", "row", "database", "migration",
	"schema", "field", "type", "interface", "module", "package", "import",
	"export", "script", "shell", "command", "option", "flag", "argument",
	"default", "option", "example", "document", "section", "paragraph",
	"sentence", "word", "translate", "english", "french", "code", "bug",
	"fix", "issue", "pull", "merge", "release", "version", "update",
	"upgrade", "install", "dependency", "library", "framework", "auth",
	"login", "account", "profile", "email", "address", "phone", "name" };

static void
prose(struct axg_buf *b, int n)
{
	for (int i = 0; i < n; i++) {
		axg_buf_puts(b, words[rnd() % AXG_ARRAY_LEN(words)]);
		axg_buf_putc(b, (rnd() % 12) == 0 ? '.' : ' ');
	}
}

static void
fragment(struct axg_buf *b)
{
	switch (rnd() % 8) {
	case 0: /* a chat prompt */
		axg_buf_puts(b,
		    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":"
		    "\"user\",\"content\":\"");
		prose(b, 40);
		axg_buf_puts(b, "\\nCan you explain this?\"}],\"max_tokens\":");
		axg_buf_printf(b, "%d}\n", (int)(rnd() % 4096));
		break;
	case 1: /* code */
		axg_buf_printf(b,
		    "static int\nparse_%s(struct ctx *c, const char *key, "
		    "size_t len)\n{\n\tint rc = lookup(c->table, key, len);\n"
		    "\tif (rc < 0)\n\t\treturn -1;\n\tc->token = next_token(c);"
		    "\n\treturn rc + %d;\n}\n",
		    words[rnd() % AXG_ARRAY_LEN(words)], (int)(rnd() % 100));
		break;
	case 2: /* python */
		axg_buf_printf(b,
		    "def handle_%s(request, session):\n    data = "
		    "request.json()\n    for key, value in data.items():\n"
		    "        session[key] = value\n    return {\"status\": "
		    "\"ok\", \"count\": %d}\n",
		    words[rnd() % AXG_ARRAY_LEN(words)], (int)(rnd() % 1000));
		break;
	case 3: /* a log line */
		axg_buf_printf(b, "2026-05-%02d T%02d:%02d:%02d.%03dZ INFO ",
		    (int)(rnd() % 28 + 1), (int)(rnd() % 24), (int)(rnd() % 60),
		    (int)(rnd() % 60), (int)(rnd() % 1000));
		axg_buf_puts(b, "request_id=");
		put_rand(b, HEXA, 8);
		axg_buf_putc(b, '-');
		put_rand(b, HEXA, 4);
		axg_buf_puts(b, "-4");
		put_rand(b, HEXA, 3);
		axg_buf_puts(b, "-a");
		put_rand(b, HEXA, 3);
		axg_buf_putc(b, '-');
		put_rand(b, HEXA, 12);
		axg_buf_printf(b,
		    " method=POST path=/v1/chat/completions status=200 "
		    "duration_ms=%d bytes=%d\n",
		    (int)(rnd() % 900), (int)(rnd() % 90000));
		break;
	case 4: /* JSON API response */
		axg_buf_puts(b, "{\"id\":\"chatcmpl-");
		put_rand(b, ALNUM, 24);
		axg_buf_printf(b,
		    "\",\"object\":\"chat.completion\",\"created\":%d,"
		    "\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d},"
		    "\"choices\":[{\"index\":0,\"message\":{\"role\":"
		    "\"assistant\",\"content\":\"",
		    (int)(rnd() % 2000000000), (int)(rnd() % 5000),
		    (int)(rnd() % 5000));
		prose(b, 30);
		axg_buf_puts(b, "\"}}]}\n");
		break;
	case 5: /* git log */
		axg_buf_puts(b, "commit ");
		put_rand(b, HEXA, 40);
		axg_buf_puts(b,
		    "\nAuthor: Dev Person <dev@example.org>\n\n    ");
		prose(b, 12);
		axg_buf_putc(b, '\n');
		break;
	case 6: /* markdown prose */
		axg_buf_puts(b, "## Notes\n\n");
		prose(b, 60);
		axg_buf_puts(b, "\n\n");
		break;
	default: /* config */
		axg_buf_printf(b,
		    "[server]\nlisten = \"0.0.0.0:%d\"\nworkers = %d\n"
		    "log_level = \"info\"\ntimeout_ms = %d\n\n",
		    (int)(rnd() % 65535), (int)(rnd() % 64),
		    (int)(rnd() % 10000));
		break;
	}
}

static void
secret_line(struct axg_buf *b)
{
	switch (rnd() % 6) {
	case 0:
		axg_buf_puts(b, "GITHUB_TOKEN=ghp_");
		put_rand(b, ALNUM, 36);
		break;
	case 1:
		axg_buf_puts(b, "{\"api_key\":\"sk_live_");
		put_rand(b, ALNUM, 24);
		axg_buf_puts(b, "\"}");
		break;
	case 2:
		axg_buf_puts(b, "aws_access_key_id=AKIA");
		put_rand(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16);
		break;
	case 3:
		axg_buf_puts(b, "DATABASE_URL=postgres://app:");
		put_rand(b, ALNUM, 16);
		axg_buf_puts(b, "@db:5432/app");
		break;
	case 4:
		axg_buf_puts(b, "Authorization: Bearer ");
		put_rand(b, ALNUM, 48);
		break;
	default:
		axg_buf_puts(b, "password = \"");
		put_rand(b, ALNUM, 14);
		axg_buf_putc(b, '"');
		break;
	}
	axg_buf_putc(b, '\n');
}

/* CPU time of this thread: the machine may be shared, and a figure of
 * one core should not count the time others had it. */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile size_t sink;

static double
baseline(const char *p, size_t n, char *copy)
{
	double t0 = now_s();
	size_t cnt = 0;
	const char *q = p, *end = p + n;
	while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
		cnt++;
		q++;
	}
	memcpy(copy, p, n);
	sink = cnt + (size_t)copy[n / 2];
	return now_s() - t0;
}

static double
scan_all(struct leak_scan *sc, const char *p, size_t n, size_t piece,
    size_t *found)
{
	struct leak_findings f;
	char err[256];
	double t0 = now_s();

	leak_findings_init(&f);
	*found = 0;
	for (size_t off = 0; off < n; off += piece) {
		size_t len = n - off < piece ? n - off : piece;
		leak_findings_reset(&f);
		if (leak_scan_buffer(sc, p + off, len, &f, err, sizeof(err)) <
		    0) {
			fprintf(stderr, "scan failed: %s\n", err);
			exit(1);
		}
		*found += f.n;
	}
	leak_findings_free(&f);
	return now_s() - t0;
}

static int
count_hit(size_t end, uint32_t id, void *arg)
{
	(void)end;
	(void)id;
	(*(size_t *)arg)++;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	size_t target = 100u << 20;
	char err[256];
	struct axg_buf clean = AXG_BUF_INIT, dense = AXG_BUF_INIT;
	struct leak_ruleset *rs;
	struct leak_scan *sc;

	if (argc > 1) {
		uint64_t mb;
		if (axg_parse_u64(argv[1], 1, 4096, &mb) == 0)
			target = (size_t)mb << 20;
	}
	/* Construction: rules are compiled on first use; compiling all of
	 * them up front (what every launch paid before) is timed apart. */
	double c0 = now_s();
	rs = leak_ruleset_new(NULL, err, sizeof(err));
	double c1 = now_s();
	if (rs == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct leak_ruleset *eager = leak_ruleset_new(NULL, err, sizeof(err));
	if (eager == NULL ||
	    leak_ruleset_compile_all(eager, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	double c3 = now_s();
	leak_ruleset_free(eager);
	printf("construction: lazy %.2f ms; with every regex compiled up "
	       "front %.2f ms (%.1fx)\n",
	    (c1 - c0) * 1e3, (c3 - c1) * 1e3, (c3 - c1) / (c1 - c0));
	/* Construction with many user rules is linear in their number: each
	 * doubling should double the time. */
	double prev = 0;
	for (size_t n = 1250; n <= 10000; n *= 2) {
		char id[32], kw[32], re[64];
		double t0 = now_s();
		struct leak_ruleset *big = leak_ruleset_alloc();
		for (size_t i = 0; i < n; i++) {
			snprintf(id, sizeof(id), "user-%zu", i);
			snprintf(kw, sizeof(kw), "usr%zu_", i);
			snprintf(re, sizeof(re), "usr%zu_[a-z0-9]{32}", i);
			const char *kws[1] = { kw };
			if (leak_ruleset_add(big, id, NULL, kws, 1, re, 3.0,
				NULL, 0, 0, LEAK_V_NONE, 0, 0, true, err,
				sizeof(err)) < 0) {
				fprintf(stderr, "%s\n", err);
				return 1;
			}
		}
		big = leak_ruleset_finish(big, err, sizeof(err));
		double t1 = now_s();
		if (big == NULL) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		leak_ruleset_free(big);
		printf("construction with %5zu user rules: %8.2f ms", n,
		    (t1 - t0) * 1e3);
		if (prev > 0)
			printf("  (%.2fx the half)", (t1 - t0) / prev);
		printf("\n");
		prev = t1 - t0;
	}
	sc = leak_scan_new(rs, err, sizeof(err));

	axg_buf_init(&clean, 0);
	while (clean.len < target)
		fragment(&clean);
	axg_buf_init(&dense, 0);
	while (dense.len < target / 10) {
		fragment(&dense);
		secret_line(&dense);
	}
	char *copy = axg_malloc(clean.len);

	printf("rules: %zu; clean text: %.1f MB; secret-dense text: %.1f MB\n",
	    leak_ruleset_count(rs), (double)clean.len / 1e6,
	    (double)dense.len / 1e6);

	/* Warm up, then take the best of three for each figure. */
	double tb = 1e9, t64 = 1e9, t1m = 1e9, td = 1e9, tdb = 1e9;
	size_t fc = 0, fd = 0;
	for (int r = 0; r < 3; r++) {
		double t = baseline(clean.data, clean.len, copy);
		tb = t < tb ? t : tb;
		t = scan_all(sc, clean.data, clean.len, 65536, &fc);
		t64 = t < t64 ? t : t64;
		t = scan_all(sc, clean.data, clean.len, 1 << 20, &fc);
		t1m = t < t1m ? t : t1m;
		t = baseline(dense.data, dense.len, copy);
		tdb = t < tdb ? t : tdb;
		t = scan_all(sc, dense.data, dense.len, 65536, &fd);
		td = t < td ? t : td;
	}
	double mb = (double)clean.len / 1e6, dmb = (double)dense.len / 1e6;
	printf("baseline memchr+memcpy, clean:  %8.0f MB/s\n", mb / tb);
	printf("scan clean, 64 KB pieces:       %8.0f MB/s  (%.2fx baseline "
	       "time, %zu findings)\n",
	    mb / t64, t64 / tb, fc);
	printf("scan clean, 1 MB pieces:        %8.0f MB/s  (%.2fx baseline "
	       "time)\n",
	    mb / t1m, t1m / tb);
	printf("baseline memchr+memcpy, dense:  %8.0f MB/s\n", dmb / tdb);
	printf("scan secret-dense, 64 KB:       %8.0f MB/s  (%.2fx baseline "
	       "time, %zu findings)\n",
	    dmb / td, td / tdb, fd);

	/* The keyword prefilter alone (every keyword occurrence, nothing
	 * confirmed), with the SIMD filter and with the scalar one. */
	double tf[2] = { 1e9, 1e9 };
	size_t nh[2] = { 0, 0 };
	for (int r = 0; r < 6; r++) {
		int simd = r % 2;
		leak_ac_set_simd(rs->ac, simd != 0);
		nh[simd] = 0;
		double t = now_s();
		leak_ac_scan(rs->ac, (const uint8_t *)clean.data, clean.len,
		    count_hit, &nh[simd]);
		t = now_s() - t;
		tf[simd] = t < tf[simd] ? t : tf[simd];
	}
	leak_ac_set_simd(rs->ac, true);
	printf("prefilter only, SIMD:           %8.0f MB/s  (%.2fx baseline "
	       "time, %zu keyword hits)\n",
	    mb / tf[1], tf[1] / tb, nh[1]);
	printf("prefilter only, scalar:         %8.0f MB/s  (%.2fx baseline "
	       "time, %zu keyword hits)\n",
	    mb / tf[0], tf[0] / tb, nh[0]);

	/* Latency of one 4 KB prompt. */
	struct axg_buf prompt = AXG_BUF_INIT;
	axg_buf_init(&prompt, 0);
	axg_buf_puts(&prompt,
	    "{\"model\":\"claude\",\"messages\":[{\"role\":"
	    "\"user\",\"content\":\"");
	while (prompt.len < 4096 - 64)
		prose(&prompt, 1);
	axg_buf_puts(&prompt, "\"}]}");
	struct leak_findings f;
	leak_findings_init(&f);
	/* Each sample times BATCH scans: a per-thread CPU clock read costs
	 * about a microsecond on some machines, which one 4 KB scan would
	 * not amortise.  The clock's own cost is printed apart. */
	enum { RUNS = 2000, BATCH = 20 };
	double *lat = axg_calloc(RUNS, sizeof(*lat));
	for (int i = 0; i < RUNS; i++) {
		double t0 = now_s();
		for (int k = 0; k < BATCH; k++) {
			leak_findings_reset(&f);
			leak_scan_buffer(sc, prompt.data, prompt.len, &f, err,
			    sizeof(err));
		}
		lat[i] = (now_s() - t0) / BATCH;
	}
	qsort(lat, RUNS, sizeof(*lat), cmp_double);
	double t0 = now_s();
	for (int k = 0; k < BATCH; k++) {
		sink += memchr(prompt.data, '\x01', prompt.len) != NULL;
		memcpy(copy, prompt.data, prompt.len);
		sink += (size_t)copy[k];
	}
	double tpb = (now_s() - t0) / BATCH;
	double k0 = now_s(), k1 = now_s();
	printf("4 KB prompt (%zu bytes): median %.2f us, p99 %.2f us per scan "
	       "(batches of %d; baseline one pass %.2f us; a clock read "
	       "%.2f us)\n",
	    prompt.len, lat[RUNS / 2] * 1e6, lat[RUNS * 99 / 100] * 1e6, BATCH,
	    tpb * 1e6, (k1 - k0) * 1e6);
	free(lat);
	leak_findings_free(&f);
	axg_buf_free(&prompt);
	free(copy);
	axg_buf_free(&clean);
	axg_buf_free(&dense);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return 0;
}
