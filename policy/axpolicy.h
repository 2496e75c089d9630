/*
 * axpolicy.h: the public face of axgate's Rego policy engine (libaxpolicy).
 *
 * Every exported symbol starts with axp_.  Structures are opaque.
 */
#ifndef AXPOLICY_H
#define AXPOLICY_H

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

#ifdef __cplusplus
}
#endif

#endif /* AXPOLICY_H */
