/*
 * inflate.c: gzip and deflate request bodies decoded for the credential
 * scan (see inflate.h).
 *
 * The decoder runs zlib over the encoded bytes as they arrive and feeds
 * what comes out to a scan stream; nothing decoded is kept beyond the
 * stream's overlap.  After each encoded chunk it notes (encoded offset,
 * decoded offset): once the stream has settled the decoded bytes up to a
 * note, the encoded bytes up to it are forwarded.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/common.h"
#include "safety/inflate.h"

#define OUT_CHUNK 16384

struct mark {
	uint64_t raw, dec;
};

struct leak_coded {
	const char *name; /* the coding, for messages */
	bool gzip;
	bool zinit;   /* zs is initialised */
	bool ended;   /* the last member ended; more input is trailing */
	bool members; /* at least one member ended */
	z_stream zs;
	uint64_t in_total, out_total;
	struct leak_stream *st;
	struct leak_findings f;
	struct axg_buf held; /* encoded bytes not yet forwarded */
	uint64_t held_off;   /* encoded offset of held.data[0] */
	struct mark *marks;
	size_t nmarks, capmarks;
};

/* The value of a header without surrounding spaces and tabs. */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

static bool
is_token(const char *s, size_t n, const char *t)
{
	return n == strlen(t) && axg_strncaseeq(s, t, n);
}

enum px_scan_verdict
leak_coded_open(struct leak_scan *sc, const struct px_http_info *req,
    struct leak_coded **out, char *reason, size_t reasonlen)
{
	const struct px_header *ce = NULL;
	struct leak_coded *z;
	const char *v;
	size_t n, count = 0;

	*out = NULL;
	for (size_t i = 0; i < req->nheaders; i++) {
		const struct px_header *x = &req->headers[i];

		if (is_token(x->name, x->name_len, "content-encoding")) {
			ce = x;
			count++;
		}
	}
	if (ce == NULL)
		return PX_SCAN_ALLOW;
	v = ce->value;
	n = ce->value_len;
	trim(&v, &n);
	if (count == 1 && (n == 0 || is_token(v, n, "identity")))
		return PX_SCAN_ALLOW;
	if (count != 1 ||
	    !(is_token(v, n, "gzip") || is_token(v, n, "x-gzip") ||
		is_token(v, n, "deflate"))) {
		snprintf(reason, reasonlen,
		    "request body Content-Encoding %s%.*s%s cannot be read by "
		    "the credential scan (only gzip and deflate)",
		    count != 1 ? "(several fields) " : "\"",
		    count != 1 ? 0 : (int)(n < 40 ? n : 40), v,
		    count != 1 ? "" : "\"");
		return PX_SCAN_UNSUPPORTED;
	}
	z = axg_calloc(1, sizeof(*z));
	z->gzip = !is_token(v, n, "deflate");
	z->name = z->gzip ? "gzip" : "deflate";
	z->st = leak_stream_new(sc);
	leak_findings_init(&z->f);
	axg_buf_init(&z->held, 0);
	*out = z;
	return PX_SCAN_ALLOW;
}

void
leak_coded_free(struct leak_coded *z)
{
	if (z == NULL)
		return;
	if (z->zinit)
		inflateEnd(&z->zs);
	leak_stream_free(z->st);
	leak_findings_free(&z->f);
	axg_buf_free(&z->held);
	free(z->marks);
	free(z);
}

/* zlib's window bits for this body: gzip, or for deflate the zlib format
 * when the first byte is a zlib header (CM 8, CINFO <= 7) and raw deflate
 * (which some clients send) otherwise. */
static int
window_bits(const struct leak_coded *z, unsigned char first)
{
	if (z->gzip)
		return 15 + 16;
	return (first & 0x0f) == 8 && (first >> 4) <= 7 ? 15 : -15;
}

static enum px_scan_verdict refuse(enum px_scan_verdict v, char *reason,
    size_t reasonlen, const char *fmt, ...) AXG_PRINTF(4, 5);

static enum px_scan_verdict
refuse(enum px_scan_verdict v, char *reason, size_t reasonlen, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, reasonlen, fmt, ap);
	va_end(ap);
	return v;
}

/* Decode p[0..n) into the scan stream.  ALLOW, or a refusal. */
static enum px_scan_verdict
decode(struct leak_coded *z, const unsigned char *p, size_t n, char *reason,
    size_t reasonlen)
{
	unsigned char buf[OUT_CHUNK];
	char err[256];

	if (n == 0)
		return PX_SCAN_ALLOW;
	if (!z->zinit) {
		memset(&z->zs, 0, sizeof(z->zs));
		if (inflateInit2(&z->zs, window_bits(z, p[0])) != Z_OK)
			return refuse(PX_SCAN_MALFORMED, reason, reasonlen,
			    "cannot start the %s decoder", z->name);
		z->zinit = true;
	}
	z->zs.next_in = (unsigned char *)(uintptr_t)p;
	z->zs.avail_in = (uInt)n;
	for (;;) {
		size_t got;
		int rc;

		if (z->ended) {
			/* another gzip member may follow; nothing may
			 * follow a deflate stream */
			if (z->zs.avail_in == 0)
				break;
			if (!z->gzip || inflateReset(&z->zs) != Z_OK)
				return refuse(PX_SCAN_MALFORMED, reason,
				    reasonlen,
				    "bytes after the end of the %s body",
				    z->name);
			z->ended = false;
		}
		z->zs.next_out = buf;
		z->zs.avail_out = sizeof(buf);
		rc = inflate(&z->zs, Z_NO_FLUSH);
		got = sizeof(buf) - z->zs.avail_out;
		z->out_total += got;
		if (z->out_total > LEAK_CODED_MAX_OUT ||
		    (z->out_total > LEAK_CODED_RATIO_FLOOR &&
			z->out_total > (z->in_total + n - z->zs.avail_in) *
				(uint64_t)LEAK_CODED_MAX_RATIO)) {
			snprintf(reason, reasonlen,
			    "the %s request body expands past what the "
			    "credential scan reads (%u MiB, or %u times its "
			    "size): a compression bomb",
			    z->name, LEAK_CODED_MAX_OUT >> 20,
			    LEAK_CODED_MAX_RATIO);
			return PX_SCAN_TOO_LARGE;
		}
		if (got > 0 &&
		    leak_stream_feed(z->st, buf, got, &z->f, err, sizeof(err)) <
			0) {
			axg_warn("credential scan of the %s body failed: %s",
			    z->name, err);
			return refuse(PX_SCAN_BLOCK, reason, reasonlen,
			    "credential scan of the %s body failed", z->name);
		}
		if (rc == Z_STREAM_END) {
			z->ended = z->members = true;
			continue;
		}
		if (rc == Z_BUF_ERROR && z->zs.avail_in == 0)
			break; /* needs more input */
		if (rc != Z_OK)
			return refuse(PX_SCAN_MALFORMED, reason, reasonlen,
			    "the %s request body does not decode", z->name);
		if (z->zs.avail_in == 0 && z->zs.avail_out != 0)
			break;
	}
	z->in_total += n;
	return PX_SCAN_ALLOW;
}

/* Forward the held encoded bytes before upto. */
static int
release(struct leak_coded *z, uint64_t upto, px_scan_emit_cb emit,
    void *emit_arg)
{
	size_t n;
	int rc;

	if (upto <= z->held_off)
		return 0;
	n = (size_t)(upto - z->held_off);
	if (n > z->held.len)
		n = z->held.len;
	rc = n > 0 ? emit(emit_arg, z->held.data, n) : 0;
	axg_buf_consume(&z->held, n);
	z->held_off += n;
	return rc;
}

enum px_scan_verdict
leak_coded_body(struct leak_coded *z, const char *p, size_t n, bool last,
    px_scan_emit_cb emit, void *emit_arg, leak_coded_report_cb report,
    void *report_arg, char *reason, size_t reasonlen)
{
	enum px_scan_verdict v;
	uint64_t upto = 0, settled;
	size_t k;
	char err[256];

	v = decode(z, (const unsigned char *)p, n, reason, reasonlen);
	if (v != PX_SCAN_ALLOW)
		return v;
	if (n > 0) {
		axg_buf_append(&z->held, p, n);
		if (z->nmarks == z->capmarks) {
			z->capmarks = z->capmarks ? 2 * z->capmarks : 8;
			z->marks = axg_reallocarray(z->marks, z->capmarks,
			    sizeof(*z->marks));
		}
		z->marks[z->nmarks++] =
		    (struct mark){ z->in_total, z->out_total };
	}
	if (last) {
		if (z->in_total > 0 && !(z->ended && z->members))
			return refuse(PX_SCAN_MALFORMED, reason, reasonlen,
			    "the %s request body ends before its end", z->name);
		if (leak_stream_finish(z->st, &z->f, err, sizeof(err)) < 0) {
			axg_warn("credential scan of the %s body failed: %s",
			    z->name, err);
			return refuse(PX_SCAN_BLOCK, reason, reasonlen,
			    "credential scan of the %s body failed", z->name);
		}
	}
	if (z->f.n > 0) {
		for (size_t i = 0; i < z->f.n; i++)
			if (report != NULL)
				report(report_arg, &z->f.v[i]);
		snprintf(reason, reasonlen,
		    "credential found in the %s-encoded body (%s)", z->name,
		    z->f.v[0].rule_id);
		return PX_SCAN_BLOCK;
	}
	if (last)
		return release(z, z->held_off + z->held.len, emit, emit_arg) ==
			0
		    ? PX_SCAN_ALLOW
		    : PX_SCAN_BLOCK;
	/* the encoded bytes whose decoded bytes are all settled */
	settled = leak_stream_settled(z->st);
	for (k = 0; k < z->nmarks && z->marks[k].dec <= settled; k++)
		upto = z->marks[k].raw;
	if (k > 0) {
		memmove(z->marks, z->marks + k,
		    (z->nmarks - k) * sizeof(*z->marks));
		z->nmarks -= k;
	}
	return release(z, upto, emit, emit_arg) == 0 ? PX_SCAN_ALLOW
						     : PX_SCAN_BLOCK;
}
