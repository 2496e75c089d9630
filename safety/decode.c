/*
 * decode.c: undoing the encodings a secret hides behind in a request:
 * JSON string escapes (\n, \/, \uXXXX, ...) and percent-encoding, with a
 * map from each decoded byte back to the input so findings are reported at
 * their offsets in what the caller scanned.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

/* The output never outgrows the input except for \uXXXX (6 bytes -> at
 * most 3), so reserving n bytes up front is enough. */
#define EMIT(c, from)                                                          \
	do {                                                                   \
		o[k] = (char)(c);                                              \
		m[k] = (uint32_t)(base + (from));                              \
		k++;                                                           \
	} while (0)

static size_t
emit_cp(char *o, uint32_t *m, size_t k, uint32_t cp, size_t base, size_t from)
{
	if (cp < 0x80) {
		EMIT(cp, from);
	} else if (cp < 0x800) {
		EMIT(0xc0 | (cp >> 6), from);
		EMIT(0x80 | (cp & 0x3f), from);
	} else if (cp >= 0xd800 && cp <= 0xdfff) {
		EMIT('?', from);
	} else {
		EMIT(0xe0 | (cp >> 12), from);
		EMIT(0x80 | ((cp >> 6) & 0x3f), from);
		EMIT(0x80 | (cp & 0x3f), from);
	}
	return k;
}

size_t
leak_escape_at(const uint8_t *p, size_t n, size_t i)
{
	if (p[i] == '%')
		return i + 2 < n && axg_hexval(p[i + 1]) >= 0 &&
			axg_hexval(p[i + 2]) >= 0
		    ? 3
		    : 0;
	if (p[i] != '\\' || i + 1 >= n)
		return 0;
	switch (p[i + 1]) {
	case '/':
		return 2;
	case 'u':
		return i + 5 < n && axg_hexval(p[i + 2]) >= 0 &&
			axg_hexval(p[i + 3]) >= 0 &&
			axg_hexval(p[i + 4]) >= 0 && axg_hexval(p[i + 5]) >= 0
		    ? 6
		    : 0;
	case 'x':
		return i + 3 < n && axg_hexval(p[i + 2]) >= 0 &&
			axg_hexval(p[i + 3]) >= 0
		    ? 4
		    : 0;
	default:
		return 0;
	}
}

bool
leak_decode_escapes(const uint8_t *p, size_t n, size_t base,
    struct axg_buf *out, uint32_t **map, size_t *mapcap)
{
	bool changed = false;
	size_t i = 0, k = 0;
	char *o;
	uint32_t *m;

	axg_buf_reset(out);
	if (axg_buf_reserve(out, n + 1) < 0)
		return false;
	if (*mapcap < n + 1) {
		*mapcap = n + 1;
		*map = axg_reallocarray(*map, *mapcap, sizeof(**map));
	}
	o = out->data;
	m = *map;
	while (i < n) {
		uint8_t c = p[i];
		if (c != '%' && c != '\\') {
			EMIT(c, i);
			i++;
			continue;
		}
		if (c == '%' && i + 2 < n && axg_hexval(p[i + 1]) >= 0 &&
		    axg_hexval(p[i + 2]) >= 0) {
			EMIT(axg_hexval(p[i + 1]) * 16 + axg_hexval(p[i + 2]),
			    i);
			i += 3;
			changed = true;
			continue;
		}
		if (c == '\\' && i + 1 < n) {
			uint8_t e = p[i + 1], d = 0;
			switch (e) {
			case 'n':
				d = '\n';
				break;
			case 'r':
				d = '\r';
				break;
			case 't':
				d = '\t';
				break;
			case '/':
			case '\\':
			case '"':
			case '\'':
				d = e;
				break;
			case 'u':
				if (leak_escape_at(p, n, i) == 6) {
					uint32_t cp =
					    (uint32_t)(axg_hexval(p[i + 2])
						    << 12 |
						axg_hexval(p[i + 3]) << 8 |
						axg_hexval(p[i + 4]) << 4 |
						axg_hexval(p[i + 5]));
					k = emit_cp(o, m, k, cp, base, i);
					i += 6;
					changed = true;
					continue;
				}
				break;
			case 'x':
				if (leak_escape_at(p, n, i) == 4) {
					EMIT(axg_hexval(p[i + 2]) * 16 +
						axg_hexval(p[i + 3]),
					    i);
					i += 4;
					changed = true;
					continue;
				}
				break;
			default:
				break;
			}
			if (d != 0) {
				EMIT(d, i);
				i += 2;
				changed = true;
				continue;
			}
		}
		EMIT(c, i);
		i++;
	}
	out->len = k;
	out->data[k] = '\0';
	m[k] = (uint32_t)(base + n);
	return changed;
}
