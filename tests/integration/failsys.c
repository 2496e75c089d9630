/*
 * failsys: run a command with one system call made to fail, to test that
 * the launcher fails closed when a kernel feature is missing.
 *
 *   failsys RULE [RULE...] -- COMMAND [ARGS]
 *
 * RULE is SYSCALL[(ARG)][:RESULT][:NTH]:
 *   SYSCALL  a name libseccomp knows (socket, unshare, landlock_create_ruleset)
 *   ARG      a condition on an argument: aN=V (equal), aN&M (any bit of M
 *            set), aN!V (not equal); numbers in C notation; up to three,
 *            each in its own parentheses, all must hold
 *   RESULT   an errno name (EPERM, ENOSYS, ...) or number (default EPERM),
 *            or =V to return V as a success (a fake ABI version, say)
 *   NTH      only the NTH matching call fails (1 is the first); with no NTH,
 *            every matching call does
 *
 * Without NTH the rule is a plain SCMP_ACT_ERRNO filter.  With NTH (or a
 * fake success) the calls are sent to this process through a seccomp
 * user-notification listener, counted, and either answered or let through
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  Seccomp filters are inherited by
 * every child, so the counter sees the calls of the whole process tree.
 *
 * sendmsg, close and execve cannot be counted or faked (the child makes them
 * after loading the filter, before the listener is handed over).
 *
 * With FAILSYS_PIDFILE set, the command's pid is written there before it
 * starts (the launcher's pid names what it leaves behind).
 *
 * failsys exits with the command's status (128+N for a signal), or 125 if
 * it could not set up.  Test tool: root (or no_new_privs) is needed to
 * install a filter.
 */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_RULES 8
#define FS_EXIT	  125
#define MAX_CONDS 3

struct rule {
	char name[64];
	int nr;
	struct cond {
		unsigned arg;
		enum scmp_compare op;
		uint64_t v;
	} conds[MAX_CONDS];
	size_t nconds;
	bool fake; /* return val as success */
	long val;  /* errno, or the fake value */
	unsigned long nth;
	unsigned long seen;
};

static struct rule rules[MAX_RULES];
static size_t nrules;

static const struct {
	const char *name;
	int e;
} errnos[] = {
	{ "EPERM", EPERM },
	{ "ENOENT", ENOENT },
	{ "EINTR", EINTR },
	{ "EIO", EIO },
	{ "ENOMEM", ENOMEM },
	{ "EACCES", EACCES },
	{ "EBUSY", EBUSY },
	{ "EEXIST", EEXIST },
	{ "EINVAL", EINVAL },
	{ "ENFILE", ENFILE },
	{ "EMFILE", EMFILE },
	{ "ENOSPC", ENOSPC },
	{ "EAGAIN", EAGAIN },
	{ "ENOSYS", ENOSYS },
	{ "EOPNOTSUPP", EOPNOTSUPP },
	{ "EPROTONOSUPPORT", EPROTONOSUPPORT },
	{ "EAFNOSUPPORT", EAFNOSUPPORT },
	{ "ENODEV", ENODEV },
	{ "ENOBUFS", ENOBUFS },
};

static void
usage(void)
{
	fprintf(stderr,
	    "usage: failsys SYSCALL[(aN=V|aN&M|aN!V)...][:ERRNO|:=V][:NTH]... "
	    "-- COMMAND [ARGS]\n");
	exit(FS_EXIT);
}

static bool
parse_num(const char *s, char **end, uint64_t *out)
{
	errno = 0;
	*out = strtoull(s, end, 0);
	return errno == 0 && *end != s;
}

static void
parse_rule(const char *spec, struct rule *r)
{
	const char *p = spec;
	size_t n = strcspn(p, "(:");
	char *end;

	memset(r, 0, sizeof(*r));
	r->val = EPERM;
	if (n == 0 || n >= sizeof(r->name))
		usage();
	memcpy(r->name, p, n);
	r->nr = seccomp_syscall_resolve_name(r->name);
	if (r->nr == __NR_SCMP_ERROR) {
		fprintf(stderr, "failsys: unknown system call '%s'\n", r->name);
		exit(FS_EXIT);
	}
	p += n;
	while (*p == '(') {
		struct cond *c = &r->conds[r->nconds];
		uint64_t idx, v;

		if (r->nconds == MAX_CONDS || p[1] != 'a' ||
		    !parse_num(p + 2, &end, &idx) || idx > 5)
			usage();
		c->arg = (unsigned)idx;
		switch (*end) {
		case '=':
			c->op = SCMP_CMP_EQ;
			break;
		case '&':
			c->op = SCMP_CMP_MASKED_EQ;
			break;
		case '!':
			c->op = SCMP_CMP_NE;
			break;
		default:
			usage();
		}
		if (!parse_num(end + 1, &end, &v) || *end != ')')
			usage();
		c->v = v;
		r->nconds++;
		p = end + 1;
	}
	if (*p == ':' && p[1] != ':' && p[1] != '\0') {
		p++;
		n = strcspn(p, ":");
		if (*p == '=') {
			uint64_t v;

			if (!parse_num(p + 1, &end, &v) || end != p + n)
				usage();
			r->fake = true;
			r->val = (long)v;
		} else if (*p >= '0' && *p <= '9') {
			uint64_t v;

			if (!parse_num(p, &end, &v) || end != p + n || v > 4095)
				usage();
			r->val = (long)v;
		} else {
			size_t i;

			for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
				if (strlen(errnos[i].name) == n &&
				    strncmp(errnos[i].name, p, n) == 0)
					break;
			if (i == sizeof(errnos) / sizeof(errnos[0])) {
				fprintf(stderr,
				    "failsys: unknown errno '%.*s'\n", (int)n,
				    p);
				exit(FS_EXIT);
			}
			r->val = errnos[i].e;
		}
		p += n;
	} else if (*p == ':' && p[1] == ':') {
		p++; /* default errno, NTH follows */
	}
	if (*p == ':') {
		uint64_t v;

		if (!parse_num(p + 1, &end, &v) || *end != '\0' || v == 0)
			usage();
		r->nth = (unsigned long)v;
		p = end;
	}
	if (*p != '\0')
		usage();
}

static bool
needs_notify(void)
{
	for (size_t i = 0; i < nrules; i++)
		if (rules[i].nth != 0 || rules[i].fake)
			return true;
	return false;
}

/* Add the rule, one libseccomp rule per bit of a masked condition ("any
 * bit of M"); at most one masked condition per rule. */
static int
add_rule(scmp_filter_ctx ctx, const struct rule *r, uint32_t action)
{
	struct scmp_arg_cmp c[MAX_CONDS];
	size_t masked = MAX_CONDS;

	for (size_t i = 0; i < r->nconds; i++) {
		const struct cond *d = &r->conds[i];

		if (d->op == SCMP_CMP_MASKED_EQ) {
			if (masked != MAX_CONDS)
				return -EINVAL;
			masked = i;
			continue;
		}
		c[i] = SCMP_CMP(d->arg, d->op, d->v);
	}
	if (masked == MAX_CONDS)
		return seccomp_rule_add_array(ctx, action, r->nr,
		    (unsigned)r->nconds, c);
	for (unsigned b = 0; b < 64; b++) {
		uint64_t bit = (uint64_t)1 << b;
		int rc;

		if (!(r->conds[masked].v & bit))
			continue;
		c[masked] = SCMP_CMP(r->conds[masked].arg, SCMP_CMP_MASKED_EQ,
		    bit, bit);
		rc = seccomp_rule_add_array(ctx, action, r->nr,
		    (unsigned)r->nconds, c);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Does the call match rule r's argument conditions? */
static bool
arg_matches(const struct rule *r, const struct seccomp_data *d)
{
	if (d->nr != r->nr)
		return false;
	for (size_t i = 0; i < r->nconds; i++) {
		const struct cond *c = &r->conds[i];
		uint64_t a = d->args[c->arg];

		if ((c->op == SCMP_CMP_EQ && a != c->v) ||
		    (c->op == SCMP_CMP_NE && a == c->v) ||
		    (c->op == SCMP_CMP_MASKED_EQ && (a & c->v) == 0))
			return false;
	}
	return true;
}

static void
write_pidfile(pid_t pid)
{
	const char *path = getenv("FAILSYS_PIDFILE");
	FILE *f;

	if (path == NULL || *path == '\0')
		return;
	f = fopen(path, "w");
	if (f == NULL || fprintf(f, "%ld\n", (long)pid) < 0 || fclose(f) != 0) {
		fprintf(stderr, "failsys: %s: %s\n", path, strerror(errno));
		exit(FS_EXIT);
	}
}

static int
send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char b = 'f';
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

static int
recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char b;
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	int fd;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	if (recvmsg(sock, &mh, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm == NULL || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Answer one notification: count it against the first rule it matches. */
static void
answer(int lfd, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	for (size_t i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];

		if (!arg_matches(r, &req->data))
			continue;
		r->seen++;
		if (r->nth != 0 && r->seen != r->nth)
			break;
		resp->flags = 0;
		if (r->fake) {
			resp->val = r->val;
		} else {
			resp->val = -1;
			resp->error = (int32_t)-r->val;
		}
		break;
	}
	/* ENOENT: the caller died meanwhile; nothing to do. */
	(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

static int
supervise(int lfd, pid_t child)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	int st = 0;

	if (seccomp_notify_alloc(&req, &resp) != 0) {
		fprintf(stderr, "failsys: seccomp_notify_alloc failed\n");
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return FS_EXIT;
	}
	(void)sz;
	for (;;) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		pid_t p = waitpid(child, &st, WNOHANG);
		int n;

		if (p == child)
			break;
		/* No filtered task left: wait for the command. */
		n = poll(&pfd, 1, 100);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (pfd.revents & (POLLHUP | POLLERR)) {
			while (waitpid(child, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		memset(req, 0, sizeof(*req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
			continue;
		answer(lfd, req, resp);
	}
	seccomp_notify_free(req, resp);
	close(lfd);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	bool notify;
	int i, sv[2], lfd = -1;
	pid_t child;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (nrules == MAX_RULES)
			usage();
		parse_rule(argv[i], &rules[nrules++]);
	}
	if (nrules == 0 || i >= argc - 1)
		usage();
	argv += i + 1;
	notify = needs_notify();
	/* In notify mode the child makes these calls between loading the
	 * filter and the exec, before anyone listens: they would hang. */
	for (size_t r = 0; notify && r < nrules; r++)
		if (strcmp(rules[r].name, "sendmsg") == 0 ||
		    strcmp(rules[r].name, "close") == 0 ||
		    strcmp(rules[r].name, "execve") == 0) {
			fprintf(stderr,
			    "failsys: %s cannot be counted (NTH) or faked\n",
			    rules[r].name);
			return FS_EXIT;
		}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0) {
		fprintf(stderr, "failsys: seccomp_init failed\n");
		return FS_EXIT;
	}
	for (size_t r = 0; r < nrules; r++) {
		uint32_t act = notify ? SCMP_ACT_NOTIFY
				      : SCMP_ACT_ERRNO((uint16_t)rules[r].val);
		int rc = add_rule(ctx, &rules[r], act);

		if (rc < 0) {
			fprintf(stderr, "failsys: rule %s: %s\n", rules[r].name,
			    strerror(-rc));
			return FS_EXIT;
		}
	}
	if (!notify) {
		write_pidfile(getpid());
		if (seccomp_load(ctx) != 0) {
			fprintf(stderr, "failsys: loading the filter failed\n");
			return FS_EXIT;
		}
		seccomp_release(ctx);
		execvp(argv[0], argv);
		fprintf(stderr, "failsys: %s: %s\n", argv[0], strerror(errno));
		return FS_EXIT;
	}
	/* The child installs the filter, hands the listener over, execs. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "failsys: socketpair: %s\n", strerror(errno));
		return FS_EXIT;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "failsys: fork: %s\n", strerror(errno));
		return FS_EXIT;
	}
	if (child == 0) {
		close(sv[0]);
		if (seccomp_load(ctx) != 0) {
			fprintf(stderr, "failsys: loading the filter failed\n");
			_exit(FS_EXIT);
		}
		lfd = seccomp_notify_fd(ctx);
		if (lfd < 0 || send_fd(sv[1], lfd) < 0) {
			fprintf(stderr, "failsys: passing the listener\n");
			_exit(FS_EXIT);
		}
		close(lfd);
		close(sv[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "failsys: %s: %s\n", argv[0], strerror(errno));
		_exit(FS_EXIT);
	}
	seccomp_release(ctx);
	close(sv[1]);
	write_pidfile(child);
	lfd = recv_fd(sv[0]);
	close(sv[0]);
	if (lfd < 0) {
		int st;

		waitpid(child, &st, 0);
		return FS_EXIT;
	}
	return supervise(lfd, child);
}
