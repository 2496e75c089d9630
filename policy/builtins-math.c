/* builtins-math.c: abs, round, ceil, floor. */
#include "config.h"

#include <math.h>

#include "policy/builtins.h"

static int
bi_abs(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *zero;
	bool neg;

	if (!axp_bi_want(ctx, args, 1, AXV_NUMBER))
		return AXP_BI_ERROR;
	zero = axv_int(0);
	neg = axv_num_cmp(args[0], zero) < 0;
	axv_unref(zero);
	*out = neg ? axv_num_neg(args[0]) : axv_ref(args[0]);
	return AXP_BI_OK;
}

/* Integers are their own round, ceil and floor; other numbers go through
 * binary64, as OPA's big.Float does for values in its range. */
static int
rounding(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    double (*fn)(double))
{
	if (!axp_bi_want(ctx, args, 1, AXV_NUMBER))
		return AXP_BI_ERROR;
	if (axv_num_is_int(args[0])) {
		*out = axv_ref(args[0]);
		return AXP_BI_OK;
	}
	*out = axv_double(fn(axv_num_get_double(args[0])));
	return AXP_BI_OK;
}

static int
bi_round(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	/* Half away from zero, as Go's math.Round. */
	return rounding(ctx, args, out, round);
}

static int
bi_ceil(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return rounding(ctx, args, out, ceil);
}

static int
bi_floor(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return rounding(ctx, args, out, floor);
}

const struct axp_builtin axp_builtins_math[] = {
	{ "abs", 1, bi_abs, "(number) => number", 0 },
	{ "round", 1, bi_round, "(number) => number", 0 },
	{ "ceil", 1, bi_ceil, "(number) => number", 0 },
	{ "floor", 1, bi_floor, "(number) => number", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
