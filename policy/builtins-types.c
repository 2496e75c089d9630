/* builtins-types.c: is_number, is_string, ..., type_name, and the cast
 * to_number. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

static int
is_kind(struct axv *const *args, struct axv **out, enum axv_kind k)
{
	*out = axv_bool(axv_kind(args[0]) == k);
	return AXP_BI_OK;
}

#define IS_KIND(fn, k)                                                         \
	static int fn(struct axp_bctx *ctx, struct axv *const *args,           \
	    struct axv **out)                                                  \
	{                                                                      \
		(void)ctx;                                                     \
		return is_kind(args, out, k);                                  \
	}

IS_KIND(bi_is_number, AXV_NUMBER)
IS_KIND(bi_is_string, AXV_STRING)
IS_KIND(bi_is_boolean, AXV_BOOL)
IS_KIND(bi_is_array, AXV_ARRAY)
IS_KIND(bi_is_set, AXV_SET)
IS_KIND(bi_is_object, AXV_OBJECT)
IS_KIND(bi_is_null, AXV_NULL)

static int
bi_type_name(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	(void)ctx;
	*out = axv_cstr(axv_type_name(args[0]));
	return AXP_BI_OK;
}

/* Go's strconv.ParseFloat accepts more than JSON numbers: a sign, a bare
 * fraction (".5", "5."), Inf and NaN, hex floats, underscores after a base
 * prefix.  OPA rejects what is not a finite number; we accept the decimal
 * forms and word the rest as Go does. */
static struct axv *
parse_number(const char *s, size_t n)
{
	struct axg_buf b;
	struct axv *v = NULL;
	size_t i = 0;
	bool digits = false;

	if (n == 0 || n > 4096)
		return NULL;
	axg_buf_init(&b, 0);
	if (s[i] == '+' || s[i] == '-') {
		if (s[i] == '-')
			axg_buf_putc(&b, '-');
		i++;
	}
	/* Leading zeros are fine for Go, not for JSON. */
	while (i + 1 < n && s[i] == '0' && s[i + 1] >= '0' && s[i + 1] <= '9')
		i++;
	if (i < n && s[i] == '.')
		axg_buf_putc(&b, '0');
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		axg_buf_putc(&b, s[i]);
		digits = true;
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i < n && s[i] >= '0' && s[i] <= '9') {
			axg_buf_putc(&b, '.');
			for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
				axg_buf_putc(&b, s[i]);
			digits = true;
		}
	}
	if (digits && i < n && (s[i] == 'e' || s[i] == 'E')) {
		axg_buf_putc(&b, 'e');
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			axg_buf_putc(&b, s[i++]);
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			axg_buf_putc(&b, s[i]);
	}
	if (digits && i == n)
		v = axv_number_parse(b.data, b.len);
	axg_buf_free(&b);
	return v;
}

static int
bi_to_number(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *a = args[0];
	struct axv *v;

	switch (axv_kind(a)) {
	case AXV_NULL:
		*out = axv_int(0);
		return AXP_BI_OK;
	case AXV_BOOL:
		*out = axv_int(axv_bool_get(a) ? 1 : 0);
		return AXP_BI_OK;
	case AXV_NUMBER:
		*out = axv_ref(a);
		return AXP_BI_OK;
	case AXV_STRING:
		v = parse_number(axv_str(a), axv_strlen(a));
		if (v == NULL)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "strconv.ParseFloat: parsing \"%.200s\": invalid "
			    "syntax",
			    axv_str(a));
		*out = v;
		return AXP_BI_OK;
	default:
		return axp_bi_type_error(ctx, 1,
		    "one of {null, boolean, number, string}", a);
	}
}

const struct axp_builtin axp_builtins_types[] = {
	{ "is_number", 1, bi_is_number, "(any) => boolean", 0 },
	{ "is_string", 1, bi_is_string, "(any) => boolean", 0 },
	{ "is_boolean", 1, bi_is_boolean, "(any) => boolean", 0 },
	{ "is_array", 1, bi_is_array, "(any) => boolean", 0 },
	{ "is_set", 1, bi_is_set, "(any) => boolean", 0 },
	{ "is_object", 1, bi_is_object, "(any) => boolean", 0 },
	{ "is_null", 1, bi_is_null, "(any) => boolean", 0 },
	{ "type_name", 1, bi_type_name, "(any) => string", 0 },
	{ "to_number", 1, bi_to_number,
	    "(any<null, boolean, number, string>) => number", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
