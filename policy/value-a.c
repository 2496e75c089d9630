/* value-a.c: helpers on values for the builtin families. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/value-extra-a.h"

size_t
axv_coll_len(const struct axv *v)
{
	return axv_kind(v) == AXV_SET ? axv_set_len(v) : axv_array_len(v);
}

struct axv *
axv_coll_at(const struct axv *v, size_t i)
{
	return axv_kind(v) == AXV_SET ? axv_set_at(v, i) : axv_array_get(v, i);
}

struct axv *
axv_object_copy(const struct axv *obj)
{
	struct axv *r = axv_object_new(axv_object_len(obj));
	size_t i;

	for (i = 0; i < axv_object_len(obj); i++)
		axv_object_put(r, axv_ref(axv_object_key(obj, i)),
		    axv_ref(axv_object_val(obj, i)));
	return r;
}

size_t
axv_utf8_next(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c = p[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		goto bad;
	}
	if (len > n)
		goto bad;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto bad;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*cp = c;
	return len;
bad:
	*cp = 0xfffd;
	return 1;
}

size_t
axv_utf8_put(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t
axv_utf8_count(const char *s, size_t n)
{
	size_t i = 0, count = 0;
	uint32_t cp;

	while (i < n) {
		i += axv_utf8_next(s + i, n - i, &cp);
		count++;
	}
	return count;
}

size_t
axv_utf8_offset(const char *s, size_t n, size_t idx)
{
	size_t i = 0;
	uint32_t cp;

	while (i < n && idx > 0) {
		i += axv_utf8_next(s + i, n - i, &cp);
		idx--;
	}
	return i;
}

uint32_t
axv_ucs_lower(uint32_t c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? c + 32 : c;
	if ((c >= 0xc0 && c <= 0xde && c != 0xd7) ||
	    (c >= 0x391 && c <= 0x3ab && c != 0x3a2) ||
	    (c >= 0x410 && c <= 0x42f))
		return c + 32;
	if (c >= 0x400 && c <= 0x40f)
		return c + 80;
	if (c >= 0x100 && c <= 0x17f && c != 0x130 && c != 0x131 &&
	    c != 0x138 && c != 0x149 && c != 0x17f) {
		/* Pairs: even upper in 0100-0137 and 014A-0177, odd upper in
		 * 0139-0148 and 0179-017E. */
		if ((c < 0x138 || (c >= 0x14a && c < 0x178)) && c % 2 == 0)
			return c + 1;
		if (((c >= 0x139 && c < 0x149) || (c >= 0x179 && c < 0x17f)) &&
		    c % 2 == 1)
			return c + 1;
		if (c == 0x178)
			return 0xff;
	}
	return c;
}

uint32_t
axv_ucs_upper(uint32_t c)
{
	if (c < 0x80)
		return c >= 'a' && c <= 'z' ? c - 32 : c;
	if ((c >= 0xe0 && c <= 0xfe && c != 0xf7) ||
	    (c >= 0x3b1 && c <= 0x3cb && c != 0x3c2) ||
	    (c >= 0x430 && c <= 0x44f))
		return c - 32;
	if (c == 0x3c2) /* final sigma */
		return 0x3a3;
	if (c >= 0x450 && c <= 0x45f)
		return c - 80;
	if (c == 0xff)
		return 0x178;
	if (c == 0xb5)
		return 0x39c;
	if (c >= 0x100 && c <= 0x17f && c != 0x130 && c != 0x131 &&
	    c != 0x138 && c != 0x149) {
		if (c == 0x17f)
			return 'S';
		if ((c < 0x138 || (c >= 0x14a && c < 0x178)) && c % 2 == 1)
			return c - 1;
		if (((c >= 0x139 && c < 0x149) || (c >= 0x179 && c < 0x17f)) &&
		    c % 2 == 0)
			return c - 1;
	}
	return c;
}

int
axp_bia_int_slow(struct axp_bctx *ctx, struct axv *const *args, int pos,
    int64_t *out)
{
	if (!axp_bi_want(ctx, args, pos, AXV_NUMBER))
		return -1;
	if (!axv_num_get_i64(args[pos - 1], out)) {
		axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand %d must be integer number but got floating-point "
		    "number",
		    pos);
		return -1;
	}
	return 0;
}

int
axp_bia_elem_error(struct axp_bctx *ctx, int pos, const struct axv *coll,
    const struct axv *got, const char *want)
{
	return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
	    "operand %d must be %s of %ss but got %s containing %s", pos,
	    axv_type_name(coll), want, axv_type_name(coll), axv_type_name(got));
}

bool
axp_bia_want_strings(struct axp_bctx *ctx, struct axv *const *args, int pos)
{
	const struct axv *c = args[pos - 1];
	size_t i;

	if (axv_kind(c) != AXV_ARRAY && axv_kind(c) != AXV_SET) {
		axp_bi_type_error(ctx, pos, "one of {array, set}", c);
		return false;
	}
	for (i = 0; i < axv_coll_len(c); i++)
		if (axv_kind(axv_coll_at(c, i)) != AXV_STRING) {
			axp_bia_elem_error(ctx, pos, c, axv_coll_at(c, i),
			    "string");
			return false;
		}
	return true;
}

/* The decimal digits of the integer part of a number (sign apart). */
static char *
int_decimal(const struct axv *num, bool *neg)
{
	struct axg_buf b;
	char *t, *dot;

	axg_buf_init(&b, 0);
	if (axv_num_is_int(num))
		axv_num_format(num, &b);
	else
		axg_buf_printf(&b, "%.0f", trunc(axv_num_get_double(num)));
	t = axg_buf_steal(&b, NULL);
	dot = strpbrk(t, ".eE");
	if (dot != NULL)
		*dot = '\0';
	*neg = t[0] == '-';
	if (*neg)
		memmove(t, t + 1, strlen(t));
	if (t[0] == '\0' || strcmp(t, "0") == 0)
		*neg = false;
	return t;
}

char *
axv_num_int_digits(const struct axv *num, int base, bool *neg)
{
	static const char digits[] = "0123456789abcdef";
	char *dec = int_decimal(num, neg), *res;
	unsigned char *work = (unsigned char *)dec;
	size_t n = strlen(dec), len = n, rl = 0, i;

	if (base == 10)
		return dec;
	for (i = 0; i < n; i++)
		work[i] = (unsigned char)(work[i] - '0');
	res = axg_malloc(n * 4 + 2);
	/* Long division of the decimal digits by base, repeatedly. */
	for (;;) {
		size_t k, nz = 0;
		unsigned rem = 0;
		for (k = 0; k < len; k++) {
			unsigned cur = rem * 10 + work[k];
			work[k] = (unsigned char)(cur / (unsigned)base);
			rem = cur % (unsigned)base;
		}
		res[rl++] = digits[rem];
		while (nz < len && work[nz] == 0)
			nz++;
		memmove(work, work + nz, len - nz);
		len -= nz;
		if (len == 0)
			break;
	}
	for (i = 0; i < rl / 2; i++) {
		char t = res[i];
		res[i] = res[rl - 1 - i];
		res[rl - 1 - i] = t;
	}
	res[rl] = '\0';
	free(dec);
	return res;
}

/* A JSON pointer string ("/a/b~1c") as an array of its segments, with ~0
 * and ~1 decoded; leading slashes are skipped. */
struct axv *
axv_json_pointer_split(const struct axv *p)
{
	const char *s = axv_str(p), *end = s + axv_strlen(p), *q;
	struct axv *r = axv_array_new(4);
	struct axg_buf b;

	if (s == end)
		return r;
	while (s < end && *s == '/')
		s++;
	axg_buf_init(&b, 0);
	for (;;) {
		q = memchr(s, '/', (size_t)(end - s));
		if (q == NULL)
			q = end;
		axg_buf_reset(&b);
		for (; s < q; s++) {
			if (*s == '~' && s + 1 < q &&
			    (s[1] == '0' || s[1] == '1')) {
				axg_buf_putc(&b, s[1] == '0' ? '~' : '/');
				s++;
			} else {
				axg_buf_putc(&b, *s);
			}
		}
		axv_array_push(r, axv_string(b.data ? b.data : "", b.len));
		if (q == end)
			break;
		s = q + 1;
	}
	axg_buf_free(&b);
	return r;
}
