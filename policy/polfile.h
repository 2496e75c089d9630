/*
 * polfile.h: YAML policy files (axgate-policy(5)).
 *
 * A policy file is data: the loader checks it strictly against the format,
 * canonicalises what it holds, and turns it into the document that the
 * built-in Rego rules read as data.axgate.policy.  Nothing is half-loaded:
 * on any error the loader returns NULL and every problem it found, each as
 * "FILE:LINE:COL: KEY.PATH: message".
 *
 * The document, besides the sections as written (normalised), carries an
 * "index" object the built-in rules use so that a decision never scans the
 * endpoint list:
 *   index.exact[HOST]      -> [ENTRY...]   exact host names and IP literals
 *   index.suffix[SUFFIX]   -> [ENTRY...]   "*.example.com" under "example.com"
 *   index.cidr             -> [ENTRY...]   CIDR endpoints (few, scanned)
 * where ENTRY is {"policy": NAME, "ports": [[LO, HI]...], "rules": [...]}.
 */
#ifndef AXP_POLFILE_H
#define AXP_POLFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/value.h"

/* Placeholders expanded in filesystem paths; NULL leaves them as written. */
struct axp_polfile_opts {
	const char *workspace; /* {workspace} */
	const char *tmpdir;    /* {tmpdir} */
	const char *home;      /* ~ */
};

/* Up to this many problems are reported per file. */
#define AXP_POLFILE_MAX_ERRORS 20
/* Files larger than this are refused. */
#define AXP_POLFILE_MAX_BYTES (16u << 20)

struct axp_polfile_errors {
	size_t n;
	char msg[AXP_POLFILE_MAX_ERRORS][512];
	bool truncated; /* more problems than fit */
};

/* Load a policy file.  Returns a new reference to the data.axgate.policy
 * document, or NULL with errs filled (errs->n >= 1).  rego_files, when not
 * NULL, receives a new array value of the `rego:` module paths resolved
 * against the policy file's folder (empty when there are none). */
struct axv *
axp_polfile_load(const char *path, const struct axp_polfile_opts *opts,
    struct axp_polfile_errors *errs, struct axv **rego_files);

/* The same from memory; name is used in messages and to resolve `rego:`. */
struct axv *axp_polfile_load_mem(const char *name, const char *text, size_t len,
    const struct axp_polfile_opts *opts, struct axp_polfile_errors *errs,
    struct axv **rego_files);

/* Host patterns as the format accepts them.  Canonicalise pattern into out
 * (lower case, one trailing dot dropped, IP literals normalised).  *wildcard
 * is set for "*.suffix" patterns, and out then holds the suffix without
 * "*.".  Returns 0, or -1 with the reason in why. */
int axp_host_pattern(const char *pattern, char *out, size_t outlen,
    bool *wildcard, const char **why);

#endif /* AXP_POLFILE_H */
