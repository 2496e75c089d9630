/* Unit tests of audit/config.c: sink specs and overflow policies; and the
 * fd: sink with ocsf_emit_line(), the relay of another process's events. */
#include "config.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "audit/audit.h"
#include "tests/tap.h"

static void
test_good_specs(void)
{
	struct ocsf_sink_spec s;
	char err[256];

	ok(ocsf_sink_spec_parse("file:/var/log/axgate.jsonl", &s, err,
	       sizeof(err)) == 0 &&
		s.kind == OCSF_SINK_FILE,
	    "file:PATH");
	is_str(s.target, "/var/log/axgate.jsonl", "the path");
	ok(ocsf_sink_spec_parse("stdout", &s, err, sizeof(err)) == 0 &&
		s.kind == OCSF_SINK_STDOUT,
	    "stdout");
	ok(ocsf_sink_spec_parse("-", &s, err, sizeof(err)) == 0 &&
		s.kind == OCSF_SINK_STDOUT,
	    "- is stdout");
	ok(ocsf_sink_spec_parse("syslog", &s, err, sizeof(err)) == 0 &&
		s.kind == OCSF_SINK_SYSLOG,
	    "syslog");
	is_str(s.target, "/dev/log", "defaults to /dev/log");
	ok(ocsf_sink_spec_parse("syslog:/run/x.sock", &s, err, sizeof(err)) ==
		    0 &&
		s.kind == OCSF_SINK_SYSLOG,
	    "syslog:SOCKET");
	is_str(s.target, "/run/x.sock", "the socket path");
	ok(ocsf_sink_spec_parse("syslog+tcp://127.0.0.1:6514", &s, err,
	       sizeof(err)) == 0 &&
		s.kind == OCSF_SINK_SYSLOG_TCP,
	    "syslog+tcp://HOST:PORT");
	is_str(s.target, "127.0.0.1", "the host");
	is_str(s.port, "6514", "the port");
	ok(ocsf_sink_spec_parse("syslog+tcp://[::1]:514", &s, err,
	       sizeof(err)) == 0,
	    "an IPv6 collector in brackets");
	is_str(s.target, "::1", "the IPv6 host without brackets");
	ok(ocsf_sink_spec_parse("syslog+tcp://siem.example.org:6514", &s, err,
	       sizeof(err)) == 0,
	    "a collector by name");
}

static void
test_bad_specs(void)
{
	static const struct {
		const char *spec;
		const char *msg;
	} bad[] = {
		{ "", "empty spec" },
		{ "file:", "empty path" },
		{ "syslog:relative.sock", "must be absolute" },
		{ "syslog+tcp://127.0.0.1", "HOST:PORT" },
		{ "syslog+tcp://127.0.0.1:0", "not 1..65535" },
		{ "syslog+tcp://127.0.0.1:65536", "not 1..65535" },
		{ "syslog+tcp://127.0.0.1:x", "not 1..65535" },
		{ "syslog+tcp://::1:514", "brackets" },
		{ "syslog+tcp://[::1:514", "[ADDRESS]:PORT" },
		{ "syslog+tcp://:514", "empty host" },
		{ "kafka://x", "expected file:PATH" },
	};
	struct ocsf_sink_spec s;
	char err[256];

	for (size_t i = 0; i < AXG_ARRAY_LEN(bad); i++) {
		err[0] = '\0';
		ok(ocsf_sink_spec_parse(bad[i].spec, &s, err, sizeof(err)) ==
			-1,
		    "'%s' is refused", bad[i].spec);
		like_str(err, bad[i].msg, "  with a message saying why");
	}
}

static void
test_config(void)
{
	struct ocsf_config c;
	enum ocsf_overflow o;
	char err[256];

	ocsf_config_init(&c);
	is_int(c.nsinks, 0, "no sinks by default");
	is_int(c.overflow, OCSF_OVERFLOW_BLOCK, "block by default");
	is_int(c.queue_size, 65536, "a 65536-event queue by default");
	for (int i = 0; i < OCSF_MAX_SINKS; i++)
		(void)ocsf_config_add_sink(&c, "stdout", err, sizeof(err));
	is_int(c.nsinks, OCSF_MAX_SINKS, "sinks up to the maximum");
	ok(ocsf_config_add_sink(&c, "stdout", err, sizeof(err)) == -1,
	    "one more is refused");
	like_str(err, "at most", "  saying the limit");
	ok(ocsf_overflow_parse("drop", &o, err, sizeof(err)) == 0 &&
		o == OCSF_OVERFLOW_DROP,
	    "drop");
	ok(ocsf_overflow_parse("deny", &o, err, sizeof(err)) == 0 &&
		o == OCSF_OVERFLOW_DENY,
	    "deny");
	ok(ocsf_overflow_parse("block", &o, err, sizeof(err)) == 0 &&
		o == OCSF_OVERFLOW_BLOCK,
	    "block");
	ok(ocsf_overflow_parse("wait", &o, err, sizeof(err)) == -1,
	    "an unknown policy is refused");
	like_str(err, "block, drop or deny", "  listing the choices");
	is_str(ocsf_overflow_name(OCSF_OVERFLOW_DENY), "deny", "names");
}

static void
test_writer_config_errors(void)
{
	struct ocsf_config c;
	char err[256];

	ocsf_config_init(&c);
	c.queue_size = 1;
	ok(ocsf_writer_new(&c, NULL, err, sizeof(err)) == NULL,
	    "a queue of 1 is refused");
	like_str(err, "queue size", "  naming the field");
	ocsf_config_init(&c);
	(void)ocsf_config_add_sink(&c, "file:/nonexistent-dir/x/audit.jsonl",
	    err, sizeof(err));
	ok(ocsf_writer_new(&c, NULL, err, sizeof(err)) == NULL,
	    "a file sink that cannot be opened fails the start");
	like_str(err, "/nonexistent-dir/x/audit.jsonl", "  naming the path");
}

/* A writer on an fd: sink hands whole lines to the other end; a relayed
 * line is checked before it is queued. */
static void
test_fd_sink_and_relay(void)
{
	struct ocsf_config c;
	struct ocsf_origin o;
	struct ocsf_app_event app;
	struct ocsf_writer *w;
	struct ocsf_stats st;
	struct ocsf_sink_spec s;
	char err[256], spec[32], buf[8192];
	int sv[2];
	ssize_t n;

	ok(ocsf_sink_spec_parse("fd:7", &s, err, sizeof(err)) == 0 &&
		s.kind == OCSF_SINK_FD,
	    "fd:N");
	ok(ocsf_sink_spec_parse("fd:x", &s, err, sizeof(err)) < 0,
	    "fd: needs a number");
	like_str(err, "not a file descriptor number", "and says so");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		ok(0, "socketpair");
		return;
	}
	ocsf_config_init(&c);
	snprintf(spec, sizeof(spec), "fd:%d", sv[1]);
	ocsf_config_add_sink(&c, spec, err, sizeof(err));
	ocsf_origin_default(&o);
	w = ocsf_writer_new(&c, &o, err, sizeof(err));
	ok(w != NULL, "a writer on an fd: sink");
	memset(&app, 0, sizeof(app));
	app.activity = OCSF_APP_START;
	is_int(ocsf_emit_app(w, &app), OCSF_QUEUED, "an event queued");
	ocsf_writer_flush(w, 2000);
	n = read(sv[0], buf, sizeof(buf) - 1);
	ok(n > 0 && buf[n - 1] == '\n', "arrives as one line");
	buf[n > 0 ? n - 1 : 0] = '\0';
	like_str(buf, "\"class_uid\":6002", "the event");

	is_int(ocsf_emit_line(w, buf, strlen(buf)), OCSF_QUEUED,
	    "the same line relayed is queued");
	is_int(ocsf_emit_line(w, "{\"a\":1}", 7), OCSF_ERROR,
	    "a JSON object that is not an event is refused");
	is_int(ocsf_emit_line(w, "{\"class_uid\":1}\n{}", 18), OCSF_ERROR,
	    "two lines are refused");
	is_int(ocsf_emit_line(w, "not json", 8), OCSF_ERROR,
	    "not JSON is refused");
	ocsf_writer_flush(w, 2000);
	ocsf_writer_stats(w, &st);
	is_int((long)st.invalid, 3, "the refusals are counted as invalid");
	n = read(sv[0], buf, sizeof(buf) - 1);
	ok(n > 0 && memchr(buf, '\n', (size_t)n) == buf + n - 1,
	    "the relayed line is written whole, once");
	ocsf_writer_free(w);
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	test_fd_sink_and_relay();
	test_good_specs();
	test_bad_specs();
	test_config();
	test_writer_config_errors();
	return tap_done();
}
