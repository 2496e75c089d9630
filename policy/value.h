/*
 * value.h: Rego values (internal to the policy engine and its builtins).
 *
 * A value is one of null, boolean, number, string, array, object or set.
 * Values are reference counted (atomically, so a compiled policy's constants
 * and data can be shared by every thread) and immutable once built.
 *
 * OWNERSHIP (one rule for the whole API):
 *   - Functions BORROW the values they are given and RETURN NEW REFERENCES,
 *     which the caller releases with axv_unref().
 *   - Exceptions say "consumes" in their comment: the builders
 *     axv_array_push(), axv_object_put(), axv_set_add() take over the
 *     reference of the element they are given.
 *   - Accessors that return an element of a composite (axv_array_get,
 *     axv_object_get, axv_object_key/val, axv_set_at) return a BORROWED
 *     pointer, valid as long as the composite is.
 *   - axv_ref(v) adds a reference and returns v.
 *
 * Builders (axv_*_new, push/put/add) may only be used on a value nobody else
 * holds yet (reference count 1); once a value is shared it is frozen.
 *
 * Order: axv_compare() is OPA's total order:
 *   null < false < true < numbers < strings < arrays < objects < sets;
 * numbers by numeric value, strings bytewise, arrays element by element
 * then by length, objects by their sorted keys then values, sets by their
 * sorted elements.  Objects and sets are stored in that canonical order, so
 * iteration order is the output order.
 */
#ifndef AXP_VALUE_H
#define AXP_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

enum axv_kind {
	AXV_NULL = 0,
	AXV_BOOL,
	AXV_NUMBER,
	AXV_STRING,
	AXV_ARRAY,
	AXV_OBJECT,
	AXV_SET,
};

struct axv;

/* ---- references ---- */
struct axv *axv_ref(struct axv *v); /* NULL-safe */
void axv_unref(struct axv *v);	    /* NULL-safe */
enum axv_kind axv_kind(const struct axv *v);
/* "null", "boolean", "number", "string", "array", "object", "set": the
 * names OPA's type errors use. */
const char *axv_kind_name(enum axv_kind k);
const char *axv_type_name(const struct axv *v);

/* ---- scalars ---- */
struct axv *axv_null(void);
struct axv *axv_bool(bool b);
bool axv_is_true(const struct axv *v); /* the boolean true, nothing else */
bool axv_bool_get(const struct axv *v);

/* ---- numbers ----
 * An integer that fits int64 is held as such; larger integers are exact
 * (arbitrary precision); other numbers are binary64 and keep the decimal
 * text they were written with, which is what they print as. */
struct axv *axv_int(int64_t i);
struct axv *axv_double(double d); /* integral values become integers */
/* Parse a JSON/Rego number literal (-?digits[.digits][e[+-]digits]).
 * NULL if the text is not a number or is too long (over 4096 digits). */
struct axv *axv_number_parse(const char *s, size_t n);
bool axv_num_is_int(const struct axv *v); /* integral (int64 or big) */
/* The int64 value when the number is an integer that fits. */
bool axv_num_get_i64(const struct axv *v, int64_t *out);
double axv_num_get_double(const struct axv *v);
/* False for a float result past binary64's range (inf, nan). */
bool axv_num_is_finite(const struct axv *v);
/* Arithmetic.  Integers stay exact.  div/rem return NULL when b is zero;
 * rem also returns NULL on non-integers (the caller words the error). */
struct axv *axv_num_add(const struct axv *a, const struct axv *b);
struct axv *axv_num_sub(const struct axv *a, const struct axv *b);
struct axv *axv_num_mul(const struct axv *a, const struct axv *b);
struct axv *axv_num_div(const struct axv *a, const struct axv *b);
struct axv *axv_num_rem(const struct axv *a, const struct axv *b);
struct axv *axv_num_neg(const struct axv *a);
int axv_num_cmp(const struct axv *a, const struct axv *b);
bool axv_num_is_zero(const struct axv *v);
/* Append the canonical text of a number to b (an integer's digits). */
int axv_num_format(const struct axv *v, struct axg_buf *b);
/* The text a number past binary64's range was written with (2e308), kept
 * for output the way OPA keeps it; NULL for every other number. */
const char *axv_num_literal(const struct axv *v);

/* ---- strings: length-counted bytes (UTF-8 is checked at parse) ---- */
struct axv *axv_string(const char *s, size_t n);
struct axv *axv_cstr(const char *s);
/* Take ownership of a malloc'ed buffer of n bytes (must hold n+1 bytes with
 * s[n] == 0). */
struct axv *axv_string_own(char *s, size_t n);
/* A new string of n bytes that the caller fills through *buf before the
 * value is shared (buf[n] is already 0). */
struct axv *axv_string_new(size_t n, char **buf);
const char *axv_str(const struct axv *v); /* NUL-terminated */
size_t axv_strlen(const struct axv *v);
bool axv_str_eq(const struct axv *v, const char *s, size_t n);

/* ---- arrays ---- */
struct axv *axv_array_new(size_t cap_hint);
void axv_array_push(struct axv *arr, struct axv *elem); /* consumes elem */
size_t axv_array_len(const struct axv *v);
struct axv *axv_array_get(const struct axv *v, size_t i); /* borrowed */

/* ---- objects: keys are any value ---- */
struct axv *axv_object_new(size_t cap_hint);
/* Insert or replace key -> val; consumes both. */
void axv_object_put(struct axv *obj, struct axv *key, struct axv *val);
/* Insert key -> val if key is absent (consumes both); returns false and
 * releases both if a different value is already there, true otherwise
 * (the same value again is not a conflict). */
bool axv_object_put_unique(struct axv *obj, struct axv *key, struct axv *val);
size_t axv_object_len(const struct axv *v);
struct axv *axv_object_get(const struct axv *obj, const struct axv *key);
struct axv *axv_object_gets(const struct axv *obj, const char *key);
struct axv *axv_object_key(const struct axv *v, size_t i); /* borrowed */
struct axv *axv_object_val(const struct axv *v, size_t i); /* borrowed */

/* ---- sets ---- */
struct axv *axv_set_new(size_t cap_hint);
void axv_set_add(struct axv *set, struct axv *elem); /* consumes elem */
size_t axv_set_len(const struct axv *v);
struct axv *axv_set_at(const struct axv *v, size_t i); /* borrowed */
bool axv_set_contains(const struct axv *set, const struct axv *elem);

/* Length of an array, object, set or string (in code points); -1 for
 * other kinds. */
int64_t axv_count(const struct axv *v);

/* ---- order, equality, hashing ---- */
int axv_compare(const struct axv *a, const struct axv *b);
bool axv_equal(const struct axv *a, const struct axv *b);
uint64_t axv_hash(const struct axv *v);

/* ---- JSON ---- */
struct axv_json_limits {
	size_t max_bytes; /* 0: no limit */
	int max_depth;	  /* 0: 1000 */
};
/* Parse one JSON document (whitespace around it allowed).  On error NULL and
 * "line L, column C: what" in err. */
struct axv *axv_from_json(const char *text, size_t len,
    const struct axv_json_limits *lim, char *err, size_t errlen);
/* Append OPA's canonical JSON: sorted keys, sets as sorted arrays, non-string
 * object keys as their JSON text.  pretty: indent by two spaces. */
int axv_to_json(const struct axv *v, struct axg_buf *b, bool pretty);
/* A new string with the JSON text (caller frees). */
char *axv_json_str(const struct axv *v);
/* Append Rego term text: like JSON but sets as {a, b} and set(). */
int axv_to_rego(const struct axv *v, struct axg_buf *b);
char *axv_to_rego_string(const struct axv *v); /* caller frees */

#endif /* AXP_VALUE_H */
