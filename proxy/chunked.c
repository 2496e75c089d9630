/*
 * chunked.c: an incremental, strict decoder for the chunked transfer
 * coding (RFC 9112 7.1).
 *
 *   chunk-size   = 1*16HEXDIG            (no sign, no space, no "0x")
 *   chunk-ext    = *( ";" token [ "=" token ] )   (no quoted strings)
 *   trailer line = field-name ":" value  (like a header; bounded)
 *
 * Every line ends in CRLF.  Sizes that overflow, sum past the body limit,
 * or lines past max_line fail.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"

enum {
	CH_SIZE = 0,	 /* reading hex digits */
	CH_EXT,		 /* after ';' */
	CH_SIZE_LF,	 /* CR seen after the size line */
	CH_DATA,	 /* chunk bytes */
	CH_DATA_CR,	 /* expecting CR after data */
	CH_DATA_LF,	 /* expecting LF after data */
	CH_TRAILER,	 /* at the start of a trailer line */
	CH_TRAILER_LINE, /* inside a trailer line */
	CH_TRAILER_LF,	 /* CR seen in a trailer line */
	CH_LAST_LF,	 /* CR of the final empty line seen */
	CH_DONE,
	CH_ERROR,
};

void
px_chunked_init(struct px_chunked *c, uint64_t max_body, size_t max_line)
{
	memset(c, 0, sizeof(*c));
	c->state = CH_SIZE;
	c->max_body = max_body;
	c->max_line = max_line ? max_line : 4096;
	c->max_trailer = 8192;
}

static int
hexval(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static bool
tok_char(unsigned char ch)
{
	if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= 'A' && ch <= 'Z'))
		return true;
	return ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* token characters, '=' and ';' */
static bool
ext_char(unsigned char ch)
{
	return tok_char(ch) || ch == '=' || ch == ';';
}

static int
fail(struct px_chunked *c, char *err, size_t errlen, const char *what)
{
	c->state = CH_ERROR;
	return axg_seterr(err, errlen, "chunked body: %s", what);
}

int
px_chunked_feed(struct px_chunked *c, const char *in, size_t len, size_t *used,
    px_chunk_data_cb data_cb, void *arg, char *err, size_t errlen)
{
	size_t i = 0;

	*used = 0;
	if (c->state == CH_ERROR)
		return axg_seterr(err, errlen, "chunked body: earlier error");
	while (i < len && c->state != CH_DONE) {
		unsigned char ch = (unsigned char)in[i];
		int h;

		switch (c->state) {
		case CH_SIZE:
			if (++c->line_len > c->max_line)
				return fail(c, err, errlen,
				    "size line too long");
			h = hexval(ch);
			if (h >= 0) {
				if (++c->digits > 16)
					return fail(c, err, errlen,
					    "chunk size too large");
				c->remaining =
				    (c->remaining << 4) | (unsigned)h;
			} else if (ch == ';' && c->digits > 0) {
				c->state = CH_EXT;
			} else if (ch == '\r' && c->digits > 0) {
				c->state = CH_SIZE_LF;
			} else {
				return fail(c, err, errlen,
				    "invalid chunk size");
			}
			i++;
			break;
		case CH_EXT:
			if (++c->line_len > c->max_line)
				return fail(c, err, errlen,
				    "size line too long");
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (!ext_char(ch))
				return fail(c, err, errlen,
				    "invalid chunk extension");
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return fail(c, err, errlen, "bare CR");
			i++;
			if (c->max_body &&
			    (c->remaining > c->max_body ||
				c->total > c->max_body - c->remaining))
				return fail(c, err, errlen,
				    "body larger than the limit");
			c->total += c->remaining;
			c->line_len = 0;
			c->digits = 0;
			if (c->remaining == 0) {
				c->state = CH_TRAILER;
			} else {
				c->state = CH_DATA;
			}
			break;
		case CH_DATA: {
			size_t n = len - i;

			if (n > c->remaining)
				n = (size_t)c->remaining;
			if (data_cb != NULL && data_cb(arg, in + i, n) != 0) {
				c->state = CH_ERROR;
				*used = i;
				return axg_seterr(err, errlen,
				    "chunked body: stopped by the consumer");
			}
			c->remaining -= n;
			i += n;
			if (c->remaining == 0)
				c->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (ch != '\r')
				return fail(c, err, errlen,
				    "chunk data not followed by CRLF");
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return fail(c, err, errlen, "bare CR");
			c->state = CH_SIZE;
			i++;
			break;
		case CH_TRAILER:
			if (ch == '\r') {
				c->state = CH_LAST_LF;
				i++;
				break;
			}
			if (ch == ' ' || ch == '\t' || ch == ':')
				return fail(c, err, errlen,
				    "invalid trailer field");
			c->state = CH_TRAILER_LINE;
			c->line_empty = true; /* no colon yet */
			c->line_len = 0;
			AXG_FALLTHROUGH;
		case CH_TRAILER_LINE:
			if (++c->trailer_bytes > c->max_trailer)
				return fail(c, err, errlen,
				    "trailer section too large");
			if (ch == '\r') {
				if (c->line_empty)
					return fail(c, err, errlen,
					    "trailer field without a colon");
				c->state = CH_TRAILER_LF;
			} else if (ch == ':' && c->line_empty) {
				c->line_empty = false;
			} else if (c->line_empty && !tok_char(ch)) {
				return fail(c, err, errlen,
				    "invalid trailer field name");
			} else if (!c->line_empty &&
			    ((ch < 0x20 && ch != '\t') || ch == 0x7f)) {
				return fail(c, err, errlen,
				    "control byte in a trailer field");
			}
			i++;
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return fail(c, err, errlen, "bare CR");
			c->state = CH_TRAILER;
			i++;
			break;
		case CH_LAST_LF:
			if (ch != '\n')
				return fail(c, err, errlen, "bare CR");
			c->state = CH_DONE;
			i++;
			break;
		default:
			return fail(c, err, errlen, "bad state");
		}
	}
	*used = i;
	return c->state == CH_DONE ? 1 : 0;
}
