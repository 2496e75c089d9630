/*
 * fuzz-scan.c: the scanner on arbitrary bytes.
 *
 * Scans the input whole, redacts it and checks the result's shape, then
 * feeds it to a stream in two chunks cut where the first byte says and
 * checks the stream reports no finding outside the input.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct leak_ruleset *rs;
static struct leak_scan *sc;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct leak_findings f;
	char err[256];
	size_t outlen;

	if (rs == NULL) {
		rs = leak_ruleset_new(NULL, err, sizeof(err));
		if (rs == NULL)
			abort();
		sc = leak_scan_new(rs, err, sizeof(err));
		if (sc == NULL)
			abort();
	}
	leak_findings_init(&f);
	if (leak_scan_buffer(sc, data, size, &f, err, sizeof(err)) >= 0) {
		uint64_t prev_end = 0;
		for (size_t i = 0; i < f.n; i++) {
			/* Sorted, not overlapping, inside the input. */
			if (f.v[i].offset < prev_end || f.v[i].length == 0 ||
			    f.v[i].offset + f.v[i].length > size)
				abort();
			prev_end = f.v[i].offset + f.v[i].length;
		}
		char *red = leak_redact(data, size, &f, &outlen);
		if (red == NULL || red[outlen] != '\0')
			abort();
		free(red);
	}
	leak_findings_reset(&f);

	struct leak_stream *st = leak_stream_new(sc);
	size_t cut = size > 0 ? data[0] * size / 256 : 0;
	if (leak_stream_feed(st, data, cut, &f, err, sizeof(err)) >= 0 &&
	    leak_stream_feed(st, data + cut, size - cut, &f, err,
		sizeof(err)) >= 0 &&
	    leak_stream_finish(st, &f, err, sizeof(err)) >= 0)
		for (size_t i = 0; i < f.n; i++)
			if (f.v[i].offset + f.v[i].length > size)
				abort();
	leak_stream_free(st);
	leak_findings_free(&f);
	return 0;
}
