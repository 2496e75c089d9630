/* Unit tests of common/log.c: levels, format, one line per message. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "common/common.h"
#include "tests/tap.h"

/* Run fn with stderr sent to a temporary file; return what it wrote. */
static char *
capture(void (*fn)(void))
{
	char path[] = "/tmp/t-common-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	char *out;

	dup2(fd, STDERR_FILENO);
	fn();
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	out = axg_read_file(path, 1 << 20, NULL, NULL, 0);
	unlink(path);
	return out;
}

static void
log_some(void)
{
	axg_log_init("t-log", AXG_LOG_WARN);
	axg_err("bad %s", "thing");
	axg_warn("careful");
	axg_info("hidden at warn level");
	axg_debug("hidden too");
}

static void
log_long(void)
{
	char big[5000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	axg_log_init("t-log", AXG_LOG_DEBUG);
	axg_info("%s", big);
}

int
main(void)
{
	char *out, err[16];

	out = capture(log_some);
	is_str(out, "t-log: error: bad thing\nt-log: warning: careful\n",
	    "messages at or above the level, one line each");
	free(out);

	out = capture(log_long);
	ok(out != NULL && strlen(out) < 2100, "a long message is cut");
	ok(out != NULL && strstr(out, "...\n") != NULL,
	    "the cut is marked and the line still ends");
	free(out);

	is_int(axg_log_level_parse("debug"), AXG_LOG_DEBUG, "parse debug");
	is_int(axg_log_level_parse("warn"), AXG_LOG_WARN, "parse warn");
	is_int(axg_log_level_parse("loud"), -1, "unknown level");

	is_int(axg_seterr(err, sizeof(err), "%s", "0123456789abcdefghij"), -1,
	    "seterr returns -1");
	is_str(err, "0123456789abcde", "seterr truncates to the buffer");
	is_int(axg_seterr(NULL, 0, "x"), -1, "seterr accepts no buffer");
	return tap_done();
}
