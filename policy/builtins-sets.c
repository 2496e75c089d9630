/* builtins-sets.c: intersection and union of a set of sets (the binary
 * operators & and | are "and" and "or" in builtins-arith.c). */
#include "config.h"

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

/* args[0] must be a set whose elements are sets. */
static bool
want_set_of_sets(struct axp_bctx *ctx, struct axv *const *args)
{
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_SET))
		return false;
	for (i = 0; i < axv_set_len(args[0]); i++)
		if (axv_kind(axv_set_at(args[0], i)) != AXV_SET) {
			axp_bia_elem_error(ctx, 1, args[0],
			    axv_set_at(args[0], i), "set");
			return false;
		}
	return true;
}

static int
bi_intersection(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *first, *r;
	size_t i, j, n;

	if (!want_set_of_sets(ctx, args))
		return AXP_BI_ERROR;
	n = axv_set_len(args[0]);
	if (n == 0) {
		*out = axv_set_new(0);
		return AXP_BI_OK;
	}
	/* Start from the smallest set: every other set must hold each of its
	 * elements. */
	first = axv_set_at(args[0], 0);
	for (j = 1; j < n; j++)
		if (axv_set_len(axv_set_at(args[0], j)) < axv_set_len(first))
			first = axv_set_at(args[0], j);
	r = axv_set_new(axv_set_len(first));
	for (i = 0; i < axv_set_len(first); i++) {
		struct axv *e = axv_set_at(first, i);
		bool all = true;
		for (j = 0; j < n && all; j++)
			all = axv_set_contains(axv_set_at(args[0], j), e);
		if (all)
			axv_set_add(r, axv_ref(e));
	}
	*out = r;
	return AXP_BI_OK;
}

static int
bi_union(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *r;
	size_t i, j;

	if (!want_set_of_sets(ctx, args))
		return AXP_BI_ERROR;
	r = axv_set_new(0);
	for (j = 0; j < axv_set_len(args[0]); j++) {
		struct axv *s = axv_set_at(args[0], j);
		for (i = 0; i < axv_set_len(s); i++)
			axv_set_add(r, axv_ref(axv_set_at(s, i)));
	}
	*out = r;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_sets[] = {
	{ "intersection", 1, bi_intersection, "(set[set[any]]) => set[any]",
	    0 },
	{ "union", 1, bi_union, "(set[set[any]]) => set[any]", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
