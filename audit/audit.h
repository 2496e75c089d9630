/*
 * audit.h: axgate's audit trail as OCSF 1.8.0 events, one JSON object per
 * line, delivered to sinks (file, stdout, syslog) by a writer thread so that
 * the caller never waits on disk or network.
 *
 * Events are typed structs the caller fills; every string member is a
 * NUL-terminated string the caller keeps ownership of (NULL means "omit").
 * Nothing is kept after a call returns: the event is serialised on the
 * spot.  Strings may be hostile: they are escaped, invalid UTF-8 becomes
 * U+FFFD, and a value longer than OCSF_STRING_MAX bytes of output is cut and
 * marked with OCSF_TRUNC_MARKER (and metadata.is_truncated is set).
 *
 * Two ways to use an event:
 *   ocsf_format_*()  append the line (with its '\n') to an axg_buf;
 *   ocsf_emit_*()    hand it to a writer, which queues it for its sinks.
 *
 * Errors follow common.h: -1 with a message in err[errlen] where the
 * function takes one.
 */
#ifndef AXG_AUDIT_H
#define AXG_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

#define OCSF_SCHEMA_VERSION "1.8.0"
/* Longest string value written, in bytes of JSON output (escapes count). */
#define OCSF_STRING_MAX 2048
/* Appended to a value that was cut. */
#define OCSF_TRUNC_MARKER "...[truncated]"

/* ------------------------------------------------------------------ */
/* Pieces shared by several events                                     */

/* A network endpoint.  ip must be a textual IPv4/IPv6 address; anything
 * else is left out of the event (OCSF checks the format). */
struct ocsf_endpoint {
	const char *hostname;
	const char *ip;
	unsigned port;	 /* 0: omitted */
	const char *uid; /* the job id, on the job's side */
};

/* The policy that decided: name, uid (hash of the compiled policy) and
 * version. */
struct ocsf_policy {
	const char *name;
	const char *uid;
	const char *version;
};

/* A URL as the request gave it and its parts (all optional, but one of
 * url_string and path must be set for the url object to appear). */
struct ocsf_url {
	const char *url_string;
	const char *scheme;
	const char *hostname;
	unsigned port; /* 0: omitted */
	const char *path;
	const char *query;
};

/* Who writes the events: the device (gateway host) and the axgate process.
 * Filled once; ocsf_origin_default() fills it from the running system. */
struct ocsf_origin {
	const char *device_hostname;
	const char *device_ip; /* NULL: omitted */
	int pid;
	const char *process_name; /* "axgate" */
	const char *user_name;	  /* NULL: omitted */
	const char *user_uid;	  /* NULL: omitted */
};

/* Fill o with the host name, getpid(), "axgate" and the real user.  The
 * strings live in static storage of this module (valid until exit). */
void ocsf_origin_default(struct ocsf_origin *o);

/* ------------------------------------------------------------------ */
/* Network Activity (4001): a CONNECT and its tunnel                   */

enum ocsf_net_activity {
	OCSF_NET_OPEN = 1,   /* CONNECT allowed */
	OCSF_NET_CLOSE = 2,  /* tunnel ended normally */
	OCSF_NET_RESET = 3,  /* tunnel cut by axgate (timeout, SNI, leak) */
	OCSF_NET_FAIL = 4,   /* upstream unreachable (DNS, timeout, refused) */
	OCSF_NET_REFUSE = 5, /* CONNECT denied */
};

struct ocsf_net_event {
	enum ocsf_net_activity activity;
	uint64_t time_ms;	     /* 0: now */
	const char *correlation_uid; /* the job id */
	const char *connection_uid;  /* the connection id */
	struct ocsf_endpoint src;    /* the job's side; src.uid = job id */
	struct ocsf_endpoint dst;    /* host asked for, address used */
	struct ocsf_policy policy;
	const char *rule;	   /* the rule that matched */
	const char *reason;	   /* the policy's reason */
	const char *status_detail; /* NULL: the reason */
	const char *message;	   /* NULL: built from the fields */
	uint64_t bytes_in;	   /* Close/Reset: bytes from upstream */
	uint64_t bytes_out;	   /* Close/Reset: bytes to upstream */
	uint64_t start_ms;	   /* Close/Reset: tunnel start; 0: omit */
	uint64_t end_ms;	   /* Close/Reset: tunnel end; 0: omit */
};

int ocsf_format_net(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_net_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* HTTP Activity (4002): a plain-HTTP or inference request             */

struct ocsf_http_event {
	uint64_t time_ms; /* 0: now */
	const char *correlation_uid;
	const char *connection_uid;
	bool allowed;
	const char *method; /* request method as received */
	struct ocsf_url url;
	const char *http_version; /* "HTTP/1.1" */
	const char *user_agent;
	int status_code; /* response code; 0: 200 allowed, 403 denied */
	const char *content_type; /* of the response */
	int64_t latency_ms;	  /* < 0: omitted */
	struct ocsf_endpoint src;
	struct ocsf_endpoint dst;
	struct ocsf_policy policy;
	const char *rule;
	const char *reason;
	const char *status_detail; /* NULL: the reason */
	const char *message;	   /* NULL: built */
	/* Inference requests (network_proxy profile): the route and the
	 * request axgate made to the backend. */
	const char *route;
	const char *backend_method;
	const char *backend_url;
	uint64_t bytes_in;  /* from the backend */
	uint64_t bytes_out; /* to the backend */
};

int ocsf_format_http(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_http_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Detection Finding (2004): a credential in outbound traffic          */

enum ocsf_leak_action {
	OCSF_LEAK_BLOCKED = 1,	/* request refused */
	OCSF_LEAK_REDACTED = 2, /* secret replaced, request sent */
	OCSF_LEAK_LOGGED = 3,	/* monitor mode: the secret got out */
};

struct ocsf_finding_event {
	uint64_t time_ms; /* 0: now */
	const char *correlation_uid;
	const char *connection_uid;
	enum ocsf_leak_action action;
	const char *rule_id;	/* the leak rule's id */
	const char *rule_title; /* "AWS access key ID" */
	const char *where;	/* "body", "header:Authorization", "url" */
	uint64_t offset;	/* byte offset of the match in `where` */
	/* A preview of the match.  It is masked again here (at most 4
	 * leading and 4 trailing characters survive, fewer for short
	 * values), so even a raw secret passed by mistake is not written. */
	const char *preview;
	int confidence; /* 1 Low, 2 Medium, 3 High; 0: omitted */
	const char *method;
	const char *url;
	struct ocsf_endpoint src;
	struct ocsf_endpoint dst;
	struct ocsf_policy policy;
	const char *message; /* NULL: built */
};

int ocsf_format_finding(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_finding_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Process Activity (1007): a job launched or terminated               */

enum ocsf_proc_activity {
	OCSF_PROC_LAUNCH = 1,
	OCSF_PROC_TERMINATE = 2,
};

struct ocsf_process_event {
	enum ocsf_proc_activity activity;
	uint64_t time_ms;	     /* 0: now */
	const char *correlation_uid; /* the job id (also process.uid) */
	bool failed;		     /* launch refused (fails closed) */
	const char *status_detail;   /* what was missing */
	int pid;		     /* the job's pid; <= 0: omitted */
	const char *name;	     /* "python3" */
	const char *cmd_line;
	uint64_t created_ms;	/* 0: omitted */
	uint64_t terminated_ms; /* 0: omitted */
	const char *user_name;
	const char *user_uid;
	int exit_code;	     /* Terminate: exit status when signal == 0 */
	int signal;	     /* Terminate: > 0 if killed by this signal */
	const char *message; /* NULL: built */
};

int ocsf_format_process(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_process_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* API Activity (6003): an inference call's model and token usage      */

struct ocsf_api_event {
	uint64_t time_ms; /* 0: now */
	const char *correlation_uid;
	const char *connection_uid;
	const char *operation; /* "chat.completions" (required) */
	const char *provider;  /* "openai" (required) */
	const char *model;     /* "gpt-4.1-mini" (required) */
	const char *model_version;
	int64_t prompt_tokens;	   /* < 0: omitted */
	int64_t completion_tokens; /* < 0: omitted */
	int64_t total_tokens;	   /* < 0: prompt + completion if known */
	int status_code;	   /* backend's response code; 0: omitted */
	int64_t latency_ms;	   /* < 0: omitted */
	bool failed;
	const char *status_detail;
	int job_pid; /* <= 0: omitted */
	const char *job_process_name;
	struct ocsf_endpoint src; /* the job; src.uid = job id */
	struct ocsf_endpoint dst; /* the backend */
	const char *message;	  /* NULL: built */
};

int ocsf_format_api(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_api_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Entity Management (3004): policy loaded, reloaded, reload failed    */

enum ocsf_policy_change {
	OCSF_POLICY_LOADED = 1,	       /* Create: entity = the new policy */
	OCSF_POLICY_RELOADED = 2,      /* Update: entity old, result new */
	OCSF_POLICY_RELOAD_FAILED = 3, /* Update, Failure: old kept */
};

struct ocsf_policy_event {
	enum ocsf_policy_change change;
	uint64_t time_ms;	   /* 0: now */
	const char *trigger;	   /* "startup", "SIGHUP", "admin API" */
	struct ocsf_policy old;	   /* RELOADED, RELOAD_FAILED */
	struct ocsf_policy cur;	   /* LOADED, RELOADED; FAILED: attempted */
	const char *status_detail; /* RELOAD_FAILED: the compile error */
	const char *message;	   /* NULL: built */
};

int ocsf_format_policy(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_policy_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Application Lifecycle (6002): `axgate serve` started and stopped    */

enum ocsf_app_activity {
	OCSF_APP_START = 3,
	OCSF_APP_STOP = 4,
};

struct ocsf_app_event {
	enum ocsf_app_activity activity;
	uint64_t time_ms; /* 0: now */
	bool failed;
	const char *status_detail;
	const char *message; /* NULL: built */
};

int ocsf_format_app(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_app_event *ev, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Configuration: sinks and the writer's queue                         */

enum ocsf_sink_kind {
	OCSF_SINK_FILE,	      /* file:PATH */
	OCSF_SINK_STDOUT,     /* stdout */
	OCSF_SINK_SYSLOG,     /* syslog[:SOCKET], RFC 5424 over a unix socket */
	OCSF_SINK_SYSLOG_TCP, /* syslog+tcp://HOST:PORT, RFC 6587 framing */
	OCSF_SINK_FD,	      /* fd:N, lines on an open descriptor that
				 another axgate process reads (never
				 closed by the writer) */
};

#define OCSF_MAX_SINKS	     8
#define OCSF_DEFAULT_SYSLOG  "/dev/log"
#define OCSF_SYSLOG_FACILITY 13 /* "log audit" (RFC 5424) */

struct ocsf_sink_spec {
	enum ocsf_sink_kind kind;
	char target[1024]; /* file path, unix socket path, or TCP host */
	char port[8];	   /* TCP port */
};

enum ocsf_overflow {
	OCSF_OVERFLOW_BLOCK, /* the producer waits for room */
	OCSF_OVERFLOW_DROP,  /* the event is dropped and counted */
	OCSF_OVERFLOW_DENY,  /* ocsf_writer_accepting() turns false */
};

struct ocsf_config {
	struct ocsf_sink_spec sinks[OCSF_MAX_SINKS];
	size_t nsinks;
	enum ocsf_overflow overflow;
	size_t queue_size;	    /* events; default 65536 */
	bool fsync;		    /* fdatasync file sinks after each batch */
	unsigned drain_timeout_ms;  /* shutdown gives up after; default 5000 */
	unsigned error_interval_ms; /* a failing sink is reported at most
				       once per interval; default 10000 */
	int syslog_facility;	    /* default OCSF_SYSLOG_FACILITY */
};

/* Defaults, no sinks. */
void ocsf_config_init(struct ocsf_config *c);
/* Parse one sink spec ("file:/var/log/axgate.jsonl", "stdout", "syslog",
 * "syslog:/run/x.sock", "syslog+tcp://127.0.0.1:6514",
 * "syslog+tcp://[::1]:6514"). */
int ocsf_sink_spec_parse(const char *spec, struct ocsf_sink_spec *out,
    char *err, size_t errlen);
/* Parse and append a sink spec to c. */
int ocsf_config_add_sink(struct ocsf_config *c, const char *spec, char *err,
    size_t errlen);
/* "block", "drop" or "deny". */
int ocsf_overflow_parse(const char *s, enum ocsf_overflow *out, char *err,
    size_t errlen);
const char *ocsf_overflow_name(enum ocsf_overflow o);

/* ------------------------------------------------------------------ */
/* The writer: a bounded queue and one thread doing all the I/O        */

/* This is an opaque structure. */
struct ocsf_writer;

/* Open the sinks and start the writer thread.  A file that cannot be
 * opened is an error; a syslog socket or collector that is down is not (it
 * is reported and retried).  The config and origin are copied. */
struct ocsf_writer *ocsf_writer_new(const struct ocsf_config *c,
    const struct ocsf_origin *o, char *err, size_t errlen);
/* Drain (bounded by drain_timeout_ms), stop the thread, close the sinks,
 * free.  NULL is allowed. */
void ocsf_writer_free(struct ocsf_writer *w);

/* Results of ocsf_emit_*(). */
enum {
	OCSF_QUEUED = 0,  /* the event will be written */
	OCSF_DROPPED = 1, /* queue full (drop, or deny past its headroom) */
	OCSF_ERROR = -1,  /* invalid event, or the writer is shut down */
};

/* Serialise an event and queue it.  Never waits on I/O; waits for room
 * only under OCSF_OVERFLOW_BLOCK.  Thread-safe. */
int ocsf_emit_net(struct ocsf_writer *w, const struct ocsf_net_event *ev);
int ocsf_emit_http(struct ocsf_writer *w, const struct ocsf_http_event *ev);
int
ocsf_emit_finding(struct ocsf_writer *w, const struct ocsf_finding_event *ev);
int
ocsf_emit_process(struct ocsf_writer *w, const struct ocsf_process_event *ev);
int ocsf_emit_api(struct ocsf_writer *w, const struct ocsf_api_event *ev);
int ocsf_emit_policy(struct ocsf_writer *w, const struct ocsf_policy_event *ev);
int ocsf_emit_app(struct ocsf_writer *w, const struct ocsf_app_event *ev);

/* Under OCSF_OVERFLOW_DENY: false once the queue has reached its high
 * watermark (3/4 of queue_size), true again when it has drained below the
 * low watermark (1/2).  Always true under the other policies.  The proxy
 * asks before accepting a connection.  Lock-free. */
/* An event serialised by another axgate process (the proxy child of
 * `axgate run` writes its events to an fd: sink that the launcher reads):
 * one JSON object of at most OCSF_LINE_MAX bytes, without the newline,
 * with integer class_uid, severity_id and time.  Anything else is
 * refused (OCSF_ERROR) and counted as invalid. */
#define OCSF_LINE_MAX 65536
int ocsf_emit_line(struct ocsf_writer *w, const char *line, size_t len);

bool ocsf_writer_accepting(struct ocsf_writer *w);

/* Ask the writer to reopen its file sinks (after logrotate renamed them)
 * and reconnect its sockets, at its next batch boundary: a batch (and so a
 * line) is never split between the old file and the new one, and no line
 * is lost.  Lines still queued at the call go to the new file.  Not
 * async-signal-safe: call it from the event loop's SIGHUP callback. */
void ocsf_writer_reopen(struct ocsf_writer *w);

/* Wait until everything queued so far is written (or timeout_ms passes).
 * 0 when drained, -1 on timeout. */
int ocsf_writer_flush(struct ocsf_writer *w, unsigned timeout_ms);

/* Hold the writer's thread still for a fork() or clone(): wait until it
 * is not working (writing, formatting, allocating) and keep it waiting
 * until ocsf_writer_release().  A process forked from a threaded one
 * inherits every lock another thread held at the fork; an allocator's
 * lock held by the writer then (ASan's are not reset at fork) hangs the
 * child at its next allocation of that size.  Between the two calls the
 * holding thread must not emit (ocsf_emit_* fails) nor flush (-1).
 * NULL is a no-op. */
void ocsf_writer_hold(struct ocsf_writer *w);
void ocsf_writer_release(struct ocsf_writer *w);

struct ocsf_stats {
	uint64_t submitted;   /* events handed to ocsf_emit_*() */
	uint64_t written;     /* events delivered to every sink */
	uint64_t dropped;     /* refused for lack of room */
	uint64_t lost;	      /* given up at shutdown (sink never recovered) */
	uint64_t invalid;     /* rejected by the serialiser */
	uint64_t sink_errors; /* failed write/connect attempts, all sinks */
	uint64_t reopens;     /* reopen requests carried out */
	size_t queued;	      /* in the queue or being written now */
	size_t capacity;
	bool accepting;
};

void ocsf_writer_stats(struct ocsf_writer *w, struct ocsf_stats *out);

/* ------------------------------------------------------------------ */
/* Helpers, exposed for callers and tests                              */

/* Append s[0..n) as a JSON string (quotes included): escaped, invalid
 * UTF-8 replaced by U+FFFD, cut at OCSF_STRING_MAX bytes of output with
 * OCSF_TRUNC_MARKER.  Returns true if the value was cut. */
bool ocsf_json_string(struct axg_buf *out, const void *s, size_t n);

/* Write a random (version 4) UUID as 36 characters plus a NUL. */
void ocsf_uuid4(char out[37]);

/* Mask a credential preview: keep at most 4 leading and 4 trailing
 * characters of a 16+ character value (2 and 2 from 8, none below), stars
 * in between (at most 32).  out_size >= 41. */
void ocsf_mask_preview(char *out, size_t out_size, const char *preview);

#endif /* AXG_AUDIT_H */
