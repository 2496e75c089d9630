/*
 * builtins-graphql.c: graphql.parse_query, graphql.parse_schema,
 * graphql.parse, graphql.parse_and_verify, graphql.is_valid and
 * graphql.schema_is_valid, as OPA's topdown/graphql.go has them.
 *
 * The parser and validator are in policy/graphql-*.c; here are OPA's
 * operand handling and messages.  A document may be given as a string or
 * (except to parse_query and parse_schema) as the AST object another call
 * returned.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "policy/builtins.h"
#include "policy/graphql-int.h"

static int
parse_error(struct axp_bctx *ctx, const struct gql_err *err)
{
	return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
	    "%s in GraphQL string at location %d:%d", err->msg, err->line,
	    err->col);
}

/* A query or schema document from a string or an object; NULL with *err
 * set, or with *err empty when the operand has another type. */
static struct axv *
document(const struct axv *v, bool schema, struct gql_err *err)
{
	memset(err, 0, sizeof(*err));
	if (axv_kind(v) == AXV_STRING)
		return schema ? gql_parse_schema(axv_str(v), axv_strlen(v),
				    GQL_POSITIONS, err)
			      : gql_parse_query(axv_str(v), axv_strlen(v),
				    GQL_POSITIONS, err);
	if (axv_kind(v) == AXV_OBJECT)
		return schema ? gql_decode_schema(v, err)
			      : gql_decode_query(v, err);
	return NULL;
}

static int
bi_parse_query(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct gql_err err;
	struct axv *doc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	/* without positions the parser builds the pruned AST itself */
	doc = gql_parse_query(axv_str(args[0]), axv_strlen(args[0]), 0, &err);
	if (doc == NULL)
		return parse_error(ctx, &err);
	*out = doc;
	return AXP_BI_OK;
}

static int
bi_parse_schema(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct gql_err err;
	struct axv *doc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	doc = gql_parse_schema(axv_str(args[0]), axv_strlen(args[0]), 0, &err);
	if (doc == NULL)
		return parse_error(ctx, &err);
	*out = doc;
	return AXP_BI_OK;
}

enum check_result {
	CHECK_OK,
	CHECK_TYPE,   /* an operand is neither string nor object */
	CHECK_PARSE,  /* a document could not be read */
	CHECK_SCHEMA, /* the schema is not valid */
	CHECK_QUERY,  /* the query is not valid against it */
};

/* Read both documents and validate the query against the schema, as
 * OPA's graphql.parse does; *q and *s get the documents when read. */
static enum check_result
check(struct axv *const *args, struct axv **q, struct axv **s, int *bad,
    struct gql_err *err)
{
	struct gql_schema *schema;

	*q = *s = NULL;
	*bad = 1;
	if ((*q = document(args[0], false, err)) == NULL)
		return err->msg[0] ? CHECK_PARSE : CHECK_TYPE;
	*bad = 2;
	if ((*s = document(args[1], true, err)) == NULL)
		return err->msg[0] ? CHECK_PARSE : CHECK_TYPE;
	if ((schema = gql_schema_load(*s, err)) == NULL)
		return CHECK_SCHEMA;
	if (gql_validate(schema, *q, err) < 0) {
		size_t n = strlen(err->msg);

		/* OPA trims the final period of gqlparser's messages */
		if (n > 0 && err->msg[n - 1] == '.')
			err->msg[n - 1] = '\0';
		gql_schema_free(schema);
		return CHECK_QUERY;
	}
	gql_schema_free(schema);
	return CHECK_OK;
}

static int
bi_parse(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct gql_err err;
	struct axv *q, *s;
	int bad, rc = AXP_BI_ERROR;

	switch (check(args, &q, &s, &bad, &err)) {
	case CHECK_TYPE:
		rc = axp_bi_type_error(ctx, bad, "one of {object, string}",
		    args[bad - 1]);
		break;
	case CHECK_PARSE:
		if (err.line == 0 && err.col == 0)
			rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s",
			    err.msg);
		else
			rc = parse_error(ctx, &err);
		break;
	case CHECK_SCHEMA:
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "Error in gqlparser SchemaDocument to Schema conversion: "
		    "input:%d:%d: %s",
		    err.line, err.col, err.msg);
		break;
	case CHECK_QUERY:
		rc = parse_error(ctx, &err);
		break;
	case CHECK_OK:
		*out = axv_array_new(2);
		axv_array_push(*out, gql_prune(q));
		axv_array_push(*out, gql_prune(s));
		rc = AXP_BI_OK;
		break;
	}
	axv_unref(q);
	axv_unref(s);
	return rc;
}

static int
bi_parse_and_verify(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct gql_err err;
	struct axv *q, *s;
	int bad;
	bool ok = check(args, &q, &s, &bad, &err) == CHECK_OK;

	(void)ctx;
	*out = axv_array_new(3);
	axv_array_push(*out, axv_bool(ok));
	axv_array_push(*out, ok ? gql_prune(q) : axv_object_new(0));
	axv_array_push(*out, ok ? gql_prune(s) : axv_object_new(0));
	axv_unref(q);
	axv_unref(s);
	return AXP_BI_OK;
}

static int
bi_is_valid(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct gql_err err;
	struct axv *q, *s;
	int bad;

	(void)ctx;
	*out = axv_bool(check(args, &q, &s, &bad, &err) == CHECK_OK);
	axv_unref(q);
	axv_unref(s);
	return AXP_BI_OK;
}

static int
bi_schema_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct gql_err err;
	struct gql_schema *schema = NULL;
	struct axv *s;

	(void)ctx;
	if ((s = document(args[0], true, &err)) != NULL)
		schema = gql_schema_load(s, &err);
	*out = axv_bool(schema != NULL);
	gql_schema_free(schema);
	axv_unref(s);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_graphql[] = {
	{ "graphql.is_valid", 2, bi_is_valid,
	    "(any<object, string>, any<object, string>) => boolean", 0 },
	{ "graphql.parse", 2, bi_parse,
	    "(any<object, string>, any<object, string>) => array[object]", 0 },
	{ "graphql.parse_and_verify", 2, bi_parse_and_verify,
	    "(any<object, string>, any<object, string>) => array[any]", 0 },
	{ "graphql.parse_query", 1, bi_parse_query, "(string) => object", 0 },
	{ "graphql.parse_schema", 1, bi_parse_schema, "(string) => object", 0 },
	{ "graphql.schema_is_valid", 1, bi_schema_is_valid,
	    "(any<object, string>) => boolean", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
