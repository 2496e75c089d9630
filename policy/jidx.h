/*
 * jidx.h: join indexes over constant collections (internal).
 *
 * For `some x in data.coll; <filter on x and a probe value>` the compiler
 * (compile.c) proves a necessary condition of the filter for each element
 * of the collection: "the probe equals K", "the probe starts with K",
 * "the probe ends with K", or "maybe" (kept as a candidate for every
 * probe).  The index maps a probe value to the ascending positions of the
 * elements that may match it; the evaluator runs the rest of the body for
 * those only, so the filter itself still decides, and an element the index
 * leaves out is one the filter would have rejected without an error.
 *
 * A builder (jidx_builder_*) collects the keys with malloc; jidx_freeze
 * copies the result into the compiled policy's arena, where it is
 * immutable and shared by every evaluation and thread.
 */
#ifndef AXP_JIDX_H
#define AXP_JIDX_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/ast.h"
#include "policy/value.h"

enum jidx_kind {
	JK_EQ,	   /* probe == key (any value) */
	JK_PREFIX, /* probe (a string) starts with key */
	JK_SUFFIX, /* probe (a string) ends with key */
	JK_CIDR,   /* net.cidr_contains(key, probe): key a CIDR string,
		    * probe an IP address string */
};

struct jidx;
struct jidx_builder;

/* A builder over coll (an array, object or set); positions are those of
 * the collection's iteration order. */
struct jidx_builder *jidx_builder_new(struct axv *coll);
void jidx_builder_free(struct jidx_builder *b);
/* Element pos may match a probe related to key (borrowed; a string for
 * JK_PREFIX and JK_SUFFIX) by kind. */
void jidx_add(struct jidx_builder *b, uint32_t pos, enum jidx_kind kind,
    struct axv *key);
/* Element pos may match any probe. */
void jidx_add_always(struct jidx_builder *b, uint32_t pos);
/* The probe must be a string for the index to answer (the filter calls a
 * string builtin on it); otherwise every element is a candidate. */
void jidx_need_string(struct jidx_builder *b);
/* The frozen index, allocated in a (NULL: the index would not narrow the
 * scan, e.g. most elements are always candidates).  Frees nothing. */
const struct jidx *jidx_freeze(struct jidx_builder *b, struct ast_arena *a);

/* The collection the index was built over (the evaluator uses the index
 * only when it scans that very value). */
const struct axv *jidx_coll(const struct jidx *x);

/* Candidate positions: v[0..n), in small until they outgrow it. */
struct jidx_cands {
	uint32_t *v;
	size_t n, cap;
	uint32_t small[32];
};

void jidx_cands_init(struct jidx_cands *c);
void jidx_cands_free(struct jidx_cands *c);

/* The candidates for probe, ascending and distinct, into c (emptied
 * first).  0, or -1 when the index cannot answer for this probe (scan
 * everything). */
int jidx_lookup(const struct jidx *x, const struct axv *probe,
    struct jidx_cands *c);

#endif /* AXP_JIDX_H */
