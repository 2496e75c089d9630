/* builtins-internal.c: the builtins the parser writes for `in` and
 * friends: internal.member_2, internal.member_3, internal.print (print()),
 * and walk. */
#include "config.h"

#include <string.h>

#include "policy/builtins.h"

static int
bi_member_2(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *x = args[0], *c = args[1];
	bool found = false;
	size_t i;

	(void)ctx;
	switch (axv_kind(c)) {
	case AXV_ARRAY:
		for (i = 0; i < axv_array_len(c) && !found; i++)
			found = axv_equal(axv_array_get(c, i), x);
		break;
	case AXV_OBJECT:
		for (i = 0; i < axv_object_len(c) && !found; i++)
			found = axv_equal(axv_object_val(c, i), x);
		break;
	case AXV_SET:
		found = axv_set_contains(c, x);
		break;
	default:
		break;
	}
	*out = axv_bool(found);
	return AXP_BI_OK;
}

static int
bi_member_3(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *k = args[0], *v = args[1], *c = args[2], *e = NULL;
	int64_t i;

	(void)ctx;
	switch (axv_kind(c)) {
	case AXV_ARRAY:
		if (axv_kind(k) == AXV_NUMBER && axv_num_get_i64(k, &i) &&
		    i >= 0)
			e = axv_array_get(c, (size_t)i);
		break;
	case AXV_OBJECT:
		e = axv_object_get(c, k);
		break;
	case AXV_SET:
		/* a set's "key" is the element itself */
		if (axv_equal(k, v) && axv_set_contains(c, k))
			e = k;
		break;
	default:
		break;
	}
	*out = axv_bool(e != NULL && axv_equal(e, v));
	return AXP_BI_OK;
}

/* Template strings: literal strings, and one-element (or empty, when
 * undefined) arrays holding each expression's value. */
static int
bi_template_string(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	size_t i, n;
	char *s;

	if (!axp_bi_want(ctx, args, 1, AXV_ARRAY))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	for (i = 0; i < axv_array_len(args[0]); i++) {
		struct axv *p = axv_array_get(args[0], i), *v;
		if (axv_kind(p) == AXV_STRING) {
			axg_buf_append(&b, axv_str(p), axv_strlen(p));
			continue;
		}
		if (axv_kind(p) != AXV_ARRAY || axv_array_len(p) == 0) {
			axg_buf_puts(&b, "<undefined>");
			continue;
		}
		if (axv_array_len(p) > 1) {
			axg_buf_free(&b);
			return axp_bi_error(ctx, AXP_ERR_EVAL_CONFLICT,
			    "template expression produced multiple outputs");
		}
		v = axv_array_get(p, 0);
		if (axv_kind(v) == AXV_STRING)
			axg_buf_append(&b, axv_str(v), axv_strlen(v));
		else
			axv_to_rego(v, &b);
	}
	s = axg_buf_steal(&b, &n);
	*out = axv_string_own(s, n);
	return AXP_BI_OK;
}

/* walk(x, [path, value]) is a relation: the compiler calls walk(x) for
 * the array of every [path, value] pair of x, pre-order (x itself first,
 * then each child in key order), and iterates over it. */
#define WALK_MAX_DEPTH 1024

static int
walk_into(struct axp_bctx *ctx, struct axv *x, struct axv *path,
    struct axv *acc, int depth)
{
	struct axv *pair = axv_array_new(2);
	size_t i, n, j;

	if (depth > WALK_MAX_DEPTH)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "value nested too deeply");
	axv_array_push(pair, axv_ref(path));
	axv_array_push(pair, axv_ref(x));
	axv_array_push(acc, pair);
	switch (axv_kind(x)) {
	case AXV_ARRAY:
	case AXV_OBJECT:
	case AXV_SET:
		break;
	default:
		return AXP_BI_OK;
	}
	n = (size_t)axv_count(x);
	for (i = 0; i < n; i++) {
		struct axv *k, *v, *sub;
		int rc;
		if (axv_kind(x) == AXV_ARRAY) {
			k = axv_int((int64_t)i);
			v = axv_array_get(x, i);
		} else if (axv_kind(x) == AXV_OBJECT) {
			k = axv_ref(axv_object_key(x, i));
			v = axv_object_val(x, i);
		} else {
			k = axv_ref(axv_set_at(x, i));
			v = k;
		}
		sub = axv_array_new(axv_array_len(path) + 1);
		for (j = 0; j < axv_array_len(path); j++)
			axv_array_push(sub, axv_ref(axv_array_get(path, j)));
		axv_array_push(sub, axv_ref(k));
		rc = walk_into(ctx, v, sub, acc, depth + 1);
		axv_unref(sub);
		axv_unref(k);
		if (rc != AXP_BI_OK)
			return rc;
	}
	return AXP_BI_OK;
}

static int
bi_walk(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *acc = axv_array_new(0), *root = axv_array_new(0);
	int rc = walk_into(ctx, args[0], root, acc, 0);

	axv_unref(root);
	if (rc != AXP_BI_OK) {
		axv_unref(acc);
		return rc;
	}
	*out = acc;
	return AXP_BI_OK;
}

/* ---- print ---- */
#define PRINT_LINE_MAX	(64 * 1024) /* bytes of one printed line */
#define PRINT_LINES_MAX 1000	    /* lines of one print() call */

static void (*print_fn)(const char *line, void *arg);
static void *print_arg;

void
axp_set_print_hook(void (*fn)(const char *line, void *arg), void *arg)
{
	print_fn = fn;
	print_arg = arg;
}

/* One line for each combination of the operands' values (the cross
 * product, as OPA prints it): strings as they are, other values as Rego
 * text, an operand without values as <undefined>; joined by spaces. */
static void
print_lines(struct axv *ops, size_t i, struct axg_buf *b, size_t *lines)
{
	size_t n = axv_array_len(ops), at = b->len, j;
	struct axv *set;

	if (*lines >= PRINT_LINES_MAX)
		return;
	if (i == n) {
		print_fn(b->data ? b->data : "", print_arg);
		(*lines)++;
		return;
	}
	if (i > 0)
		(void)axg_buf_putc(b, ' ');
	set = axv_array_get(ops, i);
	if (axv_kind(set) != AXV_SET || axv_set_len(set) == 0) {
		(void)axg_buf_puts(b, "<undefined>");
		print_lines(ops, i + 1, b, lines);
	} else {
		for (j = 0; j < axv_set_len(set); j++) {
			struct axv *v = axv_set_at(set, j);
			size_t mid = b->len;
			if (axv_kind(v) == AXV_STRING)
				(void)axg_buf_append(b, axv_str(v),
				    axv_strlen(v));
			else if (axv_to_rego(v, b) < 0)
				(void)axg_buf_puts(b, "...");
			print_lines(ops, i + 1, b, lines);
			b->len = mid;
			if (b->data != NULL)
				b->data[mid] = '\0';
		}
	}
	b->len = at;
	if (b->data != NULL)
		b->data[at] = '\0';
}

static int
bi_print(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axg_buf b;
	size_t lines = 0;

	if (!axp_bi_want(ctx, args, 1, AXV_ARRAY))
		return AXP_BI_ERROR;
	if (print_fn != NULL) {
		axg_buf_init(&b, PRINT_LINE_MAX);
		print_lines(args[0], 0, &b, &lines);
		axg_buf_free(&b);
	}
	*out = axv_bool(true);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_internal[] = {
	{ "internal.print", 1, bi_print, "(array[set[any]]) => boolean",
	    AXP_BIF_NONDET },
	{ "walk", 1, bi_walk, "(any) => array[array]", 0 },
	{ "internal.template_string", 1, bi_template_string,
	    "(array) => string", 0 },
	{ "internal.member_2", 2, bi_member_2, "(any, any) => boolean", 0 },
	{ "internal.member_3", 3, bi_member_3, "(any, any, any) => boolean",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
