/*
 * graphql-validate.c: checking a query document against a schema.
 *
 * The walk is gqlparser's (validator/walk.go): operations in order, each
 * with the fragments it spreads (once each), then the fragment definitions;
 * a field's checks run after its sub-selections, an operation's after its
 * selections.  The rules are gqlparser's, in its order, and the first error
 * found is the one reported (OPA reports only the first).
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
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

struct vctx;

struct overlap {
	struct vctx *c;
	struct gql_map pairs;	 /* "A\nB" -> 1 (not exclusive) or 2 */
	struct gql_vec keys;	 /* the pair keys, owned */
	struct gql_map compared; /* fragments compared with a field set */
};

struct finfo;

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
	size_t steps;	       /* selections visited, against GQL_MAX_STEPS */
	size_t pairs;	       /* fields compared, against GQL_MAX_PAIRS */
	struct gql_pmap finfo; /* field node -> struct finfo */
	struct overlap overlap;
	struct axv *string_type; /* the type of __typename */
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
	const struct axv *k = v != NULL ? axv_object_gets(v, "Kind") : NULL;
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

/* Does the integer literal s fit a signed integer of bits bits (Go's
 * strconv.ParseInt(s, 10, bits) without a range error)? */
static bool
int_fits(const char *s, int bits)
{
	bool neg = *s == '-';
	uint64_t v = 0,
		 lim = bits == 32 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX;

	if (neg || *s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v <= lim + (neg ? 1 : 0);
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
	if ((strcmp(t, "Int") == 0 || strcmp(t, "Int!") == 0) &&
	    value_kind(v) == VK_INT && !int_fits(gql_str(v, "Raw"), 32))
		fail(c, v,
		    "Int cannot represent non 32-bit signed integer value: %s",
		    vs);
	else if (strcmp(t, "Int") == 0 || strcmp(t, "Int!") == 0)
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
	/* gqlparser reads the value first: an integer beyond 64 bits or a
	 * float beyond a double is of the wrong type whatever is expected */
	if ((kind == VK_INT && !int_fits(gql_str(v, "Raw"), 64)) ||
	    (kind == VK_FLOAT && isinf(strtod(gql_str(v, "Raw"), NULL)))) {
		wrong_type(c, v, e);
		return;
	}
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

/* ---- OverlappingFieldsCanBeMerged (gqlparser's port of graphql-js) ---- */

/* What the walk learnt of a field: its definition's type and the type it
 * was selected on (gqlparser's Field.Definition and ObjectDefinition). */
struct finfo {
	const struct axv *field;
	const struct axv *type;
	const struct gql_type *parent;
};

static void
finfo_put(struct vctx *c, const struct axv *f, const struct axv *type,
    const struct gql_type *parent)
{
	struct finfo *fi = gql_pmap_get(&c->finfo, f);

	if (fi == NULL) {
		fi = axg_calloc(1, sizeof(*fi));
		gql_pmap_put(&c->finfo, f, fi);
	}
	*fi = (struct finfo){ f, type, parent };
}

static const struct finfo *
finfo_get(const struct vctx *c, const struct axv *f)
{
	return gql_pmap_get(&c->finfo, f);
}

/* The fields of a selection set by response name (in first-seen order),
 * through inline fragments, and its fragment spreads. */
struct fieldset {
	struct gql_map byname; /* response name -> struct gql_vec * */
	struct gql_vec names;  /* response names, first-seen order */
	struct gql_vec spreads;
};

static void
collect(struct vctx *c, struct fieldset *fs, const struct axv *node, int depth)
{
	if (depth > GQL_MAX_DEPTH * 4)
		return;
	for (size_t i = 0; i < gql_len(node, "SelectionSet") && !c->failed;
	     i++) {
		const struct axv *s = gql_at(node, "SelectionSet", i);

		if (++c->steps > GQL_MAX_STEPS) {
			fail(c, s, "validation visits more than %d selections",
			    GQL_MAX_STEPS);
			return;
		}
		if (axv_object_gets(s, "Alias") != NULL) {
			const char *rn = *gql_str(s, "Alias") != '\0'
			    ? gql_str(s, "Alias")
			    : gql_str(s, "Name");
			struct gql_vec *v = gql_map_get(&fs->byname, rn);

			if (v == NULL) {
				v = axg_calloc(1, sizeof(*v));
				gql_map_put(&fs->byname, rn, v);
				gql_vec_push(&fs->names, rn);
			}
			gql_vec_push(v, s);
		} else if (axv_object_gets(s, "TypeCondition") != NULL) {
			collect(c, fs, s, depth + 1);
		} else {
			gql_vec_push(&fs->spreads, s);
		}
	}
}

static void
fieldset_free(struct fieldset *fs)
{
	for (size_t i = 0; i < fs->names.len; i++) {
		struct gql_vec *v =
		    gql_map_get(&fs->byname, fs->names.items[i]);

		free(v->items);
		free(v);
	}
	gql_map_free(&fs->byname);
	free(fs->names.items);
	free(fs->spreads.items);
	memset(fs, 0, sizeof(*fs));
}

/* A conflict, with the conflicts of sub-fields that make it. */
struct conflict {
	const char *resp;
	char *msg; /* NULL when subs say why */
	struct gql_vec subs;
	const struct axv *at;
};

static void
conflict_free(struct conflict *k)
{
	for (size_t i = 0; i < k->subs.len; i++)
		conflict_free((struct conflict *)k->subs.items[i]);
	free(k->subs.items);
	free(k->msg);
	free(k);
}

static void
conflicts_free(struct gql_vec *v)
{
	for (size_t i = 0; i < v->len; i++)
		conflict_free((struct conflict *)v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

static void
conflict_string(const struct conflict *k, struct axg_buf *b, int depth)
{
	if (k->subs.len == 0 || depth > GQL_MAX_DEPTH * 4) {
		axg_buf_puts(b, k->msg != NULL ? k->msg : "");
		return;
	}
	for (size_t i = 0; i < k->subs.len; i++) {
		const struct conflict *s = k->subs.items[i];

		axg_buf_printf(b, "subfields \"%s\" conflict because ",
		    s->resp);
		conflict_string(s, b, depth + 1);
		if (i + 1 < k->subs.len)
			axg_buf_puts(b, " and ");
	}
}

static const struct axv *
spread_def(struct overlap *m, const struct axv *spread)
{
	return gql_map_get(&m->c->frags, gql_str(spread, "Name"));
}

static void between(struct overlap *m, struct gql_vec *out, bool excl,
    struct fieldset *a, struct fieldset *b, int depth);

static bool
same_arguments(const struct axv *f1, const struct axv *f2)
{
	size_t n1 = gql_len(f1, "Arguments"), n2 = gql_len(f2, "Arguments");

	if (n1 != n2)
		return false;
	for (size_t i = 0; i < n1; i++) {
		const struct axv *a1 = gql_at(f1, "Arguments", i);
		const struct axv *v1 = gql_node(a1, "Value");
		bool matched = false;

		for (size_t j = 0; j < n2 && !matched; j++) {
			const struct axv *a2 = gql_at(f2, "Arguments", j);
			const struct axv *v2 = gql_node(a2, "Value");

			matched = strcmp(gql_str(a1, "Name"),
				      gql_str(a2, "Name")) == 0 &&
			    value_kind(v1) == value_kind(v2) &&
			    strcmp(gql_str(v1, "Raw"), gql_str(v2, "Raw")) == 0;
		}
		if (!matched)
			return false;
	}
	return true;
}

static bool
types_conflict(struct vctx *c, const struct axv *t1, const struct axv *t2,
    int depth)
{
	const struct axv *e1 = gql_node(t1, "Elem"), *e2 = gql_node(t2, "Elem");
	const struct gql_type *d1, *d2;

	if (depth > GQL_MAX_DEPTH)
		return false;
	if (e1 != NULL)
		return e2 == NULL || types_conflict(c, e1, e2, depth + 1);
	if (e2 != NULL)
		return true;
	if (gql_bool(t1, "NonNull") != gql_bool(t2, "NonNull"))
		return true;
	d1 = type_named(c, gql_str(t1, "NamedType"));
	d2 = type_named(c, gql_str(t2, "NamedType"));
	if (d1 != NULL && d2 != NULL && is_leaf(d1) && is_leaf(d2))
		return strcmp(d1->name, d2->name) != 0;
	return false;
}

/* Comparing fields pairwise is quadratic: bound the comparisons. */
static bool
overlap_budget(struct vctx *c, const struct axv *at)
{
	if (c->failed)
		return false;
	if (++c->pairs <= GQL_MAX_PAIRS)
		return true;
	fail(c, at, "validation compares more than %d pairs of fields",
	    GQL_MAX_PAIRS);
	return false;
}

static struct conflict *
new_conflict(const char *resp, const struct axv *at, char *msg)
{
	struct conflict *k = axg_calloc(1, sizeof(*k));

	k->resp = resp;
	k->at = at;
	k->msg = msg;
	return k;
}

static void sub_selections(struct overlap *m, struct gql_vec *out, bool excl,
    const struct axv *a, const struct axv *b, int depth);

static struct conflict *
find_conflict(struct overlap *m, bool parent_excl, const struct axv *fa,
    const struct axv *fb, int depth)
{
	struct vctx *c = m->c;
	const struct finfo *ia = finfo_get(c, fa), *ib = finfo_get(c, fb);
	const char *resp;
	bool excl = parent_excl;
	struct gql_vec subs = { 0 };
	struct conflict *k;

	if (ia == NULL || ib == NULL || !overlap_budget(c, fb))
		return NULL;
	if (depth > WALK_MAX_DEPTH) {
		fail(c, fb, "selections nested deeper than %d", WALK_MAX_DEPTH);
		return NULL;
	}
	if (!excl)
		excl = ia->parent != ib->parent &&
		    strcmp(ia->parent->kind, "OBJECT") == 0 &&
		    strcmp(ib->parent->kind, "OBJECT") == 0;
	resp = *gql_str(fa, "Alias") != '\0' ? gql_str(fa, "Alias")
					     : gql_str(fa, "Name");
	if (!excl) {
		if (strcmp(gql_str(fa, "Name"), gql_str(fb, "Name")) != 0)
			return new_conflict(resp, fb,
			    axg_asprintf("%s and %s are different fields",
				gql_str(fa, "Name"), gql_str(fb, "Name")));
		if (!same_arguments(fa, fb))
			return new_conflict(resp, fb,
			    axg_strdup("they have differing arguments"));
	}
	if (types_conflict(c, ia->type, ib->type, 0)) {
		char *t1 = type_str(ia->type), *t2 = type_str(ib->type);

		k = new_conflict(resp, fb,
		    axg_asprintf("they return conflicting types %s and %s", t1,
			t2));
		free(t1);
		free(t2);
		return k;
	}
	if (gql_len(fa, "SelectionSet") == 0 &&
	    gql_len(fb, "SelectionSet") == 0)
		return NULL;
	sub_selections(m, &subs, excl, fa, fb, depth + 1);
	if (subs.len == 0) {
		free(subs.items);
		return NULL;
	}
	k = new_conflict(resp, fb, NULL);
	k->subs = subs;
	return k;
}

static void
push_conflict(struct gql_vec *out, struct conflict *k)
{
	if (k != NULL)
		gql_vec_push(out, k);
}

/* collectConflictsBetween */
static void
between(struct overlap *m, struct gql_vec *out, bool excl, struct fieldset *a,
    struct fieldset *b, int depth)
{
	for (size_t i = 0; i < a->names.len && !m->c->failed; i++) {
		const struct gql_vec *fa =
		    gql_map_get(&a->byname, a->names.items[i]);
		const struct gql_vec *fb =
		    gql_map_get(&b->byname, a->names.items[i]);

		for (size_t x = 0; fb != NULL && x < fa->len && !m->c->failed;
		     x++)
			for (size_t y = 0; y < fb->len && !m->c->failed; y++)
				push_conflict(out,
				    find_conflict(m, excl, fa->items[x],
					fb->items[y], depth));
	}
}

static bool
same_fieldset(const struct fieldset *a, const struct fieldset *b)
{
	if (a->names.len != b->names.len)
		return false;
	for (size_t i = 0; i < a->names.len; i++) {
		const struct gql_vec *va =
		    gql_map_get(&a->byname, a->names.items[i]);
		const struct gql_vec *vb =
		    gql_map_get(&b->byname, a->names.items[i]);

		if (strcmp(a->names.items[i], b->names.items[i]) != 0 ||
		    vb == NULL || va->len != vb->len ||
		    memcmp(va->items, vb->items, va->len * sizeof(*va->items)))
			return false;
	}
	return true;
}

/* collectConflictsBetweenFieldsAndFragment */
static void
fields_and_fragment(struct overlap *m, struct gql_vec *out, bool excl,
    struct fieldset *fs, const struct axv *spread, int depth)
{
	const char *name = gql_str(spread, "Name");
	const struct axv *fd;
	struct fieldset fb = { 0 };

	if (gql_map_get(&m->compared, name) != NULL ||
	    !overlap_budget(m->c, spread))
		return;
	gql_map_put(&m->compared, name, (void *)spread);
	if ((fd = spread_def(m, spread)) == NULL)
		return;
	if (depth > WALK_MAX_DEPTH) {
		fail(m->c, spread, "fragment spreads nested deeper than %d",
		    WALK_MAX_DEPTH);
		return;
	}
	collect(m->c, &fb, fd, 0);
	if (!same_fieldset(fs, &fb)) {
		between(m, out, excl, fs, &fb, depth);
		for (size_t i = 0; i < fb.spreads.len && !m->c->failed; i++) {
			const struct axv *s = fb.spreads.items[i];

			if (strcmp(gql_str(s, "Name"), name) != 0)
				fields_and_fragment(m, out, excl, fs, s,
				    depth + 1);
		}
	}
	fieldset_free(&fb);
}

/* comparedFragmentPairs: has (a, b) been compared, with exclusivity
 * excl or with none? */
static bool
pair_seen(struct overlap *m, const char *a, const char *b, bool excl)
{
	char *key = axg_asprintf("%s\n%s", a, b);
	uintptr_t v = (uintptr_t)gql_map_get(&m->pairs, key);

	free(key);
	if (v == 0)
		return false;
	return excl ? true : v == 1;
}

static void
pair_set(struct overlap *m, const char *a, const char *b, bool excl)
{
	char *key = axg_asprintf("%s\n%s", a, b);
	bool had = gql_map_get(&m->pairs, key) != NULL;

	/* an existing entry keeps its key; only the value changes */
	gql_map_put(&m->pairs, key, (void *)(uintptr_t)(excl ? 2 : 1));
	if (had)
		free(key);
	else
		gql_vec_push(&m->keys, key);
}

/* collectConflictsBetweenFragments */
static void
fragments_between(struct overlap *m, struct gql_vec *out, bool excl,
    const struct axv *sa, const struct axv *sb, int depth)
{
	const char *na = gql_str(sa, "Name"), *nb = gql_str(sb, "Name");
	const struct axv *da, *db;
	struct fieldset fa = { 0 }, fb = { 0 };

	if (strcmp(na, nb) == 0 || !overlap_budget(m->c, sb) ||
	    pair_seen(m, na, nb, excl))
		return;
	pair_set(m, na, nb, excl);
	pair_set(m, nb, na, excl);
	if ((da = spread_def(m, sa)) == NULL ||
	    (db = spread_def(m, sb)) == NULL)
		return;
	if (depth > WALK_MAX_DEPTH) {
		fail(m->c, sb, "fragment spreads nested deeper than %d",
		    WALK_MAX_DEPTH);
		return;
	}
	collect(m->c, &fa, da, 0);
	collect(m->c, &fb, db, 0);
	between(m, out, excl, &fa, &fb, depth);
	for (size_t i = 0; i < fb.spreads.len && !m->c->failed; i++)
		fragments_between(m, out, excl, sa, fb.spreads.items[i],
		    depth + 1);
	for (size_t i = 0; i < fa.spreads.len && !m->c->failed; i++)
		fragments_between(m, out, excl, fa.spreads.items[i], sb,
		    depth + 1);
	fieldset_free(&fa);
	fieldset_free(&fb);
}

/* findConflictsBetweenSubSelectionSets */
static void
sub_selections(struct overlap *m, struct gql_vec *out, bool excl,
    const struct axv *a, const struct axv *b, int depth)
{
	struct fieldset fa = { 0 }, fb = { 0 };

	collect(m->c, &fa, a, 0);
	collect(m->c, &fb, b, 0);
	between(m, out, excl, &fa, &fb, depth);
	for (size_t i = 0; i < fb.spreads.len && !m->c->failed; i++) {
		gql_map_free(&m->compared);
		fields_and_fragment(m, out, excl, &fa, fb.spreads.items[i],
		    depth);
	}
	for (size_t i = 0; i < fa.spreads.len && !m->c->failed; i++) {
		gql_map_free(&m->compared);
		fields_and_fragment(m, out, excl, &fb, fa.spreads.items[i],
		    depth);
	}
	for (size_t i = 0; i < fa.spreads.len && !m->c->failed; i++)
		for (size_t j = 0; j < fb.spreads.len && !m->c->failed; j++)
			fragments_between(m, out, excl, fa.spreads.items[i],
			    fb.spreads.items[j], depth);
	fieldset_free(&fa);
	fieldset_free(&fb);
}

/* findConflictsWithinSelectionSet, reporting the first conflict. */
static void
overlap_within(struct vctx *c, const struct axv *node)
{
	struct overlap *m = &c->overlap;
	struct fieldset fs = { 0 };
	struct gql_vec out = { 0 };

	if (c->failed || gql_len(node, "SelectionSet") == 0)
		return;
	m->c = c;
	collect(c, &fs, node, 0);
	for (size_t i = 0; i < fs.names.len && !c->failed; i++) {
		const struct gql_vec *v =
		    gql_map_get(&fs.byname, fs.names.items[i]);

		for (size_t x = 0; x < v->len && !c->failed; x++)
			for (size_t y = x + 1; y < v->len && !c->failed; y++)
				push_conflict(&out,
				    find_conflict(m, false, v->items[x],
					v->items[y], 0));
	}
	gql_map_free(&m->compared);
	for (size_t i = 0; i < fs.spreads.len && !c->failed; i++) {
		fields_and_fragment(m, &out, false, &fs, fs.spreads.items[i],
		    0);
		for (size_t j = i + 1; j < fs.spreads.len && !c->failed; j++)
			fragments_between(m, &out, false, fs.spreads.items[i],
			    fs.spreads.items[j], 0);
	}
	if (out.len > 0 && !c->failed) {
		const struct conflict *k = out.items[0];
		struct axg_buf b;

		axg_buf_init(&b, 0);
		conflict_string(k, &b, 0);
		axg_buf_putc(&b, 0);
		fail(c, k->at,
		    "Fields \"%s\" conflict because %s. Use different aliases "
		    "on the fields to fetch both if this was intentional.",
		    k->resp, b.data);
		axg_buf_free(&b);
	}
	conflicts_free(&out);
	fieldset_free(&fs);
}

static void
overlap_free(struct overlap *m)
{
	for (size_t i = 0; i < m->keys.len; i++)
		free((void *)m->keys.items[i]);
	free(m->keys.items);
	gql_map_free(&m->pairs);
	gql_map_free(&m->compared);
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
	if (parent != NULL && def != NULL)
		finfo_put(c, f, gql_node(def, "Type"), parent);
	else if (parent != NULL && typename)
		finfo_put(c, f, c->string_type, parent);
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
	}
	/* OverlappingFieldsCanBeMerged */
	if (c->op != NULL)
		overlap_within(c, f);
	if (def != NULL) {
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
		overlap_within(c, sel);
		if (!c->failed && !spread_possible(c, parent, tn))
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
	/* OverlappingFieldsCanBeMerged */
	overlap_within(c, op);
	if (c->failed)
		return;
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
	/* OverlappingFieldsCanBeMerged */
	overlap_within(c, fd);
	if (c->failed)
		return;
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
	c.string_type = axv_object_new(2);
	axv_object_put(c.string_type, axv_cstr("NamedType"),
	    axv_cstr("String"));
	axv_object_put(c.string_type, axv_cstr("NonNull"), axv_bool(false));
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
	overlap_free(&c.overlap);
	for (size_t i = 0; i < c.finfo.cap; i++)
		free(c.finfo.vals[i]);
	gql_pmap_free(&c.finfo);
	axv_unref(c.string_type);
	return c.failed ? -1 : 0;
}
