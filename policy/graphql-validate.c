/*
 * graphql-validate.c: checking a query document against a schema.
 *
 * The walk is gqlparser's (validator/walk.go): operations in order, each
 * with the fragments it spreads (once each), then the fragment definitions;
 * a field's checks run after its sub-selections, an operation's after its
 * selections.  The rules are gqlparser's, in its order, and the first error
 * found is the one reported (OPA reports only the first).  Not done here:
 * OverlappingFieldsCanBeMerged.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	struct gql_map opnames; /* operation name -> the first operation */
	const struct axv *op;	/* the operation being walked, or NULL */
	bool in_fragment_defs;
	int depth;
	size_t steps; /* selections visited, against GQL_MAX_STEPS */
};

static bool fail(struct vctx *c, const struct axv *at, const char *fmt, ...)
    AXG_PRINTF(3, 4);

/* Record the error, unless there is one already; true if recorded. */
static bool
fail(struct vctx *c, const struct axv *at, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return false;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	gql_pos(at, &c->err->line, &c->err->col);
	return true;
}

/* ---- "Did you mean" (gqlparser's SuggestionList and OrList) ---- */

#define SUGGEST_MAX_NAME 256 /* longer names are not typos */

/* Levenshtein distance between a and b, lower-cased; a change of case
 * alone counts as one edit. */
static size_t
lexical_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[SUGGEST_MAX_NAME + 1], prev[SUGGEST_MAX_NAME + 1];

	if (strcmp(a, b) == 0)
		return 0;
	if (la == lb && strncasecmp(a, b, la) == 0)
		return 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) ==
				tolower((unsigned char)b[j - 1])
			    ? 0
			    : 1;
			size_t d = prev[j - 1] + cost;

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
		}
		memcpy(prev, row, (lb + 1) * sizeof(*row));
	}
	return prev[lb];
}

struct suggestion {
	const char *name;
	size_t dist, order;
};

static int
cmp_suggestion(const void *a, const void *b)
{
	const struct suggestion *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Append gqlparser's " PREFIX "a", "b", or "c"?" (OrList: the first five
 * names) to the error just recorded. */
static void
append_or_list(struct vctx *c, const char *prefix, const struct gql_vec *names,
    bool quoted)
{
	size_t n = names->len > 5 ? 5 : names->len;
	struct axg_buf b;

	if (n == 0)
		return;
	axg_buf_init(&b, 0);
	axg_buf_printf(&b, " %s ", prefix);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			axg_buf_puts(&b,
			    n == 2	     ? " or "
				: i == n - 1 ? ", or "
					     : ", ");
		axg_buf_printf(&b, quoted ? "\"%s\"" : "%s",
		    (const char *)names->items[i]);
	}
	axg_buf_putc(&b, '?');
	axg_buf_putc(&b, 0);
	axg_strlcpy(c->err->msg + strlen(c->err->msg), b.data,
	    sizeof(c->err->msg) - strlen(c->err->msg));
	axg_buf_free(&b);
}

/* Append gqlparser's " PREFIX "a", "b", or "c"?" to the error just
 * recorded: the options close enough to typed, nearest first (five at
 * most). */
static void
suggest(struct vctx *c, const char *prefix, const char *typed,
    const struct gql_vec *opts, bool quoted)
{
	size_t lt = strlen(typed), threshold = lt * 4 / 10 + 1, n = 0;
	struct suggestion *sg;
	struct gql_vec sorted = { 0 };

	if (lt > SUGGEST_MAX_NAME || opts->len == 0)
		return;
	sg = axg_calloc(opts->len, sizeof(*sg));
	for (size_t i = 0; i < opts->len; i++) {
		const char *o = opts->items[i];
		size_t lo = strlen(o), d;

		if (lo > SUGGEST_MAX_NAME || lo > lt + threshold ||
		    lt > lo + threshold)
			continue;
		if ((d = lexical_distance(typed, o)) <= threshold)
			sg[n++] = (struct suggestion){ o, d, i };
	}
	qsort(sg, n, sizeof(*sg), cmp_suggestion);
	for (size_t i = 0; i < n; i++)
		gql_vec_push(&sorted, sg[i].name);
	append_or_list(c, prefix, &sorted, quoted);
	free(sorted.items);
	free(sg);
}

/* The names of the elements of node[key]. */
static void
names_of(struct gql_vec *out, const struct axv *node, const char *key)
{
	for (size_t i = 0; i < gql_len(node, key); i++)
		gql_vec_push(out, gql_str(gql_at(node, key, i), "Name"));
}

static void
names_of_vec(struct gql_vec *out, const struct gql_vec *nodes)
{
	for (size_t i = 0; i < nodes->len; i++)
		gql_vec_push(out, gql_str(nodes->items[i], "Name"));
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
	const struct axv *a = gql_first_dup(node, "Arguments", "Name");

	if (a != NULL)
		fail(c, a, "There can be only one argument named \"%s\".",
		    gql_str(a, "Name"));
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
		    gql_list_named(c->s, node, "Arguments",
			gql_str(ad, "Name")) != NULL)
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
var_def(struct vctx *c, const char *name)
{
	return gql_named(c->s, c->op, "VariableDefinitions", "Variable", name);
}

/* What a value is expected to be: its type reference and the definition
 * of the named type (either may be NULL), and whether the argument has a
 * default (gqlparser's ExpectedTypeHasDefault). */
struct expect {
	const struct axv *type;
	const struct gql_type *def;
	bool has_default;
};

static int64_t
value_kind(const struct axv *v)
{
	const struct axv *k = axv_object_gets(v, "Kind");
	int64_t kind = -1;

	if (k != NULL && axv_kind(k) == AXV_NUMBER)
		axv_num_get_i64(k, &kind);
	return kind;
}

/* gqlparser's Value.String(), for messages. */
static void
value_string(const struct axv *v, struct axg_buf *b, int depth)
{
	int64_t kind = value_kind(v);
	size_t n = gql_len(v, "Children");

	if (depth > GQL_MAX_DEPTH * 4)
		return;
	switch (kind) {
	case VK_VARIABLE:
		axg_buf_printf(b, "$%s", gql_str(v, "Raw"));
		break;
	case VK_STRING:
	case VK_BLOCK: {
		struct axv *s = axv_cstr(gql_str(v, "Raw"));

		axv_to_json(s, b, false);
		axv_unref(s);
		break;
	}
	case VK_LIST:
	case VK_OBJECT:
		axg_buf_putc(b, kind == VK_LIST ? '[' : '{');
		for (size_t i = 0; i < n; i++) {
			const struct axv *ch = gql_at(v, "Children", i);

			if (i > 0)
				axg_buf_puts(b, ", ");
			if (kind == VK_OBJECT)
				axg_buf_printf(b, "%s: ", gql_str(ch, "Name"));
			value_string(gql_node(ch, "Value"), b, depth + 1);
		}
		axg_buf_putc(b, kind == VK_LIST ? ']' : '}');
		break;
	default:
		axg_buf_puts(b, gql_str(v, "Raw"));
		break;
	}
}

static bool
def_is(const struct gql_type *d, const char *a, const char *b, const char *c)
{
	return strcmp(d->name, a) == 0 ||
	    (b != NULL && strcmp(d->name, b) == 0) ||
	    (c != NULL && strcmp(d->name, c) == 0);
}

/* gqlparser's unexpectedTypeMessageOnly(). */
static void
wrong_type(struct vctx *c, const struct axv *v, const struct expect *e)
{
	char *ts = type_str(e->type), *vs;
	struct axg_buf b;
	const char *t = ts;

	axg_buf_init(&b, 0);
	value_string(v, &b, 0);
	axg_buf_putc(&b, 0);
	vs = b.data;
	if (strcmp(t, "Int") == 0 || strcmp(t, "Int!") == 0)
		fail(c, v, "Int cannot represent non-integer value: %s", vs);
	else if (strcmp(t, "String") == 0 || strcmp(t, "String!") == 0 ||
	    strcmp(t, "[String]") == 0)
		fail(c, v, "String cannot represent a non string value: %s",
		    vs);
	else if (strcmp(t, "Boolean") == 0 || strcmp(t, "Boolean!") == 0)
		fail(c, v, "Boolean cannot represent a non boolean value: %s",
		    vs);
	else if (strcmp(t, "Float") == 0 || strcmp(t, "Float!") == 0)
		fail(c, v, "Float cannot represent non numeric value: %s", vs);
	else if (strcmp(t, "ID") == 0 || strcmp(t, "ID!") == 0)
		fail(c, v,
		    "ID cannot represent a non-string and non-integer value: "
		    "%s",
		    vs);
	else if (strcmp(e->def->kind, "ENUM") == 0)
		fail(c, v, "Enum \"%s\" cannot represent non-enum value: %s.",
		    t, vs);
	else
		fail(c, v, "Expected value of type \"%s\", found %s.", t, vs);
	free(ts);
	axg_buf_free(&b);
}

/* gqlparser's ValuesOfCorrectType. */
static void
check_value_type(struct vctx *c, const struct axv *v, int64_t kind,
    const struct expect *e)
{
	const struct gql_type *d = e->def;
	char *ts;

	if (d == NULL || e->type == NULL)
		return;
	if (kind == VK_NULL && gql_bool(e->type, "NonNull")) {
		ts = type_str(e->type);
		fail(c, v, "Expected value of type \"%s\", found null.", ts);
		free(ts);
		return;
	}
	if (strcmp(d->kind, "SCALAR") == 0 &&
	    !def_is(d, "Int", "Float", "String") &&
	    !def_is(d, "Boolean", "ID", NULL))
		return; /* custom scalars validate themselves */
	switch (kind) {
	case VK_LIST:
		if (gql_node(e->type, "Elem") == NULL)
			wrong_type(c, v, e);
		break;
	case VK_INT:
		if (!def_is(d, "Int", "Float", "ID"))
			wrong_type(c, v, e);
		break;
	case VK_FLOAT:
		if (!def_is(d, "Float", NULL, NULL))
			wrong_type(c, v, e);
		break;
	case VK_STRING:
	case VK_BLOCK:
		if (strcmp(d->kind, "ENUM") == 0 ||
		    !def_is(d, "String", "ID", NULL))
			wrong_type(c, v, e);
		break;
	case VK_ENUM:
		if (strcmp(d->kind, "ENUM") != 0) {
			wrong_type(c, v, e);
			break;
		}
		if (gql_type_enum(d, gql_str(v, "Raw")) != NULL)
			return;
		ts = type_str(e->type);
		if (fail(c, v, "Value \"%s\" does not exist in \"%s\" enum.",
			gql_str(v, "Raw"), ts)) {
			struct gql_vec names = { 0 };

			names_of_vec(&names, &d->enums);
			suggest(c, "Did you mean the enum value",
			    gql_str(v, "Raw"), &names, true);
			free(names.items);
		}
		free(ts);
		break;
	case VK_BOOLEAN:
		if (!def_is(d, "Boolean", NULL, NULL))
			wrong_type(c, v, e);
		break;
	case VK_OBJECT:
		for (size_t i = 0; i < d->fields.len; i++) {
			const struct axv *f = d->fields.items[i];

			if (!gql_bool(gql_node(f, "Type"), "NonNull") ||
			    gql_list_named(c->s, v, "Children",
				gql_str(f, "Name")) != NULL ||
			    gql_node(f, "DefaultValue") != NULL)
				continue;
			ts = type_str(gql_node(f, "Type"));
			fail(c, v,
			    "Field \"%s.%s\" of required type \"%s\" was not "
			    "provided.",
			    d->name, gql_str(f, "Name"), ts);
			free(ts);
		}
		for (size_t i = 0; i < gql_len(v, "Children"); i++) {
			const struct axv *ch = gql_at(v, "Children", i);

			if (gql_type_field(d, gql_str(ch, "Name")) == NULL &&
			    fail(c, ch,
				"Field \"%s\" is not defined by type \"%s\".",
				gql_str(ch, "Name"), d->name)) {
				struct gql_vec names = { 0 };

				names_of_vec(&names, &d->fields);
				suggest(c, "Did you mean", gql_str(ch, "Name"),
				    &names, true);
				free(names.items);
			}
		}
		break;
	default:
		break;
	}
}

/* gqlparser's Type.IsCompatible(other), with other's NonNull given. */
static bool
var_fits(const struct axv *t, const struct axv *o, bool o_nonnull)
{
	const struct axv *te = gql_node(t, "Elem"), *oe = gql_node(o, "Elem");

	if (strcmp(gql_str(t, "NamedType"), gql_str(o, "NamedType")) != 0)
		return false;
	if (te != NULL && oe == NULL)
		return false;
	if (te != NULL && !var_fits(te, oe, gql_bool(oe, "NonNull")))
		return false;
	return o_nonnull ? gql_bool(t, "NonNull") : true;
}

static void
walk_value(struct vctx *c, const struct axv *v, const struct expect *e,
    int depth)
{
	int64_t kind;
	const struct axv *vd = NULL;

	if (c->failed || v == NULL || axv_kind(v) != AXV_OBJECT ||
	    depth > GQL_MAX_DEPTH * 4)
		return;
	kind = value_kind(v);
	if (kind == VK_VARIABLE && c->op != NULL) {
		const char *name = gql_str(v, "Raw");

		if ((vd = var_def(c, name)) != NULL)
			gql_map_put(&c->used_vars, name, (void *)v);
	}
	for (size_t i = 0; (kind == VK_LIST || kind == VK_OBJECT) &&
	     i < gql_len(v, "Children");
	     i++) {
		const struct axv *ch = gql_at(v, "Children", i);
		struct expect ce = { 0 };

		if (kind == VK_LIST && e->type != NULL &&
		    gql_node(e->type, "Elem") != NULL) {
			ce.type = gql_node(e->type, "Elem");
			ce.def = e->def;
		} else if (kind == VK_OBJECT && e->def != NULL) {
			const struct axv *f =
			    gql_type_field(e->def, gql_str(ch, "Name"));

			if (f != NULL) {
				ce.type = gql_node(f, "Type");
				ce.def = type_named(c, gql_type_name(ce.type));
			}
		}
		walk_value(c, gql_node(ch, "Value"), &ce, depth + 1);
	}
	/* NoUndefinedVariables */
	if (kind == VK_VARIABLE && c->op != NULL && vd == NULL) {
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
	if (kind == VK_OBJECT) {
		const struct axv *a = gql_first_dup(v, "Children", "Name");

		if (a != NULL)
			fail(c, a,
			    "There can be only one input field named \"%s\".",
			    gql_str(a, "Name"));
	}
	check_value_type(c, v, kind, e);
	/* VariablesInAllowedPosition */
	if (kind == VK_VARIABLE && e->type != NULL && vd != NULL) {
		const struct axv *dv = gql_node(vd, "DefaultValue");
		bool nonnull = gql_bool(e->type, "NonNull");

		if ((dv != NULL && value_kind(dv) != VK_NULL) || e->has_default)
			nonnull = false;
		if (!var_fits(gql_node(vd, "Type"), e->type, nonnull)) {
			char *vt = type_str(gql_node(vd, "Type"));
			char *et = type_str(e->type);

			fail(c, v,
			    "Variable \"$%s\" of type \"%s\" used in position "
			    "expecting type \"%s\".",
			    gql_str(v, "Raw"), vt, et);
			free(vt);
			free(et);
		}
	}
}

/* The arguments of a field or directive, with their definitions (owner
 * may be NULL when the field or directive is unknown). */
static void
walk_args(struct vctx *c, const struct axv *node, const struct axv *owner)
{
	for (size_t i = 0; i < gql_len(node, "Arguments"); i++) {
		const struct axv *a = gql_at(node, "Arguments", i);
		const struct axv *ad = gql_list_named(c->s, owner, "Arguments",
		    gql_str(a, "Name"));
		struct expect e = { 0 };

		if (ad != NULL) {
			const struct axv *dv = gql_node(ad, "DefaultValue");

			e.type = gql_node(ad, "Type");
			e.def = type_named(c, gql_type_name(e.type));
			e.has_default = dv != NULL && value_kind(dv) != VK_NULL;
		}
		walk_value(c, gql_node(a, "Value"), &e, 0);
	}
}

/* ---- directives ---- */

static void
walk_directives(struct vctx *c, const struct axv *node, const char *loc)
{
	size_t n = gql_len(node, "Directives");

	/* UniqueDirectivesPerLocation */
	{
		struct gql_map seen = { 0 };

		for (size_t i = 0; i < n && !c->failed; i++) {
			const struct axv *d = gql_at(node, "Directives", i);
			const char *name = gql_str(d, "Name");
			const struct axv *def = gql_map_get(&c->s->dirs, name);

			if (def != NULL && gql_bool(def, "IsRepeatable"))
				continue;
			if (gql_map_get(&seen, name) != NULL)
				fail(c, d,
				    "The directive \"@%s\" can only be used "
				    "once "
				    "at this location.",
				    name);
			gql_map_put(&seen, name, (void *)d);
		}
		gql_map_free(&seen);
	}
	for (size_t i = 0; i < n && !c->failed; i++) {
		const struct axv *d = gql_at(node, "Directives", i);
		const char *name = gql_str(d, "Name");
		const struct axv *def = gql_map_get(&c->s->dirs, name);
		bool ok = false;

		walk_args(c, d, def);
		/* KnownArgumentNames */
		for (size_t j = 0; def != NULL && j < gql_len(d, "Arguments");
		     j++) {
			const struct axv *a = gql_at(d, "Arguments", j);

			if (gql_list_named(c->s, def, "Arguments",
				gql_str(a, "Name")) == NULL &&
			    fail(c, d,
				"Unknown argument \"%s\" on directive \"@%s\".",
				gql_str(a, "Name"), name)) {
				struct gql_vec names = { 0 };

				names_of(&names, def, "Arguments");
				suggest(c, "Did you mean", gql_str(a, "Name"),
				    &names, true);
				free(names.items);
			}
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
	if ((f = gql_type_field(parent, name)) != NULL)
		return f;
	if (parent == c->s->query)
		return gql_list_named(c->s,
		    gql_at(c->s->meta, "Definitions", 0), "Fields", name);
	return NULL;
}

/* gqlparser's PossibleFragmentSpreads: may an object of type parent ever
 * be of the fragment's type tn? */
static bool
spread_possible(struct vctx *c, const struct gql_type *parent, const char *tn)
{
	const struct gql_type *ft = type_named(c, tn);

	if (parent == NULL || ft == NULL || !is_composite(ft))
		return true;
	if (strcmp(parent->kind, "OBJECT") != 0 &&
	    strcmp(parent->kind, "INTERFACE") != 0 &&
	    strcmp(parent->kind, "UNION") != 0)
		return true;
	for (size_t i = 0; i < ft->possible.len; i++) {
		const struct gql_type *t = ft->possible.items[i];

		if (strcmp(parent->kind, "OBJECT") == 0
			? strcmp(parent->name, t->name) == 0
			: gql_type_possible(parent, t->name))
			return true;
	}
	return false;
}

/* FieldsOnCorrectType's suggestions: on an abstract type, the types
 * where the field is (interfaces used most first, then by name); else
 * fields with a name close to it. */
static void
suggest_field(struct vctx *c, const struct gql_type *parent, const char *name)
{
	struct gql_vec names = { 0 };

	if (strcmp(parent->kind, "INTERFACE") == 0 ||
	    strcmp(parent->kind, "UNION") == 0) {
		struct gql_map uses = { 0 };
		struct gql_vec ifaces = { 0 }, objs = { 0 };

		for (size_t i = 0; i < parent->possible.len; i++) {
			const struct gql_type *pt = parent->possible.items[i];

			if (gql_type_field(pt, name) == NULL)
				continue;
			gql_vec_push(&objs, pt->name);
			for (size_t j = 0; j < pt->ifaces.len; j++) {
				const char *in = pt->ifaces.items[j];
				const struct gql_type *it = type_named(c, in);
				uintptr_t u;

				if (it == NULL ||
				    gql_type_field(it, name) == NULL)
					continue;
				u = (uintptr_t)gql_map_get(&uses, in);
				if (u == 0)
					gql_vec_push(&ifaces, in);
				gql_map_put(&uses, in, (void *)(u + 1));
			}
		}
		for (size_t i = 0; i < objs.len; i++)
			gql_vec_push(&ifaces, objs.items[i]);
		/* insertion sort: stable, and the lists are short */
		for (size_t i = 1; i < ifaces.len; i++) {
			for (size_t j = i; j > 0; j--) {
				const char *a = ifaces.items[j - 1];
				const char *b = ifaces.items[j];
				uintptr_t ua = (uintptr_t)gql_map_get(&uses, a);
				uintptr_t ub = (uintptr_t)gql_map_get(&uses, b);

				if (ub > ua || (ub == ua && strcmp(b, a) < 0)) {
					ifaces.items[j - 1] = b;
					ifaces.items[j] = a;
				} else {
					break;
				}
			}
		}
		append_or_list(c, "Did you mean to use an inline fragment on",
		    &ifaces, true);
		gql_map_free(&uses);
		free(objs.items);
		if (ifaces.len > 0) {
			free(ifaces.items);
			return;
		}
		free(ifaces.items);
	}
	if (strcmp(parent->kind, "OBJECT") != 0 &&
	    strcmp(parent->kind, "INTERFACE") != 0)
		return;
	names_of_vec(&names, &parent->fields);
	suggest(c, "Did you mean", name, &names, true);
	free(names.items);
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
	walk_args(c, f, def);
	walk_directives(c, f, "FIELD");
	walk_selections(c, next, f);
	if (c->failed)
		return;
	/* FieldsOnCorrectType */
	if (parent != NULL && def == NULL && !typename) {
		if (fail(c, f, "Cannot query field \"%s\" on type \"%s\".",
			name, parent->name))
			suggest_field(c, parent, name);
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

			if (gql_list_named(c->s, def, "Arguments",
				gql_str(a, "Name")) == NULL) {
				struct gql_vec names = { 0 };

				if (fail(c, f,
					"Unknown argument \"%s\" on field "
					"\"%s.%s\".",
					gql_str(a, "Name"), parent->name,
					name)) {
					names_of(&names, def, "Arguments");
					suggest(c, "Did you mean",
					    gql_str(a, "Name"), &names, true);
				}
				free(names.items);
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
	if (++c->steps > GQL_MAX_STEPS) {
		fail(c, sel, "validation visits more than %d selections",
		    GQL_MAX_STEPS);
		return;
	}
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
		else if (!spread_possible(c, parent, tn))
			fail(c, sel,
			    "Fragment cannot be spread here as objects of type "
			    "\"%s\" can never be of type \"%s\".",
			    parent->name, tn);
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
		else if (!spread_possible(c, parent,
			     gql_str(fd, "TypeCondition")))
			fail(c, sel,
			    "Fragment \"%s\" cannot be spread here as objects "
			    "of "
			    "type \"%s\" can never be of type \"%s\".",
			    name, parent->name, gql_str(fd, "TypeCondition"));
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

/* The distinct top level field names of a subscription, through inline
 * fragments and (once each) fragment spreads. */
struct top_fields {
	struct vctx *c;
	char buf[300]; /* "Anonymous Subscription" or "Subscription \"N\"" */
	struct gql_map frags, names;
	struct gql_vec list; /* field nodes, one per name */
};

static void
top_fields(struct top_fields *tf, const struct axv *node, int depth)
{
	struct vctx *c = tf->c;

	if (depth == 0) {
		const char *n = gql_str(node, "Name");

		if (*n != '\0')
			snprintf(tf->buf, sizeof(tf->buf),
			    "Subscription \"%s\"", n);
		else
			snprintf(tf->buf, sizeof(tf->buf),
			    "Anonymous Subscription");
	}
	if (depth > WALK_MAX_DEPTH)
		return;
	for (size_t i = 0; i < gql_len(node, "SelectionSet") && !c->failed;
	     i++) {
		const struct axv *s = gql_at(node, "SelectionSet", i);
		const char *name = gql_str(s, "Name");

		if (++c->steps > GQL_MAX_STEPS) {
			fail(c, s, "validation visits more than %d selections",
			    GQL_MAX_STEPS);
			return;
		}
		if (axv_object_gets(s, "Alias") != NULL) {
			if (gql_map_get(&tf->names, name) == NULL) {
				gql_map_put(&tf->names, name, (void *)s);
				gql_vec_push(&tf->list, s);
			}
		} else if (axv_object_gets(s, "TypeCondition") != NULL) {
			top_fields(tf, s, depth + 1);
		} else {
			const struct axv *fd = gql_map_get(&c->frags, name);

			if (fd == NULL)
				return;
			if (gql_map_get(&tf->frags, name) == NULL) {
				gql_map_put(&tf->frags, name, (void *)fd);
				top_fields(tf, fd, depth + 1);
			}
		}
	}
}

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

		struct expect e = { 0 };

		e.type = gql_node(vd, "Type");
		e.def = type_named(c, gql_type_name(e.type));
		walk_value(c, gql_node(vd, "DefaultValue"), &e, 0);
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
	/* SingleFieldSubscriptions */
	if (c->s->subscription != NULL && strcmp(kind, "subscription") == 0) {
		struct top_fields tf = { .c = c };

		top_fields(&tf, op, 0);
		if (tf.list.len > 1)
			fail(c, tf.list.items[1],
			    "%s must select only one top level field.", tf.buf);
		for (size_t i = 0; i < tf.list.len; i++)
			if (strncmp(gql_str(tf.list.items[i], "Name"), "__",
				2) == 0)
				fail(c, tf.list.items[i],
				    "%s must not select an introspection top "
				    "level field.",
				    tf.buf);
		gql_map_free(&tf.frags);
		gql_map_free(&tf.names);
		free(tf.list.items);
		if (c->failed)
			return;
	}
	/* UniqueOperationNames */
	if (*gql_str(op, "Name") != '\0' &&
	    gql_map_get(&c->opnames, gql_str(op, "Name")) != op) {
		fail(c, op, "There can be only one operation named \"%s\".",
		    gql_str(op, "Name"));
		return;
	}
	/* UniqueVariableNames */
	{
		const struct axv *vd =
		    gql_first_dup(op, "VariableDefinitions", "Variable");

		if (vd != NULL)
			fail(c, vd,
			    "There can be only one variable named \"$%s\".",
			    gql_str(vd, "Variable"));
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
walk_fragment(struct vctx *c, const struct axv *fd)
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
	if (gql_map_get(&c->frags, name) != fd)
		fail(c, fd, "There can be only one fragment named \"%s\".",
		    name);
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
	for (size_t i = 0; i < nops; i++) {
		const struct axv *o = gql_at(doc, "Operations", i);

		if (gql_map_get(&c.opnames, gql_str(o, "Name")) == NULL)
			gql_map_put(&c.opnames, gql_str(o, "Name"), (void *)o);
	}
	for (size_t i = 0; i < nops && !c.failed; i++)
		walk_operation(&c, gql_at(doc, "Operations", i), nops);
	c.op = NULL;
	c.in_fragment_defs = true;
	for (size_t i = 0; i < nfrags && !c.failed; i++)
		walk_fragment(&c, gql_at(doc, "Fragments", i));
	gql_map_free(&c.frags);
	gql_map_free(&c.spread);
	gql_map_free(&c.visited);
	gql_map_free(&c.used_vars);
	gql_map_free(&c.cycle_done);
	gql_map_free(&c.opnames);
	return c.failed ? -1 : 0;
}
