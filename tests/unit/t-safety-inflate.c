/*
 * Tests of the encoded-body decoder of the credential scan (inflate.c):
 * gzip, zlib and raw deflate bodies fed whole and one byte at a time, a
 * key found in each (also in a second gzip member and deep in a large
 * body), the encoded bytes forwarded unchanged and only once settled,
 * bombs refused by size and by ratio, corrupt, truncated and trailing
 * data refused, and the codings that are refused outright.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/common.h"
#include "safety/inflate.h"
#include "tests/tap.h"

/* Made-up tokens in the shape of a GitHub classic PAT. */
#define TOK "ghp_R7kQ2mXv9LpT4wZs8NbY3cHd6FjG1aUe5Kio"

static struct leak_scan *sc;

/* gzip (wbits 31), zlib (15) or raw deflate (-15) of p[0..n). */
static unsigned char *
squeeze(const void *p, size_t n, int wbits, size_t *outlen)
{
	z_stream zs;
	size_t cap = compressBound(n) + 64;
	unsigned char *out = axg_malloc(cap);

	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, 6, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = (unsigned char *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	deflate(&zs, Z_FINISH);
	*outlen = zs.total_out;
	deflateEnd(&zs);
	return out;
}

struct sink {
	struct axg_buf out;
	int findings;
	size_t max_held; /* encoded bytes held back at most */
	size_t fed;
};

static int
emit(void *arg, const char *p, size_t n)
{
	struct sink *s = arg;

	axg_buf_append(&s->out, p, n);
	return 0;
}

static void
found(void *arg, const struct leak_finding *x)
{
	struct sink *s = arg;

	(void)x;
	s->findings++;
}

/* Run a body with this Content-Encoding through the decoder, step bytes
 * at a time (0: whole).  Returns the verdict of the call that ended it. */
static enum px_scan_verdict
run(const char *ce, const unsigned char *p, size_t n, size_t step,
    struct sink *s, char *why, size_t whylen)
{
	struct px_header hd = { "Content-Encoding", 16, ce, strlen(ce) };
	struct px_http_info info;
	struct leak_coded *z = NULL;
	enum px_scan_verdict v;
	size_t at = 0;

	memset(&info, 0, sizeof(info));
	info.headers = &hd;
	info.nheaders = 1;
	memset(s, 0, sizeof(*s));
	axg_buf_init(&s->out, 0);
	why[0] = '\0';
	v = leak_coded_open(sc, &info, &z, why, whylen);
	if (v != PX_SCAN_ALLOW || z == NULL)
		return v;
	if (step == 0)
		step = n;
	while (at < n) {
		size_t k = n - at < step ? n - at : step;

		v = leak_coded_body(z, (const char *)p + at, k, false, emit, s,
		    found, s, why, whylen);
		at += k;
		if (at - s->out.len > s->max_held)
			s->max_held = at - s->out.len;
		if (v != PX_SCAN_ALLOW)
			goto out;
	}
	v = leak_coded_body(z, NULL, 0, true, emit, s, found, s, why, whylen);
out:
	leak_coded_free(z);
	return v;
}

static void
test_codings(void)
{
	static const struct {
		const char *ce;
		int wbits;
	} c[] = { { "gzip", 31 }, { "x-gzip", 31 }, { " GZIP ", 31 },
		{ "deflate", 15 }, { "deflate", -15 } };
	char doc[256], why[256];
	struct axg_buf clean = AXG_BUF_INIT;

	snprintf(doc, sizeof(doc), "{\"prompt\":\"my token is %s ok\"}", TOK);
	axg_buf_init(&clean, 0);
	for (int i = 0; i < 4000; i++)
		axg_buf_puts(&clean, "nothing to see here. ");
	for (size_t i = 0; i < AXG_ARRAY_LEN(c); i++) {
		size_t n, m;
		unsigned char *z = squeeze(doc, strlen(doc), c[i].wbits, &n);
		unsigned char *y =
		    squeeze(clean.data, clean.len, c[i].wbits, &m);
		struct sink s;
		enum px_scan_verdict v;

		for (size_t step = 0; step <= 1; step++) {
			v = run(c[i].ce, z, n, step, &s, why, sizeof(why));
			is_int(v, PX_SCAN_BLOCK,
			    "%s (wbits %d, step %zu): a key is blocked",
			    c[i].ce, c[i].wbits, step);
			ok(s.findings >= 1, "... and reported");
			ok(s.out.len < n, "... before all of it went out");
			like_str(why, "credential found in the", "... why: %s",
			    why);
			axg_buf_free(&s.out);
			v = run(c[i].ce, y, m, step, &s, why, sizeof(why));
			is_int(v, PX_SCAN_ALLOW,
			    "%s (wbits %d, step %zu): a clean body passes",
			    c[i].ce, c[i].wbits, step);
			ok(s.out.len == m && memcmp(s.out.data, y, m) == 0,
			    "... forwarded encoded and unchanged");
			axg_buf_free(&s.out);
		}
		free(z);
		free(y);
	}
	axg_buf_free(&clean);
}

static void
test_streaming(void)
{
	struct axg_buf big = AXG_BUF_INIT, two = AXG_BUF_INIT;
	char why[256];
	struct sink s;
	size_t n, a, b;
	unsigned char *z, *za, *zb;

	/* 2 MiB of varied text, then a key: settled bytes flow on, so
	 * little is held back, and the key is still found */
	axg_buf_init(&big, 0);
	for (int i = 0; big.len < (2u << 20); i++)
		axg_buf_printf(&big, "line %d of a long and varied prompt %x\n",
		    i, (unsigned)(i * 2654435761u));
	z = squeeze(big.data, big.len, 31, &n);
	is_int(run("gzip", z, n, 4096, &s, why, sizeof(why)), PX_SCAN_ALLOW,
	    "a 2 MiB clean gzip body in 4 KiB writes passes");
	ok(s.out.len == n, "... all of it forwarded");
	ok(s.max_held < 64 * 1024, "... holding back at most %zu bytes",
	    s.max_held);
	axg_buf_free(&s.out);
	free(z);
	axg_buf_puts(&big, "and now " TOK " at the end\n");
	z = squeeze(big.data, big.len, 31, &n);
	is_int(run("gzip", z, n, 4096, &s, why, sizeof(why)), PX_SCAN_BLOCK,
	    "a key at the end of 2 MiB of gzip is blocked");
	ok(s.out.len < n, "... with its last bytes held back (%zu of %zu)",
	    s.out.len, n);
	axg_buf_free(&s.out);
	free(z);
	axg_buf_free(&big);

	/* two gzip members, the key in the second */
	za = squeeze("first member, clean", 19, 31, &a);
	zb = squeeze("second: " TOK, strlen("second: " TOK), 31, &b);
	axg_buf_init(&two, 0);
	axg_buf_append(&two, za, a);
	axg_buf_append(&two, zb, b);
	is_int(run("gzip", (unsigned char *)two.data, two.len, 7, &s, why,
		   sizeof(why)),
	    PX_SCAN_BLOCK, "a key in a second gzip member is blocked");
	axg_buf_free(&s.out);
	free(za);
	free(zb);
	axg_buf_free(&two);
}

static void
test_refusals(void)
{
	unsigned char *zeros = axg_calloc(1, 80u << 20), *z;
	char why[256];
	struct sink s;
	size_t n;

	z = squeeze(zeros, 4u << 20, 31, &n);
	is_int(run("gzip", z, n, 0, &s, why, sizeof(why)), PX_SCAN_TOO_LARGE,
	    "4 MiB of zeros in %zu bytes: a bomb by ratio", n);
	like_str(why, "compression bomb", "... why: %s", why);
	ok(s.out.len == 0, "... nothing forwarded");
	axg_buf_free(&s.out);
	free(z);
	/* stored blocks: no ratio, but past the size bound */
	{
		size_t m = LEAK_CODED_MAX_OUT + (1u << 20);
		z_stream zs;
		unsigned char *out = axg_malloc(m + m / 100 + 1024);

		memset(&zs, 0, sizeof(zs));
		deflateInit2(&zs, 0, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
		zs.next_in = zeros;
		zs.avail_in = (uInt)m;
		zs.next_out = out;
		zs.avail_out = (uInt)(m + m / 100 + 1024);
		deflate(&zs, Z_FINISH);
		n = zs.total_out;
		deflateEnd(&zs);
		is_int(run("gzip", out, n, 1u << 20, &s, why, sizeof(why)),
		    PX_SCAN_TOO_LARGE, "a stored gzip body past %u MiB: 413",
		    LEAK_CODED_MAX_OUT >> 20);
		axg_buf_free(&s.out);
		free(out);
	}
	free(zeros);

	z = squeeze("a clean little body", 19, 31, &n);
	is_int(run("gzip", z, n - 6, 0, &s, why, sizeof(why)),
	    PX_SCAN_MALFORMED, "a truncated gzip body: 400");
	like_str(why, "ends before its end", "... why: %s", why);
	axg_buf_free(&s.out);
	free(z);
	is_int(run("gzip", (const unsigned char *)"\x1f\x8b\x08\0garbage", 11,
		   0, &s, why, sizeof(why)),
	    PX_SCAN_MALFORMED, "a corrupt gzip body: 400");
	axg_buf_free(&s.out);
	{
		unsigned char buf[256];
		unsigned char *d = squeeze("body", 4, 15, &n);

		memcpy(buf, d, n);
		memcpy(buf + n, "junk", 4);
		is_int(run("deflate", buf, n + 4, 0, &s, why, sizeof(why)),
		    PX_SCAN_MALFORMED, "bytes after a deflate stream: 400");
		axg_buf_free(&s.out);
		free(d);
	}
	is_int(run("gzip", (const unsigned char *)"", 0, 0, &s, why,
		   sizeof(why)),
	    PX_SCAN_ALLOW, "an empty gzip-labelled body passes");
	axg_buf_free(&s.out);

	{
		static const char *const bad[] = { "br", "zstd", "compress",
			"gzip, gzip", "identity, gzip", "gzip;q=1" };

		for (size_t i = 0; i < AXG_ARRAY_LEN(bad); i++) {
			is_int(run(bad[i], NULL, 0, 0, &s, why, sizeof(why)),
			    PX_SCAN_UNSUPPORTED, "Content-Encoding %s: 415",
			    bad[i]);
			axg_buf_free(&s.out);
		}
		like_str(why, "cannot be read by the credential scan",
		    "... why: %s", why);
	}
	{
		struct px_header hd[2] = {
			{ "content-encoding", 16, "gzip", 4 },
			{ "Content-Encoding", 16, "gzip", 4 },
		};
		struct px_http_info info;
		struct leak_coded *z2 = NULL;

		memset(&info, 0, sizeof(info));
		info.headers = hd;
		info.nheaders = 2;
		is_int(leak_coded_open(sc, &info, &z2, why, sizeof(why)),
		    PX_SCAN_UNSUPPORTED, "two Content-Encoding fields: 415");
		info.nheaders = 0;
		is_int(leak_coded_open(sc, &info, &z2, why, sizeof(why)),
		    PX_SCAN_ALLOW, "no Content-Encoding: scanned as it is");
		ok(z2 == NULL, "... with no decoder");
		hd[0].value = " identity";
		hd[0].value_len = 9;
		info.nheaders = 1;
		is_int(leak_coded_open(sc, &info, &z2, why, sizeof(why)),
		    PX_SCAN_ALLOW, "identity: scanned as it is");
		ok(z2 == NULL, "... with no decoder");
	}
}

int
main(void)
{
	char err[256];
	struct leak_ruleset *rs = leak_ruleset_new(NULL, err, sizeof(err));

	if (rs == NULL || (sc = leak_scan_new(rs, err, sizeof(err))) == NULL)
		tap_skip_all("the scanner does not load");
	test_codings();
	test_streaming();
	test_refusals();
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return tap_done();
}
