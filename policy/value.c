/* value.c: Rego values: references, constructors, composites, order. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "policy/value-int.h"

/* ---- memory ---- */
#if defined(__SANITIZE_ADDRESS__)
#define AXV_NO_POOL 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AXV_NO_POOL 1
#endif
#endif

/* Bytes of values this thread made and has not freed (a value freed by
 * another thread counts there): the evaluator's memory limit reads it. */
static __thread int64_t mem_live;

int64_t
axv_mem_live(void)
{
	return mem_live;
}

#define POOL_CLASSES 8	 /* 16, 32, ... 128 bytes */
#define POOL_MAX     256 /* blocks kept per class and thread */

#ifndef AXV_NO_POOL
struct pool_block {
	struct pool_block *next;
};

struct pool {
	struct pool_block *head[POOL_CLASSES];
	uint32_t n[POOL_CLASSES];
};

static __thread struct pool *pool_tls;
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void
pool_release(void *p)
{
	struct pool *pl = p;
	int c;

	for (c = 0; c < POOL_CLASSES; c++) {
		while (pl->head[c] != NULL) {
			struct pool_block *b = pl->head[c];
			pl->head[c] = b->next;
			free(b);
		}
	}
	free(pl);
}

static void
pool_key_init(void)
{
	(void)pthread_key_create(&pool_key, pool_release);
}

static struct pool *
pool_get(void)
{
	struct pool *pl = pool_tls;

	if (pl != NULL)
		return pl;
	if (pthread_once(&pool_once, pool_key_init) != 0)
		return NULL;
	pl = axg_calloc(1, sizeof(*pl));
	if (pthread_setspecific(pool_key, pl) != 0) {
		free(pl);
		return NULL;
	}
	pool_tls = pl;
	return pl;
}
#endif

void *
axv_mem_alloc(size_t size)
{
	mem_live += (int64_t)size;
#ifndef AXV_NO_POOL
	size_t c = (size - 1) / 16;
	struct pool *pl;

	if (c < POOL_CLASSES && (pl = pool_tls) != NULL &&
	    pl->head[c] != NULL) {
		struct pool_block *b = pl->head[c];
		pl->head[c] = b->next;
		pl->n[c]--;
		return b;
	}
	if (c < POOL_CLASSES)
		return axg_malloc((c + 1) * 16);
#endif
	return axg_malloc(size);
}

void
axv_mem_free(void *p, size_t size)
{
	mem_live -= (int64_t)size;
#ifndef AXV_NO_POOL
	size_t c = (size - 1) / 16;
	struct pool *pl;

	if (c < POOL_CLASSES && (pl = pool_get()) != NULL &&
	    pl->n[c] < POOL_MAX) {
		struct pool_block *b = p;
		b->next = pl->head[c];
		pl->head[c] = b;
		pl->n[c]++;
		return;
	}
#else
	(void)size;
#endif
	free(p);
}

/* Storage for n elements from the value memory: a vector of up to 16
 * comes from the thread's pool, as the values themselves do. */
static struct axv **
vec_alloc(size_t n)
{
	if (n > SIZE_MAX / sizeof(struct axv *))
		axg_fatal(1, "out of memory");
	return axv_mem_alloc(n * sizeof(struct axv *));
}

static void
vec_free(struct axv **e, size_t n)
{
	axv_mem_free(e, n * sizeof(*e));
}

static struct axv v_null = { AXV_IMMORTAL, AXV_NULL, 0 };
static struct axv v_false = { AXV_IMMORTAL, AXV_BOOL, 0 };
static struct axv v_true = { AXV_IMMORTAL, AXV_BOOL, 1 };

struct axv *
axv_ref(struct axv *v)
{
	return axv_ref_inline(v);
}

void
axv_free_last(struct axv *v)
{
	size_t i;

	switch (v->kind) {
	case AXV_NUMBER:
		axv_num_free((struct axv_num *)v);
		return;
	case AXV_ARRAY: {
		struct axv_arr *a = (struct axv_arr *)v;
		for (i = 0; i < a->len; i++)
			axv_unref(a->e[i]);
		if (a->e != a->inl) {
			vec_free(a->e, a->cap);
		}
		axv_mem_free(a, sizeof(*a));
		return;
	}
	case AXV_OBJECT: {
		struct axv_obj *o = (struct axv_obj *)v;
		for (i = 0; i < o->len; i++) {
			axv_unref(o->k[i]);
			axv_unref(o->v[i]);
		}
		if (o->k != o->inl) {
			vec_free(o->k, o->cap);
			vec_free(o->v, o->cap);
		}
		free(o->hidx);
		axv_mem_free(o, sizeof(*o));
		return;
	}
	case AXV_SET: {
		struct axv_set *s = (struct axv_set *)v;
		for (i = 0; i < s->len; i++)
			axv_unref(s->e[i]);
		if (s->e != s->inl) {
			vec_free(s->e, s->cap);
		}
		axv_mem_free(s, sizeof(*s));
		return;
	}
	case AXV_STRING:
		axv_mem_free(v, sizeof(struct axv_str) + AXV_STR(v)->len + 1);
		return;
	default:
		break;
	}
	free(v);
}

void
axv_unref(struct axv *v)
{
	axv_unref_inline(v);
}

#undef axv_kind /* the function; the tag precedes its name */
enum axv_kind
axv_kind(const struct axv *v)
{
	return (enum axv_kind)v->kind;
}
#define axv_kind(v) axv_kind_inline(v)

const char *
axv_kind_name(enum axv_kind k)
{
	static const char *const names[] = { "null", "boolean", "number",
		"string", "array", "object", "set" };
	return (unsigned)k < AXG_ARRAY_LEN(names) ? names[k] : "?";
}

const char *
axv_type_name(const struct axv *v)
{
	return axv_kind_name((enum axv_kind)v->kind);
}

struct axv *
axv_null(void)
{
	return &v_null;
}

struct axv *
axv_bool(bool b)
{
	return b ? &v_true : &v_false;
}

bool(axv_is_true)(const struct axv *v)
{
	return v != NULL && v->kind == AXV_BOOL && v->sub;
}

bool(axv_bool_get)(const struct axv *v)
{
	return v->sub != 0;
}

/* ---- strings ---- */
struct axv *
axv_string_new(size_t n, char **buf)
{
	struct axv_str *v = axv_mem_alloc(sizeof(*v) + n + 1);

	v->h.refs = 1;
	v->h.kind = AXV_STRING;
	v->h.sub = 0;
	v->hash = 0;
	v->len = n;
	v->s[n] = '\0';
	*buf = v->s;
	return &v->h;
}

struct axv *
axv_string(const char *s, size_t n)
{
	char *p;
	struct axv *v = axv_string_new(n, &p);

	if (n > 0)
		memcpy(p, s, n);
	return v;
}

struct axv *
axv_cstr(const char *s)
{
	return axv_string(s, strlen(s));
}

struct axv *
axv_string_own(char *s, size_t n)
{
	struct axv *v = axv_string(s, n);

	free(s);
	return v;
}

const char *(axv_str)(const struct axv *v)
{
	return AXV_STR(v)->s;
}

size_t(axv_strlen)(const struct axv *v)
{
	return AXV_STR(v)->len;
}

bool
axv_str_eq(const struct axv *v, const char *s, size_t n)
{
	return v->kind == AXV_STRING && AXV_STR(v)->len == n &&
	    memcmp(AXV_STR(v)->s, s, n) == 0;
}

/* ---- element storage: inline until it grows ---- */
static struct axv **
vec_new(struct axv **inl, size_t cap_hint, size_t *cap)
{
	if (cap_hint <= AXV_INL) {
		*cap = AXV_INL;
		return inl;
	}
	*cap = cap_hint;
	return vec_alloc(cap_hint);
}

/* Storage for twice *cap elements holding the len of e. */
static struct axv **
vec_grow(struct axv **e, struct axv **inl, size_t len, size_t *cap)
{
	struct axv **r = vec_alloc(*cap * 2);

	memcpy(r, e, len * sizeof(*r));
	if (e != inl)
		vec_free(e, *cap);
	*cap *= 2;
	return r;
}

/* ---- arrays ---- */

struct axv *
axv_array_new(size_t cap_hint)
{
	struct axv_arr *a = axv_mem_alloc(sizeof(*a));

	a->h.refs = 1;
	a->h.kind = AXV_ARRAY;
	a->h.sub = 0;
	a->len = 0;
	a->e = vec_new(a->inl, cap_hint, &a->cap);
	return &a->h;
}

void
axv_array_push(struct axv *arr, struct axv *elem)
{
	struct axv_arr *a = (struct axv_arr *)arr;

	if (a->len == a->cap)
		a->e = vec_grow(a->e, a->inl, a->len, &a->cap);
	a->e[a->len++] = elem;
}

size_t(axv_array_len)(const struct axv *v)
{
	return AXV_ARR(v)->len;
}

struct axv *(axv_array_get)(const struct axv *v, size_t i)
{
	return i < AXV_ARR(v)->len ? AXV_ARR(v)->e[i] : NULL;
}

/* ---- sorted composites ---- */
ptrdiff_t
axv_bsearch(struct axv *const *arr, size_t n, const struct axv *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = axv_compare(arr[mid], key);
		if (c == 0)
			return (ptrdiff_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(ptrdiff_t)lo - 1;
}

struct axv *
axv_object_new(size_t cap_hint)
{
	struct axv_obj *o = axv_mem_alloc(sizeof(*o));

	o->h.refs = 1;
	o->h.kind = AXV_OBJECT;
	o->h.sub = 0;
	o->len = 0;
	o->hidx = NULL;
	o->nget = 0;
	if (cap_hint <= AXV_INL) {
		o->k = o->inl;
		o->v = o->inl + AXV_INL;
		o->cap = AXV_INL;
	} else {
		o->k = vec_alloc(cap_hint);
		o->v = vec_alloc(cap_hint);
		o->cap = cap_hint;
	}
	return &o->h;
}

/* Find key's slot; *found says whether it is there. */
static size_t
obj_slot(const struct axv_obj *o, const struct axv *key, bool *found)
{
	ptrdiff_t r;

	/* Fast path: keys often arrive in order. */
	if (o->len == 0 || axv_compare(o->k[o->len - 1], key) < 0) {
		*found = false;
		return o->len;
	}
	r = axv_bsearch(o->k, o->len, key);
	*found = r >= 0;
	return r >= 0 ? (size_t)r : (size_t)(-r - 1);
}

static void
obj_insert(struct axv_obj *o, size_t pos, struct axv *key, struct axv *val)
{
	if (o->len == o->cap) {
		size_t cap = o->cap;
		if (o->k == o->inl) {
			struct axv **k = o->inl, **v = o->inl + AXV_INL;
			o->k = vec_grow(k, k, o->len, &cap);
			cap = o->cap;
			o->v = vec_grow(v, v, o->len, &cap);
		} else {
			o->k = vec_grow(o->k, o->inl, o->len, &cap);
			cap = o->cap;
			o->v = vec_grow(o->v, o->inl, o->len, &cap);
		}
		o->cap = cap;
	}
	if (o->hidx != NULL) {
		free(o->hidx);
		o->hidx = NULL;
	}
	o->nget = 0;
	if (pos < o->len) {
		memmove(o->k + pos + 1, o->k + pos,
		    (o->len - pos) * sizeof(*o->k));
		memmove(o->v + pos + 1, o->v + pos,
		    (o->len - pos) * sizeof(*o->v));
	}
	o->k[pos] = key;
	o->v[pos] = val;
	o->len++;
}

void
axv_object_put(struct axv *obj, struct axv *key, struct axv *val)
{
	struct axv_obj *o = (struct axv_obj *)obj;
	bool found;
	size_t pos = obj_slot(o, key, &found);

	if (found) {
		axv_unref(key);
		axv_unref(o->v[pos]);
		o->v[pos] = val;
		return;
	}
	obj_insert(o, pos, key, val);
}

bool
axv_object_put_unique(struct axv *obj, struct axv *key, struct axv *val)
{
	struct axv_obj *o = (struct axv_obj *)obj;
	bool found, same;
	size_t pos = obj_slot(o, key, &found);

	if (found) {
		same = axv_equal(o->v[pos], val);
		axv_unref(key);
		axv_unref(val);
		return same;
	}
	obj_insert(o, pos, key, val);
	return true;
}

size_t(axv_object_len)(const struct axv *v)
{
	return AXV_OBJ(v)->len;
}

/* Index of the string key (s, n) among sorted keys, or -1. */
static ptrdiff_t
find_str_key(struct axv *const *k, size_t len, const char *s, size_t n)
{
	size_t lo = 0, hi = len, i;

	if (len <= 16) { /* small objects: equality is all a lookup needs */
		for (i = 0; i < len; i++) {
			const struct axv_str *x = AXV_STR(k[i]);
			if (k[i]->kind == AXV_STRING && x->len == n &&
			    (n == 0 ||
				(x->s[0] == s[0] && memcmp(x->s, s, n) == 0)))
				return (ptrdiff_t)i;
		}
		return -1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, m;
		const struct axv *e = k[mid];
		int c;
		if (e->kind != AXV_STRING) {
			c = e->kind < AXV_STRING ? -1 : 1;
		} else {
			const struct axv_str *x = AXV_STR(e);
			m = x->len < n ? x->len : n;
			c = m ? memcmp(x->s, s, m) : 0;
			if (c == 0)
				c = x->len < n ? -1 : x->len > n;
		}
		if (c == 0)
			return (ptrdiff_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The hash of a large object's string keys: open addressing over pairs of
 * a key's index (plus one; 0 is empty) and its hash, t[0] holding the mask
 * and the pairs from t[2] on (8-byte aligned).  A probe reads a key only
 * when its hash is the one sought: in a large object each key read is
 * likely a cache miss of its own.  An object that
 * is looked up OBJ_HASH_GETS times without an insertion in between (data,
 * an input: they no longer change) gets one; the first lookup to need it
 * builds it and publishes it atomically, as objects are shared between
 * threads once built.  An insertion (only its owner makes one) frees it.
 */
#define OBJ_HASH_MIN  24
#define OBJ_HASH_GETS 4

static uint32_t
str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	/* eight bytes at a time, then the tail */
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (n > 0) {
		w = 0;
		while (n-- > 0)
			w = (w << 8) | (unsigned char)s[n];
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (uint32_t)(h ^ (h >> 29));
}

/* The hash of a string value, computed once: a key looked up in several
 * large objects, or several times, is hashed only the first time.  (The
 * value may be shared between threads: they all store the same number.) */
static uint32_t
str_hash_of(const struct axv *v)
{
	struct axv_str *x = (struct axv_str *)v;
	uint32_t h = __atomic_load_n(&x->hash, __ATOMIC_RELAXED);

	if (h == 0) {
		h = str_hash(x->s, x->len) | 1;
		__atomic_store_n(&x->hash, h, __ATOMIC_RELAXED);
	}
	return h;
}

static const uint32_t *
obj_hash(const struct axv_obj *o)
{
	struct axv_obj *w = (struct axv_obj *)o;
	uint32_t *t = __atomic_load_n(&w->hidx, __ATOMIC_ACQUIRE), *old;
	size_t m = 16, i;

	if (t != NULL || o->len < OBJ_HASH_MIN || o->len >= UINT32_MAX / 4)
		return t;
	if (__atomic_add_fetch(&w->nget, 1, __ATOMIC_RELAXED) < OBJ_HASH_GETS)
		return NULL;
	while (m < 2 * o->len)
		m *= 2;
	t = axg_calloc(2 * m + 2, sizeof(*t));
	t[0] = (uint32_t)(m - 1);
	for (i = 0; i < o->len; i++) {
		uint32_t j, h;
		if (o->k[i]->kind != AXV_STRING)
			continue;
		h = str_hash_of(o->k[i]);
		for (j = h & t[0]; t[2 + 2 * j] != 0; j = (j + 1) & t[0])
			;
		t[2 + 2 * j] = (uint32_t)i + 1;
		t[3 + 2 * j] = h;
	}
	old = NULL;
	if (!__atomic_compare_exchange_n(&w->hidx, &old, t, false,
		__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		free(t);
		t = old;
	}
	return t;
}

/* Index of the string key (s, n) in o, or -1.  key: the string value
 * holding (s, n), whose hash is kept, or NULL. */
static ptrdiff_t
obj_find_str(const struct axv_obj *o, const char *s, size_t n,
    const struct axv *key)
{
	const uint32_t *t;
	uint32_t j, h, e;

	if (o->len < OBJ_HASH_MIN || (t = obj_hash(o)) == NULL)
		return find_str_key(o->k, o->len, s, n);
	h = key != NULL ? str_hash_of(key) : str_hash(s, n) | 1;
	for (j = h & t[0]; (e = t[2 + 2 * j]) != 0; j = (j + 1) & t[0]) {
		const struct axv_str *x;
		if (t[3 + 2 * j] != h) /* no need to read that key */
			continue;
		x = AXV_STR(o->k[e - 1]);
		if (x->len == n && (n == 0 || memcmp(x->s, s, n) == 0))
			return (ptrdiff_t)e - 1;
	}
	return -1;
}

struct axv *
axv_object_get(const struct axv *obj, const struct axv *key)
{
	const struct axv_obj *o = AXV_OBJ(obj);
	ptrdiff_t r;

	if (key->kind == AXV_STRING)
		r = obj_find_str(o, AXV_STR(key)->s, AXV_STR(key)->len, key);
	else
		r = axv_bsearch(o->k, o->len, key);
	return r >= 0 ? o->v[r] : NULL;
}

struct axv *
axv_object_gets(const struct axv *obj, const char *key)
{
	const struct axv_obj *o = AXV_OBJ(obj);
	ptrdiff_t i = obj_find_str(o, key, strlen(key), NULL);

	return i >= 0 ? o->v[i] : NULL;
}

struct axv *(axv_object_key)(const struct axv *v, size_t i)
{
	return AXV_OBJ(v)->k[i];
}

struct axv *(axv_object_val)(const struct axv *v, size_t i)
{
	return AXV_OBJ(v)->v[i];
}

struct axv *
axv_set_new(size_t cap_hint)
{
	struct axv_set *s = axv_mem_alloc(sizeof(*s));

	s->h.refs = 1;
	s->h.kind = AXV_SET;
	s->h.sub = 0;
	s->len = 0;
	s->e = vec_new(s->inl, cap_hint, &s->cap);
	return &s->h;
}

void
axv_set_add(struct axv *set, struct axv *elem)
{
	struct axv_set *s = (struct axv_set *)set;
	ptrdiff_t r;
	size_t pos;

	if (s->len == 0 || axv_compare(s->e[s->len - 1], elem) < 0) {
		pos = s->len;
	} else {
		r = axv_bsearch(s->e, s->len, elem);
		if (r >= 0) {
			axv_unref(elem);
			return;
		}
		pos = (size_t)(-r - 1);
	}
	if (s->len == s->cap)
		s->e = vec_grow(s->e, s->inl, s->len, &s->cap);
	if (pos < s->len)
		memmove(s->e + pos + 1, s->e + pos,
		    (s->len - pos) * sizeof(*s->e));
	s->e[pos] = elem;
	s->len++;
}

size_t(axv_set_len)(const struct axv *v)
{
	return AXV_SET(v)->len;
}

struct axv *(axv_set_at)(const struct axv *v, size_t i)
{
	return AXV_SET(v)->e[i];
}

bool
axv_set_contains(const struct axv *set, const struct axv *elem)
{
	return axv_bsearch(AXV_SET(set)->e, AXV_SET(set)->len, elem) >= 0;
}

int64_t
axv_count(const struct axv *v)
{
	const unsigned char *p;
	size_t i, n;
	int64_t c = 0;

	switch (v->kind) {
	case AXV_ARRAY:
		return (int64_t)AXV_ARR(v)->len;
	case AXV_OBJECT:
		return (int64_t)AXV_OBJ(v)->len;
	case AXV_SET:
		return (int64_t)AXV_SET(v)->len;
	case AXV_STRING:
		p = (const unsigned char *)AXV_STR(v)->s;
		n = AXV_STR(v)->len;
		for (i = 0; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				c++;
		return c;
	default:
		return -1;
	}
}

/* ---- order ---- */
static int
cmp_size(size_t a, size_t b)
{
	return a < b ? -1 : a > b;
}

int
axv_compare(const struct axv *a, const struct axv *b)
{
	size_t i, n;
	int c;

	if (a == b)
		return 0;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	switch (a->kind) {
	case AXV_NULL:
		return 0;
	case AXV_BOOL:
		return (int)a->sub - (int)b->sub;
	case AXV_NUMBER:
		return axv_num_cmp(a, b);
	case AXV_STRING: {
		const struct axv_str *x = AXV_STR(a), *y = AXV_STR(b);
		n = x->len < y->len ? x->len : y->len;
		c = n ? memcmp(x->s, y->s, n) : 0;
		if (c != 0)
			return c < 0 ? -1 : 1;
		return cmp_size(x->len, y->len);
	}
	case AXV_ARRAY: {
		const struct axv_arr *x = AXV_ARR(a), *y = AXV_ARR(b);
		n = x->len < y->len ? x->len : y->len;
		for (i = 0; i < n; i++)
			if ((c = axv_compare(x->e[i], y->e[i])) != 0)
				return c;
		return cmp_size(x->len, y->len);
	}
	case AXV_OBJECT: {
		const struct axv_obj *x = AXV_OBJ(a), *y = AXV_OBJ(b);
		n = x->len < y->len ? x->len : y->len;
		for (i = 0; i < n; i++) {
			if ((c = axv_compare(x->k[i], y->k[i])) != 0)
				return c;
			if ((c = axv_compare(x->v[i], y->v[i])) != 0)
				return c;
		}
		return cmp_size(x->len, y->len);
	}
	case AXV_SET: {
		const struct axv_set *x = AXV_SET(a), *y = AXV_SET(b);
		n = x->len < y->len ? x->len : y->len;
		for (i = 0; i < n; i++)
			if ((c = axv_compare(x->e[i], y->e[i])) != 0)
				return c;
		return cmp_size(x->len, y->len);
	}
	}
	return 0;
}

bool
axv_equal(const struct axv *a, const struct axv *b)
{
	if (a == b)
		return true;
	if (a->kind != b->kind)
		return false;
	if (a->kind == AXV_STRING)
		return AXV_STR(a)->len == AXV_STR(b)->len &&
		    memcmp(AXV_STR(a)->s, AXV_STR(b)->s, AXV_STR(a)->len) == 0;
	return axv_compare(a, b) == 0;
}

static uint64_t
hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t
hash_mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

uint64_t
axv_hash(const struct axv *v)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ v->kind;
	size_t i;

	switch (v->kind) {
	case AXV_NULL:
		return h;
	case AXV_BOOL:
		return hash_mix(h, v->sub);
	case AXV_NUMBER: {
		int64_t i64;
		double d;
		/* Equal numbers hash alike: integral values by their int64,
		 * others by their double. */
		if (axv_num_get_i64(v, &i64))
			return hash_mix(h, (uint64_t)i64);
		d = axv_num_get_double(v);
		return hash_bytes(h, &d, sizeof(d));
	}
	case AXV_STRING:
		return hash_bytes(h, AXV_STR(v)->s, AXV_STR(v)->len);
	case AXV_ARRAY:
		for (i = 0; i < AXV_ARR(v)->len; i++)
			h = hash_mix(h, axv_hash(AXV_ARR(v)->e[i]));
		return h;
	case AXV_OBJECT:
		for (i = 0; i < AXV_OBJ(v)->len; i++) {
			h = hash_mix(h, axv_hash(AXV_OBJ(v)->k[i]));
			h = hash_mix(h, axv_hash(AXV_OBJ(v)->v[i]));
		}
		return h;
	case AXV_SET:
		for (i = 0; i < AXV_SET(v)->len; i++)
			h = hash_mix(h, axv_hash(AXV_SET(v)->e[i]));
		return h;
	}
	return h;
}
