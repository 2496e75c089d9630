/*
 * value-build.h: building large objects in bulk (the JSON parser, the YAML
 * policy loader, index building).
 *
 * Inserting keys one at a time into a sorted object moves the tail of the
 * arrays on every out-of-order key; these builders collect the pairs first,
 * sort them once and allocate the object's arrays at their final size.
 */
#ifndef AXP_VALUE_BUILD_H
#define AXP_VALUE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/value.h"

/* One pair; `at` is scratch for the sort. */
struct axv_kv {
	struct axv *k, *v;
	size_t at;
};

/* A new object holding the n pairs kv[] (keys and values consumed; the
 * array itself stays the caller's, its contents undefined afterwards).
 * When a key appears more than once the LAST value wins, as with
 * axv_object_put() called in array order. */
struct axv *axv_object_build(struct axv_kv *kv, size_t n);
/* The same for pairs whose keys are distinct and in order already (the
 * caller knows): no comparison. */
struct axv *axv_object_build_sorted(const struct axv_kv *kv, size_t n);

/* An index: a new object mapping each distinct key of kv[] to the array
 * of its values in array order (keys and values consumed, as above). */
struct axv *axv_object_group(struct axv_kv *kv, size_t n);

/* A growable list of pairs, for builders that add one at a time. */
struct axv_pairs {
	size_t len, cap;
	struct axv_kv *kv;
};

#define AXV_PAIRS_INIT                                                         \
	{                                                                      \
		0, 0, NULL                                                     \
	}

/* Append key -> val (consumes both). */
void axv_pairs_add(struct axv_pairs *p, struct axv *key, struct axv *val);

/* Release every pair still held and the list. */
void axv_pairs_clear(struct axv_pairs *p);

/* A new object of the pairs (consumed; p is left empty, its memory freed). */
struct axv *axv_pairs_object(struct axv_pairs *p);

/* axv_object_group() of the pairs (consumed; p is left empty, its memory
 * freed). */
struct axv *axv_pairs_group(struct axv_pairs *p);

#endif /* AXP_VALUE_BUILD_H */
