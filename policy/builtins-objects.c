/* builtins-objects.c: object.get, object.keys, object.union(_n),
 * object.remove, object.filter, object.subset, json.filter, json.remove. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

/* ---- object.get ---- */

/* One step down a document; NULL if there is nothing there.  Numbers
 * index arrays only as numbers (as OPA's Find does). */
static struct axv *
step(const struct axv *node, const struct axv *seg)
{
	int64_t i;

	switch (axv_kind(node)) {
	case AXV_OBJECT:
		return axv_object_get(node, seg);
	case AXV_ARRAY:
		if (axv_kind(seg) != AXV_NUMBER || !axv_num_get_i64(seg, &i) ||
		    i < 0)
			return NULL;
		return axv_array_get(node, (size_t)i);
	case AXV_SET:
		return axv_set_contains(node, seg) ? (struct axv *)seg : NULL;
	default:
		return NULL;
	}
}

static int
bi_object_get(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *v;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	if (axv_kind(args[1]) != AXV_ARRAY) {
		v = axv_object_get(args[0], args[1]);
	} else {
		v = args[0];
		for (i = 0; v != NULL && i < axv_array_len(args[1]); i++)
			v = step(v, axv_array_get(args[1], i));
	}
	*out = axv_ref(v != NULL ? v : args[2]);
	return AXP_BI_OK;
}

static int
bi_object_keys(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *r;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	r = axv_set_new(axv_object_len(args[0]));
	for (i = 0; i < axv_object_len(args[0]); i++)
		axv_set_add(r, axv_ref(axv_object_key(args[0], i)));
	*out = r;
	return AXP_BI_OK;
}

/* ---- object.union ---- */

/* a merged with b, b winning; objects on both sides merge recursively. */
static struct axv *
merge(const struct axv *a, const struct axv *b)
{
	struct axv *r;
	size_t i;

	if (axv_kind(a) != AXV_OBJECT || axv_kind(b) != AXV_OBJECT)
		return axv_ref((struct axv *)b);
	r = axv_object_copy(a);
	for (i = 0; i < axv_object_len(b); i++) {
		struct axv *k = axv_object_key(b, i);
		struct axv *av = axv_object_get(a, k);
		struct axv *bv = axv_object_val(b, i);
		axv_object_put(r, axv_ref(k),
		    av != NULL ? merge(av, bv) : axv_ref(bv));
	}
	return r;
}

static int
bi_object_union(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT) ||
	    !axp_bi_want(ctx, args, 2, AXV_OBJECT))
		return AXP_BI_ERROR;
	*out = merge(args[0], args[1]);
	return AXP_BI_OK;
}

static int
bi_object_union_n(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axv *r, *t;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_ARRAY))
		return AXP_BI_ERROR;
	for (i = 0; i < axv_array_len(args[0]); i++)
		if (axv_kind(axv_array_get(args[0], i)) != AXV_OBJECT)
			return axp_bia_elem_error(ctx, 1, args[0],
			    axv_array_get(args[0], i), "object");
	r = axv_object_new(0);
	for (i = 0; i < axv_array_len(args[0]); i++) {
		t = merge(r, axv_array_get(args[0], i));
		axv_unref(r);
		r = t;
	}
	*out = r;
	return AXP_BI_OK;
}

/* ---- object.remove, object.filter ---- */

/* The keys operand: an object (its keys), a set or an array. */
static bool
want_keys(struct axp_bctx *ctx, struct axv *const *args)
{
	enum axv_kind k = axv_kind(args[1]);

	if (k == AXV_OBJECT || k == AXV_SET || k == AXV_ARRAY)
		return true;
	axp_bi_type_error(ctx, 2, "one of {object, set, array}", args[1]);
	return false;
}

static bool
keys_have(const struct axv *keys, const struct axv *k)
{
	size_t i;

	switch (axv_kind(keys)) {
	case AXV_OBJECT:
		return axv_object_get(keys, k) != NULL;
	case AXV_SET:
		return axv_set_contains(keys, k);
	default:
		for (i = 0; i < axv_array_len(keys); i++)
			if (axv_equal(axv_array_get(keys, i), k))
				return true;
		return false;
	}
}

static int
keep_keys(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    bool keep)
{
	struct axv *r, *keys = args[1];
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT) || !want_keys(ctx, args))
		return AXP_BI_ERROR;
	/* An array of keys is looked up many times: make it a set. */
	if (axv_kind(keys) == AXV_ARRAY) {
		keys = axv_set_new(axv_array_len(args[1]));
		for (i = 0; i < axv_array_len(args[1]); i++)
			axv_set_add(keys, axv_ref(axv_array_get(args[1], i)));
	} else {
		axv_ref(keys);
	}
	r = axv_object_new(0);
	for (i = 0; i < axv_object_len(args[0]); i++) {
		struct axv *k = axv_object_key(args[0], i);
		if (keys_have(keys, k) == keep)
			axv_object_put(r, axv_ref(k),
			    axv_ref(axv_object_val(args[0], i)));
	}
	axv_unref(keys);
	*out = r;
	return AXP_BI_OK;
}

static int
bi_object_remove(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	return keep_keys(ctx, args, out, false);
}

static int
bi_object_filter(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	return keep_keys(ctx, args, out, true);
}

/* ---- object.subset ---- */

static bool subset(const struct axv *super, const struct axv *sub);

/* sub occurs as a contiguous run in super. */
static bool
array_subset(const struct axv *super, const struct axv *sub)
{
	size_t i, j, n = axv_array_len(super), m = axv_array_len(sub);

	if (m == 0)
		return true;
	for (i = 0; i + m <= n; i++) {
		for (j = 0; j < m; j++)
			if (!axv_equal(axv_array_get(super, i + j),
				axv_array_get(sub, j)))
				break;
		if (j == m)
			return true;
	}
	return false;
}

/* Every element of sub (a set or array) is in super (a set or array). */
static bool
elems_in(const struct axv *super, const struct axv *sub)
{
	size_t i, j;

	for (i = 0; i < axv_coll_len(sub); i++) {
		const struct axv *e = axv_coll_at(sub, i);
		bool found = false;
		if (axv_kind(super) == AXV_SET) {
			found = axv_set_contains(super, e);
		} else {
			for (j = 0; j < axv_array_len(super) && !found; j++)
				found = axv_equal(axv_array_get(super, j), e);
		}
		if (!found)
			return false;
	}
	return true;
}

static bool
object_subset(const struct axv *super, const struct axv *sub)
{
	size_t i;

	for (i = 0; i < axv_object_len(sub); i++) {
		const struct axv *sv =
		    axv_object_get(super, axv_object_key(sub, i));
		if (sv == NULL || !subset(sv, axv_object_val(sub, i)))
			return false;
	}
	return true;
}

static bool
subset(const struct axv *super, const struct axv *sub)
{
	enum axv_kind a = axv_kind(super), b = axv_kind(sub);

	if (a == AXV_OBJECT && b == AXV_OBJECT)
		return object_subset(super, sub);
	if (a == AXV_SET && b == AXV_SET)
		return elems_in(super, sub);
	if (a == AXV_ARRAY && b == AXV_ARRAY)
		return array_subset(super, sub);
	if (a == AXV_ARRAY && b == AXV_SET)
		return elems_in(super, sub);
	return axv_equal(super, sub);
}

static int
bi_object_subset(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	enum axv_kind a = axv_kind(args[0]), b = axv_kind(args[1]);

	if (!((a == AXV_OBJECT && b == AXV_OBJECT) ||
		(a == AXV_SET && b == AXV_SET) ||
		(a == AXV_ARRAY && (b == AXV_ARRAY || b == AXV_SET))))
		return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "both arguments object.subset must be of the same type or "
		    "array and set");
	*out = axv_bool(subset(args[0], args[1]));
	return AXP_BI_OK;
}

/* ---- json.filter, json.remove ----
 * Paths are "a/b/c" strings (JSON pointer escapes ~0 ~1) or arrays of
 * segments.  They are turned into one array of arrays of segments. */

#define PATHS_MAX_DEPTH 1000

/* args[1] as an array of segment arrays, or NULL with the error set. */
static struct axv *
parse_paths(struct axp_bctx *ctx, struct axv *const *args)
{
	struct axv *r;
	size_t i;

	if (axv_kind(args[1]) != AXV_SET && axv_kind(args[1]) != AXV_ARRAY) {
		axp_bi_type_error(ctx, 2, "one of {set, array}", args[1]);
		return NULL;
	}
	r = axv_array_new(axv_coll_len(args[1]));
	for (i = 0; i < axv_coll_len(args[1]); i++) {
		struct axv *p = axv_coll_at(args[1], i);
		if (axv_kind(p) == AXV_STRING) {
			axv_array_push(r, axv_json_pointer_split(p));
		} else if (axv_kind(p) == AXV_ARRAY) {
			axv_array_push(r, axv_ref(p));
		} else {
			axv_unref(r);
			axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 2 must be one of {set, array} containing "
			    "string paths or array of path segments but got %s",
			    axv_type_name(p));
			return NULL;
		}
	}
	return r;
}

/* A path list in use: paths[i] from segment depth on. */
struct plist {
	struct axv *const *paths;
	size_t n;
	size_t depth;
};

/* Does seg (a path segment) name key k of a node of kind kind at index
 * idx (arrays) or key k (objects, sets)? */
static bool
seg_matches(const struct axv *seg, enum axv_kind kind, size_t idx,
    const struct axv *k)
{
	int64_t i;
	uint64_t u;

	if (kind != AXV_ARRAY)
		return axv_equal(seg, k);
	if (axv_kind(seg) == AXV_NUMBER)
		return axv_num_get_i64(seg, &i) && i >= 0 && (size_t)i == idx;
	return axv_kind(seg) == AXV_STRING &&
	    axg_parse_u64(axv_str(seg), 0, SIZE_MAX, &u) == 0 &&
	    (size_t)u == idx && axv_strlen(seg) == strlen(axv_str(seg));
}

/* Which paths go through child (idx, k): the sub-list in sub (paths
 * pointers into a scratch array), and whether one of them ends there. */
static size_t
paths_through(const struct plist *pl, enum axv_kind kind, size_t idx,
    const struct axv *k, struct axv **scratch, bool *ends)
{
	size_t i, m = 0;

	*ends = false;
	for (i = 0; i < pl->n; i++) {
		const struct axv *p = pl->paths[i];
		if (axv_array_len(p) <= pl->depth)
			continue;
		if (!seg_matches(axv_array_get(p, pl->depth), kind, idx, k))
			continue;
		if (axv_array_len(p) == pl->depth + 1)
			*ends = true;
		scratch[m++] = (struct axv *)p;
	}
	return m;
}

/* keep: json.filter (keep what paths name); else json.remove. */
static struct axv *
walk(const struct axv *node, const struct plist *pl, bool keep)
{
	enum axv_kind kind = axv_kind(node);
	struct axv **scratch;
	struct axv *r;
	size_t i, len;

	if ((kind != AXV_OBJECT && kind != AXV_ARRAY && kind != AXV_SET) ||
	    pl->depth >= PATHS_MAX_DEPTH)
		return axv_ref((struct axv *)node);
	len = kind == AXV_OBJECT ? axv_object_len(node) : axv_coll_len(node);
	r = kind == AXV_OBJECT	? axv_object_new(0)
	    : kind == AXV_ARRAY ? axv_array_new(0)
				: axv_set_new(0);
	scratch = axg_reallocarray(NULL, pl->n ? pl->n : 1, sizeof(*scratch));
	for (i = 0; i < len; i++) {
		const struct axv *k = kind == AXV_OBJECT
		    ? axv_object_key(node, i)
		    : axv_coll_at(node, i);
		const struct axv *child =
		    kind == AXV_OBJECT ? axv_object_val(node, i) : k;
		struct plist sub;
		struct axv *c;
		bool ends;

		sub.paths = scratch;
		sub.depth = pl->depth + 1;
		sub.n = paths_through(pl, kind, i, k, scratch, &ends);
		if (keep) {
			if (sub.n == 0)
				continue;
			c = ends ? axv_ref((struct axv *)child)
				 : walk(child, &sub, keep);
		} else {
			if (ends)
				continue;
			c = sub.n ? walk(child, &sub, keep)
				  : axv_ref((struct axv *)child);
		}
		if (kind == AXV_OBJECT)
			axv_object_put(r, axv_ref((struct axv *)k), c);
		else if (kind == AXV_ARRAY)
			axv_array_push(r, c);
		else
			axv_set_add(r, c);
	}
	free(scratch);
	return r;
}

static int
json_walk(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    bool keep)
{
	struct axv *paths;
	struct plist pl;
	size_t i;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	paths = parse_paths(ctx, args);
	if (paths == NULL)
		return AXP_BI_ERROR;
	pl.paths = NULL;
	pl.n = axv_array_len(paths);
	pl.depth = 0;
	/* An empty path names the whole document. */
	for (i = 0; i < pl.n; i++)
		if (axv_array_len(axv_array_get(paths, i)) == 0) {
			axv_unref(paths);
			*out = keep ? axv_ref(args[0]) : axv_object_new(0);
			return AXP_BI_OK;
		}
	{
		struct axv **p =
		    axg_reallocarray(NULL, pl.n ? pl.n : 1, sizeof(*p));
		for (i = 0; i < pl.n; i++)
			p[i] = axv_array_get(paths, i);
		pl.paths = p;
		*out = walk(args[0], &pl, keep);
		free(p);
	}
	axv_unref(paths);
	return AXP_BI_OK;
}

static int
bi_json_filter(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return json_walk(ctx, args, out, true);
}

static int
bi_json_remove(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return json_walk(ctx, args, out, false);
}

const struct axp_builtin axp_builtins_objects[] = {
	{ "object.get", 3, bi_object_get, "(object, any, any) => any", 0 },
	{ "object.keys", 1, bi_object_keys, "(object) => set[any]", 0 },
	{ "object.union", 2, bi_object_union, "(object, object) => any", 0 },
	{ "object.union_n", 1, bi_object_union_n, "(array[object]) => any", 0 },
	{ "object.remove", 2, bi_object_remove,
	    "(object, any<array, object, set>) => any", 0 },
	{ "object.filter", 2, bi_object_filter,
	    "(object, any<array, object, set>) => any", 0 },
	{ "object.subset", 2, bi_object_subset,
	    "(any<object, array, set>, any<object, array, set>) => boolean",
	    0 },
	{ "json.filter", 2, bi_json_filter, "(object, any<array, set>) => any",
	    0 },
	{ "json.remove", 2, bi_json_remove, "(object, any<array, set>) => any",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
