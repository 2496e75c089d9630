/*
 * policy-bi.h: table-driven checks of Rego builtins, shared by the
 * t-policy-bi-*.c programs.
 *
 * A row names a builtin, its arguments as one JSON array, and what the call
 * must give:
 *   "undefined"            no result and no error;
 *   "!CODE: TEXT"          an error with code CODE (e.g. eval_type_error)
 *                          whose message contains TEXT;
 *   "=TEXT"                a result whose canonical JSON is exactly TEXT;
 *   anything else          JSON of a value equal to the result.
 * Sets are not JSON: in arguments and expected values an object
 * {"$set": [...]} stands for the set of those elements.
 */
#ifndef AXG_TESTS_POLICY_BI_H
#define AXG_TESTS_POLICY_BI_H

#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value.h"
#include "tests/tap.h"
#include "tests/unit/policy-bi-sets.h"

struct bi_row {
	const char *fn;
	const char *args;
	const char *want;
};

static inline struct axv *
bi_parse(const char *text)
{
	char err[128];
	struct axv *j, *v;

	j = axv_from_json(text, strlen(text), NULL, err, sizeof(err));
	if (j == NULL) {
		tap_diag("bad JSON in table: %s: %s", text, err);
		return NULL;
	}
	v = bi_sets(j);
	axv_unref(j);
	return v;
}

/* Run one row; one TAP check. */
static inline void
bi_check(const struct bi_row *r)
{
	const struct axp_builtin *b = axp_builtin_lookup(r->fn, strlen(r->fn));
	struct axp_bctx ctx;
	struct axv *args = NULL, *out = NULL, *want = NULL;
	char *before = NULL, *after = NULL, *got = NULL;
	bool pass = false;
	int rc;

	if (b == NULL) {
		ok(0, "%s%s: builtin registered", r->fn, r->args);
		return;
	}
	args = bi_parse(r->args);
	if (args == NULL || axv_kind(args) != AXV_ARRAY ||
	    (int)axv_array_len(args) != b->arity) {
		ok(0, "%s%s: arguments parse, arity %d", r->fn, r->args,
		    b->arity);
		goto done;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.name = b->name;
	before = axv_to_rego_string(args);
	{
		struct axv *argv[8];
		size_t i;

		for (i = 0; i < axv_array_len(args) && i < 8; i++)
			argv[i] = axv_array_get(args, i);
		rc = b->fn(&ctx, argv, &out);
	}
	after = axv_to_rego_string(args);
	if (strcmp(before, after) != 0) {
		ok(0, "%s%s: arguments left unchanged", r->fn, r->args);
		goto done;
	}
	if (rc == AXP_BI_OK)
		got = axv_to_rego_string(out);
	else if (rc == AXP_BI_UNDEF)
		got = axg_strdup("undefined");
	else
		got =
		    axg_asprintf("!%s: %s", axp_errcode_str(ctx.code), ctx.msg);
	if (strcmp(r->want, "undefined") == 0) {
		pass = rc == AXP_BI_UNDEF;
	} else if (r->want[0] == '!') {
		const char *colon = strchr(r->want, ':');
		size_t cl = colon ? (size_t)(colon - r->want - 1) : 0;
		const char *code = axp_errcode_str(ctx.code);
		pass = rc == AXP_BI_ERROR && colon != NULL &&
		    strlen(code) == cl && memcmp(code, r->want + 1, cl) == 0 &&
		    strstr(ctx.msg, colon + 2) != NULL;
	} else if (r->want[0] == '=') {
		if (rc == AXP_BI_OK) {
			char *js = axv_json_str(out);
			pass = strcmp(js, r->want + 1) == 0;
			if (!pass)
				tap_diag("json: %s", js);
			free(js);
		}
	} else {
		want = bi_parse(r->want);
		pass = rc == AXP_BI_OK && want != NULL &&
		    axv_equal(out, want) && axv_kind(out) == axv_kind(want);
	}
	if (!ok(pass, "%s%s -> %s", r->fn, r->args, r->want))
		tap_diag("got: %s", got);
done:
	free(before);
	free(after);
	free(got);
	axv_unref(args);
	axv_unref(out);
	axv_unref(want);
}

static inline void
bi_run(const struct bi_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		bi_check(&rows[i]);
}

#endif /* AXG_TESTS_POLICY_BI_H */
