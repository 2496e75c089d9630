/*
 * value-extra-a.h: helpers on values for the builtin families (collections,
 * UTF-8 code points, copies).  Same ownership rule as value.h.
 */
#ifndef AXP_VALUE_EXTRA_A_H
#define AXP_VALUE_EXTRA_A_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/builtins.h"
#include "policy/value.h"

/* Arrays and sets alike: the number of elements and element i (borrowed).
 * Only for arrays and sets. */
size_t axv_coll_len(const struct axv *v);
struct axv *axv_coll_at(const struct axv *v, size_t i);

/* A new, unshared object holding the same pairs as obj. */
struct axv *axv_object_copy(const struct axv *obj);

/* Decode one UTF-8 sequence at s (n > 0 bytes left): the code point in *cp
 * and the bytes used.  An invalid byte decodes as U+FFFD using 1 byte. */
size_t axv_utf8_next(const char *s, size_t n, uint32_t *cp);
/* Encode cp into out (4 bytes at least); returns the bytes written. */
size_t axv_utf8_put(uint32_t cp, char *out);
/* Number of code points in s[0..n). */
size_t axv_utf8_count(const char *s, size_t n);
/* Byte offset of code point idx in s[0..n) (n when idx is past the end). */
size_t axv_utf8_offset(const char *s, size_t n, size_t idx);

/* The digits (0-9a-f) of the integer part of a number (truncated toward
 * zero) in base 2..16, without sign; *neg says if it is negative (never for
 * zero).  Exact for big integers.  Caller frees. */
char *axv_num_int_digits(const struct axv *num, int base, bool *neg);

/* Simple case mapping of one code point (ASCII, Latin-1, Latin
 * Extended-A, Greek, Cyrillic); others map to themselves. */
uint32_t axv_ucs_lower(uint32_t c);
uint32_t axv_ucs_upper(uint32_t c);

/* The longest string a builtin builds (replace, sprintf, ...). */
#define AXP_BIA_STR_MAX (16 * 1024 * 1024)

/* ---- operand checks worded as OPA words them (eval_type_error) ---- */
/* args[pos-1] must be an integer that fits int64: "operand POS must be
 * integer number but got floating-point number".  0, or -1 with the error
 * recorded. */
int axp_bia_int_slow(struct axp_bctx *ctx, struct axv *const *args, int pos,
    int64_t *out);

static inline int
axp_bia_int(struct axp_bctx *ctx, struct axv *const *args, int pos,
    int64_t *out)
{
	if (axv_kind(args[pos - 1]) == AXV_NUMBER &&
	    axv_num_get_i64(args[pos - 1], out))
		return 0;
	return axp_bia_int_slow(ctx, args, pos, out);
}
/* "operand POS must be KIND of WANTs but got KIND containing TYPE", e.g.
 * "operand 2 must be array of strings but got array containing number".
 * Returns AXP_BI_ERROR. */
int axp_bia_elem_error(struct axp_bctx *ctx, int pos, const struct axv *coll,
    const struct axv *got, const char *want);
/* args[pos-1] must be an array or set of strings (elem_error otherwise);
 * true if so. */
bool
axp_bia_want_strings(struct axp_bctx *ctx, struct axv *const *args, int pos);

/* A JSON pointer string ("/a/b~1c") as a new array of its segments, ~0
 * and ~1 decoded.  p must be a string. */
struct axv *axv_json_pointer_split(const struct axv *p);

#endif /* AXP_VALUE_EXTRA_A_H */
