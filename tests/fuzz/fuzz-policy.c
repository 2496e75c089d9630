/*
 * fuzz-policy: libFuzzer target for the Rego parser and compiler, and a
 * bounded evaluation of what compiles.
 *
 * The input is a module; if it compiles, the query data.x is evaluated
 * with a small step limit so a runaway policy ends with an error.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axp_compiler *c = axp_compiler_new();
	struct axp_policy *p;
	struct axp_query *q;
	struct axv *res = NULL;
	struct axp_eval_opts opts;
	struct axp_error err;

	memset(&opts, 0, sizeof(opts));
	opts.max_steps = 20000;
	axp_compiler_add_module(c, "fuzz.rego", (const char *)data, size);
	p = axp_compiler_compile(c);
	if (p != NULL) {
		q = axp_query_prepare(p, "x = data", &err);
		if (q != NULL) {
			memset(&err, 0, sizeof(err));
			axp_eval(q, NULL, &opts, &res, &err);
			axv_unref(res);
			axp_query_free(q);
		}
		axp_error_clear(&err);
		axp_policy_free(p);
	}
	axp_compiler_free(c);
	return 0;
}
