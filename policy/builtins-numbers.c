/* builtins-numbers.c: numbers.range, numbers.range_step and rand.intn. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

/* The most elements a range may have (OPA has no bound; a policy asking for
 * more is a mistake or an attack). */
#define RANGE_MAX 1000000

static int
make_range(struct axp_bctx *ctx, int64_t a, int64_t b, int64_t step,
    struct axv **out)
{
	struct axv *r;
	uint64_t span, n;
	int64_t i;

	span = a <= b ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
	n = span / (uint64_t)step;
	if (n >= RANGE_MAX)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "range of %llu numbers is over the limit of %d",
		    (unsigned long long)n + 1, RANGE_MAX);
	n++;
	r = axv_array_new((size_t)n);
	for (i = 0; (uint64_t)i < n; i++)
		axv_array_push(r,
		    axv_int(a <= b ? a + i * step : a - i * step));
	*out = r;
	return AXP_BI_OK;
}

static int
bi_range(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t a, b;

	if (axp_bia_int(ctx, args, 1, &a) < 0 ||
	    axp_bia_int(ctx, args, 2, &b) < 0)
		return AXP_BI_ERROR;
	return make_range(ctx, a, b, 1, out);
}

struct axv axp_range_marker = { .refs = AXV_IMMORTAL, .kind = AXV_NULL };

/* internal.range_check(a, b): numbers.range(a, b) for the scan right after
 * it, which walks the range itself (fuse_range, compile.c): the checks and
 * errors of numbers.range, and the marker instead of the array. */
static int
bi_range_check(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *name = ctx->name;
	int64_t a, b;
	uint64_t span;

	ctx->name = "numbers.range";
	if (axp_bia_int(ctx, args, 1, &a) < 0 ||
	    axp_bia_int(ctx, args, 2, &b) < 0)
		return AXP_BI_ERROR;
	span = a <= b ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
	if (span >= RANGE_MAX)
		return make_range(ctx, a, b, 1, out); /* its error */
	ctx->name = name;
	*out = &axp_range_marker;
	return AXP_BI_OK;
}

static int
bi_range_step(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t a, b, step;

	if (axp_bia_int(ctx, args, 1, &a) < 0 ||
	    axp_bia_int(ctx, args, 2, &b) < 0)
		return AXP_BI_ERROR;
	if (!axp_bi_want(ctx, args, 3, AXV_NUMBER))
		return AXP_BI_ERROR;
	if (!axv_num_is_int(args[2]))
		return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand 3 must be integer number but got floating-point "
		    "number");
	if (!axv_num_get_i64(args[2], &step)) /* beyond int64 */
		step = axv_num_get_double(args[2]) > 0 ? INT64_MAX : 0;
	if (step <= 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "step must be a positive integer");
	return make_range(ctx, a, b, step, out);
}

/* A uniform integer in [0, n), n > 0, from the system's random bytes. */
static int64_t
uniform(uint64_t n)
{
	uint64_t x, lim = UINT64_MAX - UINT64_MAX % n;

	do
		arc4random_buf(&x, sizeof(x));
	while (x >= lim);
	return (int64_t)(x % n);
}

/* rand.intn(str, n): a random integer in [0, |n|), the same for the same
 * (str, n) throughout an evaluation. */
static int
bi_rand_intn(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t n;
	struct axv *key, *v;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    axp_bia_int(ctx, args, 2, &n) != 0)
		return AXP_BI_ERROR;
	if (n == 0) {
		*out = axv_int(0);
		return AXP_BI_OK;
	}
	if (n == INT64_MIN)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "operand 2 out of range");
	if (n < 0)
		n = -n;
	key = axv_array_new(3);
	axv_array_push(key, axv_cstr("rand.intn"));
	axv_array_push(key, axv_ref(args[0]));
	axv_array_push(key, axv_int(n));
	if ((v = axp_bctx_memo_get(ctx, key)) != NULL) {
		axv_unref(key);
		*out = axv_ref(v);
		return AXP_BI_OK;
	}
	v = axv_int(uniform((uint64_t)n));
	axp_bctx_memo_put(ctx, key, axv_ref(v));
	*out = v;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_numbers[] = {
	{ "rand.intn", 2, bi_rand_intn, "(string, number) => number",
	    AXP_BIF_NONDET },
	{ "numbers.range", 2, bi_range, "(number, number) => array[number]",
	    0 },
	{ "internal.range_check", 2, bi_range_check, "(number, number) => null",
	    0 },
	{ "numbers.range_step", 3, bi_range_step,
	    "(number, number, number) => array[number]", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
