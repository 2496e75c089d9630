/*
 * proxy-hook.c: the credential scanner as the proxy's scan seam.
 *
 * A request is scanned in three places: the URL text ("http://" authority
 * path), each forwarded header as "Name: value" (so rules that need the
 * field name see it; offsets are reported in the value), and the decoded
 * body through a stream.  In block and redact mode the body is held back
 * until the stream says it is settled, so no byte of a secret is
 * forwarded before the scanner has seen what follows it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"
#include "safety/inflate.h"
#include "safety/safety-int.h"

_Static_assert((int)LEAK_ALLOW == (int)PX_SCAN_ALLOW, "verdicts agree");
_Static_assert((int)LEAK_BLOCK == (int)PX_SCAN_BLOCK, "verdicts agree");

#define HOST_SCAN_MAX 1024 /* bytes of a CONNECT host looked at */
#define HOST_JOIN_MAX 4	   /* labels joined to find a split key */

struct leak_hook {
	struct leak_scan *sc;
	enum leak_mode mode;
	leak_report_cb report;
	void *report_arg;
	struct leak_findings f; /* scratch for head scans */
	struct axg_buf line;	/* scratch: "Name: value", the URL */
};

/* One request's state. */
struct leak_req {
	struct leak_hook *h;
	struct leak_stream *st;
	struct leak_findings f; /* from the stream, not yet applied */
	struct axg_buf held;	/* body bytes not yet forwarded */
	uint64_t held_off;	/* body offset of held.data[0] */
	char **strs;		/* replacement head strings */
	size_t nstrs;
	struct leak_coded *coded; /* a gzip or deflate body (inflate.c) */
};

static const char *const mode_names[] = { "off", "log", "redact", "block" };
static const char *const action_names[] = { "logged", "redacted", "blocked" };

int
leak_mode_parse(const char *s, enum leak_mode *out)
{
	for (size_t i = 0; s != NULL && i < AXG_ARRAY_LEN(mode_names); i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum leak_mode)i;
			return 0;
		}
	return -1;
}

const char *
leak_mode_name(enum leak_mode m)
{
	return (size_t)m < AXG_ARRAY_LEN(mode_names) ? mode_names[m] : "?";
}

const char *
leak_action_name(enum leak_action a)
{
	return (size_t)a < AXG_ARRAY_LEN(action_names) ? action_names[a] : "?";
}

struct leak_hook *
leak_hook_new(struct leak_scan *sc, enum leak_mode mode, leak_report_cb report,
    void *report_arg)
{
	struct leak_hook *h = axg_calloc(1, sizeof(*h));

	h->sc = sc;
	h->mode = mode;
	h->report = report;
	h->report_arg = report_arg;
	leak_findings_init(&h->f);
	axg_buf_init(&h->line, 0);
	return h;
}

void
leak_hook_free(struct leak_hook *h)
{
	if (h == NULL)
		return;
	leak_findings_free(&h->f);
	axg_buf_free(&h->line);
	free(h);
}

enum leak_mode
leak_hook_mode(const struct leak_hook *h)
{
	return h->mode;
}

static enum leak_action
action_of(const struct leak_hook *h)
{
	switch (h->mode) {
	case LEAK_MODE_BLOCK:
		return LEAK_ACTION_BLOCKED;
	case LEAK_MODE_REDACT:
		return LEAK_ACTION_REDACTED;
	default:
		return LEAK_ACTION_LOGGED;
	}
}

static void
report(const struct leak_hook *h, const struct leak_finding *x,
    const char *where, uint64_t offset, enum leak_action action)
{
	struct leak_report r;

	if (h->report == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.rule_id = x->rule_id;
	r.title = x->description;
	r.where = where;
	r.offset = offset;
	r.length = x->length;
	r.encoding = x->encoding;
	r.preview = x->preview;
	r.action = action;
	h->report(h->report_arg, &r);
}

/* A scanner failure: fail closed unless the mode only logs. */
static enum px_scan_verdict
scan_failed(const struct leak_hook *h, const char *what, const char *err,
    char *reason, size_t reasonlen)
{
	axg_warn("credential scan of the %s failed: %s", what, err);
	if (h->mode == LEAK_MODE_LOG)
		return PX_SCAN_ALLOW;
	snprintf(reason, reasonlen, "credential scan of the %s failed", what);
	return PX_SCAN_BLOCK;
}

/* Append p[0..n) to b with each finding of f (offsets in p, minus skip)
 * replaced by open "REDACTED:id" close. */
static void
redact_into(struct axg_buf *b, const char *p, size_t n,
    const struct leak_findings *f, size_t skip, const char *open,
    const char *close)
{
	size_t at = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct leak_finding *x = &f->v[i];
		size_t off, end;

		if (x->offset + x->length <= skip)
			continue;
		off = x->offset > skip ? (size_t)x->offset - skip : 0;
		end = (size_t)(x->offset + x->length - skip);
		if (off < at || end > n)
			continue;
		axg_buf_append(b, p + at, off - at);
		axg_buf_printf(b, "%sREDACTED:%s%s", open, x->rule_id, close);
		at = end;
	}
	axg_buf_append(b, p + at, n - at);
}

static const char *
keep_str(struct leak_req *rq, struct axg_buf *b, size_t *len)
{
	char *s = axg_buf_steal(b, len);

	rq->strs = axg_reallocarray(rq->strs, rq->nstrs + 1, sizeof(char *));
	rq->strs[rq->nstrs++] = s;
	return s;
}

static void
req_free(void *arg)
{
	struct leak_req *rq = arg;

	if (rq == NULL)
		return;
	leak_stream_free(rq->st);
	leak_coded_free(rq->coded);
	leak_findings_free(&rq->f);
	axg_buf_free(&rq->held);
	for (size_t i = 0; i < rq->nstrs; i++)
		free(rq->strs[i]);
	free(rq->strs);
	free(rq);
}

/* ---- the head ---- */

/* Scan the URL; returns 1 if something was found, 0 if not, -1 on a
 * scanner error.  *host_hit is set if a finding is (partly) in the
 * authority, which cannot be redacted. */
static int
scan_url(struct leak_hook *h, struct leak_req *rq,
    const struct px_http_info *req, struct px_scan_edit *edit, bool *host_hit,
    char *err, size_t errlen)
{
	struct axg_buf *b = &h->line;
	size_t pre;

	axg_buf_reset(b);
	axg_buf_puts(b, "http://");
	axg_buf_puts(b, req->target->authority);
	pre = b->len;
	axg_buf_append(b, req->path, req->path_len);
	leak_findings_reset(&h->f);
	if (leak_scan_buffer(h->sc, b->data, b->len, &h->f, err, errlen) < 0)
		return -1;
	if (h->f.n == 0)
		return 0;
	for (size_t i = 0; i < h->f.n; i++) {
		report(h, &h->f.v[i], "url", h->f.v[i].offset,
		    h->f.v[i].offset < pre ? LEAK_ACTION_BLOCKED
					   : action_of(h));
		if (h->f.v[i].offset < pre)
			*host_hit = true;
	}
	/* The path the upstream (redact) or the audit (every mode) sees:
	 * in log mode the request goes on as sent, but the audit record
	 * never holds the secret. */
	struct axg_buf out = AXG_BUF_INIT;

	axg_buf_init(&out, 0);
	redact_into(&out, req->path, req->path_len, &h->f, pre, "%5B", "%5D");
	if (h->mode == LEAK_MODE_LOG)
		edit->audit_path = keep_str(rq, &out, &edit->audit_path_len);
	else
		edit->path = keep_str(rq, &out, &edit->path_len);
	return 1;
}

static bool
name_is(const struct px_header *x, const char *name)
{
	size_t n = strlen(name);

	return x->name_len == n && axg_strncaseeq(x->name, name, n);
}

/* Scan header i; 1 if found, 0 if not, -1 on a scanner error. */
static int
scan_header(struct leak_hook *h, struct leak_req *rq, const struct px_header *x,
    size_t i, struct px_scan_edit *edit, char *err, size_t errlen)
{
	struct axg_buf *b = &h->line;
	char where[128];
	size_t pre;

	axg_buf_reset(b);
	axg_buf_append(b, x->name, x->name_len);
	axg_buf_puts(b, ": ");
	pre = b->len;
	axg_buf_append(b, x->value, x->value_len);
	leak_findings_reset(&h->f);
	if (leak_scan_buffer(h->sc, b->data, b->len, &h->f, err, errlen) < 0)
		return -1;
	if (h->f.n == 0)
		return 0;
	snprintf(where, sizeof(where), "header:%.*s",
	    (int)(x->name_len < 100 ? x->name_len : 100), x->name);
	for (size_t k = 0; k < h->f.n; k++) {
		uint64_t off = h->f.v[k].offset;

		report(h, &h->f.v[k], where, off > pre ? off - pre : 0,
		    action_of(h));
	}
	if (h->mode == LEAK_MODE_REDACT) {
		struct axg_buf out = AXG_BUF_INIT;

		axg_buf_init(&out, 0);
		redact_into(&out, x->value, x->value_len, &h->f, pre, "[", "]");
		edit->values[i] = keep_str(rq, &out, &edit->value_lens[i]);
	}
	return 1;
}

static enum px_scan_verdict
filter_head(void *arg, const struct px_http_info *req, void **req_state,
    struct px_scan_edit *edit, char *reason, size_t reasonlen)
{
	struct leak_hook *h = arg;
	struct leak_req *rq = axg_calloc(1, sizeof(*rq));
	const char *first = NULL;
	bool host_hit = false;
	char err[256];
	int rc;

	rq->h = h;
	rq->st = leak_stream_new(h->sc);
	leak_findings_init(&rq->f);
	axg_buf_init(&rq->held, 0);
	*req_state = rq;
	/* a redacted body may change length */
	edit->body_rewritten = h->mode == LEAK_MODE_REDACT;

	rc = scan_url(h, rq, req, edit, &host_hit, err, sizeof(err));
	if (rc < 0)
		return scan_failed(h, "URL", err, reason, reasonlen);
	if (rc > 0)
		first = "the URL";
	for (size_t i = 0; i < req->nheaders; i++) {
		const struct px_header *x = &req->headers[i];

		if (name_is(x, "proxy-authorization"))
			continue; /* for the proxy; never forwarded */
		rc = scan_header(h, rq, x, i, edit, err, sizeof(err));
		if (rc < 0)
			return scan_failed(h, "headers", err, reason,
			    reasonlen);
		if (rc > 0 && first == NULL)
			first = "a header";
	}
	if (h->mode == LEAK_MODE_LOG)
		return PX_SCAN_ALLOW;
	if (first != NULL && (h->mode == LEAK_MODE_BLOCK || host_hit)) {
		snprintf(reason, reasonlen, "credential found in %s%s", first,
		    host_hit ? " (host name)" : "");
		return PX_SCAN_BLOCK;
	}
	/* an encoded body is decoded for the scan, or refused; with no
	 * body there is nothing to decode, whatever Content-Encoding says */
	if (!req->has_body)
		return PX_SCAN_ALLOW;
	return leak_coded_open(h->sc, req, &rq->coded, reason, reasonlen);
}

static void
coded_report(void *arg, const struct leak_finding *x)
{
	report(arg, x, "body", x->offset, LEAK_ACTION_BLOCKED);
}

/* ---- the body ---- */

/* Forward what is settled: held bytes before upto, with the stream's
 * findings replaced in redact mode. */
static int
release(struct leak_req *rq, uint64_t upto, px_scan_emit_cb emit,
    void *emit_arg)
{
	struct axg_buf out = AXG_BUF_INIT;
	size_t n;
	int rc;

	if (upto <= rq->held_off)
		return 0;
	n = (size_t)(upto - rq->held_off);
	if (n > rq->held.len)
		n = rq->held.len;
	axg_buf_init(&out, 0);
	{
		/* findings in stream offsets; shift to held coordinates */
		size_t k = 0;

		while (k < rq->f.n && rq->f.v[k].offset < rq->held_off + n)
			k++;
		if (k > 0) {
			struct leak_findings part = { .v = rq->f.v,
				.n = k,
				.cap = k };

			redact_into(&out, rq->held.data, n, &part,
			    (size_t)rq->held_off, "[", "]");
			memmove(rq->f.v, rq->f.v + k,
			    (rq->f.n - k) * sizeof(*rq->f.v));
			rq->f.n -= k;
		} else {
			axg_buf_append(&out, rq->held.data, n);
		}
	}
	rc = out.len > 0 ? emit(emit_arg, out.data, out.len) : 0;
	axg_buf_free(&out);
	axg_buf_consume(&rq->held, n);
	rq->held_off += n;
	return rc;
}

static enum px_scan_verdict
filter_body(void *state, const char *p, size_t n, bool last,
    px_scan_emit_cb emit, void *emit_arg, char *reason, size_t reasonlen)
{
	struct leak_req *rq = state;
	struct leak_hook *h = rq->h;
	size_t before = rq->f.n;
	char err[256];
	int rc = 0;

	if (rq->coded != NULL)
		return leak_coded_body(rq->coded, p, n, last, emit, emit_arg,
		    coded_report, h, reason, reasonlen);
	if (n > 0 &&
	    leak_stream_feed(rq->st, p, n, &rq->f, err, sizeof(err)) < 0)
		goto failed;
	if (last && leak_stream_finish(rq->st, &rq->f, err, sizeof(err)) < 0)
		goto failed;
	for (size_t i = before; i < rq->f.n; i++)
		report(h, &rq->f.v[i], "body", rq->f.v[i].offset, action_of(h));
	if (h->mode == LEAK_MODE_LOG) {
		rq->f.n = 0;
		return n > 0 && emit(emit_arg, p, n) != 0 ? PX_SCAN_BLOCK
							  : PX_SCAN_ALLOW;
	}
	if (h->mode == LEAK_MODE_BLOCK && rq->f.n > 0) {
		snprintf(reason, reasonlen, "credential found in the body (%s)",
		    rq->f.v[0].rule_id);
		return PX_SCAN_BLOCK;
	}
	if (n > 0)
		axg_buf_append(&rq->held, p, n);
	rc = release(rq,
	    last ? rq->held_off + rq->held.len : leak_stream_settled(rq->st),
	    emit, emit_arg);
	return rc != 0 ? PX_SCAN_BLOCK : PX_SCAN_ALLOW;

failed:
	if (h->mode == LEAK_MODE_LOG) {
		axg_warn("credential scan of the body failed: %s", err);
		return n > 0 && emit(emit_arg, p, n) != 0 ? PX_SCAN_BLOCK
							  : PX_SCAN_ALLOW;
	}
	return scan_failed(h, "body", err, reason, reasonlen);
}

static enum px_scan_verdict on_connect(void *arg, const char *authority,
    size_t len, char *reason, size_t reasonlen);

void
leak_hook_fill(struct leak_hook *h, struct px_scan_hook *out)
{
	memset(out, 0, sizeof(*out));
	if (h->mode == LEAK_MODE_OFF)
		return;
	out->arg = h;
	out->filter_head = filter_head;
	out->filter_body = filter_body;
	out->end_request = req_free;
	out->on_connect = on_connect;
}

/* ---- CONNECT ---- */

/* Scan host[0..len) with the dots after labels a..b-1 removed (a == b:
 * as it is).  Returns 1 if something was found, 0 if not, -1 on a
 * scanner error. */
static int
scan_host(struct leak_hook *h, const char *host, size_t len, const size_t *dots,
    size_t ndots, size_t a, size_t b, const char **first, char *err,
    size_t errlen)
{
	struct axg_buf *buf = &h->line;
	uint32_t map[HOST_SCAN_MAX + 1];
	size_t d = 0;

	axg_buf_reset(buf);
	for (size_t i = 0; i < len; i++) {
		while (d < ndots && dots[d] < i)
			d++;
		if (d < ndots && dots[d] == i && d >= a && d < b)
			continue; /* the dot after label d joins label d+1 */
		map[buf->len] = (uint32_t)i;
		axg_buf_putc(buf, host[i]);
	}
	leak_findings_reset(&h->f);
	if (leak_scan_buffer(h->sc, buf->data, buf->len, &h->f, err, errlen) <
	    0)
		return -1;
	for (size_t i = 0; i < h->f.n; i++) {
		struct leak_finding *x = &h->f.v[i];
		uint32_t s = map[x->offset];
		uint32_t e = map[x->offset + x->length - 1] + 1;

		x->length = e - s;
		report(h, x, "connect", s,
		    h->mode == LEAK_MODE_LOG ? LEAK_ACTION_LOGGED
					     : LEAK_ACTION_BLOCKED);
		if (*first == NULL)
			*first = x->rule_id;
	}
	return h->f.n > 0;
}

enum leak_verdict
leak_hook_connect(struct leak_hook *h, const char *host, size_t len,
    char *reason, size_t reasonlen)
{
	size_t dots[HOST_SCAN_MAX], ndots = 0;
	const char *first = NULL;
	char err[256];
	int rc;

	if (h->mode == LEAK_MODE_OFF)
		return LEAK_ALLOW;
	if (len > HOST_SCAN_MAX)
		len = HOST_SCAN_MAX;
	for (size_t i = 0; i < len; i++)
		if (host[i] == '.')
			dots[ndots++] = i;
	/* as sent, then with 2 to HOST_JOIN_MAX neighbouring labels joined
	 * (a key split over labels) */
	rc = scan_host(h, host, len, dots, ndots, 0, 0, &first, err,
	    sizeof(err));
	for (size_t span = 1; rc == 0 && span < HOST_JOIN_MAX; span++)
		for (size_t a = 0; rc == 0 && a + span <= ndots; a++)
			rc = scan_host(h, host, len, dots, ndots, a, a + span,
			    &first, err, sizeof(err));
	if (rc < 0)
		return (enum leak_verdict)scan_failed(h, "host name", err,
		    reason, reasonlen);
	if (first == NULL || h->mode == LEAK_MODE_LOG)
		return LEAK_ALLOW;
	snprintf(reason, reasonlen, "credential found in the host name (%s)",
	    first);
	return LEAK_BLOCK;
}

/* The host part of host:port or [v6]:port, as sent. */
static enum px_scan_verdict
on_connect(void *arg, const char *authority, size_t len, char *reason,
    size_t reasonlen)
{
	const char *colon = memrchr(authority, ':', len);
	size_t n = colon != NULL ? (size_t)(colon - authority) : len;

	return leak_hook_connect(arg, authority, n, reason, reasonlen) ==
		LEAK_BLOCK
	    ? PX_SCAN_BLOCK
	    : PX_SCAN_ALLOW;
}
