/*
 * stream.c: scanning a body that arrives in chunks.
 *
 * The stream keeps the last LEAK_STREAM_OVERLAP bytes it has seen and
 * scans them again together with the next chunk, so a secret split across
 * chunks is found.  A finding that ends in the last HOLD bytes could still
 * grow with the next chunk, so it is held back until more data (or the end
 * of the stream) arrives.  A finding is reported once: only findings that
 * start at or after the end of the last one reported are new.  Small
 * chunks are gathered until HOLD new bytes are waiting, so the rescanning
 * costs at most a constant factor.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

#define HOLD 1024

struct leak_stream {
	struct leak_scan *sc;
	struct axg_buf win; /* bytes from absolute offset base */
	uint64_t base;
	uint64_t emitted_end; /* absolute end of the last reported finding */
	size_t pending;	      /* bytes of win not yet scanned */
	struct leak_findings tmp;
};

struct leak_stream *
leak_stream_new(struct leak_scan *sc)
{
	struct leak_stream *st = axg_calloc(1, sizeof(*st));

	st->sc = sc;
	axg_buf_init(&st->win, 0);
	leak_findings_init(&st->tmp);
	return st;
}

void
leak_stream_free(struct leak_stream *st)
{
	if (st == NULL)
		return;
	axg_buf_free(&st->win);
	leak_findings_free(&st->tmp);
	free(st);
}

uint64_t
leak_stream_offset(const struct leak_stream *st)
{
	return st->base + st->win.len;
}

uint64_t
leak_stream_settled(const struct leak_stream *st)
{
	/* Every later scan starts at base or after it. */
	return st->base > st->emitted_end ? st->base : st->emitted_end;
}

static int
scan_window(struct leak_stream *st, bool final, struct leak_findings *out,
    char *err, size_t errlen)
{
	uint64_t end = st->base + st->win.len;
	int n = 0;

	leak_findings_reset(&st->tmp);
	if (leak_scan_buffer(st->sc, st->win.data, st->win.len, &st->tmp, err,
		errlen) < 0)
		return -1;
	for (size_t i = 0; i < st->tmp.n; i++) {
		struct leak_finding f = st->tmp.v[i];
		f.offset += st->base;
		if (!final && f.offset + f.length + HOLD > end)
			break; /* may grow; the next scan sees it again */
		if (f.offset < st->emitted_end)
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 8;
			out->v =
			    axg_reallocarray(out->v, out->cap, sizeof(*out->v));
		}
		out->v[out->n++] = f;
		st->emitted_end = f.offset + f.length;
		n++;
	}
	st->pending = 0;
	/* Keep only the overlap. */
	if (st->win.len > LEAK_STREAM_OVERLAP) {
		size_t drop = st->win.len - LEAK_STREAM_OVERLAP;
		axg_buf_consume(&st->win, drop);
		st->base += drop;
	}
	return n;
}

int
leak_stream_feed(struct leak_stream *st, const void *chunk, size_t len,
    struct leak_findings *out, char *err, size_t errlen)
{
	const uint8_t *p = chunk;
	int total = 0;

	/* Large chunks go in slices so the window stays bounded. */
	while (len > 0) {
		size_t take = len > 65536 ? 65536 : len;
		if (axg_buf_append(&st->win, p, take) < 0)
			return axg_seterr(err, errlen, "stream: out of room");
		st->pending += take;
		p += take;
		len -= take;
		if (st->pending >= HOLD) {
			int n = scan_window(st, false, out, err, errlen);
			if (n < 0)
				return -1;
			total += n;
		}
	}
	return total;
}

int
leak_stream_finish(struct leak_stream *st, struct leak_findings *out, char *err,
    size_t errlen)
{
	int n = scan_window(st, true, out, err, errlen);

	axg_buf_reset(&st->win);
	st->base = 0;
	st->emitted_end = 0;
	st->pending = 0;
	return n;
}
