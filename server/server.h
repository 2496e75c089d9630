/*
 * server.h: the proxy as axgate runs it, for `axgate serve` and for the
 * proxy child of `axgate run`.
 *
 * The proxy (proxy.h) knows nothing of Rego or OCSF: it asks a decider and
 * tells an audit hook.  A gatekeeper fills both seams: it decides with the
 * current gate (gate.h) and turns every proxy record into the OCSF event
 * the audit part writes (audit.h), with the job, the policy and the rule.
 *
 * Reload: srv_gatekeeper_swap() installs a new gate.  Each connection
 * takes a reference to the gate that was current when it was accepted and
 * decides every request on it with that gate, so a reload never changes
 * the rules under a connection in flight; the old gate is freed when its
 * last connection ends.  The gatekeeper is shared by every worker thread.
 */
#ifndef AXG_SERVER_H
#define AXG_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "audit/audit.h"
#include "policy/gate.h"
#include "proxy/proxy.h"

struct srv_gatekeeper;
struct leak_ruleset;

/* g: a reference is taken.  audit may be NULL (no events).  job: when
 * not NULL, every connection belongs to this job (a per-job proxy). */
struct srv_gatekeeper *
srv_gatekeeper_new(struct gate *g, struct ocsf_writer *audit, const char *job);
void srv_gatekeeper_free(struct srv_gatekeeper *k);

/* Set the writer the events go to (NULL: none), before the first
 * connection. */
void
srv_gatekeeper_set_audit(struct srv_gatekeeper *k, struct ocsf_writer *audit);

/* The writer set (NULL: none). */
struct ocsf_writer *srv_gatekeeper_writer(struct srv_gatekeeper *k);

/* Install a new gate (a reference is taken); the old one lives on in the
 * connections that hold it. */
void srv_gatekeeper_swap(struct srv_gatekeeper *k, struct gate *g);

/* The current gate (a new reference). */
struct gate *srv_gatekeeper_gate(struct srv_gatekeeper *k);

/* The seams for px_proxy_new(). */
void srv_gatekeeper_decider(struct srv_gatekeeper *k, struct px_decider *out);
void srv_gatekeeper_audit(struct srv_gatekeeper *k, struct px_audit_hook *out);

/* Decision counts and latency, for /metrics. */
#define SRV_LATENCY_BUCKETS 12 /* upper bounds in srv_latency_bounds_ns */
extern const uint64_t srv_latency_bounds_ns[SRV_LATENCY_BUCKETS];

struct srv_decision_stats {
	uint64_t allowed[GATE_NENTRIES];
	uint64_t denied[GATE_NENTRIES];
	uint64_t errors[GATE_NENTRIES]; /* fail-closed denials */
	/* latency of gate_decide(): buckets[i] counts decisions that took
	 * at most srv_latency_bounds_ns[i]; the last one counts the rest */
	uint64_t buckets[SRV_LATENCY_BUCKETS + 1];
	uint64_t sum_ns;
	uint64_t count;
	uint64_t audit_failed; /* events the writer refused */
};

void
srv_gatekeeper_stats(struct srv_gatekeeper *k, struct srv_decision_stats *out);

/* ---- the credential scanner in the proxy (scan.c) ---- */

/* A scanner per the gate's safety section (credential_scan: block,
 * redact, log or off; rules: a YAML file of extra rules), whose findings
 * go to k's writer as Detection Findings (2004) with the job's id.  One
 * per thread.  NULL with a message when the rules do not load. */
struct srv_scan;
struct srv_scan *srv_scan_new(struct srv_gatekeeper *k, const struct gate *g,
    const char *job, char *err, size_t errlen);
/* The rules alone, compiled from a policy document (data.axgate.policy)
 * as srv_scan_new() compiles them; NULL with a message. */
struct leak_ruleset *
srv_scan_rules_new(const struct axv *doc, char *err, size_t errlen);
/* srv_scan_new() with rules compiled beforehand (for the same policy),
 * which it takes over. */
struct srv_scan *
srv_scan_new_rules(struct srv_gatekeeper *k, const struct gate *g,
    const char *job, struct leak_ruleset *rs, char *err, size_t errlen);
void srv_scan_hook(struct srv_scan *s, struct px_scan_hook *out);
void srv_scan_free(struct srv_scan *s);

/* ---- inference routing (inference.c) ---- */

/* Token budgets, shared by every worker: per job (the job id, or the
 * client's address when the proxy serves many), a sliding hour of charges
 * and the reservations of the calls in flight. */
struct srv_budget;
struct srv_budget *srv_budget_new(void);
void srv_budget_free(struct srv_budget *b);

/* The inference hook of one worker: routes by the body's model (else the
 * policy's default_provider), decides with data.axgate.inference,
 * enforces token_budget, reads the route's key (api_key_env from this
 * process's environment, or api_key_file) when a call needs it, scans the
 * prompt with scan (may be NULL; the key is ignored by it), and emits one
 * API Activity (6003) per call to k's writer.  k, b and scan are borrowed
 * and must outlive it. */
struct srv_inference;
struct srv_inference *srv_inference_new(struct srv_gatekeeper *k,
    struct srv_budget *b, struct srv_scan *scan);
void srv_inference_free(struct srv_inference *s);
void srv_inference_hook(struct srv_inference *s, struct px_inference_hook *out);
/* The key and CA files g's inference routes name (pointers into g's
 * document), at most max of them into out; returns how many. */
size_t srv_inference_files(struct gate *g, const char **out, size_t max);

/* Whether a route of g's policy reaches an https backend without a
 * ca_file of its own, so the default CA bundle must be read. */
bool srv_inference_needs_default_ca(struct gate *g);

/* For a process about to lose file access (the proxy child of `axgate
 * run`): read every route's api_key_file now into memory kept out of swap
 * and core dumps (wiped on free), and have px load every route's ca_file.
 * Later calls use the key read here; a route whose file could not be read
 * fails its calls naming the file.  Keys of files not preloaded are read
 * at each call ("when needed").  Returns the number of files that could
 * not be read (each logged by name, never by content). */
int srv_inference_preload(struct srv_inference *s, struct gate *g,
    struct px_proxy *px);

/* ---- the proxy child of `axgate run` (child.c) ---- */

struct srv_child_opts {
	struct gate *gate; /* borrowed; the child inherits it */
	int listen_fd;	   /* bound and listening */
	int audit_fd;	   /* events go here as JSON lines; -1: none */
	const char *job;   /* the job id */
	const char *user;  /* to drop to (NULL: nobody) */
	const struct px_config *px;
	int inference_fd; /* bound and listening (port 80); <= 0: none */
	/* The credential scanner's rules, compiled by the caller from the
	 * gate's document (srv_scan_rules_new()), so that the child does not
	 * compile them on its way to ready; the child takes over its copy,
	 * the caller still frees its own.  NULL: the child compiles them. */
	struct leak_ruleset *scan_rules;
};

/* Fork the proxy child: it keeps only stdio, listen_fd and audit_fd,
 * builds the proxy (the resolver reads its files then), confines itself
 * (sbx_confine_self: user, no capabilities, no_new_privs, Landlock with no
 * file access, seccomp without exec), and serves until SIGTERM or until
 * the launcher dies.  Returns its pid once it said it is ready, or -1
 * with the reason it gave (it is then reaped): the job must not start. */
pid_t
srv_proxy_child_start(const struct srv_child_opts *o, char *err, size_t errlen);

/* The same in two halves, so that the launcher can prepare the job while
 * the child gets ready: srv_proxy_child_fork() returns the child's pid and
 * the read end of its readiness pipe in *ready_fd (or -1 with a message);
 * srv_proxy_child_ready() waits for the child's word, closes ready_fd, and
 * returns 0, or -1 with the reason after killing and reaping the child. */
pid_t srv_proxy_child_fork(const struct srv_child_opts *o, int *ready_fd,
    char *err, size_t errlen);
int srv_proxy_child_ready(pid_t pid, int ready_fd, char *err, size_t errlen);

/* A thread that reads the child's JSON lines from fd until end of file
 * and hands each to ocsf_emit_line(). */
struct srv_relay;
struct srv_relay *
srv_relay_start(int fd, struct ocsf_writer *w, char *err, size_t errlen);
/* Wait for end of file (the child has exited) and free. */
void srv_relay_stop(struct srv_relay *r);

/* ------------------------------------------------------------------ */
/* axgate serve: its configuration (config.c) and the daemon (daemon.c) */
/* ------------------------------------------------------------------ */

#include <sys/socket.h>

#define SRV_MAX_LISTENERS	    16
#define SRV_MAX_WORKERS		    64
#define SRV_ADDR_MAX		    80 /* "[v6]:port" as text */
#define SRV_MAX_INFERENCE_LISTENERS 4

struct srv_listen {
	struct sockaddr_storage addr;
	char text[SRV_ADDR_MAX];
};

/* What axgate.yaml (axgate.yaml(5)) and the command line set.  Strings are
 * owned by the config; srv_config_clear() frees them. */
struct srv_config {
	char *policy; /* YAML policy file; NULL: none given */
	struct srv_listen listeners[SRV_MAX_LISTENERS];
	size_t nlisteners; /* 0: 127.0.0.1:3128 */
	/* listeners that serve origin-form inference.local requests only
	 * (the address a job's hosts file gives inference.local) */
	struct srv_listen inference_listeners[SRV_MAX_INFERENCE_LISTENERS];
	size_t ninference_listeners;
	struct ocsf_config audit; /* sinks, overflow, queue_size, fsync */
	struct px_config limits;  /* every limit of the proxy */
	struct srv_listen admin;
	bool admin_set;		   /* the admin listener is on */
	char *user;		   /* to drop to when started as root */
	unsigned workers;	   /* 0: one per CPU */
	unsigned drain_timeout_ms; /* after SIGTERM */
};

void srv_config_init(struct srv_config *c);
void srv_config_clear(struct srv_config *c);

/* Read an axgate.yaml into c (over what is already there).  Every problem
 * is "FILE:LINE:COL: key.path: message"; the first one is written to err. */
int srv_config_load(struct srv_config *c, const char *path, char *err,
    size_t errlen);

/* "ADDR:PORT", "[V6]:PORT" or, when bare_loopback, a bare "PORT" meaning
 * 127.0.0.1:PORT.  Numeric addresses only. */
int srv_parse_addr(const char *s, bool bare_loopback, struct srv_listen *out,
    char *err, size_t errlen);

/* Run the daemon until SIGTERM or SIGINT: load the policy, open the audit
 * sinks, bind, confine the process, serve.  Returns the exit status. */
int srv_serve(const struct srv_config *c);

#endif /* AXG_SERVER_H */
