/*
 * graphql-validate.c: checking a query document against a schema.
 *
 * The walk is gqlparser's (validator/walk.go): operations in order, each
 * with the fragments it spreads (once each), then the fragment definitions;
 * a field's checks run after its sub-selections, an operation's after its
 * selections.  The rules are gqlparser's, in its order, and the first error
 * found is the one reported (OPA reports only the first).  Rules not done
 * here: OverlappingFieldsCanBeMerged, PossibleFragmentSpreads,
 * SingleFieldSubscriptions, ValuesOfCorrectType,
 * VariablesInAllowedPosition.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/graphql-int.h"

/* Fragment spreads followed into fragments, at most this deep. */
#define WALK_MAX_DEPTH (GQL_MAX_DEPTH * 8)

struct vctx {
	struct gql_schema *s;
	const struct axv *doc;
	struct gql_err *err;
	bool failed;
	struct gql_map frags;	  /* name -> fragment definition */
	struct gql_map spread;	  /* fragments spread from operations */
	struct gql_map visited;	  /* fragments walked in this operation */
	struct gql_map used_vars; /* variables used in this operation */
	struct gql_map cycle_done;
	const struct axv *op; /* the operation being walked, or NULL */
	bool in_fragment_defs;
	int depth;
};

static void fail(struct vctx *c, const struct axv *at, const char *fmt, ...)
    AXG_PRINTF(3, 4);

static void
fail(struct vctx *c, const struct axv *at, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	gql_pos(at, &c->err->line, &c->err->col);
}

static struct gql_type *
type_named(struct vctx *c, const char *name)
{
	return gql_map_get(&c->s->types, name);
}

static bool
is_leaf(const struct gql_type *t)
{
	return strcmp(t->kind, "ENUM") == 0 || strcmp(t->kind, "SCALAR") == 0;
}

static bool
is_composite(const struct gql_type *t)
{
	return strcmp(t->kind, "OBJECT") == 0 ||
	    strcmp(t->kind, "INTERFACE") == 0 || strcmp(t->kind, "UNION") == 0;
}

static char *
type_str(const struct axv *t)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	gql_type_string(t, &b, 0);
	axg_buf_putc(&b, 0);
	return axg_buf_steal(&b, NULL);
}

static void
unique_args(struct vctx *c, const struct axv *node)
{
	size_t n = gql_len(node, "Arguments");

	for (size_t i = 0; i < n; i++) {
		const struct axv *a = gql_at(node, "Arguments", i);

		for (size_t j = 0; j < i; j++) {
			if (strcmp(gql_str(a, "Name"),
				gql_str(gql_at(node, "Arguments", j),
				    "Name")) == 0) {
				fail(c, a,
				    "There can be only one argument named "
				    "\"%s\".",
				    gql_str(a, "Name"));
				return;
			}
		}
	}
}

static void
required_args(struct vctx *c, const struct axv *node, const struct axv *def,
    bool directive)
{
	for (size_t i = 0; i < gql_len(def, "Arguments"); i++) {
		const struct axv *ad = gql_at(def, "Arguments", i);
		const struct axv *t = gql_node(ad, "Type");
		char *ts;

		if (!gql_bool(t, "NonNull") ||
		    gql_node(ad, "DefaultValue") != NULL ||
		    gql_list_named(node, "Arguments", gql_str(ad, "Name")) !=
			NULL)
			continue;
		ts = type_str(t);
		fail(c, node,
		    "%s \"%s%s\" argument \"%s\" of type \"%s\" is required, "
		    "but it was not provided.",
		    directive ? "Directive" : "Field", directive ? "@" : "",
		    gql_str(node, "Name"), gql_str(ad, "Name"), ts);
		free(ts);
	}
}

/* ---- values ---- */

static const struct axv *
var_def(const struct axv *op, const char *name)
{
	for (size_t i = 0; i < gql_len(op, "VariableDefinitions"); i++) {
		const struct axv *vd = gql_at(op, "VariableDefinitions", i);

		if (strcmp(gql_str(vd, "Variable"), name) == 0)
			return vd;
	}
	return NULL;
}

static void
walk_value(struct vctx *c, const struct axv *v, int depth)
{
	int64_t kind = -1;
	const struct axv *k;

	if (c->failed || v == NULL || axv_kind(v) != AXV_OBJECT ||
	    depth > GQL_MAX_DEPTH * 4)
		return;
	k = axv_object_gets(v, "Kind");
	if (k != NULL && axv_kind(k) == AXV_NUMBER)
		axv_num_get_i64(k, &kind);
	if (kind == 0 && c->op != NULL) {
		const char *name = gql_str(v, "Raw");

		if (var_def(c->op, name))
			gql_map_put(&c->used_vars, name, (void *)v);
	}
	if (kind == 8 || kind == 9) {
		for (size_t i = 0; i < gql_len(v, "Children"); i++)
			walk_value(c,
			    gql_node(gql_at(v, "Children", i), "Value"),
			    depth + 1);
	}
	/* NoUndefinedVariables */
	if (kind == 0 && c->op != NULL && !var_def(c->op, gql_str(v, "Raw"))) {
		if (*gql_str(c->op, "Name") != '\0')
			fail(c, v,
			    "Variable \"$%s\" is not defined by operation "
			    "\"%s\".",
			    gql_str(v, "Raw"), gql_str(c->op, "Name"));
		else
			fail(c, v, "Variable \"$%s\" is not defined.",
			    gql_str(v, "Raw"));
	}
	/* UniqueInputFieldNames */
	if (kind == 9) {
		size_t n = gql_len(v, "Children");

		for (size_t i = 0; i < n; i++) {
			const struct axv *a = gql_at(v, "Children", i);

			for (size_t j = 0; j < i; j++) {
				if (strcmp(gql_str(a, "Name"),
					gql_str(gql_at(v, "Children", j),
					    "Name")) == 0) {
					fail(c, a,
					    "There can be only one input field "
					    "named \"%s\".",
					    gql_str(a, "Name"));
					return;
				}
			}
		}
	}
}

static void
walk_args(struct vctx *c, const struct axv *node)
{
	for (size_t i = 0; i < gql_len(node, "Arguments"); i++)
		walk_value(c, gql_node(gql_at(node, "Arguments", i), "Value"),
		    0);
}

/* ---- directives ---- */

static void
walk_directives(struct vctx *c, const struct axv *node, const char *loc)
{
	size_t n = gql_len(node, "Directives");

	/* UniqueDirectivesPerLocation */
	for (size_t i = 0; i < n; i++) {
		const struct axv *d = gql_at(node, "Directives", i);
		const struct axv *def =
		    gql_map_get(&c->s->dirs, gql_str(d, "Name"));

		if (def != NULL && gql_bool(def, "IsRepeatable"))
			continue;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(gql_str(d, "Name"),
				gql_str(gql_at(node, "Directives", j),
				    "Name")) == 0) {
				fail(c, d,
				    "The directive \"@%s\" can only be used "
				    "once "
				    "at this location.",
				    gql_str(d, "Name"));
				break;
			}
		}
	}
	for (size_t i = 0; i < n && !c->failed; i++) {
		const struct axv *d = gql_at(node, "Directives", i);
		const char *name = gql_str(d, "Name");
		const struct axv *def = gql_map_get(&c->s->dirs, name);
		bool ok = false;

		walk_args(c, d);
		/* KnownArgumentNames */
		for (size_t j = 0; def != NULL && j < gql_len(d, "Arguments");
		     j++) {
			const struct axv *a = gql_at(d, "Arguments", j);

			if (gql_list_named(def, "Arguments",
				gql_str(a, "Name")) == NULL)
				fail(c, a,
				    "Unknown argument \"%s\" on directive "
				    "\"@%s\".",
				    gql_str(a, "Name"), name);
		}
		/* KnownDirectives */
		if (def == NULL) {
			fail(c, d, "Unknown directive \"@%s\".", name);
			continue;
		}
		for (size_t j = 0; j < gql_len(def, "Locations"); j++) {
			const struct axv *l = gql_at(def, "Locations", j);

			if (axv_kind(l) == AXV_STRING &&
			    strcmp(axv_str(l), loc) == 0)
				ok = true;
		}
		if (!ok)
			fail(c, d, "Directive \"@%s\" may not be used on %s.",
			    name, loc);
		required_args(c, d, def, true);
		unique_args(c, d);
	}
}

/* ---- selections ---- */

static void walk_selections(struct vctx *c, const struct gql_type *parent,
    const struct axv *node);

static const struct axv *
field_def(struct vctx *c, const struct gql_type *parent, const char *name)
{
	const struct axv *f;

	if (parent == NULL)
		return NULL;
	if ((f = gql_field_named(&parent->fields, name)) != NULL)
		return f;
	if (parent == c->s->query)
		return gql_list_named(gql_at(c->s->meta, "Definitions", 0),
		    "Fields", name);
	return NULL;
}

static void
walk_field(struct vctx *c, const struct gql_type *parent, const struct axv *f)
{
	const char *name = gql_str(f, "Name");
	const struct axv *def;
	const struct gql_type *next = NULL, *ft = NULL;
	bool typename = strcmp(name, "__typename") == 0;

	def = typename ? NULL : field_def(c, parent, name);
	if (def != NULL)
		next = ft = type_named(c, gql_type_name(gql_node(def, "Type")));
	else if (typename)
		ft = type_named(c, "String");
	walk_args(c, f);
	walk_directives(c, f, "FIELD");
	walk_selections(c, next, f);
	if (c->failed)
		return;
	/* FieldsOnCorrectType */
	if (parent != NULL && def == NULL && !typename) {
		fail(c, f, "Cannot query field \"%s\" on type \"%s\".", name,
		    parent->name);
		return;
	}
	if (typename && ft != NULL && gql_len(f, "SelectionSet") > 0) {
		fail(c, f,
		    "Field \"%s\" must not have a selection since type \"%s\" "
		    "has no subfields.",
		    name, ft->name);
		return;
	}
	if (def != NULL) {
		/* KnownArgumentNames */
		for (size_t i = 0; i < gql_len(f, "Arguments"); i++) {
			const struct axv *a = gql_at(f, "Arguments", i);

			if (gql_list_named(def, "Arguments",
				gql_str(a, "Name")) == NULL) {
				fail(c, a,
				    "Unknown argument \"%s\" on field "
				    "\"%s.%s\".",
				    gql_str(a, "Name"), parent->name, name);
				return;
			}
		}
		/* ProvidedRequiredArguments */
		required_args(c, f, def, false);
		/* ScalarLeafs */
		if (ft != NULL && is_leaf(ft) &&
		    gql_len(f, "SelectionSet") > 0) {
			fail(c, f,
			    "Field \"%s\" must not have a selection since type "
			    "\"%s\" has no subfields.",
			    name, ft->name);
		} else if (ft != NULL && !is_leaf(ft) &&
		    gql_len(f, "SelectionSet") == 0) {
			char *ts = type_str(gql_node(def, "Type"));

			fail(c, f,
			    "Field \"%s\" of type \"%s\" must have a selection "
			    "of subfields.",
			    name, ts);
			free(ts);
		}
	}
	unique_args(c, f);
}

static void
walk_selection(struct vctx *c, const struct gql_type *parent,
    const struct axv *sel)
{
	const struct axv *tc = axv_object_gets(sel, "TypeCondition");
	bool has_alias = axv_object_gets(sel, "Alias") != NULL;

	if (c->failed)
		return;
	if (has_alias || (tc == NULL && gql_len(sel, "SelectionSet") > 0)) {
		walk_field(c, parent, sel);
	} else if (tc != NULL) {
		/* an inline fragment */
		const char *tn = gql_str(sel, "TypeCondition");
		const struct gql_type *next = parent, *t = NULL;

		if (*tn != '\0')
			next = t = type_named(c, tn);
		walk_directives(c, sel, "INLINE_FRAGMENT");
		walk_selections(c, next, sel);
		if (c->failed)
			return;
		if (t != NULL && !is_composite(t))
			fail(c, sel,
			    "Fragment cannot condition on non composite type "
			    "\"%s\".",
			    tn);
		else if (*tn != '\0' && t == NULL)
			fail(c, sel, "Unknown type \"%s\".", tn);
	} else {
		/* a fragment spread */
		const char *name = gql_str(sel, "Name");
		const struct axv *fd = gql_map_get(&c->frags, name);
		const struct gql_type *next = NULL;

		if (fd != NULL)
			next = type_named(c, gql_str(fd, "TypeCondition"));
		walk_directives(c, sel, "FRAGMENT_SPREAD");
		if (fd != NULL && gql_map_get(&c->visited, name) == NULL) {
			gql_map_put(&c->visited, name, (void *)fd);
			walk_selections(c, next, fd);
		}
		if (c->failed)
			return;
		if (fd == NULL)
			fail(c, sel, "Unknown fragment \"%s\".", name);
		if (!c->in_fragment_defs)
			gql_map_put(&c->spread, name, (void *)sel);
	}
}

static void
walk_selections(struct vctx *c, const struct gql_type *parent,
    const struct axv *node)
{
	if (c->failed)
		return;
	if (++c->depth > WALK_MAX_DEPTH) {
		fail(c, node, "selections nested deeper than %d",
		    WALK_MAX_DEPTH);
		return;
	}
	for (size_t i = 0; i < gql_len(node, "SelectionSet"); i++)
		walk_selection(c, parent, gql_at(node, "SelectionSet", i));
	c->depth--;
}

/* ---- operations and fragments ---- */

static void
walk_operation(struct vctx *c, const struct axv *op, size_t nops)
{
	const char *kind = gql_str(op, "Operation");
	const struct gql_type *root = NULL;
	const char *loc = "QUERY";
	size_t nvars = gql_len(op, "VariableDefinitions");

	c->op = op;
	gql_map_free(&c->visited);
	gql_map_free(&c->used_vars);
	for (size_t i = 0; i < nvars && !c->failed; i++) {
		const struct axv *vd = gql_at(op, "VariableDefinitions", i);
		const struct axv *t = gql_node(vd, "Type");
		const struct gql_type *vt = type_named(c, gql_type_name(t));

		/* KnownTypeNames */
		if (vt == NULL) {
			fail(c, vd, "Unknown type \"%s\".", gql_type_name(t));
		} else if (!gql_is_input_kind(vt->kind)) {
			/* VariablesAreInputTypes */
			char *ts = type_str(t);

			fail(c, vd,
			    "Variable \"$%s\" cannot be non-input type \"%s\".",
			    gql_str(vd, "Variable"), ts);
			free(ts);
		}
	}
	if (strcmp(kind, "mutation") == 0) {
		root = c->s->mutation;
		loc = "MUTATION";
	} else if (strcmp(kind, "subscription") == 0) {
		root = c->s->subscription;
		loc = "SUBSCRIPTION";
	} else {
		root = c->s->query;
	}
	for (size_t i = 0; i < nvars && !c->failed; i++) {
		const struct axv *vd = gql_at(op, "VariableDefinitions", i);

		walk_value(c, gql_node(vd, "DefaultValue"), 0);
		walk_directives(c, vd, "VARIABLE_DEFINITION");
	}
	walk_directives(c, op, loc);
	walk_selections(c, root, op);
	if (c->failed)
		return;
	/* KnownRootType */
	if (root == NULL) {
		fail(c, op, "Schema does not support operation type \"%s\"",
		    kind);
		return;
	}
	/* LoneAnonymousOperation */
	if (*gql_str(op, "Name") == '\0' && nops > 1) {
		fail(c, op,
		    "This anonymous operation must be the only defined "
		    "operation.");
		return;
	}
	/* NoUnusedVariables */
	for (size_t i = 0; i < nvars; i++) {
		const struct axv *vd = gql_at(op, "VariableDefinitions", i);
		const char *vn = gql_str(vd, "Variable");

		if (gql_map_get(&c->used_vars, vn) != NULL)
			continue;
		if (*gql_str(op, "Name") != '\0')
			fail(c, vd,
			    "Variable \"$%s\" is never used in operation "
			    "\"%s\".",
			    vn, gql_str(op, "Name"));
		else
			fail(c, vd, "Variable \"$%s\" is never used.", vn);
		return;
	}
	/* UniqueOperationNames */
	if (*gql_str(op, "Name") != '\0') {
		for (size_t i = 0; i < gql_len(c->doc, "Operations"); i++) {
			const struct axv *o = gql_at(c->doc, "Operations", i);

			if (o == op)
				break;
			if (strcmp(gql_str(o, "Name"), gql_str(op, "Name")) ==
			    0) {
				fail(c, op,
				    "There can be only one operation named "
				    "\"%s\".",
				    gql_str(op, "Name"));
				return;
			}
		}
	}
	/* UniqueVariableNames */
	for (size_t i = 0; i < nvars; i++) {
		const struct axv *vd = gql_at(op, "VariableDefinitions", i);

		for (size_t j = 0; j < i; j++) {
			if (strcmp(gql_str(vd, "Variable"),
				gql_str(gql_at(op, "VariableDefinitions", j),
				    "Variable")) == 0) {
				fail(c, vd,
				    "There can be only one variable named "
				    "\"$%s\".",
				    gql_str(vd, "Variable"));
				return;
			}
		}
	}
}

/* The fragment spreads in a selection set, not following fragments. */
static void
collect_spreads(const struct axv *node, struct gql_vec *out, int depth)
{
	if (depth > GQL_MAX_DEPTH * 4)
		return;
	for (size_t i = 0; i < gql_len(node, "SelectionSet"); i++) {
		const struct axv *s = gql_at(node, "SelectionSet", i);

		if (axv_object_gets(s, "Alias") == NULL &&
		    axv_object_gets(s, "TypeCondition") == NULL &&
		    gql_len(s, "SelectionSet") == 0)
			gql_vec_push(out, s);
		else
			collect_spreads(s, out, depth + 1);
	}
}

struct cycle {
	struct vctx *c;
	struct gql_vec path;  /* spread nodes */
	struct gql_map index; /* fragment name -> path index + 1 */
};

static void
find_cycles(struct cycle *cy, const struct axv *frag, int depth)
{
	struct vctx *c = cy->c;
	const char *fname = gql_str(frag, "Name");
	struct gql_vec spreads = { 0 };

	if (c->failed || gql_map_get(&c->cycle_done, fname) != NULL)
		return;
	if (depth > WALK_MAX_DEPTH) {
		fail(c, frag, "fragment spreads nested deeper than %d",
		    WALK_MAX_DEPTH);
		return;
	}
	gql_map_put(&c->cycle_done, fname, (void *)frag);
	collect_spreads(frag, &spreads, 0);
	if (spreads.len == 0)
		return;
	gql_map_put(&cy->index, fname, (void *)(uintptr_t)(cy->path.len + 1));
	for (size_t i = 0; i < spreads.len && !c->failed; i++) {
		const struct axv *sp = spreads.items[i];
		const char *sn = gql_str(sp, "Name");
		uintptr_t at = (uintptr_t)gql_map_get(&cy->index, sn);

		gql_vec_push(&cy->path, sp);
		if (at == 0) {
			const struct axv *next = gql_map_get(&c->frags, sn);

			if (next != NULL)
				find_cycles(cy, next, depth + 1);
		} else {
			struct axg_buf via;

			axg_buf_init(&via, 0);
			for (size_t k = at - 1; k + 1 < cy->path.len; k++)
				axg_buf_printf(&via, "%s\"%s\"",
				    via.len ? ", " : " via ",
				    gql_str(cy->path.items[k], "Name"));
			axg_buf_putc(&via, 0);
			fail(c, sp,
			    "Cannot spread fragment \"%s\" within itself%s.",
			    sn, via.data);
			axg_buf_free(&via);
		}
		cy->path.len--;
	}
	/* leave the name out of the path */
	gql_map_put(&cy->index, fname, NULL);
	free(spreads.items);
}

static void
walk_fragment(struct vctx *c, const struct axv *fd, size_t idx)
{
	const char *tn = gql_str(fd, "TypeCondition");
	const char *name = gql_str(fd, "Name");
	const struct gql_type *t = type_named(c, tn);
	struct cycle cy = { .c = c };

	gql_map_free(&c->visited);
	walk_directives(c, fd, "FRAGMENT_DEFINITION");
	walk_selections(c, t, fd);
	if (c->failed)
		return;
	/* FragmentsOnCompositeTypes */
	if (t != NULL && *tn != '\0' && !is_composite(t)) {
		fail(c, fd,
		    "Fragment \"%s\" cannot condition on non composite type "
		    "\"%s\".",
		    name, tn);
		return;
	}
	/* KnownTypeNames */
	if (t == NULL) {
		fail(c, fd, "Unknown type \"%s\".", tn);
		return;
	}
	/* NoFragmentCycles */
	find_cycles(&cy, fd, 0);
	free(cy.path.items);
	gql_map_free(&cy.index);
	if (c->failed)
		return;
	/* NoUnusedFragments */
	if (gql_map_get(&c->spread, name) == NULL) {
		fail(c, fd, "Fragment \"%s\" is never used.", name);
		return;
	}
	/* UniqueFragmentNames */
	for (size_t i = 0; i < idx; i++) {
		if (strcmp(gql_str(gql_at(c->doc, "Fragments", i), "Name"),
			name) == 0) {
			fail(c, fd,
			    "There can be only one fragment named \"%s\".",
			    name);
			return;
		}
	}
}

int
gql_validate(struct gql_schema *s, const struct axv *doc, struct gql_err *err)
{
	struct vctx c = { .s = s, .doc = doc, .err = err };
	size_t nops = gql_len(doc, "Operations");
	size_t nfrags = gql_len(doc, "Fragments");

	memset(err, 0, sizeof(*err));
	for (size_t i = 0; i < nfrags; i++) {
		const struct axv *f = gql_at(doc, "Fragments", i);

		/* Fragments.ForName finds the first of a name */
		if (gql_map_get(&c.frags, gql_str(f, "Name")) == NULL)
			gql_map_put(&c.frags, gql_str(f, "Name"), (void *)f);
	}
	for (size_t i = 0; i < nops && !c.failed; i++)
		walk_operation(&c, gql_at(doc, "Operations", i), nops);
	c.op = NULL;
	c.in_fragment_defs = true;
	for (size_t i = 0; i < nfrags && !c.failed; i++)
		walk_fragment(&c, gql_at(doc, "Fragments", i), i);
	gql_map_free(&c.frags);
	gql_map_free(&c.spread);
	gql_map_free(&c.visited);
	gql_map_free(&c.used_vars);
	gql_map_free(&c.cycle_done);
	return c.failed ? -1 : 0;
}
