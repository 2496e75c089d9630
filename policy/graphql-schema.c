/*
 * graphql-schema.c: loading a GraphQL schema document as gqlparser's
 * ValidateSchemaDocument does (with its prelude of built-in types and
 * directives merged in first), and reading documents given as objects.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"
#include "policy/graphql-int.h"

/* gqlparser's prelude, without the descriptions (they never matter to
 * validation, and OPA does not return the prelude). */
static const char prelude[] =
    "scalar Int\nscalar Float\nscalar String\nscalar Boolean\nscalar ID\n"
    "directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | "
    "INLINE_FRAGMENT\n"
    "directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | "
    "INLINE_FRAGMENT\n"
    "directive @deprecated(reason: String = \"No longer supported\") on "
    "FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | "
    "ENUM_VALUE\n"
    "directive @specifiedBy(url: String!) on SCALAR\n"
    "type __Schema { description: String types: [__Type!]! queryType: "
    "__Type! mutationType: __Type subscriptionType: __Type directives: "
    "[__Directive!]! }\n"
    "type __Type { kind: __TypeKind! name: String description: String "
    "fields(includeDeprecated: Boolean = false): [__Field!] interfaces: "
    "[__Type!] possibleTypes: [__Type!] enumValues(includeDeprecated: "
    "Boolean = false): [__EnumValue!] inputFields: [__InputValue!] "
    "ofType: __Type specifiedBy: String }\n"
    "type __Field { name: String! description: String args: "
    "[__InputValue!]! type: __Type! isDeprecated: Boolean! "
    "deprecationReason: String }\n"
    "type __InputValue { name: String! description: String type: __Type! "
    "defaultValue: String }\n"
    "type __EnumValue { name: String! description: String isDeprecated: "
    "Boolean! deprecationReason: String }\n"
    "enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT "
    "LIST NON_NULL }\n"
    "type __Directive { name: String! description: String locations: "
    "[__DirectiveLocation!]! args: [__InputValue!]! isRepeatable: "
    "Boolean! }\n"
    "enum __DirectiveLocation { QUERY MUTATION SUBSCRIPTION FIELD "
    "FRAGMENT_DEFINITION FRAGMENT_SPREAD INLINE_FRAGMENT "
    "VARIABLE_DEFINITION SCHEMA SCALAR OBJECT FIELD_DEFINITION "
    "ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE INPUT_OBJECT "
    "INPUT_FIELD_DEFINITION }\n";

/* The fields gqlparser adds to the query root type. */
static const char meta[] =
    "type Q { __schema: __Schema! __type(name: String!): __Type }";

/* ---- small helpers over document nodes ---- */

const char *
gql_str(const struct axv *node, const char *key)
{
	const struct axv *v = node != NULL && axv_kind(node) == AXV_OBJECT
	    ? axv_object_gets(node, key)
	    : NULL;

	return v != NULL && axv_kind(v) == AXV_STRING ? axv_str(v) : "";
}

bool
gql_bool(const struct axv *node, const char *key)
{
	const struct axv *v = node != NULL && axv_kind(node) == AXV_OBJECT
	    ? axv_object_gets(node, key)
	    : NULL;

	return v != NULL && axv_kind(v) == AXV_BOOL && axv_bool_get(v);
}

const struct axv *
gql_node(const struct axv *node, const char *key)
{
	const struct axv *v = node != NULL && axv_kind(node) == AXV_OBJECT
	    ? axv_object_gets(node, key)
	    : NULL;

	return v != NULL && axv_kind(v) == AXV_OBJECT ? v : NULL;
}

size_t
gql_len(const struct axv *node, const char *key)
{
	const struct axv *v = node != NULL && axv_kind(node) == AXV_OBJECT
	    ? axv_object_gets(node, key)
	    : NULL;

	return v != NULL && axv_kind(v) == AXV_ARRAY ? axv_array_len(v) : 0;
}

const struct axv *
gql_at(const struct axv *node, const char *key, size_t i)
{
	return axv_array_get(axv_object_gets(node, key), i);
}

void
gql_pos(const struct axv *node, int *line, int *col)
{
	const struct axv *p = node != NULL && axv_kind(node) == AXV_OBJECT
	    ? axv_object_gets(node, "Position")
	    : NULL;
	int64_t l = -1, c = -1;

	if (p != NULL && axv_kind(p) == AXV_ARRAY && axv_array_len(p) == 2) {
		axv_num_get_i64(axv_array_get(p, 0), &l);
		axv_num_get_i64(axv_array_get(p, 1), &c);
	}
	*line = (int)l;
	*col = (int)c;
}

void
gql_errat(struct gql_err *err, const struct axv *node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	gql_pos(node, &err->line, &err->col);
}

/* The innermost named type of a type reference. */
const char *
gql_type_name(const struct axv *t)
{
	for (int i = 0; t != NULL && i <= GQL_MAX_DEPTH + 1; i++) {
		const struct axv *e = gql_node(t, "Elem");

		if (e == NULL)
			return gql_str(t, "NamedType");
		t = e;
	}
	return "";
}

void
gql_type_string(const struct axv *t, struct axg_buf *b, int depth)
{
	const struct axv *e = gql_node(t, "Elem");

	if (t == NULL || depth > GQL_MAX_DEPTH)
		return;
	if (*gql_str(t, "NamedType") != '\0' || e == NULL) {
		axg_buf_puts(b, gql_str(t, "NamedType"));
	} else {
		axg_buf_putc(b, '[');
		gql_type_string(e, b, depth + 1);
		axg_buf_putc(b, ']');
	}
	if (gql_bool(t, "NonNull"))
		axg_buf_putc(b, '!');
}

/* ---- a string map ---- */

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void *
gql_map_get(const struct gql_map *m, const char *key)
{
	if (m->cap == 0)
		return NULL;
	for (size_t i = hash_str(key) & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == NULL)
			return NULL;
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
	}
}

void
gql_map_put(struct gql_map *m, const char *key, void *val)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap) {
		struct gql_map n = { 0 };

		n.cap = m->cap ? m->cap * 2 : 16;
		n.keys = axg_calloc(n.cap, sizeof(*n.keys));
		n.vals = axg_calloc(n.cap, sizeof(*n.vals));
		for (i = 0; i < m->cap; i++)
			if (m->keys[i] != NULL)
				gql_map_put(&n, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	for (i = hash_str(key) & (m->cap - 1); m->keys[i] != NULL;
	     i = (i + 1) & (m->cap - 1)) {
		if (strcmp(m->keys[i], key) == 0) {
			m->vals[i] = val;
			return;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
}

void
gql_map_free(struct gql_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void
gql_vec_push(struct gql_vec *v, const void *p)
{
	if (v->len == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4;
		v->items =
		    axg_reallocarray(v->items, v->cap, sizeof(*v->items));
	}
	v->items[v->len++] = p;
}

static void
vec_push_list(struct gql_vec *v, const struct axv *node, const char *key,
    bool strings)
{
	for (size_t i = 0; i < gql_len(node, key); i++) {
		const struct axv *e = gql_at(node, key, i);

		if (strings)
			gql_vec_push(v,
			    axv_kind(e) == AXV_STRING ? axv_str(e) : "");
		else if (axv_kind(e) == AXV_OBJECT)
			gql_vec_push(v, e);
	}
}

/* ---- loading ---- */

static struct gql_type *
add_type(struct gql_schema *s, const char *name, const char *kind,
    const struct axv *node, bool builtin)
{
	struct gql_type *t = axg_calloc(1, sizeof(*t));

	t->name = name;
	t->kind = kind;
	t->node = node;
	t->builtin = builtin;
	gql_map_put(&s->types, name, t);
	gql_vec_push(&s->all, t);
	return t;
}

static void
add_possible(struct gql_schema *s, const char *name, struct gql_type *t)
{
	struct gql_type *owner = gql_map_get(&s->types, name);

	/* gqlparser keeps possible types of undefined names too; only the
	 * defined ones can ever be looked up */
	if (owner != NULL && t != NULL)
		gql_vec_push(&owner->possible, t);
}

const struct axv *
gql_type_field(const struct gql_type *t, const char *name)
{
	return gql_map_get(&t->fmap, name);
}

const struct axv *
gql_type_enum(const struct gql_type *t, const char *name)
{
	return gql_map_get(&t->emap, name);
}

bool
gql_type_possible(const struct gql_type *t, const char *name)
{
	return gql_map_get(&t->pmap, name) != NULL;
}

static void
map_first(struct gql_map *m, const char *name, const void *val)
{
	if (gql_map_get(m, name) == NULL)
		gql_map_put(m, name, (void *)val);
}

#define SHORT_LIST 8 /* searched in place, not indexed */

static size_t
pmap_slot(const struct gql_pmap *m, const void *key)
{
	size_t i = ((uintptr_t)key >> 4) & (m->cap - 1);

	while (m->keys[i] != NULL && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *
gql_pmap_get(const struct gql_pmap *m, const void *key)
{
	return m->cap == 0 ? NULL : m->vals[pmap_slot(m, key)];
}

void
gql_pmap_put(struct gql_pmap *m, const void *key, void *val)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap) {
		struct gql_pmap n = { 0 };

		n.cap = m->cap ? m->cap * 2 : 16;
		n.keys = axg_calloc(n.cap, sizeof(*n.keys));
		n.vals = axg_calloc(n.cap, sizeof(*n.vals));
		for (i = 0; i < m->cap; i++)
			if (m->keys[i] != NULL)
				gql_pmap_put(&n, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	i = pmap_slot(m, key);
	if (m->keys[i] == NULL)
		m->len++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void
gql_pmap_free(struct gql_pmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static struct gql_map *
index_of(struct gql_schema *s, const struct axv *list, const char *namekey)
{
	struct gql_map *ix = gql_pmap_get(&s->idx, list);

	if (ix != NULL)
		return ix;
	ix = axg_calloc(1, sizeof(*ix));
	for (size_t k = 0; k < axv_array_len(list); k++) {
		const struct axv *e = axv_array_get(list, k);

		map_first(ix, gql_str(e, namekey), e);
	}
	gql_pmap_put(&s->idx, list, ix);
	return ix;
}

const struct axv *
gql_named(struct gql_schema *s, const struct axv *node, const char *key,
    const char *namekey, const char *name)
{
	size_t n = gql_len(node, key);

	if (n > SHORT_LIST && s != NULL)
		return gql_map_get(index_of(s, axv_object_gets(node, key),
				       namekey),
		    name);
	for (size_t i = 0; i < n; i++) {
		const struct axv *e = gql_at(node, key, i);

		if (strcmp(gql_str(e, namekey), name) == 0)
			return e;
	}
	return NULL;
}

const struct axv *
gql_list_named(struct gql_schema *s, const struct axv *node, const char *key,
    const char *name)
{
	return gql_named(s, node, key, "Name", name);
}

const struct axv *
gql_first_dup(const struct axv *node, const char *key, const char *namekey)
{
	size_t n = gql_len(node, key);
	struct gql_map seen = { 0 };
	const struct axv *dup = NULL;

	for (size_t i = 0; i < n && dup == NULL; i++) {
		const struct axv *e = gql_at(node, key, i);
		const char *name = gql_str(e, namekey);

		if (gql_map_get(&seen, name) != NULL)
			dup = e;
		else
			gql_map_put(&seen, name, (void *)e);
	}
	gql_map_free(&seen);
	return dup;
}

static bool
kind_is(const char *kind, const char *a, const char *b, const char *c,
    const char *d, const char *e)
{
	const char *k[] = { a, b, c, d, e };

	for (size_t i = 0; i < 5; i++)
		if (k[i] != NULL && strcmp(kind, k[i]) == 0)
			return true;
	return false;
}

bool
gql_is_input_kind(const char *kind)
{
	return kind_is(kind, "SCALAR", "ENUM", "INPUT_OBJECT", NULL, NULL);
}

static int
check_name(const struct axv *node, const char *name, struct gql_err *err)
{
	if (strncmp(name, "__", 2) != 0)
		return 0;
	gql_errat(err, node,
	    "Name \"%s\" must not begin with \"__\", which is reserved by "
	    "GraphQL introspection.",
	    name);
	return -1;
}

static int
check_type_ref(struct gql_schema *s, const struct axv *t, struct gql_err *err)
{
	if (gql_map_get(&s->types, gql_type_name(t)) != NULL)
		return 0;
	gql_errat(err, t, "Undefined type %s.", gql_type_name(t));
	return -1;
}

static int
check_directives(struct gql_schema *s, const struct axv *node, const char *loc,
    const char *current, struct gql_err *err)
{
	for (size_t i = 0; i < gql_len(node, "Directives"); i++) {
		const struct axv *d = gql_at(node, "Directives", i);
		const char *name = gql_str(d, "Name");
		const struct axv *def;
		bool ok = false;

		if (check_name(d, name, err) < 0)
			return -1;
		if (current != NULL && strcmp(name, current) == 0) {
			gql_errat(err, d,
			    "Directive %s cannot refer to itself.", current);
			return -1;
		}
		if ((def = gql_map_get(&s->dirs, name)) == NULL) {
			gql_errat(err, d, "Undefined directive %s.", name);
			return -1;
		}
		for (size_t j = 0; j < gql_len(def, "Locations"); j++) {
			const struct axv *l = gql_at(def, "Locations", j);

			if (axv_kind(l) == AXV_STRING &&
			    strcmp(axv_str(l), loc) == 0)
				ok = true;
		}
		if (!ok) {
			gql_errat(err, d,
			    "Directive %s is not applicable on %s.", name, loc);
			return -1;
		}
	}
	return 0;
}

static int
check_args(struct gql_schema *s, const struct axv *owner, const char *current,
    struct gql_err *err)
{
	for (size_t i = 0; i < gql_len(owner, "Arguments"); i++) {
		const struct axv *a = gql_at(owner, "Arguments", i);
		const struct axv *t = gql_node(a, "Type");
		struct gql_type *def;

		if (check_name(a, gql_str(a, "Name"), err) < 0 ||
		    check_type_ref(s, t, err) < 0)
			return -1;
		def = gql_map_get(&s->types, gql_type_name(t));
		if (!gql_is_input_kind(def->kind)) {
			struct axg_buf b;

			axg_buf_init(&b, 0);
			gql_type_string(t, &b, 0);
			axg_buf_putc(&b, 0);
			gql_errat(err, a,
			    "cannot use %s as argument %s because %s is not a "
			    "valid input type",
			    b.data, gql_str(a, "Name"), def->kind);
			axg_buf_free(&b);
			return -1;
		}
		if (check_directives(s, a, "ARGUMENT_DEFINITION", current,
			err) < 0)
			return -1;
	}
	return 0;
}

static bool
type_compatible(const struct axv *t, const struct axv *o, int depth)
{
	const struct axv *te = gql_node(t, "Elem"), *oe = gql_node(o, "Elem");

	if (depth > GQL_MAX_DEPTH)
		return false;
	if (strcmp(gql_str(t, "NamedType"), gql_str(o, "NamedType")) != 0)
		return false;
	if (te != NULL && oe == NULL)
		return false;
	if (te != NULL && !type_compatible(te, oe, depth + 1))
		return false;
	if (gql_bool(o, "NonNull"))
		return gql_bool(t, "NonNull");
	return true;
}

static bool
covariant(struct gql_schema *s, const struct axv *req, const struct axv *act,
    int depth)
{
	const char *rn;

	if (req == NULL || act == NULL || depth > GQL_MAX_DEPTH)
		return false;
	if (gql_bool(req, "NonNull") && !gql_bool(act, "NonNull"))
		return false;
	rn = gql_str(req, "NamedType");
	if (*rn != '\0') {
		struct gql_type *rt;

		if (strcmp(rn, gql_str(act, "NamedType")) == 0)
			return true;
		rt = gql_map_get(&s->types, rn);
		return rt != NULL &&
		    gql_type_possible(rt, gql_str(act, "NamedType"));
	}
	if (gql_node(req, "Elem") != NULL && gql_node(act, "Elem") == NULL)
		return false;
	return covariant(s, gql_node(req, "Elem"), gql_node(act, "Elem"),
	    depth + 1);
}

static int
check_implements(struct gql_schema *s, struct gql_type *def, const char *iname,
    struct gql_err *err)
{
	struct gql_type *intf = gql_map_get(&s->types, iname);

	if (intf == NULL) {
		gql_errat(err, def->node, "Undefined type \"%s\".", iname);
		return -1;
	}
	if (strcmp(intf->kind, "INTERFACE") != 0) {
		gql_errat(err, def->node, "\"%s\" is a non interface type %s.",
		    iname, intf->kind);
		return -1;
	}
	for (size_t i = 0; i < intf->fields.len; i++) {
		const struct axv *rf = intf->fields.items[i];
		const char *fname = gql_str(rf, "Name");
		const struct axv *ff = gql_type_field(def, fname);

		if (ff == NULL) {
			gql_errat(err, def->node,
			    "For %s to implement %s it must have a field "
			    "called "
			    "%s.",
			    def->name, intf->name, fname);
			return -1;
		}
		if (!covariant(s, gql_node(rf, "Type"), gql_node(ff, "Type"),
			0)) {
			struct axg_buf b;

			axg_buf_init(&b, 0);
			gql_type_string(gql_node(rf, "Type"), &b, 0);
			axg_buf_putc(&b, 0);
			gql_errat(err, ff,
			    "For %s to implement %s the field %s must have "
			    "type "
			    "%s.",
			    def->name, intf->name, fname, b.data);
			axg_buf_free(&b);
			return -1;
		}
		for (size_t j = 0; j < gql_len(rf, "Arguments"); j++) {
			const struct axv *ra = gql_at(rf, "Arguments", j);
			const struct axv *fa = gql_list_named(s, ff,
			    "Arguments", gql_str(ra, "Name"));

			if (fa == NULL) {
				gql_errat(err, ff,
				    "For %s to implement %s the field %s must "
				    "have the same arguments but it is missing "
				    "%s.",
				    def->name, intf->name, fname,
				    gql_str(ra, "Name"));
				return -1;
			}
			if (!type_compatible(gql_node(ra, "Type"),
				gql_node(fa, "Type"), 0)) {
				gql_errat(err, fa,
				    "For %s to implement %s the field %s must "
				    "have the same arguments but %s has the "
				    "wrong type.",
				    def->name, intf->name, fname,
				    gql_str(ra, "Name"));
				return -1;
			}
		}
		for (size_t j = 0; j < gql_len(ff, "Arguments"); j++) {
			const struct axv *fa = gql_at(ff, "Arguments", j);

			if (gql_list_named(s, rf, "Arguments",
				gql_str(fa, "Name")) == NULL &&
			    gql_bool(gql_node(fa, "Type"), "NonNull") &&
			    gql_node(fa, "DefaultValue") == NULL) {
				gql_errat(err, fa,
				    "For %s to implement %s any additional "
				    "arguments on %s must be optional or have "
				    "a "
				    "default value but %s is required.",
				    def->name, intf->name, fname,
				    gql_str(fa, "Name"));
				return -1;
			}
		}
	}
	for (size_t i = 0; i < intf->ifaces.len; i++) {
		const char *tr = intf->ifaces.items[i];

		if (gql_map_get(&def->imap, tr) != NULL)
			continue;
		if (strcmp(tr, def->name) == 0)
			gql_errat(err, def->node,
			    "Type %s cannot implement %s because it would "
			    "create a circular reference.",
			    def->name, iname);
		else
			gql_errat(err, def->node,
			    "Type %s must implement %s because it is "
			    "implemented by %s.",
			    def->name, tr, iname);
		return -1;
	}
	return 0;
}

static int
check_definition(struct gql_schema *s, struct gql_type *def,
    struct gql_err *err)
{
	bool input = strcmp(def->kind, "INPUT_OBJECT") == 0;

	for (size_t i = 0; i < def->fields.len; i++) {
		const struct axv *f = def->fields.items[i];

		if (check_name(f, gql_str(f, "Name"), err) < 0 ||
		    check_type_ref(s, gql_node(f, "Type"), err) < 0 ||
		    check_args(s, f, NULL, err) < 0 ||
		    check_directives(s, f,
			input ? "INPUT_FIELD_DEFINITION" : "FIELD_DEFINITION",
			NULL, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < def->types.len; i++) {
		const char *tn = def->types.items[i];
		struct gql_type *t = gql_map_get(&s->types, tn);

		if (t == NULL) {
			gql_errat(err, def->node, "Undefined type \"%s\".", tn);
			return -1;
		}
		if (strcmp(t->kind, "OBJECT") != 0) {
			gql_errat(err, def->node,
			    "%s type \"%s\" must be OBJECT.", def->kind, tn);
			return -1;
		}
	}
	for (size_t i = 0; i < def->ifaces.len; i++)
		if (check_implements(s, def, def->ifaces.items[i], err) < 0)
			return -1;
	if (kind_is(def->kind, "OBJECT", "INTERFACE", NULL, NULL, NULL)) {
		if (def->fields.len == 0) {
			gql_errat(err, def->node,
			    "%s %s: must define one or more fields.", def->kind,
			    def->name);
			return -1;
		}
		for (size_t i = 0; i < def->fields.len; i++) {
			const struct axv *f = def->fields.items[i];
			struct gql_type *t = gql_map_get(&s->types,
			    gql_type_name(gql_node(f, "Type")));

			if (t != NULL && strcmp(t->kind, "INPUT_OBJECT") == 0) {
				gql_errat(err, f,
				    "%s %s: field must be one of SCALAR, "
				    "OBJECT, INTERFACE, UNION, ENUM.",
				    def->kind, def->name);
				return -1;
			}
		}
	} else if (strcmp(def->kind, "ENUM") == 0) {
		if (def->enums.len == 0) {
			gql_errat(err, def->node,
			    "%s %s: must define one or more unique enum "
			    "values.",
			    def->kind, def->name);
			return -1;
		}
		for (size_t i = 0; i < def->enums.len; i++) {
			const char *n = gql_str(def->enums.items[i], "Name");

			if (strcmp(n, "true") == 0 || strcmp(n, "false") == 0 ||
			    strcmp(n, "null") == 0) {
				gql_errat(err, def->node,
				    "%s %s: non-enum value %s.", def->kind,
				    def->name, n);
				return -1;
			}
		}
	} else if (input) {
		if (def->fields.len == 0) {
			gql_errat(err, def->node,
			    "%s %s: must define one or more input fields.",
			    def->kind, def->name);
			return -1;
		}
		for (size_t i = 0; i < def->fields.len; i++) {
			const struct axv *f = def->fields.items[i];
			struct gql_type *t = gql_map_get(&s->types,
			    gql_type_name(gql_node(f, "Type")));

			if (t != NULL && !gql_is_input_kind(t->kind)) {
				gql_errat(err, f,
				    "%s %s: field must be one of SCALAR, ENUM, "
				    "INPUT_OBJECT.",
				    t->kind, gql_str(f, "Name"));
				return -1;
			}
		}
	}
	/* gqlparser compares each field with the later ones: the pair it
	 * reports is the one whose first field comes first */
	{
		struct gql_map firsts = { 0 };
		const struct axv *best = NULL;
		uintptr_t bestfirst = 0;

		for (size_t j = 0; j < def->fields.len; j++) {
			const struct axv *f = def->fields.items[j];
			const char *name = gql_str(f, "Name");
			uintptr_t first = (uintptr_t)gql_map_get(&firsts, name);

			if (first == 0)
				gql_map_put(&firsts, name, (void *)(j + 1));
			else if (best == NULL || first < bestfirst) {
				best = f;
				bestfirst = first;
			}
		}
		gql_map_free(&firsts);
		if (best != NULL) {
			gql_errat(err, best,
			    "Field %s.%s can only be defined once.", def->name,
			    gql_str(best, "Name"));
			return -1;
		}
	}
	if (!def->builtin && check_name(def->node, def->name, err) < 0)
		return -1;
	for (size_t i = 0; i < def->dirs.len; i++) {
		/* the directives of every extension, as one list */
		const struct axv *holder = def->dirs.items[i];

		if (check_directives(s, holder, def->kind, NULL, err) < 0)
			return -1;
	}
	return 0;
}

static int
cmp_type(const void *a, const void *b)
{
	const struct gql_type *x = *(const struct gql_type *const *)a;
	const struct gql_type *y = *(const struct gql_type *const *)b;

	return strcmp(x->name, y->name);
}

static int
cmp_node_name(const void *a, const void *b)
{
	const struct axv *x = *(const struct axv *const *)a;
	const struct axv *y = *(const struct axv *const *)b;

	return strcmp(gql_str(x, "Name"), gql_str(y, "Name"));
}

static int
set_root(struct gql_schema *s, const struct axv *op, struct gql_err *err)
{
	const char *tn = gql_str(op, "Type"), *on = gql_str(op, "Operation");
	struct gql_type *t = gql_map_get(&s->types, tn);

	if (t == NULL) {
		gql_errat(err, op,
		    "Schema root %s refers to a type %s that does not exist.",
		    on, tn);
		return -1;
	}
	if (strcmp(on, "query") == 0)
		s->query = t;
	else if (strcmp(on, "mutation") == 0)
		s->mutation = t;
	else if (strcmp(on, "subscription") == 0)
		s->subscription = t;
	return 0;
}

/* Definitions of both documents, the prelude's first (SchemaDocument's
 * Merge appends). */
static size_t
both_len(struct gql_schema *s, const char *key)
{
	return gql_len(s->prelude, key) + gql_len(s->doc, key);
}

static const struct axv *
both_at(struct gql_schema *s, const char *key, size_t i)
{
	size_t n = gql_len(s->prelude, key);

	return i < n ? gql_at(s->prelude, key, i) : gql_at(s->doc, key, i - n);
}

static int
load(struct gql_schema *s, struct gql_err *err)
{
	const struct axv *d;
	struct gql_type **sorted;
	const struct axv **dsorted;
	size_t n, i;

	for (i = 0; i < both_len(s, "Definitions"); i++) {
		struct gql_type *t;
		const char *name;

		d = both_at(s, "Definitions", i);
		name = gql_str(d, "Name");
		if (gql_map_get(&s->types, name) != NULL) {
			gql_errat(err, d, "Cannot redeclare type %s.", name);
			return -1;
		}
		t = add_type(s, name, gql_str(d, "Kind"), d,
		    gql_bool(d, "BuiltIn"));
		vec_push_list(&t->fields, d, "Fields", false);
		vec_push_list(&t->ifaces, d, "Interfaces", true);
		vec_push_list(&t->types, d, "Types", true);
		vec_push_list(&t->enums, d, "EnumValues", false);
		gql_vec_push(&t->dirs, d);
	}
	for (i = 0; i < both_len(s, "Extensions"); i++) {
		struct gql_type *t;
		const char *name;

		d = both_at(s, "Extensions", i);
		name = gql_str(d, "Name");
		if ((t = gql_map_get(&s->types, name)) == NULL)
			t = add_type(s, name, gql_str(d, "Kind"), d, false);
		if (strcmp(t->kind, gql_str(d, "Kind")) != 0) {
			gql_errat(err, d,
			    "Cannot extend type %s because the base type is a "
			    "%s, not %s.",
			    name, t->kind, gql_str(d, "Kind"));
			return -1;
		}
		vec_push_list(&t->fields, d, "Fields", false);
		vec_push_list(&t->ifaces, d, "Interfaces", true);
		vec_push_list(&t->types, d, "Types", true);
		vec_push_list(&t->enums, d, "EnumValues", false);
		gql_vec_push(&t->dirs, d);
	}
	for (i = 0; i < s->all.len; i++) {
		struct gql_type *t = (struct gql_type *)s->all.items[i];

		if (strcmp(t->kind, "UNION") == 0) {
			for (size_t j = 0; j < t->types.len; j++) {
				struct gql_type *m =
				    gql_map_get(&s->types, t->types.items[j]);

				if (m != NULL)
					gql_vec_push(&t->possible, m);
			}
		} else if (kind_is(t->kind, "OBJECT", "INPUT_OBJECT",
			       "INTERFACE", NULL, NULL)) {
			for (size_t j = 0; j < t->ifaces.len; j++)
				add_possible(s, t->ifaces.items[j], t);
			if (strcmp(t->kind, "INTERFACE") != 0)
				gql_vec_push(&t->possible, t);
		}
	}
	for (i = 0; i < s->all.len; i++) {
		struct gql_type *t = (struct gql_type *)s->all.items[i];

		for (size_t j = 0; j < t->fields.len; j++)
			map_first(&t->fmap, gql_str(t->fields.items[j], "Name"),
			    t->fields.items[j]);
		for (size_t j = 0; j < t->ifaces.len; j++)
			map_first(&t->imap, t->ifaces.items[j], t);
		for (size_t j = 0; j < t->enums.len; j++)
			map_first(&t->emap, gql_str(t->enums.items[j], "Name"),
			    t->enums.items[j]);
		for (size_t j = 0; j < t->possible.len; j++) {
			const struct gql_type *pt = t->possible.items[j];

			map_first(&t->pmap, pt->name, pt);
		}
	}
	for (i = 0; i < both_len(s, "Directives"); i++) {
		const char *name;

		d = both_at(s, "Directives", i);
		name = gql_str(d, "Name");
		if (gql_map_get(&s->dirs, name) != NULL) {
			if (strcmp(name, "include") == 0 ||
			    strcmp(name, "skip") == 0 ||
			    strcmp(name, "deprecated") == 0 ||
			    strcmp(name, "specifiedBy") == 0)
				continue; /* the first one is kept */
			gql_errat(err, d, "Cannot redeclare directive %s.",
			    name);
			return -1;
		}
		gql_map_put(&s->dirs, name, (void *)d);
	}
	n = both_len(s, "Schema");
	if (n > 1) {
		gql_errat(err, both_at(s, "Schema", 1),
		    "Cannot have multiple schema entry points, consider schema "
		    "extensions instead.");
		return -1;
	}
	if (n == 1) {
		d = both_at(s, "Schema", 0);
		for (i = 0; i < gql_len(d, "OperationTypes"); i++)
			if (set_root(s, gql_at(d, "OperationTypes", i), err) <
			    0)
				return -1;
	}
	for (size_t k = 0; k < both_len(s, "SchemaExtension"); k++) {
		d = both_at(s, "SchemaExtension", k);
		for (i = 0; i < gql_len(d, "OperationTypes"); i++)
			if (set_root(s, gql_at(d, "OperationTypes", i), err) <
			    0)
				return -1;
	}
	sorted = axg_calloc(s->all.len + 1, sizeof(*sorted));
	memcpy(sorted, s->all.items, s->all.len * sizeof(*sorted));
	qsort(sorted, s->all.len, sizeof(*sorted), cmp_type);
	for (i = 0; i < s->all.len; i++) {
		if (check_definition(s, sorted[i], err) < 0) {
			free(sorted);
			return -1;
		}
	}
	free(sorted);
	dsorted = axg_calloc(s->dirs.len + 1, sizeof(*dsorted));
	for (i = 0, n = 0; i < s->dirs.cap; i++)
		if (s->dirs.keys[i] != NULL)
			dsorted[n++] = s->dirs.vals[i];
	qsort(dsorted, n, sizeof(*dsorted), cmp_node_name);
	for (i = 0; i < n; i++) {
		const char *name = gql_str(dsorted[i], "Name");

		if (check_name(dsorted[i], name, err) < 0 ||
		    check_args(s, dsorted[i], name, err) < 0) {
			free(dsorted);
			return -1;
		}
	}
	free(dsorted);
	if (both_len(s, "Schema") == 0) {
		if (s->query == NULL)
			s->query = gql_map_get(&s->types, "Query");
		if (s->mutation == NULL)
			s->mutation = gql_map_get(&s->types, "Mutation");
		if (s->subscription == NULL)
			s->subscription =
			    gql_map_get(&s->types, "Subscription");
	}
	return 0;
}

struct gql_schema *
gql_schema_load(const struct axv *doc, struct gql_err *err)
{
	struct gql_schema *s = axg_calloc(1, sizeof(*s));

	memset(err, 0, sizeof(*err));
	s->prelude =
	    gql_parse_schema(prelude, sizeof(prelude) - 1, GQL_BUILTIN, err);
	if (s->prelude == NULL)
		goto fail; /* cannot happen: the prelude is ours */
	s->doc = axv_ref((struct axv *)doc);
	s->meta = gql_parse_schema(meta, sizeof(meta) - 1, GQL_BUILTIN, err);
	if (s->meta == NULL || load(s, err) < 0)
		goto fail;
	return s;
fail:
	gql_schema_free(s);
	return NULL;
}

void
gql_schema_free(struct gql_schema *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->all.len; i++) {
		struct gql_type *t = (struct gql_type *)s->all.items[i];

		free(t->fields.items);
		free(t->ifaces.items);
		free(t->types.items);
		free(t->enums.items);
		free(t->dirs.items);
		free(t->possible.items);
		gql_map_free(&t->fmap);
		gql_map_free(&t->emap);
		gql_map_free(&t->imap);
		gql_map_free(&t->pmap);
		free(t);
	}
	free(s->all.items);
	gql_map_free(&s->types);
	gql_map_free(&s->dirs);
	for (size_t i = 0; i < s->idx.cap; i++) {
		if (s->idx.vals[i] != NULL) {
			gql_map_free(s->idx.vals[i]);
			free(s->idx.vals[i]);
		}
	}
	gql_pmap_free(&s->idx);
	axv_unref(s->prelude);
	axv_unref(s->doc);
	axv_unref(s->meta);
	free(s);
}

/* ---- documents given as objects ---- */

enum fkind { F_STR, F_BOOL, F_INT, F_NODE, F_LIST, F_STRLIST };

struct fdesc {
	const char *name;
	enum fkind kind;
	const struct ndesc *sub;
};

struct ndesc {
	const struct fdesc *f;
	size_t n;
};

#define ND(arr)                                                                \
	{                                                                      \
		arr, AXG_ARRAY_LEN(arr)                                        \
	}

static const struct ndesc nd_value, nd_type, nd_sel, nd_dir;

static const struct fdesc fd_child[] = {
	{ "Name", F_STR, NULL },
	{ "Value", F_NODE, &nd_value },
};
static const struct ndesc nd_child = ND(fd_child);
static const struct fdesc fd_value[] = {
	{ "Raw", F_STR, NULL },
	{ "Children", F_LIST, &nd_child },
	{ "Kind", F_INT, NULL },
	{ "ExpectedTypeHasDefault", F_BOOL, NULL },
};
static const struct ndesc nd_value = ND(fd_value);
static const struct fdesc fd_type[] = {
	{ "NamedType", F_STR, NULL },
	{ "Elem", F_NODE, &nd_type },
	{ "NonNull", F_BOOL, NULL },
};
static const struct ndesc nd_type = ND(fd_type);
static const struct fdesc fd_arg[] = {
	{ "Name", F_STR, NULL },
	{ "Value", F_NODE, &nd_value },
};
static const struct ndesc nd_arg = ND(fd_arg);
static const struct fdesc fd_dir[] = {
	{ "Name", F_STR, NULL },
	{ "Arguments", F_LIST, &nd_arg },
	{ "Location", F_STR, NULL },
};
static const struct ndesc nd_dir = ND(fd_dir);
static const struct fdesc fd_sel[] = {
	{ "Alias", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "Arguments", F_LIST, &nd_arg },
	{ "Directives", F_LIST, &nd_dir },
	{ "SelectionSet", F_LIST, &nd_sel },
};
static const struct ndesc nd_sel = ND(fd_sel);
static const struct fdesc fd_vardef[] = {
	{ "Variable", F_STR, NULL },
	{ "Type", F_NODE, &nd_type },
	{ "DefaultValue", F_NODE, &nd_value },
	{ "Directives", F_LIST, &nd_dir },
	{ "Used", F_BOOL, NULL },
};
static const struct ndesc nd_vardef = ND(fd_vardef);
static const struct fdesc fd_op[] = {
	{ "Operation", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "VariableDefinitions", F_LIST, &nd_vardef },
	{ "Directives", F_LIST, &nd_dir },
	{ "SelectionSet", F_LIST, &nd_sel },
};
static const struct ndesc nd_op = ND(fd_op);
static const struct fdesc fd_frag[] = {
	{ "Name", F_STR, NULL },
	{ "VariableDefinition", F_LIST, &nd_vardef },
	{ "TypeCondition", F_STR, NULL },
	{ "Directives", F_LIST, &nd_dir },
	{ "SelectionSet", F_LIST, &nd_sel },
};
static const struct ndesc nd_frag = ND(fd_frag);
static const struct fdesc fd_qdoc[] = {
	{ "Operations", F_LIST, &nd_op },
	{ "Fragments", F_LIST, &nd_frag },
};
static const struct ndesc nd_qdoc = ND(fd_qdoc);

static const struct fdesc fd_argdef[] = {
	{ "Description", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "DefaultValue", F_NODE, &nd_value },
	{ "Type", F_NODE, &nd_type },
	{ "Directives", F_LIST, &nd_dir },
};
static const struct ndesc nd_argdef = ND(fd_argdef);
static const struct fdesc fd_fielddef[] = {
	{ "Description", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "Arguments", F_LIST, &nd_argdef },
	{ "DefaultValue", F_NODE, &nd_value },
	{ "Type", F_NODE, &nd_type },
	{ "Directives", F_LIST, &nd_dir },
};
static const struct ndesc nd_fielddef = ND(fd_fielddef);
static const struct fdesc fd_enumval[] = {
	{ "Description", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "Directives", F_LIST, &nd_dir },
};
static const struct ndesc nd_enumval = ND(fd_enumval);
static const struct fdesc fd_def[] = {
	{ "Kind", F_STR, NULL },
	{ "Description", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "Directives", F_LIST, &nd_dir },
	{ "Interfaces", F_STRLIST, NULL },
	{ "Fields", F_LIST, &nd_fielddef },
	{ "Types", F_STRLIST, NULL },
	{ "EnumValues", F_LIST, &nd_enumval },
	{ "BuiltIn", F_BOOL, NULL },
};
static const struct ndesc nd_def = ND(fd_def);
static const struct fdesc fd_optype[] = {
	{ "Operation", F_STR, NULL },
	{ "Type", F_STR, NULL },
};
static const struct ndesc nd_optype = ND(fd_optype);
static const struct fdesc fd_schemadef[] = {
	{ "Description", F_STR, NULL },
	{ "Directives", F_LIST, &nd_dir },
	{ "OperationTypes", F_LIST, &nd_optype },
};
static const struct ndesc nd_schemadef = ND(fd_schemadef);
static const struct fdesc fd_dirdef[] = {
	{ "Description", F_STR, NULL },
	{ "Name", F_STR, NULL },
	{ "Arguments", F_LIST, &nd_argdef },
	{ "Locations", F_STRLIST, NULL },
	{ "IsRepeatable", F_BOOL, NULL },
};
static const struct ndesc nd_dirdef = ND(fd_dirdef);
static const struct fdesc fd_sdoc[] = {
	{ "Schema", F_LIST, &nd_schemadef },
	{ "SchemaExtension", F_LIST, &nd_schemadef },
	{ "Directives", F_LIST, &nd_dirdef },
	{ "Definitions", F_LIST, &nd_def },
	{ "Extensions", F_LIST, &nd_def },
};
static const struct ndesc nd_sdoc = ND(fd_sdoc);

/* Go's encoding/json: an exact key first, else one equal but for case. */
static const struct axv *
find_key(const struct axv *obj, const char *name)
{
	const struct axv *v = axv_object_gets(obj, name);

	if (v != NULL)
		return v;
	for (size_t i = 0; i < axv_object_len(obj); i++) {
		const struct axv *k = axv_object_key(obj, i);

		if (axv_kind(k) == AXV_STRING &&
		    strcasecmp(axv_str(k), name) == 0)
			return axv_object_val(obj, i);
	}
	return NULL;
}

static struct axv *decode(const struct axv *v, const struct ndesc *d, int depth,
    struct gql_err *err);

static int
decode_fail(struct gql_err *err, const char *field, const char *want,
    const struct axv *got)
{
	gql_seterr(err, 0, 0,
	    "json: cannot unmarshal %s into Go struct field %s of type %s",
	    axv_type_name(got), field, want);
	return -1;
}

static struct axv *
decode_list(const struct axv *v, const struct fdesc *f, int depth,
    struct gql_err *err)
{
	struct axv *out = axv_array_new(axv_array_len(v));

	for (size_t i = 0; i < axv_array_len(v); i++) {
		const struct axv *e = axv_array_get(v, i);
		struct axv *x;

		if (f->kind == F_STRLIST) {
			if (axv_kind(e) == AXV_NULL) {
				axv_array_push(out, axv_cstr(""));
				continue;
			}
			if (axv_kind(e) != AXV_STRING) {
				decode_fail(err, f->name, "string", e);
				goto fail;
			}
			axv_array_push(out, axv_ref((struct axv *)e));
			continue;
		}
		/* gqlparser would read a nil node here and fail on it later;
		 * refuse the document now */
		if ((x = decode(e, f->sub, depth + 1, err)) == NULL)
			goto fail;
		axv_array_push(out, x);
	}
	return out;
fail:
	axv_unref(out);
	return NULL;
}

static struct axv *
decode(const struct axv *v, const struct ndesc *d, int depth,
    struct gql_err *err)
{
	struct axv *out;

	if (depth > GQL_MAX_DEPTH * 4) {
		gql_seterr(err, 0, 0, "nesting deeper than %d",
		    GQL_MAX_DEPTH * 4);
		return NULL;
	}
	if (axv_kind(v) != AXV_OBJECT) {
		decode_fail(err, d->f[0].name, "object", v);
		return NULL;
	}
	out = axv_object_new(d->n);
	for (size_t i = 0; i < d->n; i++) {
		const struct fdesc *f = &d->f[i];
		const struct axv *x = find_key(v, f->name);
		struct axv *y = NULL;
		bool isnull = x == NULL || axv_kind(x) == AXV_NULL;

		switch (f->kind) {
		case F_STR:
			if (!isnull && axv_kind(x) != AXV_STRING)
				goto type;
			y = isnull ? axv_cstr("") : axv_ref((struct axv *)x);
			break;
		case F_BOOL:
			if (!isnull && axv_kind(x) != AXV_BOOL)
				goto type;
			y = axv_bool(!isnull && axv_bool_get(x));
			break;
		case F_INT: {
			int64_t n = 0;

			if (!isnull &&
			    (axv_kind(x) != AXV_NUMBER ||
				!axv_num_get_i64(x, &n)))
				goto type;
			y = axv_int(n);
			break;
		}
		case F_NODE:
			if (isnull)
				continue;
			if ((y = decode(x, f->sub, depth + 1, err)) == NULL)
				goto fail;
			break;
		case F_LIST:
		case F_STRLIST:
			if (isnull)
				continue;
			if (axv_kind(x) != AXV_ARRAY)
				goto type;
			if ((y = decode_list(x, f, depth, err)) == NULL)
				goto fail;
			break;
		}
		axv_object_put(out, axv_cstr(f->name), y);
		continue;
	type:
		decode_fail(err, f->name,
		    f->kind == F_STR	    ? "string"
			: f->kind == F_BOOL ? "bool"
			: f->kind == F_INT  ? "int"
					    : "array",
		    x);
		goto fail;
	}
	return out;
fail:
	axv_unref(out);
	return NULL;
}

struct axv *
gql_decode_query(const struct axv *obj, struct gql_err *err)
{
	memset(err, 0, sizeof(*err));
	return decode(obj, &nd_qdoc, 0, err);
}

struct axv *
gql_decode_schema(const struct axv *obj, struct gql_err *err)
{
	memset(err, 0, sizeof(*err));
	return decode(obj, &nd_sdoc, 0, err);
}
