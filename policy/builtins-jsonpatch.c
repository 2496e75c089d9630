/* builtins-jsonpatch.c: json.patch (RFC 6902 on Rego values). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

enum op { OP_ADD, OP_REMOVE, OP_REPLACE };

/* The most segments a path may have. */
#define PATCH_MAX_DEPTH 1000

/* An array index: a number, or decimal text without leading zeros; "-"
 * (one past the end) when dash is allowed.  -1 if not an index. */
static int64_t
index_of(const struct axv *seg, size_t len, bool dash)
{
	const char *s;
	size_t i, n;
	int64_t v = 0;

	if (axv_kind(seg) == AXV_NUMBER)
		return axv_num_get_i64(seg, &v) && v >= 0 ? v : -1;
	if (axv_kind(seg) != AXV_STRING)
		return -1;
	s = axv_str(seg);
	n = axv_strlen(seg);
	if (dash && n == 1 && s[0] == '-')
		return (int64_t)len;
	if (n == 0 || n > 18 || (s[0] == '0' && n > 1))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static struct axv *
lookup(const struct axv *doc, const struct axv *path)
{
	const struct axv *v = doc;
	size_t i;
	int64_t ix;

	for (i = 0; v != NULL && i < axv_array_len(path); i++) {
		const struct axv *seg = axv_array_get(path, i);
		if (axv_kind(v) == AXV_OBJECT) {
			v = axv_object_get(v, seg);
		} else if (axv_kind(v) == AXV_ARRAY) {
			ix = index_of(seg, axv_array_len(v), false);
			v = ix < 0 ? NULL : axv_array_get(v, (size_t)ix);
		} else {
			v = NULL;
		}
	}
	return (struct axv *)v;
}

/* A copy of arr with element i replaced (val != NULL, consumed), inserted
 * before i (insert), or removed (val NULL). */
static struct axv *
array_edit(const struct axv *arr, size_t i, struct axv *val, bool insert)
{
	size_t j, n = axv_array_len(arr);
	struct axv *r = axv_array_new(n + 1);

	for (j = 0; j <= n; j++) {
		if (j == i && val != NULL)
			axv_array_push(r, val);
		if (j == n)
			break;
		if (j == i && !insert)
			continue;
		axv_array_push(r, axv_ref(axv_array_get(arr, j)));
	}
	return r;
}

/* A new document with op applied at path[depth..]; NULL with *why set. */
static struct axv *
apply(const struct axv *node, const struct axv *path, size_t depth, enum op op,
    const struct axv *value, const char **why)
{
	const struct axv *seg = axv_array_get(path, depth);
	bool last = depth + 1 == axv_array_len(path);
	struct axv *r, *child, *c;
	int64_t ix;

	if (axv_kind(node) == AXV_OBJECT) {
		child = axv_object_get(node, seg);
		if (!last) {
			if (child == NULL)
				goto missing;
			c = apply(child, path, depth + 1, op, value, why);
			if (c == NULL)
				return NULL;
			r = axv_object_copy(node);
			axv_object_put(r, axv_ref((struct axv *)seg), c);
			return r;
		}
		if (op != OP_ADD && child == NULL)
			goto missing;
		if (op == OP_REMOVE) {
			size_t i;
			r = axv_object_new(axv_object_len(node));
			for (i = 0; i < axv_object_len(node); i++)
				if (!axv_equal(axv_object_key(node, i), seg))
					axv_object_put(r,
					    axv_ref(axv_object_key(node, i)),
					    axv_ref(axv_object_val(node, i)));
			return r;
		}
		r = axv_object_copy(node);
		axv_object_put(r, axv_ref((struct axv *)seg),
		    axv_ref((struct axv *)value));
		return r;
	}
	if (axv_kind(node) == AXV_ARRAY) {
		size_t n = axv_array_len(node);
		ix = index_of(seg, n, last && op == OP_ADD);
		if (ix < 0) {
			*why = "invalid array index";
			return NULL;
		}
		if ((size_t)ix > n ||
		    ((size_t)ix == n && !(last && op == OP_ADD))) {
			*why = "array index out of range";
			return NULL;
		}
		if (!last) {
			c = apply(axv_array_get(node, (size_t)ix), path,
			    depth + 1, op, value, why);
			return c ? array_edit(node, (size_t)ix, c, false)
				 : NULL;
		}
		if (op == OP_REMOVE)
			return array_edit(node, (size_t)ix, NULL, false);
		return array_edit(node, (size_t)ix,
		    axv_ref((struct axv *)value), op == OP_ADD);
	}
missing:
	*why = "path does not exist";
	return NULL;
}

static struct axv *
edit(const struct axv *doc, const struct axv *path, enum op op,
    const struct axv *value, const char **why)
{
	if (axv_array_len(path) == 0) {
		if (op == OP_REMOVE) {
			*why = "cannot remove the whole document";
			return NULL;
		}
		return axv_ref((struct axv *)value);
	}
	return apply(doc, path, 0, op, value, why);
}

/* The "path" or "from" member as segments: a new array, or NULL. */
static struct axv *
member_path(const struct axv *patch, const char *name)
{
	const struct axv *p = axv_object_gets(patch, name);

	if (p == NULL)
		return NULL;
	if (axv_kind(p) == AXV_ARRAY)
		return axv_ref((struct axv *)p);
	if (axv_kind(p) != AXV_STRING)
		return NULL;
	return axv_json_pointer_split(p);
}

/* Apply one operation; a new document or NULL with *why set. */
static struct axv *
patch_one(const struct axv *doc, const struct axv *patch, const char **why)
{
	const struct axv *opv = axv_object_gets(patch, "op");
	const struct axv *value = axv_object_gets(patch, "value");
	struct axv *path = NULL, *from = NULL, *r = NULL, *t;
	const char *op;

	if (opv == NULL || axv_kind(opv) != AXV_STRING) {
		*why = "missing or invalid \"op\"";
		return NULL;
	}
	op = axv_str(opv);
	path = member_path(patch, "path");
	if (path == NULL) {
		*why = "missing or invalid \"path\"";
		goto done;
	}
	if (axv_array_len(path) > PATCH_MAX_DEPTH) {
		*why = "path too deep";
		goto done;
	}
	if (strcmp(op, "add") == 0 || strcmp(op, "replace") == 0 ||
	    strcmp(op, "test") == 0) {
		if (value == NULL) {
			*why = "missing \"value\"";
			goto done;
		}
		if (strcmp(op, "test") == 0) {
			t = lookup(doc, path);
			if (t == NULL || !axv_equal(t, value))
				*why = "test failed";
			else
				r = axv_ref((struct axv *)doc);
			goto done;
		}
		r = edit(doc, path, op[0] == 'a' ? OP_ADD : OP_REPLACE, value,
		    why);
	} else if (strcmp(op, "remove") == 0) {
		r = edit(doc, path, OP_REMOVE, NULL, why);
	} else if (strcmp(op, "move") == 0 || strcmp(op, "copy") == 0) {
		from = member_path(patch, "from");
		if (from == NULL) {
			*why = "missing or invalid \"from\"";
			goto done;
		}
		t = lookup(doc, from);
		if (t == NULL) {
			*why = "\"from\" location does not exist";
			goto done;
		}
		if (op[0] == 'c') {
			r = edit(doc, path, OP_ADD, t, why);
		} else if (axv_equal(from, path)) {
			r = axv_ref((struct axv *)doc);
		} else {
			struct axv *mid;
			axv_ref(t);
			mid = edit(doc, from, OP_REMOVE, NULL, why);
			if (mid != NULL)
				r = edit(mid, path, OP_ADD, t, why);
			axv_unref(mid);
			axv_unref(t);
		}
	} else {
		*why = "unknown operation";
	}
done:
	axv_unref(path);
	axv_unref(from);
	return r;
}

static int
bi_json_patch(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *doc, *next;
	const char *why = "failed";
	size_t i;

	if (!axp_bi_want(ctx, args, 2, AXV_ARRAY))
		return AXP_BI_ERROR;
	for (i = 0; i < axv_array_len(args[1]); i++)
		if (axv_kind(axv_array_get(args[1], i)) != AXV_OBJECT)
			return axp_bia_elem_error(ctx, 2, args[1],
			    axv_array_get(args[1], i), "object");
	doc = axv_ref(args[0]);
	for (i = 0; i < axv_array_len(args[1]); i++) {
		next = patch_one(doc, axv_array_get(args[1], i), &why);
		axv_unref(doc);
		if (next == NULL)
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "operation %zu: %s", i, why);
		doc = next;
	}
	*out = doc;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_jsonpatch[] = {
	{ "json.patch", 2, bi_json_patch, "(any, array[object]) => any", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
