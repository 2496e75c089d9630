/*
 * inflate.h: a request body's Content-Encoding decoded for the credential
 * scan (gzip and deflate, with zlib), bounded in size and ratio.
 *
 * The body is forwarded as it came (still encoded); only the scanner sees
 * the decoded bytes.  Encoded bytes are held back until the decoded bytes
 * they produced are settled by the scan, so in block and redact mode no
 * encoded byte of a secret reaches the upstream before the scanner has seen
 * what follows it.  An encoded body cannot be redacted in place: a finding
 * blocks it in either mode.
 */
#ifndef AXG_SAFETY_INFLATE_H
#define AXG_SAFETY_INFLATE_H

#include "proxy/proxy.h"
#include "safety/safety.h"

/* Decoded bytes a body may expand to, and the ratio of decoded to encoded
 * bytes beyond which it is a compression bomb (checked once the decoded
 * size passes LEAK_CODED_RATIO_FLOOR). */
#define LEAK_CODED_MAX_OUT     (64u * 1024 * 1024)
#define LEAK_CODED_MAX_RATIO   100u
#define LEAK_CODED_RATIO_FLOOR (1024u * 1024)

struct leak_coded;

/* Look at the request's Content-Encoding.  No field, or "identity": ALLOW
 * with *out NULL (scan the body as it is).  One "gzip", "x-gzip" or
 * "deflate": ALLOW with *out a new decoder over sc (borrowed).  Anything
 * else (br, zstd, compress, a list of codings, several fields):
 * PX_SCAN_UNSUPPORTED with reason filled. */
enum px_scan_verdict
leak_coded_open(struct leak_scan *sc, const struct px_http_info *req,
    struct leak_coded **out, char *reason, size_t reasonlen);
void leak_coded_free(struct leak_coded *z);

/* A finding in the decoded body (offset from its start). */
typedef void (*leak_coded_report_cb)(void *arg, const struct leak_finding *x);

/* The scan seam's filter_body for an encoded body: p[0..n) are encoded
 * bytes, last set on the final call.  Encoded bytes are passed to emit
 * once settled.  BLOCK on a credential (report called for each finding),
 * MALFORMED if the body does not decode or ends early, TOO_LARGE past the
 * bounds above; reason is filled on every refusal. */
enum px_scan_verdict
leak_coded_body(struct leak_coded *z, const char *p, size_t n, bool last,
    px_scan_emit_cb emit, void *emit_arg, leak_coded_report_cb report,
    void *report_arg, char *reason, size_t reasonlen);

#endif
