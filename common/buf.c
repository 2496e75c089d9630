/* buf.c: a growable, NUL-terminated byte buffer with an optional limit. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

void
axg_buf_init(struct axg_buf *b, size_t limit)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
	b->ext = false;
}

void
axg_buf_init_ext(struct axg_buf *b, char *storage, size_t size, size_t limit)
{
	axg_buf_init(b, limit);
	if (size > 0) {
		b->data = storage;
		b->cap = size;
		b->ext = true;
		storage[0] = '\0';
	}
}

void
axg_buf_free(struct axg_buf *b)
{
	if (!b->ext)
		free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->ext = false;
}

void
axg_buf_reset(struct axg_buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

int
axg_buf_reserve(struct axg_buf *b, size_t n)
{
	size_t need, cap;

	if (n > SIZE_MAX - b->len - 1)
		return -1;
	need = b->len + n;
	if (b->limit != 0 && need > b->limit)
		return -1;
	if (need + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need + 1)
		cap = cap > SIZE_MAX / 2 ? need + 1 : cap * 2;
	if (b->ext) {
		char *p = axg_malloc(cap);
		memcpy(p, b->data, b->len + 1);
		b->data = p;
		b->ext = false;
	} else {
		b->data = axg_realloc(b->data, cap);
	}
	b->cap = cap;
	b->data[b->len] = '\0';
	return 0;
}

int
axg_buf_append(struct axg_buf *b, const void *p, size_t n)
{
	if (axg_buf_reserve(b, n) < 0)
		return -1;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
axg_buf_puts(struct axg_buf *b, const char *s)
{
	return axg_buf_append(b, s, strlen(s));
}

int
axg_buf_putc(struct axg_buf *b, char c)
{
	return axg_buf_append(b, &c, 1);
}

int
axg_buf_vprintf(struct axg_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || axg_buf_reserve(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
axg_buf_printf(struct axg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = axg_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void
axg_buf_consume(struct axg_buf *b, size_t n)
{
	if (n >= b->len) {
		axg_buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

char *
axg_buf_steal(struct axg_buf *b, size_t *lenp)
{
	char *p;

	if (b->data == NULL)
		(void)axg_buf_reserve(b, 0);
	if (b->data == NULL) {
		/* Limit too small even for the terminator. */
		p = axg_calloc(1, 1);
	} else if (b->ext) {
		p = axg_malloc(b->len + 1);
		memcpy(p, b->data, b->len + 1);
	} else {
		p = b->data;
	}
	if (lenp != NULL)
		*lenp = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	b->ext = false;
	return p;
}
