/*
 * fuzz-audit-json: hostile request strings through the event serialiser.
 * The input is split at 0xff 0xfe into fields (method, URL, host, user
 * agent, reason, rule); every output must be exactly one line of valid
 * JSON, the preview must never appear unmasked, and nothing may crash.
 */
#include "config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"

#define NF 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct axg_buf *b)
{
	json_error_t jerr;
	json_t *j;

	if (b->len == 0 || b->data[b->len - 1] != '\n' ||
	    memchr(b->data, '\n', b->len - 1) != NULL ||
	    !axg_utf8_valid(b->data, b->len))
		abort();
	j = json_loadb(b->data, b->len, 0, &jerr);
	if (j == NULL || !json_is_object(j))
		abort();
	json_decref(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ocsf_origin o = { .device_hostname = "gw",
		.pid = 1 };
	char *f[NF] = { 0 };
	size_t start = 0, k = 0;
	struct ocsf_http_event h;
	struct ocsf_net_event n;
	struct ocsf_finding_event fi;
	struct axg_buf b;
	char err[256];

	for (size_t i = 0; i <= size && k < NF; i++) {
		if (i == size ||
		    (i + 1 < size && data[i] == 0xff && data[i + 1] == 0xfe)) {
			f[k++] =
			    axg_strndup((const char *)data + start, i - start);
			start = i + 2;
			i++;
		}
	}
	for (; k < NF; k++)
		f[k] = axg_strdup("");
	axg_buf_init(&b, 0);

	memset(&h, 0, sizeof(h));
	h.allowed = f[0][0] & 1;
	h.method = f[0];
	h.url.url_string = f[1];
	h.url.path = f[1];
	h.url.hostname = f[2];
	h.dst.hostname = f[2];
	h.dst.ip = f[2];
	h.user_agent = f[3];
	h.reason = f[4];
	h.rule = f[5];
	h.latency_ms = -1;
	h.route = f[5][0] ? f[5] : NULL;
	if (ocsf_format_http(&b, &o, &h, err, sizeof(err)) == 0)
		check(&b);

	axg_buf_reset(&b);
	memset(&n, 0, sizeof(n));
	n.activity = OCSF_NET_REFUSE;
	n.dst.hostname = f[2];
	n.dst.ip = f[1];
	n.src.uid = f[3];
	n.reason = f[4];
	n.rule = f[5];
	n.correlation_uid = f[0];
	if (ocsf_format_net(&b, &o, &n, err, sizeof(err)) == 0)
		check(&b);

	axg_buf_reset(&b);
	memset(&fi, 0, sizeof(fi));
	fi.action = OCSF_LEAK_BLOCKED;
	fi.rule_id = f[0][0] ? f[0] : "rule";
	fi.where = f[1];
	fi.preview = f[2];
	fi.url = f[3];
	fi.method = f[4];
	fi.dst.hostname = f[5];
	if (ocsf_format_finding(&b, &o, &fi, err, sizeof(err)) == 0) {
		check(&b);
		/* a long preview must not appear whole */
		if (strlen(f[2]) >= 16 &&
		    strspn(f[2], "ABCDEFGHIJKLMNOP") == strlen(f[2]) &&
		    strstr(b.data, f[2]) != NULL)
			abort();
	}
	axg_buf_free(&b);
	for (k = 0; k < NF; k++)
		free(f[k]);
	return 0;
}
