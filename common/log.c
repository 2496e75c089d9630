/* log.c: one-line messages on stderr, one write() each. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"

static const char *log_progname = "axgate";
static enum axg_log_level log_level = AXG_LOG_INFO;

static const char *const level_names[] = {
	[AXG_LOG_ERROR] = "error",
	[AXG_LOG_WARN] = "warning",
	[AXG_LOG_INFO] = "info",
	[AXG_LOG_DEBUG] = "debug",
};

void
axg_log_init(const char *progname, enum axg_log_level level)
{
	if (progname != NULL)
		log_progname = progname;
	log_level = level;
}

void
axg_log_set_level(enum axg_log_level level)
{
	log_level = level;
}

enum axg_log_level
axg_log_get_level(void)
{
	return log_level;
}

int
axg_log_level_parse(const char *s)
{
	static const struct {
		const char *name;
		enum axg_log_level level;
	} names[] = {
		{ "error", AXG_LOG_ERROR },
		{ "warn", AXG_LOG_WARN },
		{ "warning", AXG_LOG_WARN },
		{ "info", AXG_LOG_INFO },
		{ "debug", AXG_LOG_DEBUG },
	};

	for (size_t i = 0; i < AXG_ARRAY_LEN(names); i++)
		if (strcmp(s, names[i].name) == 0)
			return (int)names[i].level;
	return -1;
}

void
axg_vlog(enum axg_log_level level, const char *fmt, va_list ap)
{
	char line[2048];
	int n, m;
	int saved = errno;

	if (level > log_level)
		return;
	n = snprintf(line, sizeof(line), "%s: %s: ", log_progname,
	    level_names[level]);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n >= sizeof(line) - 1) {
		/* Mark the cut so nobody mistakes it for the whole message. */
		n = (int)sizeof(line) - 5;
		memcpy(line + n, "...", 3);
		n += 3;
	}
	line[n++] = '\n';
	/* One write: lines from several threads never interleave. */
	while (write(STDERR_FILENO, line, (size_t)n) < 0 && errno == EINTR)
		;
	errno = saved;
}

void
axg_log(enum axg_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	axg_vlog(level, fmt, ap);
	va_end(ap);
}

void
axg_fatal(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	axg_vlog(AXG_LOG_ERROR, fmt, ap);
	va_end(ap);
	exit(status);
}

int
axg_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
