/*
 * graphql-int.h: the GraphQL parser and validator behind the graphql.*
 * builtins (policy/builtins-graphql.c).
 *
 * Documents are Rego values in the shape OPA gives gqlparser's AST (field
 * names as the Go structs have them).  Parsed documents also carry a
 * "Position" key ([line, column]) on the nodes whose position a message
 * may need; gql_prune() drops it, with the nulls and empty collections, as
 * OPA does before it returns an AST.
 *
 * Ownership: every function returning struct axv * returns a new
 * reference; arguments are borrowed.  On failure NULL (or -1) is returned
 * and *err holds gqlparser's message and location (0:0 when unknown).
 */
#ifndef AXP_GRAPHQL_INT_H
#define AXP_GRAPHQL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/common.h"
#include "policy/value.h"

/* Bounds on what a caller may hand us. */
#define GQL_MAX_INPUT  (4u << 20) /* bytes of query or schema text */
#define GQL_MAX_DEPTH  128	  /* nesting of selections, values, types */
#define GQL_MAX_TOKENS 250000	  /* tokens in one document */
#define GQL_MAX_STEPS  10000000	  /* selections visited by validation */
#define GQL_MAX_PAIRS  500000	  /* fields compared with each other */

/* gqlparser's ValueKind: a value node's "Kind". */
enum gql_value_kind {
	VK_VARIABLE,
	VK_INT,
	VK_FLOAT,
	VK_STRING,
	VK_BLOCK,
	VK_BOOLEAN,
	VK_NULL,
	VK_ENUM,
	VK_LIST,
	VK_OBJECT
};

struct gql_err {
	char msg[400];
	int line, col;
};

/* flags */
#define GQL_POSITIONS 0x1 /* add the "Position" keys validation needs */
#define GQL_BUILTIN   0x2 /* schema: the definitions are built in */

struct axv *
gql_parse_query(const char *s, size_t n, unsigned flags, struct gql_err *err);
struct axv *
gql_parse_schema(const char *s, size_t n, unsigned flags, struct gql_err *err);

/* OPA's pruning: no "Position", no nulls, no empty arrays or objects. */
struct axv *gql_prune(const struct axv *v);

/* A document given as an object, read as Go's encoding/json reads it into
 * gqlparser's structs (keys match case-insensitively, unknown keys are
 * ignored, every selection is read as a field). */
struct axv *gql_decode_query(const struct axv *obj, struct gql_err *err);
struct axv *gql_decode_schema(const struct axv *obj, struct gql_err *err);

/* A schema loaded (with the prelude) and checked as gqlparser's
 * ValidateSchemaDocument does. */
struct gql_schema;
struct gql_schema *gql_schema_load(const struct axv *doc, struct gql_err *err);
void gql_schema_free(struct gql_schema *s);

/* Check a query document against a schema: 0, or -1 with the first error. */
int
gql_validate(struct gql_schema *s, const struct axv *doc, struct gql_err *err);

void gql_seterr(struct gql_err *err, int line, int col, const char *fmt, ...)
    AXG_PRINTF(4, 5);

/* ---- shared by the schema loader and the query validator ---- */

/* A string -> pointer map; keys are borrowed. */
struct gql_map {
	const char **keys;
	void **vals;
	size_t len, cap;
};
void *gql_map_get(const struct gql_map *m, const char *key);
void gql_map_put(struct gql_map *m, const char *key, void *val);
void gql_map_free(struct gql_map *m);

/* A growing array of borrowed pointers. */
struct gql_vec {
	const void **items;
	size_t len, cap;
};
void gql_vec_push(struct gql_vec *v, const void *p);

/* A named type, with what its extensions add. */
struct gql_type {
	const char *name, *kind;
	const struct axv *node; /* the definition (or first extension) */
	bool builtin;
	struct gql_vec fields;	 /* field definition nodes */
	struct gql_vec ifaces;	 /* interface names */
	struct gql_vec types;	 /* union member names */
	struct gql_vec enums;	 /* enum value nodes */
	struct gql_vec dirs;	 /* nodes holding "Directives" */
	struct gql_vec possible; /* struct gql_type * */
	/* fields, enum values, possible types, interfaces by name */
	struct gql_map fmap, emap, pmap, imap;
};

/* A pointer -> pointer map. */
struct gql_pmap {
	const void **keys;
	void **vals;
	size_t len, cap;
};
void *gql_pmap_get(const struct gql_pmap *m, const void *key);
void gql_pmap_put(struct gql_pmap *m, const void *key, void *val);
void gql_pmap_free(struct gql_pmap *m); /* not the values */

struct gql_schema {
	struct axv *prelude, *doc, *meta;
	struct gql_map types; /* name -> struct gql_type */
	struct gql_map dirs;  /* name -> directive definition node */
	struct gql_vec all;   /* struct gql_type *, in definition order */
	struct gql_type *query, *mutation, *subscription;
	/* indexes of long lists by name, made the first time one is searched
	 * (list -> struct gql_map *), so that no check is quadratic in the
	 * length of a list */
	struct gql_pmap idx;
};

/* Reading nodes: "" / false / NULL / 0 when absent or of another type. */
const char *gql_str(const struct axv *node, const char *key);
bool gql_bool(const struct axv *node, const char *key);
const struct axv *gql_node(const struct axv *node, const char *key);
size_t gql_len(const struct axv *node, const char *key);
const struct axv *gql_at(const struct axv *node, const char *key, size_t i);
void gql_pos(const struct axv *node, int *line, int *col);
void gql_errat(struct gql_err *err, const struct axv *node, const char *fmt,
    ...) AXG_PRINTF(3, 4);
const char *gql_type_name(const struct axv *type);
void gql_type_string(const struct axv *type, struct axg_buf *b, int depth);
/* The field (or enum value, or possible type) of a type by name. */
const struct axv *gql_type_field(const struct gql_type *t, const char *name);
const struct axv *gql_type_enum(const struct gql_type *t, const char *name);
bool gql_type_possible(const struct gql_type *t, const char *name);
/* The first element of node[key] whose namekey ("Name" for
 * gql_list_named) is name, or NULL. */
const struct axv *gql_named(struct gql_schema *s, const struct axv *node,
    const char *key, const char *namekey, const char *name);
const struct axv *gql_list_named(struct gql_schema *s, const struct axv *node,
    const char *key, const char *name);
/* The first element of node[key] whose namekey an earlier one has. */
const struct axv *
gql_first_dup(const struct axv *node, const char *key, const char *namekey);
bool gql_is_input_kind(const char *kind);

#endif /* AXP_GRAPHQL_INT_H */
