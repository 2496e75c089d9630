/* child.c: the sandbox's side of clone(), up to execve().
 *
 * sbx_child_init() runs as pid 1 of the job's new PID namespace, in a new
 * mount and IPC namespace.  It joins the network namespace, builds the
 * mount view, mounts a fresh /proc, forks the job and then stays as its
 * init: it reaps orphans, relays the signals the launcher forwards, and
 * reports the job's wait status.  The job applies the rest in the order of
 * the launcher notes, seccomp last, and execs.
 *
 * Only system calls from here on: the parent prepared everything, and the
 * process may have been cloned from a multi-threaded one, so no malloc and
 * no glibc set*id() (which would signal threads that do not exist here). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/landlock-abi.h"
#include "sandbox/sandbox-int.h"

#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static const struct sbx_plan *P;
/* Where fail() reports: the error pipe until the job's exec, then the
 * init's own pipe (init_confine()). */
static int fail_fd = -1;

/* The job's stack from its clone to its execve (job_main()). */
#define JOB_STACK (128 * 1024)

static void fail(int code, int e, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* Report a failed step to the parent and exit with its code. */
static void
fail(int code, int e, const char *fmt, ...)
{
	struct sbx_msg m;
	va_list ap;
	size_t n;

	memset(&m, 0, sizeof(m));
	m.code = code;
	m.err = e;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	n = strlen(m.text);
	if (e != 0 && n < sizeof(m.text))
		snprintf(m.text + n, sizeof(m.text) - n, ": %s", strerror(e));
	if (write(fail_fd, &m, sizeof(m)) < 0) {
		/* nothing more to do: the exit code still says it */
	}
	_exit(code);
}

/* mkdir -p inside a tmpfs we own; the last component is a directory or,
 * for a file bind target, an empty file. */
static void
make_target(const char *path, bool is_dir)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		fail(SBX_EXIT_SETUP, ENAMETOOLONG, "bind target %.200s", path);
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (i == n && !is_dir) {
			int fd =
			    open(buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

			if (fd == -1 && errno != EEXIST)
				fail(SBX_EXIT_SETUP, errno,
				    "creating bind target %.200s", buf);
			if (fd != -1)
				close(fd);
		} else if (mkdir(buf, 0755) == -1 && errno != EEXIST) {
			fail(SBX_EXIT_SETUP, errno,
			    "creating bind target %.200s", buf);
		}
		if (i < n)
			buf[i] = '/';
	}
}

/* Open the bind sources in our own mount namespace, refusing any that is
 * not the inode the parent validated. */
static void
open_bind_sources(int *fds)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	if (P->n_mounts > SBX_MOUNTS_MAX)
		fail(SBX_EXIT_SETUP, E2BIG, "too many mounts");
	for (size_t i = 0; i < P->n_mounts; i++) {
		const struct sbx_mount *m = &P->mounts[i];
		struct stat st;

		fds[i] = -1;
		if (m->kind != SBX_M_BIND)
			continue;
		fds[i] = (int)syscall(__NR_openat2, AT_FDCWD, m->target, &how,
		    sizeof(how));
		if (fds[i] == -1)
			fail(SBX_EXIT_SETUP, errno, "opening %.200s",
			    m->target);
		if (fstat(fds[i], &st) == -1 || st.st_dev != m->dev ||
		    st.st_ino != m->ino)
			fail(SBX_EXIT_SETUP, 0,
			    "%.200s changed after it was checked", m->target);
	}
}

/* The network namespace the clone made (block mode): IPv6 off before lo
 * comes up (no ::1), then lo up.  /proc/sys/net is this namespace's. */
static void
net_lo_only(void)
{
	static const char *const v6[] = {
		"/proc/sys/net/ipv6/conf/all/disable_ipv6",
		"/proc/sys/net/ipv6/conf/default/disable_ipv6",
	};
	struct ifreq ifr;
	int fd;

	/* No IPv6 in this kernel: nothing to disable. */
	for (size_t i = 0; i < 2 && access("/proc/sys/net/ipv6", F_OK) == 0;
	     i++) {
		fd = open(v6[i], O_WRONLY | O_CLOEXEC);
		if (fd == -1 || write(fd, "1", 1) != 1)
			fail(SBX_EXIT_SETUP, errno,
			    "disabling IPv6 in the job's network namespace "
			    "(%s)",
			    v6[i]);
		close(fd);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (fd == -1 || ioctl(fd, SIOCGIFFLAGS, &ifr) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "reading lo's flags in the job's network namespace");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "bringing lo up in the job's network namespace");
	close(fd);
}

static void
do_mounts(void)
{
	const unsigned long hard = MS_NOSUID | MS_NODEV;
	int fds[SBX_MOUNTS_MAX];
	char src[64];

	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "mount namespace: making / private");
	open_bind_sources(fds);
	for (size_t i = 0; i < P->n_mounts; i++) {
		const struct sbx_mount *m = &P->mounts[i];

		switch (m->kind) {
		case SBX_M_HIDE:
			if (mount("tmpfs", m->target, "tmpfs", hard | MS_NOEXEC,
				"mode=0755,size=1m,nr_inodes=4096") == -1)
				fail(SBX_EXIT_SETUP, errno, "hiding %.200s",
				    m->target);
			break;
		case SBX_M_TMP:
			if (mount("tmpfs", m->target, "tmpfs", hard,
				"mode=1777") == -1)
				fail(SBX_EXIT_SETUP, errno,
				    "mounting a private %.200s", m->target);
			break;
		case SBX_M_BIND:
			make_target(m->target, m->is_dir);
			snprintf(src, sizeof(src), "/proc/self/fd/%d", fds[i]);
			if (mount(src, m->target, NULL, MS_BIND | MS_REC,
				NULL) == -1)
				fail(SBX_EXIT_SETUP, errno,
				    "binding %.200s back", m->target);
			if (m->read_only &&
			    mount(NULL, m->target, NULL,
				MS_REMOUNT | MS_BIND | MS_RDONLY | hard,
				NULL) == -1)
				fail(SBX_EXIT_SETUP, errno,
				    "making %.200s read-only", m->target);
			close(fds[i]);
			break;
		case SBX_M_DENY_DIR:
			if (mount("tmpfs", m->target, "tmpfs",
				hard | MS_NOEXEC | MS_RDONLY,
				"mode=0000,size=4k,nr_inodes=1") == -1)
				fail(SBX_EXIT_SETUP, errno, "denying %.200s",
				    m->target);
			break;
		case SBX_M_HOSTS:
			if (mount(m->source, m->target, NULL, MS_BIND, NULL) ==
				-1 ||
			    mount(NULL, m->target, NULL,
				MS_REMOUNT | MS_BIND | MS_RDONLY | hard,
				NULL) == -1)
				fail(SBX_EXIT_SETUP, errno,
				    "binding the hosts file over %.200s",
				    m->target);
			break;
		case SBX_M_DENY_FILE:
			if (mount("/dev/null", m->target, NULL, MS_BIND,
				NULL) == -1)
				fail(SBX_EXIT_SETUP, errno, "denying %.200s",
				    m->target);
			break;
		}
	}
	if (mount("proc", "/proc", "proc", hard | MS_NOEXEC,
		"hidepid=invisible") == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "mounting a fresh /proc for the PID namespace");
}

/* Rules for what the child mounted itself: /proc and /tmp. */
static void
landlock_own_mounts(void)
{
	static const char *const paths[] = { "/proc", "/tmp" };

	for (int i = 0; i < 2; i++) {
		struct sbx_landlock_path_beneath_attr pb;
		int fd = open(paths[i], O_PATH | O_CLOEXEC | O_DIRECTORY);

		if (fd == -1)
			fail(SBX_EXIT_SETUP, errno, "Landlock: opening %s",
			    paths[i]);
		pb.allowed_access = i == 0 ? P->ll_ro_dir : P->ll_rw_dir;
		pb.parent_fd = fd;
		if (syscall(__NR_landlock_add_rule, P->ruleset_fd,
			SBX_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1)
			fail(SBX_EXIT_SETUP, errno, "Landlock rule for %s",
			    paths[i]);
		close(fd);
	}
}

static void
setup_stdio(void)
{
	int tmp[3];

	for (int i = 0; i < 3; i++) {
		tmp[i] = -1;
		if (P->stdio[i] >= 0 && P->stdio[i] != i) {
			tmp[i] = fcntl(P->stdio[i], F_DUPFD_CLOEXEC, 10);
			if (tmp[i] == -1)
				fail(SBX_EXIT_SETUP, errno, "stdio fd %d",
				    P->stdio[i]);
		}
	}
	for (int i = 0; i < 3; i++)
		if (tmp[i] != -1 && dup2(tmp[i], i) == -1)
			fail(SBX_EXIT_SETUP, errno, "stdio fd %d", i);
}

static void
drop_privileges(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2];

	for (int c = 0; c <= P->cap_last_cap; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1)
			fail(SBX_EXIT_SETUP, errno,
			    "dropping capability %d from the bounding set", c);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "clearing ambient capabilities");
	/* setuid() below must clear the capabilities, and no exec may give
	 * them back to uid 0 or through ambient raising. */
	if (prctl(PR_SET_SECUREBITS,
		SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
		    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
		    SECBIT_NO_CAP_AMBIENT_RAISE |
		    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
		0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "locking the securebits");
	if (syscall(SYS_setgroups, 0, NULL) == -1)
		fail(SBX_EXIT_SETUP, errno, "dropping supplementary groups");
	if (syscall(SYS_setresgid, P->gid, P->gid, P->gid) == -1)
		fail(SBX_EXIT_SETUP, errno, "switching to gid %u",
		    (unsigned)P->gid);
	if (syscall(SYS_setresuid, P->uid, P->uid, P->uid) == -1)
		fail(SBX_EXIT_SETUP, errno, "switching to uid %u",
		    (unsigned)P->uid);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1)
		fail(SBX_EXIT_SETUP, errno, "clearing capabilities");
	if (syscall(SYS_capget, &hdr, data) == -1 || data[0].effective ||
	    data[0].permitted || data[0].inheritable || data[1].effective ||
	    data[1].permitted || data[1].inheritable)
		fail(SBX_EXIT_SETUP, 0,
		    "capabilities still held after the "
		    "drop");
	if (getuid() == 0 || geteuid() == 0 || getgid() == 0)
		fail(SBX_EXIT_SETUP, 0, "still root after the switch");
}

static void job_exec(void) __attribute__((noreturn));

static void
job_exec(void)
{
	sigset_t none;

	sigemptyset(&none);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		fail(SBX_EXIT_SETUP, errno, "unblocking signals");
	setup_stdio();
	if (setsid() == -1)
		fail(SBX_EXIT_SETUP, errno, "setsid");
	for (size_t i = 0; i < P->n_rlimits; i++)
		if (setrlimit(P->rlimits[i].resource, &P->rlimits[i].rl) == -1)
			fail(SBX_EXIT_SETUP, errno, "setting rlimit %d",
			    P->rlimits[i].resource);
	if (P->workspace_fd != -1) {
		if (P->workspace_bound ? chdir(P->workspace) == -1
				       : fchdir(P->workspace_fd) == -1)
			fail(SBX_EXIT_SETUP, errno,
			    "entering the workspace %.200s", P->workspace);
	} else if (chdir("/") == -1) {
		fail(SBX_EXIT_SETUP, errno, "chdir /");
	}
	drop_privileges();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "setting no_new_privs");
	/* After the uid change, which clears the death signal. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "setting the parent-death signal");
	if (getppid() != 1)
		fail(SBX_EXIT_SETUP, 0, "the sandbox init is gone");
	if (syscall(__NR_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "close_range: closing inherited descriptors");
	if (syscall(__NR_landlock_restrict_self, P->ruleset_fd,
		P->ll_restrict_flags) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "Landlock: restrict_self (Landlock must be enabled: "
		    "'landlock' in the kernel's lsm= list)");
	for (int i = 0; i < 2; i++)
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
			&P->filters[i]) == -1)
			fail(SBX_EXIT_SETUP, errno,
			    "seccomp: loading filter %d (the kernel must "
			    "have CONFIG_SECCOMP_FILTER)",
			    i + 1);
	if (P->go_r >= 0) {
		char go;
		ssize_t n;

		do
			n = read(P->go_r, &go, 1);
		while (n == -1 && errno == EINTR);
		if (n != 1)
			fail(SBX_EXIT_SETUP, 0,
			    "the launcher did not release the job");
	}
	execve(P->path, P->argv, P->envp);
	fail(SBX_EXIT_EXEC, errno, "executing %.200s", P->path);
}

/* The init's seccomp filter: the handful of calls its loop makes (all
 * through syscall(), so no library wrapper adds any), and death for
 * anything else, other architectures and the x32 ABI included. */
#if defined(__x86_64__)
#define INIT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define INIT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the sandbox init's seccomp filter needs this architecture's AUDIT_ARCH"
#endif
#define INIT_ALLOW(nr)                                                         \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                       \
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static void
init_seccomp(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, INIT_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		INIT_ALLOW(__NR_rt_sigtimedwait),
		INIT_ALLOW(__NR_wait4),
		INIT_ALLOW(__NR_kill),
		INIT_ALLOW(__NR_write),
		INIT_ALLOW(__NR_close),
		INIT_ALLOW(__NR_exit_group),
		INIT_ALLOW(__NR_exit),
		INIT_ALLOW(__NR_rt_sigreturn),
		INIT_ALLOW(__NR_restart_syscall),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = (unsigned short)(sizeof(f) /
				       sizeof(f[0])),
		.filter = f };

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "seccomp: loading the init's filter (the kernel must "
		    "have CONFIG_SECCOMP_FILTER)");
}

/* After the fork of the job, the init keeps only what relaying and
 * reaping need: the status pipe; the job's user with no capabilities,
 * not dumpable (the job, the same user, can neither trace it nor read its
 * /proc files), no_new_privs and a filter of its few system calls.  The
 * kernel already keeps signals from inside the namespace that the init
 * does not wait for from reaching it. */
static void
init_confine(void)
{
	struct pollfd pfd = { .fd = P->sync_r, .events = POLLIN };
	int keep[2] = { P->status_w < P->init_err_w ? P->status_w
						    : P->init_err_w,
		P->status_w < P->init_err_w ? P->init_err_w : P->status_w };
	unsigned lo = 3;

	drop_privileges();
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "making the init not dumpable");
	/* The uid change cleared the death signal: arm it again, then make
	 * sure the launcher did not die before it was. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "setting the parent-death signal");
	if (poll(&pfd, 1, 0) != 0)
		fail(SBX_EXIT_SETUP, 0, "the launcher is gone");
	/* Everything but the status pipe and, until the end, the init's
	 * error pipe. */
	for (int i = 0; i < 2; i++) {
		if ((unsigned)keep[i] > lo &&
		    syscall(__NR_close_range, lo, (unsigned)keep[i] - 1, 0U) ==
			-1)
			fail(SBX_EXIT_SETUP, errno,
			    "close_range: closing inherited descriptors in the "
			    "init");
		lo = (unsigned)keep[i] + 1;
	}
	if (syscall(__NR_close_range, lo, ~0U, 0U) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "close_range: closing inherited descriptors in the init");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "setting no_new_privs in the init");
	init_seccomp();
	syscall(SYS_close, P->init_err_w);
}

/* The job has exited: every other process of the namespace goes with it,
 * and is reaped, before the launcher hears of its end (the init's exit
 * would kill them too, but the launcher need not wait for that exit: the
 * rest of it is the kernel's teardown of the namespaces).  The init has
 * the job's uid, as every process in there does. */
static void
reap_all(void)
{
	int st;

	syscall(SYS_kill, -1, SIGKILL);
	for (;;) {
		long p = syscall(SYS_wait4, -1, &st, __WALL, NULL);

		if (p < 0 && errno != EINTR)
			return; /* ECHILD: none left */
	}
}

/* The PID namespace's init: relay signals, reap, report.  Raw system
 * calls only: its seccomp filter allows nothing else. */
static void init_loop(pid_t job) __attribute__((noreturn));

static void
init_loop(pid_t job)
{
	sigset_t set;
	int status_w = P->status_w;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGWINCH);
	init_confine();
	for (;;) {
		siginfo_t si;
		long sig = syscall(SYS_rt_sigtimedwait, &set, &si, NULL,
		    (size_t)(_NSIG / 8));

		if (sig == -1)
			continue;
		if (sig != SIGCHLD) {
			syscall(SYS_kill, job, (int)sig);
			continue;
		}
		for (;;) {
			int st;
			long p = syscall(SYS_wait4, -1, &st, WNOHANG, NULL);

			if (p <= 0)
				break;
			if (p == job) {
				reap_all();
				if (syscall(SYS_write, status_w, &st,
					sizeof(st)) < 0) {
					/* the parent is gone: so are we */
				}
				syscall(SYS_exit_group, 0);
			}
		}
	}
}

/* clone()'s entry: the job, in the init's memory until its execve.  It
 * never returns, and writes nothing the init reads after: its own stack,
 * and errno (the init's thread-local storage, unused by it until then). */
static int
job_main(void *arg)
{
	(void)arg;
	job_exec();
}

void
sbx_child_init(const struct sbx_plan *plan)
{
	void *stack;
	sigset_t chld;
	char go;
	pid_t job;

	P = plan;
	fail_fd = P->err_w;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		fail(SBX_EXIT_SETUP, errno, "setting the parent-death signal");
	/* The parent writes one byte when it is ready; EOF means it died
	 * before the death signal was armed. */
	if (read(P->sync_r, &go, 1) != 1)
		_exit(SBX_EXIT_SETUP);
	if (P->netns_fd >= 0 && setns(P->netns_fd, CLONE_NEWNET) == -1)
		fail(SBX_EXIT_SETUP, errno,
		    "joining the job's network namespace");
	if (P->netns_new)
		net_lo_only();
	do_mounts();
	landlock_own_mounts();
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL) == -1)
		fail(SBX_EXIT_SETUP, errno, "blocking SIGCHLD");
	/* The job shares the init's memory until its execve, on a stack of
	 * its own, and the init waits for that: nothing of the launcher's
	 * address space is copied for it, or torn down by its exec. */
	stack = mmap(NULL, JOB_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		fail(SBX_EXIT_SETUP, errno, "a stack for the job's start");
	job = clone(job_main, (char *)stack + JOB_STACK,
	    CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (job == -1)
		fail(SBX_EXIT_SETUP, errno, "forking the job");
	/* The job has exec'd (or failed, and said why): the launcher learns
	 * it from the error pipe's EOF without waiting for the init to
	 * confine itself, whose failures go to a pipe of their own. */
	syscall(SYS_close, P->err_w);
	fail_fd = P->init_err_w;
	munmap(stack, JOB_STACK);
	init_loop(job);
}
