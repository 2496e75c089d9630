/* spawn.c: prepare the plan, clone the sandbox, supervise the job. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

#define SBX_GRANTS_MAX	  256
#define SBX_ARGV_MAX	  4096
#define SBX_GRACE_DFLT_MS 5000

struct sbx_job {
	pid_t pid;	/* the init */
	int status_r;	/* the init's report */
	int init_err_r; /* its own failure, after the job started */
	int sync_w;	/* held open: its EOF tells the init we died */
	int sigfd;
	sigset_t oldmask;
	bool reaped;
	bool reap_later; /* spec->reap_later */
	bool left;	 /* sbx_wait() left the init's exit to the kernel */
	int landlock_abi;
	uint64_t timeout_ms;
	uint32_t grace_ms;
	struct sbx_cgroups *cgroups; /* the job's cgroups, or NULL */
};

void
sbx_spec_init(struct sbx_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->netns_fd = -1;
	spec->stdio[0] = spec->stdio[1] = spec->stdio[2] = -1;
}

static void
fwd_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGWINCH);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int
read_cap_last_cap(char *err, size_t errlen)
{
	char *s = axg_read_file("/proc/sys/kernel/cap_last_cap", 64, NULL, err,
	    errlen);
	uint64_t v;
	int rc;

	if (s == NULL)
		return -1;
	s[strcspn(s, "\n")] = '\0';
	rc = axg_parse_u64(s, 1, 63, &v);
	free(s);
	if (rc == -1)
		return axg_seterr(err, errlen, "cap_last_cap: bad value");
	return (int)v;
}

/* The job's environment and the program it runs (found in the job's
 * PATH). */
static int
prepare_env(const struct sbx_spec *spec, struct sbx_plan *plan, char *err,
    size_t errlen)
{
	plan->envp = sbx_env_build(spec, err, errlen);
	if (plan->envp == NULL)
		return -1;
	plan->path = sbx_find_exec(spec->argv[0],
	    sbx_env_get(plan->envp, "PATH"), err, errlen);
	return plan->path == NULL ? -1 : 0;
}

/* Everything up to the clone: refusals happen here. */
static int
prepare(const struct sbx_spec *spec, struct sbx_plan *plan, int *grant_fds,
    bool *grant_dir, char *err, size_t errlen)
{
	size_t argc = 0;
	bool dir;

	if (spec->argv == NULL || spec->argv[0] == NULL)
		return axg_seterr(err, errlen, "no command given");
	while (spec->argv[argc] != NULL)
		if (++argc > SBX_ARGV_MAX)
			return axg_seterr(err, errlen, "more than %d arguments",
			    SBX_ARGV_MAX);
	if (spec->n_grants > SBX_GRANTS_MAX)
		return axg_seterr(err, errlen, "more than %d grants",
		    SBX_GRANTS_MAX);
	if (sbx_user_resolve(spec->user, &plan->uid, &plan->gid, err, errlen) ==
	    -1)
		return -1;
	plan->landlock_abi = sbx_landlock_abi(err, errlen);
	if (plan->landlock_abi == -1)
		return -1;
	if (spec->test_landlock_abi > 0 &&
	    spec->test_landlock_abi < plan->landlock_abi)
		plan->landlock_abi = spec->test_landlock_abi;
	if (plan->landlock_abi < SBX_LANDLOCK_ABI_MIN)
		return axg_seterr(err, errlen,
		    "the kernel's Landlock ABI is %d, below the %d this "
		    "sandbox needs for a complete read-only guarantee: use "
		    "Linux 6.2 or later",
		    plan->landlock_abi, SBX_LANDLOCK_ABI_MIN);
	if (sbx_cg_create(spec, &plan->cgroups, err, errlen) == -1)
		return -1;
	sbx_limits_build(spec, plan);
	plan->cap_last_cap = read_cap_last_cap(err, errlen);
	if (plan->cap_last_cap == -1)
		return -1;
	/* With netns_get, the environment waits for the proxy's address
	 * (prepare_env()). */
	if (spec->netns_get == NULL && prepare_env(spec, plan, err, errlen) < 0)
		return -1;
	plan->argv = sbx_strv_dup(spec->argv);
	if (spec->workspace != NULL) {
		plan->workspace_fd =
		    sbx_open_grant(spec->workspace, &dir, err, errlen);
		if (plan->workspace_fd == -1)
			return -1;
		if (!dir || strcmp(spec->workspace, "/") == 0)
			return axg_seterr(err, errlen,
			    "workspace %s is not a directory other than /",
			    spec->workspace);
		plan->workspace = spec->workspace;
	}
	for (size_t i = 0; i < spec->n_grants; i++) {
		const struct sbx_grant *g = &spec->grants[i];
		char e2[256];

		if (g->access != SBX_READ_ONLY && g->access != SBX_READ_WRITE &&
		    g->access != SBX_DENY)
			return axg_seterr(err, errlen,
			    "grant %s: unknown access %d", g->path,
			    (int)g->access);
		grant_fds[i] =
		    sbx_open_grant(g->path, &grant_dir[i], e2, sizeof(e2));
		if (grant_fds[i] == -1) {
			/* Denying what does not exist is already true. */
			if (g->access == SBX_DENY && errno == ENOENT)
				continue;
			return axg_seterr(err, errlen, "%s", e2);
		}
	}
	if (sbx_landlock_build(spec, grant_fds, plan, err, errlen) == -1)
		return -1;
	if (sbx_seccomp_build(spec, plan->filters, err, errlen) == -1)
		return -1;
	if (sbx_mounts_build(spec, grant_fds, grant_dir, plan, err, errlen) ==
	    -1)
		return -1;
	for (int i = 0; i < 3; i++)
		plan->stdio[i] = spec->stdio[i];
	plan->netns_fd = spec->netns_fd;
	plan->netns_new = spec->netns_new;
	if (spec->netns_new && (spec->netns_fd >= 0 || spec->netns_get))
		return axg_seterr(err, errlen,
		    "a new network namespace and one to join: pick one");
	return 0;
}

static void
plan_free(struct sbx_plan *plan)
{
	free(plan->path);
	sbx_strv_free(plan->argv);
	sbx_strv_free(plan->envp);
	close_fd(&plan->workspace_fd);
	close_fd(&plan->ruleset_fd);
	sbx_seccomp_free(plan->filters);
	sbx_mounts_free(plan);
	sbx_cg_remove(plan->cgroups);
	plan->cgroups = NULL;
	close_fd(&plan->err_w);
	close_fd(&plan->status_w);
	close_fd(&plan->init_err_w);
	close_fd(&plan->sync_r);
	close_fd(&plan->go_r);
}

/* How to fix a confinement step the kernel refused, by its errno. */
static const char *
step_hint(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return " (the kernel refused it: run the launcher as root with "
		       "all capabilities, not under a seccomp filter or LSM "
		       "profile that denies this call; the job was not "
		       "started)";
	case ENOSYS:
	case EINVAL:
	case EOPNOTSUPP:
		return " (the kernel lacks what this step needs: a kernel "
		       "built with the feature named above is required; the "
		       "job was not started)";
	default:
		return " (the job was not started)";
	}
}

/* Read the child's error message, if any: 1 with a message, 0 on EOF
 * (the command was exec'd). */
static int
read_msg(int fd, struct sbx_msg *m)
{
	size_t got = 0;

	while (got < sizeof(*m)) {
		ssize_t n = read(fd, (char *)m + got, sizeof(*m) - got);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == sizeof(*m)) {
		m->text[sizeof(m->text) - 1] = '\0';
		return 1;
	}
	return 0;
}

static void
reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) == -1 && errno == EINTR)
		;
}

int
sbx_spawn(const struct sbx_spec *spec, struct sbx_job **jobp, char *err,
    size_t errlen)
{
	struct sbx_plan plan;
	int grant_fds[SBX_GRANTS_MAX];
	bool grant_dir[SBX_GRANTS_MAX];
	int errp[2] = { -1, -1 }, statp[2] = { -1, -1 }, syncp[2] = { -1, -1 };
	int initp[2] = { -1, -1 };
	int gop[2] = { -1, -1 };
	struct sbx_job *job = NULL;
	struct sbx_msg msg;
	sigset_t set;
	int rc = SBX_EXIT_REFUSED, st;
	pid_t pid;

	*jobp = NULL;
	memset(&plan, 0, sizeof(plan));
	plan.workspace_fd = plan.ruleset_fd = plan.netns_fd = -1;
	plan.err_w = plan.status_w = plan.sync_r = plan.go_r = -1;
	plan.init_err_w = -1;
	for (size_t i = 0; i < SBX_GRANTS_MAX; i++)
		grant_fds[i] = -1;
	if (geteuid() != 0) {
		axg_seterr(err, errlen,
		    "the sandbox needs root (namespaces, user switch): run "
		    "the launcher as root");
		goto out;
	}
	{
		struct sigaction sa;

		/* An ignored SIGCHLD reaps the init behind our back and
		 * loses the job's status. */
		if (sigaction(SIGCHLD, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN) {
			axg_seterr(err, errlen,
			    "SIGCHLD is ignored in the launcher: restore its "
			    "default action before starting a job");
			goto out;
		}
	}
	if (prepare(spec, &plan, grant_fds, grant_dir, err, errlen) == -1)
		goto out;
	if (spec->netns_get != NULL) {
		plan.netns_fd =
		    spec->netns_get(spec->netns_get_arg, err, errlen);
		if (plan.netns_fd < 0) {
			plan.netns_fd = -1;
			rc = SBX_EXIT_SETUP;
			goto out;
		}
		if (prepare_env(spec, &plan, err, errlen) < 0)
			goto out;
	}

	rc = SBX_EXIT_INTERNAL;
	if (pipe2(errp, O_CLOEXEC) == -1 || pipe2(statp, O_CLOEXEC) == -1 ||
	    pipe2(syncp, O_CLOEXEC) == -1 || pipe2(initp, O_CLOEXEC) == -1) {
		axg_seterr(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	if (spec->before_exec != NULL && pipe2(gop, O_CLOEXEC) == -1) {
		axg_seterr(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	plan.err_w = errp[1];
	plan.status_w = statp[1];
	plan.init_err_w = initp[1];
	plan.sync_r = syncp[0];
	plan.go_r = gop[0];

	job = axg_calloc(1, sizeof(*job));
	job->pid = -1;
	job->sigfd = -1;
	job->status_r = statp[0];
	statp[0] = -1;
	job->init_err_r = initp[0];
	initp[0] = -1;
	job->sync_w = syncp[1];
	syncp[1] = -1;
	job->landlock_abi = plan.landlock_abi;
	job->reap_later = spec->reap_later;
	job->grace_ms =
	    spec->kill_grace_ms ? spec->kill_grace_ms : SBX_GRACE_DFLT_MS;
	job->timeout_ms = spec->timeout_ms ? spec->timeout_ms
					   : (uint64_t)spec->timeout_sec * 1000;
	/* Forwarded signals are taken through a signalfd from now on. */
	fwd_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, &job->oldmask) == -1) {
		axg_seterr(err, errlen, "sigprocmask: %s", strerror(errno));
		goto out;
	}
	job->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (job->sigfd == -1) {
		axg_seterr(err, errlen, "signalfd: %s", strerror(errno));
		goto out;
	}

	pid = (pid_t)syscall(SYS_clone,
	    CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC |
		(plan.netns_new ? CLONE_NEWNET : 0) | SIGCHLD,
	    NULL, NULL, NULL, NULL);
	if (pid == -1) {
		rc = SBX_EXIT_SETUP;
		int e = errno;

		axg_seterr(err, errlen,
		    "creating the job's namespaces (PID, mount, IPC%s): %s%s",
		    plan.netns_new ? ", network" : "", strerror(e),
		    e != EINVAL ? step_hint(e)
			: plan.netns_new
			? " (the kernel lacks one of them: enable "
			  "CONFIG_PID_NS, "
			  "CONFIG_IPC_NS and CONFIG_NET_NS; the job was not "
			  "started)"
			: " (the kernel lacks one of them: enable "
			  "CONFIG_PID_NS "
			  "and CONFIG_IPC_NS; the job was not started)");
		goto out;
	}
	if (pid == 0) {
		close(errp[0]);
		sbx_child_init(&plan);
	}
	job->pid = pid;
	close_fd(&plan.err_w);
	close_fd(&plan.status_w);
	close_fd(&plan.init_err_w);
	close_fd(&plan.sync_r);
	/* into its cgroups while it waits for the byte below, before it
	 * can fork */
	job->cgroups = plan.cgroups;
	plan.cgroups = NULL;
	if (sbx_cg_attach(job->cgroups, pid, err, errlen) == -1) {
		rc = SBX_EXIT_SETUP;
		goto out;
	}
	if (write(job->sync_w, "g", 1) != 1) {
		axg_seterr(err, errlen, "starting the job: %s",
		    strerror(errno));
		goto out;
	}
	if (spec->before_exec != NULL) {
		/* The job sets itself up meanwhile, and waits for this. */
		if (spec->before_exec(spec->before_exec_arg, err, errlen) ==
		    -1) {
			rc = SBX_EXIT_SETUP;
			goto out;
		}
		/* plan.go_r is still open here: no SIGPIPE if the job is
		 * already gone (its failure is read below). */
		if (write(gop[1], "x", 1) != 1) {
			axg_seterr(err, errlen, "releasing the job: %s",
			    strerror(errno));
			goto out;
		}
		close_fd(&gop[1]);
		close_fd(&plan.go_r);
	}
	if (read_msg(errp[0], &msg) == 1) {
		/* A step failed: nothing was exec'd.  Take the init down. */
		axg_seterr(err, errlen, "%s%s", msg.text,
		    msg.code == SBX_EXIT_EXEC ? "" : step_hint(msg.err));
		rc = msg.code == SBX_EXIT_EXEC ? SBX_EXIT_EXEC : SBX_EXIT_SETUP;
		goto out;
	}
	*jobp = job;
	job = NULL;
	rc = 0;
out:
	if (job != NULL) {
		if (job->pid > 0) {
			kill(job->pid, SIGKILL);
			reap(job->pid, &st);
			job->reaped = true;
		}
		sbx_job_free(job);
	}
	close_fd(&errp[0]);
	close_fd(&statp[0]);
	close_fd(&initp[0]);
	close_fd(&syncp[1]);
	close_fd(&gop[1]);
	for (size_t i = 0; i < spec->n_grants && i < SBX_GRANTS_MAX; i++)
		close_fd(&grant_fds[i]);
	plan_free(&plan);
	return rc;
}

pid_t
sbx_job_pid(const struct sbx_job *job)
{
	return job->pid;
}

static void
forward(struct sbx_job *job)
{
	struct signalfd_siginfo si;

	while (read(job->sigfd, &si, sizeof(si)) == sizeof(si))
		kill(job->pid, (int)si.ssi_signo);
}

int
sbx_wait(struct sbx_job *job, struct sbx_result *res)
{
	uint64_t start = axg_monotonic_ns() / 1000000, deadline = 0;
	int phase = 0; /* 0 running, 1 SIGTERM sent, 2 SIGKILL sent */
	int jst = 0, ist = 0;
	bool got = false;

	memset(res, 0, sizeof(*res));
	res->launched = true;
	res->landlock_abi = job->landlock_abi;
	res->job_pid = job->pid;
	if (job->timeout_ms != 0)
		deadline = start + job->timeout_ms;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = job->status_r, .events = POLLIN },
			{ .fd = job->sigfd, .events = POLLIN },
		};
		int tmo = -1, n;

		if (deadline != 0) {
			uint64_t now = axg_monotonic_ns() / 1000000;

			if (now >= deadline) {
				if (phase == 0) {
					res->timed_out = true;
					kill(job->pid, SIGTERM);
					phase = 1;
					deadline = now + job->grace_ms;
				} else {
					kill(job->pid, SIGKILL);
					phase = 2;
					deadline = 0;
				}
				continue;
			}
			tmo = (int)(deadline - now);
		}
		n = poll(pfd, 2, tmo);
		if (n == -1 && errno != EINTR) {
			/* Cannot supervise any more: never leave it running. */
			kill(job->pid, SIGKILL);
			break;
		}
		if (n <= 0)
			continue;
		if (pfd[1].revents & POLLIN)
			forward(job);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = read(job->status_r, &jst, sizeof(jst));

			got = r == sizeof(jst);
			break;
		}
	}
	/* The init reported the job's status once nothing else was left in
	 * its namespace: what is left of its exit is the kernel's.  Groups
	 * to remove must wait for it. */
	if (got && job->reap_later && job->cgroups == NULL) {
		job->left = true;
		goto status;
	}
	reap(job->pid, &ist);
	job->reaped = true;
	res->oom_killed = sbx_cg_oom_kills(job->cgroups) > 0;
	if (!got) {
		struct sbx_msg msg;

		/* the init itself died: SIGKILL at the timeout, or a failure
		 * to confine itself, which it says */
		jst = ist;
		if (read_msg(job->init_err_r, &msg) == 1)
			axg_strlcpy(res->init_error, msg.text,
			    sizeof(res->init_error));
	}
status:
	if (WIFEXITED(jst)) {
		res->exit_code = WEXITSTATUS(jst);
		res->status = res->exit_code;
	} else if (WIFSIGNALED(jst)) {
		res->exit_code = -1;
		res->term_signal = WTERMSIG(jst);
		res->status = 128 + res->term_signal;
		res->seccomp_killed = res->term_signal == SIGSYS;
	} else {
		res->status = SBX_EXIT_INTERNAL;
	}
	return res->status;
}

void
sbx_job_free(struct sbx_job *job)
{
	int st;

	if (job == NULL)
		return;
	if (job->left) {
		/* Reaped here if its exit is over, else by whoever inherits
		 * it when the caller exits. */
		(void)waitpid(job->pid, &st, WNOHANG);
	} else if (job->pid > 0 && !job->reaped) {
		kill(job->pid, SIGKILL);
		reap(job->pid, &st);
	}
	if (job->sigfd >= 0) {
		struct signalfd_siginfo si;

		/* Consume what is pending before unblocking. */
		while (read(job->sigfd, &si, sizeof(si)) == sizeof(si))
			;
		close(job->sigfd);
		sigprocmask(SIG_SETMASK, &job->oldmask, NULL);
	}
	close_fd(&job->status_r);
	close_fd(&job->init_err_r);
	close_fd(&job->sync_w);
	/* the init is reaped: the groups are empty or about to be */
	sbx_cg_remove(job->cgroups);
	free(job);
}

int
sbx_run(const struct sbx_spec *spec, struct sbx_result *res, char *err,
    size_t errlen)
{
	struct sbx_job *job = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = sbx_spawn(spec, &job, err, errlen);
	if (rc != 0) {
		res->status = rc;
		res->exit_code = -1;
		return rc;
	}
	rc = sbx_wait(job, res);
	sbx_job_free(job);
	return rc;
}
