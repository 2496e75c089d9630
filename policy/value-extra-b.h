/*
 * value-extra-b.h: codecs the encoding, crypto and JWT builtins share
 * (policy/value-codec.c).  Same ownership rule as value.h.
 */
#ifndef AXP_VALUE_EXTRA_B_H
#define AXP_VALUE_EXTRA_B_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/value.h"

/* Base64 as Go's encoding/base64 does it: url picks the URL alphabet, pad
 * whether '=' padding is written/required.  Decoding skips CR and LF; on
 * bad input it returns -1 and sets *errpos to the offending byte offset
 * (Go's "illegal base64 data at input byte N"). */
void axv_b64_encode(const void *p, size_t n, bool url, bool pad,
    struct axg_buf *out);
int axv_b64_decode(const char *s, size_t n, bool url, bool pad,
    struct axg_buf *out, size_t *errpos);

/* JSON as Go's encoding/json writes it (what OPA's json.marshal gives):
 * sorted keys, sets as arrays, non-string keys as their Rego text, '<', '>',
 * '&', U+2028 and U+2029 escaped as \uXXXX.  indent NULL: compact;
 * otherwise MarshalIndent(prefix, indent).  Nesting is bounded (-1 past
 * 1000 levels or when b's limit is hit). */
int axv_go_json(const struct axv *v, struct axg_buf *b, const char *prefix,
    const char *indent);

/* The first document of a YAML text as a value (builtins-encoding.c, as
 * yaml.unmarshal decodes it); NULL with err set. */
struct axv *axv_yaml_decode(const char *s, size_t n, char *err, size_t errlen);

/* A string value that takes b's contents (b is left empty). */
struct axv *axv_string_buf(struct axg_buf *b);

/* A value from a JSON text with the default limits; NULL and a message in
 * err if it is not JSON. */
struct axv *axv_json_parse(const char *s, size_t n, char *err, size_t errlen);

/* An integer number as an OpenSSL BIGNUM (caller frees) and back.  NULL
 * if v is not an integer. */
struct bignum_st;
struct bignum_st *axv_num_to_bn(const struct axv *v);
struct axv *axv_num_from_bn(const struct bignum_st *bn);

/* axv_num_get_i64 that also accepts INT64_MIN however it is stored. */
bool axv_num_i64(const struct axv *v, int64_t *out);

#endif /* AXP_VALUE_EXTRA_B_H */
