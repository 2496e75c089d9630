/* user.c: which unprivileged user the job runs as. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

int
sbx_user_resolve(const char *user, uid_t *uid, gid_t *gid, char *err,
    size_t errlen)
{
	const char *colon;
	uint64_t u, g;

	if (user == NULL)
		user = "nobody";
	if (user[0] == '\0' || strlen(user) > 64)
		return axg_seterr(err, errlen, "user: empty or too long");
	colon = strchr(user, ':');
	if (user[0] >= '0' && user[0] <= '9') {
		size_t ul = colon ? (size_t)(colon - user) : strlen(user);

		if (axg_parse_u64n(user, ul, 0, 0xfffffffe, &u) == -1 ||
		    (colon != NULL &&
			axg_parse_u64(colon + 1, 0, 0xfffffffe, &g) == -1))
			return axg_seterr(err, errlen,
			    "user '%s': not UID or UID:GID", user);
		if (colon == NULL)
			g = u;
	} else {
		struct passwd pw, *res = NULL;
		char buf[4096];
		int rc;

		if (colon != NULL)
			return axg_seterr(err, errlen,
			    "user '%s': a name cannot carry a group", user);
		rc = getpwnam_r(user, &pw, buf, sizeof(buf), &res);
		if (rc != 0 || res == NULL)
			return axg_seterr(err, errlen,
			    "user '%s' not found in the passwd database: "
			    "create it (useradd --system %s) or give a numeric "
			    "UID:GID",
			    user, user);
		u = pw.pw_uid;
		g = pw.pw_gid;
	}
	if (u == 0 || g == 0)
		return axg_seterr(err, errlen,
		    "user '%s' is root (uid %llu, gid %llu): a job never runs "
		    "as root; name an unprivileged user",
		    user, (unsigned long long)u, (unsigned long long)g);
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}
