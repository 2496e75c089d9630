/*
 * ir.h: the compiled form of a policy (internal).
 *
 * The compiler (compile.c) lowers the AST into blocks of statements whose
 * opcodes are listed once in opcodes.def; the evaluator (eval.c) runs
 * them.  Everything here is built once, immutable afterwards, and shared
 * by every evaluation and thread.  Values held here are owned by the
 * policy (struct axp_policy) and released when it is freed.
 */
#ifndef AXP_IR_H
#define AXP_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/ast.h"
#include "policy/builtins.h"
#include "policy/jidx.h"
#include "policy/value.h"

enum ir_opcode {
#define OP(name, operands, doc) IR_##name,
#include "policy/opcodes.def"
#undef OP
	IR__COUNT
};

extern const char *const ir_opcode_names[];

enum opd_kind {
	OPD_CONST,
	OPD_LOCAL,
	OPD_ARRAY,  /* items[0..n) */
	OPD_OBJECT, /* items[0..2n): key, value, ... */
	OPD_SET,    /* items[0..n) */
	OPD_NONE,
};

struct opd {
	uint8_t kind;
	bool sorted; /* OPD_OBJECT: constant keys, distinct, in order */
	uint32_t slot;
	struct axv *val;
	struct opd *items;
	uint32_t n;
};

enum done_kind {
	DONE_QUERY, /* record the query's bindings */
	DONE_RULE,  /* add the rule head to the group being built */
	DONE_ANY,   /* stop at the first solution (not, every) */
	DONE_ARRAY, /* comprehension heads */
	DONE_SET,
	DONE_OBJECT,
};

struct stmt;

struct block {
	struct stmt *s;
	uint32_t n;
	enum done_kind done;
	struct opd key, val; /* heads: DONE_RULE, comprehensions */
	struct opd *dpath;   /* DONE_RULE: dynamic ref-head path */
	uint32_t ndpath;
};

struct dnode;
struct rgroup;

struct with_target {
	int kind;	  /* WT_INPUT, WT_DATA, WT_FUNC, WT_BUILTIN */
	struct axv *path; /* array of path keys (input/data) */
	struct rgroup *rg;
	const struct axp_builtin *bi;
	struct rgroup *repl_rg;		   /* replacement: a user function */
	const struct axp_builtin *repl_bi; /* or a builtin */
};

enum { WT_INPUT, WT_DATA, WT_FUNC, WT_BUILTIN };

struct stmt {
	uint16_t op;
	uint8_t kind; /* COMPR: DONE_ARRAY/SET/OBJECT; DOT: 1, a test */
	struct ast_loc loc;
	uint32_t out;
	struct opd a, b, c;
	struct opd *args;
	uint32_t nargs;
	const struct axp_builtin *bi;
	struct rgroup *rg;
	struct dnode *node;
	struct axv *path; /* BASEDATA, DOT of base data: array of keys */
	struct axv *pre;  /* and the value at path (NULL: undefined) */
	struct block *blk;
	struct block **alts;	/* ANY: blocks tried after blk */
	const struct jidx *idx; /* ISCAN: the join index */
	uint32_t nalts;
	struct with_target *wt; /* WITH_PUSH: nargs targets, args values */
	uint32_t ikey; /* INPUT with a constant key: 1 + its index in the
			  policy's input keys (the per-evaluation memo), or 0 */
};

enum rg_kind { RG_COMPLETE, RG_SET, RG_OBJECT, RG_FUNC };

struct rdef {
	struct ast_rule *ast;
	struct block *body;
	uint32_t nslots;
	struct opd *args; /* patterns, functions */
	uint32_t nargs;
	struct rdef *els;
	/* 1 + the index of an earlier definition of the group whose success
	 * means this one has no solution (see mark_exclusive), or 0 */
	uint32_t excl_by;
};

struct rgroup {
	char *name; /* "data.pkg.p" */
	enum rg_kind kind;
	uint32_t id; /* cache slot */
	uint32_t nargs;
	struct rdef **defs;
	uint32_t ndefs;
	struct axv *defval;  /* default value (constant) */
	struct rdef *defdef; /* default value computed (comprehensions) */
	struct ast_rule *defrule;
	struct dnode *node;
	struct ast_module *mod;
	bool nested; /* a partial set under a dynamic ref head */
	int state;   /* compile: 0 new, 1 compiling, 2 done */
	struct rgroup **deps;
	uint32_t ndeps;
	/* Its value depends on the policy alone (no input, with-modifier,
	 * virtual document or nondeterministic builtin, here or in what it
	 * calls): 2; 3 if not; 0 not known yet (compile). */
	int purity;
	struct axv *pre; /* then its value, once an evaluation made it */
};

struct dnode {
	char *name;
	struct axv *path; /* array of keys from data */
	struct dnode **kids;
	uint32_t nkids;
	struct rgroup *rg;
	bool has_rules; /* a rule group here or below */
};

#endif /* AXP_IR_H */
