/*
 * common.h: the bottom layer every part of axgate may use.
 *
 * Allocation that never returns NULL, logging, a bounded growable byte
 * buffer, string and number helpers, clocks, and the error-buffer
 * convention used across the parts.
 *
 * Error convention: a function that can fail returns -1 (or NULL) and, when
 * the caller passed a buffer, writes a one-line message into it with
 * axg_seterr().  Messages never end in a newline.  No globals, no
 * allocation on the error path.
 */
#ifndef AXG_COMMON_H
#define AXG_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define AXG_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A case that goes on into the next one on purpose: GCC takes a comment
 * for this, clang (-Wimplicit-fallthrough) only the attribute. */
#if defined(__GNUC__) || defined(__clang__)
#define AXG_FALLTHROUGH __attribute__((fallthrough))
#else
#define AXG_FALLTHROUGH ((void)0)
#endif

#if defined(__GNUC__)
#define AXG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define AXG_NORETURN	 __attribute__((noreturn))
#else
#define AXG_PRINTF(f, a)
#define AXG_NORETURN
#endif

/* ---- allocation: these abort with a message instead of returning NULL ---- */
void *axg_malloc(size_t n);
void *axg_calloc(size_t nmemb, size_t size);
void *axg_realloc(void *p, size_t n);
/* Reallocate to nmemb * size bytes, aborting on multiplication overflow. */
void *axg_reallocarray(void *p, size_t nmemb, size_t size);
char *axg_strdup(const char *s);
char *axg_strndup(const char *s, size_t n);
/* Allocate a formatted string; the caller frees it. */
char *axg_asprintf(const char *fmt, ...) AXG_PRINTF(1, 2);

/* ---- errors ---- */
/* Write a formatted message into err[errlen] (truncated, always terminated).
 * err may be NULL.  Returns -1 so a caller can `return axg_seterr(...)`. */
int axg_seterr(char *err, size_t errlen, const char *fmt, ...) AXG_PRINTF(3, 4);

/* ---- logging ---- */
enum axg_log_level {
	AXG_LOG_ERROR = 0,
	AXG_LOG_WARN,
	AXG_LOG_INFO,
	AXG_LOG_DEBUG,
};

/* Set the program name printed before every message (not copied). */
void axg_log_init(const char *progname, enum axg_log_level level);
void axg_log_set_level(enum axg_log_level level);
enum axg_log_level axg_log_get_level(void);
/* Parse "error", "warn", "info" or "debug"; -1 if unknown. */
int axg_log_level_parse(const char *s);
/* Messages go to stderr as "progname: level: message\n", written with one
 * write() so lines from several threads never interleave. */
void axg_log(enum axg_log_level level, const char *fmt, ...) AXG_PRINTF(2, 3);
void axg_vlog(enum axg_log_level level, const char *fmt, va_list ap)
    AXG_PRINTF(2, 0);
#define axg_err(...)   axg_log(AXG_LOG_ERROR, __VA_ARGS__)
#define axg_warn(...)  axg_log(AXG_LOG_WARN, __VA_ARGS__)
#define axg_info(...)  axg_log(AXG_LOG_INFO, __VA_ARGS__)
#define axg_debug(...) axg_log(AXG_LOG_DEBUG, __VA_ARGS__)
/* Log an error and exit(status).  For broken invariants and start-up
 * failures only; never on input from a peer. */
void axg_fatal(int status, const char *fmt, ...) AXG_PRINTF(2, 3) AXG_NORETURN;

/* ---- a growable byte buffer with an optional size limit ----
 *
 * The buffer owns its data.  It is always NUL-terminated (the NUL is not
 * counted in len), so text can be passed to C string functions.  A limit of
 * 0 means unbounded; appends that would pass the limit fail with -1 and
 * leave the buffer unchanged. */
struct axg_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t limit;
	bool ext; /* data is the caller's storage (axg_buf_init_ext) */
};

#define AXG_BUF_INIT                                                           \
	{                                                                      \
		NULL, 0, 0, 0, false                                           \
	}

void axg_buf_init(struct axg_buf *b, size_t limit);
/* Start in the caller's storage of size bytes (a stack array, say): no
 * allocation until the contents outgrow it, when they move to the heap.
 * axg_buf_free is still needed; the storage must outlive the buffer. */
void
axg_buf_init_ext(struct axg_buf *b, char *storage, size_t size, size_t limit);
void axg_buf_free(struct axg_buf *b);
/* Forget the contents but keep the allocation. */
void axg_buf_reset(struct axg_buf *b);
/* Make room for n more bytes; -1 past the limit. */
int axg_buf_reserve(struct axg_buf *b, size_t n);
int axg_buf_append(struct axg_buf *b, const void *p, size_t n);
int axg_buf_puts(struct axg_buf *b, const char *s);
int axg_buf_putc(struct axg_buf *b, char c);
int axg_buf_printf(struct axg_buf *b, const char *fmt, ...) AXG_PRINTF(2, 3);
int axg_buf_vprintf(struct axg_buf *b, const char *fmt, va_list ap)
    AXG_PRINTF(2, 0);
/* Remove the first n bytes (all if n >= len). */
void axg_buf_consume(struct axg_buf *b, size_t n);
/* Hand the data to the caller (who frees it) and empty the buffer.  Never
 * NULL: an empty buffer yields "". */
char *axg_buf_steal(struct axg_buf *b, size_t *lenp);

/* ---- strings and numbers ---- */
/* Copy like strlcpy: returns strlen(src); dst always terminated if size>0. */
size_t axg_strlcpy(char *dst, const char *src, size_t size);
bool axg_startswith(const char *s, const char *prefix);
bool axg_endswith(const char *s, const char *suffix);
/* ASCII-only case-insensitive comparison of n bytes (locale-free). */
bool axg_strncaseeq(const char *a, const char *b, size_t n);
/* Lower-case ASCII letters in place. */
void axg_str_lower(char *s);
/* Parse a whole decimal unsigned number in [min, max].  Rejects signs,
 * spaces, empty strings and trailing garbage.  0 on success. */
int axg_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* The same for a byte range that need not be NUL-terminated. */
int axg_parse_u64n(const char *s, size_t n, uint64_t min, uint64_t max,
    uint64_t *out);
/* Escape a byte string for a one-line diagnostic: printable ASCII as is,
 * everything else as \xNN, cut at out_size with "..." appended. */
void axg_str_escape(char *out, size_t out_size, const void *p, size_t n);
/* Is p[0..n) valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF)? */
bool axg_utf8_valid(const void *p, size_t n);

/* ---- clocks ---- */
uint64_t axg_now_ms(void);	 /* wall clock, ms since the epoch */
uint64_t axg_monotonic_ns(void); /* monotonic, ns */

/* ---- files ---- */
/* Read a whole file (at most limit bytes) into a new NUL-terminated buffer.
 * Returns NULL with a message naming the path on error. */
char *axg_read_file(const char *path, size_t limit, size_t *lenp, char *err,
    size_t errlen);

/* ---- messages between axgate's processes (ipc.c) ----
 *
 * Over a SOCK_SEQPACKET pair: a header {type, length}, a payload of at most
 * AXG_IPC_MAX_PAYLOAD bytes and at most one descriptor.  The receiver names,
 * for each type it accepts, the payload's length bounds and whether a
 * descriptor must come with it; anything else is refused. */
#define AXG_IPC_MAX_PAYLOAD 16384u

struct axg_ipc_bound {
	uint32_t type;
	size_t min_len, max_len;
	bool with_fd;
};

struct axg_ipc_msg {
	uint32_t type;
	size_t len;
	int fd; /* the descriptor that came with it, or -1; caller closes */
	unsigned char data[AXG_IPC_MAX_PAYLOAD];
};

int axg_ipc_pair(int fds[2], char *err, size_t errlen);
/* Send one message; fd < 0 for none (the descriptor stays open here). */
int axg_ipc_send(int sock, uint32_t type, const void *data, size_t len, int fd,
    char *err, size_t errlen);
/* Receive one message: 0 on success, 1 when the peer closed, -1 on a
 * refused or failed message (any descriptor that came is closed). */
int axg_ipc_recv(int sock, const struct axg_ipc_bound *bounds, size_t nbounds,
    struct axg_ipc_msg *out, char *err, size_t errlen);

/* ---- service manager notification (sdnotify.c) ---- */
/* Send state ("READY=1", "STOPPING=1", "RELOADING=1", "STATUS=...") to
 * $NOTIFY_SOCKET; nothing when it is unset.  0 or -1 with a message. */
int axg_sd_notify(const char *state, char *err, size_t errlen);

/* ---- SHA-256 (sha256.c) ---- */
/* A plain SHA-256 with no initialisation cost, for digests on start-up
 * paths.  Not constant-time: not for secrets or MACs. */
#define AXG_SHA256_LEN 32

struct axg_sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t nbuf;
};

void axg_sha256_init(struct axg_sha256 *s);
void axg_sha256_update(struct axg_sha256 *s, const void *data, size_t n);
/* Writes the digest and wipes the state. */
void axg_sha256_final(struct axg_sha256 *s, unsigned char out[AXG_SHA256_LEN]);
void axg_sha256(const void *data, size_t n, unsigned char out[AXG_SHA256_LEN]);

/* ---- hex digits ---- */
/* The value of one hex digit (either case), or -1. */
static inline int
axg_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif /* AXG_COMMON_H */
