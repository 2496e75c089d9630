/*
 * safety-int.h: what the files of safety/ share and nothing outside sees.
 */
#ifndef AXG_SAFETY_INT_H
#define AXG_SAFETY_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common/common.h"
#include "safety/safety.h"

/* ---- the built-in rule table (rules-builtin.c) ---- */

/* Rule flags. */
enum {
	LEAK_RF_GENERIC = 1 << 0,  /* a context rule: loses to specific ones */
	LEAK_RF_NOALLOW = 1 << 1,  /* skip the common placeholder allowlist */
	LEAK_RF_UUID_OK = 1 << 2,  /* a UUID value is a secret here */
	LEAK_RF_HEX_OK = 1 << 3,   /* a bare hex value is a secret here */
	LEAK_RF_VALUE = 1 << 4,	   /* shape gate for assigned values */
	LEAK_RF_PASSWORD = 1 << 5, /* shape gate for passwords */
	LEAK_RF_WINDOW = 1 << 6,   /* match may start before the keyword */
	LEAK_RF_ASSIGN = 1 << 7,   /* an assignment must follow the name */
};

/* A LEAK_RF_ASSIGN rule's value (group 1) is at least this many bytes
 * (or the rule's value_min) none of which is in [\s"'`&;,<>()[\]{}]: the
 * scanner runs its regex only after a cheap check that such a value
 * follows the assignment.  value_min is at most LEAK_ASSIGN_VALUE_CAP. */
#define LEAK_ASSIGN_VALUE_MIN 6
#define LEAK_ASSIGN_VALUE_CAP 12

/* A cheap test run before an anchored rule's regex at a keyword hit
 * p[start..end) of p[0..n): false only where the regex cannot match
 * starting at p[start] (it may look at the bytes around the hit, as the
 * regex's lookbehinds do). */
typedef bool (
    *leak_precheck_fn)(const uint8_t *p, size_t n, size_t start, size_t end);

/* Shortest and longest run of hex digits decoded as hex-encoded text
 * (32 digits: 16 bytes of text). */
#define LEAK_HEX_RUN_MIN 32
#define LEAK_HEX_RUN_MAX 4096

/* Shortest run of base64 bytes that is decoded and scanned again. */
#define LEAK_B64_RUN_MIN 24

/* Which vector instructions a pass uses. */
enum leak_simd { LEAK_SIMD_NONE, LEAK_SIMD_AVX2, LEAK_SIMD_AVX512 };

/* A layer's bytes by class, as bitmaps (bit i % 64 of word i / 64 for
 * byte i; bits at n and past it clear): the base64 and base64url
 * alphabet, hex digits, A-Z, a-z.  runs.c. */
struct leak_runmask {
	uint64_t *b64, *hex, *upper, *lower; /* one allocation, at b64 */
	/* Bit i: bytes i .. i + LEAK_B64_RUN_MIN - 1 are all base64. */
	uint64_t *start;
	size_t cap; /* words of each, and one 0 */
	size_t n;   /* bytes of the layer */
};

/* Fill rm for p[0..n), growing it as needed, with the instructions simd
 * names (the same bits either way). */
void leak_runmask_build(struct leak_runmask *rm, const uint8_t *p, size_t n,
    enum leak_simd simd);
void leak_runmask_free(struct leak_runmask *rm);
/* The first run of at least LEAK_B64_RUN_MIN base64 bytes at or after
 * from (a run under way at from counting from there), as [*s, *e). */
bool leak_runmask_b64_run(const struct leak_runmask *rm, size_t from, size_t *s,
    size_t *e);
/* The first run of at least LEAK_HEX_RUN_MIN hex digits in [from, e), a
 * part of a base64 run, as [*hs, *he). */
bool leak_runmask_hex_run(const struct leak_runmask *rm, size_t from, size_t e,
    size_t *hs, size_t *he);
/* Does [s, e) hold both an upper- and a lower-case letter? */
bool leak_runmask_both_cases(const struct leak_runmask *rm, size_t s, size_t e);

/* Validators run on the secret after the regex confirms it. */
enum leak_validator {
	LEAK_V_NONE = 0,
	LEAK_V_BASIC_AUTH,   /* base64 of "user:password", password real */
	LEAK_V_JWT,	     /* header decodes to JSON with "alg" */
	LEAK_V_URL_PASSWORD, /* userinfo password that is not a placeholder */
};

struct leak_rule_def {
	const char *id;
	const char *description;
	const char *keywords; /* '|'-separated; "\b" prefix: word start only */
	const char *regex;    /* group 1, if any, is the secret */
	double entropy;	      /* minimum bits per byte of the secret, or 0 */
	const char *allow;    /* a regex; a secret matching it is ignored */
	unsigned flags;
	enum leak_validator validator;
	unsigned short before; /* window before a keyword hit (0: default) */
	unsigned short after;  /* window after it (0: default) */
	/* LEAK_RF_ASSIGN: the least length of the regex's value (0:
	 * LEAK_ASSIGN_VALUE_MIN); never more than the regex needs. */
	unsigned char value_min;
	leak_precheck_fn pre; /* see leak_precheck_fn, or NULL */
};

extern const struct leak_rule_def leak_builtin_rules[];
extern const size_t leak_builtin_rules_count;

/* ---- the keyword automaton (ac.c) ---- */

struct leak_ac;

struct leak_ac_pattern {
	const char *bytes; /* matched ASCII-case-insensitively */
	size_t len;
	uint32_t id;
};

struct leak_ac *leak_ac_new(const struct leak_ac_pattern *pats, size_t n);
void leak_ac_free(struct leak_ac *ac);
/* Use the SIMD filter if the CPU has it (the default) or never (tests
 * compare the two).  AXGATE_SCAN_SCALAR=1 in the environment makes never
 * the default, to run a whole test suite on the scalar path. */
void leak_ac_set_simd(struct leak_ac *ac, bool on);
/* With SIMD on, use the AVX-512 filter where the CPU has it (the default,
 * which leak_ac_set_simd restores) or only the AVX2 one (tests compare
 * the two). */
void leak_ac_set_avx512(struct leak_ac *ac, bool on);
/* For tests: out[e] gets the buckets (bits) of the keywords the filter
 * lets end at p[e], e < n (0 where none can); out[0] is 0. */
void leak_ac_filter(const struct leak_ac *ac, const uint8_t *p, size_t n,
    uint8_t *out);
/* Is the SIMD filter in use, and with which instructions?  The scanner's
 * other SIMD passes follow it, so the same switch compares every path of
 * every pass. */
bool leak_ac_simd(const struct leak_ac *ac);
enum leak_simd leak_ac_simd_level(const struct leak_ac *ac);
/* Call hit(end, id, arg) for every pattern occurrence ending at end (the
 * offset just past its last byte), roughly in order of position (a long
 * keyword is reported where its rarest window is).  Returns 0, or the
 * first non-zero value hit returned. */
int leak_ac_scan(const struct leak_ac *ac, const uint8_t *p, size_t n,
    int (*hit)(size_t end, uint32_t id, void *arg), void *arg);

/* ---- compiled rules (ruleset.c) ---- */

/* A rule's regexes are compiled (with JIT) the first time the rule is
 * needed: rs->lazy[i] holds rule i's compiled code, published with release
 * ordering once, so after that a scan reads it with one acquire load and
 * no lock.  Compiling takes rs->compile_lock. */
struct leak_rule_code {
	_Atomic(pcre2_code *) re;
	_Atomic(pcre2_code *) allow;
	_Atomic int state; /* 0: not yet, 1: compiled, -1: failed */
};

struct leak_rule {
	char *id;
	char *description;
	const char *re_src;    /* the regex (owned if src_owned) */
	const char *allow_src; /* the allowlist regex, or NULL */
	bool src_owned;
	uint32_t re_options;
	double entropy;
	unsigned flags;
	enum leak_validator validator;
	size_t before, after;
	int priority;	      /* higher wins an overlap */
	uint32_t builtin;     /* 1 + index in leak_builtin_rules, or 0 */
	size_t value_min;     /* LEAK_RF_ASSIGN: see leak_rule_def */
	leak_precheck_fn pre; /* built-in rules: see leak_rule_def */
};

struct leak_keyword {
	char *text;
	size_t len;
	bool word_start;
	uint32_t *rules; /* indices into rs->rules */
	size_t nrules, caprules;
	/* If every rule of the keyword is a LEAK_RF_ASSIGN rule tried at
	 * the keyword (not LEAK_RF_WINDOW), the least of their value_min,
	 * else 0: a hit with a shorter assigned value is none of theirs,
	 * which the scanner learns without reading the rules. */
	size_t assign_min;
};

/* An open-addressing index of strings used while rules are added, so that
 * adding n rules costs O(n): slots hold an index + 1 (0: empty). */
struct leak_index {
	uint32_t *slot;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

struct leak_ruleset {
	struct leak_rule *rules;
	size_t nrules, caprules;
	struct leak_index ids;	/* rule ids (construction only) */
	struct leak_index kwix; /* keywords (construction only) */
	size_t capkws;
	/* nrules entries, mutable (see above); a built-in rule's code is
	 * not here but shared by every rule set of the process. */
	struct leak_rule_code *code;
	pthread_mutex_t compile_lock;
	struct leak_keyword *kws;
	size_t nkws;
	struct leak_ac *ac;
	const pcre2_code *placeholder; /* the common allowlist (shared) */
};

/* An empty rule set to add rules to (no built-in rules), and the step
 * that makes it ready to scan (frees rs and returns NULL on failure).
 * leak_ruleset_new_yaml is these with the built-in and YAML rules between;
 * the benchmark uses them to time construction with many rules. */
struct leak_ruleset *leak_ruleset_alloc(void);
struct leak_ruleset *
leak_ruleset_finish(struct leak_ruleset *rs, char *err, size_t errlen);
/* Add one rule; -1 with a message naming the rule on a bad regex. */
int leak_ruleset_add(struct leak_ruleset *rs, const char *id, const char *desc,
    const char *const *keywords, size_t nkw, const char *regex, double entropy,
    const char *const *allow, size_t nallow, unsigned flags,
    enum leak_validator v, size_t before, size_t after, bool user, char *err,
    size_t errlen);
/* Rule i's compiled code, compiling it on first use; NULL with a message
 * naming the rule if it does not compile.  Safe from many threads. */
const struct leak_rule_code *leak_rule_code(const struct leak_ruleset *rs,
    size_t i, char *err, size_t errlen);
/* Rule i's compilation state: 0 not yet, 1 compiled, -1 failed. */
int leak_rule_state(const struct leak_ruleset *rs, size_t i);
/* Compile every rule now: -1 naming the first rule that fails. */
int leak_ruleset_compile_all(const struct leak_ruleset *rs, char *err,
    size_t errlen);
/* Parse user rules from YAML text into rs. */
int leak_rules_yaml_load(struct leak_ruleset *rs, const char *text, size_t len,
    const char *name, char *err, size_t errlen);

/* ---- checks on a candidate secret (check.c) ---- */

double leak_entropy(const uint8_t *p, size_t n);
/* Digits and a change of letter case every three bytes or sooner: what a
 * random token looks like, and a name (pkcs8ShroudedKeyBag) does not. */
bool leak_mixed_random(const uint8_t *s, size_t n);
/* Does s[0..n) hold w, ASCII case aside? */
bool leak_contains_nocase(const uint8_t *s, size_t n, const char *w);
/* Does rule r accept secret s[0..n) (entropy gate, shape gates,
 * allowlists, validators)?  match_start/end bound the whole regex match
 * in the same buffer, for context checks. */
bool leak_secret_ok(const struct leak_ruleset *rs, const struct leak_rule *r,
    const pcre2_code *allow, pcre2_match_data *md, pcre2_match_context *mc,
    const uint8_t *s, size_t n, const uint8_t *ctx, size_t ctxlen);

/* ---- the scan (scan.c) ---- */

/* LEAK_RF_ASSIGN's check after a name ending at p[at]: the number of
 * value bytes after an assignment (up to LEAK_ASSIGN_VALUE_CAP), or 0 if
 * no assignment follows.  A rule's regex cannot match where this is under
 * the rule's value_min. */
size_t leak_assigned_value_len(const uint8_t *p, size_t n, size_t at);

/* ---- decoding (decode.c) ---- */

/* Decode JSON string escapes and percent-encoding in p[0..n) into out
 * (reset first), with map[i] = base + the offset in p where out byte i came
 * from and map[out->len] = base + n.  Returns true if anything was
 * decoded. */
bool leak_decode_escapes(const uint8_t *p, size_t n, size_t base,
    struct axg_buf *out, uint32_t **map, size_t *mapcap);
/* The length of an escape at p[i] that can hide a token byte (\uXXXX, \/,
 * \xXX, %XX), or 0. */
size_t leak_escape_at(const uint8_t *p, size_t n, size_t i);
/* Decode base64 or base64url text p[0..n) into out (reset first); false if
 * it is not valid base64. */
bool leak_decode_base64(const uint8_t *p, size_t n, struct axg_buf *out);

#endif /* AXG_SAFETY_INT_H */
