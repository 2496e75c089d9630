/* compile.c: AST to IR: name resolution, rule tree, safety reordering and
 * lowering of bodies into statements (opcodes.def). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/annotations.h"
#include "policy/policy-int.h"

const char *const ir_opcode_names[] = {
#define OP(name, operands, doc) #name,
#include "policy/opcodes.def"
#undef OP
};

struct var {
	const char *name;
	uint32_t slot;
};

struct vscope {
	struct vscope *parent;
	struct var *v;
	size_t n, cap;
};

struct comp {
	struct axp_policy *pol;
	struct ast_arena *A;
	struct axp_diags *ds;
	struct rgroup *cur;	   /* the group being compiled */
	struct ast_rule *cur_rule; /* the definition (else chain head) */
	int nerr;
	int nfresh; /* fresh vars made so far */
	struct ast_module *
	    *mods; /* all modules, to find rules sharing a line */
	size_t nmods;
	char rule_sfx[200]; /* " in rule NAME" or "": see rule_suffix() */
	/* Work spent ordering expressions (t_evaluable calls): bounded, so
	 * that a hostile nesting of calls ends with an error, not a hang. */
	unsigned long order_work;
	bool order_exhausted, order_reported;
	bool query; /* compiling a query: the policy is not to change */
};

#define ORDER_WORK_MAX 4000000ul

struct cc {
	struct comp *C;
	struct ast_module *mod;
	struct vscope *sc;
	uint32_t nslots;
	bool *bound;
	size_t capbound;
	struct ast_body *top;  /* the query's body */
	struct opd *expr_opds; /* its expressions' values */
	size_t cur_expr;
	const struct ast_loc *expr_loc; /* the body expression being lowered */
	bool undeclared; /* unsafe vars are reported as print's are */
};

/* An input.key already read in this block, into slot: a later input.key
 * of the same block reads the slot instead (the statement before it in
 * the block has run, so the slot is bound). */
struct cse {
	struct axv *key;
	uint32_t slot;
};

struct sbuf {
	struct stmt *s;
	size_t n, cap;
	struct cse *cse;
	size_t ncse, capcse;
	bool no_cse; /* under a with: input may be replaced */
};

static void cerr(struct comp *C, const struct ast_loc *loc, int code,
    const char *fmt, ...) AXG_PRINTF(4, 5);

static void
cerr(struct comp *C, const struct ast_loc *loc, int code, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	axp_diags_add(C->ds, loc, code, "%s", msg);
	C->nerr++;
}

/* ---- slots and scopes ---- */
static uint32_t
new_slot(struct cc *cc)
{
	uint32_t s = cc->nslots++;

	if (s >= cc->capbound) {
		size_t old = cc->capbound;
		cc->capbound = cc->capbound ? cc->capbound * 2 : 32;
		cc->bound = axg_reallocarray(cc->bound, cc->capbound,
		    sizeof(*cc->bound));
		memset(cc->bound + old, 0,
		    (cc->capbound - old) * sizeof(*cc->bound));
	}
	cc->bound[s] = false;
	return s;
}

static struct var *
scope_find1(struct vscope *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		if (strcmp(sc->v[i].name, name) == 0)
			return &sc->v[i];
	return NULL;
}

static struct var *
scope_find(struct vscope *sc, const char *name)
{
	struct var *v;

	for (; sc != NULL; sc = sc->parent)
		if ((v = scope_find1(sc, name)) != NULL)
			return v;
	return NULL;
}

static uint32_t
scope_declare(struct cc *cc, const char *name)
{
	struct vscope *sc = cc->sc;
	struct var *v = scope_find1(sc, name);

	if (v != NULL)
		return v->slot;
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? sc->cap * 2 : 8;
		sc->v = axg_reallocarray(sc->v, sc->cap, sizeof(*sc->v));
	}
	sc->v[sc->n].name = name;
	sc->v[sc->n].slot = new_slot(cc);
	return sc->v[sc->n++].slot;
}

static void
scope_push(struct cc *cc, struct vscope *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->parent = cc->sc;
	cc->sc = sc;
}

static void
scope_pop(struct cc *cc)
{
	struct vscope *sc = cc->sc;

	cc->sc = sc->parent;
	free(sc->v);
}

/* ---- the rule tree ---- */
static struct dnode *
node_child(struct comp *C, struct dnode *n, const char *name, bool create)
{
	uint32_t i;
	struct dnode *k;

	for (i = 0; i < n->nkids; i++)
		if (strcmp(n->kids[i]->name, name) == 0)
			return n->kids[i];
	if (!create)
		return NULL;
	k = ast_alloc(C->A, sizeof(*k));
	k->name = ast_strndup(C->A, name, strlen(name));
	k->path = axv_array_new(axv_array_len(n->path) + 1);
	for (i = 0; i < axv_array_len(n->path); i++)
		axv_array_push(k->path, axv_ref(axv_array_get(n->path, i)));
	axv_array_push(k->path, axv_cstr(name));
	ast_keep(C->A, k->path);
	n->kids = axg_reallocarray(n->kids, n->nkids + 1, sizeof(*n->kids));
	n->kids[n->nkids++] = k;
	return k;
}

/* The package path of a module as strings; returns count. */
static size_t
package_path(struct ast_module *m, const char **out, size_t max)
{
	struct ast_term *p = m->package;
	size_t n = 0, i;

	if (p->kind == T_VAR) {
		out[n++] = p->name;
		return n;
	}
	if (p->items[0]->kind == T_VAR && n < max)
		out[n++] = p->items[0]->name;
	for (i = 1; i < p->n && n < max; i++)
		if (p->items[i]->kind == T_SCALAR &&
		    axv_kind(p->items[i]->val) == AXV_STRING)
			out[n++] = axv_str(p->items[i]->val);
	return n;
}

static struct dnode *
module_node(struct comp *C, struct ast_module *m, bool create)
{
	const char *pp[64];
	size_t n = package_path(m, pp, 64), i;
	struct dnode *node = C->pol->root;

	for (i = 0; i < n && node; i++)
		node = node_child(C, node, pp[i], create);
	return node;
}

/* Split a rule head ref into the static prefix (strings) and the dynamic
 * rest. */
static void
head_split(struct ast_rule *r, const char **st, size_t *nst, size_t max,
    struct ast_term ***dyn, size_t *ndyn)
{
	struct ast_term *h = r->ref;
	size_t i;

	*nst = 0;
	*ndyn = 0;
	*dyn = NULL;
	if (h->kind == T_VAR) {
		st[(*nst)++] = h->name;
		return;
	}
	st[(*nst)++] = h->items[0]->name;
	for (i = 1; i < h->n; i++) {
		struct ast_term *t = h->items[i];
		if (t->kind != T_SCALAR || axv_kind(t->val) != AXV_STRING ||
		    *nst >= max)
			break;
		st[(*nst)++] = axv_str(t->val);
	}
	if (i < h->n) {
		*dyn = &h->items[i];
		*ndyn = h->n - i;
	}
}

static char *
group_name(struct comp *C, struct dnode *n)
{
	struct axg_buf b;
	size_t i;
	char *s, *r;

	axg_buf_init(&b, 0);
	axg_buf_puts(&b, "data");
	for (i = 0; i < axv_array_len(n->path); i++) {
		axg_buf_putc(&b, '.');
		axg_buf_puts(&b, axv_str(axv_array_get(n->path, i)));
	}
	s = axg_buf_steal(&b, NULL);
	r = ast_strndup(C->A, s, strlen(s));
	free(s);
	return r;
}

static const char *
kind_name(enum rg_kind k)
{
	switch (k) {
	case RG_COMPLETE:
		return "complete";
	case RG_SET:
		return "partial set";
	case RG_OBJECT:
		return "partial object";
	case RG_FUNC:
		return "function";
	}
	return "?";
}

static void
add_rule(struct comp *C, struct ast_module *m, struct ast_rule *r)
{
	const char *st[64];
	size_t nst, ndyn, i;
	struct ast_term **dyn;
	struct dnode *node = module_node(C, m, true);
	enum rg_kind kind;
	struct rgroup *g;
	struct rdef *d;

	head_split(r, st, &nst, 64, &dyn, &ndyn);
	for (i = 0; i < nst; i++) {
		node->has_rules = true;
		node = node_child(C, node, st[i], true);
	}
	node->has_rules = true;
	if (r->is_func)
		kind = RG_FUNC;
	else if (r->key != NULL)
		kind = RG_SET;
	else if (ndyn > 0)
		kind = RG_OBJECT;
	else
		kind = RG_COMPLETE;
	if (r->is_default && ndyn > 0)
		kind = RG_OBJECT;
	g = node->rg;
	if (g == NULL) {
		g = ast_alloc(C->A, sizeof(*g));
		g->kind = kind;
		g->node = node;
		g->mod = m;
		g->name = group_name(C, node);
		g->nargs = (uint32_t)r->nargs;
		g->id = C->pol->ngroups;
		C->pol->groups = axg_reallocarray(C->pol->groups,
		    C->pol->ngroups + 1, sizeof(*C->pol->groups));
		C->pol->groups[C->pol->ngroups++] = g;
		node->rg = g;
	} else if (g->kind != kind && !r->is_default) {
		if (g->ndefs == 0 && g->defrule != NULL) {
			g->kind = kind;
		} else {
			cerr(C, &r->loc, AXP_ERR_TYPE,
			    "conflicting rules %s found (%s and %s)", g->name,
			    kind_name(g->kind), kind_name(kind));
			return;
		}
	}
	if (kind == RG_FUNC && g->nargs != r->nargs && g->ndefs > 0) {
		cerr(C, &r->loc, AXP_ERR_TYPE,
		    "conflicting rules %s found (function arity)", g->name);
		return;
	}
	if (kind == RG_SET && ndyn > 0)
		g->nested = true;
	if (r->is_default) {
		if (g->defrule != NULL) {
			cerr(C, &r->loc, AXP_ERR_TYPE,
			    "multiple default rules %s found", g->name);
			return;
		}
		g->defrule = r;
		return;
	}
	d = ast_alloc(C->A, sizeof(*d));
	d->ast = r;
	g->defs = axg_reallocarray(g->defs, g->ndefs + 1, sizeof(*g->defs));
	g->defs[g->ndefs++] = d;
}

/* ---- name resolution ---- */
enum gkind { G_NONE, G_LOCAL, G_INPUT, G_DATA, G_IMPORT };

/* What a var name at a ref head means in this context. */
static enum gkind
resolve_name(struct cc *cc, const char *name, struct var **lv,
    struct ast_import **imp)
{
	size_t i;
	struct dnode *pn;

	if ((*lv = scope_find(cc->sc, name)) != NULL)
		return G_LOCAL;
	if (strcmp(name, "input") == 0)
		return G_INPUT;
	if (strcmp(name, "data") == 0)
		return G_DATA;
	if (cc->mod != NULL) {
		for (i = 0; i < cc->mod->nimports; i++) {
			struct ast_import *im = &cc->mod->imports[i];
			const char *alias = im->alias;
			struct ast_term *p = im->path;
			if (alias == NULL) {
				if (p->kind == T_VAR)
					alias = p->name;
				else if (p->n > 1 &&
				    p->items[p->n - 1]->kind == T_SCALAR &&
				    axv_kind(p->items[p->n - 1]->val) ==
					AXV_STRING)
					alias =
					    axv_str(p->items[p->n - 1]->val);
			}
			if (alias && strcmp(alias, name) == 0 &&
			    p->kind == T_REF && p->items[0]->kind == T_VAR &&
			    (strcmp(p->items[0]->name, "data") == 0 ||
				strcmp(p->items[0]->name, "input") == 0)) {
				*imp = im;
				return G_IMPORT;
			}
			if (alias && strcmp(alias, name) == 0 &&
			    p->kind == T_VAR && strcmp(p->name, "input") == 0)
				return G_INPUT;
		}
		pn = module_node(cc->C, cc->mod, false);
		if (pn != NULL && node_child(cc->C, pn, name, false) != NULL)
			return G_DATA + 100; /* package-relative rule */
	}
	return G_NONE;
}

static bool
is_global(struct cc *cc, const char *name)
{
	struct var *lv;
	struct ast_import *imp;
	enum gkind k = resolve_name(cc, name, &lv, &imp);

	return k != G_NONE && k != G_LOCAL;
}

static bool
is_wildcard(const char *name)
{
	return name[0] == '_' && name[1] == '$';
}

/* Declare the vars of a term that are not globals (no closures). */
static void collect_body(struct cc *cc, struct ast_body *b);

static void
collect_term(struct cc *cc, struct ast_term *t)
{
	size_t i;

	if (t == NULL)
		return;
	switch (t->kind) {
	case T_SCALAR:
		return;
	case T_VAR:
		if (scope_find(cc->sc, t->name) == NULL &&
		    !is_global(cc, t->name))
			scope_declare(cc, t->name);
		return;
	case T_REF:
		if (t->items[0]->kind != T_VAR)
			collect_term(cc, t->items[0]);
		for (i = 1; i < t->n; i++)
			collect_term(cc, t->items[i]);
		return;
	case T_CALL:
		for (i = 0; i < t->n; i++)
			collect_term(cc, t->items[i]);
		return;
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		for (i = 0; i < t->n; i++)
			collect_term(cc, t->items[i]);
		return;
	default:
		return; /* closures have their own scope */
	}
}

static const struct axp_builtin *resolve_builtin(struct cc *cc,
    struct ast_term *fn, struct rgroup **rg, char *name, size_t namelen);

/* A with value that names a function or builtin (with f as g). */
static bool
with_value_is_func(struct cc *cc, struct ast_term *t)
{
	struct rgroup *rg = NULL;
	char nm[256];

	if (t->kind == T_VAR && scope_find(cc->sc, t->name) != NULL)
		return false;
	if (t->kind != T_VAR && t->kind != T_REF)
		return false;
	return resolve_builtin(cc, t, &rg, nm, sizeof(nm)) != NULL ||
	    rg != NULL;
}

static void
collect_expr(struct cc *cc, struct ast_expr *e)
{
	size_t i;

	switch (e->kind) {
	case E_SOME:
		for (i = 0; i < e->nvars; i++)
			scope_declare(cc, e->vars[i]->name);
		break;
	case E_SOME_IN:
		/* declared fresh where the expression is lowered */
		collect_term(cc, e->coll);
		break;
	case E_EVERY:
		collect_term(cc, e->coll);
		break;
	case E_ASSIGN:
		if (e->a->kind == T_VAR &&
		    scope_find1(cc->sc, e->a->name) == NULL)
			scope_declare(cc, e->a->name);
		collect_term(cc, e->a);
		collect_term(cc, e->b);
		break;
	default:
		collect_term(cc, e->a);
		collect_term(cc, e->b);
		break;
	}
	for (i = 0; i < e->nwiths; i++)
		if (!with_value_is_func(cc, e->withs[i].value))
			collect_term(cc, e->withs[i].value);
}

static void
collect_body(struct cc *cc, struct ast_body *b)
{
	size_t i;

	if (b == NULL)
		return;
	/* `some` first so that it wins over globals */
	for (i = 0; i < b->n; i++)
		if (b->e[i]->kind == E_SOME)
			collect_expr(cc, b->e[i]);
	for (i = 0; i < b->n; i++)
		if (b->e[i]->kind == E_SOME_IN) {
			struct ast_expr *e = b->e[i];
			if (e->key && e->key->kind == T_VAR)
				scope_declare(cc, e->key->name);
			if (e->value->kind == T_VAR)
				scope_declare(cc, e->value->name);
			collect_term(cc, e->key);
			collect_term(cc, e->value);
		}
	for (i = 0; i < b->n; i++)
		collect_expr(cc, b->e[i]);
}

/* ---- readiness (safety) ---- */
static const struct axp_builtin *resolve_builtin(struct cc *cc,
    struct ast_term *fn, struct rgroup **rg, char *name, size_t namelen);

static bool t_evaluable(struct cc *cc, struct ast_term *t);
static struct rgroup *resolve_func(struct cc *cc, struct ast_term *fn);

/* print(x, ...): OPA's variadic print, unless a user function of that
 * name is in scope.  Its operands are evaluated each in a closure of its
 * own (an undefined one prints as <undefined>), so they do not make the
 * expression around them unsafe; a var that is never bound is "var x is
 * undeclared" at the var, as OPA reports it. */
static bool
is_print(struct cc *cc, struct ast_term *t)
{
	return t != NULL && t->kind == T_CALL && t->key->kind == T_VAR &&
	    strcmp(t->key->name, "print") == 0 &&
	    resolve_func(cc, t->key) == NULL;
}
static bool t_patternable(struct cc *cc, struct ast_term *t);
static bool
closure_ready(struct cc *cc, struct ast_term *t, struct ast_body *b);

static bool
var_bound(struct cc *cc, const char *name)
{
	struct var *v = scope_find(cc->sc, name);

	return v == NULL || cc->bound[v->slot];
}

/* Mark the vars a ref binds as it iterates (input.foos[foo]). */
static void
mark_ref_vars(struct cc *cc, struct ast_term *t)
{
	size_t i;
	struct var *v;

	if (t->kind != T_REF)
		return;
	for (i = 1; i < t->n; i++)
		if (t->items[i]->kind == T_VAR &&
		    (v = scope_find(cc->sc, t->items[i]->name)) != NULL)
			cc->bound[v->slot] = true;
}

/* Does arg t, once evaluable, bind vars (input.foos[foo] binds foo)? */
static bool
binds_vars(struct cc *cc, struct ast_term *t)
{
	size_t i;
	struct var *v;

	if (t->kind != T_REF)
		return false;
	for (i = 1; i < t->n; i++)
		if (t->items[i]->kind == T_VAR &&
		    (v = scope_find(cc->sc, t->items[i]->name)) != NULL &&
		    !cc->bound[v->slot])
			return true;
	return false;
}

/* The args of a call, taken in the order in which each becomes evaluable:
 * a ref arg binds its vars first, so foo == input.foos[foo] is safe.
 * ok[] says which args are evaluable as things stand; only the others are
 * looked at again, after the ok ones have bound their vars. */
/* Does t mention a var whose slot is set in fresh? */
static bool
mentions(struct cc *cc, const struct ast_term *t, const bool *fresh)
{
	size_t i;
	struct var *v;

	if (t == NULL)
		return false;
	switch (t->kind) {
	case T_VAR:
		v = scope_find(cc->sc, t->name);
		return v != NULL && fresh[v->slot];
	case T_SCALAR:
		return false;
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR:
		return true; /* closures: look again */
	default:
		if (t->kind == T_CALL && mentions(cc, t->key, fresh))
			return true;
		for (i = 0; i < t->n; i++)
			if (mentions(cc, t->items[i], fresh))
				return true;
		return false;
	}
}

static bool
args_ready(struct cc *cc, struct ast_term *t, size_t arity, bool *ok)
{
	bool *saved = axg_reallocarray(NULL, cc->nslots + 1, sizeof(bool));
	bool *prev = axg_calloc(cc->nslots + 1, sizeof(bool));
	bool *fresh = axg_calloc(cc->nslots + 1, sizeof(bool));
	bool progress = true, all = false;
	size_t i, j, n = arity < t->n ? arity : t->n, left = 0;

	memcpy(saved, cc->bound, cc->nslots * sizeof(bool));
	memcpy(prev, cc->bound, cc->nslots * sizeof(bool));
	for (i = 0; i < n; i++) {
		if (ok[i])
			mark_ref_vars(cc, t->items[i]);
		else
			left++;
	}
	while (progress && left > 0) {
		/* the vars bound since the last look; an arg that mentions
		 * none of them would get the same answer again */
		for (j = 0; j < cc->nslots; j++)
			fresh[j] = cc->bound[j] && !prev[j];
		memcpy(prev, cc->bound, cc->nslots * sizeof(bool));
		progress = false;
		for (i = 0; i < n; i++)
			if (!ok[i] && mentions(cc, t->items[i], fresh) &&
			    t_evaluable(cc, t->items[i])) {
				ok[i] = true;
				left--;
				progress = true;
				mark_ref_vars(cc, t->items[i]);
			}
	}
	free(fresh);
	free(prev);
	all = left == 0 &&
	    (t->n <= arity || t_patternable(cc, t->items[t->n - 1]));
	memcpy(cc->bound, saved, cc->nslots * sizeof(bool));
	free(saved);
	return all;
}

static bool
t_evaluable(struct cc *cc, struct ast_term *t)
{
	size_t i;

	if (++cc->C->order_work > ORDER_WORK_MAX) {
		cc->C->order_exhausted = true;
		return false;
	}

	switch (t->kind) {
	case T_SCALAR:
		return true;
	case T_VAR:
		return var_bound(cc, t->name);
	case T_REF:
		if (!t_evaluable(cc, t->items[0]))
			return false;
		for (i = 1; i < t->n; i++)
			if (!t_patternable(cc, t->items[i]))
				return false;
		return true;
	case T_CALL: {
		struct rgroup *rg = NULL;
		char nm[256];
		const struct axp_builtin *bi;
		if (is_print(cc, t)) {
			for (i = 0; i < t->n; i++)
				if (!t_evaluable(cc, t->items[i]))
					return false;
			return true;
		}
		bi = resolve_builtin(cc, t->key, &rg, nm, sizeof(nm));
		size_t arity = bi ? (size_t)bi->arity : rg ? rg->nargs : t->n;
		if (bi == NULL && rg == NULL)
			return true; /* lowering reports the unknown name */
		/* Each arg is looked at once; only when one that is
		 * evaluable binds vars that another may need are the others
		 * looked at again (so nested calls cost linear time). */
		{
			bool okbuf[16], *ok = okbuf, notall = false,
					binder = false, r;
			if (t->n > AXG_ARRAY_LEN(okbuf))
				ok = axg_calloc(t->n, sizeof(bool));
			for (i = 0; i < t->n; i++) {
				if (i == arity && i == t->n - 1) {
					ok[i] = true;
					if (!t_patternable(cc, t->items[i])) {
						notall = binder = false;
						break;
					}
					continue;
				}
				ok[i] = t_evaluable(cc, t->items[i]);
				if (!ok[i])
					notall = true;
				else if (binds_vars(cc, t->items[i]))
					binder = true;
			}
			if (i < t->n)
				r = false; /* the output arg is no pattern */
			else if (!notall)
				r = true;
			else
				r = binder && args_ready(cc, t, arity, ok);
			if (ok != okbuf)
				free(ok);
			return r;
		}
	}
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		for (i = 0; i < t->n; i++)
			if (!t_evaluable(cc, t->items[i]))
				return false;
		return true;
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR:
		return closure_ready(cc, t, t->body);
	}
	return false;
}

static bool
t_patternable(struct cc *cc, struct ast_term *t)
{
	size_t i;

	switch (t->kind) {
	case T_VAR:
		return true;
	case T_ARRAY:
		for (i = 0; i < t->n; i++)
			if (!t_patternable(cc, t->items[i]))
				return false;
		return true;
	case T_OBJECT:
		for (i = 0; i < t->n; i += 2)
			if (!t_evaluable(cc, t->items[i]) ||
			    !t_patternable(cc, t->items[i + 1]))
				return false;
		return true;
	default:
		return t_evaluable(cc, t);
	}
}

/* Vars of a closure that refer to the enclosing scope must be bound. */
struct capctx {
	struct cc *cc;
	struct vscope inner; /* names the closure declares itself */
	bool ok;
	const struct ast_term *unsafe;
	const struct ast_loc *cur;	 /* the expression being walked */
	const struct ast_loc *unsafe_at; /* the expression unsafe is in */
};

static void cap_term(struct capctx *x, struct ast_term *t);

/* The vars an assignment's left side declares in the closure (x := ...,
 * [a, b] := ...): the closure's own, whatever the enclosing scope holds. */
static void
cap_declare(struct capctx *x, struct ast_term *t)
{
	size_t i;

	switch (t->kind) {
	case T_VAR: {
		struct var v = { t->name, 0 };
		x->inner.v =
		    axg_reallocarray(x->inner.v, x->inner.n + 1, sizeof(v));
		x->inner.v[x->inner.n++] = v;
		return;
	}
	case T_ARRAY:
		for (i = 0; i < t->n; i++)
			cap_declare(x, t->items[i]);
		return;
	case T_OBJECT:
		for (i = 1; i < t->n; i += 2)
			cap_declare(x, t->items[i]);
		return;
	default:
		return;
	}
}

static void
cap_body(struct capctx *x, struct ast_body *b)
{
	size_t i, j;
	const struct ast_loc *saved = x->cur;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++) {
		struct ast_expr *e = b->e[i];
		if (e->kind == E_ASSIGN)
			cap_declare(x, e->a);
		if (e->kind == E_SOME)
			for (j = 0; j < e->nvars; j++) {
				struct var v = { e->vars[j]->name, 0 };
				x->inner.v = axg_reallocarray(x->inner.v,
				    x->inner.n + 1, sizeof(v));
				x->inner.v[x->inner.n++] = v;
			}
		if (e->kind == E_SOME_IN || e->kind == E_EVERY) {
			struct ast_term *kv[2] = { e->key, e->value };
			for (j = 0; j < 2; j++)
				if (kv[j] && kv[j]->kind == T_VAR) {
					struct var v = { kv[j]->name, 0 };
					x->inner.v =
					    axg_reallocarray(x->inner.v,
						x->inner.n + 1, sizeof(v));
					x->inner.v[x->inner.n++] = v;
				}
		}
	}
	for (i = 0; i < b->n; i++) {
		struct ast_expr *e = b->e[i];
		x->cur = &e->loc;
		cap_term(x, e->a);
		cap_term(x, e->b);
		cap_term(x, e->key);
		cap_term(x, e->value);
		cap_term(x, e->coll);
		cap_body(x, e->body);
		for (j = 0; j < e->nalts; j++)
			cap_body(x, e->alts[j]);
		for (j = 0; j < e->nwiths; j++)
			cap_term(x, e->withs[j].value);
	}
	x->cur = saved;
}

static void
cap_term(struct capctx *x, struct ast_term *t)
{
	size_t i;
	struct var *v;

	if (t == NULL)
		return;
	switch (t->kind) {
	case T_VAR:
		if (scope_find1(&x->inner, t->name) != NULL)
			return;
		v = scope_find(x->cc->sc, t->name);
		if (v != NULL && !x->cc->bound[v->slot] && x->ok) {
			x->ok = false;
			x->unsafe = t;
			x->unsafe_at = x->cur;
		}
		return;
	case T_REF:
	case T_CALL:
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		if (is_print(x->cc, t))
			return; /* checked where the print is lowered */
		if (t->kind == T_CALL)
			cap_term(x, t->key);
		for (i = 0; i < t->n; i++)
			cap_term(x, t->items[i]);
		return;
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR:
		cap_body(x, t->body); /* first: it declares its own vars */
		cap_term(x, t->key);
		cap_term(x, t->value);
		return;
	default:
		return;
	}
}

static bool
closure_ready(struct cc *cc, struct ast_term *t, struct ast_body *b)
{
	struct capctx x;

	memset(&x, 0, sizeof(x));
	x.cc = cc;
	x.ok = true;
	cap_body(&x, b);
	if (t != NULL) {
		cap_term(&x, t->key);
		cap_term(&x, t->value);
	}
	free(x.inner.v);
	return x.ok;
}

/* All non-wildcard local vars of a term are bound (negation). */
static bool
t_all_bound(struct cc *cc, struct ast_term *t, struct ast_term **unsafe)
{
	size_t i;

	if (t == NULL)
		return true;
	switch (t->kind) {
	case T_VAR:
		if (!is_wildcard(t->name) && !var_bound(cc, t->name)) {
			*unsafe = t;
			return false;
		}
		return true;
	case T_REF:
	case T_CALL:
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		for (i = 0; i < t->n; i++)
			if (!t_all_bound(cc, t->items[i], unsafe))
				return false;
		return true;
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR:
		return closure_ready(cc, t, t->body);
	default:
		return true;
	}
}

/* Can a = b be solved now?  One side evaluable and the other a pattern,
 * or two composites of the same shape whose pairs can. */
static bool
unify_ready(struct cc *cc, struct ast_term *a, struct ast_term *b)
{
	size_t i;

	if ((t_evaluable(cc, a) && t_patternable(cc, b)) ||
	    (t_evaluable(cc, b) && t_patternable(cc, a)))
		return true;
	if (a->kind == T_ARRAY && b->kind == T_ARRAY && a->n == b->n) {
		for (i = 0; i < a->n; i++)
			if (!unify_ready(cc, a->items[i], b->items[i]))
				return false;
		return true;
	}
	if (a->kind == T_OBJECT && b->kind == T_OBJECT && a->n == b->n) {
		for (i = 0; i < a->n; i += 2) {
			size_t j;
			struct axv *ka = axp_const_term(a->items[i]);
			bool found = false;
			for (j = 0; ka && j < b->n; j += 2) {
				struct axv *kb = axp_const_term(b->items[j]);
				if (kb && axv_equal(ka, kb)) {
					found = unify_ready(cc, a->items[i + 1],
					    b->items[j + 1]);
					axv_unref(kb);
					break;
				}
				axv_unref(kb);
			}
			axv_unref(ka);
			if (!found)
				return false;
		}
		return true;
	}
	return false;
}

static bool
expr_ready(struct cc *cc, struct ast_expr *e)
{
	size_t i;
	struct ast_term *u;

	for (i = 0; i < e->nwiths; i++)
		if (!with_value_is_func(cc, e->withs[i].value) &&
		    !t_evaluable(cc, e->withs[i].value))
			return false;
	if (e->negated) {
		if (!t_all_bound(cc, e->a, &u) || !t_all_bound(cc, e->b, &u))
			return false;
	}
	switch (e->kind) {
	case E_TERM:
		return t_evaluable(cc, e->a);
	case E_UNIFY:
	case E_ASSIGN:
		return unify_ready(cc, e->a, e->b);
	case E_SOME:
		return true;
	case E_SOME_IN:
		return t_evaluable(cc, e->coll) &&
		    (e->key == NULL || t_patternable(cc, e->key)) &&
		    t_patternable(cc, e->value);
	case E_EVERY:
		return t_evaluable(cc, e->coll) &&
		    closure_ready(cc, NULL, e->body);
	case E_GROUP:
		return closure_ready(cc, NULL, e->body);
	case E_AND:
	case E_OR:
		for (i = 0; i < e->nalts; i++)
			if (!closure_ready(cc, NULL, e->alts[i]))
				return false;
		return true;
	}
	return false;
}

/* The error for an unsafe var, as OPA words it: at the expression the
 * var is in (at), or at the var itself when it is in a rule head (at
 * NULL), naming the rule where a position alone would not say which. */
static void
unsafe_err(struct cc *cc, const struct ast_loc *at, const struct ast_term *v)
{
	if (cc->undeclared) {
		cerr(cc->C, &v->loc, AXP_ERR_COMPILE, "var %s is undeclared",
		    v->name);
		return;
	}
	cerr(cc->C, at ? at : &v->loc, AXP_ERR_UNSAFE_VAR, "var %s is unsafe%s",
	    v->name, cc->C->rule_sfx);
}

/* Report the first unbound outer var a nested body refers to. */
static void
report_unsafe_term(struct cc *cc, struct ast_term *t, const struct ast_loc *at);

static void
report_unsafe_body(struct cc *cc, struct ast_body *b, const struct ast_loc *at)
{
	struct capctx x;

	memset(&x, 0, sizeof(x));
	x.cc = cc;
	x.ok = true;
	cap_body(&x, b);
	free(x.inner.v);
	if (!x.ok)
		report_unsafe_term(cc, (struct ast_term *)x.unsafe,
		    x.unsafe_at ? x.unsafe_at : at);
}

/* Report the unbound vars of an expression that could not be ordered,
 * at the expression's location at (NULL: each var's own). */
static void
report_unsafe_term(struct cc *cc, struct ast_term *t, const struct ast_loc *at)
{
	size_t i;

	if (t == NULL)
		return;
	switch (t->kind) {
	case T_VAR:
		if (!var_bound(cc, t->name) && !is_wildcard(t->name)) {
			unsafe_err(cc, at, t);
			/* report each var once */
			cc->bound[scope_find(cc->sc, t->name)->slot] = true;
		}
		return;
	case T_REF:
	case T_CALL:
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		for (i = 0; i < t->n; i++)
			report_unsafe_term(cc, t->items[i], at);
		return;
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR: {
		struct capctx x;
		memset(&x, 0, sizeof(x));
		x.cc = cc;
		x.ok = true;
		cap_body(&x, t->body);
		cap_term(&x, t->key);
		cap_term(&x, t->value);
		free(x.inner.v);
		if (!x.ok)
			report_unsafe_term(cc, (struct ast_term *)x.unsafe,
			    x.unsafe_at ? x.unsafe_at : at);
		return;
	}
	default:
		return;
	}
}

/* The vars of a print's operands that nothing binds, each once, as
 * "undeclared" at the var. */
static void
report_undeclared(struct cc *cc, struct ast_term *t)
{
	cc->undeclared = true;
	report_unsafe_term(cc, t, NULL);
	cc->undeclared = false;
}

/* ---- lowering ---- */
/* The memo index (plus one) of input key k, 0 for none: a policy's rules
 * number their keys; a query uses those numbers and adds none. */
static uint32_t
input_key(struct comp *C, struct axv *k)
{
	struct axp_policy *p = C->pol;
	uint32_t i;

	for (i = 0; i < p->ninkeys; i++)
		if (axv_equal(p->inkeys[i], k))
			return i + 1;
	if (C->query || p->ninkeys == AXP_MAX_INKEYS)
		return 0;
	p->inkeys =
	    axg_reallocarray(p->inkeys, p->ninkeys + 1, sizeof(*p->inkeys));
	p->inkeys[p->ninkeys++] = k;
	return p->ninkeys;
}

static struct stmt *
emit(struct sbuf *sb, enum ir_opcode op, const struct ast_loc *loc)
{
	struct stmt *s;

	if (sb->n == sb->cap) {
		sb->cap = sb->cap ? sb->cap * 2 : 16;
		sb->s = axg_reallocarray(sb->s, sb->cap, sizeof(*sb->s));
	}
	s = &sb->s[sb->n++];
	memset(s, 0, sizeof(*s));
	s->op = (uint16_t)op;
	s->loc = *loc;
	s->a.kind = s->b.kind = s->c.kind = OPD_NONE;
	return s;
}

static struct block *
finish_block(struct comp *C, struct sbuf *sb, enum done_kind done)
{
	struct block *b = ast_alloc(C->A, sizeof(*b));

	b->s = ast_alloc(C->A, (sb->n + 1) * sizeof(*b->s));
	if (sb->n)
		memcpy(b->s, sb->s, sb->n * sizeof(*sb->s));
	b->n = (uint32_t)sb->n;
	b->done = done;
	b->key.kind = b->val.kind = OPD_NONE;
	free(sb->s);
	free(sb->cse);
	memset(sb, 0, sizeof(*sb));
	return b;
}

static struct opd
opd_const(struct comp *C, struct axv *v)
{
	struct opd o;

	memset(&o, 0, sizeof(o));
	o.kind = OPD_CONST;
	o.val = ast_keep(C->A, v);
	return o;
}

static struct opd
opd_local(uint32_t slot)
{
	struct opd o;

	memset(&o, 0, sizeof(o));
	o.kind = OPD_LOCAL;
	o.slot = slot;
	return o;
}

static struct opd
lower_eval(struct cc *cc, struct ast_term *t, struct sbuf *sb);
static struct opd
lower_pattern(struct cc *cc, struct ast_term *t, struct sbuf *sb);
static void lower_body(struct cc *cc, struct ast_body *b, struct sbuf *sb);
static struct block *lower_scoped(struct cc *cc, struct ast_body *body);

/* A constant composite folds into one value. */
/* An object operand whose keys are all constants and distinct: sort its
 * pairs by key, so that evaluation builds the object by appending (the
 * values are evaluated in the new order: that has no effect, as operands
 * only read slots). */
static bool
sort_keys(struct opd *items, uint32_t n)
{
	uint32_t i, j;

	for (i = 0; i < n; i++)
		if (items[2 * i].kind != OPD_CONST)
			return false;
	for (i = 1; i < n; i++) /* insertion sort: literals are short */
		for (j = i; j > 0 &&
		     axv_compare(items[2 * j - 2].val, items[2 * j].val) > 0;
		     j--) {
			struct opd k = items[2 * j], v = items[2 * j + 1];
			items[2 * j] = items[2 * j - 2];
			items[2 * j + 1] = items[2 * j - 1];
			items[2 * j - 2] = k;
			items[2 * j - 1] = v;
		}
	for (i = 1; i < n; i++)
		if (axv_compare(items[2 * i - 2].val, items[2 * i].val) == 0)
			return false;
	return true;
}

static struct opd
fold(struct cc *cc, enum opd_kind k, struct opd *items, uint32_t n)
{
	struct opd o;
	uint32_t i;
	struct axv *v;

	for (i = 0; i < n; i++)
		if (items[i].kind != OPD_CONST)
			break;
	if (i == n) {
		if (k == OPD_ARRAY) {
			v = axv_array_new(n);
			for (i = 0; i < n; i++)
				axv_array_push(v, axv_ref(items[i].val));
		} else if (k == OPD_SET) {
			v = axv_set_new(n);
			for (i = 0; i < n; i++)
				axv_set_add(v, axv_ref(items[i].val));
		} else {
			v = axv_object_new(n / 2);
			for (i = 0; i < n; i += 2)
				axv_object_put(v, axv_ref(items[i].val),
				    axv_ref(items[i + 1].val));
		}
		return opd_const(cc->C, v);
	}
	memset(&o, 0, sizeof(o));
	o.kind = (uint8_t)k;
	o.items = items;
	o.n = k == OPD_OBJECT ? n / 2 : n;
	if (k == OPD_OBJECT)
		o.sorted = sort_keys(items, n / 2);
	return o;
}

static void
mark_bound_opd(struct cc *cc, const struct opd *o)
{
	uint32_t i, n;

	switch (o->kind) {
	case OPD_LOCAL:
		cc->bound[o->slot] = true;
		break;
	case OPD_ARRAY:
	case OPD_SET:
	case OPD_OBJECT:
		n = o->kind == OPD_OBJECT ? o->n * 2 : o->n;
		for (i = 0; i < n; i++)
			mark_bound_opd(cc, &o->items[i]);
		break;
	default:
		break;
	}
}

static uint32_t
temp(struct cc *cc)
{
	uint32_t s = new_slot(cc);

	cc->bound[s] = true;
	return s;
}

/* Walk data refs through the rule tree; returns the operand holding the
 * value reached and how many path terms were consumed. */
static struct opd
lower_data(struct cc *cc, struct dnode *node, struct ast_term **path, size_t n,
    size_t *used, const struct ast_loc *loc, struct sbuf *sb)
{
	size_t i = 0;
	struct stmt *s;

	while (i < n && (node->rg == NULL || node->nkids > 0)) {
		struct ast_term *e = path[i];
		struct dnode *k;
		if (e->kind == T_SCALAR && axv_kind(e->val) == AXV_STRING &&
		    (k = node_child(cc->C, node, axv_str(e->val), false)) !=
			NULL) {
			node = k;
			i++;
			continue;
		}
		if (node->rg != NULL)
			break;
		if (e->kind != T_SCALAR && t_evaluable(cc, e)) {
			/* data[k], k known at evaluation: that one child */
			struct opd key = lower_eval(cc, e, sb);
			s = emit(sb, IR_DATA, loc);
			s->node = node;
			s->a = key;
			s->out = temp(cc);
			*used = i + 1;
			return opd_local(s->out);
		}
		if (e->kind == T_SCALAR) {
			/* leaving the rule tree: base data only below */
			struct axv *p = axv_array_new(0), *cur;
			uint32_t j;
			for (j = 0; j < axv_array_len(node->path); j++)
				axv_array_push(p,
				    axv_ref(axv_array_get(node->path, j)));
			while (i < n && path[i]->kind == T_SCALAR)
				axv_array_push(p, axv_ref(path[i++]->val));
			s = emit(sb, IR_BASEDATA, loc);
			s->path = ast_keep(cc->C->A, p);
			cur = cc->C->pol->data;
			for (j = 0; cur && j < axv_array_len(p); j++) {
				struct axv *key = axv_array_get(p, j);
				if (axv_kind(cur) == AXV_OBJECT)
					cur = axv_object_get(cur, key);
				else if (axv_kind(cur) == AXV_ARRAY &&
				    axv_kind(key) == AXV_NUMBER) {
					int64_t ix;
					cur =
					    axv_num_get_i64(key, &ix) && ix >= 0
					    ? axv_array_get(cur, (size_t)ix)
					    : NULL;
				} else
					cur = NULL;
			}
			s->pre = cur;
			s->out = temp(cc);
			*used = i;
			return opd_local(s->out);
		}
		break;
	}
	if (node->rg != NULL && node->nkids == 0) {
		if (node->rg->kind == RG_FUNC) {
			cerr(cc->C, loc, AXP_ERR_TYPE,
			    "function %s called without arguments",
			    node->rg->name);
		}
		if (cc->C->cur != NULL) {
			struct rgroup *c = cc->C->cur;
			c->deps = axg_reallocarray(c->deps, c->ndeps + 1,
			    sizeof(*c->deps));
			c->deps[c->ndeps++] = node->rg;
		}
		s = emit(sb, IR_RULE, loc);
		s->rg = node->rg;
	} else {
		s = emit(sb, IR_DATA, loc);
		s->node = node;
		if (cc->C->cur != NULL) /* depends on everything below */
			cc->C->cur->ndeps += 0;
	}
	s->out = temp(cc);
	*used = i;
	return opd_local(s->out);
}

/* The static path of an import, head included. */
static struct opd
lower_ref_path(struct cc *cc, struct opd cur, struct ast_term **path, size_t n,
    struct sbuf *sb, const struct ast_loc *loc)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct ast_term *e = path[i];
		struct stmt *s;
		if (t_evaluable(cc, e)) {
			struct opd k = lower_eval(cc, e, sb);
			s = emit(sb, IR_DOT, loc);
			s->a = cur;
			s->b = k;
			s->out = temp(cc);
			cur = opd_local(s->out);
		} else {
			struct opd k = lower_pattern(cc, e, sb);
			s = emit(sb, IR_SCAN, loc);
			s->a = cur;
			s->b = k;
			s->c = opd_local(temp(cc));
			mark_bound_opd(cc, &k);
			cur = s->c;
		}
	}
	return cur;
}

static struct opd
lower_ref(struct cc *cc, struct ast_term *t, struct sbuf *sb)
{
	struct ast_term **items = t->kind == T_REF ? t->items : &t;
	size_t n = t->kind == T_REF ? t->n : 1, used = 0;
	struct ast_term *head = items[0];
	struct opd cur;
	struct var *lv = NULL;
	struct ast_import *imp = NULL;
	enum gkind g;

	if (head->kind != T_VAR) {
		cur = lower_eval(cc, head, sb);
		return lower_ref_path(cc, cur, items + 1, n - 1, sb, &t->loc);
	}
	g = resolve_name(cc, head->name, &lv, &imp);
	switch ((int)g) {
	case G_LOCAL:
		cur = opd_local(lv->slot);
		return lower_ref_path(cc, cur, items + 1, n - 1, sb, &t->loc);
	case G_INPUT: {
		struct stmt *s;
		size_t skip = 0;
		struct opd k = { .kind = OPD_NONE };
		/* input.key: one statement, not INPUT then DOT */
		if (n > 1 && items[1]->kind == T_SCALAR &&
		    t_evaluable(cc, items[1])) {
			k = lower_eval(cc, items[1], sb);
			skip = k.kind == OPD_CONST ? 1 : 0;
		}
		if (skip && !sb->no_cse) {
			size_t j;
			for (j = 0; j < sb->ncse; j++)
				if (axv_equal(sb->cse[j].key, k.val))
					break;
			if (j < sb->ncse) {
				cur = opd_local(sb->cse[j].slot);
				return lower_ref_path(cc, cur, items + 2, n - 2,
				    sb, &t->loc);
			}
		}
		s = emit(sb, IR_INPUT, &t->loc);
		s->out = temp(cc);
		if (skip) {
			s->a = k;
			s->ikey = input_key(cc->C, k.val);
		}
		if (skip && !sb->no_cse) {
			if (sb->ncse == sb->capcse) {
				sb->capcse = sb->capcse ? sb->capcse * 2 : 8;
				sb->cse = axg_reallocarray(sb->cse, sb->capcse,
				    sizeof(*sb->cse));
			}
			sb->cse[sb->ncse].key = k.val;
			sb->cse[sb->ncse++].slot = s->out;
		}
		cur = opd_local(s->out);
		return lower_ref_path(cc, cur, items + 1 + skip, n - 1 - skip,
		    sb, &t->loc);
	}
	case G_DATA:
		cur = lower_data(cc, cc->C->pol->root, items + 1, n - 1, &used,
		    &t->loc, sb);
		return lower_ref_path(cc, cur, items + 1 + used, n - 1 - used,
		    sb, &t->loc);
	case G_DATA + 100: {
		/* package-relative: data.<pkg>.name... */
		struct dnode *pn = module_node(cc->C, cc->mod, false);
		struct ast_term *nm = ast_alloc(cc->C->A, sizeof(*nm));
		struct ast_term **p2 =
		    ast_alloc(cc->C->A, (n + 1) * sizeof(*p2));
		nm->kind = T_SCALAR;
		nm->loc = head->loc;
		nm->val = ast_keep(cc->C->A, axv_cstr(head->name));
		p2[0] = nm;
		memcpy(p2 + 1, items + 1, (n - 1) * sizeof(*p2));
		cur = lower_data(cc, pn, p2, n, &used, &t->loc, sb);
		return lower_ref_path(cc, cur, p2 + used, n - used, sb,
		    &t->loc);
	}
	case G_IMPORT: {
		/* splice the import path in front of the rest */
		struct ast_term *ip = imp->path;
		size_t m = ip->n + n - 1;
		struct ast_term *r = ast_alloc(cc->C->A, sizeof(*r));
		r->kind = T_REF;
		r->loc = t->loc;
		r->items = ast_alloc(cc->C->A, m * sizeof(*r->items));
		memcpy(r->items, ip->items, ip->n * sizeof(*r->items));
		memcpy(r->items + ip->n, items + 1,
		    (n - 1) * sizeof(*r->items));
		r->n = m;
		return lower_ref(cc, r, sb);
	}
	default:
		unsafe_err(cc, cc->expr_loc, head);
		return opd_const(cc->C, axv_null());
	}
}

/* Dotted name of a call target ("strings.replace_n"); false if not all
 * static. */
static bool
ref_dotted(struct ast_term *fn, char *out, size_t outlen)
{
	size_t i;
	struct axg_buf b;
	bool ok = true;

	if (fn->kind == T_VAR) {
		axg_strlcpy(out, fn->name, outlen);
		return true;
	}
	if (fn->kind != T_REF || fn->items[0]->kind != T_VAR)
		return false;
	axg_buf_init(&b, 0);
	axg_buf_puts(&b, fn->items[0]->name);
	for (i = 1; i < fn->n; i++) {
		if (fn->items[i]->kind != T_SCALAR ||
		    axv_kind(fn->items[i]->val) != AXV_STRING) {
			ok = false;
			break;
		}
		axg_buf_putc(&b, '.');
		axg_buf_puts(&b, axv_str(fn->items[i]->val));
	}
	if (ok)
		axg_strlcpy(out, b.data, outlen);
	axg_buf_free(&b);
	return ok;
}

/* Find the user function group a call names, following the package and
 * imports. */
static struct rgroup *
resolve_func(struct cc *cc, struct ast_term *fn)
{
	struct ast_term **items = fn->kind == T_REF ? fn->items : &fn;
	size_t n = fn->kind == T_REF ? fn->n : 1, i = 1;
	struct dnode *node;
	struct var *lv;
	struct ast_import *imp = NULL;
	enum gkind g;

	if (items[0]->kind != T_VAR)
		return NULL;
	g = resolve_name(cc, items[0]->name, &lv, &imp);
	if ((int)g == G_DATA) {
		node = cc->C->pol->root;
	} else if ((int)g == G_DATA + 100) {
		node = module_node(cc->C, cc->mod, false);
		node = node ? node_child(cc->C, node, items[0]->name, false)
			    : NULL;
	} else if (g == G_IMPORT && imp->path->kind == T_REF &&
	    strcmp(imp->path->items[0]->name, "data") == 0) {
		size_t j;
		node = cc->C->pol->root;
		for (j = 1; node && j < imp->path->n; j++) {
			struct ast_term *e = imp->path->items[j];
			if (e->kind != T_SCALAR ||
			    axv_kind(e->val) != AXV_STRING)
				return NULL;
			node = node_child(cc->C, node, axv_str(e->val), false);
		}
	} else {
		return NULL;
	}
	for (; node && i < n; i++) {
		if (items[i]->kind != T_SCALAR ||
		    axv_kind(items[i]->val) != AXV_STRING)
			return NULL;
		node = node_child(cc->C, node, axv_str(items[i]->val), false);
	}
	if (node && node->rg && node->rg->kind == RG_FUNC)
		return node->rg;
	return NULL;
}

static const struct axp_builtin *
resolve_builtin(struct cc *cc, struct ast_term *fn, struct rgroup **rg,
    char *name, size_t namelen)
{
	*rg = resolve_func(cc, fn);
	if (*rg != NULL)
		return NULL;
	if (!ref_dotted(fn, name, namelen))
		return NULL;
	return axp_builtin_lookup(name, strlen(name));
}

/* concat(sep, array.slice(a, i, j)): the slice was just lowered into a
 * temporary that only this call reads; make that statement the one call
 * internal.concat_slice(sep, a, i, j) writing out.  (Under a with that
 * replaces either builtin, the evaluator makes the two calls.) */
static bool
fuse_concat_slice(struct cc *cc, const struct ast_term *t,
    const struct axp_builtin *bi, const struct opd *args, struct sbuf *sb,
    struct opd out)
{
	struct stmt *last;
	struct opd *a4;
	const struct axp_builtin *fused;

	if (bi == NULL || strcmp(bi->name, "concat") != 0 || sb->n == 0 ||
	    t->items[1]->kind != T_CALL || t->items[1]->n != 3 ||
	    args[1].kind != OPD_LOCAL)
		return false;
	last = &sb->s[sb->n - 1];
	if (last->op != IR_CALL || last->bi == NULL ||
	    strcmp(last->bi->name, "array.slice") != 0 ||
	    last->c.kind != OPD_LOCAL || last->c.slot != args[1].slot ||
	    (fused = axp_builtin_lookup("internal.concat_slice", 21)) == NULL)
		return false;
	a4 = ast_alloc(cc->C->A, 5 * sizeof(*a4));
	a4[0] = args[0];
	memcpy(a4 + 1, last->args, 3 * sizeof(*a4));
	last->args = a4;
	last->nargs = 4;
	last->bi = fused;
	last->c = out;
	mark_bound_opd(cc, &out);
	return true;
}

/*
 * split(x, sep) whose pieces are only counted and joined back with the same
 * sep (count(p), concat(sep, array.slice(p, i, j))): the parent domains of
 * a host name are computed this way.  Such a join is a part of x, so the
 * pieces need not be made: the split becomes internal.split_check (x, with
 * split's operand checks), the count internal.split_count and the join
 * internal.split_join, which walk the separators of x.  Only in a rule body
 * without with-modifiers (the evaluator makes the real calls wherever one
 * could replace a builtin, and needs that to hold for the whole body).
 */
static bool
opd_uses(const struct opd *o, uint32_t slot)
{
	uint32_t i, n;

	switch (o->kind) {
	case OPD_LOCAL:
		return o->slot == slot;
	case OPD_ARRAY:
	case OPD_SET:
	case OPD_OBJECT:
		n = o->kind == OPD_OBJECT ? 2 * o->n : o->n;
		for (i = 0; i < n; i++)
			if (opd_uses(&o->items[i], slot))
				return true;
		return false;
	default:
		return false;
	}
}

static bool
is_call_to(const struct stmt *s, const char *name, uint32_t nargs)
{
	return s->op == IR_CALL && s->bi != NULL && s->nargs == nargs &&
	    strcmp(s->bi->name, name) == 0;
}

/* s is count(slot) or concat_slice(sep, slot, i, j) reading slot nowhere
 * else. */
static bool
is_piece_use(const struct stmt *s, uint32_t slot, const struct axv *sep)
{
	if (is_call_to(s, "count", 1))
		return s->args[0].kind == OPD_LOCAL &&
		    s->args[0].slot == slot && !opd_uses(&s->c, slot);
	if (is_call_to(s, "internal.concat_slice", 4))
		return s->args[0].kind == OPD_CONST &&
		    axv_equal(s->args[0].val, sep) &&
		    s->args[1].kind == OPD_LOCAL && s->args[1].slot == slot &&
		    !opd_uses(&s->args[2], slot) &&
		    !opd_uses(&s->args[3], slot) && !opd_uses(&s->c, slot);
	return false;
}

static bool
writes_out(const struct stmt *s)
{
	switch ((enum ir_opcode)s->op) {
	case IR_INPUT:
	case IR_BASEDATA:
	case IR_DATA:
	case IR_RULE:
	case IR_DOT:
	case IR_COMPR:
		return true;
	default:
		return false;
	}
}

/* The statements a fused call's result may be read by. */
struct fused_use {
	const struct stmt *def;	   /* the statement */
	const struct axv *sep;	   /* split: its separator, or NULL */
	const struct stmt *reader; /* else: the one statement reading it */
};

static bool
fused_use_ok(const struct stmt *s, uint32_t slot, const struct fused_use *u)
{
	if (s == u->def)
		return true;
	return u->sep != NULL ? is_piece_use(s, slot, u->sep) : s == u->reader;
}

/* Whether block b (and those in it) has no with-modifier and reads slot
 * only in the statements u allows. */
static bool
only_read_by(const struct block *b, uint32_t slot, const struct fused_use *u)
{
	uint32_t i, j;

	for (i = 0; i < b->n; i++) {
		const struct stmt *s = &b->s[i];
		if (s->op == IR_WITH_PUSH || s->op == IR_WITH_POP)
			return false;
		if (fused_use_ok(s, slot, u))
			continue;
		if ((writes_out(s) && s->out == slot) ||
		    opd_uses(&s->a, slot) || opd_uses(&s->b, slot) ||
		    opd_uses(&s->c, slot))
			return false;
		for (j = 0; j < s->nargs; j++)
			if (opd_uses(&s->args[j], slot))
				return false;
		if (s->blk != NULL && !only_read_by(s->blk, slot, u))
			return false;
		for (j = 0; j < s->nalts; j++)
			if (!only_read_by(s->alts[j], slot, u))
				return false;
	}
	if (opd_uses(&b->key, slot) || opd_uses(&b->val, slot))
		return false;
	for (j = 0; j < b->ndpath; j++)
		if (opd_uses(&b->dpath[j], slot))
			return false;
	return true;
}

static void
rewrite_piece_uses(struct comp *C, struct block *b, uint32_t slot,
    const struct axv *sep, const struct opd *sepopd)
{
	uint32_t i, j;

	for (i = 0; i < b->n; i++) {
		struct stmt *s = &b->s[i];
		if (is_piece_use(s, slot, sep) && s->nargs == 1) {
			struct opd *a2 = ast_alloc(C->A, 2 * sizeof(*a2));
			a2[0] = s->args[0];
			a2[1] = *sepopd;
			s->args = a2;
			s->nargs = 2;
			s->bi = axp_builtin_lookup("internal.split_count", 20);
		} else if (is_piece_use(s, slot, sep)) {
			s->bi = axp_builtin_lookup("internal.split_join", 19);
		}
		if (s->blk != NULL)
			rewrite_piece_uses(C, s->blk, slot, sep, sepopd);
		for (j = 0; j < s->nalts; j++)
			rewrite_piece_uses(C, s->alts[j], slot, sep, sepopd);
	}
}

/*
 * some x in numbers.range(a, b), the range read by nothing else: the call
 * becomes internal.range_check (numbers.range's checks and errors) and the
 * scan RSCAN, which walks from a to b without the array.  As for split,
 * only in a body without with-modifiers, and the evaluator makes the real
 * call where one from a caller could replace numbers.range (RSCAN then
 * scans what it gave).
 */
static void
fuse_range(struct block *body, struct block *b, uint32_t i)
{
	struct stmt *s = &b->s[i], *sc = &b->s[i + 1];
	struct fused_use u = { .def = s, .sep = NULL, .reader = sc };

	if (sc->op != IR_SCAN || sc->a.kind != OPD_LOCAL ||
	    sc->a.slot != s->c.slot || sc->b.kind != OPD_NONE ||
	    opd_uses(&sc->c, s->c.slot) || !only_read_by(body, s->c.slot, &u))
		return;
	s->bi = axp_builtin_lookup("internal.range_check", 20);
	sc->op = IR_RSCAN;
	sc->args = s->args;
	sc->nargs = 2;
}

/* data.a.b[k] where data.a.b is base data: BASEDATA into a temporary that
 * a DOT later in the block alone reads.  The DOT takes the path (and the
 * value there) and the BASEDATA goes: one statement, one binding.  (The
 * body has no with-modifier, so the base document is the same at the
 * DOT; the evaluator looks it up again under a caller's with-modifier on
 * data, as BASEDATA does.) */
static void
fuse_basedata(struct block *body, struct block *b, uint32_t i)
{
	struct stmt *s = &b->s[i], *dot = NULL;
	struct fused_use u = { .def = s, .sep = NULL };
	uint32_t j;

	for (j = i + 1; j < b->n && dot == NULL; j++)
		if (b->s[j].op == IR_DOT && b->s[j].path == NULL &&
		    b->s[j].a.kind == OPD_LOCAL && b->s[j].a.slot == s->out)
			dot = &b->s[j];
	if (dot == NULL || opd_uses(&dot->b, s->out) || dot->out == s->out)
		return;
	u.reader = dot;
	if (!only_read_by(body, s->out, &u))
		return;
	dot->path = s->path;
	dot->pre = s->pre;
	dot->a.kind = OPD_NONE;
	memmove(s, s + 1, (b->n - i - 1) * sizeof(*s));
	b->n--;
}

/* x[k] as a test (DOT into a temporary that only the TRUTHY after it
 * reads): the DOT becomes the test, binding nothing, and the TRUTHY goes. */
static void
fuse_dot_test(struct block *body, struct block *b, uint32_t i)
{
	struct stmt *s = &b->s[i], *t = &b->s[i + 1];
	struct fused_use u = { .def = s, .sep = NULL, .reader = t };

	if (t->op != IR_TRUTHY || t->a.kind != OPD_LOCAL ||
	    t->a.slot != s->out || !only_read_by(body, s->out, &u))
		return;
	s->kind = 1;
	memmove(t, t + 1, (b->n - i - 2) * sizeof(*t));
	b->n--;
}

/* Fuse the statements in b, a block of body (the whole rule body, whose
 * arguments are args): split, numbers.range, base data lookups, tests of
 * x[k]. */
static void
fuse_calls(struct comp *C, struct block *body, struct block *b,
    const struct opd *args, uint32_t nargs)
{
	uint32_t i, j;

	for (i = 0; i < b->n; i++) {
		struct stmt *s = &b->s[i];
		bool split, range, ok;
		if (s->op == IR_BASEDATA) {
			fuse_basedata(body, b, i);
			if (s->op != IR_BASEDATA) { /* gone: the next one */
				i--;
				continue;
			}
		}
		if (s->op == IR_DOT && s->kind == 0 && i + 1 < b->n)
			fuse_dot_test(body, b, i);
		split = is_call_to(s, "split", 2) &&
		    s->args[1].kind == OPD_CONST &&
		    axv_kind(s->args[1].val) == AXV_STRING;
		range = i + 1 < b->n && is_call_to(s, "numbers.range", 2);
		ok = (split || range) && s->c.kind == OPD_LOCAL;
		for (j = 0; ok && j < s->nargs; j++)
			ok = !opd_uses(&s->args[j], s->c.slot);
		for (j = 0; ok && j < nargs; j++)
			ok = !opd_uses(&args[j], s->c.slot);
		if (ok && range)
			fuse_range(body, b, i);
		if (ok && split) {
			struct fused_use u = { .def = s,
				.sep = s->args[1].val };
			if (only_read_by(body, s->c.slot, &u)) {
				rewrite_piece_uses(C, body, s->c.slot,
				    s->args[1].val, &s->args[1]);
				s->bi =
				    axp_builtin_lookup("internal.split_check",
					20);
			}
		}
		if (s->blk != NULL)
			fuse_calls(C, body, s->blk, args, nargs);
		for (j = 0; j < s->nalts; j++)
			fuse_calls(C, body, s->alts[j], args, nargs);
	}
}

/* print(a, b, ...) as internal.print([{x | x = a}, {x | x = b}, ...]):
 * each operand's values in a set of its own, empty where undefined. */
static struct opd
lower_print(struct cc *cc, struct ast_term *t, struct sbuf *sb)
{
	const struct axp_builtin *bi = axp_builtin_lookup("internal.print", 14);
	struct opd *items = ast_alloc(cc->C->A, (t->n + 1) * sizeof(*items));
	struct opd *args = ast_alloc(cc->C->A, sizeof(*args));
	struct stmt *s;
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct sbuf inner = { .s = NULL };
		bool *saved =
		    axg_reallocarray(NULL, cc->capbound + 1, sizeof(bool));
		size_t nsaved = cc->nslots;
		struct opd v;
		struct block *b;
		memcpy(saved, cc->bound, cc->nslots * sizeof(bool));
		v = lower_eval(cc, t->items[i], &inner);
		b = finish_block(cc->C, &inner, DONE_SET);
		b->key = v;
		memcpy(cc->bound, saved, nsaved * sizeof(bool));
		free(saved);
		s = emit(sb, IR_COMPR, &t->items[i]->loc);
		s->blk = b;
		s->kind = DONE_SET;
		s->out = temp(cc);
		items[i] = opd_local(s->out);
	}
	memset(args, 0, sizeof(*args));
	args->kind = OPD_ARRAY;
	args->items = items;
	args->n = (uint32_t)t->n;
	s = emit(sb, IR_CALL, &t->loc);
	s->bi = bi;
	s->args = args;
	s->nargs = 1;
	s->c = opd_const(cc->C, axv_bool(true));
	return s->c;
}

/* rego.metadata.rule() and rego.metadata.chain(): constants, from the
 * METADATA blocks of the rule being compiled (annotations.c); {} and []
 * outside a rule. */
static struct opd
lower_metadata(struct cc *cc, struct ast_term *t, const char *name)
{
	struct comp *C = cc->C;
	bool chain = strcmp(name, "rego.metadata.chain") == 0;
	struct axv *rule = NULL, *ch = NULL;
	char err[512];

	const struct ast_module *m = NULL;

	/* the module that holds the definition: a rule may be defined in
	 * several modules of its package */
	for (size_t i = 0; C->cur_rule != NULL && m == NULL && i < C->nmods;
	     i++)
		for (const struct ast_rule *r = C->mods[i]->rules; r != NULL;
		     r = r->next)
			if (r == C->cur_rule)
				m = C->mods[i];
	if (m == NULL)
		return opd_const(C,
		    chain ? axv_array_new(0) : axv_object_new(0));
	if (axp_annot_for_rule(C->mods, C->nmods, m, C->cur_rule, &rule, &ch,
		err, sizeof(err)) < 0) {
		cerr(C, &t->loc, AXP_ERR_PARSE, "%s", err);
		return opd_const(C, axv_null());
	}
	if (chain) {
		axv_unref(rule);
		return opd_const(C, ch);
	}
	axv_unref(ch);
	return opd_const(C, rule);
}

static struct opd
lower_call(struct cc *cc, struct ast_term *t, struct sbuf *sb, bool *stmt_only)
{
	struct rgroup *rg = NULL;
	char name[256] = "";
	const struct axp_builtin *bi =
	    resolve_builtin(cc, t->key, &rg, name, sizeof(name));
	size_t arity, i;
	struct opd *args, out;
	struct stmt *s;

	*stmt_only = false;
	if (bi == NULL && rg == NULL && is_print(cc, t)) {
		*stmt_only = true;
		return lower_print(cc, t, sb);
	}
	if (bi == NULL && rg == NULL && t->n == 0 &&
	    (strcmp(name, "rego.metadata.rule") == 0 ||
		strcmp(name, "rego.metadata.chain") == 0))
		return lower_metadata(cc, t, name);
	if (bi == NULL && rg == NULL) {
		cerr(cc->C, &t->loc, AXP_ERR_TYPE, "undefined function %s",
		    name[0] ? name : "(call)");
		return opd_const(cc->C, axv_null());
	}
	if (bi != NULL && (bi->flags & AXP_BIF_NETWORK) &&
	    (cc->C->pol->flags & AXP_COMPILE_OFFLINE)) {
		cerr(cc->C, &t->loc, AXP_ERR_TYPE,
		    "%s is not available in axgate policies (a policy must "
		    "not make network calls from inside the proxy)",
		    bi->name);
		return opd_const(cc->C, axv_null());
	}
	if (bi != NULL && (bi->flags & AXP_BIF_STALL) &&
	    (cc->C->pol->flags & AXP_COMPILE_OFFLINE)) {
		cerr(cc->C, &t->loc, AXP_ERR_TYPE,
		    "%s is not available in axgate policies (it would hold "
		    "a proxy worker)",
		    bi->name);
		return opd_const(cc->C, axv_null());
	}
	arity = bi ? (size_t)bi->arity : rg->nargs;
	if (t->n != arity && t->n != arity + 1) {
		cerr(cc->C, &t->loc, AXP_ERR_TYPE,
		    "%s: arity mismatch: expected %zu arguments, got %zu",
		    bi ? bi->name : rg->name, arity, t->n);
		return opd_const(cc->C, axv_null());
	}
	args = ast_alloc(cc->C->A, (arity + 1) * sizeof(*args));
	{
		/* in order, but an arg that waits for a ref arg's vars
		 * after it (foo == input.foos[foo]) */
		bool *ok = axg_calloc(arity + 1, sizeof(bool)), progress = true;
		size_t left = arity;
		while (progress && left > 0) {
			progress = false;
			for (i = 0; i < arity; i++)
				if (!ok[i] && t_evaluable(cc, t->items[i])) {
					args[i] =
					    lower_eval(cc, t->items[i], sb);
					ok[i] = true;
					left--;
					progress = true;
				}
		}
		for (i = 0; i < arity; i++)
			if (!ok[i])
				args[i] = lower_eval(cc, t->items[i], sb);
		free(ok);
	}
	if (t->n == arity + 1 && bi != NULL && strcmp(bi->name, "walk") == 0) {
		/* the relation walk(x, [path, value]): iterate the pairs */
		struct opd pairs = opd_local(temp(cc)), k;
		out = lower_pattern(cc, t->items[arity], sb);
		s = emit(sb, IR_CALL, &t->loc);
		s->args = args;
		s->nargs = (uint32_t)arity;
		s->c = pairs;
		s->bi = bi;
		mark_bound_opd(cc, &pairs);
		k = opd_local(temp(cc));
		s = emit(sb, IR_SCAN, &t->loc);
		s->a = pairs;
		s->b = k;
		s->c = out;
		mark_bound_opd(cc, &k);
		mark_bound_opd(cc, &out);
		*stmt_only = true;
		return out;
	}
	if (t->n == arity + 1) {
		out = lower_pattern(cc, t->items[arity], sb);
		*stmt_only = true;
	} else {
		out = opd_local(temp(cc));
		*stmt_only = false;
	}
	if (t->n == arity && fuse_concat_slice(cc, t, bi, args, sb, out))
		return out;
	s = emit(sb, bi ? IR_CALL : IR_CALLFN, &t->loc);
	s->args = args;
	s->nargs = (uint32_t)arity;
	s->c = out;
	s->bi = bi;
	s->rg = rg;
	if (rg != NULL && cc->C->cur != NULL) {
		struct rgroup *c = cc->C->cur;
		c->deps =
		    axg_reallocarray(c->deps, c->ndeps + 1, sizeof(*c->deps));
		c->deps[c->ndeps++] = rg;
	}
	mark_bound_opd(cc, &out);
	return out;
}

static struct opd
lower_closure(struct cc *cc, struct ast_term *t, struct sbuf *sb)
{
	struct vscope sc;
	struct sbuf inner = { .s = NULL };
	struct block *b;
	struct stmt *s;
	bool *saved;
	size_t nsaved = cc->nslots;

	saved = axg_reallocarray(NULL, cc->capbound + 1, sizeof(bool));
	memcpy(saved, cc->bound, cc->nslots * sizeof(bool));
	scope_push(cc, &sc);
	collect_body(cc, t->body);
	collect_term(cc, t->key);
	collect_term(cc, t->value);
	lower_body(cc, t->body, &inner);
	{
		struct opd k = lower_eval(cc, t->key, &inner), v;
		memset(&v, 0, sizeof(v));
		v.kind = OPD_NONE;
		if (t->value)
			v = lower_eval(cc, t->value, &inner);
		b = finish_block(cc->C, &inner,
		    t->kind == T_ARRAY_COMPR	 ? DONE_ARRAY
			: t->kind == T_SET_COMPR ? DONE_SET
						 : DONE_OBJECT);
		b->key = k;
		b->val = v;
	}
	scope_pop(cc);
	memcpy(cc->bound, saved, nsaved * sizeof(bool));
	free(saved);
	s = emit(sb, IR_COMPR, &t->loc);
	s->blk = b;
	s->kind = (uint8_t)b->done;
	s->out = temp(cc);
	return opd_local(s->out);
}

static struct opd
lower_eval(struct cc *cc, struct ast_term *t, struct sbuf *sb)
{
	struct opd *items;
	size_t i;
	bool so;

	switch (t->kind) {
	case T_SCALAR:
		return opd_const(cc->C, axv_ref(t->val));
	case T_VAR:
	case T_REF:
		return lower_ref(cc, t, sb);
	case T_CALL:
		return lower_call(cc, t, sb, &so);
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		items = ast_alloc(cc->C->A, (t->n + 1) * sizeof(*items));
		for (i = 0; i < t->n; i++)
			items[i] = lower_eval(cc, t->items[i], sb);
		return fold(cc,
		    t->kind == T_ARRAY	   ? OPD_ARRAY
			: t->kind == T_SET ? OPD_SET
					   : OPD_OBJECT,
		    items, (uint32_t)t->n);
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR:
		return lower_closure(cc, t, sb);
	}
	return opd_const(cc->C, axv_null());
}

static struct opd
lower_pattern(struct cc *cc, struct ast_term *t, struct sbuf *sb)
{
	struct opd *items;
	size_t i;
	struct var *v;

	switch (t->kind) {
	case T_VAR:
		v = scope_find(cc->sc, t->name);
		if (v != NULL)
			return opd_local(v->slot);
		return lower_eval(cc, t, sb);
	case T_ARRAY:
	case T_OBJECT:
		if (t_evaluable(cc, t))
			return lower_eval(cc, t, sb);
		items = ast_alloc(cc->C->A, (t->n + 1) * sizeof(*items));
		for (i = 0; i < t->n; i++)
			items[i] = (t->kind == T_OBJECT && i % 2 == 0)
			    ? lower_eval(cc, t->items[i], sb)
			    : lower_pattern(cc, t->items[i], sb);
		return fold(cc, t->kind == T_ARRAY ? OPD_ARRAY : OPD_OBJECT,
		    items, (uint32_t)t->n);
	default:
		return lower_eval(cc, t, sb);
	}
}

static void lower_expr(struct cc *cc, struct ast_expr *e, struct sbuf *sb);

/* A builtin that answers only true or false (or nothing). */
static bool
returns_bool(const struct axp_builtin *bi)
{
	size_t n, m = strlen("=> boolean");

	if (bi == NULL || bi->decl == NULL)
		return false;
	n = strlen(bi->decl);
	return n >= m && strcmp(bi->decl + n - m, "=> boolean") == 0;
}
struct jplan;
static void lower_some_in(struct cc *cc, struct ast_expr *e, struct sbuf *sb,
    struct jplan *jp);
static void
cc_init(struct cc *cc, struct comp *C, struct ast_module *m, struct vscope *sc);
static void cc_free(struct cc *cc);

static struct block *
lower_sub(struct cc *cc, struct ast_expr *e, bool keep_bound)
{
	struct sbuf inner = { .s = NULL };
	struct block *b;
	bool *saved = NULL;
	size_t nsaved = cc->nslots;

	if (!keep_bound) {
		saved = axg_reallocarray(NULL, cc->capbound + 1, sizeof(bool));
		memcpy(saved, cc->bound, cc->nslots * sizeof(bool));
	}
	lower_expr(cc, e, &inner);
	b = finish_block(cc->C, &inner, DONE_ANY);
	if (saved) {
		memcpy(cc->bound, saved, nsaved * sizeof(bool));
		free(saved);
	}
	return b;
}

static void
lower_with(struct cc *cc, struct ast_expr *e, struct sbuf *sb)
{
	struct stmt *s;
	struct with_target *wt;
	struct opd *vals;
	size_t i;

	wt = ast_alloc(cc->C->A, e->nwiths * sizeof(*wt));
	vals = ast_alloc(cc->C->A, e->nwiths * sizeof(*vals));
	for (i = 0; i < e->nwiths; i++) {
		struct ast_term *tg = e->withs[i].target;
		struct ast_term **items = tg->kind == T_REF ? tg->items : &tg;
		size_t n = tg->kind == T_REF ? tg->n : 1, j;
		char nm[256];
		struct rgroup *rg = NULL;
		const struct axp_builtin *bi;
		struct ast_term *vt = e->withs[i].value;

		if (items[0]->kind == T_VAR &&
		    (strcmp(items[0]->name, "input") == 0 ||
			strcmp(items[0]->name, "data") == 0)) {
			struct dnode *node = cc->C->pol->root;
			wt[i].kind =
			    items[0]->name[0] == 'i' ? WT_INPUT : WT_DATA;
			wt[i].path = ast_keep(cc->C->A, axv_array_new(n));
			for (j = 1; j < n; j++) {
				if (items[j]->kind != T_SCALAR) {
					cerr(cc->C, &tg->loc, AXP_ERR_TYPE,
					    "with target must be a constant "
					    "reference");
					break;
				}
				axv_array_push(wt[i].path,
				    axv_ref(items[j]->val));
				if (node &&
				    axv_kind(items[j]->val) == AXV_STRING)
					node = node_child(cc->C, node,
					    axv_str(items[j]->val), false);
				else
					node = NULL;
			}
			if (wt[i].kind == WT_DATA && node && node->rg &&
			    node->rg->kind == RG_FUNC) {
				wt[i].kind = WT_FUNC;
				wt[i].rg = node->rg;
			}
		} else if ((bi = resolve_builtin(cc, tg, &rg, nm,
				sizeof(nm))) != NULL ||
		    rg != NULL) {
			wt[i].kind = rg ? WT_FUNC : WT_BUILTIN;
			wt[i].rg = rg;
			wt[i].bi = bi;
		} else {
			cerr(cc->C, &tg->loc, AXP_ERR_TYPE,
			    "with keyword target must reference existing "
			    "input, data, or a function");
			continue;
		}
		if (wt[i].kind == WT_FUNC || wt[i].kind == WT_BUILTIN) {
			struct rgroup *rrg = NULL;
			const struct axp_builtin *rbi = NULL;
			if (vt->kind == T_VAR || vt->kind == T_REF) {
				struct var *lv;
				struct ast_import *imp;
				bool local = vt->kind == T_VAR &&
				    resolve_name(cc, vt->name, &lv, &imp) ==
					G_LOCAL;
				if (!local)
					rbi = resolve_builtin(cc, vt, &rrg, nm,
					    sizeof(nm));
			}
			wt[i].repl_rg = rrg;
			wt[i].repl_bi = rbi;
			if (rrg == NULL && rbi == NULL)
				vals[i] = lower_eval(cc, vt, sb);
			else
				vals[i].kind = OPD_NONE;
		} else {
			vals[i] = lower_eval(cc, vt, sb);
		}
	}
	s = emit(sb, IR_WITH_PUSH, &e->loc);
	s->wt = wt;
	s->args = vals;
	s->nargs = (uint32_t)e->nwiths;
}

/* x := f(...), x = input.a.b and the like: when the statement last lowered
 * left the value in a temporary (val), let it write the pattern directly
 * and emit no UNIFY.  A call unifies its result with its c operand, so
 * any pattern will do; the other statements bind their out slot without
 * looking, so only a variable not yet bound. */
static bool
fuse_unify(struct cc *cc, struct sbuf *sb, struct stmt *last,
    const struct opd *val, const struct opd *pat)
{
	size_t j;

	if (val->kind != OPD_LOCAL)
		return false;
	switch ((enum ir_opcode)last->op) {
	case IR_CALL:
	case IR_CALLFN:
		if (last->c.kind != OPD_LOCAL || last->c.slot != val->slot)
			return false;
		last->c = *pat;
		mark_bound_opd(cc, pat);
		return true;
	default:
		if (!writes_out(last) || last->out != val->slot ||
		    pat->kind != OPD_LOCAL || cc->bound[pat->slot])
			return false;
		last->out = pat->slot;
		cc->bound[pat->slot] = true;
		for (j = 0; j < sb->ncse; j++) /* input.key now lands in x */
			if (sb->cse[j].slot == val->slot)
				sb->cse[j].slot = pat->slot;
		return true;
	}
}

static void
lower_expr(struct cc *cc, struct ast_expr *e, struct sbuf *sb)
{
	struct stmt *s;
	struct opd a, b;
	bool so;

	if (e->nwiths > 0) {
		size_t nw = e->nwiths, ncse = sb->ncse;
		bool no_cse = sb->no_cse;
		lower_with(cc, e, sb);
		e->nwiths = 0;
		sb->no_cse = true;
		lower_expr(cc, e, sb);
		sb->no_cse = no_cse;
		sb->ncse = ncse;
		e->nwiths = nw;
		emit(sb, IR_WITH_POP, &e->loc);
		return;
	}
	if (e->negated) {
		e->negated = false;
		s = emit(sb, IR_NOT, &e->loc);
		{
			size_t idx = sb->n - 1;
			struct block *blk = lower_sub(cc, e, false);
			sb->s[idx].blk = blk;
		}
		e->negated = true;
		return;
	}
	switch (e->kind) {
	case E_TERM:
		if (e->a->kind == T_CALL) {
			a = lower_call(cc, e->a, sb, &so);
			if (so)
				return;
		} else {
			a = lower_eval(cc, e->a, sb);
		}
		if (cc->expr_opds != NULL) {
			/* a query's term expression captures its value, false
			 * included, as OPA does */
			cc->expr_opds[cc->cur_expr] = a;
			return;
		}
		if (e->a->kind == T_CALL && sb->n > 0 &&
		    sb->s[sb->n - 1].op == IR_CALL &&
		    sb->s[sb->n - 1].c.kind == OPD_LOCAL &&
		    a.kind == OPD_LOCAL && sb->s[sb->n - 1].c.slot == a.slot &&
		    returns_bool(sb->s[sb->n - 1].bi)) {
			/* a test such as x > 0: the call's result must be
			 * true, with no temporary and no TRUTHY */
			sb->s[sb->n - 1].c = opd_const(cc->C, axv_bool(true));
			return;
		}
		s = emit(sb, IR_TRUTHY, &e->loc);
		s->a = a;
		return;
	case E_UNIFY:
	case E_ASSIGN:
		if (t_evaluable(cc, e->b)) {
			size_t n0 = sb->n, n1;
			b = lower_eval(cc, e->b, sb);
			n1 = sb->n;
			a = t_evaluable(cc, e->a) ? lower_eval(cc, e->a, sb)
						  : lower_pattern(cc, e->a, sb);
			if (n1 > n0 && sb->n == n1 &&
			    fuse_unify(cc, sb, &sb->s[n1 - 1], &b, &a))
				return;
		} else if (t_evaluable(cc, e->a)) {
			size_t n0 = sb->n, n1;
			a = lower_eval(cc, e->a, sb);
			n1 = sb->n;
			b = lower_pattern(cc, e->b, sb);
			if (n1 > n0 && sb->n == n1 &&
			    fuse_unify(cc, sb, &sb->s[n1 - 1], &a, &b))
				return;
		} else {
			a = lower_pattern(cc, e->a, sb);
			b = lower_pattern(cc, e->b, sb);
		}
		s = emit(sb, IR_UNIFY, &e->loc);
		s->a = a;
		s->b = b;
		mark_bound_opd(cc, &a);
		mark_bound_opd(cc, &b);
		return;
	case E_SOME:
		return;
	case E_SOME_IN:
		lower_some_in(cc, e, sb, NULL);
		return;
	case E_EVERY: {
		struct opd coll = lower_eval(cc, e->coll, sb);
		struct vscope sc;
		struct sbuf inner = { .s = NULL };
		bool *saved =
		    axg_reallocarray(NULL, cc->capbound + 1, sizeof(bool));
		size_t nsaved = cc->nslots;
		struct opd k, v;
		struct block *blk;
		memcpy(saved, cc->bound, cc->nslots * sizeof(bool));
		scope_push(cc, &sc);
		k = opd_local(e->key && e->key->kind == T_VAR
			? scope_declare(cc, e->key->name)
			: new_slot(cc));
		v = opd_local(e->value->kind == T_VAR
			? scope_declare(cc, e->value->name)
			: new_slot(cc));
		cc->bound[k.slot] = cc->bound[v.slot] = true;
		collect_body(cc, e->body);
		lower_body(cc, e->body, &inner);
		blk = finish_block(cc->C, &inner, DONE_ANY);
		scope_pop(cc);
		memcpy(cc->bound, saved, nsaved * sizeof(bool));
		free(saved);
		s = emit(sb, IR_EVERY, &e->loc);
		s->a = coll;
		s->b = k;
		s->c = v;
		s->blk = blk;
		return;
	}
	case E_GROUP: {
		struct block *blk = lower_scoped(cc, e->body);
		s = emit(sb, IR_ANY, &e->loc);
		s->blk = blk;
		return;
	}
	case E_AND: {
		size_t i;
		for (i = 0; i < e->nalts; i++) {
			struct block *blk = lower_scoped(cc, e->alts[i]);
			s = emit(sb, IR_ANY, &e->loc);
			s->blk = blk;
		}
		return;
	}
	case E_OR: {
		struct block **alts =
		    ast_alloc(cc->C->A, e->nalts * sizeof(*alts));
		size_t i;
		for (i = 0; i < e->nalts; i++)
			alts[i] = lower_scoped(cc, e->alts[i]);
		s = emit(sb, IR_ANY, &e->loc);
		s->blk = alts[0];
		s->alts = alts + 1;
		s->nalts = (uint32_t)(e->nalts - 1);
		return;
	}
	}
}

/* ---- join indexes: some x in <constant collection>; <filter on x> ----
 *
 * When the expression lowered right after `some [k,] x in C` (C a base
 * document or a constant) is a filter whose only other input is a probe
 * value known before the scan (input.host, a bound var, a constant), the
 * scan is lowered as ISCAN with an index (jidx.h) that gives, for the
 * probe's value, the elements the filter may accept.  The filter still
 * runs for those.  Recognised filters:
 *   x.f == T, x.f = T                  the probe equals the element's key
 *   startswith(T, x.f), endswith(T, x.f)  prefix / suffix of the probe
 *   f(x.f, T) or f(T, x.f), f a function whose every definition is a
 *   conjunction of guards on its element parameter p and at most one
 *   condition on the probe parameter h: h == K(p), startswith(h, K(p)),
 *   endswith(h, K(p)), with K and the guards built from the builtins
 *   below.  The guards and K are evaluated once per element, here.
 * An element whose key cannot be computed without an error, or whose
 * key is not a string where the condition needs one, is kept for every
 * probe, so an error the scan would raise is still raised. */
enum { JF_EQ, JF_PREFIX, JF_SUFFIX, JF_FUNC, JF_CIDR };

/* A static term, resolved once: a constant, the element parameter, an
 * array of static terms or a builtin call on them. */
struct sterm {
	int kind; /* 0 constant, 1 parameter, 2 array, 3 call */
	struct axv *val;
	const struct axp_builtin *bi;
	struct sterm **a;
	size_t n;
};

/* One expression of a function definition: a guard (kind -1: g1 is
 * true; -2: g1 equals g2) or a condition on the probe (JK_*, key). */
struct fexpr {
	int kind;
	struct sterm *g1, *g2, *key;
};

struct fdef {
	struct fexpr *e;
	size_t n;
};

struct jplan {
	int form;
	struct axv *path; /* element path: array of keys */
	struct ast_term *probe;
	struct rgroup *rg; /* JF_FUNC */
	size_t epos;	   /* JF_FUNC: the element's argument */
	struct fdef *defs; /* JF_FUNC: rg->ndefs of them (arena) */
};

static const char *const jidx_builtins[] = { "equal", "neq", "startswith",
	"endswith", "contains", "trim_prefix", "trim_suffix", "trim",
	"trim_left", "trim_right", "lower", "upper", "concat", "is_string",
	"count", "lt", "lte", "gt", "gte", NULL };

/* x itself or x.k1.k2... with constant keys: the path, else NULL */
static struct axv *
elem_path(struct ast_term *t, const char *x)
{
	struct axv *p;
	size_t i;

	if (t->kind == T_VAR)
		return strcmp(t->name, x) == 0 ? axv_array_new(0) : NULL;
	if (t->kind != T_REF || t->items[0]->kind != T_VAR ||
	    strcmp(t->items[0]->name, x) != 0)
		return NULL;
	for (i = 1; i < t->n; i++)
		if (t->items[i]->kind != T_SCALAR)
			return NULL;
	p = axv_array_new(t->n);
	for (i = 1; i < t->n; i++)
		axv_array_push(p, axv_ref(t->items[i]->val));
	return p;
}

/* A probe that evaluates without an error, before the scan: a constant,
 * a bound var, or input/a bound var followed by constant keys. */
static bool
probe_ok(struct cc *cc, struct ast_term *t)
{
	struct ast_term *h = t->kind == T_REF ? t->items[0] : t;
	struct var *lv;
	struct ast_import *imp;
	enum gkind g;
	size_t i;

	if (t->kind == T_SCALAR)
		return true;
	if (h->kind != T_VAR || is_wildcard(h->name))
		return false;
	for (i = 1; t->kind == T_REF && i < t->n; i++)
		if (t->items[i]->kind != T_SCALAR)
			return false;
	g = resolve_name(cc, h->name, &lv, &imp);
	if (g == G_LOCAL)
		return cc->bound[lv->slot];
	return g == G_INPUT;
}

static const struct axp_builtin *
jidx_builtin(struct cc *cc, struct ast_term *fn)
{
	struct rgroup *rg = NULL;
	char nm[256];
	const struct axp_builtin *bi =
	    resolve_builtin(cc, fn, &rg, nm, sizeof(nm));
	size_t i;

	for (i = 0; bi != NULL && jidx_builtins[i] != NULL; i++)
		if (strcmp(bi->name, jidx_builtins[i]) == 0)
			return bi;
	return NULL;
}

/* A term of constants, the var p and the builtins above (no h). */
static bool
static_term(struct cc *fcc, struct ast_term *t, const char *p)
{
	const struct axp_builtin *bi;
	size_t i;

	switch (t->kind) {
	case T_SCALAR:
		return true;
	case T_VAR:
		return strcmp(t->name, p) == 0;
	case T_ARRAY:
		for (i = 0; i < t->n; i++)
			if (!static_term(fcc, t->items[i], p))
				return false;
		return true;
	case T_CALL:
		bi = jidx_builtin(fcc, t->key);
		if (bi == NULL || (size_t)bi->arity != t->n)
			return false;
		for (i = 0; i < t->n; i++)
			if (!static_term(fcc, t->items[i], p))
				return false;
		return true;
	default:
		return false;
	}
}

/* The resolved form of a static term (checked by static_term). */
static struct sterm *
sterm_of(struct cc *fcc, struct ast_term *t)
{
	struct sterm *st = ast_alloc(fcc->C->A, sizeof(*st));
	size_t i;

	switch (t->kind) {
	case T_SCALAR:
		st->kind = 0;
		st->val = t->val;
		break;
	case T_VAR:
		st->kind = 1;
		break;
	default:
		st->kind = t->kind == T_ARRAY ? 2 : 3;
		if (st->kind == 3)
			st->bi = jidx_builtin(fcc, t->key);
		st->n = t->n;
		st->a = ast_alloc(fcc->C->A, (t->n + 1) * sizeof(*st->a));
		for (i = 0; i < t->n; i++)
			st->a[i] = sterm_of(fcc, t->items[i]);
		break;
	}
	return st;
}

/* Evaluate a static term with the parameter = pv: 0 (*out NULL:
 * undefined) or -1 on an error. */
static int
static_eval(const struct sterm *t, struct axv *pv, struct axv **out)
{
	struct axv *args[8] = { NULL };
	struct axp_bctx ctx;
	size_t i;
	int rc = 0;

	*out = NULL;
	switch (t->kind) {
	case 0:
		*out = axv_ref(t->val);
		return 0;
	case 1:
		*out = axv_ref(pv);
		return 0;
	case 2: {
		struct axv *a = axv_array_new(t->n), *e;
		for (i = 0; i < t->n; i++) {
			if (static_eval(t->a[i], pv, &e) < 0 || e == NULL) {
				axv_unref(a);
				return e == NULL ? 0 : -1;
			}
			axv_array_push(a, e);
		}
		*out = a;
		return 0;
	}
	default:
		if (t->n > AXG_ARRAY_LEN(args))
			return -1;
		for (i = 0; i < t->n; i++) {
			if ((rc = static_eval(t->a[i], pv, &args[i])) < 0 ||
			    args[i] == NULL)
				goto done;
		}
		memset(&ctx, 0, sizeof(ctx));
		ctx.name = t->bi->name;
		ctx.strict = true;
		rc = t->bi->fn(&ctx, args, out);
		if (rc == AXP_BI_OK) {
			rc = 0;
		} else if (rc == AXP_BI_UNDEF) {
			rc = 0;
			*out = NULL;
		} else {
			rc = -1;
			*out = NULL;
		}
	done:
		for (i = 0; i < t->n; i++)
			axv_unref(args[i]);
		return rc;
	}
}

/* One expression of a function body, with p the element parameter and h
 * the probe parameter: a guard on p (kind -1), or a condition on h with
 * its key term K(p).  false if neither. */
static bool
fn_expr(struct cc *fcc, struct ast_expr *e, const char *p, const char *h,
    int *kind, struct ast_term **key, struct ast_term **g1,
    struct ast_term **g2)
{
	struct ast_term *a, *b;
	const struct axp_builtin *bi;

	*key = *g1 = *g2 = NULL;
	if (e->negated || e->nwiths > 0)
		return false;
	if (e->kind == E_UNIFY) {
		a = e->a;
		b = e->b;
	} else if (e->kind == E_TERM && e->a->kind == T_CALL) {
		bi = jidx_builtin(fcc, e->a->key);
		if (bi == NULL || (size_t)bi->arity != e->a->n)
			return false;
		if (static_term(fcc, e->a, p)) {
			*kind = -1;
			*g1 = e->a;
			return true;
		}
		if (e->a->n != 2)
			return false;
		a = e->a->items[0];
		b = e->a->items[1];
		if (strcmp(bi->name, "startswith") == 0 ||
		    strcmp(bi->name, "endswith") == 0) {
			if (a->kind != T_VAR || strcmp(a->name, h) != 0 ||
			    !static_term(fcc, b, p))
				return false;
			*kind = bi->name[0] == 's' ? JK_PREFIX : JK_SUFFIX;
			*key = b;
			return true;
		}
		if (strcmp(bi->name, "equal") != 0)
			return false;
	} else {
		return false;
	}
	/* a == b, a = b */
	if (static_term(fcc, a, p) && static_term(fcc, b, p)) {
		*kind = -2; /* guard: a equals b */
		*g1 = a;
		*g2 = b;
		return true;
	}
	if (b->kind == T_VAR && strcmp(b->name, h) == 0) {
		struct ast_term *t = a;
		a = b;
		b = t;
	}
	if (a->kind != T_VAR || strcmp(a->name, h) != 0 ||
	    !static_term(fcc, b, p))
		return false;
	*kind = JK_EQ;
	*key = b;
	return true;
}

/* Can every definition of rg be read as guards plus one condition?  The
 * resolved definitions (arena), or NULL. */
static struct fdef *
fn_plan(struct comp *C, struct rgroup *rg, size_t epos)
{
	struct cc fcc;
	struct vscope sc;
	struct fdef *defs = NULL;
	uint32_t d;
	size_t i;
	bool ok = rg->kind == RG_FUNC && rg->nargs == 2 && rg->defval == NULL &&
	    rg->defdef == NULL && rg->ndefs > 0;

	cc_init(&fcc, C, rg->mod, &sc);
	if (ok)
		defs = ast_alloc(C->A, rg->ndefs * sizeof(*defs));
	for (d = 0; ok && d < rg->ndefs; d++) {
		struct ast_rule *r = rg->defs[d]->ast;
		const char *p, *h;
		size_t n = r->body ? r->body->n : 0;
		if (rg->defs[d]->els != NULL || r->nargs != 2 ||
		    r->args[0]->kind != T_VAR || r->args[1]->kind != T_VAR ||
		    strcmp(r->args[0]->name, r->args[1]->name) == 0) {
			ok = false;
			break;
		}
		p = r->args[epos]->name;
		h = r->args[1 - epos]->name;
		defs[d].e = ast_alloc(C->A, (n + 1) * sizeof(*defs[d].e));
		defs[d].n = n;
		for (i = 0; i < n; i++) {
			struct fexpr *fe = &defs[d].e[i];
			struct ast_term *k, *g1, *g2;
			if (!fn_expr(&fcc, r->body->e[i], p, h, &fe->kind, &k,
				&g1, &g2)) {
				ok = false;
				break;
			}
			fe->g1 = g1 ? sterm_of(&fcc, g1) : NULL;
			fe->g2 = g2 ? sterm_of(&fcc, g2) : NULL;
			fe->key = k ? sterm_of(&fcc, k) : NULL;
		}
	}
	cc_free(&fcc);
	return ok ? defs : NULL;
}

/* The keys of element value pv (the function's element argument). */
static void
fn_index_elem(const struct jplan *jp, uint32_t pos, struct axv *pv,
    struct jidx_builder *jb)
{
	uint32_t d;
	size_t i;

	for (d = 0; d < jp->rg->ndefs; d++) {
		const struct fdef *fd = &jp->defs[d];
		bool maybe = false, fail = false;
		struct axv *key = NULL;
		int keykind = 0;
		/* in body order: the first expression that fails or
		 * errors ends the definition */
		for (i = 0; i < fd->n && !maybe && !fail; i++) {
			const struct fexpr *fe = &fd->e[i];
			struct axv *v1 = NULL, *v2 = NULL;
			if (fe->kind == -1 || fe->kind == -2) {
				if (static_eval(fe->g1, pv, &v1) < 0 ||
				    (fe->g2 &&
					static_eval(fe->g2, pv, &v2) < 0))
					maybe = true;
				else if (v1 == NULL || (fe->g2 && v2 == NULL))
					fail = true;
				else if (fe->g2 ? !axv_equal(v1, v2)
						: axv_kind(v1) == AXV_BOOL &&
					    !axv_bool_get(v1))
					fail = true;
				axv_unref(v1);
				axv_unref(v2);
				continue;
			}
			if (static_eval(fe->key, pv, &v1) < 0 ||
			    (fe->kind != JK_EQ && v1 != NULL &&
				axv_kind(v1) != AXV_STRING))
				maybe = true;
			else if (v1 == NULL)
				fail = true;
			else if (key == NULL) {
				key = axv_ref(v1);
				keykind = fe->kind;
			}
			axv_unref(v1);
		}
		if (maybe || (!fail && key == NULL))
			jidx_add_always(jb, pos);
		else if (!fail)
			jidx_add(jb, pos, (enum jidx_kind)keykind, key);
		axv_unref(key);
	}
}

/* Does the filter expression f fit one of the forms, for element var x? */
static bool
jplan_filter(struct cc *cc, struct ast_expr *f, const char *x, struct jplan *jp)
{
	struct ast_term *a, *b;
	struct rgroup *rg = NULL;
	char nm[256];
	const struct axp_builtin *bi = NULL;
	size_t i;

	memset(jp, 0, sizeof(*jp));
	if (f->negated || f->nwiths > 0)
		return false;
	if (f->kind == E_UNIFY) {
		a = f->a;
		b = f->b;
		jp->form = JF_EQ;
	} else if (f->kind == E_TERM && f->a->kind == T_CALL && f->a->n == 2) {
		a = f->a->items[0];
		b = f->a->items[1];
		bi = resolve_builtin(cc, f->a->key, &rg, nm, sizeof(nm));
		if (rg != NULL) {
			jp->form = JF_FUNC;
			jp->rg = rg;
		} else if (bi != NULL && strcmp(bi->name, "equal") == 0) {
			jp->form = JF_EQ;
		} else if (bi != NULL &&
		    (strcmp(bi->name, "startswith") == 0 ||
			strcmp(bi->name, "endswith") == 0)) {
			/* startswith(T, x.f): the element's key is a prefix */
			jp->form = bi->name[0] == 's' ? JF_PREFIX : JF_SUFFIX;
			if ((jp->path = elem_path(b, x)) == NULL)
				return false;
			jp->probe = a;
			return probe_ok(cc, a);
		} else if (bi != NULL &&
		    strcmp(bi->name, "net.cidr_contains") == 0) {
			/* net.cidr_contains(x.f, T): x.f contains the probe */
			jp->form = JF_CIDR;
			if ((jp->path = elem_path(a, x)) == NULL)
				return false;
			jp->probe = b;
			return probe_ok(cc, b);
		} else {
			return false;
		}
	} else {
		return false;
	}
	for (i = 0; i < 2; i++) {
		struct ast_term *e = i == 0 ? a : b, *o = i == 0 ? b : a;
		if ((jp->path = elem_path(e, x)) != NULL) {
			if (probe_ok(cc, o)) {
				jp->probe = o;
				jp->epos = i;
				break;
			}
			axv_unref(jp->path);
			jp->path = NULL;
		}
	}
	if (jp->path == NULL)
		return false;
	if (jp->form == JF_FUNC &&
	    (jp->defs = fn_plan(cc->C, jp->rg, jp->epos)) == NULL) {
		axv_unref(jp->path);
		jp->path = NULL;
		return false;
	}
	return true;
}

static struct axv *
jpath_get(struct axv *v, struct axv *path)
{
	size_t i;
	int64_t ix;

	for (i = 0; v != NULL && i < axv_array_len(path); i++) {
		struct axv *k = axv_array_get(path, i);
		switch (axv_kind(v)) {
		case AXV_OBJECT:
			v = axv_object_get(v, k);
			break;
		case AXV_ARRAY:
			v = axv_kind(k) == AXV_NUMBER &&
				axv_num_get_i64(k, &ix) && ix >= 0
			    ? axv_array_get(v, (size_t)ix)
			    : NULL;
			break;
		case AXV_SET:
			v = axv_set_contains(v, k) ? k : NULL;
			break;
		default:
			v = NULL;
		}
	}
	return v;
}

/* Build the index over coll for plan jp; NULL if it would not help. */
static const struct jidx *
jidx_build(struct cc *cc, struct axv *coll, struct jplan *jp)
{
	struct jidx_builder *jb;
	const struct jidx *x;
	size_t n, j;

	if (axv_kind(coll) != AXV_ARRAY && axv_kind(coll) != AXV_OBJECT &&
	    axv_kind(coll) != AXV_SET)
		return NULL;
	n = (size_t)axv_count(coll);
	if (n < 4 || n > UINT32_MAX / 2)
		return NULL;
	jb = jidx_builder_new(coll);
	if (jp->form == JF_PREFIX || jp->form == JF_SUFFIX)
		jidx_need_string(jb);
	if (jp->form == JF_FUNC) /* conditions call string builtins */
		jidx_need_string(jb);
	for (j = 0; j < n; j++) {
		struct axv *el = axv_kind(coll) == AXV_ARRAY
		    ? axv_array_get(coll, j)
		    : axv_kind(coll) == AXV_OBJECT ? axv_object_val(coll, j)
						   : axv_set_at(coll, j);
		struct axv *v = jpath_get(el, jp->path);
		if (v == NULL)
			continue; /* the filter is undefined for it */
		switch (jp->form) {
		case JF_EQ:
			jidx_add(jb, (uint32_t)j, JK_EQ, v);
			break;
		case JF_PREFIX:
			jidx_add(jb, (uint32_t)j, JK_PREFIX, v);
			break;
		case JF_SUFFIX:
			jidx_add(jb, (uint32_t)j, JK_SUFFIX, v);
			break;
		case JF_CIDR:
			jidx_add(jb, (uint32_t)j, JK_CIDR, v);
			break;
		default:
			fn_index_elem(jp, (uint32_t)j, v, jb);
			break;
		}
	}
	x = jidx_freeze(jb, cc->C->A);
	jidx_builder_free(jb);
	return x;
}

/* The expression the body would lower right after b->e[at] (a some-in)
 * binds its vars; NULL if none. */
static struct ast_expr *
next_filter(struct cc *cc, struct ast_body *b, const bool *done, size_t at)
{
	struct ast_expr *e = b->e[at], *f = NULL;
	struct ast_term *kv[2] = { e->key, e->value };
	uint32_t slots[2];
	bool was[2];
	size_t i, nk = 0;

	for (i = 0; i < 2; i++) {
		struct var *v;
		if (kv[i] == NULL)
			continue;
		if (kv[i]->kind != T_VAR || is_wildcard(kv[i]->name) ||
		    (v = scope_find(cc->sc, kv[i]->name)) == NULL)
			return NULL;
		slots[nk] = v->slot;
		was[nk] = cc->bound[v->slot];
		if (was[nk]) /* already bound: a lookup, not a scan */
			goto restore;
		cc->bound[v->slot] = true;
		nk++;
	}
	for (i = 0; i < b->n; i++)
		if (!done[i] && i != at && expr_ready(cc, b->e[i])) {
			f = b->e[i];
			break;
		}
restore:
	for (i = 0; i < nk; i++)
		cc->bound[slots[i]] = was[i];
	return f;
}

/* some [k,] x in coll, as a SCAN, or an ISCAN when jp gives an index */
static void
lower_some_in(struct cc *cc, struct ast_expr *e, struct sbuf *sb,
    struct jplan *jp)
{
	struct opd coll = lower_eval(cc, e->coll, sb), k, v, probe;
	struct axv *cval = NULL;
	const struct jidx *x = NULL;
	struct stmt *s;

	memset(&probe, 0, sizeof(probe));
	if (jp != NULL) {
		struct stmt *last = sb->n > 0 ? &sb->s[sb->n - 1] : NULL;
		if (coll.kind == OPD_CONST)
			cval = coll.val;
		else if (coll.kind == OPD_LOCAL && last != NULL &&
		    last->op == IR_BASEDATA && last->out == coll.slot)
			cval = last->pre;
		if (cval != NULL)
			x = jidx_build(cc, cval, jp);
		if (x != NULL)
			probe = lower_eval(cc, jp->probe, sb);
	}
	if (e->key != NULL) {
		k = lower_pattern(cc, e->key, sb);
	} else { /* some x in c: the keys are not bound at all */
		memset(&k, 0, sizeof(k));
		k.kind = OPD_NONE;
	}
	v = lower_pattern(cc, e->value, sb);
	s = emit(sb, x ? IR_ISCAN : IR_SCAN, &e->loc);
	s->a = coll;
	s->b = k;
	s->c = v;
	if (x != NULL) {
		s->idx = x;
		s->args = ast_alloc(cc->C->A, sizeof(*s->args));
		s->args[0] = probe;
		s->nargs = 1;
	}
	mark_bound_opd(cc, &k);
	mark_bound_opd(cc, &v);
}

/* A nested body with a scope of its own (and/or operands, { body }):
 * stops at its first solution; its bindings do not leave it. */
static struct block *
lower_scoped(struct cc *cc, struct ast_body *body)
{
	struct vscope sc;
	struct sbuf inner = { .s = NULL };
	bool *saved = axg_reallocarray(NULL, cc->capbound + 1, sizeof(bool));
	size_t nsaved = cc->nslots;
	struct block *blk;

	memcpy(saved, cc->bound, cc->nslots * sizeof(bool));
	scope_push(cc, &sc);
	collect_body(cc, body);
	lower_body(cc, body, &inner);
	blk = finish_block(cc->C, &inner, DONE_ANY);
	scope_pop(cc);
	memcpy(cc->bound, saved, nsaved * sizeof(bool));
	free(saved);
	return blk;
}

/* Order a body's expressions so every var is bound before use, lowering
 * each as it is placed. */
static void
lower_body(struct cc *cc, struct ast_body *b, struct sbuf *sb)
{
	bool *done;
	size_t left, i;

	struct opd *saved_opds = cc->expr_opds;
	size_t saved_cur = cc->cur_expr;
	const struct ast_loc *saved_loc = cc->expr_loc;

	if (b == NULL)
		return;
	if (b != cc->top)
		cc->expr_opds = NULL;
	done = axg_calloc(b->n + 1, sizeof(*done));
	left = b->n;
	while (left > 0) {
		for (i = 0; i < b->n; i++)
			if (!done[i] && expr_ready(cc, b->e[i]))
				break;
		if (i == b->n && cc->C->order_exhausted) {
			if (!cc->C->order_reported) {
				for (i = 0; i < b->n && done[i]; i++)
					;
				cerr(cc->C, &b->e[i < b->n ? i : 0]->loc,
				    AXP_ERR_COMPILE,
				    "expression too complex to order (calls "
				    "nested too deep in one another's "
				    "arguments)");
				cc->C->order_reported = true;
			}
			break;
		}
		if (i == b->n) {
			for (i = 0; i < b->n; i++) {
				struct ast_expr *e = b->e[i];
				size_t j;
				if (done[i])
					continue;
				const struct ast_loc *at = &e->loc;
				if (e->kind == E_TERM && !e->negated &&
				    e->nwiths == 0 && is_print(cc, e->a)) {
					report_undeclared(cc, e->a);
					continue;
				}
				report_unsafe_term(cc, e->a, at);
				report_unsafe_term(cc, e->b, at);
				report_unsafe_term(cc, e->key, at);
				report_unsafe_term(cc, e->value, at);
				report_unsafe_term(cc, e->coll, at);
				for (j = 0; j < e->nwiths; j++)
					report_unsafe_term(cc,
					    e->withs[j].value, at);
				if (e->kind == E_GROUP)
					report_unsafe_body(cc, e->body, at);
				for (j = 0; j < e->nalts; j++)
					report_unsafe_body(cc, e->alts[j], at);
			}
			break;
		}
		done[i] = true;
		left--;
		cc->cur_expr = i;
		cc->expr_loc = &b->e[i]->loc;
		if (b->e[i]->kind == E_SOME_IN && !b->e[i]->negated &&
		    b->e[i]->nwiths == 0) {
			struct ast_expr *f = next_filter(cc, b, done, i);
			struct jplan jp;
			if (f != NULL &&
			    jplan_filter(cc, f, b->e[i]->value->name, &jp)) {
				lower_some_in(cc, b->e[i], sb, &jp);
				axv_unref(jp.path);
				continue;
			}
		}
		lower_expr(cc, b->e[i], sb);
	}
	free(done);
	cc->expr_opds = saved_opds;
	cc->cur_expr = saved_cur;
	cc->expr_loc = saved_loc;
}

/* ---- rules ---- */
static void
cc_init(struct cc *cc, struct comp *C, struct ast_module *m, struct vscope *sc)
{
	memset(cc, 0, sizeof(*cc));
	cc->C = C;
	cc->mod = m;
	cc->capbound = 32;
	cc->bound = axg_calloc(cc->capbound, sizeof(*cc->bound));
	memset(sc, 0, sizeof(*sc));
	cc->sc = sc;
}

static void
cc_free(struct cc *cc)
{
	while (cc->sc != NULL)
		scope_pop(cc);
	free(cc->bound);
}

/* The vars of a function argument are the function's own locals, even where
 * a rule of the package has the same name. */
static void
declare_arg(struct cc *cc, struct ast_term *t)
{
	size_t i;

	switch (t->kind) {
	case T_VAR:
		if (strcmp(t->name, "input") != 0 &&
		    strcmp(t->name, "data") != 0)
			scope_declare(cc, t->name);
		return;
	case T_ARRAY:
	case T_SET:
		for (i = 0; i < t->n; i++)
			declare_arg(cc, t->items[i]);
		return;
	case T_OBJECT:
		for (i = 0; i < t->n; i += 2) {
			collect_term(cc, t->items[i]);
			declare_arg(cc, t->items[i + 1]);
		}
		return;
	default:
		collect_term(cc, t);
		return;
	}
}

/* An argument that is a value to compute (a call, such as a template
 * string, or a comprehension) becomes a fresh var that the body unifies
 * with that value, as OPA rewrites it: f($"{x}") := 1 if x := "a". */
static struct ast_term *
arg_pattern(struct comp *C, struct ast_rule *r, struct ast_term *t)
{
	struct ast_term *v;
	struct ast_expr *e;
	struct ast_body *b;
	char name[32];
	size_t i;

	switch (t->kind) {
	case T_ARRAY:
	case T_SET:
	case T_OBJECT:
		for (i = 0; i < t->n; i++)
			if (t->kind != T_OBJECT || i % 2 == 1)
				t->items[i] = arg_pattern(C, r, t->items[i]);
		return t;
	case T_CALL:
	case T_ARRAY_COMPR:
	case T_SET_COMPR:
	case T_OBJECT_COMPR:
		break;
	default:
		return t;
	}
	snprintf(name, sizeof(name), "__arg%d__", C->nfresh++);
	v = ast_alloc(C->A, sizeof(*v));
	v->kind = T_VAR;
	v->loc = t->loc;
	v->name = ast_strndup(C->A, name, strlen(name));
	e = ast_alloc(C->A, sizeof(*e));
	e->kind = E_UNIFY;
	e->loc = t->loc;
	e->a = v;
	e->b = t;
	b = ast_alloc(C->A, sizeof(*b));
	b->loc = r->body ? r->body->loc : r->loc;
	b->n = (r->body ? r->body->n : 0) + 1;
	b->e = ast_alloc(C->A, b->n * sizeof(*b->e));
	b->e[0] = e;
	if (r->body != NULL)
		memcpy(b->e + 1, r->body->e, r->body->n * sizeof(*b->e));
	r->body = b;
	return v;
}

/* A rule head's name as written ("p", "a.b.c", "a.b[x]"). */
static void
rule_name(const struct ast_rule *r, struct axg_buf *b)
{
	const struct ast_term *t = r->ref;
	size_t i;

	if (t == NULL)
		return;
	if (t->kind == T_VAR) {
		axg_buf_puts(b, t->name);
		return;
	}
	if (t->kind != T_REF || t->n == 0 || t->items[0]->kind != T_VAR)
		return;
	axg_buf_puts(b, t->items[0]->name);
	for (i = 1; i < t->n; i++) {
		const struct ast_term *k = t->items[i];
		if (k->kind == T_SCALAR && axv_kind(k->val) == AXV_STRING) {
			axg_buf_putc(b, '.');
			axg_buf_puts(b, axv_str(k->val));
		} else if (k->kind == T_VAR) {
			axg_buf_printf(b, "[%s]", k->name);
		} else if (k->kind == T_SCALAR) {
			char *js = axv_json_str(k->val);
			axg_buf_printf(b, "[%s]", js);
			free(js);
		} else {
			axg_buf_puts(b, "[...]");
		}
	}
}

/* Set C->rule_sfx for rule r: " in rule NAME" when the line r is declared
 * on also declares a rule of another name (so a position alone does not say
 * which rule an error is in), else "".  Else clauses share their rule's
 * name, so they never count as another rule. */
static void
rule_suffix(struct comp *C, const struct ast_rule *r)
{
	struct axg_buf mine, other;
	const struct ast_rule *o, *e;
	bool shared = false;
	size_t i;

	C->rule_sfx[0] = '\0';
	axg_buf_init(&mine, 0);
	rule_name(r, &mine);
	for (i = 0; i < C->nmods && !shared; i++) {
		if (C->mods[i]->file == NULL || r->loc.file == NULL ||
		    strcmp(C->mods[i]->file, r->loc.file) != 0)
			continue;
		for (o = C->mods[i]->rules; o != NULL && !shared; o = o->next)
			for (e = o; e != NULL && !shared; e = e->els) {
				if (e->loc.line != r->loc.line)
					continue;
				axg_buf_init(&other, 0);
				rule_name(e, &other);
				shared = strcmp(other.data ? other.data : "",
					     mine.data ? mine.data : "") != 0;
				axg_buf_free(&other);
			}
	}
	if (shared && mine.len > 0)
		snprintf(C->rule_sfx, sizeof(C->rule_sfx), " in rule %s",
		    mine.data);
	axg_buf_free(&mine);
}

static void
compile_def(struct comp *C, struct rgroup *g, struct rdef *d,
    struct ast_rule *r)
{
	struct cc cc;
	struct vscope sc;
	struct sbuf sb = { .s = NULL };
	struct block *b;
	const char *st[64];
	size_t nst, ndyn, i;
	struct ast_term **dyn;
	unsigned nerr = (unsigned)C->nerr;

	rule_suffix(C, r);
	cc_init(&cc, C, g->mod, &sc);
	/* function args are patterns bound at call time */
	if (r->is_func) {
		d->args = ast_alloc(C->A, (r->nargs + 1) * sizeof(*d->args));
		d->nargs = (uint32_t)r->nargs;
		for (i = 0; i < r->nargs; i++)
			r->args[i] = arg_pattern(C, r, r->args[i]);
		for (i = 0; i < r->nargs; i++)
			declare_arg(&cc, r->args[i]);
		for (i = 0; i < r->nargs; i++) {
			d->args[i] = lower_pattern(&cc, r->args[i], &sb);
			mark_bound_opd(&cc, &d->args[i]);
		}
		if (sb.n > 0) {
			cerr(C, &r->loc, AXP_ERR_COMPILE,
			    "function arguments must be patterns");
			sb.n = 0;
		}
	}
	collect_body(&cc, r->body);
	head_split(r, st, &nst, 64, &dyn, &ndyn);
	for (i = 0; i < ndyn; i++)
		collect_term(&cc, dyn[i]);
	collect_term(&cc, r->key);
	collect_term(&cc, r->value);
	lower_body(&cc, r->body, &sb);
	if ((unsigned)C->nerr == nerr) {
		struct ast_term *hv[2] = { r->key, r->value };
		struct ast_term *u = NULL;
		for (i = 0; i < 2; i++)
			if (hv[i] && !t_all_bound(&cc, hv[i], &u))
				report_unsafe_term(&cc, hv[i], NULL);
		for (i = 0; i < ndyn; i++)
			if (!t_all_bound(&cc, dyn[i], &u))
				report_unsafe_term(&cc, dyn[i], NULL);
	}
	{
		struct opd k, v, *dp = NULL;
		memset(&k, 0, sizeof(k));
		k.kind = OPD_NONE;
		v = k;
		if (r->key)
			k = lower_eval(&cc, r->key, &sb);
		if (ndyn > 0) {
			dp = ast_alloc(C->A, ndyn * sizeof(*dp));
			for (i = 0; i < ndyn; i++)
				dp[i] = lower_eval(&cc, dyn[i], &sb);
		}
		v = r->value ? lower_eval(&cc, r->value, &sb)
			     : opd_const(C, axv_bool(true));
		b = finish_block(C, &sb, DONE_RULE);
		b->key = k;
		b->val = v;
		b->dpath = dp;
		b->ndpath = (uint32_t)ndyn;
	}
	fuse_calls(C, b, b, d->args, d->nargs);
	d->body = b;
	d->nslots = cc.nslots;
	if (cc.nslots > C->pol->max_slots)
		C->pol->max_slots = cc.nslots;
	cc_free(&cc);
	if (r->els != NULL) {
		d->els = ast_alloc(C->A, sizeof(*d->els));
		d->els->ast = r->els;
		compile_def(C, g, d->els, r->els);
	}
}

static void compile_def(struct comp *C, struct rgroup *g, struct rdef *d,
    struct ast_rule *r);

static void
compile_group(struct comp *C, struct rgroup *g)
{
	uint32_t i;

	C->cur = g;
	C->rule_sfx[0] = '\0';
	if (g->defrule != NULL) {
		struct cc cc;
		struct vscope sc;
		struct sbuf sb = { .s = NULL };
		struct opd v;
		cc_init(&cc, C, g->mod, &sc);
		v = lower_eval(&cc, g->defrule->value, &sb);
		free(sb.s);
		free(sb.cse);
		cc_free(&cc);
		if (v.kind == OPD_CONST && sb.n == 0) {
			g->defval = v.val;
		} else {
			g->defdef = ast_alloc(C->A, sizeof(*g->defdef));
			g->defdef->ast = g->defrule;
			C->cur_rule = g->defrule;
			compile_def(C, g, g->defdef, g->defrule);
		}
	}
	for (i = 0; i < g->ndefs; i++) {
		C->cur_rule = g->defs[i]->ast;
		compile_def(C, g, g->defs[i], g->defs[i]->ast);
	}
	C->cur = NULL;
	C->cur_rule = NULL;
}

/* Recursion: a group reachable from itself. */
static bool
find_cycle(struct rgroup *g, struct rgroup *target, struct rgroup **stack,
    int depth, int *len, uint8_t *seen)
{
	uint32_t i;

	if (depth >= 64)
		return false;
	stack[depth] = g;
	for (i = 0; i < g->ndeps; i++) {
		struct rgroup *d = g->deps[i];
		if (d == target) {
			*len = depth + 1;
			return true;
		}
		if (seen[d->id])
			continue;
		seen[d->id] = 1;
		if (find_cycle(d, target, stack, depth + 1, len, seen))
			return true;
	}
	return false;
}

static void
check_recursion(struct comp *C)
{
	uint32_t i;
	struct rgroup *stack[64];
	uint8_t *seen = axg_calloc(C->pol->ngroups + 1, 1);

	for (i = 0; i < C->pol->ngroups; i++) {
		struct rgroup *g = C->pol->groups[i];
		int len = 0, j;
		memset(seen, 0, C->pol->ngroups);
		if (find_cycle(g, g, stack, 0, &len, seen)) {
			struct axg_buf b;
			const struct ast_loc *loc =
			    g->ndefs ? &g->defs[0]->ast->loc : NULL;
			axg_buf_init(&b, 0);
			for (j = 0; j < len; j++) {
				axg_buf_puts(&b, stack[j]->name);
				axg_buf_puts(&b, " -> ");
			}
			axg_buf_puts(&b, g->name);
			cerr(C, loc, AXP_ERR_RECURSION,
			    "rule %s is recursive: %s", g->name, b.data);
			axg_buf_free(&b);
		}
	}
	free(seen);
}

static void
free_tree(struct dnode *n)
{
	uint32_t i;

	for (i = 0; i < n->nkids; i++)
		free_tree(n->kids[i]);
	free(n->kids);
}

/*
 * Definitions of a complete rule that cannot both succeed.  A rule written
 *   r := a if { P; T; ... }
 *   r := b if { P; not T; ... }
 * (P and T the same statements, P with at most one solution) evaluates
 * the second body only to find that not T fails: when the first one
 * succeeded, P and T had a solution, and P has only that one.  The second
 * is marked excluded by the first, and the evaluator skips it when the
 * first had a solution (else it runs as before).
 */
static bool
opd_same(const struct opd *x, const struct opd *y)
{
	uint32_t i, n;

	if (x->kind != y->kind || x->sorted != y->sorted)
		return false;
	switch (x->kind) {
	case OPD_CONST:
		return axv_equal(x->val, y->val);
	case OPD_LOCAL:
		return x->slot == y->slot;
	case OPD_ARRAY:
	case OPD_SET:
	case OPD_OBJECT:
		if (x->n != y->n)
			return false;
		n = x->kind == OPD_OBJECT ? 2 * x->n : x->n;
		for (i = 0; i < n; i++)
			if (!opd_same(&x->items[i], &y->items[i]))
				return false;
		return true;
	default:
		return true;
	}
}

/* A statement with at most one solution, the same in every body of the
 * group (no iteration, no nested block, no with-modifier). */
static bool
stmt_single(const struct stmt *s)
{
	switch ((enum ir_opcode)s->op) {
	case IR_INPUT:
	case IR_BASEDATA:
	case IR_DOT:
	case IR_RULE:
	case IR_CALL:
	case IR_CALLFN:
	case IR_UNIFY:
	case IR_TRUTHY:
		return s->blk == NULL && s->nalts == 0 &&
		    (s->bi == NULL || (s->bi->flags & AXP_BIF_NONDET) == 0);
	default:
		return false;
	}
}

static bool
stmt_same(const struct stmt *x, const struct stmt *y)
{
	uint32_t j;

	if (!stmt_single(x) || x->op != y->op || x->out != y->out ||
	    x->kind != y->kind || x->bi != y->bi || x->rg != y->rg ||
	    x->node != y->node || x->ikey != y->ikey || x->pre != y->pre ||
	    x->nargs != y->nargs || !opd_same(&x->a, &y->a) ||
	    !opd_same(&x->b, &y->b) || !opd_same(&x->c, &y->c) ||
	    (x->path != y->path &&
		(x->path == NULL || y->path == NULL ||
		    !axv_equal(x->path, y->path))))
		return false;
	for (j = 0; j < x->nargs; j++)
		if (!opd_same(&x->args[j], &y->args[j]))
			return false;
	return true;
}

static void
mark_exclusive(struct rgroup *g)
{
	uint32_t ai, bi, k, j;

	if (g->kind != RG_COMPLETE)
		return;
	for (bi = 1; bi < g->ndefs && bi < 64; bi++) {
		struct rdef *b = g->defs[bi];
		const struct block *t;
		if (b->els != NULL || b->nargs != 0)
			continue;
		for (k = 0; k < b->body->n && stmt_single(&b->body->s[k]); k++)
			;
		if (k == b->body->n || b->body->s[k].op != IR_NOT)
			continue;
		t = b->body->s[k].blk;
		for (ai = 0; ai < bi && b->excl_by == 0; ai++) {
			const struct rdef *a = g->defs[ai];
			bool same = a->els == NULL && a->nargs == 0 &&
			    t->n > 0 && a->body->n >= k + t->n;
			for (j = 0; same && j < k; j++)
				same =
				    stmt_same(&a->body->s[j], &b->body->s[j]);
			for (j = 0; same && j < t->n; j++)
				same = stmt_same(&a->body->s[k + j], &t->s[j]);
			if (same)
				b->excl_by = ai + 1;
		}
	}
}

static bool group_pure(struct rgroup *g);

/* Whether block b (and those in it) reads no input, applies no
 * with-modifier, builds no virtual document and calls only pure rules and
 * functions and deterministic builtins. */
static bool
block_pure(const struct block *b)
{
	uint32_t i, j;

	for (i = 0; i < b->n; i++) {
		const struct stmt *s = &b->s[i];
		switch ((enum ir_opcode)s->op) {
		case IR_INPUT:
		case IR_DATA:
		case IR_WITH_PUSH:
		case IR_WITH_POP:
			return false;
		default:
			break;
		}
		if ((s->bi != NULL && (s->bi->flags & AXP_BIF_NONDET)) ||
		    (s->rg != NULL && !group_pure(s->rg)) ||
		    (s->blk != NULL && !block_pure(s->blk)))
			return false;
		for (j = 0; j < s->nalts; j++)
			if (!block_pure(s->alts[j]))
				return false;
	}
	return true;
}

/* Sets g->purity (see ir.h); true if pure. */
static bool
group_pure(struct rgroup *g)
{
	const struct rdef *d;
	uint32_t i;

	if (g->purity != 0)
		return g->purity == 2;
	g->purity = 3; /* meanwhile: a cycle is not pure */
	for (i = 0; i < g->ndefs; i++)
		for (d = g->defs[i]; d != NULL; d = d->els)
			if (!block_pure(d->body))
				return false;
	if (g->defdef != NULL && !block_pure(g->defdef->body))
		return false;
	g->purity = 2;
	return true;
}

void axp_policy_free_int(struct axp_policy *p);

void
axp_policy_free_int(struct axp_policy *p)
{
	uint32_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->ngroups; i++) {
		free(p->groups[i]->defs);
		free(p->groups[i]->deps);
		axv_unref(p->groups[i]->pre);
	}
	free(p->groups);
	free(p->inkeys);
	if (p->root)
		free_tree(p->root);
	axv_unref(p->data);
	ast_arena_free(p->arena);
	free(p);
}

struct axp_policy *
axp_compile(struct ast_module **mods, size_t nmods, struct axv *data,
    struct ast_arena *arena, struct axp_diags *ds, unsigned flags)
{
	struct comp C;
	struct axp_policy *pol = axg_calloc(1, sizeof(*pol));
	size_t i;
	struct ast_rule *r;

	memset(&C, 0, sizeof(C));
	C.pol = pol;
	C.A = arena;
	C.ds = ds;
	C.mods = mods;
	C.nmods = nmods;
	pol->flags = flags;
	pol->arena = arena;
	pol->data = data ? axv_ref(data) : axv_object_new(0);
	pol->root = ast_alloc(arena, sizeof(*pol->root));
	pol->root->name = "data";
	pol->root->path = ast_keep(arena, axv_array_new(0));
	for (i = 0; i < nmods; i++) {
		/* every package is a document, even without rules */
		struct dnode *n = pol->root;
		const char *pp[64];
		size_t np = package_path(mods[i], pp, 64), j;
		for (j = 0; j < np; j++) {
			n->has_rules = true;
			n = node_child(&C, n, pp[j], true);
		}
		n->has_rules = true;
		for (r = mods[i]->rules; r != NULL; r = r->next)
			add_rule(&C, mods[i], r);
	}
	for (i = 0; i < pol->ngroups; i++)
		compile_group(&C, pol->groups[i]);
	C.rule_sfx[0] = '\0';
	if (C.nerr == 0)
		check_recursion(&C);
	for (i = 0; C.nerr == 0 && i < pol->ngroups; i++) {
		(void)group_pure(pol->groups[i]);
		mark_exclusive(pol->groups[i]);
	}
	if (C.nerr > 0) {
		pol->arena = NULL;
		axp_policy_free_int(pol);
		return NULL;
	}
	return pol;
}

struct axp_query *
axp_compile_query(struct axp_policy *pol, struct ast_body *body,
    struct ast_arena *arena, struct axp_diags *ds)
{
	struct comp C;
	struct cc cc;
	struct vscope sc;
	struct sbuf sb = { .s = NULL };
	struct axp_query *q = axg_calloc(1, sizeof(*q));
	size_t i, nv = 0;

	memset(&C, 0, sizeof(C));
	C.pol = pol;
	C.A = arena;
	C.ds = ds;
	C.query = true;
	cc_init(&cc, &C, NULL, &sc);
	collect_body(&cc, body);
	/* the user's variables, in order of declaration */
	q->vars = ast_alloc(arena, (sc.n + 1) * sizeof(*q->vars));
	for (i = 0; i < sc.n; i++) {
		if (is_wildcard(sc.v[i].name))
			continue;
		q->vars[nv].name = sc.v[i].name;
		q->vars[nv].slot = sc.v[i].slot;
		nv++;
	}
	q->nvars = (uint32_t)nv;
	q->nexprs = (uint32_t)body->n;
	q->exprs = ast_alloc(arena, (body->n + 1) * sizeof(*q->exprs));
	for (i = 0; i < body->n; i++)
		q->exprs[i].kind = OPD_NONE;
	cc.top = body;
	cc.expr_opds = q->exprs;
	lower_body(&cc, body, &sb);
	q->body = finish_block(&C, &sb, DONE_QUERY);
	q->nslots = cc.nslots;
	q->pol = pol;
	q->arena = arena;
	cc_free(&cc);
	if (C.nerr > 0) {
		free(q);
		return NULL;
	}
	return q;
}

struct axv *
axp_const_term(const struct ast_term *t)
{
	if (t == NULL)
		return NULL;
	struct axv *v, *k, *e;
	size_t i;

	switch (t->kind) {
	case T_SCALAR:
		return axv_ref(t->val);
	case T_ARRAY:
	case T_SET:
		v = t->kind == T_ARRAY ? axv_array_new(t->n)
				       : axv_set_new(t->n);
		for (i = 0; i < t->n; i++) {
			if ((e = axp_const_term(t->items[i])) == NULL) {
				axv_unref(v);
				return NULL;
			}
			if (t->kind == T_ARRAY)
				axv_array_push(v, e);
			else
				axv_set_add(v, e);
		}
		return v;
	case T_OBJECT:
		v = axv_object_new(t->n / 2);
		for (i = 0; i < t->n; i += 2) {
			k = axp_const_term(t->items[i]);
			e = k ? axp_const_term(t->items[i + 1]) : NULL;
			if (e == NULL) {
				axv_unref(k);
				axv_unref(v);
				return NULL;
			}
			axv_object_put(v, k, e);
		}
		return v;
	default:
		return NULL;
	}
}
