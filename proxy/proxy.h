/*
 * proxy.h: axgate's forward proxy (prefix px_).
 *
 * Four layers, each usable on its own:
 *  - a strict, bounded HTTP/1.1 request/response head parser and a chunked
 *    body decoder (http1.c): no allocation, every result points into the
 *    caller's buffer;
 *  - host canonicalisation and address classification (host.c): one
 *    (host, port) value per request, decided once at the edge;
 *  - a bounded TLS ClientHello parser that extracts the SNI (tls-hello.c);
 *  - the libevent proxy itself (core.c and friends): listeners, CONNECT
 *    tunnels and plain-HTTP forwarding, with three seams that other parts
 *    fill in: a decider (policy), an audit hook and a body-scan hook.
 *
 * Ownership: nothing returned by the parsers is allocated; pointers in a
 * parsed request are valid as long as the caller's buffer is.  A px_proxy
 * owns its listeners and connections; px_proxy_free() closes them all.
 * Strings handed to the hooks are valid only during the call.
 */
#ifndef AXG_PROXY_H
#define AXG_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* ------------------------------------------------------------------ */
/* HTTP/1.1 heads                                                      */
/* ------------------------------------------------------------------ */

struct px_http_limits {
	size_t max_head;    /* whole head, request line to blank line */
	size_t max_line;    /* any one line (request line or field) */
	size_t max_headers; /* header fields */
};

/* Defaults: 16 KiB head, 8 KiB line, 100 fields. */
void px_http_limits_default(struct px_http_limits *lim);

/* One header field; name and value point into the parsed buffer.  The value
 * has its leading and trailing whitespace removed. */
struct px_header {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

enum px_target_form {
	PX_FORM_ORIGIN = 0, /* /path?query */
	PX_FORM_ABSOLUTE,   /* http://authority/path */
	PX_FORM_AUTHORITY,  /* host:port (CONNECT only) */
	PX_FORM_ASTERISK,   /* * (OPTIONS only) */
};

enum px_body_kind {
	PX_BODY_NONE = 0,
	PX_BODY_LENGTH,	 /* Content-Length bytes */
	PX_BODY_CHUNKED, /* Transfer-Encoding: chunked */
	PX_BODY_CLOSE,	 /* responses only: until the connection closes */
};

/* A parsed request head.  The caller supplies the header array. */
struct px_request {
	const char *method;
	size_t method_len;
	bool is_connect;
	const char *target;
	size_t target_len;
	enum px_target_form form;
	/* absolute-form: the parts of the target (scheme lower-cased by the
	 * caller if needed; compare with axg_strncaseeq) */
	const char *scheme;
	size_t scheme_len;
	const char *authority; /* also set for authority-form */
	size_t authority_len;
	const char *path; /* "/" when the absolute-form had none */
	size_t path_len;
	int version_minor; /* HTTP/1.<minor>: 0 or 1 */
	struct px_header *headers;
	size_t nheaders;
	int host_index; /* index of the Host field, -1 if absent */
	enum px_body_kind body;
	uint64_t content_length;
	bool keep_alive; /* from version and Connection */
	bool upgrade;	 /* an Upgrade field was present */
	bool expect_continue;
	size_t head_len; /* bytes of the head, blank line included */
};

/* A parsed response head (from an upstream). */
struct px_response {
	int status;
	int version_minor;
	struct px_header *headers;
	size_t nheaders;
	enum px_body_kind body;
	uint64_t content_length;
	bool keep_alive;
	size_t head_len;
};

/*
 * Parse a request head at the start of buf[0..len).
 * Returns the head length (> 0) when a whole, valid head is there; 0 when
 * more bytes are needed (and the bytes so far are valid and within the
 * limits); -1 on error, with *status set to the HTTP status to answer (400,
 * 414, 431, 501, 505) and a reason in err.  hdrs has room for
 * lim->max_headers fields.
 */
int px_http1_parse_request(const char *buf, size_t len,
    const struct px_http_limits *lim, struct px_request *req,
    struct px_header *hdrs, int *status, char *err, size_t errlen);

/* The same for a response head; is_head_request and a 1xx/204/304 status
 * give PX_BODY_NONE.  Returns head length, 0 or -1 (err set). */
int px_http1_parse_response(const char *buf, size_t len,
    const struct px_http_limits *lim, bool is_head_request,
    struct px_response *resp, struct px_header *hdrs, char *err, size_t errlen);

/* Does the comma-separated header value list contain token (case-
 * insensitively)? */
bool px_http_list_has(const char *value, size_t len, const char *token);

/* Is this header hop-by-hop (RFC 9110 7.6.1 plus the Proxy-* fields and
 * any field named in connection_value)? */
bool px_http_is_hop_by_hop(const struct px_header *h,
    const char *connection_value, size_t connection_len);

/*
 * Chunked transfer coding, decoded incrementally.  Chunk sizes are 1 to 16
 * hex digits, no sign or space; extensions are limited to token
 * characters; trailer fields are validated like header fields.  The total
 * size is capped by max_body (0: no cap) and the trailer section by
 * max_trailer bytes.
 */
struct px_chunked {
	int state;
	uint64_t remaining; /* of the current chunk */
	uint64_t total;
	uint64_t max_body;
	size_t line_len; /* of the current size/trailer line */
	size_t max_line;
	size_t trailer_bytes;
	size_t max_trailer;
	bool line_empty; /* current trailer line empty so far */
	bool ext;	 /* inside a chunk extension */
	unsigned digits;
};

void px_chunked_init(struct px_chunked *c, uint64_t max_body, size_t max_line);

/* Callback for decoded body bytes. */
typedef int (*px_chunk_data_cb)(void *arg, const char *p, size_t n);

/*
 * Feed in[0..len).  *used receives the bytes consumed (always all of them
 * unless the body ended or an error occurred).  data_cb (may be NULL) is
 * called with decoded data; a nonzero return from it stops with -1.
 * Returns 1 when the body (with its trailers) is complete, 0 when more is
 * needed, -1 on a framing error (err set).
 */
int
px_chunked_feed(struct px_chunked *c, const char *in, size_t len, size_t *used,
    px_chunk_data_cb data_cb, void *arg, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Hosts and addresses                                                 */
/* ------------------------------------------------------------------ */

#define PX_HOST_MAX 253

enum px_host_kind {
	PX_HOST_NAME = 0,
	PX_HOST_IPV4,
	PX_HOST_IPV6,
};

/*
 * A canonical (host, port): names are lower-case ASCII without a trailing
 * dot; IPv4 addresses are dotted quads (legacy spellings such as
 * 2130706433, 0x7f.1 or 127.1 are decoded with inet_aton rules, flagged, and
 * never treated as names); IPv6 addresses are in inet_ntop form, and
 * `authority` puts them in brackets.
 */
struct px_hostport {
	enum px_host_kind kind;
	bool legacy_ipv4;	    /* spelled other than as a dotted quad */
	char host[PX_HOST_MAX + 1]; /* no brackets */
	uint16_t port;
	struct in_addr v4;
	struct in6_addr v6;
	char authority[PX_HOST_MAX + 9]; /* host:port, [v6]:port */
};

/* Canonicalise a bare host (name, IPv4, or bracketed IPv6) of n bytes.
 * The port is left 0.  -1 with a reason on an invalid host. */
int px_host_canon(const char *s, size_t n, struct px_hostport *out, char *err,
    size_t errlen);

/* Canonicalise host[:port].  When the port is absent, default_port is used
 * if nonzero, else it is an error.  Ports are 1-65535 in plain decimal with
 * no leading zero. */
int px_host_parse_authority(const char *s, size_t n, uint16_t default_port,
    struct px_hostport *out, char *err, size_t errlen);

/* Replace the host by "redacted.invalid" (the port is kept): for a host
 * that carries a credential, which must not reach the audit. */
void px_host_redact(struct px_hostport *hp);

/* Do two canonical values name the same (host, port)? */
bool
px_hostport_equal(const struct px_hostport *a, const struct px_hostport *b);

enum px_addr_class {
	PX_ADDR_PUBLIC = 0,
	PX_ADDR_UNSPECIFIED, /* 0.0.0.0/8, :: */
	PX_ADDR_LOOPBACK,    /* 127/8, ::1 */
	PX_ADDR_PRIVATE,     /* 10/8, 172.16/12, 192.168/16 */
	PX_ADDR_CGNAT,	     /* 100.64/10 */
	PX_ADDR_LINKLOCAL,   /* 169.254/16, fe80::/10 */
	PX_ADDR_METADATA,    /* cloud metadata endpoints */
	PX_ADDR_MULTICAST,   /* 224/4, ff00::/8 */
	PX_ADDR_BROADCAST,   /* 255.255.255.255 */
	PX_ADDR_RESERVED,    /* 240/4, 192.0.0/24, 192.0.2/24, 198.18/15, ... */
	PX_ADDR_ULA,	     /* fc00::/7 */
};

/* Classify an address.  IPv6 forms that embed an IPv4 address (mapped,
 * compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo) are
 * classified by the embedded address. */
enum px_addr_class px_addr_classify(const struct sockaddr *sa);
enum px_addr_class px_addr_classify_v4(const struct in_addr *a);
enum px_addr_class px_addr_classify_v6(const struct in6_addr *a);
const char *px_addr_class_name(enum px_addr_class c);

/* Format an address as text (no port): buf needs INET6_ADDRSTRLEN. */
const char *px_addr_str(const struct sockaddr *sa, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* TLS ClientHello                                                     */
/* ------------------------------------------------------------------ */

enum px_hello_result {
	PX_HELLO_ERROR = -1, /* not TLS, or malformed */
	PX_HELLO_MORE = 0,   /* need more bytes */
	PX_HELLO_SNI = 1,    /* a host_name was found */
	PX_HELLO_NO_SNI = 2, /* a complete ClientHello without SNI */
};

/* The largest ClientHello handshake message accepted. */
#define PX_HELLO_MAX 16384

/*
 * Parse the TLS records at the start of buf[0..len) (the first bytes a
 * client sent) and extract the SNI host_name into sni[snilen].  Handles a
 * ClientHello split over several records and several reads (call again
 * with the longer buffer).  An SNI that is not a valid DNS name (an IP
 * literal, non-ASCII, too long) is an error.
 */
enum px_hello_result px_tls_hello_sni(const uint8_t *buf, size_t len, char *sni,
    size_t snilen, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* The proxy                                                           */
/* ------------------------------------------------------------------ */

struct event_base;
struct px_proxy;

/* A policy answer. */
struct px_decision {
	bool allow;
	char rule[64];
	char reason[160];
};

/* What the decider sees of a plain-HTTP request (valid during the call). */
struct px_http_info {
	const struct px_hostport *target;
	const char *method;
	size_t method_len;
	const char *path;
	size_t path_len;
	const struct px_header *headers;
	size_t nheaders;
	const struct sockaddr *client;
	bool has_body; /* a body follows the head (Content-Length > 0 or
			* chunked) */
};

/*
 * The policy seam.  Each callback fills *out and returns 0, or returns -1
 * on an evaluation error (the proxy then denies: fail closed).  A NULL
 * callback denies.
 */
struct px_decider {
	int (*decide_connect)(void *arg, const struct px_hostport *target,
	    const struct sockaddr *client, struct px_decision *out);
	int (*decide_address)(void *arg, const struct px_hostport *target,
	    const struct sockaddr *addr, struct px_decision *out);
	int (*decide_http)(void *arg, const struct px_http_info *req,
	    struct px_decision *out);
	void *arg;
	/* Optional: a snapshot of the policy per connection, so that a
	 * reload never changes the rules under a connection in flight.
	 * acquire(arg) is called when a connection is accepted, and what it
	 * returns is the first argument of every decide_* call for that
	 * connection (instead of arg) and the snap of its audit records;
	 * release(arg, snap) is called when the connection ends. */
	void *(*acquire)(void *arg);
	void (*release)(void *arg, void *snap);
};

enum px_audit_kind {
	PX_AUDIT_CONNECT = 0, /* a CONNECT tunnel (or its refusal) */
	PX_AUDIT_HTTP,	      /* one plain-HTTP request */
	PX_AUDIT_REJECT,      /* a head that could not be parsed or a limit */
};

enum px_outcome {
	PX_OUTCOME_ALLOWED = 0,
	PX_OUTCOME_DENIED, /* by policy (connect, address, http, sni, scan) */
	PX_OUTCOME_ERROR,  /* malformed, limit, DNS or dial failure */
};

/* One record per request: written when it ends. */
struct px_audit_record {
	enum px_audit_kind kind;
	enum px_outcome outcome;
	int status;	   /* status sent to the client; 0 if none */
	const char *stage; /* where it was decided: "connect", "address",
			      "http", "sni", "scan", "dns", "dial", "parse",
			      "limit", "done" */
	const char *rule;
	const char *reason;
	const char *host; /* canonical; "" if unknown */
	uint16_t port;
	const char *method; /* "" for CONNECT parse errors */
	const char *path;   /* plain HTTP: origin-form path */
	const char *sni;    /* "" if none was read */
	const struct sockaddr *client;
	const struct sockaddr *upstream; /* NULL if nothing was dialed */
	bool dialed;			 /* an upstream connection was made */
	uint64_t bytes_up;		 /* client to upstream, body/tunnel */
	uint64_t bytes_down;		 /* upstream to client */
	uint64_t start_ms;		 /* wall clock */
	uint64_t duration_us;
	void *snap; /* the decider's snapshot (see struct px_decider) */
	/* inference.local requests: the route chosen and the backend URL
	 * the request went to; "" otherwise */
	const char *route;
	const char *backend_url;
};

struct px_audit_hook {
	void (*record)(void *arg, const struct px_audit_record *rec);
	void *arg;
	/* Optional: a CONNECT tunnel was established (stage "open"); its
	 * record follows when it ends. */
	void (*opened)(void *arg, const struct px_audit_record *rec);
};

enum px_scan_verdict {
	PX_SCAN_ALLOW = 0,
	PX_SCAN_BLOCK = 1,	 /* a credential: 403 */
	PX_SCAN_MALFORMED = 2,	 /* an encoded body that does not decode: 400 */
	PX_SCAN_TOO_LARGE = 3,	 /* decodes beyond the scan's bounds: 413 */
	PX_SCAN_UNSUPPORTED = 4, /* a Content-Encoding it cannot read: 415 */
};

/*
 * A head rewrite asked for by a scan hook (redaction).  The strings are
 * the hook's, valid until its end_request.
 */
struct px_scan_edit {
	const char *path; /* replacement origin-form target, or NULL */
	size_t path_len;
	/* the path for the audit record only (the request goes on with its
	 * own), or NULL; a replacement path above takes precedence */
	const char *audit_path;
	size_t audit_path_len;
	/* values[i], if not NULL, replaces header i's value; both arrays
	 * have nheaders entries, all NULL/0 on entry */
	const char **values;
	size_t *value_lens;
	bool body_rewritten; /* the body may change length */
};

/* Forward p[0..n) to the upstream; 0, or -1 if the request is gone. */
typedef int (*px_scan_emit_cb)(void *emit_arg, const char *p, size_t n);

/*
 * The body-scan seam (the credential scanner).  on_head sees the request
 * head as it will be forwarded; on_body sees decoded body bytes in order
 * (last set on the final call, possibly with n == 0).  A BLOCK answer stops
 * the request: nothing more is forwarded, the upstream connection is reset
 * and the client gets 403 if no response has started.  reason[reasonlen]
 * may be filled.
 */
struct px_scan_hook {
	enum px_scan_verdict (*on_head)(void *arg,
	    const struct px_http_info *req, char *reason, size_t reasonlen);
	enum px_scan_verdict (*on_body)(void *arg, const char *p, size_t n,
	    bool last, char *reason, size_t reasonlen);
	void *arg;
	/*
	 * The per-request interface (optional).  When filter_head is set it
	 * is used instead of on_head and on_body:
	 *  - filter_head is called once per plain-HTTP request, after the
	 *    policy allowed it and before anything is dialed.  It stores its
	 *    per-request state in *req_state and may rewrite the head through
	 *    *edit (a replacement path also replaces the path in the audit
	 *    record, even when the answer is BLOCK).
	 *  - filter_body (may be NULL: the body passes unscanned) sees the
	 *    decoded body bytes in order, last set on the final call
	 *    (possibly with n == 0).  It passes the bytes to forward to
	 *    emit(emit_arg, ...), as many times as it likes; it may hold
	 *    bytes back but must have emitted everything by its last call.
	 *    Unless edit->body_rewritten was set it must emit exactly the
	 *    bytes it was given.  Nothing, not even the head, is written to
	 *    the upstream before the first emitted byte or the end of the
	 *    body, so a BLOCK on bytes still held back reaches no upstream.
	 *  - end_request (may be NULL) is called exactly once for every
	 *    request whose filter_head was called, however it ended.
	 * A chunked request body is forwarded chunked (trailer fields are
	 * dropped); a rewritten body that came with a Content-Length is
	 * gathered and forwarded with its new Content-Length (over 64 MiB:
	 * chunked).
	 */
	enum px_scan_verdict (*filter_head)(void *arg,
	    const struct px_http_info *req, void **req_state,
	    struct px_scan_edit *edit, char *reason, size_t reasonlen);
	enum px_scan_verdict (*filter_body)(void *req_state, const char *p,
	    size_t n, bool last, px_scan_emit_cb emit, void *emit_arg,
	    char *reason, size_t reasonlen);
	void (*end_request)(void *req_state);
	/* Optional: the CONNECT target as the client spelled it (a key
	 * smuggled out as a DNS label), before the policy is asked.  BLOCK
	 * refuses the CONNECT with 403 (stage "scan"). */
	enum px_scan_verdict (*on_connect)(void *arg, const char *authority,
	    size_t len, char *reason, size_t reasonlen);
};

enum px_sni_mode {
	PX_SNI_OFF = 0,	     /* do not look at the first tunnel bytes */
	PX_SNI_REQUIRE,	     /* a matching SNI is required: absent, a
				mismatch or non-TLS bytes reset the tunnel */
	PX_SNI_MATCH_IF_SET, /* reset on a mismatch; allow absence */
};

#define PX_MAX_TLS_PORTS 8

/* Every limit of the proxy. */
struct px_config {
	struct px_http_limits http;
	unsigned max_conns;	       /* total client connections */
	unsigned max_conns_per_client; /* per client IP address */
	unsigned head_timeout_ms;      /* to receive a whole request head */
	unsigned idle_timeout_ms;      /* no bytes either way */
	unsigned lifetime_ms;	       /* of a connection; 0: unbounded */
	unsigned connect_timeout_ms;   /* one upstream dial */
	unsigned dns_timeout_ms;       /* a whole resolution */
	uint64_t max_request_body;     /* bytes; 0: unbounded */
	uint64_t max_response_body;    /* bytes; 0: unbounded */
	size_t tunnel_high_watermark;  /* stop reading past this */
	unsigned max_addresses;	       /* resolved addresses judged */
	char resolver[64];	       /* "ADDR:PORT"; "" for resolv.conf */
	enum px_sni_mode sni_mode;     /* on TLS ports */
	uint16_t tls_ports[PX_MAX_TLS_PORTS]; /* 0-terminated */
	char via[64];			      /* pseudonym in Via */
	/* plain HTTP: idle upstream connections kept per (host, port,
	 * address) for the next request; 0 for either: none kept, every
	 * request dials its own upstream and says "Connection: close" */
	unsigned http_pool_max_idle; /* per upstream */
	unsigned http_pool_idle_ms;  /* how long one is kept */
	/* Relay established tunnels with splice(2) through pooled pipes
	 * (default); false keeps them on buffered reads and writes. */
	bool tunnel_splice;
	/* inference.local: the longest line of a streamed (SSE) response
	 * from a backend; a longer one ends the stream with an error event.
	 * 0: 1 MiB */
	size_t max_stream_line;
};

void px_config_default(struct px_config *cfg);

/* Counters, read with px_proxy_stats(). */
struct px_stats {
	uint64_t accepted;
	uint64_t active;
	uint64_t refused_limit; /* connections refused by a limit */
	uint64_t allowed;
	uint64_t denied;
	uint64_t errors;
	uint64_t dns_failures;
	uint64_t dials;
	uint64_t bytes_up;
	uint64_t bytes_down;
	uint64_t http_reused;  /* plain requests sent on a kept upstream */
	uint64_t http_retried; /* resent: the kept upstream had closed */
	uint64_t tunnel_pipes; /* pipes held by tunnels (bytes in flight) */
	uint64_t tunnel_pipes_pooled; /* empty pipes kept for reuse */
};

/*
 * Create a proxy on base.  The hooks are copied (the structs, not what
 * arg points to, which must outlive the proxy).  audit and scan may be
 * NULL.  Returns NULL with err set on failure.  libevent's own log
 * messages (evdns's among them) are routed through axg_log from then on.
 */
struct px_proxy *
px_proxy_new(struct event_base *base, const struct px_config *cfg,
    const struct px_decider *decider, const struct px_audit_hook *audit,
    const struct px_scan_hook *scan, char *err, size_t errlen);

/* Listen on addr (port 0 picks one); the bound address is written back to
 * *addr.  Returns 0 or -1. */
int px_proxy_listen(struct px_proxy *px, struct sockaddr_storage *addr,
    char *err, size_t errlen);

/* Take over an already bound, listening socket (it is closed on free). */
int px_proxy_listen_fd(struct px_proxy *px, int fd, char *err, size_t errlen);

/* Close every listener and connection, free everything. */
void px_proxy_free(struct px_proxy *px);

void px_proxy_stats(const struct px_proxy *px, struct px_stats *out);

/* Stop accepting: close every listener (connections in flight go on).
 * For a graceful shutdown; the proxy is freed as usual afterwards. */
void px_proxy_stop_accepting(struct px_proxy *px);

/* ------------------------------------------------------------------ */
/* Inference routing (inference.local)                                 */
/* ------------------------------------------------------------------ */

/*
 * Requests to host inference.local, in absolute form through any listener
 * or in origin form with `Host: inference.local` on a listener opened with
 * px_proxy_listen_inference_fd(), are never dialled by name: the proxy
 * reads the whole body (at most PX_INF_MAX_BODY bytes, 413 above), checks
 * the path against the OpenAI and Anthropic shapes (404 otherwise), and
 * asks the inference hook for a route.  The request goes to the route's
 * backend (http:// or https://, TLS 1.2 or later with the host name
 * verified) with only allowlisted headers and the route's key injected;
 * the response streams back as it arrives (SSE included) with an idle
 * timeout between reads.  Token usage is read from the response (or
 * estimated) and handed to the hook's finish().
 *
 * Keep-alive: a client connection stays open for the next request when the
 * client asks for it (HTTP/1.1 without `Connection: close`; HTTP/1.0 with
 * `Connection: keep-alive` on an inference listener, never through the
 * proxy port, RFC 9112 section 9.3) and the answer was framed
 * (Content-Length, or chunked for HTTP/1.1).  A streamed (SSE) answer is
 * passed on line by line; a line longer than max_stream_line ends it
 * with an error event.  Backend connections are kept in
 * a pool per backend (scheme, host, port and CA file) and per proxy (so per
 * worker thread), at most the route's pool_max_idle idle ones for at most
 * pool_idle_ms each.  A connection goes back to the pool only after its
 * response was read completely and framed by Content-Length or chunked
 * encoding with nothing after it, and never after an error, a response
 * with `Connection: close` or an HTTP/1.0 one.  An idle connection that
 * sends anything or closes is dropped.  A request on a reused connection
 * that closes before any response byte is sent once more on a new one.
 * TLS sessions are cached per backend and resumed by new connections.
 */
#define PX_INF_HOST	"inference.local"
#define PX_INF_MAX_BODY (8u << 20)

enum px_inf_shape {
	PX_INF_OPENAI = 0,
	PX_INF_ANTHROPIC,
};

/* What the hook sees of an inference request (valid during the call). */
struct px_inf_request {
	const char *method;    /* "POST" or "GET" */
	const char *path;      /* e.g. "/v1/chat/completions", no query */
	const char *query;     /* after '?', or "" */
	const char *operation; /* "chat.completions", "messages", ... */
	enum px_inf_shape shape;
	const char *model; /* the body's "model"; "" if none */
	const char *body;  /* the whole request body (may be binary) */
	size_t body_len;
	bool stream;		   /* the body's "stream": true */
	int64_t max_tokens;	   /* max_tokens, max_completion_tokens or
				      max_output_tokens; -1 if none */
	int64_t est_prompt_tokens; /* body bytes / 4 */
	const struct sockaddr *client;
};

/* The hook's answer.  On refusal, status (403, 404, 429, 502, ...),
 * error (a short code), reason and retry_after (seconds, 429) are sent;
 * reason must never hold a key. */
struct px_inf_route {
	char route[128];
	char provider[16]; /* "openai" or "anthropic" */
	char url[2048];	   /* the full backend URL, path included */
	char *key;	   /* malloc'd by the hook; the proxy wipes and
			      frees it.  NULL: nothing is injected */
	char rule[64];
	char reason[256];
	char error[48];
	int status;
	unsigned retry_after;
	void *call;	    /* the hook's per-call state, given to finish() */
	char ca_file[1024]; /* PEM CA file for an https backend; "": the
			       proxy's default bundle (see ca_file below) */
	unsigned pool_max_idle; /* idle connections kept for this backend;
				   0: none (Connection: close) */
	unsigned pool_idle_ms;	/* how long an idle one is kept */
	char *body;		/* NULL, or a replacement body (e.g. with a
				   credential redacted), malloc'd by the hook,
				   freed by the proxy */
	size_t body_len;
};

/* How the call ended. */
struct px_inf_result {
	int status; /* the backend's status; 0 if none */
	int64_t prompt_tokens;
	int64_t completion_tokens;
	bool estimated; /* the usage was not in the response */
	bool failed;
	const char *detail; /* why it failed; NULL if it did not */
	const char *backend_host;
	const struct sockaddr *backend; /* NULL if none was reached */
	uint64_t latency_ms;
	uint64_t bytes_up, bytes_down; /* to and from the backend */
};

struct px_inference_hook {
	/* Pick and decide a route: 0 with out filled (url and provider),
	 * or -1 with out->status and out->reason set (refused). */
	int (*route)(void *arg, void *snap, const struct px_inf_request *req,
	    struct px_inf_route *out);
	/* The body of GET /v1/models (malloc'd JSON), or NULL (500). */
	char *(*models)(void *arg, void *snap);
	/* Called exactly once for every route() that returned 0. */
	void (*finish)(void *arg, void *snap, void *call,
	    const struct px_inf_result *res);
	void *arg;
	unsigned idle_timeout_ms; /* between backend reads; 0: the proxy's
				     idle_timeout_ms */
	const char *ca_file;	  /* PEM CA bundle for https backends; NULL: the
				     SSL_CERT_FILE variable, else the system's */
	bool no_default_ca;	  /* no route uses the default bundle: do not
				     read it (https backends then need their
				     route's ca_file) */
};

/* Install the inference hook (copied; arg must outlive the proxy).  The
 * CA bundle is read now, unless hook->no_default_ca.  Without a hook
 * inference.local requests get 503.  Returns 0 or -1 with err set. */
int px_proxy_set_inference(struct px_proxy *px,
    const struct px_inference_hook *hook, char *err, size_t errlen);

/* Read the PEM CA file path now and keep a TLS context for the routes that
 * name it (for a process that loses file access later).  Routes naming a
 * file not loaded this way have it read at their first call.  Returns 0 or
 * -1 with err naming the file. */
int px_proxy_inference_load_ca(struct px_proxy *px, const char *path, char *err,
    size_t errlen);

/* Idle backend connections kept in the pool and TLS sessions resumed
 * (for tests and metrics). */
struct px_inf_pool_stats {
	uint64_t dials;	  /* new backend connections */
	uint64_t reused;  /* requests sent on a pooled connection */
	uint64_t retried; /* requests resent after a stale pooled one */
	uint64_t resumed; /* TLS handshakes that resumed a session */
	unsigned idle;	  /* idle connections now */
};
void px_proxy_inference_pool_stats(const struct px_proxy *px,
    struct px_inf_pool_stats *out);

/* Take over a listening socket whose origin-form requests with
 * `Host: inference.local` are inference requests (and nothing else is
 * served there). */
int px_proxy_listen_inference_fd(struct px_proxy *px, int fd, char *err,
    size_t errlen);

#endif /* AXG_PROXY_H */
