/* builtins-arrays.c: array.concat, array.slice, array.reverse. */
#include "config.h"

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

static int
bi_array_concat(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *r;
	size_t i, j;

	if (!axp_bi_want(ctx, args, 1, AXV_ARRAY) ||
	    !axp_bi_want(ctx, args, 2, AXV_ARRAY))
		return AXP_BI_ERROR;
	r = axv_array_new(axv_array_len(args[0]) + axv_array_len(args[1]));
	for (j = 0; j < 2; j++)
		for (i = 0; i < axv_array_len(args[j]); i++)
			axv_array_push(r, axv_ref(axv_array_get(args[j], i)));
	*out = r;
	return AXP_BI_OK;
}

/* array.slice(arr, start, stop): [start, stop) clamped to the array;
 * empty when start >= stop. */
static int
bi_array_slice(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t start, stop, len;
	struct axv *r;
	int64_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_ARRAY) ||
	    axp_bia_int(ctx, args, 2, &start) < 0 ||
	    axp_bia_int(ctx, args, 3, &stop) < 0)
		return AXP_BI_ERROR;
	len = (int64_t)axv_array_len(args[0]);
	if (start < 0)
		start = 0;
	if (stop > len)
		stop = len;
	if (start >= stop) {
		*out = axv_array_new(0);
		return AXP_BI_OK;
	}
	r = axv_array_new((size_t)(stop - start));
	for (i = start; i < stop; i++)
		axv_array_push(r, axv_ref(axv_array_get(args[0], (size_t)i)));
	*out = r;
	return AXP_BI_OK;
}

static int
bi_array_reverse(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axv *r;
	size_t i, n;

	if (!axp_bi_want(ctx, args, 1, AXV_ARRAY))
		return AXP_BI_ERROR;
	n = axv_array_len(args[0]);
	r = axv_array_new(n);
	for (i = n; i > 0; i--)
		axv_array_push(r, axv_ref(axv_array_get(args[0], i - 1)));
	*out = r;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_arrays[] = {
	{ "array.concat", 2, bi_array_concat,
	    "(array[any], array[any]) => array[any]", 0 },
	{ "array.slice", 3, bi_array_slice,
	    "(array[any], number, number) => array[any]", 0 },
	{ "array.reverse", 1, bi_array_reverse, "(array[any]) => array[any]",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
