/* builtins-aggregates.c: count, sum, product, max, min, sort. */
#include "config.h"

#include <stdlib.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

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

/* args[0] must be an array or set; with numbers, of numbers only. */
static bool
want_coll(struct axp_bctx *ctx, struct axv *const *args, bool numbers)
{
	size_t i;

	if (axv_kind(args[0]) != AXV_ARRAY && axv_kind(args[0]) != AXV_SET) {
		axp_bi_type_error(ctx, 1, "one of {array, set}", args[0]);
		return false;
	}
	if (numbers)
		for (i = 0; i < axv_coll_len(args[0]); i++)
			if (axv_kind(axv_coll_at(args[0], i)) != AXV_NUMBER) {
				axp_bia_elem_error(ctx, 1, args[0],
				    axv_coll_at(args[0], i), "number");
				return false;
			}
	return true;
}

static int
fold(struct axp_bctx *ctx, struct axv *const *args, struct axv **out, bool mul)
{
	struct axv *acc, *t;
	size_t i;

	if (!want_coll(ctx, args, true))
		return AXP_BI_ERROR;
	acc = axv_int(mul ? 1 : 0);
	for (i = 0; i < axv_coll_len(args[0]); i++) {
		t = mul ? axv_num_mul(acc, axv_coll_at(args[0], i))
			: axv_num_add(acc, axv_coll_at(args[0], i));
		axv_unref(acc);
		acc = t;
	}
	return axp_bi_number_out(ctx, acc, out);
}

static int
bi_sum(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return fold(ctx, args, out, false);
}

static int
bi_product(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return fold(ctx, args, out, true);
}

/* max and min: of any values, in Rego's order; undefined when empty. */
static int
extreme(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    int sign)
{
	struct axv *best = NULL;
	size_t i, n;

	if (!want_coll(ctx, args, false))
		return AXP_BI_ERROR;
	n = axv_coll_len(args[0]);
	if (n == 0)
		return AXP_BI_UNDEF;
	if (axv_kind(args[0]) == AXV_SET) {
		/* Sets are sorted. */
		*out = axv_ref(axv_set_at(args[0], sign > 0 ? n - 1 : 0));
		return AXP_BI_OK;
	}
	for (i = 0; i < n; i++) {
		struct axv *e = axv_array_get(args[0], i);
		if (best == NULL || axv_compare(e, best) * sign > 0)
			best = e;
	}
	*out = axv_ref(best);
	return AXP_BI_OK;
}

static int
bi_max(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return extreme(ctx, args, out, 1);
}

static int
bi_min(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return extreme(ctx, args, out, -1);
}

static int
cmp_values(const void *a, const void *b)
{
	return axv_compare(*(struct axv *const *)a, *(struct axv *const *)b);
}

static int
bi_sort(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv **v, *r;
	size_t i, n;

	if (!want_coll(ctx, args, false))
		return AXP_BI_ERROR;
	n = axv_coll_len(args[0]);
	r = axv_array_new(n);
	v = axg_reallocarray(NULL, n ? n : 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = axv_coll_at(args[0], i);
	if (axv_kind(args[0]) == AXV_ARRAY)
		qsort(v, n, sizeof(*v), cmp_values);
	for (i = 0; i < n; i++)
		axv_array_push(r, axv_ref(v[i]));
	free(v);
	*out = r;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_aggregates[] = {
	{ "count", 1, bi_count, "(any<array, object, set, string>) => number",
	    0 },
	{ "sum", 1, bi_sum, "(any<array[number], set[number]>) => number", 0 },
	{ "product", 1, bi_product,
	    "(any<array[number], set[number]>) => number", 0 },
	{ "max", 1, bi_max, "(any<array[any], set[any]>) => any", 0 },
	{ "min", 1, bi_min, "(any<array[any], set[any]>) => any", 0 },
	{ "sort", 1, bi_sort, "(any<array[any], set[any]>) => array[any]", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
