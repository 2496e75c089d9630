/* builtins-aggregates.c: count (and, later, sum, product, max, min, sort). */
#include "config.h"

#include "policy/builtins.h"

static int
bi_count(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t n = axv_count(args[0]);

	if (n < 0)
		return axp_bi_type_error(ctx, 1,
		    "one of {array, object, set, string}", args[0]);
	*out = axv_int(n);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_aggregates[] = {
	{ "count", 1, bi_count, "(any<array, object, set, string>) => number",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
