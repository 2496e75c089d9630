/*
 * audit-int.h: what the files of audit/ share and nobody else sees.
 *
 * jw_*: a small JSON writer appending to an axg_buf.  Keys are string
 * literals (never escaped); values go through the escaping string writer.
 * A comma is written before a member unless the previous byte opened an
 * object or array.
 */
#ifndef AXG_AUDIT_INT_H
#define AXG_AUDIT_INT_H

#include <string.h>

#include "audit/audit.h"

/* The writer's helpers are inlined wherever they are used, so that a
 * literal key's length folds to a constant. */
#define JW_INLINE static inline __attribute__((always_inline))

struct jw {
	struct axg_buf *b;
	bool truncated; /* some value was cut */
	/* string-parts state */
	size_t str_used; /* output bytes of the current value */
	bool str_cut;
};

JW_INLINE void
jw_reserve(struct jw *w, size_t n)
{
	struct axg_buf *b = w->b;

	if (b->cap - b->len < n + 1)
		(void)axg_buf_reserve(b, n);
}

JW_INLINE void
jw_raw(struct jw *w, const char *s, size_t n)
{
	jw_reserve(w, n);
	memcpy(w->b->data + w->b->len, s, n);
	w->b->len += n;
	w->b->data[w->b->len] = '\0';
}

#define JW_LIT(w, lit) jw_raw((w), (lit), sizeof(lit) - 1)

JW_INLINE void
jw_sep(struct jw *w)
{
	char c = w->b->len ? w->b->data[w->b->len - 1] : '{';

	if (c != '{' && c != '[')
		jw_raw(w, ",", 1);
}

/* ,"key": in one go (keys are literals: strlen folds) */
JW_INLINE void
jw_key(struct jw *w, const char *key)
{
	size_t n = strlen(key);
	struct axg_buf *b;
	char *p;

	jw_reserve(w, n + 4);
	b = w->b;
	p = b->data + b->len;
	if (b->len != 0 && p[-1] != '{' && p[-1] != '[')
		*p++ = ',';
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	*p = '\0';
	b->len = (size_t)(p - b->data);
}

/* Append escaped s[0..n) to the current string value (json.c). */
bool jw__str_add(struct jw *w, const unsigned char *s, size_t n);
/* Write the decimal digits of v into out (>= 21 bytes); returns length. */
size_t jw_fmt_u64(char *out, uint64_t v);

JW_INLINE void
jw_obj(struct jw *w, const char *key) /* key NULL: a bare '{' */
{
	if (key != NULL)
		jw_key(w, key);
	else
		jw_sep(w);
	JW_LIT(w, "{");
}

JW_INLINE void
jw_end(struct jw *w)
{
	JW_LIT(w, "}");
}

JW_INLINE void
jw_arr(struct jw *w, const char *key)
{
	jw_key(w, key);
	JW_LIT(w, "[");
}

JW_INLINE void
jw_arr_end(struct jw *w)
{
	JW_LIT(w, "]");
}

/* A string value built from parts: begin, add..., end. */
JW_INLINE void
jw_sbegin(struct jw *w, const char *key)
{
	if (key != NULL)
		jw_key(w, key);
	else
		jw_sep(w);
	JW_LIT(w, "\"");
	w->str_used = 0;
	w->str_cut = false;
}

JW_INLINE void
jw_sadd(struct jw *w, const void *s, size_t n)
{
	(void)jw__str_add(w, s, n);
}

JW_INLINE void
jw_sadds(struct jw *w, const char *s)
{
	if (s != NULL)
		(void)jw__str_add(w, (const unsigned char *)s, strlen(s));
}

JW_INLINE void
jw_saddu(struct jw *w, uint64_t v)
{
	char tmp[24];

	(void)jw__str_add(w, (const unsigned char *)tmp, jw_fmt_u64(tmp, v));
}

JW_INLINE void
jw_send(struct jw *w)
{
	if (w->str_cut)
		JW_LIT(w, OCSF_TRUNC_MARKER);
	JW_LIT(w, "\"");
}

/* Members; NULL strings are skipped. */
JW_INLINE void
jw_strn(struct jw *w, const char *key, const void *s, size_t n)
{
	jw_sbegin(w, key);
	(void)jw__str_add(w, s, n);
	jw_send(w);
}

JW_INLINE void
jw_str(struct jw *w, const char *key, const char *s)
{
	if (s != NULL)
		jw_strn(w, key, s, strlen(s));
}

/* A string the code itself wrote (a caption, a validated IP address):
 * copied as it is, no escaping.  Never for anything from outside. */
JW_INLINE void
jw_cstr(struct jw *w, const char *key, const char *s)
{
	size_t n = strlen(s);
	struct axg_buf *b;
	char *p;

	jw_key(w, key);
	jw_reserve(w, n + 2);
	b = w->b;
	p = b->data + b->len;
	*p++ = '"';
	memcpy(p, s, n);
	p += n;
	*p++ = '"';
	*p = '\0';
	b->len = (size_t)(p - b->data);
}

JW_INLINE void
jw_u64(struct jw *w, const char *key, uint64_t v)
{
	char tmp[24];

	jw_key(w, key);
	jw_raw(w, tmp, jw_fmt_u64(tmp, v));
}

void jw_i64(struct jw *w, const char *key, int64_t v);
void jw_bool(struct jw *w, const char *key, bool v);
/* An array element string. */
void jw_elem_str(struct jw *w, const char *s);

/* ---- events ---- */

/* What the sinks need to know of a line besides its bytes. */
struct ocsf_meta {
	uint32_t class_uid;
	uint8_t severity_id;
	uint64_t time_ms;
};

/* The common head of every event: class, activity, captions, severity,
 * time, status, metadata (with a fresh uid).  profiles: NULL-terminated. */
struct ocsf_head {
	uint32_t class_uid;
	const char *class_name;
	uint32_t category_uid;
	const char *category_name;
	int activity_id;
	const char *activity_name;
	const char *type_name; /* "Network Activity: Open" */
	int severity_id;
	uint64_t time_ms;
	int status_id;	    /* 0: omitted */
	const char *status; /* caption */
	const char *correlation_uid;
	const char *const *profiles;
};

/* Begin an event: '{' and the head.  The caller adds members and calls
 * ocsf_event_end(). */
void ocsf_event_begin(struct jw *w, const struct ocsf_head *h,
    struct ocsf_meta *meta);
/* Close the event ('}' and '\n'); records truncation in the line. */
void ocsf_event_end(struct jw *w, size_t start);

const char *ocsf_severity_name(int id);
void
ocsf_put_endpoint(struct jw *w, const char *key, const struct ocsf_endpoint *e);
bool ocsf_endpoint_empty(const struct ocsf_endpoint *e);
void
ocsf_put_policy(struct jw *w, const char *key, const struct ocsf_policy *p);
bool ocsf_policy_empty(const struct ocsf_policy *p);
void ocsf_put_device(struct jw *w, const struct ocsf_origin *o);
void ocsf_put_actor_process(struct jw *w, const struct ocsf_origin *o,
    bool with_user);
void ocsf_put_url(struct jw *w, const char *key, const struct ocsf_url *u);
/* The caption of an allowed/denied decision. */
void ocsf_put_decision(struct jw *w, bool allowed);
/* connection_info, outbound TCP, with uid when given. */
void ocsf_put_conn_info(struct jw *w, const char *uid);
bool ocsf_ip_valid(const char *s);

/* The internal formatters behind ocsf_format_*() and ocsf_emit_*(). */
int ocsf__net(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_net_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
int ocsf__http(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_http_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
int ocsf__finding(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_finding_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
int ocsf__process(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_process_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
int ocsf__api(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_api_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
int ocsf__policy(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_policy_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
int ocsf__app(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_app_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen);
/* The writer's own report of events it had to drop (6002, Other). */
int ocsf__drop_report(struct axg_buf *out, const struct ocsf_origin *o,
    uint64_t dropped, uint64_t total, struct ocsf_meta *m);

/* ---- sinks (used by the writer thread only) ---- */

struct ocsf_sink;

/* One line of a batch. */
struct ocsf_line {
	const char *data; /* ends in '\n'; inside the batch's bytes */
	size_t len;
	struct ocsf_meta meta;
};

/* A batch handed to every sink: its lines, which lie one after the other
 * in data[0..len), so a byte-stream sink writes them in one call. */
struct ocsf_batch {
	const char *data;
	size_t len;
	const struct ocsf_line *lines;
	size_t n;
};

struct ocsf_sink *ocsf_sink_open(const struct ocsf_sink_spec *spec,
    const struct ocsf_config *c, char *err, size_t errlen);
void ocsf_sink_close(struct ocsf_sink *s);
const char *ocsf_sink_name(const struct ocsf_sink *s);
/* Start delivering a new batch. */
void ocsf_sink_begin(struct ocsf_sink *s);
/* Push the batch on: 0 all delivered, 1 not yet (would block; call again),
 * -1 failed (message in err; the sink keeps its place and retries). */
int ocsf_sink_write(struct ocsf_sink *s, const struct ocsf_batch *b, bool fsync,
    char *err, size_t errlen);
/* Reopen a file, reconnect a socket.  -1 with a message if that failed
 * (the old file stays in use). */
int ocsf_sink_reopen(struct ocsf_sink *s, char *err, size_t errlen);

#endif /* AXG_AUDIT_INT_H */
