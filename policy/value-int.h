/*
 * value-int.h: the layout of values, for the files of policy/ that need
 * speed: value*.c and the evaluator use it directly; the builtins get its
 * inline accessors through builtins.h and otherwise use value.h only.
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
	uint32_t hash; /* of the bytes, once a lookup needed it; 0: not yet */
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

/* The accessors of value.h, inline for the files of policy/ (the
 * evaluator and the builtins call them on every step).  The files that
 * define the out-of-line versions write their names in parentheses. */
static inline enum axv_kind
axv_kind_inline(const struct axv *v)
{
	return (enum axv_kind)v->kind;
}

static inline bool
axv_bool_get_inline(const struct axv *v)
{
	return v->sub != 0;
}

static inline bool
axv_is_true_inline(const struct axv *v)
{
	return v != NULL && v->kind == AXV_BOOL && v->sub;
}

static inline const char *
axv_str_inline(const struct axv *v)
{
	return ((const struct axv_str *)v)->s;
}

static inline size_t
axv_strlen_inline(const struct axv *v)
{
	return ((const struct axv_str *)v)->len;
}

static inline size_t
axv_array_len_inline(const struct axv *v)
{
	return ((const struct axv_arr *)v)->len;
}

static inline struct axv *
axv_array_get_inline(const struct axv *v, size_t i)
{
	const struct axv_arr *a = (const struct axv_arr *)v;

	return i < a->len ? a->e[i] : NULL;
}

static inline size_t
axv_object_len_inline(const struct axv *v)
{
	return ((const struct axv_obj *)v)->len;
}

static inline struct axv *
axv_object_key_inline(const struct axv *v, size_t i)
{
	return ((const struct axv_obj *)v)->k[i];
}

static inline struct axv *
axv_object_val_inline(const struct axv *v, size_t i)
{
	return ((const struct axv_obj *)v)->v[i];
}

static inline size_t
axv_set_len_inline(const struct axv *v)
{
	return ((const struct axv_set *)v)->len;
}

static inline struct axv *
axv_set_at_inline(const struct axv *v, size_t i)
{
	return ((const struct axv_set *)v)->e[i];
}

static inline bool
axv_num_get_i64_inline(const struct axv *v, int64_t *out)
{
	if (v->sub != AXV_NUM_INT)
		return false;
	*out = ((const struct axv_num *)v)->i;
	return true;
}

#define axv_kind(v)	      axv_kind_inline(v)
#define axv_bool_get(v)	      axv_bool_get_inline(v)
#define axv_is_true(v)	      axv_is_true_inline(v)
#define axv_str(v)	      axv_str_inline(v)
#define axv_strlen(v)	      axv_strlen_inline(v)
#define axv_array_len(v)      axv_array_len_inline(v)
#define axv_array_get(v, i)   axv_array_get_inline(v, i)
#define axv_object_len(v)     axv_object_len_inline(v)
#define axv_object_key(v, i)  axv_object_key_inline(v, i)
#define axv_object_val(v, i)  axv_object_val_inline(v, i)
#define axv_set_len(v)	      axv_set_len_inline(v)
#define axv_set_at(v, i)      axv_set_at_inline(v, i)
#define axv_num_get_i64(v, o) axv_num_get_i64_inline(v, o)

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
/* Bytes of values (headers, strings, element storage) the calling thread
 * has made and not freed: compared before and after, a measure of what an
 * evaluation holds. */
int64_t axv_mem_live(void);
/* Binary search for key among sorted keys; returns index or -(pos+1). */
ptrdiff_t axv_bsearch(struct axv *const *arr, size_t n, const struct axv *key);

/* Decode a JSON string body (p is just after the opening quote) into b.
 * 0 with *stop after the closing quote, or -1 with *stop at the problem and
 * *why saying what it is. */
int axv_json_unquote(const char *p, const char *end, struct axg_buf *b,
    const char **stop, const char **why);

#endif /* AXP_VALUE_INT_H */
