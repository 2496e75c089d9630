/* value-build.c: objects built in bulk (collect, sort once, dedupe). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/value-build.h"
#include "policy/value-int.h"

/* The key order of objects (axv_compare), with a shortcut for the common
 * case of two strings. */
static int
key_cmp(const struct axv *a, const struct axv *b)
{
	if (a->kind == AXV_STRING && b->kind == AXV_STRING) {
		const struct axv_str *x = AXV_STR(a), *y = AXV_STR(b);
		size_t n = x->len < y->len ? x->len : y->len;
		int c = n ? memcmp(x->s, y->s, n) : 0;

		if (c != 0)
			return c < 0 ? -1 : 1;
		return x->len < y->len ? -1 : x->len > y->len;
	}
	return axv_compare(a, b);
}

static int
kv_cmp(const void *a, const void *b)
{
	const struct axv_kv *x = a, *y = b;
	int c = key_cmp(x->k, y->k);

	if (c != 0)
		return c;
	return x->at < y->at ? -1 : x->at > y->at;
}

struct axv *
axv_object_build(struct axv_kv *kv, size_t n)
{
	size_t i, out = 0;
	bool sorted = true;

	for (i = 1; i < n && sorted; i++)
		sorted = key_cmp(kv[i - 1].k, kv[i].k) < 0;
	if (!sorted) {
		for (i = 0; i < n; i++)
			kv[i].at = i;
		qsort(kv, n, sizeof(*kv), kv_cmp);
		/* Duplicates are now adjacent, in the order added: keep the
		 * first key and the last value. */
		for (i = 0; i < n; i++) {
			if (out > 0 && key_cmp(kv[out - 1].k, kv[i].k) == 0) {
				axv_unref(kv[i].k);
				axv_unref(kv[out - 1].v);
				kv[out - 1].v = kv[i].v;
				continue;
			}
			kv[out++] = kv[i];
		}
		n = out;
	}
	return axv_object_build_sorted(kv, n);
}

struct axv *
axv_object_build_sorted(const struct axv_kv *kv, size_t n)
{
	struct axv *obj = axv_object_new(n);
	struct axv_obj *o = (struct axv_obj *)obj;
	size_t i;

	for (i = 0; i < n; i++) {
		o->k[i] = kv[i].k;
		o->v[i] = kv[i].v;
	}
	o->len = n;
	return obj;
}

struct axv *
axv_object_group(struct axv_kv *kv, size_t n)
{
	struct axv *obj;
	struct axv_obj *o;
	size_t i, j, out = 0;

	for (i = 0; i < n; i++)
		kv[i].at = i;
	if (n > 1)
		qsort(kv, n, sizeof(*kv), kv_cmp);
	/* Count the distinct keys first: the object is allocated once. */
	for (i = 0; i < n; i++)
		if (i == 0 || key_cmp(kv[i - 1].k, kv[i].k) != 0)
			out++;
	obj = axv_object_new(out);
	o = (struct axv_obj *)obj;
	for (i = 0; i < n; i = j) {
		struct axv *list;

		for (j = i + 1; j < n && key_cmp(kv[i].k, kv[j].k) == 0; j++)
			;
		list = axv_array_new(j - i);
		for (size_t m = i; m < j; m++) {
			axv_array_push(list, kv[m].v);
			if (m > i)
				axv_unref(kv[m].k);
		}
		o->k[o->len] = kv[i].k;
		o->v[o->len] = list;
		o->len++;
	}
	return obj;
}

void
axv_pairs_add(struct axv_pairs *p, struct axv *key, struct axv *val)
{
	if (p->len == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->kv = axg_reallocarray(p->kv, p->cap, sizeof(*p->kv));
	}
	p->kv[p->len].k = key;
	p->kv[p->len].v = val;
	p->len++;
}

void
axv_pairs_clear(struct axv_pairs *p)
{
	for (size_t i = 0; i < p->len; i++) {
		axv_unref(p->kv[i].k);
		axv_unref(p->kv[i].v);
	}
	free(p->kv);
	memset(p, 0, sizeof(*p));
}

struct axv *
axv_pairs_object(struct axv_pairs *p)
{
	struct axv *obj = axv_object_build(p->kv, p->len);

	free(p->kv);
	memset(p, 0, sizeof(*p));
	return obj;
}

struct axv *
axv_pairs_group(struct axv_pairs *p)
{
	struct axv *obj = axv_object_group(p->kv, p->len);

	free(p->kv);
	memset(p, 0, sizeof(*p));
	return obj;
}
