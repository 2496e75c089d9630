/* builtins-graph.c: graph.reachable and graph.reachable_paths. */
#include "config.h"

#include <stdlib.h>

#include "common/common.h"
#include "policy/builtins.h"

/* The elements of a set or array, for vertices and edge lists. */
static size_t
vertex_count(const struct axv *v)
{
	switch (axv_kind(v)) {
	case AXV_SET:
		return axv_set_len(v);
	case AXV_ARRAY:
		return axv_array_len(v);
	default:
		return 0;
	}
}

static struct axv *
vertex_at(const struct axv *v, size_t i)
{
	return axv_kind(v) == AXV_SET ? axv_set_at(v, i) : axv_array_get(v, i);
}

/* Breadth first from the initial vertices; a vertex is reached when the
 * graph has an entry for it, as OPA does. */
static int
bi_reachable(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *queue, *reached;
	size_t head = 0;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	if (axv_kind(args[1]) != AXV_SET && axv_kind(args[1]) != AXV_ARRAY)
		return axp_bi_type_error(ctx, 2, "one of {array, set}",
		    args[1]);
	queue = axv_array_new(vertex_count(args[1]) + 1);
	reached = axv_set_new(8);
	for (size_t i = 0; i < vertex_count(args[1]); i++)
		axv_array_push(queue, axv_ref(vertex_at(args[1], i)));
	while (head < axv_array_len(queue)) {
		struct axv *node = axv_array_get(queue, head++);
		struct axv *edges = axv_object_get(args[0], node);

		if (edges == NULL || axv_set_contains(reached, node))
			continue;
		axv_set_add(reached, axv_ref(node));
		for (size_t i = 0; i < vertex_count(edges); i++) {
			struct axv *n = vertex_at(edges, i);

			if (!axv_set_contains(reached, n))
				axv_array_push(queue, axv_ref(n));
		}
	}
	axv_unref(queue);
	*out = reached;
	return AXP_BI_OK;
}

/* graph.reachable_paths walks every simple path depth first; bound the walk
 * so that a hostile graph ends with an error instead of running away. */
#define REACH_MAX_DEPTH 4096
#define REACH_MAX_STEPS 100000

struct paths_walk {
	const struct axv *graph;
	struct axv **path; /* borrowed vertices of the current path */
	size_t len;
	size_t steps;
	struct axv *out; /* set of arrays */
};

static void
emit_path(struct paths_walk *w)
{
	struct axv *a;

	if (w->len == 0)
		return;
	a = axv_array_new(w->len);
	for (size_t i = 0; i < w->len; i++)
		axv_array_push(a, axv_ref(w->path[i]));
	axv_set_add(w->out, a);
}

static bool
on_path(const struct paths_walk *w, const struct axv *v)
{
	for (size_t i = 0; i < w->len; i++)
		if (axv_equal(w->path[i], v))
			return true;
	return false;
}

/* As OPA: a vertex without an entry ends the path before it; a vertex with
 * no edges (or a non-collection) ends the path with it; an edge back into
 * the path ends it too. */
static int
walk_paths(struct axp_bctx *ctx, struct paths_walk *w, struct axv *v)
{
	struct axv *edges = axv_object_get(w->graph, v);
	size_t n;

	if (++w->steps > REACH_MAX_STEPS)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "more than %d steps", REACH_MAX_STEPS);
	if (edges == NULL) {
		emit_path(w);
		return 0;
	}
	if (w->len >= REACH_MAX_DEPTH)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "path longer than %d vertices", REACH_MAX_DEPTH);
	w->path[w->len++] = v;
	n = vertex_count(edges);
	if (n == 0)
		emit_path(w);
	for (size_t i = 0; i < n; i++) {
		struct axv *next = vertex_at(edges, i);

		if (on_path(w, next))
			emit_path(w);
		else if (walk_paths(ctx, w, next) < 0)
			return -1;
	}
	w->len--;
	return 0;
}

static int
bi_reachable_paths(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct paths_walk w = { 0 };

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	if (axv_kind(args[1]) != AXV_SET && axv_kind(args[1]) != AXV_ARRAY)
		return axp_bi_type_error(ctx, 2, "one of {array, set}",
		    args[1]);
	w.graph = args[0];
	w.path = axg_calloc(REACH_MAX_DEPTH, sizeof(*w.path));
	w.out = axv_set_new(8);
	for (size_t i = 0; i < vertex_count(args[1]); i++) {
		if (walk_paths(ctx, &w, vertex_at(args[1], i)) < 0)
			goto fail;
	}
	free(w.path);
	*out = w.out;
	return AXP_BI_OK;
fail:
	free(w.path);
	axv_unref(w.out);
	return AXP_BI_ERROR;
}

const struct axp_builtin axp_builtins_graph[] = {
	{ "graph.reachable", 2, bi_reachable, "(object, any) => set", 0 },
	{ "graph.reachable_paths", 2, bi_reachable_paths,
	    "(object, any) => set", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
