/*
 * bench-audit: how fast events are serialised and written to a file, as a
 * ratio against a plain write() of the same bytes measured in the same
 * run, and what one enqueue costs the producer (the proxy's event loop):
 * median, p99 and max.
 *
 *   bench-audit [EVENTS]      (default 300000)
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"

static const struct ocsf_origin origin = {
	.device_hostname = "gw-1",
	.device_ip = "192.0.2.10",
	.pid = 3100,
	.process_name = "axgate",
};

static char conn[32];

/* A typical CONNECT: the proxy's most frequent event. */
static void
event(struct ocsf_net_event *ev, int i)
{
	snprintf(conn, sizeof(conn), "c-%d", i);
	memset(ev, 0, sizeof(*ev));
	ev->activity = i % 10 == 9 ? OCSF_NET_CLOSE : OCSF_NET_OPEN;
	ev->correlation_uid = "j-1f3a";
	ev->connection_uid = conn;
	ev->src.ip = "10.77.0.2";
	ev->src.port = 40312;
	ev->src.uid = "j-1f3a";
	ev->dst.hostname = "api.github.com";
	ev->dst.ip = "140.82.112.5";
	ev->dst.port = 443;
	ev->policy.name = "coding-agent";
	ev->policy.uid = "sha256:9f2c41d0";
	ev->policy.version = "7";
	ev->rule = "github";
	ev->reason = "api.github.com:443 is in the allowed hosts";
	ev->bytes_in = 912345;
	ev->bytes_out = 18234;
	ev->start_ms = 1767225600123ULL;
	ev->end_ms = 1767225660789ULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double
cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300000; /* checksrc: allow */
	char dir[] = "/tmp/bench-audit.XXXXXX";
	char path[256], spec[300], err[256];
	struct ocsf_net_event ev;
	struct axg_buf batch, one;
	struct ocsf_config c;
	struct ocsf_writer *w;
	struct ocsf_stats st;
	uint64_t t0, t_fmt, t_plain, t_total, *lat, slow = 0;
	double c0, c_fmt, c_plain, c_total;
	size_t bytes = 0;
	int fd, rounds;
	double ev_plain, ev_fmt, ev_total;

	if (n < 1000)
		n = 1000;
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	lat = axg_calloc((size_t)n, sizeof(*lat));

	/* 1. serialisation alone; the first 256 lines make the baseline's
	 * batch */
	axg_buf_init(&batch, 0);
	axg_buf_init(&one, 0);
	t0 = axg_monotonic_ns();
	c0 = cpu_now();
	for (int i = 0; i < n; i++) {
		event(&ev, i);
		axg_buf_reset(&one);
		ocsf_format_net(&one, &origin, &ev, err, sizeof(err));
		bytes += one.len;
		if (i < 256)
			axg_buf_append(&batch, one.data, one.len);
	}
	t_fmt = axg_monotonic_ns() - t0;
	c_fmt = cpu_now() - c0;

	/* 2. baseline: write() the same number of bytes, one batch of 256
	 * lines per call, as the writer does */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	if (fd < 0)
		return 1;
	rounds = (int)((bytes + batch.len - 1) / batch.len);
	t0 = axg_monotonic_ns();
	c0 = cpu_now();
	for (int r = 0; r < rounds; r++)
		if (write(fd, batch.data, batch.len) != (ssize_t)batch.len)
			return 1;
	t_plain = axg_monotonic_ns() - t0;
	c_plain = cpu_now() - c0;
	close(fd);
	unlink(path);

	/* 3. the real thing: emit through a writer to a file sink */
	ocsf_config_init(&c);
	snprintf(spec, sizeof(spec), "file:%s", path);
	ocsf_config_add_sink(&c, spec, err, sizeof(err));
	w = ocsf_writer_new(&c, &origin, err, sizeof(err));
	if (w == NULL) {
		fprintf(stderr, "bench-audit: %s\n", err);
		return 1;
	}
	/* steady state: the queue's line buffers are allocated once, on
	 * its first fill, and reused after; fill it once before timing */
	for (int i = 0; i < (int)c.queue_size + 512; i++) {
		event(&ev, i);
		ocsf_emit_net(w, &ev);
	}
	ocsf_writer_flush(w, 600000);
	fd = open(path, O_WRONLY);
	if (fd < 0 || ftruncate(fd, 0) != 0)
		return 1;
	close(fd);
	t0 = axg_monotonic_ns();
	c0 = cpu_now();
	for (int i = 0; i < n; i++) {
		uint64_t a;

		event(&ev, i);
		a = axg_monotonic_ns();
		ocsf_emit_net(w, &ev);
		lat[i] = axg_monotonic_ns() - a;
		slow += lat[i] > 1000000;
	}
	ocsf_writer_flush(w, 600000);
	t_total = axg_monotonic_ns() - t0;
	c_total = cpu_now() - c0;
	ocsf_writer_stats(w, &st);
	ocsf_writer_free(w);
	unlink(path);
	rmdir(dir);

	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	ev_fmt = n / secs(t_fmt);
	ev_plain = n / secs(t_plain);
	ev_total = n / secs(t_total);
	printf("audit: %d events, %zu bytes each on average\n", n,
	    bytes / (size_t)n);
	printf("  %-40s %10s %8s %14s\n", "", "events/s", "ratio",
	    "events/cpu-s");
	printf("  %-40s %10.0f %7.2fx %14.0f\n",
	    "plain write() of the same bytes", ev_plain, 1.0, n / c_plain);
	printf("  %-40s %10.0f %7.2fx %14.0f\n", "serialise only", ev_fmt,
	    ev_fmt / ev_plain, n / c_fmt);
	printf("  %-40s %10.0f %7.2fx %14.0f\n",
	    "serialise + queue + write to a file", ev_total,
	    ev_total / ev_plain, n / c_total);
	printf("  target >= 500000 events/s serialised and written: %s\n",
	    ev_total >= 500000 ? "met" : "NOT met on this run");
	printf("  (after one queue's worth of warm-up events, %zu)\n",
	    c.queue_size + 512);
	printf("  written %llu, dropped %llu, sink errors %llu\n",
	    (unsigned long long)st.written, (unsigned long long)st.dropped,
	    (unsigned long long)st.sink_errors);
	printf("  producer-side emit (serialise + enqueue): median %.2f us, "
	       "p99 %.2f us, p99.9 %.2f us, max %.1f us; %llu over 1 ms\n",
	    (double)lat[n / 2] / 1e3, (double)lat[(size_t)n * 99 / 100] / 1e3,
	    (double)lat[(size_t)n * 999 / 1000] / 1e3, (double)lat[n - 1] / 1e3,
	    (unsigned long long)slow);
	axg_buf_free(&batch);
	axg_buf_free(&one);
	free(lat);
	return 0;
}
