/* Unit tests of sandbox/'s plan builders: environment, user, paths,
 * seccomp programs, the Landlock probe and the cgroup controller lists. */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"
#include "tests/tap.h"

static void
test_env(void)
{
	char *envp[] = { "A=1", "AB=2", "LC_X=3", "SECRET=4", NULL };
	const char *allow[] = { "A", "LC_*", NULL };
	const char *set[] = { "A=9", "NEW=5", NULL };
	const char *bad[] = { "NOEQUALS", NULL };
	struct sbx_spec s;
	char err[256];
	char **v;

	sbx_spec_init(&s);
	s.envp = envp;
	s.env_allow = allow;
	s.env_set = set;
	v = sbx_env_build(&s, err, sizeof(err));
	ok(v != NULL, "environment built");
	is_str(v[0], "A=9", "an allowed variable, overridden by env_set");
	is_str(v[1], "LC_X=3", "a prefix pattern");
	is_str(v[2], "NEW=5", "a set variable");
	ok(v[3] == NULL, "AB and SECRET dropped (no prefix match on A)");
	sbx_strv_free(v);

	s.env_set = NULL;
	s.proxy_addr = "fd00::1";
	s.proxy_port = 3128;
	s.no_proxy = "example.internal";
	v = sbx_env_build(&s, err, sizeof(err));
	is_str(sbx_env_get(v, "HTTPS_PROXY"), "http://[fd00::1]:3128",
	    "an IPv6 proxy address is bracketed");
	is_str(sbx_env_get(v, "no_proxy"), "example.internal", "no_proxy set");
	sbx_strv_free(v);

	s.proxy_port = 0;
	ok(sbx_env_build(&s, err, sizeof(err)) == NULL,
	    "a proxy address without a port is refused");
	s.proxy_addr = NULL;
	s.env_set = bad;
	ok(sbx_env_build(&s, err, sizeof(err)) == NULL, "env_set without '='");
	like_str(err, "NOEQUALS", "names the bad entry");
}

static void
test_user(void)
{
	char err[256];
	uid_t u;
	gid_t g;

	ok(sbx_user_resolve("1234", &u, &g, err, sizeof(err)) == 0 &&
		u == 1234 && g == 1234,
	    "numeric UID, GID defaults to it");
	ok(sbx_user_resolve("1234:99", &u, &g, err, sizeof(err)) == 0 &&
		u == 1234 && g == 99,
	    "UID:GID");
	ok(sbx_user_resolve("nobody", &u, &g, err, sizeof(err)) == 0 &&
		u == 65534,
	    "a passwd name");
	ok(sbx_user_resolve(NULL, &u, &g, err, sizeof(err)) == 0 && u == 65534,
	    "default nobody");
	ok(sbx_user_resolve("root", &u, &g, err, sizeof(err)) == -1,
	    "root by name refused");
	ok(sbx_user_resolve("1000:0", &u, &g, err, sizeof(err)) == -1,
	    "gid 0 refused");
	ok(sbx_user_resolve("12x", &u, &g, err, sizeof(err)) == -1,
	    "garbage refused");
	ok(sbx_user_resolve("no-such-user-axg", &u, &g, err, sizeof(err)) == -1,
	    "unknown name refused");
	like_str(err, "useradd", "with a hint");
}

static void
test_paths(void)
{
	char err[256];
	char *p;

	ok(sbx_path_clean("/"), "/ is clean");
	ok(sbx_path_clean("/a/b"), "/a/b is clean");
	ok(!sbx_path_clean("a/b"), "relative refused");
	ok(!sbx_path_clean("/a//b"), "// refused");
	ok(!sbx_path_clean("/a/../b"), ".. refused");
	ok(!sbx_path_clean("/a/."), "trailing . refused");
	ok(!sbx_path_clean("/a/"), "trailing slash refused");
	p = sbx_find_exec("sh", "/nonexistent:/bin:/usr/bin", err, sizeof(err));
	ok(p != NULL && axg_endswith(p, "/sh"), "sh found in PATH");
	free(p);
	ok(sbx_find_exec("axg-no-such", NULL, err, sizeof(err)) == NULL,
	    "a missing command");
	like_str(err, "/usr/bin:/bin", "default PATH named");
}

/* The built-in deny-list programs are what libseccomp compiles from the
 * deny list now (a stale seccomp-progs.c fails here). */
static void
test_seccomp_builtin(bool block, const struct sock_filter *f, size_t n)
{
	struct sock_fprog p;
	char err[256];

	if (seccomp_api_get() < 3) {
		/* valgrind, for one, does not pass seccomp() through */
		ok(sbx_seccomp_compile(block, &p, err, sizeof(err)) == -1,
		    "seccomp API level %u: the compiler refuses",
		    seccomp_api_get());
		like_str(err, "API level", "and says why");
		return;
	}
	ok(sbx_seccomp_compile(block, &p, err, sizeof(err)) == 0,
	    "%s mode: libseccomp compiles the deny list",
	    block ? "block" : "proxy");
	ok(p.len == n && memcmp(p.filter, f, n * sizeof(*f)) == 0,
	    "%s mode: the built-in program is the same (%zu insns)",
	    block ? "block" : "proxy", n);
	free(p.filter);
}

static void
test_seccomp(void)
{
	struct sock_fprog f[2];
	struct sbx_spec s;
	char err[256];
	uint32_t kill = SECCOMP_RET_KILL_PROCESS;

	test_seccomp_builtin(false, sbx_seccomp_prog_net,
	    sbx_seccomp_prog_net_len);
	test_seccomp_builtin(true, sbx_seccomp_prog_block,
	    sbx_seccomp_prog_block_len);
	sbx_spec_init(&s);
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &kill) != 0) {
		ok(sbx_seccomp_build(&s, f, err, sizeof(err)) == -1,
		    "no seccomp() here: the filters are refused");
		like_str(err, "CONFIG_SECCOMP_FILTER", "and says why");
		return;
	}
	ok(sbx_seccomp_build(&s, f, err, sizeof(err)) == 0,
	    "the job's filters");
	ok(f[0].len == sbx_seccomp_prog_net_len && f[0].filter != NULL &&
		memcmp(f[0].filter, sbx_seccomp_prog_net,
		    f[0].len * sizeof(*f[0].filter)) == 0,
	    "proxy mode: the deny list, %u insns", f[0].len);
	is_int(f[1].len, 14, "guard filter: 14 insns");
	sbx_seccomp_free(f);
	s.block_network = true;
	if (sbx_seccomp_build(&s, f, err, sizeof(err)) != 0)
		memset(f, 0, sizeof(f));
	ok(f[0].len == sbx_seccomp_prog_block_len &&
		memcmp(f[0].filter, sbx_seccomp_prog_block,
		    f[0].len * sizeof(*f[0].filter)) == 0,
	    "block mode: its own deny list, %u insns", f[0].len);
	ok(sbx_seccomp_prog_block_len != sbx_seccomp_prog_net_len,
	    "and the two differ");
	sbx_seccomp_free(f);
}

static void
test_cgroup(void)
{
	/* the controller lists of /proc/self/cgroup and of cgroup mounts */
	ok(sbx_in_list("pids", 4, "pids"), "a hierarchy of pids alone");
	ok(sbx_in_list("cpu,pids", 8, "pids") &&
		sbx_in_list("pids,cpu", 8, "pids"),
	    "pids shares its hierarchy with cpu, either side");
	ok(!sbx_in_list("pidsx,cpu", 9, "pids") &&
		!sbx_in_list("cpu,xpids", 9, "pids") &&
		!sbx_in_list("", 0, "pids") && !sbx_in_list("pids", 3, "pids"),
	    "only a whole name counts, within the given length");
	ok(sbx_in_list_ws("cpu memory pids\n", 16, "memory") &&
		sbx_in_list_ws("cpu memory pids\n", 16, "pids") &&
		sbx_in_list_ws("cpu", 3, "cpu"),
	    "cgroup.subtree_control: names apart by spaces, a newline last");
	ok(!sbx_in_list_ws("cpuset memory\n", 14, "cpu") &&
		!sbx_in_list_ws("", 0, "cpu") &&
		!sbx_in_list_ws("cpu memory", 2, "cpu"),
	    "cpuset is not cpu; only within the given length");
}

int
main(void)
{
	char err[256];
	int abi = sbx_landlock_abi(err, sizeof(err));

	ok(abi > 0 || strstr(err, "Landlock") != NULL,
	    "Landlock probe: ABI %d or a message", abi);
	test_env();
	test_user();
	test_paths();
	test_seccomp();
	test_cgroup();
	return tap_done();
}
