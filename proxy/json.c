/* json.c: JSON string output for the proxy's own answers. */
#include "config.h"

#include <string.h>

#include "proxy/proxy-int.h"

/* Append s as a JSON string.  Control bytes are escaped; if s is not
 * valid UTF-8, bytes >= 0x80 become '?'. */
void
px_json_string(struct evbuffer *out, const char *s)
{
	bool utf8 = axg_utf8_valid(s, strlen(s));

	evbuffer_add(out, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			evbuffer_add_printf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			evbuffer_add_printf(out, "\\u%04x", *p);
		else if (*p >= 0x80 && !utf8)
			evbuffer_add(out, "?", 1);
		else
			evbuffer_add(out, p, 1);
	}
	evbuffer_add(out, "\"", 1);
}
