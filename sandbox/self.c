/* self.c: confine the calling process: the proxy's own sandbox (an
 * unprivileged user, no capabilities, no_new_privs, Landlock and seccomp),
 * set up before it reads a byte from a job. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/landlock-abi.h"
#include "sandbox/sandbox-int.h"
#include "sandbox/sandbox.h"

#define SELF_MAX_GRANTS 16

static uint64_t
all_fs(int abi)
{
	uint64_t r = (SBX_LL_FS_MAKE_SYM << 1) - 1;

	if (abi >= 2)
		r |= SBX_LL_FS_REFER;
	if (abi >= 3)
		r |= SBX_LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= SBX_LL_FS_IOCTL_DEV;
	return r;
}

static const uint64_t read_fs = SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR;

/* Open every grant while we may still see it; -1 on any error. */
static int
open_grants(const char *const *paths, int *fds, size_t *n, char *err,
    size_t errlen)
{
	bool is_dir;

	for (; paths != NULL && *paths != NULL; paths++) {
		if (*n == SELF_MAX_GRANTS)
			return axg_seterr(err, errlen,
			    "confine: more than %d grants", SELF_MAX_GRANTS);
		fds[*n] = sbx_open_grant(*paths, &is_dir, err, errlen);
		if (fds[*n] < 0)
			return -1;
		(*n)++;
	}
	return 0;
}

static int
landlock_self(int abi, const int *fds, const uint64_t *rights, size_t n,
    char *err, size_t errlen)
{
	struct sbx_landlock_ruleset_attr attr;
	size_t i, attr_size;
	int rs;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = all_fs(abi);
	attr_size = sizeof(attr.handled_access_fs);
	if (abi >= 6) {
		/* no abstract unix sockets or signals outside the domain */
		attr.scoped =
		    SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET | SBX_LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	rs = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
	if (rs < 0)
		return axg_seterr(err, errlen,
		    "confine: landlock_create_ruleset: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		struct sbx_landlock_path_beneath_attr pb = {
			.allowed_access = rights[i] & all_fs(abi),
			.parent_fd = fds[i],
		};
		struct stat st;

		/* a file grant takes only file rights */
		if (fstat(fds[i], &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= SBX_LL_FS_READ_FILE |
			    SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE;
		if (syscall(__NR_landlock_add_rule, rs,
			SBX_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			axg_seterr(err, errlen,
			    "confine: landlock_add_rule: %s", strerror(errno));
			close(rs);
			return -1;
		}
	}
	if (syscall(__NR_landlock_restrict_self, rs, 0) < 0) {
		axg_seterr(err, errlen, "confine: landlock_restrict_self: %s",
		    strerror(errno));
		close(rs);
		return -1;
	}
	close(rs);
	return 0;
}

static int
drop_user(const char *user, char *err, size_t errlen)
{
	uid_t uid;
	gid_t gid;
	int c;

	if (sbx_user_resolve(user, &uid, &gid, err, errlen) < 0)
		return -1;
	if (uid == 0)
		return axg_seterr(err, errlen,
		    "confine: user %s is root: name an unprivileged user",
		    user ? user : "nobody");
	/* the bounding set needs CAP_SETPCAP, so before the uid changes */
	for (c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return axg_seterr(err, errlen,
			    "confine: dropping capability %d: %s", c,
			    strerror(errno));
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		return axg_seterr(err, errlen, "confine: becoming %u:%u: %s",
		    (unsigned)uid, (unsigned)gid, strerror(errno));
	if (setuid(0) == 0)
		return axg_seterr(err, errlen,
		    "confine: could become root again after dropping");
	return 0;
}

/* Clear every capability set (a non-root process started with some). */
static int
drop_caps(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return axg_seterr(err, errlen, "confine: ambient caps: %s",
		    strerror(errno));
	if (syscall(SYS_capset, &h, d) < 0)
		return axg_seterr(err, errlen, "confine: capset: %s",
		    strerror(errno));
	return 0;
}

static int
seccomp_self(const struct sbx_self *s, char *err, size_t errlen)
{
	static const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog no_exec = { .len = AXG_ARRAY_LEN(f),
		.filter = (struct sock_filter *)f };
	struct sbx_spec spec;
	struct sock_fprog prog[2];
	int i;

	sbx_spec_init(&spec);
	if (sbx_seccomp_build(&spec, prog, err, errlen) < 0)
		return -1;
	for (i = 1; i >= 0; i--)
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog[i]) <
		    0) {
			axg_seterr(err, errlen, "confine: seccomp: %s",
			    strerror(errno));
			sbx_seccomp_free(prog);
			return -1;
		}
	sbx_seccomp_free(prog);
	if (!s->no_exec)
		return 0;
	/* the proxy never starts a program (the filters above already
	 * kill other architectures and x32 numbers) */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &no_exec) < 0)
		return axg_seterr(err, errlen, "confine: seccomp exec rule: %s",
		    strerror(errno));
	return 0;
}

int
sbx_confine_self(const struct sbx_self *s, char *err, size_t errlen)
{
	int fds[SELF_MAX_GRANTS];
	uint64_t rights[SELF_MAX_GRANTS];
	size_t n = 0, nr, i;
	int abi, rc = -1;

	abi = sbx_landlock_abi(err, errlen);
	if (abi < 0)
		return -1;
	if (open_grants(s->read_paths, fds, &n, err, errlen) < 0)
		goto out;
	nr = n;
	if (open_grants(s->write_paths, fds, &n, err, errlen) < 0)
		goto out;
	for (i = 0; i < n; i++)
		rights[i] = i < nr ? read_fs : all_fs(abi) & ~SBX_LL_FS_EXECUTE;
	if (geteuid() == 0 && drop_user(s->user, err, errlen) < 0)
		goto out;
	if (drop_caps(err, errlen) < 0)
		goto out;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		axg_seterr(err, errlen, "confine: no_new_privs: %s",
		    strerror(errno));
		goto out;
	}
	if (landlock_self(abi, fds, rights, n, err, errlen) < 0)
		goto out;
	if (seccomp_self(s, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	for (i = 0; i < n; i++)
		close(fds[i]);
	return rc;
}
