/*
 * value-int.h: the layout of values, for the files of policy/ that need
 * speed (value*.c, the evaluator).  Builtins use value.h only.
 */
#ifndef AXP_VALUE_INT_H
#define AXP_VALUE_INT_H

#include <openssl/bn.h>

#include "policy/value.h"

#define AXV_IMMORTAL UINT32_MAX

struct axv {
	uint32_t refs;
	uint8_t kind;
	uint8_t sub; /* bool: the value; number: enum axv_numkind */
};

enum axv_numkind {
	AXV_NUM_INT = 0, /* i */
	AXV_NUM_BIG,	 /* bn (never fits int64) */
	AXV_NUM_FLOAT,	 /* d, text */
};

struct axv_num {
	struct axv h;
	int64_t i;
	double d;
	BIGNUM *bn;
	char *text; /* decimal text of a float, or NULL */
};

struct axv_str {
	struct axv h;
	size_t len;
	char s[];
};

/* Arrays, objects and sets keep their first few elements in the value
 * itself (inl), so that the small composites an evaluation builds take
 * one allocation, from the value pool; e points at inl until they grow. */
#define AXV_INL 4

struct axv_arr {
	struct axv h;
	size_t len, cap;
	struct axv **e;
	struct axv *inl[AXV_INL];
};

/* Objects and sets are kept sorted by axv_compare of the key. */
struct axv_obj {
	struct axv h;
	size_t len, cap;
	struct axv **k;
	struct axv **v;
	/* A hash of the string keys of a large object, built by the lookups
	 * once it stops changing (see value.c); freed by an insertion. */
	uint32_t *hidx;
	uint32_t nget;		      /* lookups since the last insertion */
	struct axv *inl[2 * AXV_INL]; /* keys, then values */
};

struct axv_set {
	struct axv h;
	size_t len, cap;
	struct axv **e;
	struct axv *inl[AXV_INL];
};

#define AXV_STR(v) ((const struct axv_str *)(v))
#define AXV_ARR(v) ((const struct axv_arr *)(v))
#define AXV_OBJ(v) ((const struct axv_obj *)(v))
#define AXV_SET(v) ((const struct axv_set *)(v))
#define AXV_NUM(v) ((const struct axv_num *)(v))

void axv_num_free(struct axv_num *n);

/* Free a value whose last reference is gone (value.c). */
void axv_free_last(struct axv *v);

/* axv_ref and axv_unref inline, for the evaluator's hot paths. */
static inline struct axv *
axv_ref_inline(struct axv *v)
{
	if (v != NULL && v->refs != AXV_IMMORTAL)
		__atomic_add_fetch(&v->refs, 1, __ATOMIC_RELAXED);
	return v;
}

static inline void
axv_unref_inline(struct axv *v)
{
	uint32_t r;

	if (v == NULL ||
	    (r = __atomic_load_n(&v->refs, __ATOMIC_ACQUIRE)) == AXV_IMMORTAL)
		return;
	/* the last reference is ours alone: nobody else can reach the
	 * value to change its count, so no locked operation is needed */
	if (r == 1 || __atomic_sub_fetch(&v->refs, 1, __ATOMIC_ACQ_REL) == 0)
		axv_free_last(v);
}

/* The memory of value headers (and short strings): a per-thread cache of
 * freed blocks by 16-byte size class, so that the many short-lived values
 * of an evaluation skip malloc.  A block may be freed by any thread. */
void *axv_mem_alloc(size_t size);
void axv_mem_free(void *p, size_t size);
/* Binary search for key among sorted keys; returns index or -(pos+1). */
ptrdiff_t axv_bsearch(struct axv *const *arr, size_t n, const struct axv *key);

/* Decode a JSON string body (p is just after the opening quote) into b.
 * 0 with *stop after the closing quote, or -1 with *stop at the problem and
 * *why saying what it is. */
int axv_json_unquote(const char *p, const char *end, struct axg_buf *b,
    const char **stop, const char **why);

#endif /* AXP_VALUE_INT_H */
