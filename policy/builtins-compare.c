/* builtins-compare.c: equal, neq, lt, lte, gt, gte (OPA's total order). */
#include "config.h"

#include "policy/builtins.h"

/* axv_compare, with two int64 numbers (a port against a range's ends)
 * compared at once. */
static inline int
cmp_args(struct axv *const *args)
{
	const struct axv *a = args[0], *b = args[1];

	if (a->kind == AXV_NUMBER && b->kind == AXV_NUMBER &&
	    a->sub == AXV_NUM_INT && b->sub == AXV_NUM_INT) {
		int64_t x = AXV_NUM(a)->i, y = AXV_NUM(b)->i;
		return x < y ? -1 : x > y;
	}
	return axv_compare(a, b);
}

#define CMP_BUILTIN(fname, expr)                                               \
	static int fname(struct axp_bctx *ctx, struct axv *const *args,        \
	    struct axv **out)                                                  \
	{                                                                      \
		int c = cmp_args(args);                                        \
		(void)ctx;                                                     \
		*out = axv_bool(expr);                                         \
		return AXP_BI_OK;                                              \
	}

CMP_BUILTIN(bi_equal, c == 0)
CMP_BUILTIN(bi_neq, c != 0)
CMP_BUILTIN(bi_lt, c < 0)
CMP_BUILTIN(bi_lte, c <= 0)
CMP_BUILTIN(bi_gt, c > 0)
CMP_BUILTIN(bi_gte, c >= 0)

const struct axp_builtin axp_builtins_compare[] = {
	{ "equal", 2, bi_equal, "(any, any) => boolean", 0 },
	{ "neq", 2, bi_neq, "(any, any) => boolean", 0 },
	{ "lt", 2, bi_lt, "(any, any) => boolean", 0 },
	{ "lte", 2, bi_lte, "(any, any) => boolean", 0 },
	{ "gt", 2, bi_gt, "(any, any) => boolean", 0 },
	{ "gte", 2, bi_gte, "(any, any) => boolean", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
