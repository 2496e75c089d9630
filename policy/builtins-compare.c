/* builtins-compare.c: equal, neq, lt, lte, gt, gte (OPA's total order). */
#include "config.h"

#include "policy/builtins.h"

#define CMP_BUILTIN(fname, expr)                                               \
	static int fname(struct axp_bctx *ctx, struct axv *const *args,        \
	    struct axv **out)                                                  \
	{                                                                      \
		int c = axv_compare(args[0], args[1]);                         \
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
