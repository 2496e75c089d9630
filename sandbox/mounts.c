/* mounts.c: what the job's mount namespace hides, and what it binds back.
 *
 * The home directories, /run and the caller's $HOME go under an empty
 * tmpfs, /tmp becomes a private tmpfs, and then the workspace and the
 * grants that lived under one of those are bind-mounted back.  The child
 * opens them again before hiding anything (a bind source must be in its
 * own mount namespace) and checks each is the very inode the parent
 * validated, so a path swapped for a symlink in between is refused.  Deny
 * grants get an empty read-only tmpfs (a directory) or /dev/null (a file) over
 * them.  The child mounts a fresh /proc last. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

#define SBX_HIDE_MAX 64

static const char *const hide_always[] = { "/home", "/root", "/run" };

static bool
is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '/' || path[n] == '\0');
}

bool
sbx_path_clean(const char *p)
{
	size_t n;

	if (p == NULL || p[0] != '/')
		return false;
	n = strlen(p);
	if (n >= 4096 || strstr(p, "//") != NULL || strstr(p, "/./") != NULL ||
	    strstr(p, "/../") != NULL || axg_endswith(p, "/.") ||
	    axg_endswith(p, "/.."))
		return false;
	return n == 1 || p[n - 1] != '/';
}

static int
push(struct sbx_plan *plan, enum sbx_mount_kind kind, const char *target,
    int src_fd, bool is_dir, bool ro)
{
	struct sbx_mount *m;

	if (plan->n_mounts >= SBX_MOUNTS_MAX)
		return -1;
	plan->mounts = axg_reallocarray(plan->mounts, plan->n_mounts + 1,
	    sizeof(*plan->mounts));
	m = &plan->mounts[plan->n_mounts++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->target = axg_strdup(target);
	if (src_fd >= 0) {
		struct stat st;

		if (fstat(src_fd, &st) == 0) {
			m->dev = st.st_dev;
			m->ino = st.st_ino;
		}
	}
	m->is_dir = is_dir;
	m->read_only = ro;
	return 0;
}

/* Is path under a hidden directory (or /tmp)? */
static bool
hidden(const char *path, const char *const *h, size_t nh)
{
	for (size_t i = 0; i < nh; i++)
		if (is_under(path, h[i]))
			return true;
	return false;
}

/* Is a bound-back path read-only?  The workspace and read-write grants
 * win over a read-only grant of the same path (rights add up). */
static bool
bind_is_ro(const struct sbx_spec *spec, const char *p)
{
	bool ro = true;

	if (spec->workspace != NULL && strcmp(p, spec->workspace) == 0)
		return false;
	for (size_t g = 0; g < spec->n_grants; g++)
		if (strcmp(spec->grants[g].path, p) == 0 &&
		    spec->grants[g].access == SBX_READ_WRITE)
			ro = false;
	return ro;
}

int
sbx_mounts_build(const struct sbx_spec *spec, const int *grant_fds,
    const bool *grant_dir, struct sbx_plan *plan, char *err, size_t errlen)
{
	const char *cand[SBX_HIDE_MAX], *h[SBX_HIDE_MAX + 1];
	const char *binds[SBX_HIDE_MAX];
	bool bind_ro[SBX_HIDE_MAX];
	size_t nc = 0, nh = 0, nb = 0;
	const char *home = getenv("HOME");

	/* first, while the source is still visible */
	if (spec->hosts_file != NULL) {
		if (!sbx_path_clean(spec->hosts_file))
			return axg_seterr(err, errlen,
			    "hosts file '%s' is not a clean absolute path",
			    spec->hosts_file);
		if (push(plan, SBX_M_HOSTS, "/etc/hosts", -1, false, true) ==
		    -1)
			goto too_many;
		plan->mounts[plan->n_mounts - 1].source =
		    axg_strdup(spec->hosts_file);
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(hide_always); i++)
		cand[nc++] = hide_always[i];
	if (home != NULL && sbx_path_clean(home) && strcmp(home, "/") != 0)
		cand[nc++] = home;
	for (size_t i = 0; spec->hide != NULL && spec->hide[i] != NULL; i++) {
		if (!sbx_path_clean(spec->hide[i]) ||
		    strcmp(spec->hide[i], "/") == 0)
			return axg_seterr(err, errlen,
			    "hidden path '%s' is not a clean absolute path",
			    spec->hide[i]);
		if (nc >= SBX_HIDE_MAX)
			return axg_seterr(err, errlen,
			    "more than %d hidden paths", SBX_HIDE_MAX);
		cand[nc++] = spec->hide[i];
	}
	/* Hide each existing real directory not already under another. */
	for (size_t i = 0; i < nc; i++) {
		struct stat st;
		bool nested = false;

		if (lstat(cand[i], &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		for (size_t j = 0; j < nc; j++)
			if (j != i && is_under(cand[i], cand[j]) &&
			    (strcmp(cand[i], cand[j]) != 0 || j < i))
				nested = true;
		if (nested)
			continue;
		if (push(plan, SBX_M_HIDE, cand[i], -1, true, false) == -1)
			goto too_many;
		h[nh++] = cand[i];
	}
	if (push(plan, SBX_M_TMP, "/tmp", -1, true, false) == -1)
		goto too_many;
	h[nh++] = "/tmp";

	/* Bind back what the job is granted under a hidden tree. */
	if (spec->workspace != NULL && hidden(spec->workspace, h, nh))
		binds[nb++] = spec->workspace;
	for (size_t i = 0; i < spec->n_grants; i++) {
		const char *p = spec->grants[i].path;

		if (spec->grants[i].access != SBX_DENY && hidden(p, h, nh)) {
			if (nb >= SBX_HIDE_MAX)
				return axg_seterr(err, errlen,
				    "more than %d grants under hidden paths",
				    SBX_HIDE_MAX);
			binds[nb++] = p;
		}
	}
	/* Outer trees first: a grant nested in another is bound after it,
	 * on top of it.  A nested grant with the same access comes with the
	 * outer bind (MS_REC); one with another access (read-write inside
	 * read-only, say) needs its own mount, or it would be read-only. */
	for (size_t i = 1; i < nb; i++)
		for (size_t j = i;
		     j > 0 && strlen(binds[j - 1]) > strlen(binds[j]); j--) {
			const char *t = binds[j];

			binds[j] = binds[j - 1];
			binds[j - 1] = t;
		}
	for (size_t i = 0; i < nb; i++)
		bind_ro[i] = bind_is_ro(spec, binds[i]);
	for (size_t i = 0; i < nb; i++) {
		bool nested = false;
		size_t outer = nb;
		int fd = -1;
		bool dir = true, ro = bind_ro[i];

		/* the nearest enclosing bind (listed before: shorter) */
		for (size_t j = 0; j < i; j++)
			if (is_under(binds[i], binds[j]))
				outer = j;
		if (outer < nb &&
		    (strcmp(binds[i], binds[outer]) == 0 ||
			bind_ro[outer] == ro))
			nested = true;
		if (nested)
			continue;
		if (spec->workspace != NULL && binds[i] == spec->workspace) {
			fd = plan->workspace_fd;
			plan->workspace_bound = true;
		} else {
			for (size_t g = 0; g < spec->n_grants; g++) {
				if (spec->grants[g].path == binds[i]) {
					fd = grant_fds[g];
					dir = grant_dir[g];
				}
			}
		}
		if (push(plan, SBX_M_BIND, binds[i], fd, dir, ro) == -1)
			goto too_many;
	}

	/* Deny grants: over what is still visible. */
	for (size_t i = 0; i < spec->n_grants; i++) {
		const char *p = spec->grants[i].path;
		bool visible = !hidden(p, h, nh);

		if (spec->grants[i].access != SBX_DENY)
			continue;
		for (size_t j = 0; j < nb && !visible; j++)
			if (is_under(p, binds[j]))
				visible = true;
		if (grant_fds[i] == -1 || !visible)
			continue;
		if (push(plan, grant_dir[i] ? SBX_M_DENY_DIR : SBX_M_DENY_FILE,
			p, -1, grant_dir[i], true) == -1)
			goto too_many;
	}
	return 0;
too_many:
	return axg_seterr(err, errlen,
	    "more than %d hidden, bound-back and denied paths together",
	    SBX_MOUNTS_MAX);
}

void
sbx_mounts_free(struct sbx_plan *plan)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		free(plan->mounts[i].target);
		free(plan->mounts[i].source);
	}
	free(plan->mounts);
	plan->mounts = NULL;
	plan->n_mounts = 0;
}
