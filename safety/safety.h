/*
 * safety.h: the credential-leak scanner.
 *
 * A rule set (struct leak_ruleset) is compiled once from the built-in rules
 * plus optional user rules in YAML.  It is immutable after leak_ruleset_new
 * returns and may be shared by any number of threads.
 *
 * A scanner (struct leak_scan) holds the per-thread state: PCRE2 match data,
 * the JIT stack, scratch buffers and the "ignore these exact values" list.
 * Use one scanner per thread; it borrows the rule set, which must outlive it.
 *
 * A stream (struct leak_stream) scans a body that arrives in chunks, keeping
 * a bounded overlap so a secret split across two chunks is still found, and
 * reports offsets from the start of the stream.
 *
 * Findings never hold the secret: a rule id (owned by the rule set), the
 * offset and length of the secret in the caller's input, and a redacted
 * preview.  What to do about a finding (block, redact, log) is the caller's
 * decision; leak_redact() rewrites an input with "[REDACTED:rule-id]".
 *
 * Errors: functions return -1 or NULL and write a one-line message into the
 * caller's err[errlen] (which may be NULL).
 */
#ifndef AXG_SAFETY_H
#define AXG_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct leak_ruleset;
struct leak_scan;
struct leak_stream;

/* Limits on what comes from outside. */
#define LEAK_RULES_FILE_MAX   (1024 * 1024) /* bytes of a YAML rules file */
#define LEAK_USER_RULES_MAX   1024	    /* rules in one YAML file */
#define LEAK_DECODE_DEPTH_MAX 2		    /* nested JSON/percent/base64 */
#define LEAK_FINDINGS_MAX     4096	    /* findings kept per call */

/* How the secret was found: in the bytes as they are, or after decoding. */
enum leak_encoding {
	LEAK_ENC_RAW = 0,
	LEAK_ENC_ESCAPED = 1, /* JSON string escapes or percent-encoding */
	LEAK_ENC_BASE64 = 2,  /* base64 or base64url */
	LEAK_ENC_HEX = 3,     /* hex digits, two per byte */
};

#define LEAK_PREVIEW_MAX 24

struct leak_finding {
	const char *rule_id;	 /* owned by the rule set */
	const char *description; /* owned by the rule set */
	uint64_t offset;	 /* of the secret in the caller's input */
	uint64_t length;
	enum leak_encoding encoding;
	char preview[LEAK_PREVIEW_MAX]; /* e.g. "ghp_…(40)"; never the secret */
};

/* A growable list of findings that the caller owns. */
struct leak_findings {
	struct leak_finding *v;
	size_t n, cap;
	/* a scan met more than LEAK_FINDINGS_MAX findings (or candidates
	 * past its bound) and reported only the first ones */
	bool truncated;
};

void leak_findings_init(struct leak_findings *f);
void leak_findings_reset(struct leak_findings *f);
void leak_findings_free(struct leak_findings *f);

/* ---- rule sets ---- */

/* Compile the built-in rules and, if rules_path is not NULL, the user rules
 * in that YAML file.  A bad user rule (unknown field, invalid regex, a
 * pattern that backtracks catastrophically, a duplicate id) fails the whole
 * load with a message naming the file, the rule id and the PCRE2 error. */
struct leak_ruleset *
leak_ruleset_new(const char *rules_path, char *err, size_t errlen);
/* The same with user rules given as YAML text (name is used in messages);
 * yaml may be NULL for the built-in rules only. */
struct leak_ruleset *leak_ruleset_new_yaml(const char *yaml, size_t len,
    const char *name, char *err, size_t errlen);
void leak_ruleset_free(struct leak_ruleset *rs);

size_t leak_ruleset_count(const struct leak_ruleset *rs);
/* Rule i's id and description (owned by the rule set); NULL past the end. */
const char *leak_ruleset_rule_id(const struct leak_ruleset *rs, size_t i);
const char *
leak_ruleset_rule_description(const struct leak_ruleset *rs, size_t i);

/* ---- scanning ---- */

/* A scanner for one thread; borrows rs.  NULL with a message if PCRE2
 * cannot give it match data or a JIT stack. */
struct leak_scan *
leak_scan_new(const struct leak_ruleset *rs, char *err, size_t errlen);
void leak_scan_free(struct leak_scan *sc);

/* Never report a secret equal to these bytes (the proxy passes the
 * credential it injects itself).  The value is copied.  Values shorter than
 * 8 bytes are refused (-1): they would hide too much. */
int leak_scan_ignore_value(struct leak_scan *sc, const void *value, size_t len);
void leak_scan_clear_ignored(struct leak_scan *sc);

/* Scan buf[0..len) and append the findings, sorted by offset and never
 * overlapping, to out.  Returns the number appended, or -1 with a message
 * (an internal PCRE2 failure; the caller should fail closed). */
int leak_scan_buffer(struct leak_scan *sc, const void *buf, size_t len,
    struct leak_findings *out, char *err, size_t errlen);

/* ---- streaming ---- */

/* A stream over sc (borrowed).  The stream keeps the last
 * LEAK_STREAM_OVERLAP bytes and holds back findings that end in the last
 * 1 KiB until more data or the end comes, so a secret (with the context
 * its rule needs) of up to 7 KiB split anywhere across chunks is found
 * once, at its offset from the start of the stream.  Chunks smaller than
 * 1 KiB are gathered before scanning, which bounds the rescanning to a
 * constant factor. */
#define LEAK_STREAM_OVERLAP 8192
struct leak_stream *leak_stream_new(struct leak_scan *sc);
void leak_stream_free(struct leak_stream *st);
/* Feed the next chunk; findings complete so far are appended with offsets
 * from the start of the stream.  Returns the number appended or -1. */
int leak_stream_feed(struct leak_stream *st, const void *chunk, size_t len,
    struct leak_findings *out, char *err, size_t errlen);
/* End of stream: report what was held back.  Returns the number appended
 * or -1.  The stream may then be fed again as a new stream at offset 0. */
int leak_stream_finish(struct leak_stream *st, struct leak_findings *out,
    char *err, size_t errlen);
/* Total bytes fed so far. */
uint64_t leak_stream_offset(const struct leak_stream *st);
/* No finding reported from now on starts before this offset: bytes before
 * it are settled (a caller holding bytes back may release them). */
uint64_t leak_stream_settled(const struct leak_stream *st);

/* ---- redaction ---- */

/* Return a new buffer (caller frees; NUL-terminated, not counted in
 * *outlen) holding buf with each finding's bytes replaced by
 * "[REDACTED:rule-id]".  Findings must come from a scan of this very buffer
 * (offsets sorted, not overlapping, inside buf). */
char *leak_redact(const void *buf, size_t len, const struct leak_findings *f,
    size_t *outlen);

/* ---- the proxy hook (proxy-hook.c) ---- */

/*
 * A leak hook applies one mode (the policy's safety.credential_scan) to
 * what a job sends through the proxy, with a scanner it borrows, and tells
 * a caller-supplied callback about every finding, so the caller can write
 * a Detection Finding (OCSF 2004).  The hook never holds a secret and
 * never hands one to the callback.
 *
 *  - leak_hook_fill() gives the proxy its scan seam (struct px_scan_hook of
 *    proxy/proxy.h, per-request interface): the URL (authority, path and
 *    query), every header value but Proxy-Authorization (which is never
 *    forwarded), and the decoded body, streamed (a secret split across
 *    chunks is found).  block: 403 and no byte of the request reaches the
 *    upstream when the body is under LEAK_STREAM_OVERLAP bytes (bodies
 *    longer than that send their head and settled clean bytes, never a
 *    secret); redact: the URL, header values and body are forwarded with
 *    each secret replaced by "[REDACTED:rule-id]" (in the URL the brackets
 *    are percent-encoded), a secret in the host name blocks; log: the
 *    request goes on as sent; off: nothing is scanned.  In every mode
 *    the path given to the audit record has each secret redacted.
 *  - leak_hook_connect() is for a CONNECT target (a key smuggled out as a
 *    DNS label).  Pass the host as the client spelled it, before case
 *    folding: most token formats are case-sensitive.
 *
 * Values registered with leak_scan_ignore_value() on the scanner (the
 * credential the proxy injects itself) are never findings.  A scanner
 * failure blocks in block and redact mode (fail closed) and is logged in
 * log mode.  The hook is for one thread (the proxy's event loop), like its
 * scanner; the scanner must outlive it, and it must outlive the proxy.
 */
struct leak_hook;
struct px_scan_hook;

enum leak_mode {
	LEAK_MODE_OFF = 0,
	LEAK_MODE_LOG,
	LEAK_MODE_REDACT,
	LEAK_MODE_BLOCK,
};

/* "off", "log", "redact", "block"; -1 for anything else. */
int leak_mode_parse(const char *s, enum leak_mode *out);
const char *leak_mode_name(enum leak_mode m);

enum leak_action {
	LEAK_ACTION_LOGGED = 0, /* forwarded as sent */
	LEAK_ACTION_REDACTED,	/* forwarded with the secret replaced */
	LEAK_ACTION_BLOCKED,	/* the request was refused */
};

const char *leak_action_name(enum leak_action a);

/* One finding, as the callback sees it (valid during the call). */
struct leak_report {
	const char *rule_id;
	const char *title; /* the rule's description */
	const char *where; /* "url", "header:NAME", "body" or "connect" */
	uint64_t offset;   /* of the secret in the URL text, the header
			      value, the body or the host name */
	uint64_t length;
	enum leak_encoding encoding;
	const char *preview; /* masked, never the secret */
	enum leak_action action;
};

typedef void (*leak_report_cb)(void *arg, const struct leak_report *r);

/* A hook over sc (borrowed); report (may be NULL) gets every finding. */
struct leak_hook *leak_hook_new(struct leak_scan *sc, enum leak_mode mode,
    leak_report_cb report, void *report_arg);
void leak_hook_free(struct leak_hook *h);
enum leak_mode leak_hook_mode(const struct leak_hook *h);

/* Fill *out with the proxy's scan seam bound to h (all callbacks NULL in
 * off mode). */
void leak_hook_fill(struct leak_hook *h, struct px_scan_hook *out);

/* Verdicts of leak_hook_connect(); the same values as px_scan_verdict. */
enum leak_verdict {
	LEAK_ALLOW = 0,
	LEAK_BLOCK = 1,
};

/* Scan a CONNECT target host[0..len) (its labels as sent, and again with
 * the dots removed, so a key split over labels is found).  A finding
 * blocks in block and redact mode (a host name cannot be redacted) with a
 * reason in reason[reasonlen]; in log mode it is only reported. */
enum leak_verdict leak_hook_connect(struct leak_hook *h, const char *host,
    size_t len, char *reason, size_t reasonlen);

#endif /* AXG_SAFETY_H */
