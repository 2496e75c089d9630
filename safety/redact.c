/* redact.c: rewriting an input with each finding replaced. */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "safety/safety.h"

char *
leak_redact(const void *buf, size_t len, const struct leak_findings *f,
    size_t *outlen)
{
	struct axg_buf b = AXG_BUF_INIT;
	const char *p = buf;
	size_t at = 0;

	axg_buf_init(&b, 0);
	for (size_t i = 0; f != NULL && i < f->n; i++) {
		const struct leak_finding *x = &f->v[i];
		/* Skip findings that do not fit this buffer or go backwards. */
		if (x->offset < at || x->offset > len ||
		    x->length > len - x->offset)
			continue;
		axg_buf_append(&b, p + at, (size_t)x->offset - at);
		axg_buf_printf(&b, "[REDACTED:%s]", x->rule_id);
		at = (size_t)(x->offset + x->length);
	}
	axg_buf_append(&b, p + at, len - at);
	return axg_buf_steal(&b, outlen);
}
