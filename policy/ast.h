/*
 * ast.h: the syntax tree of Rego modules and queries (internal).
 *
 * The parser builds it; the compiler reads it and lowers it to the IR
 * (ir.h); nothing evaluates it.  Every node carries its location.  All
 * nodes of one parse live in one arena (struct ast_arena) and are freed
 * together; scalar values are references owned by the arena.
 */
#ifndef AXP_AST_H
#define AXP_AST_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/axpolicy.h"
#include "policy/value.h"

struct ast_loc {
	const char *file; /* owned by the arena */
	int line, col;
};

enum ast_term_kind {
	T_SCALAR,	/* val */
	T_VAR,		/* name */
	T_REF,		/* items[0] head term, items[1..n) path terms */
	T_ARRAY,	/* items */
	T_OBJECT,	/* items: k0, v0, k1, v1, ... (n = 2 * pairs) */
	T_SET,		/* items */
	T_ARRAY_COMPR,	/* key = head, body */
	T_SET_COMPR,	/* key = head, body */
	T_OBJECT_COMPR, /* key, value, body */
	T_CALL,		/* key = function (var or ref), items = args */
};

struct ast_body;

struct ast_term {
	enum ast_term_kind kind;
	struct ast_loc loc;
	struct axv *val;
	const char *name;
	struct ast_term **items;
	size_t n;
	struct ast_term *key, *value;
	struct ast_body *body;
};

enum ast_expr_kind {
	E_TERM,	   /* a */
	E_UNIFY,   /* a = b */
	E_ASSIGN,  /* a := b */
	E_SOME,	   /* some vars (terms, all T_VAR) */
	E_SOME_IN, /* some [key,] value in coll */
	E_EVERY,   /* every [key,] value in coll { body } */
	E_GROUP,   /* { body } or ( expr ): true once if body has a solution */
	E_AND,	   /* alts[0] and alts[1] ...: each alt true (once) */
	E_OR,	   /* alts[0] or alts[1] ...: the first alt that is true */
};

struct ast_with {
	struct ast_term *target, *value;
};

struct ast_expr {
	enum ast_expr_kind kind;
	struct ast_loc loc;
	bool negated;
	struct ast_term *a, *b;
	struct ast_term *key, *value, *coll; /* some-in, every */
	struct ast_term **vars;		     /* some */
	size_t nvars;
	struct ast_body *body;	/* every, group */
	struct ast_body **alts; /* and, or: operands, each its own scope */
	size_t nalts;
	struct ast_with *withs;
	size_t nwiths;
};

struct ast_body {
	struct ast_loc loc;
	struct ast_expr **e;
	size_t n;
};

struct ast_rule {
	struct ast_loc loc;
	bool is_default;
	bool is_func;
	bool assign;	      /* := rather than = in the head */
	struct ast_term *ref; /* head reference (T_VAR or T_REF) */
	struct ast_term **args;
	size_t nargs;
	struct ast_term *key;	/* `contains key` */
	struct ast_term *value; /* NULL: true */
	struct ast_body *body;	/* NULL: no body (always true) */
	struct ast_rule *els;	/* else chain */
	struct ast_rule *next;	/* the next rule of the module */
};

struct ast_import {
	struct ast_loc loc;
	struct ast_term *path; /* T_VAR or T_REF */
	const char *alias;     /* NULL: the last path element */
};

/* A comment, kept for the formatter: text is "# ..." without the newline. */
struct ast_comment {
	struct ast_loc loc;
	const char *text; /* owned by the arena */
	size_t len;
	struct ast_comment *next;
};

struct ast_module {
	const char *file;
	struct ast_loc loc;
	struct ast_term *package; /* T_REF/T_VAR, without the data. head */
	struct ast_import *imports;
	size_t nimports;
	struct ast_rule *rules;
	struct ast_comment *comments; /* in source order */
};

struct ast_arena;

struct ast_arena *ast_arena_new(void);
void ast_arena_free(struct ast_arena *a);
void *ast_alloc(struct ast_arena *a, size_t n); /* zeroed */
char *ast_strndup(struct ast_arena *a, const char *s, size_t n);
/* The arena takes over the reference of v and returns it. */
struct axv *ast_keep(struct ast_arena *a, struct axv *v);

/* Located errors, as the parser and compiler report them. */
struct axp_diags {
	struct axp_error *d;
	size_t n, cap;
};

void axp_diags_add(struct axp_diags *ds, const struct ast_loc *loc, int code,
    const char *fmt, ...) AXG_PRINTF(4, 5);
void axp_diags_free(struct axp_diags *ds);

struct ast_limits {
	int max_depth;	    /* nesting of terms and bodies; 0: 256 */
	size_t max_literal; /* bytes of one string/number literal; 0: 1 MiB */
	size_t max_source;  /* bytes of one module; 0: 16 MiB */
};

/* Parse one module.  NULL (with diagnostics added) on error. */
struct ast_module *
ast_parse_module(struct ast_arena *a, const char *file, const char *src,
    size_t len, const struct ast_limits *lim, struct axp_diags *ds);
/* Parse a query (a body without braces). */
struct ast_body *ast_parse_query(struct ast_arena *a, const char *src,
    size_t len, const struct ast_limits *lim, struct axp_diags *ds);
/* Parse one term (a Rego value written as text, e.g. input_term). */
struct ast_term *ast_parse_term(struct ast_arena *a, const char *src,
    size_t len, struct axp_diags *ds);

#endif /* AXP_AST_H */
