/* builtins-arith.c: plus, minus, mul, div, rem, and the set operators that
 * share their infix symbols (minus on sets, and, or). */
#include "config.h"

#include "policy/builtins.h"

static int
want_numbers(struct axp_bctx *ctx, struct axv *const *args)
{
	if (!axp_bi_want(ctx, args, 1, AXV_NUMBER) ||
	    !axp_bi_want(ctx, args, 2, AXV_NUMBER))
		return -1;
	return 0;
}

static int
bi_plus(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (want_numbers(ctx, args) < 0)
		return AXP_BI_ERROR;
	return axp_bi_number_out(ctx, axv_num_add(args[0], args[1]), out);
}

static int
bi_mul(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (want_numbers(ctx, args) < 0)
		return AXP_BI_ERROR;
	return axp_bi_number_out(ctx, axv_num_mul(args[0], args[1]), out);
}

/* Set difference a - b (both sets). */
static struct axv *
set_diff(const struct axv *a, const struct axv *b)
{
	struct axv *r = axv_set_new(axv_set_len(a));
	size_t i;

	for (i = 0; i < axv_set_len(a); i++)
		if (!axv_set_contains(b, axv_set_at(a, i)))
			axv_set_add(r, axv_ref(axv_set_at(a, i)));
	return r;
}

static int
bi_minus(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	enum axv_kind a = axv_kind(args[0]), b = axv_kind(args[1]);

	if (a == AXV_NUMBER && b == AXV_NUMBER)
		return axp_bi_number_out(ctx, axv_num_sub(args[0], args[1]),
		    out);
	if (a == AXV_SET && b == AXV_SET) {
		*out = set_diff(args[0], args[1]);
		return AXP_BI_OK;
	}
	if (a != AXV_NUMBER && a != AXV_SET)
		return axp_bi_type_error(ctx, 1, "one of {number, set}",
		    args[0]);
	return axp_bi_type_error(ctx, 2, axv_kind_name((enum axv_kind)a),
	    args[1]);
}

static int
bi_div(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (want_numbers(ctx, args) < 0)
		return AXP_BI_ERROR;
	if (axv_num_is_zero(args[1]))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "divide by zero");
	return axp_bi_number_out(ctx, axv_num_div(args[0], args[1]), out);
}

static int
bi_rem(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (want_numbers(ctx, args) < 0)
		return AXP_BI_ERROR;
	if (!axv_num_is_int(args[0]) || !axv_num_is_int(args[1]))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "modulo on floating-point number");
	if (axv_num_is_zero(args[1]))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "modulo by zero");
	*out = axv_num_rem(args[0], args[1]);
	return AXP_BI_OK;
}

static int
bi_and(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *r;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_SET) ||
	    !axp_bi_want(ctx, args, 2, AXV_SET))
		return AXP_BI_ERROR;
	r = axv_set_new(0);
	for (i = 0; i < axv_set_len(args[0]); i++)
		if (axv_set_contains(args[1], axv_set_at(args[0], i)))
			axv_set_add(r, axv_ref(axv_set_at(args[0], i)));
	*out = r;
	return AXP_BI_OK;
}

static int
bi_or(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *r;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_SET) ||
	    !axp_bi_want(ctx, args, 2, AXV_SET))
		return AXP_BI_ERROR;
	r = axv_set_new(axv_set_len(args[0]) + axv_set_len(args[1]));
	for (i = 0; i < axv_set_len(args[0]); i++)
		axv_set_add(r, axv_ref(axv_set_at(args[0], i)));
	for (i = 0; i < axv_set_len(args[1]); i++)
		axv_set_add(r, axv_ref(axv_set_at(args[1], i)));
	*out = r;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_arith[] = {
	{ "plus", 2, bi_plus, "(number, number) => number", 0 },
	{ "minus", 2, bi_minus, "(any<number, set>, any<number, set>) => any",
	    0 },
	{ "mul", 2, bi_mul, "(number, number) => number", 0 },
	{ "div", 2, bi_div, "(number, number) => number", 0 },
	{ "rem", 2, bi_rem, "(number, number) => number", 0 },
	{ "and", 2, bi_and, "(set, set) => set", 0 },
	{ "or", 2, bi_or, "(set, set) => set", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
