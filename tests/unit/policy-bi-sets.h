/*
 * policy-bi-sets.h: what both tables of Rego builtin checks need
 * (policy-bi.h and policy-bi-rows.h): sets written in JSON.
 */
#ifndef AXG_TESTS_POLICY_BI_SETS_H
#define AXG_TESTS_POLICY_BI_SETS_H

#include <stddef.h>

#include "policy/value.h"

/* Replace {"$set": [...]} by sets, recursively; returns a new reference. */
static inline struct axv *
bi_sets(struct axv *v)
{
	struct axv *r, *s;
	size_t i;

	switch (axv_kind(v)) {
	case AXV_ARRAY:
		r = axv_array_new(axv_array_len(v));
		for (i = 0; i < axv_array_len(v); i++)
			axv_array_push(r, bi_sets(axv_array_get(v, i)));
		return r;
	case AXV_OBJECT:
		s = axv_object_gets(v, "$set");
		if (s != NULL && axv_object_len(v) == 1 &&
		    axv_kind(s) == AXV_ARRAY) {
			r = axv_set_new(axv_array_len(s));
			for (i = 0; i < axv_array_len(s); i++)
				axv_set_add(r, bi_sets(axv_array_get(s, i)));
			return r;
		}
		r = axv_object_new(axv_object_len(v));
		for (i = 0; i < axv_object_len(v); i++)
			axv_object_put(r, bi_sets(axv_object_key(v, i)),
			    bi_sets(axv_object_val(v, i)));
		return r;
	default:
		return axv_ref(v);
	}
}

#endif /* AXG_TESTS_POLICY_BI_SETS_H */
