/* seccomp-gen.c: the job's syscall deny list (see the launcher notes, (b)),
 * compiled with libseccomp.  This runs at build time: sandbox/gen-seccomp
 * writes the programs it compiles into sandbox/seccomp-progs.c, which the
 * launcher loads as they are (compiling them took a tenth of a
 * millisecond of every launch); the sandbox's unit test compiles them
 * again and checks that the built-in ones are the same.
 *
 * Default allow, with the deny list and argument filters; any other
 * architecture (i386 int 0x80, x32) kills the process.  The raw guard
 * filter of seccomp.c is stacked on it. */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

#define SBX_BPF_MAX 4096 /* instructions */

struct deny {
	const char *name;
	int nr; /* used when libseccomp does not know the name */
	int err;
};

static const struct deny deny_list[] = {
	/* 1: other processes' memory and fds */
	{ "ptrace", -1, EPERM },
	{ "process_vm_readv", -1, EPERM },
	{ "process_vm_writev", -1, EPERM },
	{ "kcmp", -1, EPERM },
	{ "pidfd_getfd", -1, EPERM },
	/* 2: io_uring, invisible to seccomp */
	{ "io_uring_setup", -1, ENOSYS },
	{ "io_uring_enter", -1, ENOSYS },
	{ "io_uring_register", -1, ENOSYS },
	/* 3: keyrings are not namespaced */
	{ "add_key", -1, EPERM },
	{ "keyctl", -1, EPERM },
	{ "request_key", -1, EPERM },
	/* 4: eBPF, perf, userfaultfd */
	{ "bpf", -1, EPERM },
	{ "perf_event_open", -1, EPERM },
	{ "userfaultfd", -1, EPERM },
	{ "lookup_dcookie", -1, EPERM },
	/* 5, 7: no new namespaces */
	{ "unshare", -1, EPERM },
	{ "setns", -1, EPERM },
	{ "clone3", -1, ENOSYS },
	/* 8, 9: the VFS view, old and new mount API */
	{ "mount", -1, EPERM },
	{ "umount", -1, EPERM },
	{ "umount2", -1, EPERM },
	{ "pivot_root", -1, EPERM },
	{ "chroot", -1, EPERM },
	{ "fsopen", -1, ENOSYS },
	{ "fsconfig", -1, ENOSYS },
	{ "fsmount", -1, ENOSYS },
	{ "fspick", -1, ENOSYS },
	{ "move_mount", -1, ENOSYS },
	{ "open_tree", -1, ENOSYS },
	{ "mount_setattr", -1, ENOSYS },
	{ "open_tree_attr", 467, ENOSYS },
	/* 16: legacy, admin-only, info leaks */
	{ "modify_ldt", -1, EPERM },
	{ "vm86", -1, EPERM },
	{ "vm86old", -1, EPERM },
	{ "uselib", -1, EPERM },
	{ "_sysctl", -1, EPERM },
	{ "nfsservctl", -1, EPERM },
	{ "acct", -1, EPERM },
	{ "quotactl", -1, EPERM },
	{ "quotactl_fd", -1, EPERM },
	{ "syslog", -1, EPERM },
	{ "vhangup", -1, EPERM },
	/* 17: need capabilities anyway */
	{ "reboot", -1, EPERM },
	{ "kexec_load", -1, EPERM },
	{ "kexec_file_load", -1, EPERM },
	{ "init_module", -1, EPERM },
	{ "finit_module", -1, EPERM },
	{ "delete_module", -1, EPERM },
	{ "swapon", -1, EPERM },
	{ "swapoff", -1, EPERM },
	{ "iopl", -1, EPERM },
	{ "ioperm", -1, EPERM },
	{ "settimeofday", -1, EPERM },
	{ "clock_settime", -1, EPERM },
	{ "clock_adjtime", -1, EPERM },
	{ "adjtimex", -1, EPERM },
	{ "sethostname", -1, EPERM },
	{ "setdomainname", -1, EPERM },
	/* 18: file handles and fs monitoring */
	{ "name_to_handle_at", -1, EPERM },
	{ "open_by_handle_at", -1, EPERM },
	{ "fanotify_init", -1, EPERM },
	/* 19: VM and NUMA */
	{ "move_pages", -1, EPERM },
	{ "mbind", -1, EPERM },
	{ "migrate_pages", -1, EPERM },
	{ "set_mempolicy", -1, EPERM },
	{ "get_mempolicy", -1, EPERM },
};

/* 6: clone with any CLONE_NEW* flag (not CLONE_NEWTIME: it overlaps the
 * exit-signal bits). */
static const uint64_t clone_new[] = { 0x00020000, 0x02000000, 0x04000000,
	0x08000000, 0x10000000, 0x20000000, 0x40000000 };

#define RULE(act, nr, ...)                                                     \
	do {                                                                   \
		int rc_ = seccomp_rule_add(ctx, (act), (nr), __VA_ARGS__);     \
		if (rc_ < 0) {                                                 \
			axg_seterr(err, errlen, "seccomp rule for %s: %s",     \
			    what, strerror(-rc_));                             \
			goto fail;                                             \
		}                                                              \
	} while (0)

static int
add_rules(scmp_filter_ctx ctx, bool block_network, char *err, size_t errlen)
{
	const char *what;
	int nr;

	for (size_t i = 0; i < AXG_ARRAY_LEN(deny_list); i++) {
		what = deny_list[i].name;
		nr = seccomp_syscall_resolve_name(what);
		if (nr == __NR_SCMP_ERROR)
			nr = deny_list[i].nr;
		if (nr == __NR_SCMP_ERROR || nr == -1) {
			axg_seterr(err, errlen,
			    "seccomp: libseccomp does not know syscall %s: "
			    "update libseccomp",
			    what);
			goto fail;
		}
		RULE(SCMP_ACT_ERRNO(deny_list[i].err), nr, 0);
	}

	what = "clone";
	for (size_t i = 0; i < AXG_ARRAY_LEN(clone_new); i++)
		RULE(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, clone_new[i], clone_new[i]));

	/* 10: terminal injection; the 32-bit mask defeats high-bit tricks */
	what = "ioctl";
	RULE(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, 0x5412 /* TIOCSTI */));
	RULE(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, 0x541C /* TIOCLINUX */));

	/* 11: socket families: only AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
	 * (block mode: AF_UNIX and AF_NETLINK) */
	what = "socket";
	for (int f = 0; f <= 45; f++) {
		bool ok = f == AF_UNIX || f == AF_NETLINK ||
		    (!block_network && (f == AF_INET || f == AF_INET6));

		if (!ok)
			RULE(SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
			    SCMP_A0(SCMP_CMP_EQ, (uint64_t)f, 0));
	}
	RULE(SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_GE, 46, 0));
	/* 12: netlink other than NETLINK_ROUTE */
	RULE(SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 2,
	    SCMP_A0(SCMP_CMP_EQ, AF_NETLINK, 0), SCMP_A2(SCMP_CMP_NE, 0, 0));
	if (!block_network) {
		/* 13: raw IP and SOCK_PACKET */
		static const int fam[] = { AF_INET, AF_INET6 };
		static const int typ[] = { SOCK_RAW, SOCK_PACKET };
		/* 14: SCTP and MPTCP are outside Landlock's TCP rules */
		static const int proto[] = { 132, 262 };

		for (size_t i = 0; i < 2; i++)
			for (size_t j = 0; j < 2; j++)
				RULE(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 2,
				    SCMP_A0(SCMP_CMP_EQ, (uint64_t)fam[i], 0),
				    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
					(uint64_t)typ[j]));
		for (size_t i = 0; i < 2; i++)
			for (size_t j = 0; j < 2; j++)
				RULE(SCMP_ACT_ERRNO(EPROTONOSUPPORT),
				    SCMP_SYS(socket), 2,
				    SCMP_A0(SCMP_CMP_EQ, (uint64_t)fam[i], 0),
				    SCMP_A2(SCMP_CMP_EQ, (uint64_t)proto[j],
					0));
	}
	return 0;
fail:
	return -1;
}

/* Export a libseccomp filter as a BPF program in memory (libseccomp 2.5
 * only exports to an fd). */
static int
export_bpf(scmp_filter_ctx ctx, struct sock_fprog *out, char *err,
    size_t errlen)
{
	struct sock_filter *f = NULL;
	struct stat st;
	size_t got = 0;
	int fd, rc;

	fd = memfd_create("axgate-seccomp", MFD_CLOEXEC);
	if (fd == -1)
		return axg_seterr(err, errlen, "seccomp: memfd_create: %s",
		    strerror(errno));
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		axg_seterr(err, errlen, "seccomp: export: %s", strerror(-rc));
		goto fail;
	}
	if (fstat(fd, &st) == -1 || st.st_size <= 0 ||
	    st.st_size % sizeof(*f) != 0 ||
	    (size_t)st.st_size > SBX_BPF_MAX * sizeof(*f)) {
		axg_seterr(err, errlen,
		    "seccomp: exported program has a bad "
		    "size");
		goto fail;
	}
	f = axg_malloc((size_t)st.st_size);
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, (char *)f + got, (size_t)st.st_size - got,
		    (off_t)got);

		if (n <= 0) {
			axg_seterr(err, errlen, "seccomp: reading back: %s",
			    n == 0 ? "short" : strerror(errno));
			goto fail;
		}
		got += (size_t)n;
	}
	close(fd);
	out->len = (unsigned short)(got / sizeof(*f));
	out->filter = f;
	return 0;
fail:
	free(f);
	close(fd);
	return -1;
}

int
sbx_seccomp_compile(bool block_network, struct sock_fprog *out, char *err,
    size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	memset(out, 0, sizeof(*out));
	/* KILL_PROCESS needs API level 3 (Linux 4.14 seccomp()). */
	if (seccomp_api_get() < 3)
		return axg_seterr(err, errlen,
		    "seccomp: libseccomp reports API level %u, and the "
		    "filter needs 3 (seccomp() with KILL_PROCESS, Linux 4.14)",
		    seccomp_api_get());
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		return axg_seterr(err, errlen, "seccomp: seccomp_init failed");
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		axg_seterr(err, errlen, "seccomp: bad-arch action: %s",
		    strerror(-rc));
		goto fail;
	}
	/* A binary tree of syscall numbers rather than a chain: every
	 * system call the job makes walks a few comparisons instead of up to
	 * a hundred, and so does the kernel when it loads the filter (its
	 * action cache tries each syscall number through it). */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0) {
		axg_seterr(err, errlen, "seccomp: optimize attribute: %s",
		    strerror(-rc));
		goto fail;
	}
	if (add_rules(ctx, block_network, err, errlen) == -1 ||
	    export_bpf(ctx, out, err, errlen) == -1)
		goto fail;
	seccomp_release(ctx);
	return 0;
fail:
	seccomp_release(ctx);
	return -1;
}
