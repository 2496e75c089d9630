/*
 * axpolicy.h: the public face of axgate's Rego policy engine (libaxpolicy).
 *
 * Every exported symbol starts with axp_.  Structures are opaque except
 * struct axp_error.
 *
 * Use:
 *	struct axp_compiler *c = axp_compiler_new();
 *	axp_compiler_add_module(c, "p.rego", src, len);
 *	axp_compiler_set_data_json(c, json, len);	 (optional)
 *	struct axp_policy *p = axp_compiler_compile(c);	 (NULL: see errors)
 *	struct axp_query *q = axp_query_prepare(p, "data.p.allow", &e);
 *	axp_query_eval_json(q, input, len, &result, &e);  (result: JSON text)
 *	free(result); axp_query_free(q); axp_policy_free(p);
 *	axp_compiler_free(c);
 *
 * A compiled policy and a prepared query are immutable: several threads
 * may evaluate the same query at once.  Strings handed out are owned by the
 * object they came from, unless the comment says the caller frees them.
 */
#ifndef AXPOLICY_H
#define AXPOLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, as "MAJOR.MINOR.PATCH". */
const char *axp_version(void);

/* Error codes, named as OPA names them (axp_errcode_str gives the text). */
enum axp_errcode {
	AXP_OK = 0,
	AXP_ERR_PARSE,	       /* rego_parse_error */
	AXP_ERR_COMPILE,       /* rego_compile_error */
	AXP_ERR_UNSAFE_VAR,    /* rego_unsafe_var_error */
	AXP_ERR_RECURSION,     /* rego_recursion_error */
	AXP_ERR_TYPE,	       /* rego_type_error */
	AXP_ERR_EVAL_TYPE,     /* eval_type_error */
	AXP_ERR_EVAL_BUILTIN,  /* eval_builtin_error */
	AXP_ERR_EVAL_CONFLICT, /* eval_conflict_error */
	AXP_ERR_EVAL_LIMIT,    /* eval_limit_error: steps or memory */
	AXP_ERR_EVAL_INTERNAL, /* eval_internal_error */
	AXP_ERR_INVALID,       /* bad argument to the API, bad JSON */
};

/* "rego_parse_error", "eval_type_error", ... */
const char *axp_errcode_str(enum axp_errcode code);

/* A located error.  line/col are 0 when unknown. */
struct axp_error {
	char *file;
	int line, col;
	enum axp_errcode code;
	char *message;
};

struct axp_compiler;
struct axp_policy;
struct axp_query;

struct axp_compiler *axp_compiler_new(void);
void axp_compiler_free(struct axp_compiler *c);
/* Add a module (copied).  Parse errors are kept in the compiler; returns
 * -1 if this module did not parse. */
int axp_compiler_add_module(struct axp_compiler *c, const char *name,
    const char *src, size_t len);
/* Set the base document `data` from JSON text; -1 on bad JSON (error kept).
 */
int axp_compiler_set_data_json(struct axp_compiler *c, const char *json,
    size_t len);
/* Refuse, at compile time and with a located error, every call of a builtin
 * that reaches the network (http.send): a policy that a proxy evaluates
 * must not block on the network. */
#define AXP_COMPILE_OFFLINE 0x1
/* Set AXP_COMPILE_* flags for the next compile. */
void axp_compiler_set_flags(struct axp_compiler *c, unsigned flags);
/* Compile everything added; NULL on errors (all of them kept).  The policy
 * lives independently of the compiler. */
struct axp_policy *axp_compiler_compile(struct axp_compiler *c);
size_t axp_compiler_error_count(const struct axp_compiler *c);
const struct axp_error *
axp_compiler_error(const struct axp_compiler *c, size_t i);

void axp_policy_free(struct axp_policy *p);

/* Prepare a query (a Rego body, e.g. "data.egress.decision" or
 * "x := data.p[_]").  On error NULL and *err filled (caller frees it with
 * axp_error_clear). */
struct axp_query *axp_query_prepare(struct axp_policy *p, const char *query,
    struct axp_error *err);
void axp_query_free(struct axp_query *q);

/* Evaluate with input given as JSON (NULL: no input).  *result receives,
 * for the caller to free, the result set as JSON: an array with one
 * object per solution, {"bindings": {VAR: VALUE...}, "expressions":
 * [VALUE...]} (each expression's value; true for those that are not a
 * plain term).  An undefined query gives [].  Returns 0, or -1 with *err
 * filled. */
int axp_query_eval_json(const struct axp_query *q, const char *input,
    size_t len, char **result, struct axp_error *err);

/* Release the strings of an error filled by the functions above. */
void axp_error_clear(struct axp_error *err);

/* Where print() in a policy writes: fn(line, arg) once for each line it
 * prints, from whichever thread evaluates.  NULL (the default) drops them.
 * Set it before evaluations start. */
void axp_set_print_hook(void (*fn)(const char *line, void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* AXPOLICY_H */
