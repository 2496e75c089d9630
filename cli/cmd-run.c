/*
 * cmd-run.c: axgate run: start a job behind the gate.
 *
 * Load the policy (or the built-in default), build the job's network
 * (netns/), start the proxy in a confined child of its own on the host end
 * of the job's veth (server/), confine and start the job (sandbox/), write
 * Process Activity events for its launch and its end (the proxy child's
 * events are relayed into the same sinks), and exit with the job's
 * status.  Every step
 * that cannot be applied stops the launch with a message and removes what
 * was set up: nothing runs with less isolation than the policy asked for.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cli/cli.h"
#include "common/common.h"
#include "netns/netns.h"
#include "policy/gate.h"
#include "policy/value.h"
#include "proxy/proxy.h"
#include "safety/safety.h"
#include "sandbox/sandbox.h"
#include "server/server.h"

/* The port the proxy listens on, on the host end of the job's veth. */
#define RUN_PROXY_PORT	   3128
#define RUN_INFERENCE_PORT 80 /* inference.local, origin form */

#define MAX_GRANTS 256
#define MAX_ENV	   256

/* AXGATE_TRACE_LAUNCH=1: the time of each step of the launch on stderr,
 * from monotonic timestamps (what `make bench` profiles). */
struct run_trace {
	bool on;
	uint64_t start, last;
};

/* The policy, in two halves: the document (the YAML, checked by the
 * loader) at once, and the compiled gate (the built-in Rego rules and the
 * policy's own modules) only when something will query it or when the
 * policy brings modules of its own, whose errors must stop the launch in
 * every mode.  Block and allow modes query nothing: the proxy is the only
 * user of the rules.  In proxy mode the compilation runs on a thread while
 * the network is built, and is joined before the proxy child is forked. */
struct run_policy {
	char *text; /* the YAML, owned (NULL: the built-in default) */
	const char *yaml;
	size_t len;
	const char *name;
	const struct axp_polfile_opts *opts;
	pthread_t th;
	bool running;
	struct gate *gate;
	struct axp_polfile_errors errs;
	/* proxy mode: the credential scanner's rules, for the proxy child
	 * (NULL if they did not compile: the child reports why) */
	const struct axv *doc;
	struct leak_ruleset *scan_rules;
};

/* What the job's spec points into; freed together. */
struct run_ctx {
	struct gate *gate;
	struct axv *doc;
	struct run_policy pol;
	pid_t proxy; /* the proxy child, or 0 */
	bool proxy_signalled;
	int ready_fd; /* its readiness pipe until it said it is ready */
	struct run_trace *tr;
	int audit_fd; /* the launcher's end of the child's events */
	struct srv_relay *relay;
	struct sbx_grant grants[MAX_GRANTS];
	size_t ngrants;
	const char *env_allow[MAX_ENV + 1];
	const char *env_set[MAX_ENV + 2];
	char *owned[MAX_ENV + 1];
	size_t nowned;
	/* Proxy mode: the job's network (net_build()), taken by net_get()
	 * right before the clone. */
	struct ns_job_net *net;
	char net_err[512];
	/* proxy mode: filled in by net_get() */
	char proxy_addr[INET_ADDRSTRLEN];
	bool with_audit;
	const char *user;
	bool policy_failed; /* the gate did not compile: errors printed */
	struct ocsf_writer *writer;
	int hosts_fd;
	char jobid[24];
	char cmdline[1024];
	bool cmdline_done;
	char hosts[64]; /* the job's /etc/hosts, "" if none */
};

/* Paths the sandbox always grants read-only: a read-only grant of one of
 * them (or below) adds nothing, and several are symlinks on merged-/usr
 * systems, which the sandbox refuses as grants. */
static bool
system_path(const char *p)
{
	static const char *const sys[] = { "/usr", "/bin", "/sbin", "/lib",
		"/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc" };

	for (size_t i = 0; i < AXG_ARRAY_LEN(sys); i++) {
		size_t n = strlen(sys[i]);

		if (strncmp(p, sys[i], n) == 0 && (p[n] == '\0' || p[n] == '/'))
			return true;
	}
	return false;
}

static int
add_grants(struct run_ctx *rc, struct axv *fs, const char *key,
    enum sbx_access access, char *err, size_t errlen)
{
	struct axv *list = fs ? axv_object_gets(fs, key) : NULL;
	struct stat st;

	for (size_t i = 0; list != NULL && i < axv_array_len(list); i++) {
		const char *p = axv_str(axv_array_get(list, i));

		if (access == SBX_READ_ONLY && system_path(p))
			continue;
		/* The job always has a private /tmp of its own. */
		if (strcmp(p, "/tmp") == 0 && access != SBX_DENY)
			continue;
		/* Nothing to hide where nothing is. */
		if (access == SBX_DENY && lstat(p, &st) < 0 && errno == ENOENT)
			continue;
		if (rc->ngrants == MAX_GRANTS)
			return axg_seterr(err, errlen,
			    "filesystem: more than %d grants", MAX_GRANTS);
		rc->grants[rc->ngrants].path = p;
		rc->grants[rc->ngrants].access = access;
		rc->ngrants++;
	}
	return 0;
}

static uint32_t
limit(struct axv *proc, const char *key)
{
	struct axv *v = proc ? axv_object_gets(proc, key) : NULL;
	int64_t i;

	if (v == NULL || !axv_num_get_i64(v, &i) || i < 0 || i > UINT32_MAX)
		return 0;
	return (uint32_t)i;
}

static int
build_env(struct run_ctx *rc, struct axv *proc, char *err, size_t errlen)
{
	struct axv *env = proc ? axv_object_gets(proc, "env") : NULL;
	struct axv *pass = env ? axv_object_gets(env, "pass") : NULL;
	struct axv *set = env ? axv_object_gets(env, "set") : NULL;
	size_t na = 0, ns = 0;
	bool path_given = false;

	for (size_t i = 0; pass != NULL && i < axv_array_len(pass); i++) {
		if (na == MAX_ENV)
			return axg_seterr(err, errlen,
			    "process.env.pass: more than %d names", MAX_ENV);
		rc->env_allow[na] = axv_str(axv_array_get(pass, i));
		if (strcmp(rc->env_allow[na], "PATH") == 0)
			path_given = true;
		na++;
	}
	for (size_t i = 0; set != NULL && i < axv_object_len(set); i++) {
		const char *k = axv_str(axv_object_key(set, i));
		char *kv;

		if (ns == MAX_ENV)
			return axg_seterr(err, errlen,
			    "process.env.set: more than %d names", MAX_ENV);
		kv = axg_asprintf("%s=%s", k, axv_str(axv_object_val(set, i)));
		rc->owned[rc->nowned++] = kv;
		rc->env_set[ns++] = kv;
		if (strcmp(k, "PATH") == 0)
			path_given = true;
	}
	/* A job needs a PATH to find its programs; give the system's. */
	if (!path_given)
		rc->env_set[ns++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	rc->env_allow[na] = NULL;
	rc->env_set[ns] = NULL;
	return 0;
}

static void
trace_init(struct run_trace *t)
{
	const char *e = getenv("AXGATE_TRACE_LAUNCH");

	t->on = e != NULL && strcmp(e, "1") == 0;
	t->start = t->last = axg_monotonic_ns();
	/* For a profile that also counts the program's start (exec to
	 * here) and its exit, from its parent's clock. */
	if (t->on)
		fprintf(stderr,
		    "axgate run: trace: start at %llu ns (CLOCK_MONOTONIC)\n",
		    (unsigned long long)t->start);
}

static void
trace_step(struct run_trace *t, const char *step)
{
	uint64_t now;

	if (!t->on)
		return;
	now = axg_monotonic_ns();
	fprintf(stderr, "axgate run: trace: %-16s %8.3f ms (at %8.3f ms)\n",
	    step, (double)(now - t->last) / 1e6,
	    (double)(now - t->start) / 1e6);
	t->last = now;
}

static void
make_jobid(char *out, size_t n)
{
	char uuid[37];

	ocsf_uuid4(uuid);
	snprintf(out, n, "j-%.8s", uuid);
}

/* A command line goes into the audit: credentials in it are redacted, by
 * the policy's rules (the built-in ones and its safety.rules) as the
 * proxy applies them: `have` when the proxy's are at hand, else compiled
 * from doc.  A scanner that cannot be built leaves a placeholder, never
 * the text. */
static void
redact_cmdline(char *s, size_t n, const struct axv *doc,
    const struct leak_ruleset *have)
{
	char err[256];
	struct leak_ruleset *own =
	    have != NULL ? NULL : srv_scan_rules_new(doc, err, sizeof(err));
	const struct leak_ruleset *rs = have != NULL ? have : own;
	struct leak_scan *sc = rs ? leak_scan_new(rs, err, sizeof(err)) : NULL;
	struct leak_findings f;

	leak_findings_init(&f);
	if (sc == NULL ||
	    leak_scan_buffer(sc, s, strlen(s), &f, err, sizeof(err)) < 0) {
		axg_strlcpy(s, "(not recorded: the credential scanner failed)",
		    n);
	} else if (f.n > 0) {
		size_t len;
		char *r = leak_redact(s, strlen(s), &f, &len);

		axg_strlcpy(s, r, n);
		free(r);
	}
	leak_findings_free(&f);
	leak_scan_free(sc);
	leak_ruleset_free(own);
}

static void
join_cmdline(char *out, size_t n, char **argv, const struct axv *doc,
    const struct leak_ruleset *have)
{
	struct axg_buf b;
	char *s;

	axg_buf_init(&b, n - 1);
	for (int i = 0; argv[i] != NULL; i++)
		if ((i > 0 && axg_buf_putc(&b, ' ') < 0) ||
		    axg_buf_puts(&b, argv[i]) < 0)
			break;
	s = axg_buf_steal(&b, NULL);
	axg_strlcpy(out, s, n);
	free(s);
	redact_cmdline(out, n, doc, have);
}

/* The redacted command line, once, for the first event that needs it:
 * with the proxy's scanner when it is compiled by then. */
static void
need_cmdline(struct run_ctx *rc, char **argv)
{
	if (rc->cmdline_done)
		return;
	if (rc->pol.running) {
		pthread_join(rc->pol.th, NULL);
		rc->pol.running = false;
	}
	join_cmdline(rc->cmdline, sizeof(rc->cmdline), argv, rc->doc,
	    rc->pol.scan_rules);
	rc->cmdline_done = true;
}

static void
emit_launch(struct ocsf_writer *w, struct run_ctx *rc, char **argv, int pid,
    bool failed, const char *detail)
{
	struct ocsf_process_event ev = { 0 };

	if (w == NULL)
		return;
	need_cmdline(rc, argv);
	ev.activity = OCSF_PROC_LAUNCH;
	ev.correlation_uid = rc->jobid;
	ev.failed = failed;
	ev.status_detail = detail;
	ev.pid = pid;
	ev.name = argv[0];
	ev.cmd_line = rc->cmdline;
	ev.created_ms = failed ? 0 : axg_now_ms();
	ocsf_emit_process(w, &ev);
}

static void
emit_exit(struct ocsf_writer *w, struct run_ctx *rc, char **argv,
    const struct sbx_result *res)
{
	struct ocsf_process_event ev = { 0 };

	if (w == NULL)
		return;
	need_cmdline(rc, argv);
	ev.activity = OCSF_PROC_TERMINATE;
	ev.correlation_uid = rc->jobid;
	ev.pid = res->job_pid;
	ev.name = argv[0];
	ev.cmd_line = rc->cmdline;
	ev.terminated_ms = axg_now_ms();
	ev.exit_code = res->exit_code;
	ev.signal = res->term_signal;
	if (res->timed_out)
		ev.status_detail = "timed out";
	else if (res->seccomp_killed)
		ev.status_detail = "killed by the seccomp filter";
	else if (res->oom_killed)
		ev.status_detail = "a task was killed at the memory limit "
				   "(process.max_memory_mb)";
	else if (res->init_error[0] != '\0')
		ev.status_detail = res->init_error;
	ocsf_emit_process(w, &ev);
}

extern const char axg_default_policy[];

static void
print_policy_errors(const struct axp_polfile_errors *errs)
{
	for (size_t i = 0; i < errs->n; i++)
		fprintf(stderr, "%s\n", errs->msg[i]);
	if (errs->truncated)
		fprintf(stderr, "axgate run: more problems not shown\n");
}

/* Read and check the policy file (NULL: the built-in default); fills
 * rc->doc, and *need_gate when the gate must be compiled outside proxy
 * mode too (the policy has Rego modules of its own).  Problems are
 * printed. */
static int
policy_load(struct run_ctx *rc, const char *path,
    const struct axp_polfile_opts *opts, bool *need_gate)
{
	struct run_policy *p = &rc->pol;
	struct axv *rego = NULL;
	char err[512];

	p->opts = opts;
	if (path == NULL) {
		p->name = AXG_DEFAULT_POLICY_NAME;
		p->yaml = axg_default_policy;
		p->len = strlen(axg_default_policy);
	} else {
		p->name = path;
		p->text = axg_read_file(path, AXP_POLFILE_MAX_BYTES, &p->len,
		    err, sizeof(err));
		if (p->text == NULL) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
		p->yaml = p->text;
	}
	rc->doc = axp_polfile_load_mem(p->name, p->yaml, p->len, opts, &p->errs,
	    &rego);
	if (rc->doc == NULL) {
		print_policy_errors(&p->errs);
		return -1;
	}
	*need_gate = axv_array_len(rego) > 0;
	axv_unref(rego);
	return 0;
}

/* The network mode, as gate_mode() gives it. */
static const char *
policy_mode(const struct axv *doc)
{
	struct axv *m =
	    axv_object_gets(axv_object_gets(doc, "network"), "mode");

	return m != NULL && axv_kind(m) == AXV_STRING ? axv_str(m) : "proxy";
}

static void *
policy_compile_main(void *arg)
{
	struct run_policy *p = arg;
	char err[256];

	p->gate = gate_load_mem(p->name, p->yaml, p->len, p->opts, &p->errs);
	/* The proxy child's scanner rules too: the child would otherwise
	 * compile them between its fork and its word that it is ready,
	 * while the job waits. */
	if (p->gate != NULL && p->doc != NULL)
		p->scan_rules = srv_scan_rules_new(p->doc, err, sizeof(err));
	return NULL;
}

/* Start compiling the gate; policy_join() waits for it.  Without a thread,
 * compiles here. */
static void
policy_compile_start(struct run_ctx *rc)
{
	if (pthread_create(&rc->pol.th, NULL, policy_compile_main, &rc->pol) ==
	    0)
		rc->pol.running = true;
	else
		policy_compile_main(&rc->pol);
}

/* The compiled gate in rc->gate, or -1 with its problems printed. */
static int
policy_join(struct run_ctx *rc)
{
	if (rc->pol.running) {
		pthread_join(rc->pol.th, NULL);
		rc->pol.running = false;
	}
	if (rc->gate == NULL) {
		rc->gate = rc->pol.gate;
		rc->pol.gate = NULL;
	}
	if (rc->gate == NULL) {
		print_policy_errors(&rc->pol.errs);
		return -1;
	}
	return 0;
}

/* The job's network in proxy mode, and the proxy child on its host end.
 * with_audit: the child's events come back on rc->audit_fd. */
/* Does the policy route inference requests? */
static bool
has_inference(const struct axv *doc)
{
	struct axv *inf, *routes;

	if (doc == NULL || axv_kind(doc) != AXV_OBJECT ||
	    (inf = axv_object_gets(doc, "inference")) == NULL ||
	    axv_kind(inf) != AXV_OBJECT ||
	    (routes = axv_object_gets(inf, "routes")) == NULL ||
	    axv_kind(routes) != AXV_ARRAY)
		return false;
	return axv_array_len(routes) > 0;
}

/* The job's /etc/hosts, made before the sandbox is prepared (which
 * binds it by name) and written by write_hosts() once the proxy's address
 * is known. */
static int
make_hosts(struct run_ctx *rc, char *err, size_t errlen)
{
	axg_strlcpy(rc->hosts, "/tmp/axgate-hosts-XXXXXX", sizeof(rc->hosts));
	rc->hosts_fd = mkstemp(rc->hosts);
	if (rc->hosts_fd < 0 || fchmod(rc->hosts_fd, 0644) < 0) {
		axg_seterr(err, errlen, "hosts file %s: %s", rc->hosts,
		    strerror(errno));
		if (rc->hosts_fd >= 0) {
			(void)unlink(rc->hosts);
			close(rc->hosts_fd);
		}
		rc->hosts[0] = '\0';
		rc->hosts_fd = -1;
		return -1;
	}
	return 0;
}

/* Its text: the host's, plus inference.local at the proxy. */
static int
write_hosts(struct run_ctx *rc, const char *addr, char *err, size_t errlen)
{
	char e[128];
	size_t len = 0;
	char *host = axg_read_file("/etc/hosts", 1 << 20, &len, e, sizeof(e));
	char *text;
	int rcode = 0;

	text = axg_asprintf("%s%s%s\n# axgate: the proxy answers inference "
			    "requests here\n%s inference.local\n",
	    host != NULL ? host : "127.0.0.1 localhost\n",
	    host != NULL && len > 0 && host[len - 1] != '\n' ? "\n" : "", "",
	    addr);
	free(host);
	if (write(rc->hosts_fd, text, strlen(text)) != (ssize_t)strlen(text))
		rcode = axg_seterr(err, errlen, "hosts file %s: %s", rc->hosts,
		    strerror(errno));
	close(rc->hosts_fd);
	rc->hosts_fd = -1;
	free(text);
	return rcode;
}

/* The proxy child on the host end of the job's network, which is built.
 * With rc->with_audit, the child's events come back on rc->audit_fd and
 * are relayed into rc->writer. */
static int
start_proxy(struct run_ctx *rc, struct ns_job_net *net, char *err,
    size_t errlen)
{
	bool inf = rc->hosts[0] != '\0';
	struct srv_child_opts co;
	struct px_config pc;
	struct sockaddr_in sin;
	int one = 1, lfd = -1, ifd = -1, sv[2] = { -1, -1 };

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(RUN_PROXY_PORT);
	if (inet_pton(AF_INET, ns_job_net_host_addr(net), &sin.sin_addr) != 1)
		return axg_seterr(err, errlen, "proxy: bad host address %s",
		    ns_job_net_host_addr(net));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(lfd, 512) < 0) {
		axg_seterr(err, errlen, "proxy: listening on %s:%d: %s",
		    ns_job_net_host_addr(net), RUN_PROXY_PORT, strerror(errno));
		goto fail;
	}
	sin.sin_port = htons(RUN_INFERENCE_PORT);
	if (!inf)
		goto no_inference;
	ifd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ifd < 0 ||
	    setsockopt(ifd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(ifd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(ifd, 512) < 0) {
		axg_seterr(err, errlen, "proxy: listening on %s:%d: %s",
		    ns_job_net_host_addr(net), RUN_INFERENCE_PORT,
		    strerror(errno));
		goto fail;
	}
	if (write_hosts(rc, ns_job_net_host_addr(net), err, errlen) < 0)
		goto fail;
no_inference:
	if (rc->with_audit &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		axg_seterr(err, errlen, "proxy: socketpair: %s",
		    strerror(errno));
		goto fail;
	}
	px_config_default(&pc);
	memset(&co, 0, sizeof(co));
	co.gate = rc->gate;
	co.listen_fd = lfd;
	co.inference_fd = ifd;
	co.audit_fd = sv[1];
	co.job = rc->jobid;
	co.user = rc->user;
	co.px = &pc;
	co.scan_rules = rc->pol.scan_rules;
	/* Forked now, waited for only right before the job execs
	 * (proxy_ready): it gets ready while the job is being set up. */
	rc->proxy = srv_proxy_child_fork(&co, &rc->ready_fd, err, errlen);
	if (rc->proxy < 0) {
		rc->proxy = 0;
		goto fail;
	}
	trace_step(rc->tr, "proxy fork");
	/* the child has its copy; ours redacts the command line (--audit)
	 * and goes at the end */
	close(lfd);
	if (ifd >= 0)
		close(ifd);
	if (sv[1] >= 0)
		close(sv[1]);
	rc->audit_fd = sv[0];
	if (rc->audit_fd >= 0) {
		rc->relay =
		    srv_relay_start(rc->audit_fd, rc->writer, err, errlen);
		if (rc->relay == NULL)
			return -1;
	}
	return 0;
fail:
	if (lfd >= 0)
		close(lfd);
	if (ifd >= 0)
		close(ifd);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	return -1;
}

/* sbx_spec.before_exec: the job is confined and waits for this before
 * its execve; the proxy child must be serving by then. */
static int
proxy_ready(void *arg, char *err, size_t errlen)
{
	struct run_ctx *rc = arg;
	int fd = rc->ready_fd;

	trace_step(rc->tr, "sandbox set-up");
	rc->ready_fd = -1;
	if (srv_proxy_child_ready(rc->proxy, fd, err, errlen) < 0) {
		rc->proxy = 0; /* reaped */
		return -1;
	}
	trace_step(rc->tr, "proxy ready");
	return 0;
}

/* Build the job's network: the host's side here, while the namespace gets
 * ready on a thread of its own (ns_job_net_new()).  (On a thread of its
 * own, the host's side started later than it took: waking an idle CPU of
 * a virtual machine costs about half a millisecond.)  A failure is in
 * rc->net_err, for net_get() to report after the policy's problems. */
static void
net_build(struct run_ctx *rc)
{
	static const uint16_t ports[] = { RUN_PROXY_PORT, RUN_INFERENCE_PORT };
	/* Port 80 only for a policy with inference routes.  The set-up first
	 * removes what killed launchers left behind: only proxy-mode jobs
	 * leave anything on the host (a block-mode namespace has no link and
	 * no host table, and dies with its last process). */
	struct ns_config nc = { .mode = NS_MODE_PROXY,
		.ports = ports,
		.nports = rc->hosts[0] != '\0' ? 2 : 1,
		.sweep = true };

	rc->net = ns_job_net_new(&nc, rc->net_err, sizeof(rc->net_err));
	trace_step(rc->tr, "network");
}

/* sbx_spec.netns_get in proxy mode: the sandbox is prepared, the clone is
 * next.  The proxy child starts here: once the network is up and the gate
 * compiled, with no other thread left to fork with. */
static int
net_get(void *arg, char *err, size_t errlen)
{
	struct run_ctx *rc = arg;
	struct ns_job_net *net = rc->net;

	trace_step(rc->tr, "sandbox prepare");
	/* A policy that does not compile is reported as such, whatever else
	 * failed meanwhile. */
	if (policy_join(rc) < 0) {
		rc->policy_failed = true;
		return axg_seterr(err, errlen,
		    "the policy's rules did not compile");
	}
	trace_step(rc->tr, "policy compile");
	if (net == NULL)
		return axg_seterr(err, errlen, "network: %s", rc->net_err);
	if (start_proxy(rc, net, err, errlen) < 0)
		return -1;
	axg_strlcpy(rc->proxy_addr, ns_job_net_host_addr(net),
	    sizeof(rc->proxy_addr));
	return ns_job_net_fd(net);
}

/* Tell the proxy child to stop, once: with events to flush, let it
 * finish them; with none, there is nothing to lose and no reason to wait
 * for its clean-up.  stop_proxy() reaps it; the launcher tears the
 * network down meanwhile. */
static void
signal_proxy(struct run_ctx *rc)
{
	if (rc->proxy > 0 && !rc->proxy_signalled) {
		kill(rc->proxy, rc->audit_fd >= 0 ? SIGTERM : SIGKILL);
		rc->proxy_signalled = true;
	}
}

/* Stop the proxy child and wait for the last of its events. */
static void
stop_proxy(struct run_ctx *rc)
{
	signal_proxy(rc);
	if (rc->proxy > 0) {
		while (waitpid(rc->proxy, NULL, 0) < 0 && errno == EINTR)
			;
		rc->proxy = 0;
	}
	if (rc->relay != NULL) {
		srv_relay_stop(rc->relay);
		rc->relay = NULL;
	}
}

/* See the end of cmd_run(); volatile, or the compiler drops the store to
 * a variable that nothing reads. */
static struct run_ctx *volatile run_left;

static const struct option longopts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "workspace", required_argument, NULL, 'w' },
	{ "audit", required_argument, NULL, 'a' },
	{ "user", required_argument, NULL, 'u' },
	{ "timeout", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
cmd_run(int argc, char **argv)
{
	const char *policy_path = NULL, *workspace = NULL, *user = NULL;
	const char *audits[OCSF_MAX_SINKS];
	size_t naudits = 0;
	uint64_t timeout = 0;
	struct run_ctx *rc = NULL;
	struct axp_polfile_opts popts;
	struct ocsf_writer *writer = NULL;
	struct ns_job_net *net = NULL;
	struct sbx_job *job = NULL;
	struct sbx_spec spec;
	struct sbx_result res = { 0 };
	char cwd[PATH_MAX], err[1024];
	const char *mode;
	bool proxy_failed = false, need_gate = false;
	struct axv *proc, *fs;
	struct run_trace tr;
	int c, status = SBX_EXIT_INTERNAL;

	trace_init(&tr);

	while ((c = getopt_long(argc, argv, "+p:w:a:u:t:h", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'p':
			policy_path = optarg;
			break;
		case 'w':
			workspace = optarg;
			break;
		case 'a':
			if (naudits == OCSF_MAX_SINKS) {
				fprintf(stderr,
				    "axgate run: at most %d "
				    "--audit sinks\n",
				    OCSF_MAX_SINKS);
				return AXG_EXIT_USAGE;
			}
			audits[naudits++] = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 't':
			if (axg_parse_u64(optarg, 1, 366u * 86400, &timeout) <
			    0) {
				fprintf(stderr,
				    "axgate run: --timeout: "
				    "'%s' is not a number of "
				    "seconds\n",
				    optarg);
				return AXG_EXIT_USAGE;
			}
			break;
		case 'h':
			axg_cmd_usage(&axg_cmd_run);
			return AXG_EXIT_OK;
		default:
			return axg_cmd_usage(&axg_cmd_run);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		fprintf(stderr, "axgate run: no command given\n");
		return axg_cmd_usage(&axg_cmd_run);
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		axg_fatal(SBX_EXIT_INTERNAL, "getcwd: %s", strerror(errno));
	if (workspace == NULL)
		workspace = cwd;
	if (workspace[0] != '/') {
		fprintf(stderr,
		    "axgate run: --workspace must be an absolute "
		    "path\n");
		return AXG_EXIT_USAGE;
	}

	rc = axg_calloc(1, sizeof(*rc));
	rc->audit_fd = -1;
	rc->ready_fd = -1;
	rc->hosts_fd = -1;
	rc->tr = &tr;
	rc->user = user;
	rc->with_audit = naudits > 0;
	popts.workspace = workspace;
	popts.tmpdir = "/tmp";
	popts.home = getenv("HOME") ? getenv("HOME") : "/root";
	if (policy_load(rc, policy_path, &popts, &need_gate) < 0) {
		status = AXG_EXIT_USAGE;
		goto out;
	}
	mode = policy_mode(rc->doc);
	if (strcmp(mode, "proxy") == 0) {
		rc->pol.doc = rc->doc;
		policy_compile_start(rc);
	} else if (need_gate) {
		policy_compile_main(&rc->pol);
		if (policy_join(rc) < 0) {
			status = AXG_EXIT_USAGE;
			goto out;
		}
	}
	make_jobid(rc->jobid, sizeof(rc->jobid));
	trace_step(&tr, "policy");

	/* Proxy mode: the network first (its namespace, the kernel's
	 * slowest step, on a thread of its own meanwhile), while the gate
	 * compiles on another; net_get() hands it to the sandbox right
	 * before the clone, and starts the proxy child.  Block mode: the
	 * clone makes the namespace (sbx_spec.netns_new). */
	if (strcmp(mode, "proxy") == 0) {
		if (has_inference(rc->doc) &&
		    make_hosts(rc, err, sizeof(err)) < 0) {
			fprintf(stderr, "axgate run: %s\n", err);
			status = SBX_EXIT_SETUP;
			proxy_failed = true;
		} else {
			net_build(rc);
		}
	}

	if (naudits > 0) {
		struct ocsf_config ac;
		struct ocsf_origin origin;

		ocsf_config_init(&ac);
		for (size_t i = 0; i < naudits; i++) {
			/* A bare path means a file. */
			char *spec_s = strchr(audits[i], ':') == NULL &&
				strcmp(audits[i], "stdout") != 0 &&
				strcmp(audits[i], "syslog") != 0
			    ? axg_asprintf("file:%s", audits[i])
			    : axg_strdup(audits[i]);
			int r =
			    ocsf_config_add_sink(&ac, spec_s, err, sizeof(err));

			free(spec_s);
			if (r < 0) {
				fprintf(stderr, "axgate run: --audit: %s\n",
				    err);
				status = AXG_EXIT_USAGE;
				goto out;
			}
		}
		ocsf_origin_default(&origin);
		writer = ocsf_writer_new(&ac, &origin, err, sizeof(err));
		if (writer == NULL) {
			fprintf(stderr, "axgate run: audit: %s\n", err);
			status = SBX_EXIT_REFUSED;
			goto out;
		}
		rc->writer = writer;
	}
	trace_step(&tr, "audit");
	if (proxy_failed) {
		emit_launch(writer, rc, argv, 0, true, err);
		goto out;
	}

	sbx_spec_init(&spec);
	spec.argv = argv;
	spec.workspace = workspace;
	spec.user = user;
	fs = axv_object_gets(rc->doc, "filesystem");
	proc = axv_object_gets(rc->doc, "process");
	if (add_grants(rc, fs, "read_only", SBX_READ_ONLY, err, sizeof(err)) <
		0 ||
	    add_grants(rc, fs, "read_write", SBX_READ_WRITE, err, sizeof(err)) <
		0 ||
	    add_grants(rc, fs, "deny", SBX_DENY, err, sizeof(err)) < 0 ||
	    build_env(rc, proc, err, sizeof(err)) < 0) {
		fprintf(stderr, "axgate run: %s\n", err);
		status = SBX_EXIT_REFUSED;
		goto out;
	}
	spec.grants = rc->grants;
	spec.n_grants = rc->ngrants;
	spec.env_allow = rc->env_allow;
	spec.env_set = rc->env_set;
	spec.max_processes = limit(proc, "max_processes");
	spec.max_memory_mb = limit(proc, "max_memory_mb");
	spec.cpu_rate_percent = limit(proc, "cpu_rate_percent");
	spec.timeout_sec =
	    timeout ? (uint32_t)timeout : limit(proc, "timeout_sec");
	spec.reap_later = true; /* this process exits right after the job */

	if (strcmp(mode, "proxy") == 0) {
		spec.netns_get = net_get;
		spec.netns_get_arg = rc;
		spec.proxy_addr = rc->proxy_addr; /* filled in by net_get() */
		spec.proxy_port = RUN_PROXY_PORT;
		spec.before_exec = proxy_ready;
		spec.before_exec_arg = rc;
		if (rc->hosts[0] != '\0') {
			spec.inference_port = RUN_INFERENCE_PORT;
			spec.hosts_file = rc->hosts;
		}
	} else if (strcmp(mode, "block") == 0) {
		spec.netns_new = true;
		spec.block_network = true;
	} else {
		axg_warn("network.mode is 'allow': the job's network traffic "
			 "is NOT gated (development only)");
	}

	/* The sandbox's init is cloned and the proxy child forked while
	 * the audit writer's thread is still (see ocsf_writer_hold). */
	ocsf_writer_hold(writer);
	status = sbx_spawn(&spec, &job, err, sizeof(err));
	ocsf_writer_release(writer);
	if (rc->policy_failed) {
		status = AXG_EXIT_USAGE; /* its problems are printed */
		goto out;
	}
	if (status != 0) {
		fprintf(stderr, "axgate run: %s\n", err);
		emit_launch(writer, rc, argv, 0, true, err);
		goto out;
	}
	trace_step(&tr, "sandbox spawn");
	emit_launch(writer, rc, argv, sbx_job_pid(job), false, NULL);
	status = sbx_wait(job, &res);
	trace_step(&tr, "job ran");
	if (res.init_error[0] != '\0')
		fprintf(stderr,
		    "axgate run: the sandbox's init stopped the job: %s\n",
		    res.init_error);
	if (res.oom_killed)
		fprintf(stderr,
		    "axgate run: the job reached its memory limit "
		    "(process.max_memory_mb): the kernel killed a task\n");
	emit_exit(writer, rc, argv, &res);
out:
	sbx_job_free(job);
	if (rc != NULL)
		net = rc->net;
	/* The proxy child exits while the network is torn down: it is on
	 * the host's side, and the job it served is gone. */
	if (rc != NULL)
		signal_proxy(rc);
	/* Only the sandbox's init joined the namespace, and by now it has
	 * killed and reaped every other process of its PID namespace and is
	 * exiting, or is reaped (a failed launch): nothing to look for. */
	/* and the process that deletes the host's table */
	ocsf_writer_hold(writer);
	ns_job_net_free_empty(net);
	ocsf_writer_release(writer);
	trace_step(&tr, "network free");
	if (rc != NULL)
		stop_proxy(rc);
	trace_step(&tr, "proxy stop");
	ocsf_writer_free(writer);
	trace_step(&tr, "audit close");
	if (rc != NULL) {
		if (rc->audit_fd >= 0)
			close(rc->audit_fd);
		if (rc->ready_fd >= 0)
			close(rc->ready_fd);
		if (rc->hosts_fd >= 0)
			close(rc->hosts_fd);
		if (rc->hosts[0] != '\0')
			(void)unlink(rc->hosts);
		if (rc->pol.running)
			pthread_join(rc->pol.th, NULL);
		/* The process exits next: the compiled policy and rules
		 * (thousands of blocks, and the regexes' JIT code, a quarter
		 * of a millisecond to free) are left to the exit, still
		 * reachable for leak checkers. */
		run_left = rc;
	}
	trace_step(&tr, "free");
	return status;
}

const struct axg_cmd axg_cmd_run = {
	.name = "run",
	.summary = "run a job behind the egress gate",
	.usage =
	    "axgate run [--policy FILE] [--workspace DIR] [--audit SINK]... "
	    "[--user USER] [--timeout SEC] -- COMMAND [ARGS]\n",
	.run = cmd_run,
};
