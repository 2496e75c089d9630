/* builtins.c: the registry of builtin functions, and the error helpers
 * builtins use. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"

/* Every family's table; add a new family here. */
static const struct axp_builtin *const axp_builtin_families[] = {
	axp_builtins_compare,
	axp_builtins_arith,
	axp_builtins_aggregates,
	axp_builtins_strings,
	axp_builtins_internal,
	axp_builtins_arrays,
	axp_builtins_sets,
	axp_builtins_types,
	axp_builtins_numbers,
	axp_builtins_objects,
	axp_builtins_jsonpatch,
	axp_builtins_encoding,
	axp_builtins_bits,
	axp_builtins_net,
	axp_builtins_time,
	axp_builtins_sprintf,
	axp_builtins_regex,
	axp_builtins_glob,
	axp_builtins_units,
	axp_builtins_semver,
	axp_builtins_uuid,
	axp_builtins_crypto,
	axp_builtins_jwt,
	axp_builtins_x509,
	axp_builtins_math,
	axp_builtins_graph,
	axp_builtins_providers,
	axp_builtins_uri,
	axp_builtins_jsonschema,
	axp_builtins_http,
	axp_builtins_template,
	axp_builtins_graphql,
};

static const struct axp_builtin **registry;
static size_t registry_len;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static int
cmp_entry(const void *a, const void *b)
{
	const struct axp_builtin *x = *(const struct axp_builtin *const *)a;
	const struct axp_builtin *y = *(const struct axp_builtin *const *)b;

	return strcmp(x->name, y->name);
}

static void
registry_build(void)
{
	size_t f, i, n = 0;

	for (f = 0; f < AXG_ARRAY_LEN(axp_builtin_families); f++)
		for (i = 0; axp_builtin_families[f][i].name != NULL; i++)
			n++;
	registry = axg_calloc(n + 1, sizeof(*registry));
	for (f = 0; f < AXG_ARRAY_LEN(axp_builtin_families); f++)
		for (i = 0; axp_builtin_families[f][i].name != NULL; i++)
			registry[registry_len++] = &axp_builtin_families[f][i];
	qsort(registry, registry_len, sizeof(*registry), cmp_entry);
	for (i = 1; i < registry_len; i++)
		if (strcmp(registry[i - 1]->name, registry[i]->name) == 0)
			axg_fatal(1, "builtin %s registered twice",
			    registry[i]->name);
}

const struct axp_builtin *
axp_builtin_lookup(const char *name, size_t n)
{
	size_t lo = 0, hi;

	pthread_once(&registry_once, registry_build);
	hi = registry_len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = registry[mid]->name;
		int c = strncmp(m, name, n);
		if (c == 0 && m[n] != '\0')
			c = 1;
		if (c == 0)
			return registry[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *
axp_builtin_infix(const char *op)
{
	static const char *const map[][2] = {
		{ "+", "plus" },
		{ "-", "minus" },
		{ "*", "mul" },
		{ "/", "div" },
		{ "%", "rem" },
		{ "==", "equal" },
		{ "!=", "neq" },
		{ "<", "lt" },
		{ "<=", "lte" },
		{ ">", "gt" },
		{ ">=", "gte" },
		{ "&", "and" },
		{ "|", "or" },
	};
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(map); i++)
		if (strcmp(map[i][0], op) == 0)
			return map[i][1];
	return NULL;
}

const char *
axp_errcode_str(enum axp_errcode code)
{
	switch (code) {
	case AXP_OK:
		return "ok";
	case AXP_ERR_PARSE:
		return "rego_parse_error";
	case AXP_ERR_COMPILE:
		return "rego_compile_error";
	case AXP_ERR_UNSAFE_VAR:
		return "rego_unsafe_var_error";
	case AXP_ERR_RECURSION:
		return "rego_recursion_error";
	case AXP_ERR_TYPE:
		return "rego_type_error";
	case AXP_ERR_EVAL_TYPE:
		return "eval_type_error";
	case AXP_ERR_EVAL_BUILTIN:
		return "eval_builtin_error";
	case AXP_ERR_EVAL_CONFLICT:
		return "eval_conflict_error";
	case AXP_ERR_EVAL_LIMIT:
		return "eval_limit_error";
	case AXP_ERR_EVAL_INTERNAL:
		return "eval_internal_error";
	case AXP_ERR_INVALID:
		return "invalid_argument";
	}
	return "unknown_error";
}

int
axp_bi_number_out(struct axp_bctx *ctx, struct axv *v, struct axv **out)
{
	if (!axv_num_is_finite(v)) {
		axv_unref(v);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "arithmetic result out of range");
	}
	*out = v;
	return AXP_BI_OK;
}

int
axp_bi_error(struct axp_bctx *ctx, enum axp_errcode code, const char *fmt, ...)
{
	va_list ap;
	int n;

	ctx->code = code;
	n = snprintf(ctx->msg, sizeof(ctx->msg),
	    "%s: ", ctx->name ? ctx->name : "builtin");
	if (n < 0 || (size_t)n >= sizeof(ctx->msg))
		return AXP_BI_ERROR;
	va_start(ap, fmt);
	vsnprintf(ctx->msg + n, sizeof(ctx->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return AXP_BI_ERROR;
}

int
axp_bi_type_error(struct axp_bctx *ctx, int pos, const char *want,
    const struct axv *got)
{
	return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
	    "operand %d must be %s but got %s", pos, want, axv_type_name(got));
}

bool
axp_bi_want_fail(struct axp_bctx *ctx, struct axv *const *args, int pos,
    enum axv_kind k)
{
	axp_bi_type_error(ctx, pos, axv_kind_name(k), args[pos - 1]);
	return false;
}
