/* policy-int.h: the policy engine's internal objects. */
#ifndef AXP_POLICY_INT_H
#define AXP_POLICY_INT_H

#include "policy/ast.h"
#include "policy/axpolicy.h"
#include "policy/ir.h"

struct axp_compiler {
	struct ast_arena *arena;
	struct ast_module **mods;
	size_t nmods, capmods;
	struct axv *data;
	struct axp_diags diags;
	bool strict;
	unsigned flags; /* AXP_COMPILE_* */
};

struct axp_policy {
	struct ast_arena *arena; /* the AST and every IR allocation */
	struct axv *data;
	struct dnode *root;
	struct rgroup **groups;
	uint32_t ngroups;
	uint32_t max_slots; /* the largest frame */
	unsigned flags;	    /* AXP_COMPILE_* it was compiled with */
	/* The distinct constant keys of input.key in the rules (borrowed from
	 * the arena): an evaluation reads each from its input once. */
	struct axv **inkeys;
	uint32_t ninkeys;
};

/* The most input keys an evaluation memoizes. */
#define AXP_MAX_INKEYS 64

struct qvar {
	const char *name;
	uint32_t slot;
};

struct axp_query {
	struct axp_policy *pol;
	struct ast_arena *arena;
	struct block *body;
	uint32_t nslots;
	struct qvar *vars;
	uint32_t nvars;
	struct opd *exprs; /* per top-level expression: its value (OPD_NONE:
			      true) */
	uint32_t nexprs;
};

/* compile.c */
struct axp_policy *
axp_compile(struct ast_module **mods, size_t nmods, struct axv *data,
    struct ast_arena *arena, struct axp_diags *ds, unsigned flags);
/* Compile a parsed query against a policy; NULL with diagnostics. */
struct axp_query *axp_compile_query(struct axp_policy *pol,
    struct ast_body *body, struct ast_arena *arena, struct axp_diags *ds);

/* The value of a constant term (scalars and composites of them); NULL if
 * it has variables, refs or calls. */
struct axv *axp_const_term(const struct ast_term *t);

/* eval.c */
struct axp_eval_opts {
	bool strict;	    /* strict builtin errors */
	uint64_t max_steps; /* 0: 10 million */
	uint64_t max_mem;   /* bytes of values held at once; 0: 256 MiB */
	int64_t now_ns;	    /* 0: the clock */
};

/* Evaluate: *results receives an array of solutions, each an object
 * mapping the query's variable names to their values. */
int axp_eval(const struct axp_query *q, struct axv *input,
    const struct axp_eval_opts *opts, struct axv **results,
    struct axp_error *err);
/* The same, also giving for each solution the array of the values of the
 * query's expressions (exprs may be NULL). */
int axp_eval_exprs(const struct axp_query *q, struct axv *input,
    const struct axp_eval_opts *opts, struct axv **results, struct axv **exprs,
    struct axp_error *err);

/* Format one module's source in canonical form (fmt.c), appending it to
 * out.  0, or -1 with "file:line:col: message" in err. */
struct axg_buf;
int axp_fmt_module(const char *file, const char *src, size_t len,
    struct axg_buf *out, char *err, size_t errlen);

#endif /* AXP_POLICY_INT_H */
