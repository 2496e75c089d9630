/*
 * builtins.h: how a Rego builtin is written and registered.
 *
 * A builtin is one C function with the signature axp_builtin_fn.  It gets
 * its arguments BORROWED (args[0..arity)), and either
 *   - stores a NEW reference in *out and returns AXP_BI_OK,
 *   - returns AXP_BI_UNDEF (the call is undefined: no result, no error), or
 *   - returns axp_bi_error(ctx, code, fmt, ...) / axp_bi_type_error(...),
 *     which record OPA's error code and a message prefixed with the
 *     builtin's name ("div: divide by zero") and return AXP_BI_ERROR.
 * A builtin never keeps a pointer to an argument after it returns unless it
 * took a reference (axv_ref).
 *
 * Builtins are grouped by family in policy/builtins-<family>.c.  Each file
 * exports one table, terminated by an entry with a NULL name:
 *
 *	const struct axp_builtin axp_builtins_arith[] = {
 *		{ "plus", 2, bi_plus, "(number, number) => number", 0 },
 *		...
 *		{ NULL, 0, NULL, NULL, 0 },
 *	};
 *
 * and the registry (builtins.c, axp_builtin_families[]) lists the tables.
 * To add a family: write the file, add it to policy/local.mk, declare its
 * table below and add it to the list in builtins.c.
 *
 * Infix operators are calls of builtins: + plus, - minus, * mul, / div,
 * % rem, == equal, != neq, < lt, <= lte, > gt, >= gte, & and, | or.
 */
#ifndef AXP_BUILTINS_H
#define AXP_BUILTINS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/axpolicy.h"
#include "policy/value-int.h"
#include "policy/value.h"

enum axp_bi_status {
	AXP_BI_ERROR = -1,
	AXP_BI_OK = 0,
	AXP_BI_UNDEF = 1,
};

/* The call context: what a builtin may read, and where its error goes. */
struct axp_bctx {
	const char *name;      /* the builtin being called, for messages */
	bool strict;	       /* strict builtin errors requested */
	int64_t now_ns;	       /* without an evaluation: the time to use */
	void *eval;	       /* the evaluation (opaque; for callbacks) */
	enum axp_errcode code; /* set by axp_bi_error */
	char msg[512];	       /* set by axp_bi_error, without the code */
};

/* time.now_ns() of the evaluation: read from the clock by the first
 * builtin that asks, then the same for the rest of the evaluation. */
int64_t axp_bctx_now_ns(struct axp_bctx *ctx);

/* What a nondeterministic builtin answered for key earlier in the same
 * evaluation (borrowed), or NULL; and recording it (takes key and val).
 * OPA gives rand.intn the same value for the same arguments throughout a
 * query.  Without an evaluation (a direct call) nothing is kept. */
struct axv *axp_bctx_memo_get(struct axp_bctx *ctx, const struct axv *key);
void axp_bctx_memo_put(struct axp_bctx *ctx, struct axv *key, struct axv *val);

typedef int (*axp_builtin_fn)(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out);

/* flags */
#define AXP_BIF_NONDET	0x1 /* may give different results for the same args */
#define AXP_BIF_NETWORK 0x2 /* reaches the network (AXP_COMPILE_OFFLINE) */
#define AXP_BIF_STALL	0x4 /* holds the evaluation (AXP_COMPILE_OFFLINE) */

struct axp_builtin {
	const char *name; /* dotted Rego name, e.g. "strings.replace_n" */
	int arity;	  /* number of arguments */
	axp_builtin_fn fn;
	const char *decl; /* optional type, e.g. "(string, number) => string" */
	unsigned flags;	  /* AXP_BIF_* */
};

/* What internal.range_check gives: the range it checked is to be walked by
 * the scan after it (RSCAN), not made. */
extern struct axv axp_range_marker;

/* Record an error "NAME: message" with code; returns AXP_BI_ERROR. */
int axp_bi_error(struct axp_bctx *ctx, enum axp_errcode code, const char *fmt,
    ...) AXG_PRINTF(3, 4);
/* *out = v, a number just computed; or an error (v freed) when it is a
 * float past binary64's range, which no JSON can hold. */
int axp_bi_number_out(struct axp_bctx *ctx, struct axv *v, struct axv **out);
/* Record OPA's operand type error: "NAME: operand POS must be WANT but got
 * TYPE" (eval_type_error); pos counts from 1.  want is a type name, or
 * several as "one of {array, set}".  Returns AXP_BI_ERROR. */
int axp_bi_type_error(struct axp_bctx *ctx, int pos, const char *want,
    const struct axv *got);
/* Check args[pos-1] is of kind k, else record the type error.  true if ok.
 * (Inline: every builtin checks its operands on every call.) */
bool axp_bi_want_fail(struct axp_bctx *ctx, struct axv *const *args, int pos,
    enum axv_kind k);

static inline bool
axp_bi_want(struct axp_bctx *ctx, struct axv *const *args, int pos,
    enum axv_kind k)
{
	if (axv_kind(args[pos - 1]) == k)
		return true;
	return axp_bi_want_fail(ctx, args, pos, k);
}

/* Look a builtin up by name (n bytes); NULL if unknown.  Thread-safe. */
const struct axp_builtin *axp_builtin_lookup(const char *name, size_t n);
/* The builtin an infix operator ("+", "==", ...) calls; NULL if none. */
const char *axp_builtin_infix(const char *op);

/* The families. */
extern const struct axp_builtin axp_builtins_compare[];
extern const struct axp_builtin axp_builtins_arith[];
extern const struct axp_builtin axp_builtins_aggregates[];
extern const struct axp_builtin axp_builtins_strings[];
extern const struct axp_builtin axp_builtins_internal[];
extern const struct axp_builtin axp_builtins_arrays[];
extern const struct axp_builtin axp_builtins_sets[];
extern const struct axp_builtin axp_builtins_types[];
extern const struct axp_builtin axp_builtins_numbers[];
extern const struct axp_builtin axp_builtins_objects[];
extern const struct axp_builtin axp_builtins_jsonpatch[];
extern const struct axp_builtin axp_builtins_encoding[];
extern const struct axp_builtin axp_builtins_bits[];
extern const struct axp_builtin axp_builtins_net[];
extern const struct axp_builtin axp_builtins_time[];
extern const struct axp_builtin axp_builtins_sprintf[];
extern const struct axp_builtin axp_builtins_regex[];
extern const struct axp_builtin axp_builtins_glob[];
extern const struct axp_builtin axp_builtins_units[];
extern const struct axp_builtin axp_builtins_semver[];
extern const struct axp_builtin axp_builtins_uuid[];
extern const struct axp_builtin axp_builtins_crypto[];
extern const struct axp_builtin axp_builtins_jwt[];
extern const struct axp_builtin axp_builtins_x509[];

extern const struct axp_builtin axp_builtins_math[];
extern const struct axp_builtin axp_builtins_graph[];
extern const struct axp_builtin axp_builtins_providers[];
extern const struct axp_builtin axp_builtins_uri[];
extern const struct axp_builtin axp_builtins_jsonschema[];
extern const struct axp_builtin axp_builtins_http[];
extern const struct axp_builtin axp_builtins_template[];
extern const struct axp_builtin axp_builtins_graphql[];

#endif /* AXP_BUILTINS_H */
