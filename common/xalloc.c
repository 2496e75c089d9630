/* xalloc.c: allocation that aborts instead of returning NULL. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

static void AXG_NORETURN
oom(size_t n)
{
	/* Avoid the logger: it may allocate in the future. */
	fprintf(stderr, "axgate: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
axg_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
axg_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		oom(nmemb * size);
	return p;
}

void *
axg_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		oom(n);
	return q;
}

void *
axg_reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return axg_realloc(p, nmemb * size);
}

char *
axg_strdup(const char *s)
{
	return axg_strndup(s, strlen(s));
}

char *
axg_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = axg_malloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
axg_asprintf(const char *fmt, ...)
{
	va_list ap;
	struct axg_buf b = AXG_BUF_INIT;

	va_start(ap, fmt);
	axg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return axg_buf_steal(&b, NULL);
}
