/*
 * writer.c: the bounded queue between the producers (the proxy's event
 * loop, the launcher) and the one thread that does all the audit I/O.
 *
 * Producers serialise the event themselves (no I/O, no lock) into a
 * buffer of their own, then take the mutex only to append the line to the
 * queue's last chunk: up to BATCH lines stored back to back in one buffer.
 * The writer takes the first chunk whole, releases the lock, and pushes it
 * to every sink, a file in one write() straight from the chunk's buffer;
 * a batch is done when every sink has all of it, and its chunk goes back
 * to a free list with its buffer.  So a line costs the producer one copy
 * and no allocation, and the writer one system call per batch.
 *
 * A sink that fails keeps the batch: it is retried with backoff, the queue
 * fills behind it, and the overflow policy decides what producers see.  So
 * a line is never lost while the writer runs, and never written twice to a
 * file.  The queue's capacity counts lines, whatever chunks hold them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "audit/audit-int.h"

#define BATCH		  256	      /* lines per chunk */
#define CHUNK_BYTES	  (512 << 10) /* a chunk this full takes no more */
#define CHUNK_KEEP_BYTES  (4 * CHUNK_BYTES) /* a bigger buffer is freed */
#define FREE_KEEP	  16		    /* idle chunks kept for reuse */
#define BACKOFF_MIN_MS	  20
#define BACKOFF_MAX_MS	  1000
#define DROP_REPORT_EVERY 1000 /* ms between drop reports under load */
#define LINGER_MS	  2    /* a short batch waits this long for more */

struct sink_state {
	struct ocsf_sink *sink;
	bool done;		 /* has the whole current batch */
	bool failing;		 /* last attempt failed */
	uint64_t last_report_ms; /* 0: never reported */
	uint64_t fails_since;	 /* failures since the last report */
};

/* Lines queued back to back.  lines[i].data is set when the writer takes
 * the chunk: until then the buffer may still move. */
struct chunk {
	struct chunk *next;
	struct axg_buf buf;
	size_t n;
	struct ocsf_line lines[BATCH];
};

struct ocsf_writer {
	struct ocsf_config cfg;
	struct ocsf_origin origin;
	char *origin_strs[5];
	struct sink_state sinks[OCSF_MAX_SINKS];
	size_t nsinks;

	pthread_t thread;
	bool thread_started;
	pthread_mutex_t mu;
	pthread_cond_t cv_work; /* the writer: lines, reopen, stop */
	pthread_cond_t cv_room; /* producers under block */
	pthread_cond_t cv_done; /* flush */
	pthread_cond_t cv_idle; /* ocsf_writer_hold(): busy went false */
	/* Held by ocsf_writer_hold(): mu is locked by holder until
	 * ocsf_writer_release(). */
	atomic_bool held;
	pthread_t holder;

	/* all below under mu */
	struct chunk *head, *tail; /* the queue, oldest first */
	struct chunk *free_chunks; /* reusable, with their buffers */
	size_t nfree;
	size_t cap, count; /* lines: the bound and those queued */
	size_t inflight;   /* lines the writer is delivering */
	size_t high, low;  /* deny watermarks */
	bool stopping;
	uint64_t stop_deadline_ms;
	bool reopen_req;
	bool writer_waiting; /* in cond_wait: producers must signal */
	bool busy;	     /* the writer works without mu (may allocate) */
	bool lingering;	     /* waiting for a fuller batch */
	int flushers;	     /* ocsf_writer_flush() callers waiting */
	uint64_t enq_seq;    /* lines ever queued */
	uint64_t done_seq;   /* lines ever finished (written or lost) */
	uint64_t submitted, written, dropped, lost, invalid, reopens;
	uint64_t dropped_reported;
	uint64_t last_drop_report_ms;
	bool invalid_warned;

	atomic_bool accepting;
	atomic_uint_fast64_t sink_errors;
};

static void
abstime_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static uint64_t
mono_ms(void)
{
	return axg_monotonic_ns() / 1000000;
}

/* ---- chunks (all under mu) ---- */

static bool
chunk_full(const struct chunk *c)
{
	return c->n == BATCH || c->buf.len >= CHUNK_BYTES;
}

static void
chunk_free(struct chunk *c)
{
	axg_buf_free(&c->buf);
	free(c);
}

/* A fresh chunk at the queue's end, from the free list if it has one. */
static struct chunk *
chunk_append(struct ocsf_writer *w)
{
	struct chunk *c = w->free_chunks;

	if (c != NULL) {
		w->free_chunks = c->next;
		w->nfree--;
	} else {
		c = axg_calloc(1, sizeof(*c));
		axg_buf_init(&c->buf, 0);
	}
	c->next = NULL;
	if (w->tail != NULL)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
	return c;
}

/* Back to the free list, keeping its buffer unless one huge line made it
 * big, or enough chunks wait already: then the caller frees it (after
 * unlocking: free() of a big buffer is a system call). */
static struct chunk *
chunk_recycle(struct ocsf_writer *w, struct chunk *c)
{
	if (w->nfree >= FREE_KEEP || c->buf.cap > CHUNK_KEEP_BYTES)
		return c;
	axg_buf_reset(&c->buf);
	c->n = 0;
	c->next = w->free_chunks;
	w->free_chunks = c;
	w->nfree++;
	return NULL;
}

/* ---- the writer thread ---- */

/* The writer leaves mu to work (write, format, allocate): busy says so,
 * and its end wakes ocsf_writer_hold(). */
static void
work_begin(struct ocsf_writer *w)
{
	w->busy = true;
	pthread_mutex_unlock(&w->mu);
}

static void
work_end(struct ocsf_writer *w)
{
	pthread_mutex_lock(&w->mu);
	w->busy = false;
	pthread_cond_broadcast(&w->cv_idle);
}

static void
do_reopen(struct ocsf_writer *w)
{
	char err[256];

	for (size_t i = 0; i < w->nsinks; i++) {
		if (ocsf_sink_reopen(w->sinks[i].sink, err, sizeof(err)) < 0) {
			atomic_fetch_add(&w->sink_errors, 1);
			axg_warn("audit: %s: reopen failed: %s; still writing "
				 "to the old file",
			    ocsf_sink_name(w->sinks[i].sink), err);
		}
	}
}

static void
sink_failed(struct ocsf_writer *w, struct sink_state *st, const char *err)
{
	uint64_t now = mono_ms();

	atomic_fetch_add(&w->sink_errors, 1);
	st->failing = true;
	st->fails_since++;
	if (st->last_report_ms == 0 ||
	    now - st->last_report_ms >= w->cfg.error_interval_ms) {
		axg_warn("audit: %s: %s (%llu failure%s since the last "
			 "report); retrying",
		    ocsf_sink_name(st->sink), err,
		    (unsigned long long)st->fails_since,
		    st->fails_since == 1 ? "" : "s");
		st->last_report_ms = now;
		st->fails_since = 0;
	}
}

/* Push one batch to every sink.  true when all have it; false when the
 * writer is stopping, its drain deadline has passed and some sink still
 * lacks it. */
static bool
deliver(struct ocsf_writer *w, const struct ocsf_batch *b)
{
	unsigned backoff = BACKOFF_MIN_MS;
	char err[256];
	bool ok = false;

	for (size_t i = 0; i < w->nsinks; i++) {
		w->sinks[i].done = false;
		ocsf_sink_begin(w->sinks[i].sink);
	}
	for (;;) {
		bool all = true, failed = false, reopen, give_up;

		for (size_t i = 0; i < w->nsinks; i++) {
			struct sink_state *st = &w->sinks[i];
			int rc;

			if (st->done)
				continue;
			rc = ocsf_sink_write(st->sink, b, w->cfg.fsync, err,
			    sizeof(err));
			if (rc == 0) {
				st->done = true;
				if (st->failing) {
					axg_info("audit: %s: writing again",
					    ocsf_sink_name(st->sink));
					st->failing = false;
					st->fails_since = 0;
				}
				continue;
			}
			all = false;
			if (rc < 0) {
				failed = true;
				sink_failed(w, st, err);
			}
		}
		if (all) {
			ok = true;
			break;
		}
		pthread_mutex_lock(&w->mu);
		give_up = w->stopping && mono_ms() >= w->stop_deadline_ms;
		/* waiting out a backoff is not work: a hold may come */
		w->busy = false;
		pthread_cond_broadcast(&w->cv_idle);
		if (failed && !give_up && !w->reopen_req && !w->stopping) {
			struct timespec ts;

			abstime_in(&ts, backoff);
			pthread_cond_timedwait(&w->cv_work, &w->mu, &ts);
			backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS
							       : backoff * 2;
		} else if (failed && w->stopping && !give_up) {
			struct timespec ts;

			abstime_in(&ts, BACKOFF_MIN_MS);
			pthread_cond_timedwait(&w->cv_work, &w->mu, &ts);
		}
		reopen = w->reopen_req;
		w->reopen_req = false;
		if (reopen)
			w->reopens++;
		work_begin(w);
		if (give_up)
			break;
		if (reopen)
			do_reopen(w);
	}
	return ok;
}

static void
finish(struct ocsf_writer *w, struct chunk *c, bool ok)
{
	size_t n = c->n;
	struct chunk *unused;

	pthread_mutex_lock(&w->mu);
	unused = chunk_recycle(w, c);
	w->inflight = 0;
	/* deny: the watermarks count what is not yet delivered, so a batch
	 * stuck on a dead sink keeps accepting() false */
	if (w->cfg.overflow == OCSF_OVERFLOW_DENY &&
	    !atomic_load(&w->accepting) && w->count <= w->low)
		atomic_store(&w->accepting, true);
	if (ok)
		w->written += n;
	else
		w->lost += n;
	w->done_seq += n;
	if (w->flushers > 0)
		pthread_cond_broadcast(&w->cv_done);
	pthread_mutex_unlock(&w->mu);
	if (unused != NULL)
		chunk_free(unused);
}

/* Called with mu held; may drop and retake it. */
static void
maybe_report_drops(struct ocsf_writer *w, bool force)
{
	struct ocsf_line l;
	struct ocsf_batch batch;
	struct axg_buf b;
	uint64_t now = mono_ms(), delta, total;
	bool ok;

	if (w->dropped <= w->dropped_reported)
		return;
	if (!force && w->count != 0 &&
	    now - w->last_drop_report_ms < DROP_REPORT_EVERY)
		return;
	delta = w->dropped - w->dropped_reported;
	total = w->dropped;
	w->dropped_reported = w->dropped;
	w->last_drop_report_ms = now;
	work_begin(w);

	axg_buf_init(&b, 0);
	ocsf__drop_report(&b, &w->origin, delta, total, &l.meta);
	l.data = b.data;
	l.len = b.len;
	batch = (struct ocsf_batch){ .data = b.data,
		.len = b.len,
		.lines = &l,
		.n = 1 };
	axg_warn("audit: %llu events dropped (queue full, policy %s)",
	    (unsigned long long)delta, ocsf_overflow_name(w->cfg.overflow));
	ok = deliver(w, &batch);
	axg_buf_free(&b);
	work_end(w);
	if (ok)
		w->written++;
	else
		w->lost++;
}

static void *
writer_main(void *arg)
{
	struct ocsf_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct ocsf_batch batch;
		struct chunk *c;
		const char *p;
		bool ok;

		while (w->count == 0 && !w->stopping && !w->reopen_req &&
		    w->dropped <= w->dropped_reported) {
			w->writer_waiting = true;
			pthread_cond_wait(&w->cv_work, &w->mu);
			w->writer_waiting = false;
		}
		/* A few lines only: wait a moment for more, so that a steady
		 * trickle costs one wake-up and one write() per batch, not
		 * per line.  Never when someone waits for the lines. */
		if (w->count > 0 && w->head == w->tail &&
		    !chunk_full(w->head) && !w->stopping && !w->reopen_req &&
		    w->flushers == 0) {
			struct timespec ts;

			abstime_in(&ts, LINGER_MS);
			w->writer_waiting = w->lingering = true;
			pthread_cond_timedwait(&w->cv_work, &w->mu, &ts);
			w->writer_waiting = w->lingering = false;
		}
		if (w->reopen_req) {
			w->reopen_req = false;
			w->reopens++;
			work_begin(w);
			do_reopen(w);
			work_end(w);
			continue;
		}
		maybe_report_drops(w, w->stopping);
		if (w->count == 0) {
			if (w->stopping)
				break;
			continue;
		}
		/* Take the oldest chunk whole: producers start a new one. */
		c = w->head;
		w->head = c->next;
		if (w->tail == c)
			w->tail = NULL;
		c->next = NULL;
		w->count -= c->n;
		w->inflight = c->n;
		pthread_cond_broadcast(&w->cv_room);
		work_begin(w);

		p = c->buf.data;
		for (size_t i = 0; i < c->n; i++) {
			c->lines[i].data = p;
			p += c->lines[i].len;
		}
		batch = (struct ocsf_batch){ .data = c->buf.data,
			.len = c->buf.len,
			.lines = c->lines,
			.n = c->n };
		ok = deliver(w, &batch);
		finish(w, c, ok);
		work_end(w);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* ---- the producer side ---- */

/* Does this thread hold w (ocsf_writer_hold)?  It must not lock mu. */
static bool
held_by_me(struct ocsf_writer *w)
{
	return atomic_load(&w->held) &&
	    pthread_equal(w->holder, pthread_self());
}

static int
submit(struct ocsf_writer *w, const struct axg_buf *b,
    const struct ocsf_meta *m)
{
	struct chunk *c;
	int rc = OCSF_QUEUED;
	bool wake = false;

	if (held_by_me(w))
		return OCSF_ERROR;
	pthread_mutex_lock(&w->mu);
	if (w->stopping) {
		rc = OCSF_ERROR;
		goto out;
	}
	w->submitted++;
	if (w->count == w->cap) {
		if (w->cfg.overflow != OCSF_OVERFLOW_BLOCK) {
			w->dropped++;
			rc = OCSF_DROPPED;
			goto out;
		}
		while (w->count == w->cap && !w->stopping)
			pthread_cond_wait(&w->cv_room, &w->mu);
		if (w->stopping) {
			rc = OCSF_ERROR;
			goto out;
		}
	}
	/* One copy, into the last chunk's buffer, which keeps its size
	 * from its last use: no allocation per line once the queue has
	 * run a while. */
	c = w->tail;
	if (c == NULL || chunk_full(c))
		c = chunk_append(w);
	axg_buf_append(&c->buf, b->data, b->len);
	c->lines[c->n].len = b->len;
	c->lines[c->n].meta = *m;
	c->n++;
	w->count++;
	w->enq_seq++;
	if (w->cfg.overflow == OCSF_OVERFLOW_DENY &&
	    w->count + w->inflight >= w->high)
		atomic_store(&w->accepting, false);
	/* wake the writer only if it sleeps, and while it lingers only
	 * once a chunk is full (or the queue half is) */
	wake = w->writer_waiting &&
	    (!w->lingering || w->head != w->tail || chunk_full(c) ||
		w->count >= w->cap / 2);
	/* signalled after unlocking, so that the writer does not wake only
	 * to wait for the mutex the producer still holds */
	if (wake)
		w->writer_waiting = false;
out:
	pthread_mutex_unlock(&w->mu);
	if (wake)
		pthread_cond_signal(&w->cv_work);
	return rc;
}

static int
emit_failed(struct ocsf_writer *w, const char *err)
{
	bool warn;

	pthread_mutex_lock(&w->mu);
	w->invalid++;
	warn = !w->invalid_warned;
	w->invalid_warned = true;
	pthread_mutex_unlock(&w->mu);
	if (warn)
		axg_warn("audit: event not written: %s", err);
	return OCSF_ERROR;
}

/* Each producer thread serialises into its own scratch buffer, kept
 * between events and freed when the thread exits. */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static _Thread_local struct axg_buf scratch;

static void
scratch_free(void *p)
{
	free(p);
}

static void
scratch_key_init(void)
{
	if (pthread_key_create(&scratch_key, scratch_free) != 0)
		axg_fatal(1, "audit: pthread_key_create failed");
}

static struct axg_buf *
scratch_get(void)
{
	pthread_once(&scratch_once, scratch_key_init);
	if (scratch.data == NULL)
		(void)axg_buf_reserve(&scratch, 4096);
	axg_buf_reset(&scratch);
	return &scratch;
}

static void
scratch_keep(void)
{
	if (pthread_getspecific(scratch_key) != scratch.data)
		(void)pthread_setspecific(scratch_key, scratch.data);
}

#define EMIT(kind, type)                                                       \
	int ocsf_emit_##kind(struct ocsf_writer *w, const struct type *ev)     \
	{                                                                      \
		struct axg_buf *b = scratch_get();                             \
		struct ocsf_meta m;                                            \
		char err[200];                                                 \
		int rc;                                                        \
                                                                               \
		if (ocsf__##kind(b, &w->origin, ev, &m, err, sizeof(err)) < 0) \
			rc = emit_failed(w, err);                              \
		else                                                           \
			rc = submit(w, b, &m);                                 \
		scratch_keep();                                                \
		return rc;                                                     \
	}

EMIT(net, ocsf_net_event)
EMIT(http, ocsf_http_event)
EMIT(finding, ocsf_finding_event)
EMIT(process, ocsf_process_event)
EMIT(api, ocsf_api_event)
EMIT(policy, ocsf_policy_event)
EMIT(app, ocsf_app_event)

int
ocsf_emit_line(struct ocsf_writer *w, const char *line, size_t len)
{
	struct ocsf_meta m;
	struct axg_buf b;
	json_error_t je;
	json_t *o, *c, *s, *t;
	int rc;

	if (len == 0 || len > OCSF_LINE_MAX || memchr(line, '\n', len))
		return emit_failed(w,
		    "relayed event: empty, too long or "
		    "more than one line");
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	c = json_object_get(o, "class_uid");
	s = json_object_get(o, "severity_id");
	t = json_object_get(o, "time");
	if (!json_is_integer(c) || !json_is_integer(s) || !json_is_integer(t) ||
	    json_integer_value(c) <= 0 || json_integer_value(c) > 999999 ||
	    json_integer_value(s) < 0 || json_integer_value(s) > 99) {
		json_decref(o);
		return emit_failed(w, "relayed event: not an OCSF event");
	}
	m.class_uid = (uint32_t)json_integer_value(c);
	m.severity_id = (uint8_t)json_integer_value(s);
	m.time_ms = (uint64_t)json_integer_value(t);
	json_decref(o);
	axg_buf_init(&b, 0);
	axg_buf_append(&b, line, len);
	axg_buf_putc(&b, '\n');
	rc = submit(w, &b, &m);
	axg_buf_free(&b);
	return rc;
}

bool
ocsf_writer_accepting(struct ocsf_writer *w)
{
	return atomic_load_explicit(&w->accepting, memory_order_relaxed);
}

void
ocsf_writer_reopen(struct ocsf_writer *w)
{
	pthread_mutex_lock(&w->mu);
	w->reopen_req = true;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->mu);
}

void
ocsf_writer_hold(struct ocsf_writer *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		pthread_cond_wait(&w->cv_idle, &w->mu);
	w->holder = pthread_self();
	atomic_store(&w->held, true);
}

void
ocsf_writer_release(struct ocsf_writer *w)
{
	if (w == NULL || !held_by_me(w))
		return;
	atomic_store(&w->held, false);
	pthread_mutex_unlock(&w->mu);
}

int
ocsf_writer_flush(struct ocsf_writer *w, unsigned timeout_ms)
{
	struct timespec ts;
	uint64_t target;
	int rc = 0;

	if (held_by_me(w))
		return -1;
	abstime_in(&ts, timeout_ms);
	pthread_mutex_lock(&w->mu);
	target = w->enq_seq;
	w->flushers++;
	pthread_cond_signal(&w->cv_work);
	while (w->done_seq < target) {
		if (pthread_cond_timedwait(&w->cv_done, &w->mu, &ts) ==
		    ETIMEDOUT) {
			rc = w->done_seq < target ? -1 : 0;
			break;
		}
	}
	w->flushers--;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

void
ocsf_writer_stats(struct ocsf_writer *w, struct ocsf_stats *out)
{
	pthread_mutex_lock(&w->mu);
	out->submitted = w->submitted;
	out->written = w->written;
	out->dropped = w->dropped;
	out->lost = w->lost;
	out->invalid = w->invalid;
	out->reopens = w->reopens;
	out->queued = w->count + w->inflight;
	out->capacity = w->cap;
	pthread_mutex_unlock(&w->mu);
	out->sink_errors = atomic_load(&w->sink_errors);
	out->accepting = atomic_load(&w->accepting);
}

/* ---- life cycle ---- */

static const char *
keep(struct ocsf_writer *w, size_t i, const char *s)
{
	if (s == NULL)
		return NULL;
	w->origin_strs[i] = axg_strdup(s);
	return w->origin_strs[i];
}

struct ocsf_writer *
ocsf_writer_new(const struct ocsf_config *c, const struct ocsf_origin *o,
    char *err, size_t errlen)
{
	struct ocsf_writer *w = axg_calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	pthread_mutexattr_t ma;
	struct ocsf_origin def;

	w->cfg = *c;
	if (w->cfg.queue_size < 4 || w->cfg.queue_size > (1u << 24)) {
		axg_seterr(err, errlen,
		    "audit queue size %zu: expected 4 .. 16777216",
		    c->queue_size);
		free(w);
		return NULL;
	}
	if (w->cfg.nsinks > OCSF_MAX_SINKS)
		w->cfg.nsinks = OCSF_MAX_SINKS;
	if (o == NULL) {
		ocsf_origin_default(&def);
		o = &def;
	}
	w->origin = *o;
	w->origin.device_hostname = keep(w, 0, o->device_hostname);
	w->origin.device_ip = keep(w, 1, o->device_ip);
	w->origin.process_name = keep(w, 2, o->process_name);
	w->origin.user_name = keep(w, 3, o->user_name);
	w->origin.user_uid = keep(w, 4, o->user_uid);

	/* adaptive: both sides hold the lock for well under a microsecond,
	 * so a short spin spares the producer a sleep on a busy lock */
	pthread_mutexattr_init(&ma);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(&w->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv_work, &ca);
	pthread_cond_init(&w->cv_room, &ca);
	pthread_cond_init(&w->cv_done, &ca);
	pthread_cond_init(&w->cv_idle, &ca);
	atomic_init(&w->held, false);
	pthread_condattr_destroy(&ca);
	w->cap = w->cfg.queue_size;
	w->high = w->cap - w->cap / 4;
	w->low = w->cap / 2;
	atomic_init(&w->accepting, true);
	atomic_init(&w->sink_errors, 0);

	for (size_t i = 0; i < w->cfg.nsinks; i++) {
		w->sinks[i].sink =
		    ocsf_sink_open(&w->cfg.sinks[i], &w->cfg, err, errlen);
		if (w->sinks[i].sink == NULL)
			goto fail;
		w->nsinks++;
	}
	if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
		axg_seterr(err, errlen,
		    "audit: cannot start the writer thread");
		goto fail;
	}
	w->thread_started = true;
	return w;
fail:
	ocsf_writer_free(w);
	return NULL;
}

void
ocsf_writer_free(struct ocsf_writer *w)
{
	if (w == NULL)
		return;
	ocsf_writer_release(w);
	pthread_mutex_lock(&w->mu);
	w->stopping = true;
	w->stop_deadline_ms = mono_ms() + w->cfg.drain_timeout_ms;
	pthread_cond_broadcast(&w->cv_work);
	pthread_cond_broadcast(&w->cv_room);
	pthread_mutex_unlock(&w->mu);
	if (w->thread_started)
		pthread_join(w->thread, NULL);
	if (w->count != 0 || w->lost != 0)
		axg_warn("audit: %llu events could not be written before "
			 "shutdown",
		    (unsigned long long)(w->count + w->lost));
	for (size_t i = 0; i < w->nsinks; i++)
		ocsf_sink_close(w->sinks[i].sink);
	for (size_t i = 0; i < AXG_ARRAY_LEN(w->origin_strs); i++)
		free(w->origin_strs[i]);
	while (w->head != NULL) {
		struct chunk *c = w->head;

		w->head = c->next;
		chunk_free(c);
	}
	while (w->free_chunks != NULL) {
		struct chunk *c = w->free_chunks;

		w->free_chunks = c->next;
		chunk_free(c);
	}
	pthread_cond_destroy(&w->cv_work);
	pthread_cond_destroy(&w->cv_room);
	pthread_cond_destroy(&w->cv_done);
	pthread_cond_destroy(&w->cv_idle);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
