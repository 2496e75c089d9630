/* eval.c: runs the IR: backtracking over blocks of statements, rule and
 * function evaluation with per-evaluation caches, with-modifiers. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy-int.h"
#include "policy/value-int.h"

/* The evaluator takes and drops references all the time: inline. */
#define axv_ref(v)   axv_ref_inline(v)
#define axv_unref(v) axv_unref_inline(v)

#define EV_MAX_SLOTS (1u << 20)
#define EV_MAX_DEPTH 2000

struct cent {
	int state; /* 0 none, 1 computing, 2 done */
	struct axv *v;
};

struct overlay {
	int kind; /* WT_* */
	struct axv *path;
	struct axv *val;
	const struct with_target *wt;
	int group; /* the WITH_PUSH it belongs to */
};

struct collector {
	int kind; /* RG_* or DONE_* for comprehensions */
	struct axv *acc;
	size_t count;
	const struct rgroup *rg;
};

struct with_saved {
	struct axv *input;
	struct cent *cache;
	size_t nov;
};

struct ev {
	const struct axp_policy *pol;
	const struct axp_query *q;
	struct axv *input;
	struct axv *input0;  /* the evaluation's own input */
	struct axv **inmemo; /* input0[key] by input key: see in_key() */
	struct axv **slots;
	size_t fp, top, cap;
	size_t *trail;
	size_t ntrail, captrail;
	struct cent *cache, *top_cache;
	uint32_t *touched; /* the groups cached at the top level */
	size_t ntouched, captouched;
	struct overlay *ov;
	size_t nov, capov;
	struct with_saved *wstack;
	size_t nw;
	struct collector *col;
	uint64_t steps, max_steps;
	uint64_t swallowed;  /* builtin errors made undefined (not strict) */
	uint64_t next_check; /* the step at which limits are checked next */
	int64_t mem_base, max_mem; /* axv_mem_live() at the start, the limit */
	bool strict;
	int64_t now_ns;
	struct axv *memo; /* values of nondeterministic builtins (memo_put) */
	int depth;
	struct axv *results;
	struct axv *exprs; /* NULL: not wanted */
	/* the error */
	bool failed;
	enum axp_errcode code;
	struct ast_loc loc;
	char msg[512]; /* last: not cleared per evaluation */
};

static int run(struct ev *ev, const struct block *b, uint32_t i);

static int ev_error(struct ev *ev, const struct ast_loc *loc,
    enum axp_errcode code, const char *fmt, ...) AXG_PRINTF(4, 5);

static int
ev_error(struct ev *ev, const struct ast_loc *loc, enum axp_errcode code,
    const char *fmt, ...)
{
	va_list ap;

	if (ev->failed)
		return -1;
	ev->failed = true;
	ev->code = code;
	if (loc)
		ev->loc = *loc;
	va_start(ap, fmt);
	vsnprintf(ev->msg, sizeof(ev->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- slots and the trail ---- */
/* The trail lists the slots bound since a mark, so that backtracking can
 * unbind them: slot index << 1, with the low bit set when the slot holds a
 * lent value (no reference of its own: the input, the policy's data, an
 * element of a collection that outlives the binding). */
#define SLOT(ev, i) ((ev)->slots[(ev)->fp + (i)])

static inline void
trail_push(struct ev *ev, size_t t)
{
	if (ev->ntrail == ev->captrail) {
		ev->captrail = ev->captrail ? ev->captrail * 2 : 256;
		ev->trail = axg_reallocarray(ev->trail, ev->captrail,
		    sizeof(*ev->trail));
	}
	ev->trail[ev->ntrail++] = t;
}

/* Bind slot to v, taking over the caller's reference. */
static inline void
bind(struct ev *ev, uint32_t slot, struct axv *v)
{
	size_t idx = ev->fp + slot;

	ev->slots[idx] = v;
	trail_push(ev, idx << 1);
}

/* Bind slot to v without a reference: v must outlive the binding. */
static inline void
lend(struct ev *ev, uint32_t slot, struct axv *v)
{
	size_t idx = ev->fp + slot;

	ev->slots[idx] = v;
	trail_push(ev, idx << 1 | 1);
}

static void
undo(struct ev *ev, size_t mark)
{
	while (ev->ntrail > mark) {
		size_t t = ev->trail[--ev->ntrail], idx = t >> 1;
		if ((t & 1) == 0)
			axv_unref(ev->slots[idx]);
		ev->slots[idx] = NULL;
	}
}

static inline int
frame_push(struct ev *ev, uint32_t n, size_t *saved)
{
	/* Slots above top are all unbound: every binding is on the trail,
	 * and every run() and frame undoes its own before it returns. */
	if (ev->top + n > ev->cap) {
		size_t old = ev->cap;
		if (ev->top + n > EV_MAX_SLOTS)
			return -1;
		while (ev->top + n > ev->cap)
			ev->cap *= 2;
		ev->slots =
		    axg_reallocarray(ev->slots, ev->cap, sizeof(*ev->slots));
		memset(ev->slots + old, 0,
		    (ev->cap - old) * sizeof(*ev->slots));
	}
	*saved = ev->fp;
	ev->fp = ev->top;
	ev->top += n;
	return 0;
}

static inline void
frame_pop(struct ev *ev, size_t saved)
{
	ev->top = ev->fp;
	ev->fp = saved;
}

/* ---- operands ---- */
/* A new reference to the operand's value; NULL if it holds an unbound
 * slot. */
static struct axv *
get(struct ev *ev, const struct opd *o)
{
	struct axv *v, *e, *k;
	uint32_t i;

	switch (o->kind) {
	case OPD_CONST:
		return axv_ref(o->val);
	case OPD_LOCAL:
		return axv_ref(SLOT(ev, o->slot));
	case OPD_ARRAY:
		v = axv_array_new(o->n);
		for (i = 0; i < o->n; i++) {
			if ((e = get(ev, &o->items[i])) == NULL)
				goto fail;
			axv_array_push(v, e);
		}
		return v;
	case OPD_SET:
		v = axv_set_new(o->n);
		for (i = 0; i < o->n; i++) {
			if ((e = get(ev, &o->items[i])) == NULL)
				goto fail;
			axv_set_add(v, e);
		}
		return v;
	case OPD_OBJECT:
		v = axv_object_new(o->n);
		if (o->sorted) {
			/* constant keys in order: append */
			struct axv_obj *ob = (struct axv_obj *)v;
			for (i = 0; i < o->n; i++) {
				if ((e = get(ev, &o->items[2 * i + 1])) == NULL)
					goto fail;
				ob->k[i] = axv_ref(o->items[2 * i].val);
				ob->v[i] = e;
				ob->len = i + 1;
			}
			return v;
		}
		for (i = 0; i < o->n; i++) {
			if ((k = get(ev, &o->items[2 * i])) == NULL)
				goto fail;
			if ((e = get(ev, &o->items[2 * i + 1])) == NULL) {
				axv_unref(k);
				goto fail;
			}
			axv_object_put(v, k, e);
		}
		return v;
	default:
		return NULL;
	}
fail:
	axv_unref(v);
	return NULL;
}

/* A borrowed value for a const or local operand (no reference taken). */
static struct axv *
peek(struct ev *ev, const struct opd *o)
{
	if (o->kind == OPD_CONST)
		return o->val;
	if (o->kind == OPD_LOCAL)
		return SLOT(ev, o->slot);
	return NULL;
}

/* Unify pattern p with v.  lent: v outlives the bindings made, which then
 * take no reference. */
static bool
unify_pat(struct ev *ev, const struct opd *p, struct axv *v, bool lent)
{
	struct axv *k, *e;
	uint32_t i;
	bool ok;

	switch (p->kind) {
	case OPD_CONST:
		return axv_equal(p->val, v);
	case OPD_LOCAL:
		if (SLOT(ev, p->slot) != NULL)
			return axv_equal(SLOT(ev, p->slot), v);
		if (lent)
			lend(ev, p->slot, v);
		else
			bind(ev, p->slot, axv_ref(v));
		return true;
	case OPD_ARRAY:
		if (axv_kind(v) != AXV_ARRAY || axv_array_len(v) != p->n)
			return false;
		for (i = 0; i < p->n; i++)
			if (!unify_pat(ev, &p->items[i], axv_array_get(v, i),
				lent))
				return false;
		return true;
	case OPD_OBJECT:
		if (axv_kind(v) != AXV_OBJECT || axv_object_len(v) != p->n)
			return false;
		for (i = 0; i < p->n; i++) {
			if ((k = get(ev, &p->items[2 * i])) == NULL)
				return false;
			e = axv_object_get(v, k);
			axv_unref(k);
			if (e == NULL ||
			    !unify_pat(ev, &p->items[2 * i + 1], e, lent))
				return false;
		}
		return true;
	case OPD_SET:
		if ((k = get(ev, p)) == NULL)
			return false;
		ok = axv_equal(k, v);
		axv_unref(k);
		return ok;
	default:
		return false;
	}
}

static bool
unify_val(struct ev *ev, const struct opd *p, struct axv *v)
{
	return unify_pat(ev, p, v, false);
}

/* unify_pat(ev, p, v, true) with its most common case, an unbound
 * local (the element var of a scan), inline. */
static inline bool
unify_lent(struct ev *ev, const struct opd *p, struct axv *v)
{
	if (p->kind == OPD_LOCAL && SLOT(ev, p->slot) == NULL) {
		lend(ev, p->slot, v);
		return true;
	}
	return unify_pat(ev, p, v, true);
}

static bool
unify_opd(struct ev *ev, const struct opd *a, const struct opd *b)
{
	struct axv *v;
	bool ok;
	uint32_t i;

	if ((v = get(ev, a)) != NULL) {
		ok = unify_val(ev, b, v);
		axv_unref(v);
		return ok;
	}
	if ((v = get(ev, b)) != NULL) {
		ok = unify_val(ev, a, v);
		axv_unref(v);
		return ok;
	}
	if (a->kind == b->kind && a->n == b->n &&
	    (a->kind == OPD_ARRAY || a->kind == OPD_OBJECT)) {
		/* pair up the elements; solve the pairs with a ground side
		 * first, until no pair is left */
		uint32_t n = a->n, left = n, j;
		uint8_t *solved = axg_calloc(n + 1, 1);
		ok = true;
		while (left > 0 && ok) {
			bool progress = false;
			for (i = 0; i < n && ok; i++) {
				const struct opd *x, *y;
				struct axv *gx, *gy;
				if (solved[i])
					continue;
				if (a->kind == OPD_ARRAY) {
					x = &a->items[i];
					y = &b->items[i];
				} else {
					struct axv *ka =
					    get(ev, &a->items[2 * i]);
					x = &a->items[2 * i + 1];
					y = NULL;
					for (j = 0; ka && j < n; j++) {
						struct axv *kb =
						    get(ev, &b->items[2 * j]);
						bool eq =
						    kb && axv_equal(ka, kb);
						axv_unref(kb);
						if (eq) {
							y = &b->items[2 * j +
							    1];
							break;
						}
					}
					axv_unref(ka);
					if (y == NULL) {
						ok = false;
						break;
					}
				}
				gx = get(ev, x);
				gy = gx ? NULL : get(ev, y);
				if (gx || gy ||
				    (x->kind == y->kind &&
					(x->kind == OPD_ARRAY ||
					    x->kind == OPD_OBJECT))) {
					axv_unref(gx);
					axv_unref(gy);
					ok = unify_opd(ev, x, y);
					solved[i] = 1;
					left--;
					progress = true;
				}
			}
			if (!progress)
				ok = false;
		}
		free(solved);
		return ok;
	}
	return false;
}

/* ---- documents ---- */
/* coll[key], borrowed; NULL if undefined. */
static struct axv *
lookup(struct axv *coll, struct axv *key)
{
	int64_t i;

	switch (axv_kind(coll)) {
	case AXV_OBJECT:
		return axv_object_get(coll, key);
	case AXV_ARRAY:
		if (axv_kind(key) != AXV_NUMBER || !axv_num_get_i64(key, &i) ||
		    i < 0)
			return NULL;
		return axv_array_get(coll, (size_t)i);
	case AXV_SET:
		if (!axv_set_contains(coll, key))
			return NULL;
		{
			ptrdiff_t r = axv_bsearch(AXV_SET(coll)->e,
			    AXV_SET(coll)->len, key);
			return r >= 0 ? AXV_SET(coll)->e[r] : NULL;
		}
	default:
		return NULL;
	}
}

/* A copy of base (an object, or nothing) with path[i..] set to v. */
static struct axv *
patch(struct axv *base, struct axv *path, size_t i, struct axv *v)
{
	struct axv *o, *child;
	size_t j;

	if (i == axv_array_len(path))
		return axv_ref(v);
	o = axv_object_new(0);
	if (base != NULL && axv_kind(base) == AXV_OBJECT)
		for (j = 0; j < axv_object_len(base); j++)
			axv_object_put(o, axv_ref(axv_object_key(base, j)),
			    axv_ref(axv_object_val(base, j)));
	child = base && axv_kind(base) == AXV_OBJECT
	    ? axv_object_get(base, axv_array_get(path, i))
	    : NULL;
	axv_object_put(o, axv_ref(axv_array_get(path, i)),
	    patch(child, path, i + 1, v));
	return o;
}

/* Is a a prefix of b (both arrays of keys)? */
static bool
path_prefix(struct axv *a, struct axv *b)
{
	size_t i, n = axv_array_len(a);

	if (n > axv_array_len(b))
		return false;
	for (i = 0; i < n; i++)
		if (!axv_equal(axv_array_get(a, i), axv_array_get(b, i)))
			return false;
	return true;
}

static struct axv *
descend(struct axv *v, struct axv *path, size_t from)
{
	size_t i;

	for (i = from; v != NULL && i < axv_array_len(path); i++)
		v = lookup(v, axv_array_get(path, i));
	return v;
}

/* Apply data overlays to the value computed for path (consumes v; may
 * return NULL).  *replaced says an overlay supplied the whole value. */
static struct axv *
apply_data_overlays(struct ev *ev, struct axv *path, struct axv *v,
    bool *replaced)
{
	size_t i;

	*replaced = false;
	for (i = ev->nov; i-- > 0;) {
		struct overlay *o = &ev->ov[i];
		if (o->kind != WT_DATA)
			continue;
		if (path_prefix(o->path, path)) {
			struct axv *r =
			    descend(o->val, path, axv_array_len(o->path));
			axv_unref(v);
			*replaced = true;
			return axv_ref(r);
		}
	}
	for (i = 0; i < ev->nov; i++) {
		struct overlay *o = &ev->ov[i];
		struct axv *np;
		size_t j;
		if (o->kind != WT_DATA || !path_prefix(path, o->path))
			continue;
		np = axv_array_new(0);
		for (j = axv_array_len(path); j < axv_array_len(o->path); j++)
			axv_array_push(np, axv_ref(axv_array_get(o->path, j)));
		{
			struct axv *r = patch(v, np, 0, o->val);
			axv_unref(v);
			v = r;
		}
		axv_unref(np);
	}
	return v;
}

static bool
has_data_overlays(struct ev *ev)
{
	size_t i;

	for (i = 0; i < ev->nov; i++)
		if (ev->ov[i].kind == WT_DATA)
			return true;
	return false;
}

static struct axv *
base_at(struct ev *ev, struct axv *path)
{
	struct axv *v = axv_ref(descend(ev->pol->data, path, 0));
	bool rep;

	if (has_data_overlays(ev))
		v = apply_data_overlays(ev, path, v, &rep);
	return v;
}

static int eval_group(struct ev *ev, const struct rgroup *g,
    const struct ast_loc *loc, struct axv **out, bool *lent);

/* Base data b merged with a rule's value v (both references taken): objects
 * merge key by key, and elsewhere the base document keeps its value. */
static struct axv *
merge_base(struct axv *b, struct axv *v)
{
	struct axv *o;
	size_t j;

	if (axv_kind(b) != AXV_OBJECT || axv_kind(v) != AXV_OBJECT) {
		axv_unref(v);
		return b;
	}
	o = axv_object_new(0);
	for (j = 0; j < axv_object_len(b); j++)
		axv_object_put(o, axv_ref(axv_object_key(b, j)),
		    axv_ref(axv_object_val(b, j)));
	for (j = 0; j < axv_object_len(v); j++) {
		struct axv *k = axv_object_key(v, j), *old;
		old = axv_object_get(o, k);
		axv_object_put(o, axv_ref(k),
		    old ? merge_base(axv_ref(old),
			      axv_ref(axv_object_val(v, j)))
			: axv_ref(axv_object_val(v, j)));
	}
	axv_unref(b);
	axv_unref(v);
	return o;
}

/* The virtual document at a node: base data merged with rule values. */
static int
virtual_doc(struct ev *ev, const struct dnode *n, const struct ast_loc *loc,
    struct axv **out)
{
	struct axv *base = base_at(ev, n->path), *o;
	uint32_t i;
	size_t j, nrule = 0;

	if (n->rg != NULL) {
		axv_unref(base);
		if (eval_group(ev, n->rg, loc, &base, NULL) < 0)
			return -1;
		if (base != NULL && axv_kind(base) == AXV_OBJECT)
			nrule = axv_object_len(base);
		if (n->nkids == 0 ||
		    (base != NULL && axv_kind(base) != AXV_OBJECT)) {
			*out = base;
			return 0;
		}
	}
	if (base != NULL && axv_kind(base) != AXV_OBJECT) {
		*out = base;
		return 0;
	}
	o = axv_object_new(0);
	if (base != NULL)
		for (j = 0; j < axv_object_len(base); j++)
			axv_object_put(o, axv_ref(axv_object_key(base, j)),
			    axv_ref(axv_object_val(base, j)));
	axv_unref(base);
	for (i = 0; i < n->nkids; i++) {
		const struct dnode *k = n->kids[i];
		struct axv *v = NULL, *key, *old;
		if (!k->has_rules && k->rg == NULL)
			continue;
		if (k->rg && k->rg->kind == RG_FUNC)
			continue;
		if (virtual_doc(ev, k, loc, &v) < 0) {
			axv_unref(o);
			return -1;
		}
		if (v == NULL)
			continue;
		key = axv_cstr(k->name);
		if ((old = axv_object_get(o, key)) == NULL) {
			axv_object_put(o, key, v);
			continue;
		}
		/* a key both the node's own rules and a rule below define is
		 * a conflict; base data merges with a rule's value */
		if (nrule > 0) {
			axv_unref(key);
			axv_unref(v);
			axv_unref(o);
			return ev_error(ev, loc, AXP_ERR_EVAL_CONFLICT,
			    "object keys must be unique");
		}
		axv_object_put(o, key, merge_base(axv_ref(old), v));
	}
	*out = o;
	return 0;
}

/* data[k] below a node, k known only now: the one child's document, not
 * the whole node's (which may hold the rule asking). */
static int
data_child(struct ev *ev, const struct stmt *s, struct axv **out)
{
	const struct dnode *n = s->node;
	struct axv *k = peek(ev, &s->a), *base;
	uint32_t i;

	*out = NULL;
	if (k == NULL)
		return 0;
	if (axv_kind(k) == AXV_STRING)
		for (i = 0; i < n->nkids; i++)
			if (strcmp(n->kids[i]->name, axv_str(k)) == 0) {
				if (n->kids[i]->rg &&
				    n->kids[i]->rg->kind == RG_FUNC)
					return 0;
				return virtual_doc(ev, n->kids[i], &s->loc,
				    out);
			}
	base = base_at(ev, n->path);
	*out = axv_ref(lookup(base, k));
	axv_unref(base);
	return 0;
}

/* ---- rules ---- */
static int
collect_rule(struct ev *ev, const struct block *b)
{
	struct collector *c = ev->col;
	struct axv *k = NULL, *v = NULL, *cur;
	uint32_t i;
	int rc = 0;

	if (b->val.kind != OPD_NONE && (v = get(ev, &b->val)) == NULL)
		return ev_error(ev, NULL, AXP_ERR_EVAL_INTERNAL,
		    "unbound rule value in %s", c->rg->name);
	switch (c->kind) {
	case RG_COMPLETE:
	case RG_FUNC:
		if (c->acc != NULL && !axv_equal(c->acc, v)) {
			axv_unref(v);
			return ev_error(ev,
			    c->rg->ndefs ? &c->rg->defs[0]->ast->loc : NULL,
			    AXP_ERR_EVAL_CONFLICT,
			    c->kind == RG_FUNC
				? "functions must not produce multiple "
				  "outputs for same inputs"
				: "complete rules must not produce multiple "
				  "outputs");
		}
		if (c->acc == NULL)
			c->acc = v;
		else
			axv_unref(v);
		c->count++;
		return 0;
	case RG_SET:
		if ((k = get(ev, &b->key)) == NULL) {
			axv_unref(v);
			return ev_error(ev, NULL, AXP_ERR_EVAL_INTERNAL,
			    "unbound key");
		}
		if (b->ndpath == 0) {
			axv_set_add(c->acc, k);
			axv_unref(v);
			c->count++;
			return 0;
		}
		axv_unref(v);
		v = k;
		break;
	default:
		break;
	}
	/* object: walk/create the dynamic path */
	cur = c->acc;
	for (i = 0; i < b->ndpath; i++) {
		struct axv *key = get(ev, &b->dpath[i]), *next;
		bool last = i + 1 == b->ndpath;
		if (key == NULL) {
			rc = ev_error(ev, NULL, AXP_ERR_EVAL_INTERNAL,
			    "unbound key");
			break;
		}
		if (last) {
			if (c->kind == RG_SET) {
				next = axv_object_get(cur, key);
				if (next == NULL) {
					next = axv_set_new(0);
					axv_object_put(cur, axv_ref(key), next);
				}
				axv_set_add(next, axv_ref(v));
				axv_unref(key);
			} else if (!axv_object_put_unique(cur, key,
				       axv_ref(v))) {
				rc = ev_error(ev,
				    c->rg->ndefs ? &c->rg->defs[0]->ast->loc
						 : NULL,
				    AXP_ERR_EVAL_CONFLICT,
				    "object keys must be unique");
			}
			break;
		}
		next = axv_object_get(cur, key);
		if (next == NULL) {
			next = axv_object_new(0);
			axv_object_put(cur, key, next);
		} else {
			axv_unref(key);
			if (axv_kind(next) != AXV_OBJECT) {
				rc = ev_error(ev, NULL, AXP_ERR_EVAL_CONFLICT,
				    "object keys must be unique");
				break;
			}
		}
		cur = next;
	}
	axv_unref(v);
	c->count++;
	return rc;
}

static int
run_defs(struct ev *ev, const struct rgroup *g, struct collector *c,
    struct axv *const *args)
{
	struct collector *saved_col = ev->col;
	uint32_t i, j, n = g->ndefs;
	uint64_t solved = 0; /* bit i: definition i had a solution */
	int rc = 0;
	struct rdef *const *defs = g->defs;

	ev->col = c;
	if (args == NULL && c->count == UINT32_MAX) {
		/* the computed default */
		c->count = 0;
		defs = &g->defdef;
		n = 1;
	}
	for (i = 0; i < n && rc >= 0; i++) {
		const struct rdef *d = defs[i];
		size_t first = c->count;
		if (d->excl_by != 0 && (solved >> (d->excl_by - 1) & 1) != 0)
			continue; /* cannot succeed: mark_exclusive() */
		for (; d != NULL; d = d->els) {
			size_t saved_fp, before = c->count, mark;
			bool ok = true;
			if (frame_push(ev, d->nslots, &saved_fp) < 0) {
				rc = ev_error(ev, &d->ast->loc,
				    AXP_ERR_EVAL_LIMIT, "stack overflow");
				break;
			}
			mark = ev->ntrail;
			for (j = 0; j < d->nargs && ok; j++)
				ok = unify_lent(ev, &d->args[j], args[j]);
			if (ok)
				rc = run(ev, d->body, 0);
			if (ev->ntrail != mark)
				undo(ev, mark);
			frame_pop(ev, saved_fp);
			if (rc < 0 || c->count > before)
				break;
		}
		if (c->count > first && i < 64)
			solved |= (uint64_t)1 << i;
	}
	ev->col = saved_col;
	return rc < 0 ? -1 : 0;
}

/* Keep the value v of a pure group (ir.h) in the policy, for every later
 * evaluation: it is the same in each, strict or not, as none of its
 * builtins failed.  The first to publish wins. */
static void
publish_pure(const struct rgroup *g, struct axv *v)
{
	struct rgroup *w = (struct rgroup *)g;
	struct axv *old = NULL;

	axv_ref(v);
	if (!__atomic_compare_exchange_n(&w->pre, &old, v, false,
		__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		axv_unref(v);
}

static int
eval_group(struct ev *ev, const struct rgroup *g, const struct ast_loc *loc,
    struct axv **out, bool *lent)
{
	struct collector c;
	struct cent *ce = &ev->cache[g->id];
	struct axv *pv;
	uint64_t swallowed;
	bool rep = false;

	*out = NULL;
	if (lent != NULL)
		*lent = false;
	if (ce->state == 2) {
		if (lent != NULL) {
			/* the cache keeps it until the evaluation, or the
			 * with-modifier that made the cache, ends */
			*out = ce->v;
			*lent = true;
			return 0;
		}
		*out = axv_ref(ce->v);
		return 0;
	}
	if (ce->state == 1)
		return ev_error(ev, loc, AXP_ERR_EVAL_INTERNAL,
		    "rule %s is recursive", g->name);
	if (g->purity == 2 && ev->nov == 0 &&
	    (pv = __atomic_load_n(&g->pre, __ATOMIC_ACQUIRE)) != NULL) {
		/* a value of the policy alone, made by an earlier evaluation */
		*out = lent != NULL ? pv : axv_ref(pv);
		if (lent != NULL)
			*lent = true;
		return 0;
	}
	swallowed = ev->swallowed;
	if (ev->nov > 0 && has_data_overlays(ev)) {
		struct axv *v =
		    apply_data_overlays(ev, g->node->path, NULL, &rep);
		if (rep) {
			*out = v;
			return 0;
		}
		axv_unref(v);
	}
	if (++ev->depth > EV_MAX_DEPTH) {
		ev->depth--;
		return ev_error(ev, loc, AXP_ERR_EVAL_LIMIT,
		    "evaluation too deep");
	}
	memset(&c, 0, sizeof(c));
	c.kind = g->kind;
	c.rg = g;
	if (g->kind == RG_SET && !g->nested)
		c.acc = axv_set_new(0);
	else if (g->kind == RG_SET)
		c.acc = axv_object_new(0);
	else if (g->kind == RG_OBJECT)
		c.acc = axv_object_new(0);
	if (ev->cache == ev->top_cache) {
		if (ev->ntouched == ev->captouched) {
			ev->captouched =
			    ev->captouched ? ev->captouched * 2 : 32;
			ev->touched = axg_reallocarray(ev->touched,
			    ev->captouched, sizeof(*ev->touched));
		}
		ev->touched[ev->ntouched++] = g->id;
	}
	ce->state = 1;
	if (run_defs(ev, g, &c, NULL) < 0) {
		ce->state = 0;
		ev->depth--;
		axv_unref(c.acc);
		return -1;
	}
	if (c.acc == NULL && g->defdef != NULL) {
		c.count = UINT32_MAX;
		if (run_defs(ev, g, &c, NULL) < 0) {
			ce->state = 0;
			ev->depth--;
			axv_unref(c.acc);
			return -1;
		}
	}
	ev->depth--;
	if (c.acc == NULL && g->defval != NULL)
		c.acc = axv_ref(g->defval);
	if (ev->nov > 0 && has_data_overlays(ev))
		c.acc = apply_data_overlays(ev, g->node->path, c.acc, &rep);
	ce->state = 2;
	ce->v = c.acc;
	if (g->purity == 2 && ev->nov == 0 && c.acc != NULL &&
	    ev->swallowed == swallowed)
		publish_pure(g, c.acc);
	if (lent != NULL) {
		*out = c.acc;
		*lent = true;
		return 0;
	}
	*out = axv_ref(c.acc);
	return 0;
}

static const struct overlay *
find_mock(struct ev *ev, const struct rgroup *rg, const struct axp_builtin *bi)
{
	size_t i;

	for (i = ev->nov; i-- > 0;) {
		const struct overlay *o = &ev->ov[i];
		if ((o->kind == WT_FUNC && rg != NULL && o->wt->rg == rg) ||
		    (o->kind == WT_BUILTIN && bi != NULL && o->wt->bi == bi))
			return o;
	}
	return NULL;
}

static int call_any(struct ev *ev, const struct rgroup *rg,
    const struct axp_builtin *bi, struct axv *const *args, uint32_t nargs,
    const struct ast_loc *loc, struct axv **out);

static int
eval_func(struct ev *ev, const struct rgroup *g, struct axv *const *args,
    const struct ast_loc *loc, struct axv **out)
{
	struct collector c;

	*out = NULL;
	if (++ev->depth > EV_MAX_DEPTH) {
		ev->depth--;
		return ev_error(ev, loc, AXP_ERR_EVAL_LIMIT,
		    "evaluation too deep");
	}
	memset(&c, 0, sizeof(c));
	c.kind = RG_FUNC;
	c.rg = g;
	if (run_defs(ev, g, &c, args) < 0) {
		ev->depth--;
		axv_unref(c.acc);
		return -1;
	}
	ev->depth--;
	if (c.acc == NULL && g->defval != NULL)
		c.acc = axv_ref(g->defval);
	*out = c.acc;
	return 0;
}

int64_t
axp_bctx_now_ns(struct axp_bctx *ctx)
{
	struct ev *ev = ctx->eval;

	if (ev == NULL)
		return ctx->now_ns;
	if (ev->now_ns == 0)
		ev->now_ns = (int64_t)axg_now_ms() * 1000000;
	return ev->now_ns;
}

struct axv *
axp_bctx_memo_get(struct axp_bctx *ctx, const struct axv *key)
{
	struct ev *ev = ctx->eval;

	if (ev == NULL || ev->memo == NULL)
		return NULL;
	return axv_object_get(ev->memo, key);
}

void
axp_bctx_memo_put(struct axp_bctx *ctx, struct axv *key, struct axv *val)
{
	struct ev *ev = ctx->eval;

	if (ev == NULL) {
		axv_unref(key);
		axv_unref(val);
		return;
	}
	if (ev->memo == NULL)
		ev->memo = axv_object_new(4);
	axv_object_put(ev->memo, key, val);
}

/* Call a user function or a builtin, honouring mocks.  0 with *out (NULL:
 * undefined), or -1. */
static int
call_any(struct ev *ev, const struct rgroup *rg, const struct axp_builtin *bi,
    struct axv *const *args, uint32_t nargs, const struct ast_loc *loc,
    struct axv **out)
{
	struct axp_bctx ctx;
	int rc;

	*out = NULL;
	if (ev->nov > 0) {
		const struct overlay *m = find_mock(ev, rg, bi);
		if (m != NULL) {
			if (m->val != NULL) {
				*out = axv_ref(m->val);
				return 0;
			}
			if (m->wt->repl_rg != rg || m->wt->repl_bi != bi) {
				/* avoid mocking the replacement itself */
				size_t saved = ev->nov, k;
				struct overlay tmp;
				for (k = 0; k < ev->nov; k++)
					if (&ev->ov[k] == m)
						break;
				tmp = ev->ov[k];
				ev->ov[k].kind = -1;
				rc = call_any(ev, m->wt->repl_rg,
				    m->wt->repl_bi, args, nargs, loc, out);
				ev->ov[k] = tmp;
				(void)saved;
				return rc;
			}
		}
	}
	if (rg != NULL)
		return eval_func(ev, rg, args, loc, out);
	/* not a memset: the message buffer is written only on error */
	ctx.code = 0;
	ctx.msg[0] = '\0';
	ctx.name = bi->name;
	ctx.strict = ev->strict;
	ctx.now_ns = 0; /* axp_bctx_now_ns() reads ev's */
	ctx.eval = ev;
	rc = bi->fn(&ctx, args, out);
	if (rc == AXP_BI_OK)
		return 0;
	*out = NULL;
	if (rc == AXP_BI_UNDEF)
		return 0;
	/* as OPA: a builtin's error makes its call undefined, unless
	 * strict builtin errors are asked for */
	if (!ev->strict) {
		ev->swallowed++;
		return 0;
	}
	return ev_error(ev, loc, ctx.code, "%s", ctx.msg);
}

/* ---- with ---- */
static void
ov_push(struct ev *ev, struct overlay o)
{
	if (ev->nov == ev->capov) {
		ev->capov = ev->capov ? ev->capov * 2 : 8;
		ev->ov = axg_reallocarray(ev->ov, ev->capov, sizeof(*ev->ov));
	}
	ev->ov[ev->nov++] = o;
}

static void
clear_cache(struct ev *ev, struct cent *c)
{
	uint32_t i;

	for (i = 0; i < ev->pol->ngroups; i++)
		axv_unref(c[i].v);
	free(c);
}

static int
with_push(struct ev *ev, const struct stmt *s, struct with_saved *sv)
{
	uint32_t i;

	sv->input = ev->input;
	sv->cache = ev->cache;
	sv->nov = ev->nov;
	ev->input = ev->input ? axv_ref(ev->input) : NULL;
	for (i = 0; i < s->nargs; i++) {
		const struct with_target *wt = &s->wt[i];
		struct axv *v =
		    s->args[i].kind == OPD_NONE ? NULL : get(ev, &s->args[i]);
		struct overlay o;
		if (s->args[i].kind != OPD_NONE && v == NULL)
			return ev_error(ev, &s->loc, AXP_ERR_EVAL_INTERNAL,
			    "unbound with value");
		if (wt->kind == WT_INPUT) {
			struct axv *ni = patch(ev->input, wt->path, 0, v);
			axv_unref(ev->input);
			axv_unref(v);
			ev->input = ni;
			continue;
		}
		memset(&o, 0, sizeof(o));
		o.kind = wt->kind;
		o.path = wt->path;
		o.val = v;
		o.wt = wt;
		ov_push(ev, o);
	}
	ev->cache = axg_calloc(ev->pol->ngroups + 1, sizeof(*ev->cache));
	return 0;
}

static void
with_pop(struct ev *ev, struct with_saved *sv)
{
	while (ev->nov > sv->nov)
		axv_unref(ev->ov[--ev->nov].val);
	clear_cache(ev, ev->cache);
	ev->cache = sv->cache;
	axv_unref(ev->input);
	ev->input = sv->input;
}

/* ---- the statement loop ---- */
static int
done(struct ev *ev, const struct block *b)
{
	struct axv *k, *v;
	uint32_t i;

	switch (b->done) {
	case DONE_QUERY: {
		struct axv *row = axv_object_new(ev->q->nvars);
		for (i = 0; i < ev->q->nvars; i++) {
			struct axv *x = SLOT(ev, ev->q->vars[i].slot);
			if (x != NULL)
				axv_object_put(row,
				    axv_cstr(ev->q->vars[i].name), axv_ref(x));
		}
		axv_array_push(ev->results, row);
		if (ev->exprs != NULL) {
			struct axv *ex = axv_array_new(ev->q->nexprs);
			for (i = 0; i < ev->q->nexprs; i++) {
				struct axv *x = ev->q->exprs[i].kind == OPD_NONE
				    ? NULL
				    : get(ev, &ev->q->exprs[i]);
				axv_array_push(ex, x ? x : axv_bool(true));
			}
			axv_array_push(ev->exprs, ex);
		}
		return 0;
	}
	case DONE_RULE:
		return collect_rule(ev, b);
	case DONE_ANY:
		return 1;
	case DONE_ARRAY:
	case DONE_SET:
		if ((k = get(ev, &b->key)) == NULL)
			return ev_error(ev, NULL, AXP_ERR_EVAL_INTERNAL,
			    "unbound comprehension head");
		if (b->done == DONE_ARRAY)
			axv_array_push(ev->col->acc, k);
		else
			axv_set_add(ev->col->acc, k);
		return 0;
	case DONE_OBJECT:
		k = get(ev, &b->key);
		v = get(ev, &b->val);
		if (k == NULL || v == NULL) {
			axv_unref(k);
			axv_unref(v);
			return ev_error(ev, NULL, AXP_ERR_EVAL_INTERNAL,
			    "unbound comprehension head");
		}
		if (!axv_object_put_unique(ev->col->acc, k, v))
			return ev_error(ev, NULL, AXP_ERR_EVAL_CONFLICT,
			    "object keys must be unique");
		return 0;
	}
	return 0;
}

static int scan_coll(struct ev *ev, const struct block *b, uint32_t i,
    const struct stmt *s, struct axv *coll);

static int
scan(struct ev *ev, const struct block *b, uint32_t i, const struct stmt *s)
{
	struct axv *coll = peek(ev, &s->a);
	int rc;

	if (coll != NULL)
		return scan_coll(ev, b, i, s, coll);
	if ((coll = get(ev, &s->a)) == NULL)
		return ev_error(ev, &s->loc, AXP_ERR_EVAL_INTERNAL,
		    "unbound collection");
	rc = scan_coll(ev, b, i, s, coll);
	axv_unref(coll);
	return rc;
}

static int
scan_coll(struct ev *ev, const struct block *b, uint32_t i,
    const struct stmt *s, struct axv *coll)
{
	struct axv *key;
	size_t j, n, mark = ev->ntrail;
	int rc = 0;

	/* a bound key: one lookup, no scan */
	if ((key = get(ev, &s->b)) != NULL) {
		struct axv *v = lookup(coll, key);
		if (axv_kind(coll) == AXV_STRING)
			v = NULL;
		if (v != NULL && unify_lent(ev, &s->c, v))
			rc = run(ev, b, i + 1);
		undo(ev, mark);
		axv_unref(key);
		return rc;
	}
	switch (axv_kind(coll)) {
	case AXV_ARRAY:
		n = axv_array_len(coll);
		for (j = 0; j < n && rc == 0; j++) {
			struct axv *ix = axv_int((int64_t)j);
			if ((s->b.kind == OPD_NONE ||
				unify_val(ev, &s->b, ix)) &&
			    unify_lent(ev, &s->c, axv_array_get(coll, j)))
				rc = run(ev, b, i + 1);
			undo(ev, mark);
			axv_unref(ix);
		}
		break;
	case AXV_OBJECT:
		n = axv_object_len(coll);
		for (j = 0; j < n && rc == 0; j++) {
			if ((s->b.kind == OPD_NONE ||
				unify_lent(ev, &s->b,
				    axv_object_key(coll, j))) &&
			    unify_lent(ev, &s->c, axv_object_val(coll, j)))
				rc = run(ev, b, i + 1);
			undo(ev, mark);
		}
		break;
	case AXV_SET:
		n = axv_set_len(coll);
		for (j = 0; j < n && rc == 0; j++) {
			if ((s->b.kind == OPD_NONE ||
				unify_lent(ev, &s->b, axv_set_at(coll, j))) &&
			    unify_lent(ev, &s->c, axv_set_at(coll, j)))
				rc = run(ev, b, i + 1);
			undo(ev, mark);
		}
		break;
	default:
		break;
	}
	return rc;
}

/* RSCAN: the integers from args[0] to args[1] (down when the first is the
 * larger), as numbers.range orders them, when internal.range_check left its
 * marker in a; else a holds what numbers.range gave (the evaluator made
 * the real call: a with-modifier could replace it), scanned as it is. */
static int
rscan(struct ev *ev, const struct block *b, uint32_t i, const struct stmt *s)
{
	struct axv *lo = peek(ev, &s->args[0]), *hi = peek(ev, &s->args[1]);
	int64_t from, to, step, k;
	size_t mark = ev->ntrail;
	int rc = 0;

	if (peek(ev, &s->a) != &axp_range_marker || lo == NULL || hi == NULL ||
	    !axv_num_get_i64(lo, &from) || !axv_num_get_i64(hi, &to))
		return scan(ev, b, i, s);
	step = from <= to ? 1 : -1;
	for (k = from;; k += step) {
		struct axv *v = axv_int(k); /* released after the undo: lent */
		if (unify_lent(ev, &s->c, v))
			rc = run(ev, b, i + 1);
		undo(ev, mark);
		axv_unref(v);
		if (rc != 0 || k == to)
			break;
	}
	return rc;
}

/* SCAN through a join index: only the candidates for the probe, in the
 * collection's order; everything when the index cannot answer (the
 * collection is not the indexed value, data or functions are
 * overridden, the key is already bound, the probe has the wrong type). */
static int
iscan(struct ev *ev, const struct block *b, uint32_t i, const struct stmt *s)
{
	struct axv *coll = peek(ev, &s->a), *probe, *key;
	struct jidx_cands c;
	size_t j, mark = ev->ntrail;
	int rc = 0;

	if (coll == NULL || coll != jidx_coll(s->idx) || ev->nov > 0)
		return scan(ev, b, i, s);
	if ((key = get(ev, &s->b)) != NULL) {
		axv_unref(key);
		return scan_coll(ev, b, i, s, coll);
	}
	jidx_cands_init(&c);
	if ((probe = peek(ev, &s->args[0])) == NULL ||
	    jidx_lookup(s->idx, probe, &c) < 0) {
		jidx_cands_free(&c);
		return scan_coll(ev, b, i, s, coll);
	}
	for (j = 0; j < c.n && rc == 0; j++) {
		size_t at = c.v[j];
		struct axv *k, *v;
		switch (axv_kind(coll)) {
		case AXV_ARRAY:
			k = axv_int((int64_t)at);
			v = axv_array_get(coll, at);
			break;
		case AXV_OBJECT:
			k = axv_ref(axv_object_key(coll, at));
			v = axv_object_val(coll, at);
			break;
		default:
			k = axv_ref(axv_set_at(coll, at));
			v = k;
			break;
		}
		if ((s->b.kind == OPD_NONE || unify_val(ev, &s->b, k)) &&
		    unify_lent(ev, &s->c, v))
			rc = run(ev, b, i + 1);
		undo(ev, mark);
		axv_unref(k);
	}
	jidx_cands_free(&c);
	return rc;
}

/* A CALL or CALLFN statement: 1 when its result unified with c (the
 * bindings made stay on the trail), 0 when undefined or not unified, -1 on
 * error. */
/* An array argument such as sprintf's [a, b, c] whose elements are all
 * constants or bound locals: an array that lends them (takes no
 * references), or NULL. */
static struct axv *
lend_array(struct ev *ev, const struct opd *o)
{
	struct axv *a;
	uint32_t i;

	if (o->kind != OPD_ARRAY)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (peek(ev, &o->items[i]) == NULL)
			return NULL;
	a = axv_array_new(o->n);
	for (i = 0; i < o->n; i++)
		axv_array_push(a, peek(ev, &o->items[i]));
	return a;
}

/* Release an array made by lend_array.  If the call kept it, it becomes an
 * ordinary array that owns its elements. */
static void
unlend_array(struct axv *a)
{
	struct axv_arr *arr = (struct axv_arr *)a;
	size_t i;

	if (arr->h.refs == 1) {
		arr->len = 0;
	} else {
		for (i = 0; i < arr->len; i++)
			axv_ref(arr->e[i]);
	}
	axv_unref(a);
}

/* internal.concat_slice (compile.c) as the two calls it stands for, so
 * that a with replacing array.slice or concat takes effect. */
static int
call_split(struct ev *ev, const struct stmt *s, struct axv *const *args,
    struct axv **out)
{
	const struct axp_builtin *sl = axp_builtin_lookup("array.slice", 11),
				 *cat = axp_builtin_lookup("concat", 6);
	struct axv *mid = NULL, *ca[2];
	int rc;

	*out = NULL;
	if (call_any(ev, NULL, sl, args + 1, 3, &s->loc, &mid) < 0)
		return -1;
	if (mid == NULL)
		return 0;
	ca[0] = args[0];
	ca[1] = mid;
	rc = call_any(ev, NULL, cat, ca, 2, &s->loc, out);
	axv_unref(mid);
	return rc;
}

/* The builtins the compiler fused (internal.concat_slice, the
 * internal.split_* and range_check of fuse_calls) as the calls they stand for,
 * so that a with replacing one of those takes effect: 0 or -1 as call_any, 1
 * when s calls none of them. */
static int
call_unfused(struct ev *ev, const struct stmt *s, struct axv *const *args,
    struct axv **out)
{
	const char *n = s->bi->name;

	if (strcmp(n, "internal.concat_slice") == 0 ||
	    strcmp(n, "internal.split_join") == 0)
		return call_split(ev, s, args, out);
	if (strcmp(n, "internal.split_check") == 0)
		return call_any(ev, NULL, axp_builtin_lookup("split", 5), args,
		    2, &s->loc, out);
	if (strcmp(n, "internal.split_count") == 0)
		return call_any(ev, NULL, axp_builtin_lookup("count", 5), args,
		    1, &s->loc, out);
	if (strcmp(n, "internal.range_check") == 0)
		return call_any(ev, NULL,
		    axp_builtin_lookup("numbers.range", 13), args, 2, &s->loc,
		    out);
	return 1;
}

static int
call_stmt(struct ev *ev, const struct stmt *s)
{
	struct axv *argv[16], **args = argv, *out = NULL;
	uint32_t j, lentarr = 0; /* bit j: args[j] is from lend_array */
	bool owned = false;	 /* some args[j] is to be released */
	int rc = 0, r;

	if (s->nargs > 16)
		args = axg_calloc(s->nargs, sizeof(*args));
	for (j = 0; j < s->nargs; j++) {
		/* constants and bound locals are lent, not referenced: the
		 * frame keeps them alive during the call */
		if ((args[j] = peek(ev, &s->args[j])) != NULL)
			continue;
		owned = true;
		if (j < 32 && (args[j] = lend_array(ev, &s->args[j])) != NULL) {
			lentarr |= 1u << j;
			continue;
		}
		if (s->args[j].kind == OPD_LOCAL ||
		    (args[j] = get(ev, &s->args[j])) == NULL) {
			rc = ev_error(ev, &s->loc, AXP_ERR_EVAL_INTERNAL,
			    "unbound argument");
			goto out;
		}
	}
	if (ev->nov > 0 && s->bi != NULL &&
	    strncmp(s->bi->name, "internal.", 9) == 0 &&
	    (r = call_unfused(ev, s, args, &out)) <= 0) {
		if (r < 0) {
			rc = -1;
			goto out;
		}
	} else if (call_any(ev, s->rg, s->bi, args, s->nargs, &s->loc, &out) <
	    0) {
		rc = -1;
		goto out;
	}
	if (out == NULL)
		goto out;
	if (s->c.kind == OPD_LOCAL && SLOT(ev, s->c.slot) == NULL) {
		/* the usual x := f(...): the slot takes the result over */
		bind(ev, s->c.slot, out);
		out = NULL;
		rc = 1;
	} else {
		rc = unify_val(ev, &s->c, out) ? 1 : 0;
	}
out:
	axv_unref(out);
	while (owned && j-- > 0) {
		if (j < 32 && (lentarr & (1u << j)) != 0)
			unlend_array(args[j]);
		else if (s->args[j].kind != OPD_CONST &&
		    s->args[j].kind != OPD_LOCAL)
			axv_unref(args[j]);
	}
	if (args != argv)
		free(args);
	return rc;
}

static int
sub_collect(struct ev *ev, const struct block *blk, int kind, struct axv **out)
{
	struct collector c, *saved = ev->col;
	int rc;

	memset(&c, 0, sizeof(c));
	c.kind = kind;
	c.acc = kind == DONE_ARRAY ? axv_array_new(0)
	    : kind == DONE_SET	   ? axv_set_new(0)
				   : axv_object_new(0);
	ev->col = &c;
	rc = run(ev, blk, 0);
	ev->col = saved;
	if (rc < 0) {
		axv_unref(c.acc);
		return -1;
	}
	*out = c.acc;
	return 0;
}

static int every_coll(struct ev *ev, const struct block *b, uint32_t i,
    const struct stmt *s, struct axv *coll);

static int
every(struct ev *ev, const struct block *b, uint32_t i, const struct stmt *s)
{
	struct axv *coll = get(ev, &s->a);
	int rc;

	if (coll == NULL)
		return 0;
	rc = every_coll(ev, b, i, s, coll);
	axv_unref(coll);
	return rc;
}

static int
every_coll(struct ev *ev, const struct block *b, uint32_t i,
    const struct stmt *s, struct axv *coll)
{
	size_t j, n, mark = ev->ntrail;
	int rc;

	if (axv_kind(coll) != AXV_ARRAY && axv_kind(coll) != AXV_OBJECT &&
	    axv_kind(coll) != AXV_SET)
		return 0;
	n = (size_t)axv_count(coll);
	for (j = 0; j < n; j++) {
		struct axv *k, *v;
		switch (axv_kind(coll)) {
		case AXV_ARRAY:
			k = axv_int((int64_t)j);
			v = axv_array_get(coll, j);
			break;
		case AXV_OBJECT:
			k = axv_ref(axv_object_key(coll, j));
			v = axv_object_val(coll, j);
			break;
		default:
			k = axv_ref(axv_set_at(coll, j));
			v = k;
			break;
		}
		bind(ev, s->b.slot, k);
		lend(ev, s->c.slot, v); /* coll outlives the binding */
		rc = run(ev, s->blk, 0);
		undo(ev, mark);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return 0; /* an element without a solution */
	}
	return run(ev, b, i + 1);
}

__attribute__((noinline)) static int
op_with_push(struct ev *ev, const struct block *b, uint32_t i,
    const struct stmt *s)
{
	struct with_saved sv;
	int rc;

	if (with_push(ev, s, &sv) < 0) {
		with_pop(ev, &sv);
		return -1;
	}
	ev->wstack =
	    axg_reallocarray(ev->wstack, ev->nw + 1, sizeof(*ev->wstack));
	ev->wstack[ev->nw++] = sv;
	rc = run(ev, b, i + 1);
	sv = ev->wstack[--ev->nw];
	with_pop(ev, &sv);
	return rc;
}

__attribute__((noinline)) static int
op_with_pop(struct ev *ev, const struct block *b, uint32_t i,
    const struct stmt *s)
{
	/* leave the modifiers for the rest of the body, then put
	 * them back for backtracking into the expression */
	struct with_saved sv = ev->wstack[--ev->nw];
	struct axv *in_input = ev->input;
	struct cent *in_cache = ev->cache;
	size_t nin = ev->nov - sv.nov;
	struct overlay *in_ov = NULL;
	int rc;

	if (nin > 0) {
		in_ov = axg_reallocarray(NULL, nin, sizeof(*in_ov));
		memcpy(in_ov, ev->ov + sv.nov, nin * sizeof(*in_ov));
	}
	ev->nov = sv.nov;
	ev->input = sv.input;
	ev->cache = sv.cache;
	rc = run(ev, b, i + 1);
	ev->input = in_input;
	ev->cache = in_cache;
	if (nin > 0) {
		memcpy(ev->ov + sv.nov, in_ov, nin * sizeof(*in_ov));
		free(in_ov);
	}
	ev->nov = sv.nov + nin;
	ev->wstack =
	    axg_reallocarray(ev->wstack, ev->nw + 1, sizeof(*ev->wstack));
	ev->wstack[ev->nw++] = sv;
	return rc;
}

/* ANY: 1 if its block, else the first of its alternatives, has a
 * solution (whose bindings are not kept), 0 if none has, -1 on error. */
__attribute__((noinline)) static int
op_any(struct ev *ev, const struct stmt *s)
{
	uint32_t alt;
	int rc;

	rc = run(ev, s->blk, 0);
	for (alt = 0; rc == 0 && alt < s->nalts; alt++)
		rc = run(ev, s->alts[alt], 0);
	return rc;
}

/* What DOT s found, r: bound to out (lent, or with a reference of its own
 * when owned), or for a DOT that is a test (kind 1) no binding, and a
 * solution unless r is false.  1 or 0. */
static inline int
dot_found(struct ev *ev, const struct stmt *s, struct axv *r, bool owned)
{
	if (s->kind != 0)
		return axv_kind(r) != AXV_BOOL || axv_bool_get(r);
	if (owned)
		bind(ev, s->out, axv_ref(r));
	else
		lend(ev, s->out, r);
	return 1;
}

/* A DOT statement with a path: the base document at path, [b] (the
 * compiler fused a BASEDATA with the DOT reading it). */
static int
dot_base(struct ev *ev, const struct stmt *s)
{
	struct axv *k = peek(ev, &s->b), *kown = NULL, *base, *r;
	int rc = 0;

	if (k == NULL && s->b.kind != OPD_LOCAL)
		k = kown = get(ev, &s->b);
	if (k == NULL)
		return ev_error(ev, &s->loc, AXP_ERR_EVAL_INTERNAL,
		    "unbound operand");
	if (ev->nov > 0 && has_data_overlays(ev)) {
		/* a with-modifier's copy: the binding holds a reference */
		base = base_at(ev, s->path);
		if (base != NULL && (r = lookup(base, k)) != NULL)
			rc = dot_found(ev, s, r, true);
		axv_unref(base);
	} else if (s->pre != NULL && (r = lookup(s->pre, k)) != NULL) {
		rc = dot_found(ev, s, r, false); /* the policy's data */
	}
	axv_unref(kown);
	return rc;
}

/* A DOT statement: a[b], lent (a outlives the binding); 0 if undefined. */
static int
op_dot(struct ev *ev, const struct stmt *s)
{
	struct axv *v, *k, *r;

	if (s->path != NULL)
		return dot_base(ev, s);
	v = peek(ev, &s->a);
	k = peek(ev, &s->b);
	if (k == NULL && s->b.kind != OPD_LOCAL) {
		k = get(ev, &s->b);
		r = v != NULL && k != NULL ? lookup(v, k) : NULL;
		if (v != NULL && k != NULL) {
			axv_unref(k);
			return r != NULL ? dot_found(ev, s, r, false) : 0;
		}
		axv_unref(k);
		k = NULL;
	}
	if (v == NULL || k == NULL)
		return ev_error(ev, &s->loc, AXP_ERR_EVAL_INTERNAL,
		    "unbound operand");
	if ((r = lookup(v, k)) == NULL)
		return 0;
	return dot_found(ev, s, r, false);
}

/* The step and memory limits, checked every 256 steps (and at the step
 * limit itself): -1 when one is exceeded. */
__attribute__((noinline)) static int
check_limits(struct ev *ev, const struct ast_loc *loc)
{
	if (ev->steps > ev->max_steps)
		return ev_error(ev, loc, AXP_ERR_EVAL_LIMIT,
		    "evaluation step limit exceeded");
	if (axv_mem_live() - ev->mem_base > ev->max_mem)
		return ev_error(ev, loc, AXP_ERR_EVAL_LIMIT,
		    "evaluation memory limit exceeded (%lld MiB)",
		    (long long)(ev->max_mem >> 20));
	ev->next_check = ev->steps + 256;
	if (ev->next_check > ev->max_steps + 1)
		ev->next_check = ev->max_steps + 1;
	return 0;
}

/* input[key] for an INPUT statement with a constant key, borrowed; NULL if
 * undefined.  The evaluation's own input does not change, so each of the
 * policy's input keys is looked up once per evaluation, whichever rules
 * read it; an input replaced by a with-modifier is looked up each time. */
static char in_undef; /* a memo entry: looked up, undefined */

static inline struct axv *
in_key(struct ev *ev, const struct stmt *s)
{
	struct axv **m, *v;

	if (s->ikey == 0 || ev->input != ev->input0)
		return lookup(ev->input, s->a.val);
	m = &ev->inmemo[s->ikey - 1];
	if (*m == (struct axv *)&in_undef)
		return NULL;
	if (*m != NULL)
		return *m;
	v = lookup(ev->input, s->a.val);
	*m = v != NULL ? v : (struct axv *)&in_undef;
	return v;
}

/* Run block b from statement i on, backtracking.  The statements with at
 * most one solution run in this loop, their bindings undone once at the
 * end; those with several (scans, every, with) run the rest of the block
 * themselves, once per solution.  Returns -1 on error, 1 when a DONE_ANY
 * block found its solution, 0 otherwise. */
static int
run(struct ev *ev, const struct block *b, uint32_t i)
{
	const struct stmt *s;
	struct axv *v;
	size_t mark = ev->ntrail;
	int rc = 0, r;

	for (;; i++) {
		if (++ev->steps >= ev->next_check &&
		    check_limits(ev, i < b->n ? &b->s[i].loc : NULL) < 0) {
			rc = -1;
			break;
		}
		if (i == b->n) {
			rc = done(ev, b);
			break;
		}
		s = &b->s[i];
		switch ((enum ir_opcode)s->op) {
		case IR_INPUT:
			if (ev->input == NULL)
				goto out;
			if (s->a.kind == OPD_NONE) {
				lend(ev, s->out, ev->input);
				continue;
			}
			if ((v = in_key(ev, s)) == NULL)
				goto out;
			lend(ev, s->out, v);
			continue;
		case IR_BASEDATA:
			if (ev->nov > 0 && has_data_overlays(ev)) {
				if ((v = base_at(ev, s->path)) == NULL)
					goto out;
				bind(ev, s->out, v);
				continue;
			}
			if (s->pre == NULL)
				goto out;
			lend(ev, s->out, s->pre); /* the policy's data */
			continue;
		case IR_DATA:
			if (s->a.kind != OPD_NONE) {
				if (data_child(ev, s, &v) < 0)
					goto fail;
			} else if (virtual_doc(ev, s->node, &s->loc, &v) < 0) {
				goto fail;
			}
			if (v == NULL)
				goto out;
			bind(ev, s->out, v);
			continue;
		case IR_RULE: {
			bool lent;
			if (eval_group(ev, s->rg, &s->loc, &v, &lent) < 0)
				goto fail;
			if (v == NULL)
				goto out;
			if (lent)
				lend(ev, s->out, v);
			else
				bind(ev, s->out, v);
			continue;
		}
		case IR_DOT:
			if ((r = op_dot(ev, s)) <= 0)
				goto stop;
			continue;
		case IR_CALL:
		case IR_CALLFN:
			if ((r = call_stmt(ev, s)) <= 0)
				goto stop;
			continue;
		case IR_UNIFY:
			if (!unify_opd(ev, &s->a, &s->b))
				goto out;
			continue;
		case IR_TRUTHY:
			v = peek(ev, &s->a);
			if (v == NULL) {
				if ((v = get(ev, &s->a)) == NULL)
					goto out;
				r = axv_kind(v) == AXV_BOOL && !axv_bool_get(v);
				axv_unref(v);
				if (r)
					goto out;
				continue;
			}
			if (axv_kind(v) == AXV_BOOL && !axv_bool_get(v))
				goto out;
			continue;
		case IR_NOT:
			if ((r = run(ev, s->blk, 0)) < 0)
				goto fail;
			if (r == 1)
				goto out;
			continue;
		case IR_ANY:
			if ((r = op_any(ev, s)) <= 0)
				goto stop;
			continue;
		case IR_COMPR:
			if (sub_collect(ev, s->blk, s->kind, &v) < 0)
				goto fail;
			bind(ev, s->out, v);
			continue;
		case IR_SCAN:
			rc = scan(ev, b, i, s);
			goto out;
		case IR_ISCAN:
			rc = iscan(ev, b, i, s);
			goto out;
		case IR_RSCAN:
			rc = rscan(ev, b, i, s);
			goto out;
		case IR_EVERY:
			rc = every(ev, b, i, s);
			goto out;
		case IR_WITH_PUSH:
			rc = op_with_push(ev, b, i, s);
			goto out;
		case IR_WITH_POP:
			rc = op_with_pop(ev, b, i, s);
			goto out;
		case IR__COUNT:
			break;
		}
		rc = ev_error(ev, &s->loc, AXP_ERR_EVAL_INTERNAL, "bad opcode");
		break;
	}
	goto out;
stop:
	/* r: 0 no solution, -1 error */
	rc = r < 0 ? -1 : 0;
	goto out;
fail:
	rc = -1;
out:
	if (ev->ntrail != mark)
		undo(ev, mark);
	return rc;
}

int
axp_eval(const struct axp_query *q, struct axv *input,
    const struct axp_eval_opts *opts, struct axv **results,
    struct axp_error *err)
{
	return axp_eval_exprs(q, input, opts, results, NULL, err);
}

/* The buffers of an evaluation (slots, trail, rule cache), kept per
 * thread between evaluations so that a prepared query allocates nothing
 * of its own machinery: the slots are left unbound and the cache all
 * zero by the evaluation that used them. */
struct evmem {
	struct axv **slots;
	size_t cap;
	size_t *trail;
	size_t captrail;
	struct cent *cache;
	size_t ncache;
	uint32_t *touched;
	size_t captouched;
	struct axv *inmemo[AXP_MAX_INKEYS];
};

static pthread_key_t evmem_key;
static pthread_once_t evmem_once = PTHREAD_ONCE_INIT;
static __thread struct evmem *evmem_tls;
static __thread struct evmem *evmem_keyed; /* what the key holds */

static void
evmem_free(void *p)
{
	struct evmem *m = p;

	if (m == NULL)
		return;
	free(m->slots);
	free(m->trail);
	free(m->cache);
	free(m->touched);
	free(m);
}

static void
evmem_key_init(void)
{
	(void)pthread_key_create(&evmem_key, evmem_free);
}

/* The thread's buffers (taken: a nested evaluation gets fresh ones). */
static struct evmem *
evmem_take(void)
{
	struct evmem *m = evmem_tls;

	if (m != NULL) {
		evmem_tls = NULL;
		return m;
	}
	return axg_calloc(1, sizeof(*m));
}

static void
evmem_give(struct evmem *m)
{
	if (evmem_tls != NULL) {
		evmem_free(m);
		return;
	}
	/* the key frees the buffers when the thread ends: set it when they
	 * change (the same buffers come back after every evaluation) */
	if (m != evmem_keyed &&
	    (pthread_once(&evmem_once, evmem_key_init) != 0 ||
		pthread_setspecific(evmem_key, m) != 0)) {
		evmem_free(m);
		return;
	}
	evmem_keyed = m;
	evmem_tls = m;
}

int
axp_eval_exprs(const struct axp_query *q, struct axv *input,
    const struct axp_eval_opts *opts, struct axv **results, struct axv **exprs,
    struct axp_error *err)
{
	struct ev ev;
	struct evmem *m = evmem_take();
	size_t fp, need = 256, ngroups = q->pol->ngroups + 1, t;
	uint32_t i;
	int rc;

	/* all but the message buffer, written only on error */
	memset(&ev, 0, offsetof(struct ev, msg));
	ev.msg[0] = '\0';
	ev.pol = q->pol;
	ev.q = q;
	ev.input = ev.input0 = input ? axv_ref(input) : NULL;
	ev.inmemo = m->inmemo;
	memset(m->inmemo, 0, q->pol->ninkeys * sizeof(*m->inmemo));
	while (need < q->nslots + q->pol->max_slots + 64)
		need *= 2;
	if (m->cap < need) {
		free(m->slots);
		m->slots =
		    axg_calloc(need, sizeof(*m->slots)); /* see frame_push */
		m->cap = need;
	}
	if (m->ncache < ngroups) {
		free(m->cache);
		m->cache = axg_calloc(ngroups, sizeof(*m->cache));
		m->ncache = ngroups;
	}
	ev.slots = m->slots;
	ev.cap = m->cap;
	ev.trail = m->trail;
	ev.captrail = m->captrail;
	ev.cache = ev.top_cache = m->cache;
	ev.touched = m->touched;
	ev.captouched = m->captouched;
	ev.max_steps = opts && opts->max_steps ? opts->max_steps : 10000000;
	ev.next_check = ev.max_steps < 256 ? ev.max_steps + 1 : 256;
	ev.max_mem = opts && opts->max_mem && opts->max_mem < INT64_MAX
	    ? (int64_t)opts->max_mem
	    : (int64_t)256 << 20;
	ev.mem_base = axv_mem_live();
	ev.strict = opts ? opts->strict : false;
	ev.now_ns = opts ? opts->now_ns : 0; /* 0: read when first needed */
	ev.results = axv_array_new(0);
	if (exprs != NULL)
		ev.exprs = axv_array_new(0);
	frame_push(&ev, q->nslots, &fp);
	rc = run(&ev, q->body, 0);
	undo(&ev, 0);
	/* leave the cache all zero for the next evaluation */
	for (t = 0; t < ev.ntouched; t++) {
		i = ev.touched[t];
		if (ev.cache[i].state != 0) {
			axv_unref(ev.cache[i].v);
			ev.cache[i].v = NULL;
			ev.cache[i].state = 0;
		}
	}
	m->touched = ev.touched;
	m->captouched = ev.captouched;
	while (ev.nov > 0)
		axv_unref(ev.ov[--ev.nov].val);
	free(ev.ov);
	free(ev.wstack);
	m->slots = ev.slots;
	m->cap = ev.cap;
	m->trail = ev.trail;
	m->captrail = ev.captrail;
	evmem_give(m);
	axv_unref(ev.input);
	axv_unref(ev.memo);
	if (rc < 0 || ev.failed) {
		axv_unref(ev.results);
		axv_unref(ev.exprs);
		*results = NULL;
		if (exprs != NULL)
			*exprs = NULL;
		if (err != NULL) {
			memset(err, 0, sizeof(*err));
			err->code = ev.code;
			err->message = axg_strdup(ev.msg);
			err->file = axg_strdup(ev.loc.file ? ev.loc.file : "");
			err->line = ev.loc.line;
			err->col = ev.loc.col;
		}
		return -1;
	}
	*results = ev.results;
	if (exprs != NULL)
		*exprs = ev.exprs;
	return 0;
}
