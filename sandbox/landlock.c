/* landlock.c: the ABI probe and the ruleset built from the grants. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/landlock-abi.h"
#include "sandbox/sandbox-int.h"

#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* Read-only: read, list, execute.  Files only take file rights. */
#define LL_RO (SBX_LL_FS_EXECUTE | SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR)
#define LL_FILE_ALL                                                            \
	(SBX_LL_FS_EXECUTE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE |      \
	    SBX_LL_FS_TRUNCATE | SBX_LL_FS_IOCTL_DEV)

/* The system set every job can read (skipped when absent or a symlink). */
static const char *const sys_ro[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32",
	"/lib64", "/libx32", "/etc", "/opt" };
static const char *const sys_rw_files[] = { "/dev/null", "/dev/zero",
	"/dev/full", "/dev/random", "/dev/urandom" };

int
sbx_landlock_abi(char *err, size_t errlen)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    SBX_LANDLOCK_CREATE_RULESET_VERSION);

	if (abi > 0)
		return (int)abi;
	if (errno == ENOSYS)
		return axg_seterr(err, errlen,
		    "Landlock is not built into this kernel "
		    "(CONFIG_SECURITY_LANDLOCK): use Linux 6.2 or later with "
		    "Landlock enabled");
	if (errno == EOPNOTSUPP)
		return axg_seterr(err, errlen,
		    "Landlock is disabled at boot: add 'landlock' to the "
		    "kernel's lsm= parameter");
	return axg_seterr(err, errlen, "Landlock ABI probe failed: %s",
	    strerror(errno));
}

static uint64_t
fs_rights(int abi)
{
	uint64_t r = (SBX_LL_FS_MAKE_SYM << 1) - 1; /* ABI 1 */

	if (abi >= 2)
		r |= SBX_LL_FS_REFER;
	if (abi >= 3)
		r |= SBX_LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= SBX_LL_FS_IOCTL_DEV;
	return r;
}

int
sbx_open_grant(const char *path, bool *is_dir, char *err, size_t errlen)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd;

	if (!sbx_path_clean(path))
		return axg_seterr(err, errlen,
		    "grant path '%s' is not a clean absolute path (no //, . or "
		    ".., no trailing slash)",
		    path ? path : "(null)");
	fd = (int)syscall(__NR_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd == -1) {
		int e = errno;
		char *real = e == ELOOP ? realpath(path, NULL) : NULL;

		if (e == ELOOP)
			axg_seterr(err, errlen,
			    "grant path %s goes through a symlink: name the "
			    "real path%s%s",
			    path, real ? " " : "", real ? real : "");
		else if (e == ENOENT)
			axg_seterr(err, errlen,
			    "grant path %s does not exist: create it or "
			    "remove the grant",
			    path);
		else
			axg_seterr(err, errlen, "grant path %s: %s", path,
			    strerror(e));
		free(real);
		return -1;
	}
	if (fstat(fd, &st) == -1 ||
	    (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) &&
		!S_ISCHR(st.st_mode))) {
		close(fd);
		return axg_seterr(err, errlen,
		    "grant path %s is not a directory, a file or a device",
		    path);
	}
	*is_dir = S_ISDIR(st.st_mode);
	return fd;
}

static int
add_path(int rfd, int fd, bool is_dir, uint64_t access, uint64_t handled,
    const char *path, char *err, size_t errlen)
{
	struct sbx_landlock_path_beneath_attr pb = {
		.allowed_access = access & handled,
		.parent_fd = fd,
	};

	if (!is_dir)
		pb.allowed_access &= LL_FILE_ALL;
	if (syscall(__NR_landlock_add_rule, rfd, SBX_LANDLOCK_RULE_PATH_BENEATH,
		&pb, 0) == -1)
		return axg_seterr(err, errlen, "Landlock rule for %s: %s", path,
		    strerror(errno));
	return 0;
}

/* Add a rule for a system path if it is a real directory or file. */
static int
add_sys(int rfd, const char *path, uint64_t access, uint64_t handled, char *err,
    size_t errlen)
{
	struct stat st;
	int fd, rc;

	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return 0;
	if (fstat(fd, &st) == -1 || S_ISLNK(st.st_mode)) {
		close(fd);
		return 0;
	}
	rc = add_path(rfd, fd, S_ISDIR(st.st_mode), access, handled, path, err,
	    errlen);
	close(fd);
	return rc;
}

int
sbx_landlock_build(const struct sbx_spec *spec, const int *grant_fds,
    struct sbx_plan *plan, char *err, size_t errlen)
{
	struct sbx_landlock_ruleset_attr attr;
	int abi = plan->landlock_abi;
	uint64_t handled = fs_rights(abi);
	size_t attr_size;
	int rfd = -1;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = handled;
	attr_size = sizeof(attr.handled_access_fs);
	if (abi >= 4) {
		/* TCP connect only: binding inside the job's own network
		 * namespace reaches nobody. */
		attr.handled_access_net = SBX_LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct sbx_landlock_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped =
		    SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET | SBX_LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	rfd = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
	if (rfd == -1) {
		axg_seterr(err, errlen, "Landlock ruleset (ABI %d): %s", abi,
		    strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(sys_ro); i++)
		if (add_sys(rfd, sys_ro[i], LL_RO, handled, err, errlen) == -1)
			goto fail;
	for (size_t i = 0; i < AXG_ARRAY_LEN(sys_rw_files); i++)
		if (add_sys(rfd, sys_rw_files[i], LL_FILE_ALL, handled, err,
			errlen) == -1)
			goto fail;
	if (plan->workspace_fd != -1 &&
	    add_path(rfd, plan->workspace_fd, true, handled, handled,
		spec->workspace, err, errlen) == -1)
		goto fail;
	for (size_t i = 0; i < spec->n_grants; i++) {
		const struct sbx_grant *g = &spec->grants[i];
		struct stat st;

		if (g->access == SBX_DENY || grant_fds[i] == -1)
			continue;
		if (fstat(grant_fds[i], &st) == -1) {
			axg_seterr(err, errlen, "grant path %s: %s", g->path,
			    strerror(errno));
			goto fail;
		}
		if (add_path(rfd, grant_fds[i], S_ISDIR(st.st_mode),
			g->access == SBX_READ_WRITE ? handled : LL_RO, handled,
			g->path, err, errlen) == -1)
			goto fail;
	}
	if (abi >= 4 && spec->proxy_port != 0 && !spec->block_network) {
		struct sbx_landlock_net_port_attr np = {
			.allowed_access = SBX_LL_NET_CONNECT_TCP,
			.port = spec->proxy_port,
		};

		if (syscall(__NR_landlock_add_rule, rfd,
			SBX_LANDLOCK_RULE_NET_PORT, &np, 0) == -1) {
			axg_seterr(err, errlen,
			    "Landlock rule for TCP port %u: %s",
			    (unsigned)spec->proxy_port, strerror(errno));
			goto fail;
		}
	}
	if (abi >= 4 && spec->proxy_port != 0 && spec->inference_port != 0 &&
	    !spec->block_network) {
		struct sbx_landlock_net_port_attr np = {
			.allowed_access = SBX_LL_NET_CONNECT_TCP,
			.port = spec->inference_port,
		};

		if (syscall(__NR_landlock_add_rule, rfd,
			SBX_LANDLOCK_RULE_NET_PORT, &np, 0) == -1) {
			axg_seterr(err, errlen,
			    "Landlock rule for TCP port %u: %s",
			    (unsigned)spec->inference_port, strerror(errno));
			goto fail;
		}
	}
	/* The ruleset is applied before the job's execve: without this,
	 * ABI 7 kernels would not log the job's own denials to audit. */
	plan->ll_restrict_flags = abi >= 7
	    ? SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON |
		SBX_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF
	    : 0;
	plan->ruleset_fd = rfd;
	plan->ll_ro_dir = LL_RO & handled;
	plan->ll_rw_dir = handled;
	return 0;
fail:
	if (rfd != -1)
		close(rfd);
	return -1;
}
