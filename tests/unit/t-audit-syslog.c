/*
 * Syslog sinks against real sockets: RFC 5424 datagrams on a local unix
 * socket (down at first, then up: retried), and RFC 6587 octet-counted
 * frames to a TCP collector; several sinks at once.
 */
#include "config.h"

#include <jansson.h>
#include <sys/un.h>

#include "audit/audit.h"
#include "tests/tap.h"
#include "tests/unit/t-audit-helpers.h"

static void
net_event(struct ocsf_net_event *ev, enum ocsf_net_activity a, char *conn)
{
	memset(ev, 0, sizeof(*ev));
	ev->activity = a;
	ev->correlation_uid = "j-sys";
	ev->connection_uid = conn;
	ev->src.ip = "10.77.0.2";
	ev->src.uid = "j-sys";
	ev->dst.hostname = "api.github.com";
	ev->dst.port = 443;
	ev->rule = "r";
	ev->reason = "because";
	ev->time_ms = 1767225600123ULL;
}

/* "<PRI>1 2026-01-01T00:00:00.123Z HOST axgate PID ocsf-4001 - {json}" */
static bool
check_5424(const char *msg, int want_pri, const char *what)
{
	char host[300], app[64], msgid[64];
	int pri = -1, ver = -1, pid = -1, off = 0;
	char ts[64];
	json_error_t jerr;
	json_t *j;
	bool fine;

	fine = sscanf(msg, "<%d>%d %63s %299s %63s %d %63s - %n", &pri, &ver,
		   ts, host, app, &pid, msgid, &off) == 7 &&
	    off > 0;
	fine = fine && pri == want_pri && ver == 1 &&
	    strcmp(ts, "2026-01-01T00:00:00.123Z") == 0 &&
	    strcmp(app, "axgate") == 0 && pid == (int)getpid() &&
	    strcmp(msgid, "ocsf-4001") == 0;
	j = fine ? json_loads(msg + off, 0, &jerr) : NULL;
	fine = fine && j != NULL &&
	    json_integer_value(json_object_get(j, "class_uid")) == 4001;
	json_decref(j);
	if (!ok(fine, "%s: RFC 5424 header, PRI %d, then the event", what,
		want_pri))
		tap_diag("%s", msg);
	return fine;
}

static void
test_unix(void)
{
	char dir[] = "/tmp/t-audit-syslog.XXXXXX";
	char sock[200], spec[256], err[256], buf[65536];
	struct sockaddr_un sun;
	struct ocsf_config c;
	struct ocsf_writer *w;
	struct ocsf_net_event ev;
	struct ocsf_stats st;
	int fd, got = 0;

	if (mkdtemp(dir) == NULL) {
		tap_skip("unix syslog", "no temporary directory");
		return;
	}
	snprintf(sock, sizeof(sock), "%s/log", dir);
	snprintf(spec, sizeof(spec), "syslog:%s", sock);
	ocsf_config_init(&c);
	c.error_interval_ms = 60000;
	ok(ocsf_config_add_sink(&c, spec, err, sizeof(err)) == 0, "%s", spec);
	w = ocsf_writer_new(&c, NULL, err, sizeof(err));
	ok(w != NULL, "a writer starts while the syslog socket is missing");
	if (w == NULL)
		return;
	net_event(&ev, OCSF_NET_OPEN, "c1");
	is_int(ocsf_emit_net(w, &ev), OCSF_QUEUED, "an event is queued");
	for (int t = 0; t < 500; t++) {
		ocsf_writer_stats(w, &st);
		if (st.sink_errors >= 2)
			break;
		usleep(10000);
	}
	ok(st.sink_errors >= 2,
	    "the missing socket counts as sink errors "
	    "(%llu), retried",
	    (unsigned long long)st.sink_errors);
	is_int(st.written, 0, "nothing is written meanwhile");

	/* the syslog daemon comes up */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	axg_strlcpy(sun.sun_path, sock, sizeof(sun.sun_path));
	ok(fd >= 0 && bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0,
	    "bind the syslog socket");
	net_event(&ev, OCSF_NET_REFUSE, "c2");
	ocsf_emit_net(w, &ev);
	ok(ocsf_writer_flush(w, 10000) == 0, "both events delivered");
	for (int i = 0; i < 2; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 2000) != 1)
			break;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			break;
		buf[n] = '\0';
		got++;
		/* facility 13 (log audit): Open is informational (6),
		 * Refuse is Low, notice (5) */
		check_5424(buf, i == 0 ? 13 * 8 + 6 : 13 * 8 + 5,
		    i == 0 ? "first datagram" : "second datagram");
	}
	is_int(got, 2, "one datagram per event");
	ocsf_writer_free(w);
	close(fd);
	unlink(sock);
	rmdir(dir);
}

static void
test_tcp_and_file(void)
{
	struct collector col;
	char dir[] = "/tmp/t-audit-syslog.XXXXXX";
	char path[200], spec[256], err[256];
	struct ocsf_config c;
	struct ocsf_writer *w;
	struct ocsf_net_event ev;
	char conn[32];
	int fine = 0;
	FILE *fp;
	int lines = 0;
	char *line = NULL;
	size_t cap = 0;

	if (collector_start(&col) < 0 || mkdtemp(dir) == NULL) {
		tap_skip("tcp syslog", "cannot listen on 127.0.0.1");
		return;
	}
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	ocsf_config_init(&c);
	snprintf(spec, sizeof(spec), "syslog+tcp://127.0.0.1:%u",
	    (unsigned)col.port);
	ok(ocsf_config_add_sink(&c, spec, err, sizeof(err)) == 0, "%s", spec);
	snprintf(spec, sizeof(spec), "file:%s", path);
	ok(ocsf_config_add_sink(&c, spec, err, sizeof(err)) == 0,
	    "and a file sink beside it");
	w = ocsf_writer_new(&c, NULL, err, sizeof(err));
	ok(w != NULL, "writer starts");
	if (w == NULL)
		return;
	for (int i = 0; i < 300; i++) {
		snprintf(conn, sizeof(conn), "c%d", i);
		net_event(&ev, OCSF_NET_OPEN, conn);
		ocsf_emit_net(w, &ev);
	}
	ok(ocsf_writer_flush(w, 10000) == 0, "300 events flushed");
	ok(collector_wait(&col, 300, 10000), "the collector got 300 frames");
	is_int(col.bad_frames, 0, "every frame is 'LEN SP MSG'");
	pthread_mutex_lock(&col.mu);
	for (size_t i = 0; i < col.nmsgs && i < 300; i++) {
		char want[32];

		snprintf(want, sizeof(want), "\"uid\":\"c%zu\"", i);
		fine += strstr(col.msgs[i], want) != NULL &&
		    col.msgs[i][strlen(col.msgs[i]) - 1] == '}';
	}
	if (col.nmsgs > 0)
		check_5424(col.msgs[0], 13 * 8 + 6, "first frame");
	pthread_mutex_unlock(&col.mu);
	is_int(fine, 300, "frames in order, each a whole event");
	ocsf_writer_free(w);
	fp = fopen(path, "r");
	while (fp != NULL && getline(&line, &cap, fp) > 0)
		lines++;
	free(line);
	if (fp != NULL)
		fclose(fp);
	is_int(lines, 300, "the file sink has the same 300 events");
	unlink(path);
	rmdir(dir);
	collector_stop(&col);
}

int
main(void)
{
	test_unix();
	test_tcp_and_file();
	return tap_done();
}
