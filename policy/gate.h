/*
 * gate.h: an axgate policy, loaded and compiled, ready to decide.
 *
 * A gate is what the proxy and the launcher hold: a YAML policy file (as
 * data.axgate.policy, see polfile.h), the built-in Rego rules compiled into
 * this program (the files of policy/builtin, packages axgate and
 * axgate.builtin), and the Rego modules the file names under `rego:`, all
 * compiled into one immutable policy with the entry points prepared as queries.
 *
 * Loading is all or nothing: a gate is returned only when the file loaded
 * and every module compiled; otherwise every problem is reported, each as
 * "FILE:LINE:COL: message".
 *
 * A gate is reference-counted and immutable, so it can be shared by every
 * thread: a connection takes a reference when it starts and keeps deciding
 * with that gate even when a reload swaps in a new one.
 *
 * Decisions fail closed: an entry point that is undefined, that is not an
 * object with a boolean "allow", or whose evaluation fails, denies, and the
 * reason says which.
 */
#ifndef AXG_GATE_H
#define AXG_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/polfile.h"
#include "policy/value.h"

enum gate_entry {
	GATE_CONNECT = 0, /* data.axgate.connect */
	GATE_ADDRESS,	  /* data.axgate.address */
	GATE_HTTP,	  /* data.axgate.http */
	GATE_INFERENCE,	  /* data.axgate.inference */
	GATE_NENTRIES
};

/* "connect", "address", ... */
const char *gate_entry_name(enum gate_entry e);
/* GATE_NENTRIES when name is not an entry point. */
enum gate_entry gate_entry_parse(const char *name);

struct gate_decision {
	bool allow;
	char rule[128];	  /* the policy group (or rule) that decided */
	char reason[512]; /* for people: why */
};

/* The modules compiled into this program. */
struct gate_module {
	const char *name; /* "builtin/axgate.rego" */
	const char *text;
};
extern const struct gate_module gate_builtin_modules[];
extern const size_t gate_builtin_nmodules;

struct gate;

/* Load and compile a policy file; NULL with errs filled. */
struct gate *gate_load(const char *path, const struct axp_polfile_opts *opts,
    struct axp_polfile_errors *errs);

/* The same, with more modules compiled in (`axgate policy test -p`
 * compiles the test modules with the policy). */
struct gate *gate_load_extra(const char *path,
    const struct axp_polfile_opts *opts, const struct gate_module *extra,
    size_t nextra, struct axp_polfile_errors *errs);

/* The same from YAML text in memory; name stands for the file in
 * messages, and `rego:` paths are resolved against its folder. */
struct gate *gate_load_mem(const char *name, const char *yaml, size_t len,
    const struct axp_polfile_opts *opts, struct axp_polfile_errors *errs);

struct gate *gate_ref(struct gate *g); /* NULL-safe */
void gate_unref(struct gate *g);       /* NULL-safe */

/* The policy's name (`name:` in the file), its network mode ("proxy",
 * "block" or "allow"), a digest of everything compiled (the first 16 hex
 * digits of a SHA-256), and the file it came from. */
const char *gate_name(const struct gate *g);
const char *gate_mode(const struct gate *g);
const char *gate_digest(const struct gate *g);
const char *gate_source(const struct gate *g);

/* data.axgate.policy (borrowed): the launcher reads filesystem, process
 * and inference settings from it. */
const struct axv *gate_document(const struct gate *g);

/* The input document of a decision: the contract between the proxy and
 * policy authors (axgate-policy(5) writes it down).  Strings may be NULL
 * (omitted); port 0 is omitted. */
struct gate_header {
	const char *name; /* as received; the input lower-cases it */
	size_t name_len;
	const char *value;
	size_t value_len;
};

struct gate_request {
	enum gate_entry entry; /* sets input.kind */
	const char *host;      /* canonical host name or IP literal */
	unsigned port;
	const char *client_addr; /* the job's address */
	const char *job;	 /* the job id */
	const char *addr;	 /* address: the resolved address */
	const char *addr_class;	 /* address: "public", "loopback", ...
				    as the proxy classified it */
	const char *scheme;	 /* http: "http" */
	const char *method;	 /* http */
	const char *path;	 /* http: the path, without the query */
	const char *query;	 /* http: after '?', without it */
	const struct gate_header *headers; /* http */
	size_t nheaders;
	const char *sni;   /* connect: the ClientHello's server name */
	const char *route; /* inference */
	const char *model; /* inference */
	long long tokens;  /* inference: estimated; < 0 omitted */
};

/* A new input document for r. */
struct axv *gate_input(const struct gate_request *r);

/* Decide: input is borrowed.  Always fills out; returns 0 when the policy
 * answered, -1 when the decision is a fail-closed deny because the policy
 * could not (out->reason says why). */
int gate_decide(const struct gate *g, enum gate_entry e, struct axv *input,
    struct gate_decision *out);

/* Evaluate any query against the compiled policy (for `axgate policy eval`
 * and the OPA Data API).  input may be NULL.  *result receives a new
 * reference to an array of solutions, each {"expressions": [...],
 * "bindings": {...}}; -1 with err filled on a bad query or an evaluation
 * error. */
int gate_query(const struct gate *g, const char *query, struct axv *input,
    struct axv **result, char *err, size_t errlen);

/* The value of one document (e.g. "data.axgate.connect" given as
 * "axgate/connect" path segments joined by '/'), or NULL when undefined;
 * -1 with err filled on an evaluation error.  For the Data API. */
int gate_data(const struct gate *g, const char *path, struct axv *input,
    struct axv **value, char *err, size_t errlen);

/* The compiled policy (borrowed), for callers that prepare their own
 * queries. */
struct axp_policy *gate_policy(const struct gate *g);

#endif /* AXG_GATE_H */
