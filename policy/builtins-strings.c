/* builtins-strings.c: string builtins (concat, ...). */
#include "config.h"

#include <string.h>

#include "policy/builtins.h"

static int
bi_concat(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axg_buf b;
	size_t i, n;
	bool is_set;
	char *s;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	is_set = axv_kind(args[1]) == AXV_SET;
	if (!is_set && axv_kind(args[1]) != AXV_ARRAY)
		return axp_bi_type_error(ctx, 2, "one of {array, set}",
		    args[1]);
	n = is_set ? axv_set_len(args[1]) : axv_array_len(args[1]);
	axg_buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		struct axv *e =
		    is_set ? axv_set_at(args[1], i) : axv_array_get(args[1], i);
		if (axv_kind(e) != AXV_STRING) {
			axg_buf_free(&b);
			return axp_bi_type_error(ctx, 2,
			    is_set ? "set of strings" : "array of strings",
			    args[1]);
		}
		if (i > 0)
			axg_buf_append(&b, axv_str(args[0]),
			    axv_strlen(args[0]));
		axg_buf_append(&b, axv_str(e), axv_strlen(e));
	}
	s = axg_buf_steal(&b, &n);
	*out = axv_string_own(s, n);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_strings[] = {
	{ "concat", 2, bi_concat,
	    "(string, any<array[string], set[string]>) "
	    "=> string",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
