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

static int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
emit(struct axg_buf *out, uint32_t **map, size_t *mapcap, uint8_t c,
    size_t from)
{
	if (out->len + 2 > *mapcap) {
		*mapcap = (*mapcap ? *mapcap * 2 : 4096);
		while (*mapcap < out->len + 2)
			*mapcap *= 2;
		*map = axg_reallocarray(*map, *mapcap, sizeof(**map));
	}
	(*map)[out->len] = (uint32_t)from;
	axg_buf_putc(out, (char)c);
}

/* Encode a code point as UTF-8 (surrogates become '?'). */
static void
emit_cp(struct axg_buf *out, uint32_t **map, size_t *mapcap, uint32_t cp,
    size_t from)
{
	if (cp < 0x80) {
		emit(out, map, mapcap, (uint8_t)cp, from);
	} else if (cp < 0x800) {
		emit(out, map, mapcap, (uint8_t)(0xc0 | (cp >> 6)), from);
		emit(out, map, mapcap, (uint8_t)(0x80 | (cp & 0x3f)), from);
	} else if (cp >= 0xd800 && cp <= 0xdfff) {
		emit(out, map, mapcap, '?', from);
	} else {
		emit(out, map, mapcap, (uint8_t)(0xe0 | (cp >> 12)), from);
		emit(out, map, mapcap, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)),
		    from);
		emit(out, map, mapcap, (uint8_t)(0x80 | (cp & 0x3f)), from);
	}
}

bool
leak_decode_escapes(const uint8_t *p, size_t n, struct axg_buf *out,
    uint32_t **map, size_t *mapcap)
{
	bool changed = false;
	size_t i = 0;

	axg_buf_reset(out);
	while (i < n) {
		uint8_t c = p[i];
		if (c == '%' && i + 2 < n + 0 && hexval(p[i + 1]) >= 0 &&
		    hexval(p[i + 2]) >= 0) {
			emit(out, map, mapcap,
			    (uint8_t)(hexval(p[i + 1]) * 16 + hexval(p[i + 2])),
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
			case 'b':
				d = '\b';
				break;
			case 'f':
				d = '\f';
				break;
			case '/':
			case '\\':
			case '"':
			case '\'':
				d = e;
				break;
			case 'u':
				if (i + 5 < n + 0 && hexval(p[i + 2]) >= 0 &&
				    hexval(p[i + 3]) >= 0 &&
				    hexval(p[i + 4]) >= 0 &&
				    hexval(p[i + 5]) >= 0) {
					uint32_t cp =
					    (uint32_t)(hexval(p[i + 2]) << 12 |
						hexval(p[i + 3]) << 8 |
						hexval(p[i + 4]) << 4 |
						hexval(p[i + 5]));
					emit_cp(out, map, mapcap, cp, i);
					i += 6;
					changed = true;
					continue;
				}
				break;
			case 'x':
				if (i + 3 < n + 0 && hexval(p[i + 2]) >= 0 &&
				    hexval(p[i + 3]) >= 0) {
					emit(out, map, mapcap,
					    (uint8_t)(hexval(p[i + 2]) * 16 +
						hexval(p[i + 3])),
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
				emit(out, map, mapcap, d, i);
				i += 2;
				changed = true;
				continue;
			}
		}
		emit(out, map, mapcap, c, i);
		i++;
	}
	if (*mapcap < out->len + 1) {
		*mapcap = out->len + 1;
		*map = axg_reallocarray(*map, *mapcap, sizeof(**map));
	}
	(*map)[out->len] = (uint32_t)n;
	return changed;
}
