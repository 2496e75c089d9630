/*
 * json.c: the JSON writer behind every event.
 *
 * Strings are the hot part: runs of plain ASCII are copied with memcpy;
 * quotes, backslashes and control bytes are escaped; UTF-8 is checked as
 * it goes and each byte that does not start a valid sequence becomes
 * U+FFFD.  A value stops at OCSF_STRING_MAX bytes of output, on a
 * character boundary, and gets OCSF_TRUNC_MARKER.
 */
#include "config.h"

#include <string.h>

#include "audit/audit-int.h"

/* 0: copy as is; 1: escape; 2: start of a multi-byte sequence (or bad) */
static const unsigned char byte_class[256] = {
	/* 0x00 - 0x1f: control characters */
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	1,
	/* 0x20 - 0x7f: '"' and '\\' escaped, DEL escaped */
	0,
	0,
	1,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	1,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	1,
	/* 0x80 - 0xff */
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
	2,
};

static const char hexdig[] = "0123456789abcdef";

/* Eight bytes at a time: true when one of them may need care (a control
 * byte, '"', '\\', DEL or a byte of a multi-byte sequence).  A false alarm
 * only sends the block through the byte-wise loop. */
#define ONES	    0x0101010101010101ULL
#define HIGHS	    0x8080808080808080ULL
#define HAS_ZERO(v) (((v)-ONES) & ~(v)&HIGHS)

static inline bool
block_needs_care(uint64_t v)
{
	return ((((v)-ONES * 0x20) & ~(v)) | (v) | HAS_ZERO(v ^ (ONES * '"')) |
		   HAS_ZERO(v ^ (ONES * '\\')) | HAS_ZERO(v ^ (ONES * 0x7f))) &
	    HIGHS;
}

/* The end of the run of plain bytes starting at s[j]. */
static inline size_t
plain_run(const unsigned char *s, size_t j, size_t n)
{
	for (; j + 8 <= n; j += 8) {
		uint64_t v;

		memcpy(&v, s + j, 8);
		if (block_needs_care(v))
			break;
	}
	while (j < n && byte_class[s[j]] == 0)
		j++;
	return j;
}

/* Length of the valid UTF-8 sequence at s[0..n) (2..4), or 0. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Append escaped s[0..n) to the current string value, within the budget.
 * Returns false once the value is cut. */
bool
jw__str_add(struct jw *w, const unsigned char *s, size_t n)
{
	struct axg_buf *b = w->b;
	size_t i = 0;

	if (w->str_cut)
		return false;
	/* Worst case is 6 output bytes per input byte, but never more than
	 * the budget left: reserve once. */
	{
		size_t room = OCSF_STRING_MAX - w->str_used;
		size_t want = n > room ? room : n;

		want = want * 6 < room ? want * 6 : room;
		jw_reserve(w, want + 8);
	}
	while (i < n) {
		size_t room = OCSF_STRING_MAX - w->str_used;
		size_t j = plain_run(s, i, n);
		char esc[6];
		size_t el;

		/* A run of plain bytes. */
		if (j > i) {
			size_t run = j - i;

			if (run > room) {
				run = room;
				w->str_cut = true;
			}
			memcpy(b->data + b->len, s + i, run);
			b->len += run;
			w->str_used += run;
			if (w->str_cut)
				break;
			i = j;
			room -= run;
			if (i == n)
				break;
		}
		if (byte_class[s[i]] == 1) {
			unsigned char c = s[i];

			esc[0] = '\\';
			switch (c) {
			case '"':
				esc[1] = '"';
				el = 2;
				break;
			case '\\':
				esc[1] = '\\';
				el = 2;
				break;
			case '\n':
				esc[1] = 'n';
				el = 2;
				break;
			case '\r':
				esc[1] = 'r';
				el = 2;
				break;
			case '\t':
				esc[1] = 't';
				el = 2;
				break;
			default:
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hexdig[c >> 4];
				esc[5] = hexdig[c & 15];
				el = 6;
				break;
			}
			i++;
		} else {
			size_t sl = utf8_seq(s + i, n - i);

			if (sl == 0) {
				/* U+FFFD for one bad byte */
				memcpy(esc, "\xef\xbf\xbd", 3);
				el = 3;
				i++;
			} else if (sl == 3 && s[i] == 0xe2 &&
			    s[i + 1] == 0x80 &&
			    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
				/* U+2028, U+2029 end lines in JavaScript */
				memcpy(esc,
				    s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029",
				    6);
				el = 6;
				i += 3;
			} else {
				memcpy(esc, s + i, sl);
				el = sl;
				i += sl;
			}
		}
		if (el > room) {
			w->str_cut = true;
			break;
		}
		memcpy(b->data + b->len, esc, el);
		b->len += el;
		w->str_used += el;
	}
	b->data[b->len] = '\0';
	if (w->str_cut)
		w->truncated = true;
	return !w->str_cut;
}

void
jw_elem_str(struct jw *w, const char *s)
{
	jw_sbegin(w, NULL);
	jw_sadds(w, s);
	jw_send(w);
}

/* Two digits at a time, from a table of "00" .. "99". */
static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536"
    "37383940414243444546474849505152535455565758596061626364656667686970717273"
    "7475767778798081828384858687888990919293949596979899";

size_t
jw_fmt_u64(char *out, uint64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

void
jw_i64(struct jw *w, const char *key, int64_t v)
{
	char tmp[24];

	jw_key(w, key);
	if (v < 0) {
		jw_raw(w, "-", 1);
		jw_raw(w, tmp, jw_fmt_u64(tmp, (uint64_t)0 - (uint64_t)v));
	} else {
		jw_raw(w, tmp, jw_fmt_u64(tmp, (uint64_t)v));
	}
}

void
jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	if (v)
		JW_LIT(w, "true");
	else
		JW_LIT(w, "false");
}

bool
ocsf_json_string(struct axg_buf *out, const void *s, size_t n)
{
	struct jw w = { .b = out };

	JW_LIT(&w, "\"");
	w.str_used = 0;
	w.str_cut = false;
	(void)jw__str_add(&w, s, n);
	jw_send(&w);
	return w.truncated;
}
