/*
 * builtins-bits.c: bits.and, bits.or, bits.xor, bits.negate, bits.lsh,
 * bits.rsh on integers of any size (two's complement, as Go's big.Int).
 */
#include "config.h"

#include <openssl/bn.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-b.h"

/* Results of bits.lsh are bounded to this many bits. */
#define BITS_MAX_SHIFT 65536

static bool
want_int(struct axp_bctx *ctx, struct axv *const *args, int pos)
{
	const struct axv *v = args[pos - 1];

	if (!axp_bi_want(ctx, args, pos, AXV_NUMBER))
		return false;
	if (!axv_num_is_int(v)) {
		axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand %d must be integer number but got "
		    "floating-point number",
		    pos);
		return false;
	}
	return true;
}

/* Two's complement bytes (big-endian) of bn in width bytes. */
static void
to_twos(const BIGNUM *bn, unsigned char *p, int width)
{
	int i;

	BN_bn2binpad(bn, p, width);
	if (!BN_is_negative(bn))
		return;
	for (i = 0; i < width; i++)
		p[i] = (unsigned char)~p[i];
	for (i = width - 1; i >= 0; i--)
		if (++p[i] != 0)
			break;
}

static BIGNUM *
from_twos(unsigned char *p, int width)
{
	bool neg = width > 0 && (p[0] & 0x80);
	BIGNUM *bn;
	int i;

	if (neg) {
		for (i = 0; i < width; i++)
			p[i] = (unsigned char)~p[i];
		for (i = width - 1; i >= 0; i--)
			if (++p[i] != 0)
				break;
	}
	bn = BN_bin2bn(p, width, NULL);
	if (bn == NULL)
		axg_fatal(1, "out of memory");
	if (neg)
		BN_set_negative(bn, 1);
	return bn;
}

enum bitop { OP_AND, OP_OR, OP_XOR };

static struct axv *
big_bitop(const struct axv *a, const struct axv *b, enum bitop op)
{
	BIGNUM *x = axv_num_to_bn(a), *y = axv_num_to_bn(b), *r;
	int w, i;
	unsigned char *p, *q;
	struct axv *v;

	w = BN_num_bytes(x) > BN_num_bytes(y) ? BN_num_bytes(x)
					      : BN_num_bytes(y);
	w += 1;
	p = axg_calloc(2, (size_t)w);
	q = p + w;
	to_twos(x, p, w);
	to_twos(y, q, w);
	for (i = 0; i < w; i++)
		p[i] = op == OP_AND ? p[i] & q[i]
		    : op == OP_OR   ? p[i] | q[i]
				    : p[i] ^ q[i];
	r = from_twos(p, w);
	v = axv_num_from_bn(r);
	BN_free(r);
	BN_free(x);
	BN_free(y);
	free(p);
	return v;
}

static int
bitop(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    enum bitop op)
{
	int64_t a, b;

	if (!want_int(ctx, args, 1) || !want_int(ctx, args, 2))
		return AXP_BI_ERROR;
	if (axv_num_get_i64(args[0], &a) && axv_num_get_i64(args[1], &b)) {
		*out = axv_int(op == OP_AND ? (a & b)
			: op == OP_OR	    ? (a | b)
					    : (a ^ b));
		return AXP_BI_OK;
	}
	*out = big_bitop(args[0], args[1], op);
	return AXP_BI_OK;
}

static int
bi_and(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return bitop(ctx, args, out, OP_AND);
}

static int
bi_or(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return bitop(ctx, args, out, OP_OR);
}

static int
bi_xor(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return bitop(ctx, args, out, OP_XOR);
}

/* ^x == -x - 1 */
static int
bi_negate(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *neg, *one;

	if (!want_int(ctx, args, 1))
		return AXP_BI_ERROR;
	neg = axv_num_neg(args[0]);
	one = axv_int(1);
	*out = axv_num_sub(neg, one);
	axv_unref(neg);
	axv_unref(one);
	return AXP_BI_OK;
}

/* The shift count: a non-negative integer, bounded. */
static bool
want_shift(struct axp_bctx *ctx, struct axv *const *args, int64_t *n)
{
	if (!want_int(ctx, args, 2))
		return false;
	if (axv_num_get_i64(args[1], n)) {
		if (*n >= 0)
			return true;
		axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand 2 must be an unsigned integer number but got a "
		    "negative integer");
		return false;
	}
	/* too big for int64: negative or absurdly large */
	{
		struct axv *zero = axv_int(0);
		bool negative = axv_num_cmp(args[1], zero) < 0;
		axv_unref(zero);
		if (negative)
			axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 2 must be an unsigned integer number but "
			    "got a negative integer");
		else
			*n = INT64_MAX;
		return !negative;
	}
}

static int
bi_lsh(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t a, n;
	BIGNUM *x;

	if (!want_int(ctx, args, 1) || !want_shift(ctx, args, &n))
		return AXP_BI_ERROR;
	if (axv_num_is_zero(args[0])) {
		*out = axv_int(0);
		return AXP_BI_OK;
	}
	if (n > BITS_MAX_SHIFT)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "shift count larger than %d", BITS_MAX_SHIFT);
	if (axv_num_get_i64(args[0], &a) && n < 30 &&
	    a >= -(INT64_C(1) << 32) && a < (INT64_C(1) << 32)) {
		*out = axv_int(a * (INT64_C(1) << n));
		return AXP_BI_OK;
	}
	x = axv_num_to_bn(args[0]);
	if (!BN_lshift(x, x, (int)n))
		axg_fatal(1, "out of memory");
	*out = axv_num_from_bn(x);
	BN_free(x);
	return AXP_BI_OK;
}

static int
bi_rsh(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t a, n;
	BIGNUM *x;
	bool neg;

	if (!want_int(ctx, args, 1) || !want_shift(ctx, args, &n))
		return AXP_BI_ERROR;
	if (axv_num_get_i64(args[0], &a)) {
		if (n >= 63)
			*out = axv_int(a < 0 ? -1 : 0);
		else
			*out = axv_int(a >> n); /* arithmetic on gcc/clang */
		return AXP_BI_OK;
	}
	x = axv_num_to_bn(args[0]);
	neg = BN_is_negative(x);
	if (n > INT32_MAX)
		n = INT32_MAX;
	if (neg) {
		/* floor: -((|x| - 1) >> n) - 1 */
		BN_set_negative(x, 0);
		BN_sub_word(x, 1);
		BN_rshift(x, x, (int)n);
		BN_add_word(x, 1);
		BN_set_negative(x, 1);
	} else
		BN_rshift(x, x, (int)n);
	*out = axv_num_from_bn(x);
	BN_free(x);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_bits[] = {
	{ "bits.and", 2, bi_and, "(number, number) => number", 0 },
	{ "bits.or", 2, bi_or, "(number, number) => number", 0 },
	{ "bits.xor", 2, bi_xor, "(number, number) => number", 0 },
	{ "bits.negate", 1, bi_negate, "(number) => number", 0 },
	{ "bits.lsh", 2, bi_lsh, "(number, number) => number", 0 },
	{ "bits.rsh", 2, bi_rsh, "(number, number) => number", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
