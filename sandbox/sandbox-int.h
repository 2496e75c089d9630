/*
 * sandbox-int.h: what the files of sandbox/ share.
 *
 * The parent prepares everything in a struct sbx_plan (paths opened, the
 * Landlock ruleset built, the seccomp programs compiled, the environment
 * built, the mount list computed) so that the child only issues system
 * calls: no allocation and no locks between clone() and execve().
 */
#ifndef AXG_SANDBOX_INT_H
#define AXG_SANDBOX_INT_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox/sandbox.h"

#define SBX_MAX_RLIMITS 8
#define SBX_MOUNTS_MAX	128 /* hidden trees, binds and denies together */

enum sbx_mount_kind {
	SBX_M_HIDE,	 /* empty tmpfs over a directory */
	SBX_M_TMP,	 /* a private, writable /tmp */
	SBX_M_BIND,	 /* bind a pre-opened path back into a hidden tree */
	SBX_M_DENY_DIR,	 /* empty read-only tmpfs over a directory */
	SBX_M_DENY_FILE, /* /dev/null over a file */
	SBX_M_HOSTS,	 /* spec->hosts_file over /etc/hosts, read-only */
};

struct sbx_mount {
	enum sbx_mount_kind kind;
	char *target; /* absolute path */
	dev_t dev;    /* SBX_M_BIND: the inode the parent validated */
	ino_t ino;
	bool is_dir;	/* SBX_M_BIND: the source is a directory */
	bool read_only; /* SBX_M_BIND: remount read-only */
	char *source;	/* SBX_M_HOSTS: the file bound */
};

struct sbx_plan {
	/* what to execute */
	char *path;
	char **argv;
	char **envp;

	uid_t uid;
	gid_t gid;
	int cap_last_cap;

	int stdio[3];
	int netns_fd;
	int workspace_fd;      /* O_PATH, or -1 */
	const char *workspace; /* its path (the spec's) */
	bool workspace_bound;  /* bind-mounted back at that path */

	/* Landlock: the ruleset (built in the parent, minus the rules for
	 * the mounts the child makes), and the rights for those. */
	int ruleset_fd;
	int landlock_abi;
	uint64_t ll_ro_dir;
	uint64_t ll_rw_dir;
	uint32_t ll_restrict_flags; /* ABI 7: audit the job's denials */

	/* seccomp: the libseccomp deny list and the raw guard filter */
	struct sock_fprog filters[2];

	struct sbx_mount *mounts;
	size_t n_mounts;

	struct {
		int resource;
		struct rlimit rl;
	} rlimits[SBX_MAX_RLIMITS];
	size_t n_rlimits;
	/* The parent's only: the job's cgroups (cgroup.c), or NULL. */
	struct sbx_cgroups *cgroups;

	/* pipes to the parent (child ends) */
	int err_w;    /* struct sbx_msg on failure; CLOEXEC so exec closes it */
	int status_w; /* the init writes the job's wait status here */
	int sync_r;   /* the parent writes one byte to start; EOF = it died */
	int go_r;     /* the job reads one byte before its execve; or -1 */
};

/* What the child writes on the error pipe. */
struct sbx_msg {
	int code; /* SBX_EXIT_SETUP or SBX_EXIT_EXEC */
	int err;  /* errno */
	char text[480];
};

/* ---- child.c: never returns ---- */
void sbx_child_init(const struct sbx_plan *plan) __attribute__((noreturn));

/* ---- env.c ---- */
/* A new NULL-terminated environment; free with sbx_strv_free(). */
char **sbx_env_build(const struct sbx_spec *spec, char *err, size_t errlen);
const char *sbx_env_get(char *const *envp, const char *name);
void sbx_strv_free(char **v);
char **sbx_strv_dup(char *const *v);
/* Find argv0 in PATH (NULL: /usr/bin:/bin); a new string. */
char *
sbx_find_exec(const char *argv0, const char *path, char *err, size_t errlen);

/* ---- user.c ---- */
int sbx_user_resolve(const char *user, uid_t *uid, gid_t *gid, char *err,
    size_t errlen);

/* ---- landlock.c ---- */
/* Build the ruleset for plan->landlock_abi from the spec's grants; fills
 * plan->ruleset_fd and the rights the child uses.  grant_fds[i] is the
 * O_PATH fd of spec->grants[i] (or -1 for SBX_DENY). */
int sbx_landlock_build(const struct sbx_spec *spec, const int *grant_fds,
    struct sbx_plan *plan, char *err, size_t errlen);
/* Open a grant path: O_PATH, refusing any symlink on the way. */
int sbx_open_grant(const char *path, bool *is_dir, char *err, size_t errlen);

/* ---- seccomp.c ---- */
int sbx_seccomp_build(const struct sbx_spec *spec, struct sock_fprog out[2],
    char *err, size_t errlen);
void sbx_seccomp_free(struct sock_fprog out[2]);

/* ---- cgroup.c ---- */
/* Is w one of the comma-separated names in list (n bytes)? */
bool sbx_in_list(const char *list, size_t n, const char *w);
/* Is w one of the space-separated names in list (cgroup.controllers)? */
bool sbx_in_list_ws(const char *list, size_t n, const char *w);
/* The job's cgroups for the spec's process limits: *out NULL when it asks
 * for none that a cgroup enforces (or only max_processes, and no pids
 * group can be made: RLIMIT_NPROC then).  -1 with err when a memory or
 * CPU-rate limit cannot be set up; nothing is left behind. */
struct sbx_cgroups;
int sbx_cg_create(const struct sbx_spec *spec, struct sbx_cgroups **out,
    char *err, size_t errlen);
/* Make the cgroup v2 group grp (the hierarchy's root if root) hand the
 * controller ctl down to its children, as it offers it: the launcher and
 * the children it forked move into a leaf of their own first,
 * axgate-<pid>-launcher (cgroup v2 hands controllers down only from a
 * group without processes).  -1 with why when it cannot. */
int sbx_cg_delegate(const char *grp, bool root, const char *ctl, char *why,
    size_t whylen);
/* Is max_processes enforced by a pids group? */
bool sbx_cg_pids(const struct sbx_cgroups *cg);
/* How many of the job's tasks the kernel killed at its memory limit. */
unsigned long sbx_cg_oom_kills(const struct sbx_cgroups *cg);
/* Move pid (the init, before it forks) into each of the job's groups. */
int sbx_cg_attach(const struct sbx_cgroups *cg, pid_t pid, char *err,
    size_t errlen);
/* Remove the groups once their tasks are gone, and free cg (NULL: no-op). */
void sbx_cg_remove(struct sbx_cgroups *cg);

/* ---- limits.c ---- */
/* The rlimits; RLIMIT_NPROC only when max_processes has no pids group. */
void sbx_limits_build(const struct sbx_spec *spec, struct sbx_plan *plan);

/* ---- mounts.c ---- */
int sbx_mounts_build(const struct sbx_spec *spec, const int *grant_fds,
    const bool *grant_dir, struct sbx_plan *plan, char *err, size_t errlen);
void sbx_mounts_free(struct sbx_plan *plan);
/* Absolute, no "//", "/./", "/../", no trailing slash. */
bool sbx_path_clean(const char *p);

#endif /* AXG_SANDBOX_INT_H */
