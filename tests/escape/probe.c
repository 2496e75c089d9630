/*
 * probe: perform one action from inside a sandbox and print the result.
 *
 *   probe ACTION [ARGS]
 *
 * Prints one line: "OK" when the action succeeded, or the errno's name
 * (EPERM, EACCES, ENOSYS...) when it failed; a few actions print data
 * instead (fds, env, uid, status, pid, fork-bomb, spin).  Exits 0 unless the
 * action is about exit statuses.  Built without sanitizers and without
 * the library, so what runs in the sandbox is only this.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

static int
report(long rc)
{
	if (rc < 0) {
		const char *n = strerrorname_np(errno);

		printf("%s\n", n ? n : "E?");
	} else {
		printf("OK\n");
	}
	fflush(stdout);
	return 0;
}

static int
num(const char *s)
{
	return (int)strtol(s, NULL, 0);
}

static int
do_socket(const char *kind)
{
	static const struct {
		const char *name;
		int fam, type, proto;
	} t[] = {
		{ "inet", AF_INET, SOCK_STREAM, 0 },
		{ "inet6", AF_INET6, SOCK_STREAM, 0 },
		{ "udp", AF_INET, SOCK_DGRAM, 0 },
		{ "unix", AF_UNIX, SOCK_STREAM, 0 },
		{ "raw", AF_INET, SOCK_RAW, IPPROTO_ICMP },
		{ "raw6", AF_INET6, SOCK_RAW, IPPROTO_ICMPV6 },
		{ "sockpacket", AF_INET, SOCK_PACKET, 0 },
		{ "packet", AF_PACKET, SOCK_RAW, 0 },
		{ "vsock", 40, SOCK_STREAM, 0 },
		{ "alg", 38, SOCK_SEQPACKET, 0 },
		{ "key", 15, SOCK_RAW, 2 },
		{ "xdp", 44, SOCK_RAW, 0 },
		{ "bluetooth", 31, SOCK_STREAM, 0 },
		{ "netlink-route", AF_NETLINK, SOCK_RAW, 0 },
		{ "netlink-audit", AF_NETLINK, SOCK_RAW, 9 },
		{ "netlink-netfilter", AF_NETLINK, SOCK_RAW, 12 },
		{ "netlink-uevent", AF_NETLINK, SOCK_RAW, 15 },
		{ "sctp", AF_INET, SOCK_STREAM, 132 },
		{ "mptcp", AF_INET, SOCK_STREAM, 262 },
		{ "ping", AF_INET, SOCK_DGRAM, IPPROTO_ICMP },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(kind, t[i].name) == 0)
			return report(socket(t[i].fam, t[i].type, t[i].proto));
	fprintf(stderr, "probe: unknown socket kind %s\n", kind);
	return 2;
}

static int
do_connect(const char *addr, const char *port, int type)
{
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	int fd;

	memset(&s4, 0, sizeof(s4));
	memset(&s6, 0, sizeof(s6));
	if (inet_pton(AF_INET, addr, &s4.sin_addr) == 1) {
		s4.sin_family = AF_INET;
		s4.sin_port = htons((uint16_t)num(port));
		fd = socket(AF_INET, type, 0);
		if (fd == -1)
			return report(-1);
		return report(connect(fd, (struct sockaddr *)&s4, sizeof(s4)));
	}
	if (inet_pton(AF_INET6, addr, &s6.sin6_addr) == 1) {
		s6.sin6_family = AF_INET6;
		s6.sin6_port = htons((uint16_t)num(port));
		fd = socket(AF_INET6, type, 0);
		if (fd == -1)
			return report(-1);
		return report(connect(fd, (struct sockaddr *)&s6, sizeof(s6)));
	}
	fprintf(stderr, "probe: bad address %s\n", addr);
	return 2;
}

static int
do_abstract(const char *name)
{
	struct sockaddr_un sa;
	size_t n = strlen(name);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd == -1)
		return report(-1);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (n > sizeof(sa.sun_path) - 2)
		n = sizeof(sa.sun_path) - 2;
	memcpy(sa.sun_path + 1, name, n);
	return report(connect(fd, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)));
}

static int
do_unshare(const char *what)
{
	int f = strcmp(what, "user") == 0 ? CLONE_NEWUSER
	    : strcmp(what, "net") == 0	  ? CLONE_NEWNET
	    : strcmp(what, "ns") == 0	  ? CLONE_NEWNS
	    : strcmp(what, "pid") == 0	  ? CLONE_NEWPID
					  : 0;

	return report(unshare(f));
}

static int
do_clone(const char *what)
{
	long f = strcmp(what, "user") == 0 ? CLONE_NEWUSER : CLONE_NEWNET;
	long pid = syscall(SYS_clone, f | SIGCHLD, NULL, NULL, NULL, NULL);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return report(pid);
}

static int
do_clone3(void)
{
	uint64_t args[11];

	memset(args, 0, sizeof(args));
	args[4] = SIGCHLD; /* exit_signal */
	long pid = syscall(435, args, sizeof(args));

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return report(pid);
}

static int
do_ptrace_attach(void)
{
	pid_t c = fork();
	long rc;

	if (c == 0) {
		pause();
		_exit(0);
	}
	rc = ptrace(PTRACE_ATTACH, c, NULL, NULL);
	report(rc);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	return 0;
}

static int
do_vm_readv(void)
{
	char buf[8], src[8] = "secret";
	struct iovec l = { buf, sizeof(buf) }, r = { src, sizeof(src) };

	return report(
	    syscall(SYS_process_vm_readv, getppid(), &l, 1, &r, 1, 0));
}

static int
do_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self, first = 1;
	int fds[256], n = 0;

	if (d == NULL)
		return report(-1);
	self = dirfd(d);
	while ((e = readdir(d)) != NULL && n < 256) {
		if (e->d_name[0] == '.')
			continue;
		if (num(e->d_name) != self)
			fds[n++] = num(e->d_name);
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (fds[j] < fds[i]) {
				int t = fds[i];
				fds[i] = fds[j];
				fds[j] = t;
			}
	for (int i = 0; i < n; i++) {
		printf("%s%d", first ? "" : " ", fds[i]);
		first = 0;
	}
	printf("\n");
	return 0;
}

static int
do_status(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	if (f == NULL)
		return report(-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Cap", 3) == 0 ||
		    strncmp(line, "NoNewPrivs", 10) == 0 ||
		    strncmp(line, "Seccomp", 7) == 0)
			fputs(line, stdout);
	fclose(f);
	return 0;
}

static int
do_fork_bomb(int max)
{
	pid_t kids[4096];
	int n = 0, e = 0;

	if (max > 4096)
		max = 4096;
	while (n < max) {
		pid_t p = fork();

		if (p == 0) {
			pause();
			_exit(0);
		}
		if (p == -1) {
			e = errno;
			break;
		}
		kids[n++] = p;
	}
	printf("forked=%d %s\n", n, e ? strerrorname_np(e) : "OK");
	fflush(stdout);
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	return 0;
}

/* The lines of /proc/PID/status that say how privileged it is, on one
 * line: "Uid=... CapEff=... CapPrm=... CapBnd=... NoNewPrivs=... Seccomp=...",
 * or the errno's name. */
static int
do_proc_status(const char *pid)
{
	static const char *const keys[] = { "Uid", "CapEff", "CapPrm", "CapBnd",
		"NoNewPrivs", "Seccomp" };
	char path[64], line[256];
	FILE *f;
	bool first = true;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return report(-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *v = strchr(line, ':');

		if (v == NULL)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		v[strcspn(v, "\t\n")] = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(line, keys[i]) == 0) {
				printf("%s%s=%s", first ? "" : " ", line, v);
				first = false;
			}
	}
	fclose(f);
	printf("\n");
	return 0;
}

/* Attach to another process of the job (the init: pid 1). */
static int
do_ptrace_pid(const char *pid)
{
	long rc = ptrace(PTRACE_ATTACH, (pid_t)num(pid), NULL, NULL);

	if (rc == 0)
		ptrace(PTRACE_DETACH, (pid_t)num(pid), NULL, NULL);
	return report(rc);
}

/* List another process's descriptors: "OK" when the directory can be
 * read at all. */
static int
do_list_fds(const char *pid)
{
	char path[64];
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (d == NULL)
		return report(-1);
	errno = 0;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return report(n > 0 ? 0 : -1);
}

static void
on_term(int sig)
{
	(void)sig;
	_exit(42);
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int
do_int80(void)
{
#if defined(__x86_64__)
	long ret;

	/* i386 getpid */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	return report(ret < 0 ? (errno = (int)-ret, -1) : 0);
#else
	errno = ENOSYS;
	return report(-1);
#endif
}

int
main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "";
	const char *x = argc > 2 ? argv[2] : "";
	const char *y = argc > 3 ? argv[3] : "";
	char buf[64];
	int fd;

	if (strcmp(a, "socket") == 0)
		return do_socket(x);
	if (strcmp(a, "connect") == 0)
		return do_connect(x, y, SOCK_STREAM);
	if (strcmp(a, "udp") == 0) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };

		s4.sin_port = htons((uint16_t)num(y));
		inet_pton(AF_INET, x, &s4.sin_addr);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd == -1)
			return report(-1);
		return report(
		    sendto(fd, "x", 1, 0, (struct sockaddr *)&s4, sizeof(s4)));
	}
	if (strcmp(a, "abstract") == 0)
		return do_abstract(x);
	if (strcmp(a, "unshare") == 0)
		return do_unshare(x);
	if (strcmp(a, "clone") == 0)
		return do_clone(x);
	if (strcmp(a, "clone3") == 0)
		return do_clone3();
	if (strcmp(a, "setns") == 0) {
		fd = open("/proc/self/ns/net", O_RDONLY);
		return report(fd == -1 ? -1 : setns(fd, 0));
	}
	if (strcmp(a, "ptrace") == 0)
		return report(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
	if (strcmp(a, "ptrace-attach") == 0)
		return do_ptrace_attach();
	if (strcmp(a, "vm-readv") == 0)
		return do_vm_readv();
	if (strcmp(a, "io_uring") == 0) {
		char params[120];

		memset(params, 0, sizeof(params));
		return report(syscall(425, 1, params));
	}
	if (strcmp(a, "bpf") == 0) {
		char attr[128];

		memset(attr, 0, sizeof(attr));
		return report(
		    syscall(SYS_bpf, 5 /* PROG_LOAD */, attr, sizeof(attr)));
	}
	if (strcmp(a, "perf") == 0) {
		char attr[128];

		memset(attr, 0, sizeof(attr));
		return report(syscall(SYS_perf_event_open, attr, 0, -1, -1, 0));
	}
	if (strcmp(a, "userfaultfd") == 0)
		return report(syscall(SYS_userfaultfd, 0));
	if (strcmp(a, "keyctl") == 0)
		return report(syscall(SYS_keyctl, KEYCTL_READ,
		    KEY_SPEC_USER_KEYRING, buf, sizeof(buf)));
	if (strcmp(a, "add_key") == 0)
		return report(syscall(SYS_add_key, "user", "k", "v", 1,
		    KEY_SPEC_SESSION_KEYRING));
	if (strcmp(a, "mount") == 0)
		return report(
		    syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL));
	if (strcmp(a, "chroot") == 0)
		return report(chroot("/tmp"));
	if (strcmp(a, "pivot_root") == 0)
		return report(syscall(SYS_pivot_root, "/tmp", "/tmp"));
	if (strcmp(a, "fsopen") == 0)
		return report(syscall(430, "tmpfs", 0));
	if (strcmp(a, "open_tree") == 0)
		return report(syscall(428, AT_FDCWD, "/", 0));
	if (strcmp(a, "tiocsti") == 0) {
		char c = 'x';

		return report(ioctl(0, TIOCSTI, &c));
	}
	if (strcmp(a, "tiocsti-high") == 0) {
		char c = 'x';

		return report(
		    syscall(SYS_ioctl, 0, 0x100000000UL | TIOCSTI, &c));
	}
	if (strcmp(a, "personality") == 0)
		return report(personality(ADDR_NO_RANDOMIZE));
	if (strcmp(a, "personality-query") == 0)
		return report(personality(0xffffffff));
	if (strcmp(a, "modify_ldt") == 0)
		return report(syscall(SYS_modify_ldt, 0, buf, sizeof(buf)));
	if (strcmp(a, "kcmp") == 0)
		return report(syscall(SYS_kcmp, getpid(), getppid(), 0, 0, 0));
	if (strcmp(a, "syscall") == 0)
		return report(syscall(num(x), 0, 0, 0, 0, 0));
	if (strcmp(a, "x32") == 0)
		return report(syscall(0x40000000L | SYS_getpid));
	if (strcmp(a, "int80") == 0)
		return do_int80();
	if (strcmp(a, "alloc") == 0) {
		/* x MiB, every page touched: "OK", or killed by a memory
		 * limit */
		size_t n = (size_t)strtoul(x, NULL, 10) << 20;
		volatile char *m = malloc(n);

		for (size_t i = 0; m != NULL && i < n; i += 4096)
			m[i] = 1; /* volatile: the pages are really touched */
		return report(m == NULL ? -1 : 0);
	}
	if (strcmp(a, "spin") == 0) {
		/* busy for x ms of wall time: "cpu=C wall=W" (ms) */
		struct timespec t0, t, c;
		long wall;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			clock_gettime(CLOCK_MONOTONIC, &t);
			wall = (t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000;
		} while (wall < strtol(x, NULL, 10));
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
		printf("cpu=%ld wall=%ld\n",
		    c.tv_sec * 1000 + c.tv_nsec / 1000000, wall);
		return 0;
	}
	if (strcmp(a, "read") == 0) {
		fd = open(x, O_RDONLY);
		return report(fd == -1 ? -1 : read(fd, buf, sizeof(buf)));
	}
	if (strcmp(a, "write") == 0) {
		fd = open(x, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		return report(fd == -1 ? -1 : write(fd, "probe\n", 6));
	}
	if (strcmp(a, "truncate") == 0)
		return report(truncate(x, 0));
	if (strcmp(a, "unlink") == 0)
		return report(unlink(x));
	if (strcmp(a, "mkdir") == 0)
		return report(mkdir(x, 0755));
	if (strcmp(a, "chmod") == 0)
		return report(chmod(x, 0777));
	if (strcmp(a, "kill") == 0)
		return report(kill(num(x), num(y)));
	if (strcmp(a, "daemon") == 0) {
		/* double fork + setsid: a survivor, unless teardown kills it */
		pid_t p = fork();

		if (p == 0) {
			setsid();
			if (fork() == 0) {
				for (;;)
					pause();
			}
			_exit(0);
		}
		waitpid(p, NULL, 0);
		return report(p);
	}
	if (strcmp(a, "stacked-ptrace") == 0) {
		/* a permissive filter of our own cannot undo the sandbox's */
		struct sock_filter allow =
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog prog = { 1, &allow };

		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
			return report(-1);
		return report(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
	}
	if (strcmp(a, "fds") == 0)
		return do_fds();
	if (strcmp(a, "env") == 0) {
		extern char **environ;

		for (char **e = environ; *e != NULL; e++)
			printf("%s\n", *e);
		return 0;
	}
	if (strcmp(a, "uid") == 0) {
		printf("uid=%u gid=%u euid=%u groups=%d\n", (unsigned)getuid(),
		    (unsigned)getgid(), (unsigned)geteuid(),
		    getgroups(0, NULL));
		return 0;
	}
	if (strcmp(a, "pid") == 0) {
		printf("pid=%d ppid=%d\n", (int)getpid(), (int)getppid());
		return 0;
	}
	if (strcmp(a, "cwd") == 0) {
		char cwd[4096];

		printf("%s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		return 0;
	}
	if (strcmp(a, "status") == 0)
		return do_status();
	if (strcmp(a, "proc-status") == 0)
		return do_proc_status(x);
	if (strcmp(a, "ptrace-pid") == 0)
		return do_ptrace_pid(x);
	if (strcmp(a, "list-fds") == 0)
		return do_list_fds(x);
	if (strcmp(a, "fork-bomb") == 0)
		return do_fork_bomb(num(x));
	if (strcmp(a, "exit") == 0)
		return num(x);
	if (strcmp(a, "raise") == 0) {
		raise(num(x));
		return 0;
	}
	if (strcmp(a, "sleep") == 0) {
		sleep_ms(num(x));
		return 0;
	}
	if (strcmp(a, "ignore-term") == 0) {
		signal(SIGTERM, SIG_IGN);
		printf("ready\n");
		fflush(stdout);
		sleep_ms(num(x));
		return 0;
	}
	if (strcmp(a, "trap-term") == 0) {
		signal(SIGTERM, on_term);
		printf("ready\n");
		fflush(stdout);
		sleep_ms(num(x));
		return 0;
	}
	fprintf(stderr, "probe: unknown action '%s'\n", a);
	return 2;
}
