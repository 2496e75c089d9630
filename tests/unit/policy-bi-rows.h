/*
 * policy-bi-rows.h: table-driven tests of Rego builtins, called directly
 * through axp_builtin_lookup().
 *
 * A row names a builtin, gives its arguments as one JSON array, and says
 * what to expect:
 *   - JSON text of the result (compared with the canonical JSON output),
 *   - "undefined" for an undefined call,
 *   - "!CODE:TEXT" for an error with that code (e.g. eval_type_error) whose
 *     message contains TEXT.
 * In the arguments, an object {"$set": [...]} stands for a set.
 */
#ifndef AXG_POLICY_BI_ROWS_H
#define AXG_POLICY_BI_ROWS_H

#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value.h"
#include "tests/tap.h"
#include "tests/unit/policy-bi-sets.h"

struct bi_row {
	const char *name;
	const char *args;
	const char *want;
};

static int64_t bi_now_ns = 1700000000123456789LL;

/* Call name with the arguments; returns the status and fills *out or ctx. */
static inline int
bi_call(const char *name, struct axv *const *args, int nargs,
    struct axp_bctx *ctx, struct axv **out)
{
	const struct axp_builtin *b = axp_builtin_lookup(name, strlen(name));

	memset(ctx, 0, sizeof(*ctx));
	ctx->name = name;
	ctx->now_ns = bi_now_ns;
	*out = NULL;
	if (b == NULL) {
		snprintf(ctx->msg, sizeof(ctx->msg), "no builtin %s", name);
		return -2;
	}
	if (b->arity != nargs) {
		snprintf(ctx->msg, sizeof(ctx->msg), "%s takes %d args", name,
		    b->arity);
		return -2;
	}
	return b->fn(ctx, args, out);
}

/* Run one row; returns the result (new reference) when there was one. */
static inline struct axv *
bi_check(const struct bi_row *r, bool keep)
{
	char err[256];
	struct axv *arr, *args, *out = NULL;
	struct axp_bctx ctx;
	int rc;
	char *got = NULL;

	arr = axv_from_json(r->args, strlen(r->args), NULL, err, sizeof(err));
	if (arr == NULL || axv_kind(arr) != AXV_ARRAY) {
		ok(0, "%s%s: args parse: %s", r->name, r->args, err);
		axv_unref(arr);
		return NULL;
	}
	args = bi_sets(arr);
	axv_unref(arr);
	{
		size_t n = axv_array_len(args), i;
		struct axv **av = calloc(n + 1, sizeof(*av));
		for (i = 0; i < n; i++)
			av[i] = axv_array_get(args, i);
		rc = bi_call(r->name, av, (int)n, &ctx, &out);
		free(av);
	}
	if (rc == AXP_BI_OK)
		got = axv_json_str(out);
	else if (rc == AXP_BI_UNDEF)
		got = strdup("undefined");
	else if (rc == AXP_BI_ERROR) {
		size_t l = strlen(ctx.msg) + 64;
		got = malloc(l);
		snprintf(got, l, "!%s:%s", axp_errcode_str(ctx.code), ctx.msg);
	} else
		got = strdup(ctx.msg);
	if (r->want[0] == '!') {
		const char *colon = strchr(r->want, ':');
		size_t cl = colon ? (size_t)(colon - r->want) : strlen(r->want);
		bool good = strncmp(got, r->want, cl) == 0 && got[cl] == ':' &&
		    (colon == NULL || strstr(got + cl, colon + 1) != NULL);
		if (!ok(good, "%s%s -> %s", r->name, r->args, r->want))
			tap_diag("  got: %s", got);
	} else {
		is_str(got, r->want, "%s%s", r->name, r->args);
	}
	free(got);
	axv_unref(args);
	if (!keep) {
		axv_unref(out);
		out = NULL;
	}
	return out;
}

static inline void
bi_run(const struct bi_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		bi_check(&rows[i], false);
}

#endif /* AXG_POLICY_BI_ROWS_H */
