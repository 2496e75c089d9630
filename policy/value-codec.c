/* value-codec.c: base64 and Go-compatible JSON output for builtins. */
#include "config.h"

#include <openssl/bn.h>
#include <stdlib.h>
#include <string.h>

#include "policy/value-extra-b.h"

static const char b64_std[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void
axv_b64_encode(const void *p, size_t n, bool url, bool pad, struct axg_buf *out)
{
	const unsigned char *s = p;
	const char *al = url ? b64_url : b64_std;
	size_t i;
	char q[4];

	for (i = 0; i + 3 <= n; i += 3) {
		unsigned v =
		    (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
		q[0] = al[v >> 18 & 63];
		q[1] = al[v >> 12 & 63];
		q[2] = al[v >> 6 & 63];
		q[3] = al[v & 63];
		axg_buf_append(out, q, 4);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)s[i] << 16;
		q[0] = al[v >> 18 & 63];
		q[1] = al[v >> 12 & 63];
		q[2] = q[3] = '=';
		axg_buf_append(out, q, pad ? 4 : 2);
	} else if (n - i == 2) {
		unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8;
		q[0] = al[v >> 18 & 63];
		q[1] = al[v >> 12 & 63];
		q[2] = al[v >> 6 & 63];
		q[3] = '=';
		axg_buf_append(out, q, pad ? 4 : 3);
	}
}

static int
b64_val(unsigned char c, bool url)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == (url ? '-' : '+'))
		return 62;
	if (c == (url ? '_' : '/'))
		return 63;
	return -1;
}

static bool
is_nl(char c)
{
	return c == '\n' || c == '\r';
}

/* One quantum, as Go's decodeQuantum: returns the new offset, or sets
 * *errpos and returns SIZE_MAX. */
static size_t
b64_quantum(const char *s, size_t n, size_t si, bool url, bool pad,
    struct axg_buf *out, size_t *errpos, bool *done)
{
	unsigned char d[4] = { 0, 0, 0, 0 };
	unsigned char o[3];
	int j, dlen = 4;
	bool trailing = false;
	size_t trail_at = 0;

	for (j = 0; j < 4; j++) {
		int v;
		char c;

		if (si == n) {
			if (j == 0) {
				*done = true;
				return si;
			}
			if (j == 1 || pad) {
				*errpos = si - (size_t)j;
				return SIZE_MAX;
			}
			dlen = j;
			break;
		}
		c = s[si++];
		v = b64_val((unsigned char)c, url);
		if (v >= 0) {
			d[j] = (unsigned char)v;
			continue;
		}
		if (is_nl(c)) {
			j--;
			continue;
		}
		if (!pad || c != '=') {
			*errpos = si - 1;
			return SIZE_MAX;
		}
		if (j == 0 || j == 1) {
			*errpos = si - 1;
			return SIZE_MAX;
		}
		if (j == 2) {
			while (si < n && is_nl(s[si]))
				si++;
			if (si == n) {
				*errpos = n;
				return SIZE_MAX;
			}
			if (s[si] != '=') {
				*errpos = si - 1;
				return SIZE_MAX;
			}
			si++;
		}
		while (si < n && is_nl(s[si]))
			si++;
		if (si < n) {
			trailing = true;
			trail_at = si;
		}
		dlen = j;
		break;
	}
	{
		unsigned v = (unsigned)d[0] << 18 | (unsigned)d[1] << 12 |
		    (unsigned)d[2] << 6 | d[3];
		o[0] = (unsigned char)(v >> 16);
		o[1] = (unsigned char)(v >> 8);
		o[2] = (unsigned char)v;
	}
	axg_buf_append(out, o, (size_t)(dlen - 1));
	if (trailing) {
		*errpos = trail_at;
		return SIZE_MAX;
	}
	if (dlen < 4)
		*done = true;
	return si;
}

int
axv_b64_decode(const char *s, size_t n, bool url, bool pad, struct axg_buf *out,
    size_t *errpos)
{
	size_t si = 0;
	bool done = false;

	while (si < n && !done) {
		si = b64_quantum(s, n, si, url, pad, out, errpos, &done);
		if (si == SIZE_MAX)
			return -1;
	}
	return 0;
}

struct axv *
axv_string_buf(struct axg_buf *b)
{
	size_t n;
	char *s = axg_buf_steal(b, &n);

	return axv_string_own(s, n);
}

struct axv *
axv_json_parse(const char *s, size_t n, char *err, size_t errlen)
{
	struct axv_json_limits lim = { 0, 0 };

	return axv_from_json(s, n, &lim, err, errlen);
}

/* ---- Go encoding/json output ---- */

static int
utf8_decode(const unsigned char *p, size_t n, unsigned *cp)
{
	unsigned c = p[0];
	int len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		len = 2, c &= 0x1f;
	else if ((c & 0xf0) == 0xe0)
		len = 3, c &= 0x0f;
	else if ((c & 0xf8) == 0xf0)
		len = 4, c &= 0x07;
	else
		return -1;
	if ((size_t)len > n)
		return -1;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) ||
	    (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*cp = c;
	return len;
}

static void
go_json_string(const char *s, size_t n, struct axg_buf *b)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	axg_buf_putc(b, '"');
	while (i < n) {
		unsigned char c = p[i];
		unsigned cp;
		int l;

		if (c < 0x80) {
			char e[7] = { '\\', 'u', '0', '0', 0, 0, 0 };
			switch (c) {
			case '"':
				axg_buf_puts(b, "\\\"");
				break;
			case '\\':
				axg_buf_puts(b, "\\\\");
				break;
			case '\n':
				axg_buf_puts(b, "\\n");
				break;
			case '\r':
				axg_buf_puts(b, "\\r");
				break;
			case '\t':
				axg_buf_puts(b, "\\t");
				break;
			case '\b':
				axg_buf_puts(b, "\\b");
				break;
			case '\f':
				axg_buf_puts(b, "\\f");
				break;
			default:
				if (c < 0x20 || c == '<' || c == '>' ||
				    c == '&') {
					e[4] = hex[c >> 4];
					e[5] = hex[c & 15];
					axg_buf_append(b, e, 6);
				} else
					axg_buf_putc(b, (char)c);
			}
			i++;
			continue;
		}
		l = utf8_decode(p + i, n - i, &cp);
		if (l < 0) {
			axg_buf_puts(b, "\\ufffd");
			i++;
			continue;
		}
		if (cp == 0x2028 || cp == 0x2029)
			axg_buf_printf(b, "\\u%04x", cp);
		else
			axg_buf_append(b, p + i, (size_t)l);
		i += (size_t)l;
	}
	axg_buf_putc(b, '"');
}

static void
go_json_nl(struct axg_buf *b, const char *prefix, const char *indent, int depth)
{
	int i;

	axg_buf_putc(b, '\n');
	axg_buf_puts(b, prefix);
	for (i = 0; i < depth; i++)
		axg_buf_puts(b, indent);
}

static int
go_json_rec(const struct axv *v, struct axg_buf *b, const char *prefix,
    const char *indent, int depth)
{
	size_t i, n;
	char *t;

	if (depth > 1000)
		return -1;
	switch (axv_kind(v)) {
	case AXV_NULL:
		axg_buf_puts(b, "null");
		break;
	case AXV_BOOL:
		axg_buf_puts(b, axv_bool_get(v) ? "true" : "false");
		break;
	case AXV_NUMBER:
		axv_num_format(v, b);
		break;
	case AXV_STRING:
		go_json_string(axv_str(v), axv_strlen(v), b);
		break;
	case AXV_ARRAY:
	case AXV_SET:
		n = axv_kind(v) == AXV_SET ? axv_set_len(v) : axv_array_len(v);
		axg_buf_putc(b, '[');
		for (i = 0; i < n; i++) {
			const struct axv *e = axv_kind(v) == AXV_SET
			    ? axv_set_at(v, i)
			    : axv_array_get(v, i);
			if (i > 0)
				axg_buf_putc(b, ',');
			if (indent)
				go_json_nl(b, prefix, indent, depth + 1);
			if (go_json_rec(e, b, prefix, indent, depth + 1) < 0)
				return -1;
		}
		if (indent && n > 0)
			go_json_nl(b, prefix, indent, depth);
		axg_buf_putc(b, ']');
		break;
	case AXV_OBJECT:
		n = axv_object_len(v);
		axg_buf_putc(b, '{');
		for (i = 0; i < n; i++) {
			const struct axv *k = axv_object_key(v, i);
			if (i > 0)
				axg_buf_putc(b, ',');
			if (indent)
				go_json_nl(b, prefix, indent, depth + 1);
			if (axv_kind(k) == AXV_STRING)
				go_json_string(axv_str(k), axv_strlen(k), b);
			else {
				t = axv_to_rego_string(k);
				go_json_string(t, strlen(t), b);
				free(t);
			}
			axg_buf_puts(b, indent ? ": " : ":");
			if (go_json_rec(axv_object_val(v, i), b, prefix, indent,
				depth + 1) < 0)
				return -1;
		}
		if (indent && n > 0)
			go_json_nl(b, prefix, indent, depth);
		axg_buf_putc(b, '}');
		break;
	}
	return 0;
}

int
axv_go_json(const struct axv *v, struct axg_buf *b, const char *prefix,
    const char *indent)
{
	return go_json_rec(v, b, prefix ? prefix : "", indent, 0);
}

BIGNUM *
axv_num_to_bn(const struct axv *v)
{
	struct axg_buf b;
	BIGNUM *bn = NULL;
	int64_t i;

	if (axv_kind(v) != AXV_NUMBER || !axv_num_is_int(v))
		return NULL;
	if (axv_num_get_i64(v, &i)) {
		bn = BN_new();
		if (bn == NULL)
			axg_fatal(1, "out of memory");
		if (i < 0) {
			BN_set_word(bn, (BN_ULONG)(-(uint64_t)i));
			BN_set_negative(bn, 1);
		} else
			BN_set_word(bn, (BN_ULONG)i);
		return bn;
	}
	axg_buf_init(&b, 0);
	axv_num_format(v, &b);
	if (BN_dec2bn(&bn, b.data) == 0)
		bn = NULL;
	axg_buf_free(&b);
	return bn;
}

struct axv *
axv_num_from_bn(const BIGNUM *bn)
{
	char *s = BN_bn2dec(bn);
	struct axv *v;

	if (s == NULL)
		axg_fatal(1, "out of memory");
	v = axv_number_parse(s, strlen(s));
	OPENSSL_free(s);
	return v;
}

bool
axv_num_i64(const struct axv *v, int64_t *out)
{
	BIGNUM *bn;
	bool ok = false;

	if (axv_num_get_i64(v, out))
		return true;
	bn = axv_num_to_bn(v);
	if (bn == NULL)
		return false;
	if (BN_is_negative(bn) && BN_num_bits(bn) == 64) {
		BIGNUM *min = NULL;
		if (BN_dec2bn(&min, "-9223372036854775808") > 0 &&
		    BN_cmp(bn, min) == 0) {
			*out = INT64_MIN;
			ok = true;
		}
		BN_free(min);
	}
	BN_free(bn);
	return ok;
}
