/* seccomp.c: the job's seccomp filters (see the launcher notes, (b)).
 *
 * Two filters, installed by the child last, just before execve:
 *  1. the deny list, compiled with libseccomp at build time
 *     (seccomp-gen.c, through sandbox/gen-seccomp into seccomp-progs.c):
 *     default allow, the deny list and argument filters, and death for
 *     any other architecture (i386 int 0x80, x32);
 *  2. a hand-built guard: x32 numbers kill, numbers above the highest
 *     syscall this build knows answer ENOSYS (libseccomp cannot name the
 *     newest ones, and a future syscall must not be allowed unseen), and
 *     personality() is checked (libseccomp cannot compare one argument
 *     with two values in one rule).
 * Stacked filters take the most restrictive answer. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

#if defined(__x86_64__)
#define SBX_AUDIT_ARCH	 AUDIT_ARCH_X86_64
#define SBX_SYSCALL_LAST 469 /* file_setattr */
#define SBX_X32_BIT	 0x40000000U
#endif

static void
copy_prog(struct sock_fprog *out, const struct sock_filter *f, size_t n)
{
	out->len = (unsigned short)n;
	out->filter = axg_malloc(n * sizeof(*f));
	memcpy(out->filter, f, n * sizeof(*f));
}

static void
build_guard(struct sock_fprog *out)
{
	static const struct sock_filter g[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_X32_BIT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SBX_SYSCALL_LAST, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		/* 15: personality other than PER_LINUX or the query
		 * 0xffffffff (the kernel reads an unsigned int: the low
		 * word of args[0] on a little-endian machine) */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	copy_prog(out, g, AXG_ARRAY_LEN(g));
}

/* Can the kernel run them: seccomp filters, with the kill-process action
 * (Linux 4.14)?  Asked once per process. */
static int
kernel_check(char *err, size_t errlen)
{
	static int known; /* 0 unknown, 1 yes, -errno no */
	uint32_t action = SECCOMP_RET_KILL_PROCESS;

	if (known == 0)
		known = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0,
			    &action) == 0
		    ? 1
		    : -errno;
	if (known < 0)
		return axg_seterr(err, errlen,
		    "seccomp: the kernel cannot run the job's filters (%s): "
		    "seccomp filters with the kill-process action need "
		    "CONFIG_SECCOMP_FILTER and Linux 4.14 or later",
		    strerror(-known));
	return 0;
}

int
sbx_seccomp_build(const struct sbx_spec *spec, struct sock_fprog out[2],
    char *err, size_t errlen)
{
	memset(out, 0, 2 * sizeof(*out));
#ifndef SBX_AUDIT_ARCH
	return axg_seterr(err, errlen,
	    "seccomp: this architecture is not supported yet");
#endif
	if (kernel_check(err, errlen) < 0)
		return -1;
	if (spec->block_network)
		copy_prog(&out[0], sbx_seccomp_prog_block,
		    sbx_seccomp_prog_block_len);
	else
		copy_prog(&out[0], sbx_seccomp_prog_net,
		    sbx_seccomp_prog_net_len);
	build_guard(&out[1]);
	return 0;
}

void
sbx_seccomp_free(struct sock_fprog out[2])
{
	for (int i = 0; i < 2; i++) {
		free(out[i].filter);
		out[i].filter = NULL;
		out[i].len = 0;
	}
}
