/*
 * The overflow policies with a sink that is killed (a TCP syslog collector
 * that goes away and comes back) and with one that stops reading:
 *   block  the producer waits, and nothing is lost;
 *   drop   the producer never waits; drops are counted and reported in a
 *          later event (which the OCSF validator accepts);
 *   deny   accepting() turns false before anything is dropped and true
 *          again once the queue drained.
 * A failing sink is reported on stderr once per interval, counted and
 * retried.
 */
#include "config.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <jansson.h>

#include "audit/audit.h"
#include "tests/tap.h"
#include "tests/unit/t-audit-helpers.h"

#define QSIZE 64

static struct collector col;

static void
fill(struct ocsf_net_event *ev, char *conn, size_t connsz, const char *tag,
    int i)
{
	snprintf(conn, connsz, "%s-%d", tag, i);
	memset(ev, 0, sizeof(*ev));
	ev->activity = OCSF_NET_OPEN;
	ev->correlation_uid = "j-ovf";
	ev->connection_uid = conn;
	ev->src.ip = "10.77.0.2";
	ev->src.uid = "j-ovf";
	ev->dst.hostname = "api.github.com";
	ev->dst.port = 443;
	ev->rule = "github";
	ev->reason = "allowed host";
}

static int
emit(struct ocsf_writer *w, const char *tag, int i)
{
	struct ocsf_net_event ev;
	char conn[48];

	fill(&ev, conn, sizeof(conn), tag, i);
	return ocsf_emit_net(w, &ev);
}

/* How many collected messages carry tag-i for each i < n: counts[i]. */
static void
tally(const char *tag, int n, int *counts, int *reports, uint64_t *reported)
{
	char pfx[64];
	size_t pl;

	snprintf(pfx, sizeof(pfx), "\"uid\":\"%s-", tag);
	pl = strlen(pfx);
	memset(counts, 0, sizeof(*counts) * (size_t)n);
	pthread_mutex_lock(&col.mu);
	for (size_t k = 0; k < col.nmsgs; k++) {
		const char *p = strstr(col.msgs[k], pfx);
		const char *d = strstr(col.msgs[k], "\"dropped_events\":");

		if (p != NULL) {
			int i = (int)strtol(p + pl, NULL, 10);

			if (i >= 0 && i < n)
				counts[i]++;
		}
		if (d != NULL && reports != NULL) {
			(*reports)++;
			*reported += strtoull(d + 17, NULL, 10);
		}
	}
	pthread_mutex_unlock(&col.mu);
}

/* Wait until every tag-i (i < n, want[i] set or want NULL) has arrived,
 * up to ms, then until the collector has been quiet for 200 ms, and
 * tally: a count that is short because frames were still on their way
 * (a loaded machine) is not a loss, and a late duplicate still shows. */
static void
tally_settled(const char *tag, int n, const int *want, int *counts, unsigned ms)
{
	size_t last = 0;

	for (unsigned t = 0; t < ms; t += 10) {
		int missing = 0;

		tally(tag, n, counts, NULL, NULL);
		for (int i = 0; i < n && missing == 0; i++)
			missing += (want == NULL || want[i]) && counts[i] == 0;
		if (missing == 0)
			break;
		usleep(10000);
	}
	for (unsigned t = 0; t < 5000; t += 200) {
		size_t now = collector_count(&col);

		if (now == last)
			break;
		last = now;
		usleep(200000);
	}
	tally(tag, n, counts, NULL, NULL);
}

static struct ocsf_writer *
start_writer(enum ocsf_overflow policy)
{
	struct ocsf_config c;
	char spec[64], err[256];
	struct ocsf_writer *w;

	ocsf_config_init(&c);
	c.queue_size = QSIZE;
	c.overflow = policy;
	c.error_interval_ms = 60000;
	c.drain_timeout_ms = 2000;
	snprintf(spec, sizeof(spec), "syslog+tcp://127.0.0.1:%u",
	    (unsigned)col.port);
	(void)ocsf_config_add_sink(&c, spec, err, sizeof(err));
	w = ocsf_writer_new(&c, NULL, err, sizeof(err));
	if (w == NULL)
		tap_diag("writer: %s", err);
	return w;
}

/* Connect, deliver one event, then kill the collector while idle. */
static size_t
warm_up_and_kill(struct ocsf_writer *w, const char *tag)
{
	size_t before = collector_count(&col);

	emit(w, tag, 999999);
	(void)ocsf_writer_flush(w, 5000);
	(void)collector_wait(&col, before + 1, 5000);
	collector_kill(&col);
	return collector_count(&col);
}

static void
wait_sink_errors(struct ocsf_writer *w, uint64_t n)
{
	struct ocsf_stats st;

	for (int t = 0; t < 500; t++) {
		ocsf_writer_stats(w, &st);
		if (st.sink_errors >= n)
			return;
		usleep(10000);
	}
}

/* ---- block ---- */

struct blocker {
	struct ocsf_writer *w;
	const char *tag;
	int n;
	atomic_int done;
};

static void *
block_producer(void *arg)
{
	struct blocker *b = arg;

	for (int i = 0; i < b->n; i++) {
		emit(b->w, b->tag, i);
		atomic_store(&b->done, i + 1);
	}
	return NULL;
}

/* Wait until the producer's progress stops for 300 ms with the queue
 * full: a producer that is merely slow (a loaded machine) is not yet
 * blocked. */
static bool
stalled(struct blocker *b)
{
	int last = -1;

	for (int t = 0; t < 200; t++) {
		int now = atomic_load(&b->done);
		struct ocsf_stats st;

		if (now == b->n)
			return false;
		ocsf_writer_stats(b->w, &st);
		if (now == last && st.queued >= st.capacity)
			return true;
		last = now;
		usleep(300000);
	}
	return false;
}

static void
test_block(bool kill, int n)
{
	const char *tag = kill ? "bk" : "bp";
	struct ocsf_writer *w = start_writer(OCSF_OVERFLOW_BLOCK);
	struct blocker b = { .w = w, .tag = tag, .n = n };
	struct ocsf_stats st;
	pthread_t th;
	int *counts = axg_calloc((size_t)n, sizeof(int));
	int once = 0;
	size_t base = collector_count(&col);

	if (w == NULL) {
		free(counts);
		return;
	}
	if (kill)
		base = warm_up_and_kill(w, tag);
	else
		atomic_store(&col.paused, true);
	pthread_create(&th, NULL, block_producer, &b);
	ok(stalled(&b), "block, collector %s: the producer waits",
	    kill ? "killed" : "not reading");
	ocsf_writer_stats(w, &st);
	ok(st.queued >= QSIZE, "  with the queue full (%zu queued)", st.queued);
	is_int(st.dropped, 0, "  and nothing dropped");
	if (kill) {
		ok(st.sink_errors > 0,
		    "  the dead collector counts as sink "
		    "errors (%llu)",
		    (unsigned long long)st.sink_errors);
		collector_restart(&col);
	} else {
		atomic_store(&col.paused, false);
	}
	pthread_join(th, NULL);
	ok(ocsf_writer_flush(w, 30000) == 0, "  it resumes and drains");
	(void)collector_wait(&col, base + (size_t)n, 30000);
	tally_settled(tag, n, NULL, counts, 30000);
	for (int i = 0; i < n; i++)
		once += counts[i] == 1;
	is_int(once, n, "  all %d events arrive exactly once", n);
	ocsf_writer_free(w);
	free(counts);
}

/* ---- drop ---- */

static void
test_drop(void)
{
	enum { N = 3000 };
	struct ocsf_writer *w = start_writer(OCSF_OVERFLOW_DROP);
	struct ocsf_stats st;
	int queued = 0, dropped = 0, other = 0, once = 0, lost = 0, dup = 0;
	int reports = 0;
	uint64_t reported = 0;
	size_t base;
	static int counts[N], want[N];
	int ret[N];

	if (w == NULL)
		return;
	base = warm_up_and_kill(w, "dr");
	for (int i = 0; i < N; i++) {
		ret[i] = emit(w, "dr", i);
		if (ret[i] == OCSF_QUEUED)
			queued++;
		else if (ret[i] == OCSF_DROPPED)
			dropped++;
		else
			other++;
	}
	ok(dropped > 0,
	    "drop, collector killed: the producer never waits; "
	    "%d queued, %d dropped",
	    queued, dropped);
	is_int(other, 0, "  every emit says queued or dropped");
	ocsf_writer_stats(w, &st);
	is_int(st.dropped, dropped, "  the stats count the drops");
	ok(ocsf_writer_accepting(w), "  accepting() stays true under drop");
	wait_sink_errors(w, 1);
	collector_restart(&col);
	ok(ocsf_writer_flush(w, 30000) == 0,
	    "  the collector comes back and "
	    "the queue drains");
	(void)collector_wait(&col, base + (size_t)queued + 1, 30000);
	for (int i = 0; i < N; i++)
		want[i] = ret[i] == OCSF_QUEUED;
	tally_settled("dr", N, want, counts, 30000);
	tally("dr", N, counts, &reports, &reported);
	for (int i = 0; i < N; i++) {
		if (ret[i] == OCSF_QUEUED)
			once += counts[i] == 1, lost += counts[i] == 0,
			    dup += counts[i] > 1;
		else
			dup += counts[i] != 0;
	}
	is_int(once, queued, "  every queued event arrives once");
	is_int(lost + dup, 0, "  none lost, none extra");
	ok(reports >= 1, "  a later event reports the drops (%d reports)",
	    reports);
	is_int(reported, dropped, "  the reports add up to the drops");
	/* the report itself is valid OCSF */
	{
		char path[] = "/tmp/t-audit-drop.XXXXXX", out[4096];
		int fd = mkstemp(path), rc;

		pthread_mutex_lock(&col.mu);
		for (size_t k = 0; fd >= 0 && k < col.nmsgs; k++) {
			const char *j = strstr(col.msgs[k], " - {");

			if (j != NULL && strstr(j, "dropped_events") != NULL) {
				(void)!write(fd, j + 3, strlen(j + 3));
				(void)!write(fd, "\n", 1);
			}
		}
		pthread_mutex_unlock(&col.mu);
		rc = run_validator(path, out, sizeof(out));
		if (rc == -2)
			tap_skip("drop report validates",
			    "AXG_SHARED_DIR has no ocsf/ocsf-validate");
		else if (!ok(rc == 0, "  the drop report passes ocsf-validate"))
			tap_diag("%s", out);
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
	ocsf_writer_free(w);
}

/* ---- deny ---- */

static void
test_deny(void)
{
	enum { N = 2000 };
	struct ocsf_writer *w = start_writer(OCSF_OVERFLOW_DENY);
	struct ocsf_stats st;
	int emitted = 0, refused = 0, once = 0, extra = 0;
	static int counts[N], want[N];
	bool flipped = false;
	size_t base;

	if (w == NULL)
		return;
	base = warm_up_and_kill(w, "dn");
	/* the proxy: ask before each connection, refuse while false */
	for (int i = 0; i < N; i++) {
		if (!ocsf_writer_accepting(w)) {
			refused++;
			continue;
		}
		if (emit(w, "dn", emitted) != OCSF_QUEUED)
			break;
		emitted++;
	}
	ok(refused > 0,
	    "deny, collector killed: accepting() turns false "
	    "(%d connections refused after %d events)",
	    refused, emitted);
	ocsf_writer_stats(w, &st);
	is_int(st.dropped, 0, "  before any event is dropped");
	ok(!st.accepting, "  and the stats say so");
	usleep(200000);
	ok(!ocsf_writer_accepting(w),
	    "  it stays false while the sink is "
	    "down");
	collector_restart(&col);
	for (int t = 0; t < 1000 && !flipped; t++) {
		flipped = ocsf_writer_accepting(w);
		usleep(10000);
	}
	ok(flipped, "  and turns true again once the audit caught up");
	ok(ocsf_writer_flush(w, 30000) == 0, "  the queue drains");
	(void)collector_wait(&col, base + (size_t)emitted, 30000);
	for (int i = 0; i < N; i++)
		want[i] = i < emitted;
	tally_settled("dn", N, want, counts, 30000);
	for (int i = 0; i < N; i++) {
		if (i < emitted)
			once += counts[i] == 1;
		else
			extra += counts[i];
	}
	is_int(once, emitted, "  every accepted event arrives exactly once");
	is_int(extra, 0, "  and nothing else");
	ocsf_writer_free(w);
}

/* ---- failure reports ---- */

static void
test_error_reports(void)
{
	char path[] = "/tmp/t-audit-stderr.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), lines = 0;
	struct ocsf_writer *w;
	struct ocsf_stats st;
	char buf[8192];
	ssize_t n;

	if (fd < 0 || saved < 0) {
		tap_skip("error reports", "no temporary file");
		return;
	}
	dup2(fd, 2);
	w = start_writer(OCSF_OVERFLOW_DROP);
	warm_up_and_kill(w, "er");
	emit(w, "er", 0);
	wait_sink_errors(w, 4);
	ocsf_writer_stats(w, &st);
	collector_restart(&col);
	(void)ocsf_writer_flush(w, 10000);
	ocsf_writer_free(w);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	for (char *p = buf; (p = strstr(p, "retrying")) != NULL; p++)
		lines++;
	ok(st.sink_errors >= 4, "a dead collector: %llu failed attempts",
	    (unsigned long long)st.sink_errors);
	is_int(lines, 1, "  reported on stderr once per interval");
	like_str(buf, "syslog+tcp://127.0.0.1:", "  naming the sink");
	like_str(buf, "writing again", "  and its recovery");
	close(fd);
	unlink(path);
}

/* ---- hold (for a fork) ---- */

/* ocsf_writer_hold(): the writer's thread is stopped between work, the
 * holder cannot emit or flush (an error, not a hang), other producers
 * wait, and after ocsf_writer_release() all of it arrives.  A child
 * forked while the writer is held allocates every size class and exits
 * (the hang this guards against needs an allocator lock held at the
 * fork; here no thread can hold one). */
static void
test_hold(void)
{
	struct ocsf_writer *w = start_writer(OCSF_OVERFLOW_BLOCK);
	struct blocker b = { .w = w, .tag = "hd", .n = 50 };
	size_t base = collector_count(&col);
	int counts[50] = { 0 }, once = 0, st = -1;
	pthread_t th;
	pid_t pid;

	if (w == NULL)
		return;
	for (int i = 0; i < 20; i++)
		emit(w, "hp", i);
	ocsf_writer_hold(w);
	ok(emit(w, "hx", 0) == OCSF_ERROR,
	    "hold: the holder's emit fails instead of waiting for itself");
	is_int(ocsf_writer_flush(w, 100), -1, "  and so does its flush");
	pthread_create(&th, NULL, block_producer, &b);
	usleep(200000);
	is_int(atomic_load(&b.done), 0, "  another producer waits");
	pid = fork();
	if (pid == 0) {
		for (size_t sz = 8; sz < (1u << 20); sz = sz * 5 / 4 + 8)
			free(malloc(sz));
		_exit(0);
	}
	for (int t = 0; t < 100 && pid > 0; t++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		usleep(50000);
	}
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "  a child forked meanwhile allocates and exits");
	ocsf_writer_release(w);
	pthread_join(th, NULL);
	ok(ocsf_writer_flush(w, 30000) == 0, "  released, everything drains");
	(void)collector_wait(&col, base + 20 + 50, 30000);
	tally_settled("hd", 50, NULL, counts, 30000);
	for (int i = 0; i < 50; i++)
		once += counts[i] == 1;
	is_int(once, 50, "  the waiting producer's events arrive once each");
	ocsf_writer_free(w);
}

int
main(void)
{
	alarm(300); /* a hang is a failure, not a stuck build */
	if (collector_start(&col) < 0)
		tap_skip_all("cannot listen on 127.0.0.1");
	test_block(true, 3000);
	test_block(false, 12000);
	test_drop();
	test_deny();
	test_error_reports();
	test_hold();
	collector_stop(&col);
	return tap_done();
}
