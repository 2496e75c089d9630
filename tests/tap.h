/*
 * tap.h: a small TAP producer for axgate's C test programs.
 *
 * Each check prints one "ok N - name" or "not ok N - name" line; failures
 * add "# " diagnostics with the file, line and the values compared.
 * Call tap_plan(n) first or tap_done() last (which prints the plan).
 *
 * Everything is static inline so a test is one .c file and nothing else.
 */
#ifndef AXG_TAP_H
#define AXG_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;
static bool tap_planned;

static inline void
tap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
	tap_planned = true;
}

/* Skip the whole program: prints "1..0 # SKIP why" and exits 0. */
static inline void
tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static inline bool
tap_ok_at(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

/* A skipped check: counts in the plan, is not a pass. */
static inline void
tap_skip(const char *name, const char *why)
{
	tap_count++;
	printf("ok %d - %s # SKIP %s\n", tap_count, name, why);
	fflush(stdout);
}

static inline int
tap_done(void)
{
	if (!tap_planned)
		printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#define ok(cond, ...) tap_ok_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                                 \
	do {                                                                   \
		intmax_t g_ = (intmax_t)(got), w_ = (intmax_t)(want);          \
		if (!tap_ok_at(g_ == w_, __FILE__, __LINE__, __VA_ARGS__))     \
			tap_diag("  got: %jd, want: %jd", g_, w_);             \
	} while (0)

#define is_str(got, want, ...)                                                 \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		bool e_ = (g_ == NULL && w_ == NULL) ||                        \
		    (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0);         \
		if (!tap_ok_at(e_, __FILE__, __LINE__, __VA_ARGS__))           \
			tap_diag("  got: \"%s\", want: \"%s\"",                \
			    g_ ? g_ : "(null)", w_ ? w_ : "(null)");           \
	} while (0)

/* got contains want as a substring. */
#define like_str(got, want, ...)                                               \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		bool e_ = g_ != NULL && strstr(g_, w_) != NULL;                \
		if (!tap_ok_at(e_, __FILE__, __LINE__, __VA_ARGS__))           \
			tap_diag("  got: \"%s\", want it to contain: \"%s\"",  \
			    g_ ? g_ : "(null)", w_);                           \
	} while (0)

#endif /* AXG_TAP_H */
