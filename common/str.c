/* str.c: string and number helpers that do not depend on the locale. */
#include "config.h"

#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"

size_t
axg_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

bool
axg_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
axg_endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static inline unsigned char
ascii_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

bool
axg_strncaseeq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ascii_lower((unsigned char)a[i]) !=
		    ascii_lower((unsigned char)b[i]))
			return false;
	return true;
}

void
axg_str_lower(char *s)
{
	for (; *s; s++)
		*s = (char)ascii_lower((unsigned char)*s);
}

int
axg_parse_u64n(const char *s, size_t n, uint64_t min, uint64_t max,
    uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
axg_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return axg_parse_u64n(s, strlen(s), min, max, out);
}

void
axg_str_escape(char *out, size_t out_size, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t o = 0;

	if (out_size == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char tmp[5];
		size_t tl;

		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			tmp[0] = (char)s[i];
			tl = 1;
		} else if (s[i] == '\\') {
			tmp[0] = tmp[1] = '\\';
			tl = 2;
		} else {
			snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);
			tl = 4;
		}
		if (o + tl + 4 > out_size) {
			/* No room for this byte and the "..." marker. */
			if (o + 4 <= out_size) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(out + o, tmp, tl);
		o += tl;
	}
	out[o < out_size ? o : out_size - 1] = '\0';
}

bool
axg_utf8_valid(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t len;

		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i < len)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

uint64_t
axg_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
axg_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *
axg_read_file(const char *path, size_t limit, size_t *lenp, char *err,
    size_t errlen)
{
	struct axg_buf b;
	char chunk[65536];
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		axg_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	axg_buf_init(&b, limit);
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			axg_seterr(err, errlen, "%s: %s", path,
			    strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		if (axg_buf_append(&b, chunk, (size_t)r) < 0) {
			axg_seterr(err, errlen, "%s: larger than %zu bytes",
			    path, limit);
			goto fail;
		}
	}
	close(fd);
	return axg_buf_steal(&b, lenp);
fail:
	close(fd);
	axg_buf_free(&b);
	return NULL;
}
