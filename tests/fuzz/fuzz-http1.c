/*
 * fuzz-http1.c: libFuzzer target for the request-head parser, the host
 * canonicaliser and the chunked decoder.  The input is a request head;
 * what follows it is fed to the chunked decoder in two pieces.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_http_limits lim;
	struct px_header hdrs[100];
	struct px_request req;
	struct px_response resp;
	struct px_hostport hp;
	struct px_chunked ch;
	char err[256];
	int status, rc;
	size_t used;

	px_http_limits_default(&lim);
	rc = px_http1_parse_request((const char *)data, size, &lim, &req, hdrs,
	    &status, err, sizeof(err));
	if (rc > 0) {
		if (req.authority != NULL)
			px_host_parse_authority(req.authority,
			    req.authority_len, 80, &hp, err, sizeof(err));
		if (req.host_index >= 0)
			px_host_parse_authority(hdrs[req.host_index].value,
			    hdrs[req.host_index].value_len, 80, &hp, err,
			    sizeof(err));
		for (size_t i = 0; i < req.nheaders; i++)
			(void)px_http_is_hop_by_hop(&hdrs[i], hdrs[0].value,
			    hdrs[0].value_len);
		px_chunked_init(&ch, 1 << 20, 256);
		size_t rest = size - (size_t)rc, half = rest / 2;
		if (px_chunked_feed(&ch, (const char *)data + rc, half, &used,
			NULL, NULL, err, sizeof(err)) == 0)
			px_chunked_feed(&ch, (const char *)data + rc + half,
			    rest - half, &used, NULL, NULL, err, sizeof(err));
	}
	px_http1_parse_response((const char *)data, size, &lim, false, &resp,
	    hdrs, err, sizeof(err));
	return 0;
}
