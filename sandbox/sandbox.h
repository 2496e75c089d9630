/*
 * sandbox.h: a job's process confinement.
 *
 * sbx_run() starts a command in its own mount, PID and IPC namespaces
 * (joining a network namespace the caller already built, if any), under a
 * small init that reaps orphans and forwards signals, as an unprivileged
 * user with no capabilities and no_new_privs, confined by a Landlock ruleset
 * built from the filesystem grants and by a seccomp deny list, with a
 * cleared environment that points HTTP(S)_PROXY at the proxy.  It waits for
 * the job and returns its exit status.
 *
 * Every step fails closed: if one cannot be applied (a kernel feature is
 * missing, a grant path does not exist, a limit cannot be enforced) the job
 * never runs and the message names what is missing and how to fix it.
 *
 * The caller must be root (it creates namespaces and switches users).
 * Nothing here creates network devices: the network namespace is built by
 * netns/ and handed over as an fd.
 *
 * Ownership: the spec and everything it points to stay the caller's; the
 * library copies what it needs before sbx_spawn() returns.  A job from
 * sbx_spawn() is freed with sbx_job_free() after sbx_wait().
 */
#ifndef AXG_SANDBOX_H
#define AXG_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit statuses reserved for the launcher's own failures (never the job's:
 * sbx_result says which it was). */
enum {
	SBX_EXIT_INTERNAL = 250, /* launcher bug or resource exhaustion */
	SBX_EXIT_REFUSED = 251,	 /* spec refused before anything started */
	SBX_EXIT_SETUP = 252,	 /* a confinement step failed in the child */
	SBX_EXIT_EXEC = 253,	 /* the command could not be executed */
};

/* Lowest Landlock ABI the sandbox runs with (FS_TRUNCATE: a complete
 * read-only guarantee). */
#define SBX_LANDLOCK_ABI_MIN 3

enum sbx_access {
	SBX_READ_ONLY = 1,  /* read, list and execute */
	SBX_READ_WRITE = 2, /* everything Landlock can grant */
	SBX_DENY = 3,	    /* hidden: an empty mount over the path */
};

struct sbx_grant {
	const char *path; /* absolute; must exist and contain no symlink */
	enum sbx_access access;
};

struct sbx_spec {
	/* The command: argv[0] is looked up in the job's PATH (or
	 * /usr/bin:/bin) unless it contains a slash. */
	char *const *argv;

	/* Environment: names copied from envp (NULL: the caller's environ)
	 * when listed in env_allow (a trailing '*' matches a prefix), then
	 * the "NAME=VALUE" strings of env_set.  Both NULL-terminated or NULL.
	 * Everything else is dropped. */
	char *const *envp;
	const char *const *env_allow;
	const char *const *env_set;

	/* The proxy: when proxy_addr is set, HTTP_PROXY, HTTPS_PROXY,
	 * http_proxy, https_proxy point at http://addr:port and NO_PROXY /
	 * no_proxy get no_proxy (default "localhost,127.0.0.1,::1").  A
	 * non-zero proxy_port is also the only TCP port Landlock lets the
	 * job connect to (ABI 4 and later); with none, no TCP connect is
	 * allowed at all. */
	const char *proxy_addr;
	uint16_t proxy_port;
	const char *no_proxy;
	/* A second TCP port of the proxy the job may connect to (the
	 * inference port, 80); 0: none.  Ignored in block mode. */
	uint16_t inference_port;
	/* A file bound read-only over /etc/hosts in the job's mount
	 * namespace (it maps inference.local to the proxy); NULL: none.
	 * It must be readable by the job's user. */
	const char *hosts_file;

	/* Block mode: no AF_INET/AF_INET6 sockets at all, and no TCP
	 * connect through Landlock. */
	bool block_network;

	/* An open network namespace fd to join, or -1 to stay in the
	 * caller's (tests and benchmarks only: the launcher always passes
	 * one or sets netns_new). */
	int netns_fd;
	/* Or a network namespace of the job's own, made by the clone that
	 * makes its PID and mount namespaces, with IPv6 disabled and lo up
	 * and nothing else (block mode): the kernel destroys it with the
	 * job's last process. */
	bool netns_new;
	/* Or, when set, called by sbx_spawn() once the spec is checked and
	 * the sandbox prepared, right before the clone: returns the network
	 * namespace fd to join (instead of netns_fd), or -1 with a message in
	 * err, and then nothing starts (SBX_EXIT_SETUP).  Lets the caller
	 * build the namespace on another thread meanwhile.  The environment
	 * is built after it returns: it may fill in what proxy_addr points
	 * to. */
	int (*netns_get)(void *arg, char *err, size_t errlen);
	void *netns_get_arg;

	/* The job's working directory, granted read-write (it must be
	 * writable by the job's user: the sandbox does not chown it).
	 * NULL: "/" with no workspace grant. */
	const char *workspace;
	/* Extra filesystem grants.  Landlock rights add up: a path inside
	 * two grants gets both (a read-only grant inside the workspace is
	 * still writable); a deny grant hides the path whatever else is
	 * granted.  A small system set is always granted
	 * read-only: /usr /bin /sbin /lib* /etc /opt /proc, plus read-write
	 * /dev/{null,zero,full,random,urandom} and a private /tmp. */
	const struct sbx_grant *grants;
	size_t n_grants;
	/* Directories hidden under an empty tmpfs: /home, /root, /run and
	 * $HOME always; these are extra.  NULL-terminated or NULL. */
	const char *const *hide;

	/* The user the job runs as: a name from the passwd database, or
	 * "UID" or "UID:GID".  NULL means "nobody".  Root is refused. */
	const char *user;

	/* Limits; 0 means unset. */
	uint32_t max_processes;	   /* a pids group, else RLIMIT_NPROC */
	uint32_t max_memory_mb;	   /* a memory group, else refused */
	uint32_t cpu_rate_percent; /* a cpu group (of one CPU), else refused */
	uint32_t max_open_files;   /* RLIMIT_NOFILE */
	uint32_t max_file_size_mb; /* RLIMIT_FSIZE */
	uint32_t cpu_time_sec;	   /* RLIMIT_CPU */
	uint32_t timeout_sec;	   /* wall clock: SIGTERM, then SIGKILL */
	uint32_t kill_grace_ms;	   /* after the SIGTERM (default 5000) */
	uint32_t timeout_ms;	   /* finer timeout; wins over timeout_sec */
	/* For a caller about to exit: sbx_wait() returns once the init has
	 * reported the job's status (it kills and reaps every other process
	 * of the namespace first), without waiting for the init's own exit,
	 * the kernel's teardown of the namespaces (0.2-0.3 ms), unless there
	 * are cgroups to remove after it; sbx_job_free() reaps it if it is
	 * over.  An init still exiting when the caller exits is reparented,
	 * and reaped by the new parent. */
	bool reap_later;

	/* The job's stdin, stdout, stderr; -1 inherits the caller's. */
	int stdio[3];

	/* Called by sbx_spawn() while the sandbox is being set up; the job
	 * waits, fully confined, right before its execve until it returns
	 * (the launcher waits here for the proxy to be ready, in parallel
	 * with the set-up).  Returns 0, or -1 with a message in err: the job
	 * is then killed before it runs and sbx_spawn() returns
	 * SBX_EXIT_SETUP.  NULL: the job execs as soon as it is confined. */
	int (*before_exec)(void *arg, char *err, size_t errlen);
	void *before_exec_arg;

	/* Test only: pretend the kernel's Landlock ABI is at most this
	 * (0: no override).  It can only lower the ABI, never raise it. */
	int test_landlock_abi;
};

/* Why a run ended. */
struct sbx_result {
	int status;	 /* what a launcher exits with: exit code, 128+signal,
			    or an SBX_EXIT_* code if launched is false */
	bool launched;	 /* the command was exec'd */
	int exit_code;	 /* -1 if killed by a signal */
	int term_signal; /* 0 if exited */
	bool timed_out;	 /* the timeout fired */
	bool seccomp_killed; /* SIGSYS: a seccomp KILL rule fired */
	bool oom_killed;     /* a task was killed at max_memory_mb */
	int landlock_abi;    /* the ABI the ruleset was built for */
	pid_t job_pid;	     /* the init's pid in the caller's namespace */
	/* Why the sandbox's init gave up after the job started (confining
	 * itself failed: its end took the job down), or "". */
	char init_error[256];
};

struct sbx_job;

/* Fill a spec with the defaults (no netns, inherited stdio, nobody). */
void sbx_spec_init(struct sbx_spec *spec);

/* Start the job (the caller must not ignore SIGCHLD).  Returns 0 and *jobp once
 * the command has been exec'd, or an SBX_EXIT_* code with a message in err when
 * it was refused or a setup step failed (then nothing runs and nothing is left
 * behind). SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGWINCH stay
 * blocked in the calling thread until sbx_job_free().  The job dies with
 * the calling thread (PR_SET_PDEATHSIG), so call it from the thread that
 * lives as long as the job. */
int sbx_spawn(const struct sbx_spec *spec, struct sbx_job **jobp, char *err,
    size_t errlen);

/* Wait for the job, forwarding the signals above to it and enforcing the
 * timeout.  Fills res and returns res->status. */
int sbx_wait(struct sbx_job *job, struct sbx_result *res);

/* The init's pid (in the caller's PID namespace). */
pid_t sbx_job_pid(const struct sbx_job *job);

/* Free a job.  If it is still running it is killed and reaped. */
void sbx_job_free(struct sbx_job *job);

/* sbx_spawn() + sbx_wait() + sbx_job_free().  Returns res->status; on a
 * launch failure res->launched is false and err holds the reason. */
int sbx_run(const struct sbx_spec *spec, struct sbx_result *res, char *err,
    size_t errlen);

/* The kernel's Landlock ABI version: > 0, or -1 with a message saying why
 * Landlock is unavailable. */
int sbx_landlock_abi(char *err, size_t errlen);

/* Confine the calling process for good (the proxy does this before it
 * reads a byte from a job): when root, become user (NULL: "nobody") with
 * no supplementary groups and an empty capability bounding set; clear
 * every capability; set no_new_privs; a Landlock ruleset that allows no
 * file access beyond read_paths (read) and write_paths (read, write,
 * create, remove), and, on ABI 6 and later, no abstract unix sockets or
 * signals outside; and the job's seccomp deny list, plus execve and
 * execveat when no_exec.  Fails closed: on -1 the caller must exit. */
struct sbx_self {
	const char *user;
	const char *const *read_paths;	/* NULL-terminated, or NULL */
	const char *const *write_paths; /* NULL-terminated, or NULL */
	bool no_exec;
};

int sbx_confine_self(const struct sbx_self *s, char *err, size_t errlen);

#endif /* AXG_SANDBOX_H */
