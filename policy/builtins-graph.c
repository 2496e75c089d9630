/* builtins-graph.c: graph.reachable. */
#include "config.h"

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

const struct axp_builtin axp_builtins_graph[] = {
	{ "graph.reachable", 2, bi_reachable, "(object, any) => set", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
