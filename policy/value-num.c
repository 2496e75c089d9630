/* value-num.c: Rego numbers: int64 fast path, exact big integers (OpenSSL
 * BIGNUM), binary64 for the rest. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/value-int.h"

#define NUM_MAX_DIGITS 4096

static struct axv_num *
num_alloc(enum axv_numkind k)
{
	struct axv_num *n = axv_mem_alloc(sizeof(*n));

	memset(n, 0, sizeof(*n));
	n->h.refs = 1;
	n->h.kind = AXV_NUMBER;
	n->h.sub = (uint8_t)k;
	return n;
}

void
axv_num_free(struct axv_num *n)
{
	BN_free(n->bn);
	free(n->text);
	axv_mem_free(n, sizeof(*n));
}

/* Small integers (array indexes, counts, ports below the limit) are
 * shared immortal values: no allocation, no reference counting.  The
 * table is initialised at compile time: in the program's data, read from
 * its file as it is needed, instead of ten zeroed pages written by a
 * constructor at every start. */
#define SMALL_INTS 1024
#define SI1(n)                                                                 \
	{                                                                      \
		.h = { .refs = AXV_IMMORTAL,                                   \
			.kind = AXV_NUMBER,                                    \
			.sub = AXV_NUM_INT },                                  \
		.i = (n), .d = (double)(n)                                     \
	}
#define SI4(n)	  SI1(n), SI1((n) + 1), SI1((n) + 2), SI1((n) + 3)
#define SI16(n)	  SI4(n), SI4((n) + 4), SI4((n) + 8), SI4((n) + 12)
#define SI64(n)	  SI16(n), SI16((n) + 16), SI16((n) + 32), SI16((n) + 48)
#define SI256(n)  SI64(n), SI64((n) + 64), SI64((n) + 128), SI64((n) + 192)
#define SI1024(n) SI256(n), SI256((n) + 256), SI256((n) + 512), SI256((n) + 768)
static struct axv_num small_ints[SMALL_INTS] = { SI1024(0) };

struct axv *
axv_int(int64_t i)
{
	struct axv_num *n;

	if (i >= 0 && i < SMALL_INTS)
		return &small_ints[i].h;
	n = num_alloc(AXV_NUM_INT);

	n->i = i;
	n->d = (double)i;
	return &n->h;
}

static BIGNUM *
bn_new(void)
{
	BIGNUM *b = BN_new();

	if (b == NULL)
		axg_fatal(1, "out of memory");
	return b;
}

/* A BIGNUM result, consumed: an int64 when it fits. */
static struct axv *
num_from_bn(BIGNUM *b)
{
	struct axv_num *n;
	char *dec;

	if (BN_num_bits(b) <= 63) {
		BN_ULONG w = BN_get_word(b);
		int64_t i = (int64_t)w;
		if (BN_is_negative(b))
			i = -i;
		BN_free(b);
		return axv_int(i);
	}
	n = num_alloc(AXV_NUM_BIG);
	n->bn = b;
	dec = BN_bn2dec(b);
	n->d = dec ? strtod(dec, NULL) : 0;
	OPENSSL_free(dec);
	return &n->h;
}

static char *
format_double(double d)
{
	char tmp[64];
	int prec;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	return axg_strdup(tmp);
}

struct axv *
axv_double(double d)
{
	struct axv_num *n;

	if (isfinite(d) && d == floor(d)) {
		if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
			return axv_int((int64_t)d);
		else {
			char tmp[400];
			BIGNUM *b = NULL;
			snprintf(tmp, sizeof(tmp), "%.0f", d);
			if (BN_dec2bn(&b, tmp) > 0)
				return num_from_bn(b);
		}
	}
	n = num_alloc(AXV_NUM_FLOAT);
	n->d = d;
	n->text = format_double(d);
	return &n->h;
}

/* A literal past binary64's range (2e308): exact as an integer when its
 * exponent leaves no fraction, printed as it was written, the way OPA keeps
 * such a number's text. NULL when it has a fraction or too many digits. */
static struct axv *
parse_huge(const char *s, size_t len)
{
	char digits[NUM_MAX_DIGITS + 2];
	size_t i = 0, nd = 0, frac = 0;
	long exp = 0, shift;
	bool neg = false, in_frac = false;
	BIGNUM *b = NULL;
	struct axv *r;

	if (s[i] == '-')
		neg = true, i++;
	for (; i < len && s[i] != 'e' && s[i] != 'E'; i++) {
		if (s[i] == '.') {
			in_frac = true;
			continue;
		}
		if (nd == 0 && s[i] == '0' && !in_frac)
			continue;
		if (nd >= NUM_MAX_DIGITS)
			return NULL;
		digits[nd++] = s[i];
		frac += in_frac;
	}
	if (i < len) {
		bool eneg = s[++i] == '-';
		if (s[i] == '-' || s[i] == '+')
			i++;
		for (; i < len; i++) {
			exp = exp * 10 + (s[i] - '0');
			if (exp > NUM_MAX_DIGITS)
				return NULL;
		}
		if (eneg)
			exp = -exp;
	}
	shift = exp - (long)frac;
	for (; shift < 0 && nd > 0; shift++, nd--)
		if (digits[nd - 1] != '0')
			return NULL;
	if (nd == 0 || nd + (size_t)shift > NUM_MAX_DIGITS)
		return NULL;
	memset(digits + nd, '0', (size_t)shift);
	nd += (size_t)shift;
	if (neg) {
		memmove(digits + 1, digits, nd++);
		digits[0] = '-';
	}
	digits[nd] = '\0';
	if (BN_dec2bn(&b, digits) <= 0)
		return NULL;
	r = num_from_bn(b);
	if (r->sub == AXV_NUM_BIG)
		((struct axv_num *)r)->text = axg_strndup(s, len);
	return r;
}

struct axv *
axv_number_parse(const char *s, size_t len)
{
	size_t i = 0, digits = 0;
	bool frac = false;
	char *tmp;
	struct axv *r = NULL;

	if (len == 0 || len > NUM_MAX_DIGITS)
		return NULL;
	if (s[i] == '-')
		i++;
	if (i >= len || s[i] < '0' || s[i] > '9')
		return NULL;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < len && s[i] == '.') {
		frac = true;
		i++;
		if (i >= len || s[i] < '0' || s[i] > '9')
			return NULL;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		frac = true;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= len || s[i] < '0' || s[i] > '9')
			return NULL;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i != len)
		return NULL;
	tmp = axg_strndup(s, len);
	if (!frac) {
		BIGNUM *b = NULL;
		if (digits <= 18) {
			long long v = strtoll(tmp, NULL, 10);
			r = axv_int((int64_t)v);
		} else if (BN_dec2bn(&b, tmp) > 0) {
			r = num_from_bn(b);
		}
	} else {
		double d;
		errno = 0;
		d = strtod(tmp, NULL);
		if (!isfinite(d)) {
			r = parse_huge(s, len);
		} else if (d == floor(d) && fabs(d) < 9.007199254740992e15) {
			r = axv_int((int64_t)d);
		} else {
			struct axv_num *n = num_alloc(AXV_NUM_FLOAT);
			n->d = d;
			n->text = tmp;
			tmp = NULL;
			r = &n->h;
		}
	}
	free(tmp);
	return r;
}

bool
axv_num_is_finite(const struct axv *v)
{
	return v->sub != AXV_NUM_FLOAT || isfinite(AXV_NUM(v)->d);
}

bool
axv_num_is_int(const struct axv *v)
{
	return v->sub != AXV_NUM_FLOAT;
}

bool(axv_num_get_i64)(const struct axv *v, int64_t *out)
{
	if (v->sub != AXV_NUM_INT)
		return false;
	*out = AXV_NUM(v)->i;
	return true;
}

double
axv_num_get_double(const struct axv *v)
{
	return AXV_NUM(v)->d;
}

bool
axv_num_is_zero(const struct axv *v)
{
	return v->sub == AXV_NUM_INT ? AXV_NUM(v)->i == 0 : AXV_NUM(v)->d == 0;
}

static BIGNUM *
to_bn(const struct axv *v)
{
	BIGNUM *b;

	if (v->sub == AXV_NUM_BIG) {
		b = BN_dup(AXV_NUM(v)->bn);
		if (b == NULL)
			axg_fatal(1, "out of memory");
		return b;
	}
	b = bn_new();
	{
		int64_t i = AXV_NUM(v)->i;
		uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
		BN_set_word(b, (BN_ULONG)u);
		BN_set_negative(b, i < 0);
	}
	return b;
}

static bool
both_float_math(const struct axv *a, const struct axv *b)
{
	return a->sub == AXV_NUM_FLOAT || b->sub == AXV_NUM_FLOAT;
}

enum arith { OP_ADD, OP_SUB, OP_MUL };

static struct axv *
num_arith(const struct axv *a, const struct axv *b, enum arith op)
{
	BIGNUM *x, *y, *r;
	BN_CTX *ctx;

	if (both_float_math(a, b)) {
		double p = AXV_NUM(a)->d, q = AXV_NUM(b)->d;
		return axv_double(op == OP_ADD ? p + q
			: op == OP_SUB	       ? p - q
					       : p * q);
	}
	if (a->sub == AXV_NUM_INT && b->sub == AXV_NUM_INT) {
		int64_t res, p = AXV_NUM(a)->i, q = AXV_NUM(b)->i;
		bool ovf = op == OP_ADD ? __builtin_add_overflow(p, q, &res)
		    : op == OP_SUB	? __builtin_sub_overflow(p, q, &res)
					: __builtin_mul_overflow(p, q, &res);
		if (!ovf)
			return axv_int(res);
	}
	x = to_bn(a);
	y = to_bn(b);
	r = bn_new();
	ctx = BN_CTX_new();
	if (op == OP_ADD)
		BN_add(r, x, y);
	else if (op == OP_SUB)
		BN_sub(r, x, y);
	else
		BN_mul(r, x, y, ctx);
	BN_CTX_free(ctx);
	BN_free(x);
	BN_free(y);
	return num_from_bn(r);
}

struct axv *
axv_num_add(const struct axv *a, const struct axv *b)
{
	return num_arith(a, b, OP_ADD);
}

struct axv *
axv_num_sub(const struct axv *a, const struct axv *b)
{
	return num_arith(a, b, OP_SUB);
}

struct axv *
axv_num_mul(const struct axv *a, const struct axv *b)
{
	return num_arith(a, b, OP_MUL);
}

struct axv *
axv_num_neg(const struct axv *a)
{
	struct axv *zero = axv_int(0), *r = axv_num_sub(zero, a);

	axv_unref(zero);
	return r;
}

/* Big-integer division; *exact says whether the remainder was zero. */
static struct axv *
bn_divmod(const struct axv *a, const struct axv *b, bool want_rem, bool *exact)
{
	BIGNUM *x = to_bn(a), *y = to_bn(b), *q = bn_new(), *r = bn_new();
	BN_CTX *ctx = BN_CTX_new();

	BN_div(q, r, x, y, ctx);
	*exact = BN_is_zero(r);
	BN_CTX_free(ctx);
	BN_free(x);
	BN_free(y);
	if (want_rem) {
		BN_free(q);
		return num_from_bn(r);
	}
	BN_free(r);
	return num_from_bn(q);
}

/* The double of b, shifted right by shift bits first. */
static double
bn_double(const BIGNUM *b, int shift)
{
	BIGNUM *t = bn_new();
	char *dec;
	double d;

	BN_rshift(t, b, shift);
	BN_set_negative(t, BN_is_negative(b));
	dec = BN_bn2dec(t);
	d = dec ? strtod(dec, NULL) : 0;
	OPENSSL_free(dec);
	BN_free(t);
	return d;
}

/* a / b for integers, one of them past int64: exact when b divides a;
 * else the quotient's integer part and its fraction as doubles apart, so
 * that a dividend past binary64's range (2e308 / 3) still gives the
 * double the quotient is. */
static struct axv *
big_div(const struct axv *a, const struct axv *b)
{
	BIGNUM *x = to_bn(a), *y = to_bn(b), *q = bn_new(), *r = bn_new();
	BN_CTX *ctx = BN_CTX_new();
	struct axv *res;
	int shift;

	BN_div(q, r, x, y, ctx);
	if (BN_is_zero(r)) {
		res = num_from_bn(q);
		q = NULL;
	} else {
		/* |r| < |y|: both scaled alike keep the fraction and fit */
		shift = BN_num_bits(y) > 1000 ? BN_num_bits(y) - 1000 : 0;
		res = axv_double(bn_double(q, 0) +
		    bn_double(r, shift) / bn_double(y, shift));
	}
	BN_CTX_free(ctx);
	BN_free(x);
	BN_free(y);
	BN_free(q);
	BN_free(r);
	return res;
}

struct axv *
axv_num_div(const struct axv *a, const struct axv *b)
{
	if (axv_num_is_zero(b))
		return NULL;
	if (a->sub == AXV_NUM_INT && b->sub == AXV_NUM_INT) {
		int64_t p = AXV_NUM(a)->i, d = AXV_NUM(b)->i;
		if (!(p == INT64_MIN && d == -1) && p % d == 0)
			return axv_int(p / d);
	} else if (!both_float_math(a, b)) {
		return big_div(a, b);
	}
	return axv_double(AXV_NUM(a)->d / AXV_NUM(b)->d);
}

struct axv *
axv_num_rem(const struct axv *a, const struct axv *b)
{
	bool exact;

	if (both_float_math(a, b) || axv_num_is_zero(b))
		return NULL;
	if (a->sub == AXV_NUM_INT && b->sub == AXV_NUM_INT) {
		int64_t p = AXV_NUM(a)->i, d = AXV_NUM(b)->i;
		if (d == -1)
			return axv_int(0);
		return axv_int(p % d);
	}
	return bn_divmod(a, b, true, &exact);
}

int
axv_num_cmp(const struct axv *a, const struct axv *b)
{
	if (a->sub == AXV_NUM_INT && b->sub == AXV_NUM_INT) {
		int64_t p = AXV_NUM(a)->i, q = AXV_NUM(b)->i;
		return p < q ? -1 : p > q;
	}
	if (both_float_math(a, b)) {
		double p = AXV_NUM(a)->d, q = AXV_NUM(b)->d;
		return p < q ? -1 : p > q;
	} else {
		BIGNUM *x = to_bn(a), *y = to_bn(b);
		int c = BN_cmp(x, y);
		BN_free(x);
		BN_free(y);
		return c < 0 ? -1 : c > 0;
	}
}

const char *
axv_num_literal(const struct axv *v)
{
	return v->sub == AXV_NUM_BIG ? AXV_NUM(v)->text : NULL;
}

int
axv_num_format(const struct axv *v, struct axg_buf *b)
{
	const struct axv_num *n = AXV_NUM(v);
	char *dec;
	int rc;

	switch (v->sub) {
	case AXV_NUM_INT:
		return axg_buf_printf(b, "%lld", (long long)n->i);
	case AXV_NUM_BIG:
		dec = BN_bn2dec(n->bn);
		if (dec == NULL)
			axg_fatal(1, "out of memory");
		rc = axg_buf_puts(b, dec);
		OPENSSL_free(dec);
		return rc;
	default:
		return axg_buf_puts(b, n->text);
	}
}
