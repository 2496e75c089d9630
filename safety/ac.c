/*
 * ac.c: the keyword prefilter, an Aho-Corasick automaton compiled into a
 * DFA over byte classes.
 *
 * Bytes are folded to lower case and mapped to classes (each byte that
 * occurs in some keyword gets a class, every other byte shares class 0),
 * so the table is nstates x nclasses.  Entries are premultiplied row
 * offsets and states with output are numbered last, so the inner loop is
 * one table load and one compare per byte.  The scan runs several lanes
 * over separate slices of the input at once: their table loads do not
 * depend on each other, which hides the load latency.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

#define AC_LANES 4

struct leak_ac {
	uint8_t cls[256];
	uint32_t ncls;
	uint32_t nstates;
	uint32_t *delta;     /* nstates * ncls, premultiplied */
	uint32_t first_out;  /* premultiplied: states >= this have output */
	uint32_t *out_start; /* per state (unmultiplied), nstates + 1 */
	uint32_t *out;	     /* pattern ids */
	size_t maxlen;
};

static uint8_t
fold(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

struct leak_ac *
leak_ac_new(const struct leak_ac_pattern *pats, size_t n)
{
	struct leak_ac *ac = axg_calloc(1, sizeof(*ac));
	size_t total = 1, nst = 1;
	int32_t *go;
	uint32_t *fail, *queue, *perm, *inv;
	uint32_t **outs;
	size_t *nouts;
	uint32_t ncls = 1;

	/* Byte classes. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < pats[i].len; j++) {
			uint8_t c = fold((uint8_t)pats[i].bytes[j]);
			if (ac->cls[c] == 0)
				ac->cls[c] = (uint8_t)ncls++;
		}
	for (int c = 'A'; c <= 'Z'; c++)
		ac->cls[c] = ac->cls[c + 32];
	ac->ncls = ncls;
	for (size_t i = 0; i < n; i++) {
		total += pats[i].len;
		if (pats[i].len > ac->maxlen)
			ac->maxlen = pats[i].len;
	}

	/* The trie. */
	go = axg_malloc(total * ncls * sizeof(*go));
	memset(go, 0xff, total * ncls * sizeof(*go));
	outs = axg_calloc(total, sizeof(*outs));
	nouts = axg_calloc(total, sizeof(*nouts));
	for (size_t i = 0; i < n; i++) {
		size_t s = 0;
		for (size_t j = 0; j < pats[i].len; j++) {
			uint8_t c = ac->cls[(uint8_t)pats[i].bytes[j]];
			if (go[s * ncls + c] < 0)
				go[s * ncls + c] = (int32_t)nst++;
			s = (size_t)go[s * ncls + c];
		}
		outs[s] =
		    axg_reallocarray(outs[s], nouts[s] + 1, sizeof(**outs));
		outs[s][nouts[s]++] = pats[i].id;
	}

	/* Failure links in breadth-first order, completing the DFA. */
	fail = axg_calloc(nst, sizeof(*fail));
	queue = axg_malloc(nst * sizeof(*queue));
	size_t qh = 0, qt = 0;
	for (uint32_t c = 0; c < ncls; c++) {
		if (go[c] < 0) {
			go[c] = 0;
		} else {
			fail[go[c]] = 0;
			queue[qt++] = (uint32_t)go[c];
		}
	}
	while (qh < qt) {
		uint32_t s = queue[qh++];
		uint32_t f = fail[s];

		/* Inherit the outputs of the failure state. */
		if (nouts[f] > 0) {
			outs[s] = axg_reallocarray(outs[s], nouts[s] + nouts[f],
			    sizeof(**outs));
			memcpy(outs[s] + nouts[s], outs[f],
			    nouts[f] * sizeof(**outs));
			nouts[s] += nouts[f];
		}
		for (uint32_t c = 0; c < ncls; c++) {
			int32_t t = go[s * ncls + c];
			if (t < 0) {
				go[s * ncls + c] = go[f * ncls + c];
			} else {
				fail[t] = (uint32_t)go[f * ncls + c];
				queue[qt++] = (uint32_t)t;
			}
		}
	}

	/* Renumber: states without output first, the root staying 0. */
	perm = axg_malloc(nst * sizeof(*perm)); /* new -> old */
	inv = axg_malloc(nst * sizeof(*inv));	/* old -> new */
	size_t k = 0;
	for (size_t s = 0; s < nst; s++)
		if (nouts[s] == 0)
			perm[k++] = (uint32_t)s;
	ac->first_out = (uint32_t)k * ncls;
	for (size_t s = 0; s < nst; s++)
		if (nouts[s] != 0)
			perm[k++] = (uint32_t)s;
	for (size_t s = 0; s < nst; s++)
		inv[perm[s]] = (uint32_t)s;

	ac->nstates = (uint32_t)nst;
	ac->delta = axg_malloc(nst * ncls * sizeof(*ac->delta));
	ac->out_start = axg_calloc(nst + 1, sizeof(*ac->out_start));
	size_t nout = 0;
	for (size_t s = 0; s < nst; s++)
		nout += nouts[s];
	ac->out = axg_malloc((nout + 1) * sizeof(*ac->out));
	nout = 0;
	for (size_t ns = 0; ns < nst; ns++) {
		uint32_t os = perm[ns];
		for (uint32_t c = 0; c < ncls; c++)
			ac->delta[ns * ncls + c] =
			    inv[go[os * ncls + c]] * ncls;
		ac->out_start[ns] = (uint32_t)nout;
		if (nouts[os] > 0)
			memcpy(ac->out + nout, outs[os],
			    nouts[os] * sizeof(*ac->out));
		nout += nouts[os];
	}
	ac->out_start[nst] = (uint32_t)nout;

	for (size_t s = 0; s < total; s++)
		free(outs[s]);
	free(outs);
	free(nouts);
	free(go);
	free(fail);
	free(queue);
	free(perm);
	free(inv);
	return ac;
}

void
leak_ac_free(struct leak_ac *ac)
{
	if (ac == NULL)
		return;
	free(ac->delta);
	free(ac->out_start);
	free(ac->out);
	free(ac);
}

static int
report(const struct leak_ac *ac, uint32_t s, size_t end,
    int (*hit)(size_t, uint32_t, void *), void *arg)
{
	uint32_t st = s / ac->ncls;
	for (uint32_t i = ac->out_start[st]; i < ac->out_start[st + 1]; i++) {
		int rc = hit(end, ac->out[i], arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* One lane from p[from] to p[to), reporting only hits ending after
 * report_from (earlier bytes only warm the state up). */
static int
scan_range(const struct leak_ac *ac, const uint8_t *p, size_t from, size_t to,
    size_t report_from, int (*hit)(size_t, uint32_t, void *), void *arg)
{
	const uint32_t *delta = ac->delta;
	const uint8_t *cls = ac->cls;
	uint32_t s = 0;

	for (size_t i = from; i < to; i++) {
		s = delta[s + cls[p[i]]];
		if (s >= ac->first_out && i + 1 > report_from) {
			int rc = report(ac, s, i + 1, hit, arg);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* Hits of one lane are buffered so all hits come out in order. */
struct lane_hit {
	size_t end;
	uint32_t state;
};

int
leak_ac_scan(const struct leak_ac *ac, const uint8_t *p, size_t n,
    int (*hit)(size_t end, uint32_t id, void *arg), void *arg)
{
	enum { SLICE_MIN = 4096, LANE_BUF = 64 };
	const uint32_t *delta = ac->delta;
	const uint8_t *cls = ac->cls;
	const uint32_t fo = ac->first_out;
	size_t warm = ac->maxlen > 0 ? ac->maxlen - 1 : 0;
	size_t slice, lo[AC_LANES], hi[AC_LANES];
	uint32_t s[AC_LANES];
	struct lane_hit buf[AC_LANES][LANE_BUF];
	size_t nb[AC_LANES];
	size_t done = 0;

	if (n < SLICE_MIN * AC_LANES)
		return scan_range(ac, p, 0, n, 0, hit, arg);

	/* Work in blocks so buffered hits stay bounded: each block is cut
	 * into AC_LANES slices scanned in lockstep.  A lane whose hit buffer
	 * fills stops the block early; the rest is rescanned serially. */
	while (done < n) {
		size_t blk = n - done;
		if (blk > (size_t)SLICE_MIN * 64 * AC_LANES)
			blk = (size_t)SLICE_MIN * 64 * AC_LANES;
		if (blk < SLICE_MIN * AC_LANES)
			return scan_range(ac, p, done >= warm ? done - warm : 0,
			    n, done, hit, arg);
		slice = blk / AC_LANES;
		for (int l = 0; l < AC_LANES; l++) {
			lo[l] = done + (size_t)l * slice;
			hi[l] = l == AC_LANES - 1 ? done + blk : lo[l] + slice;
			s[l] = 0;
			nb[l] = 0;
		}
		/* Warm up each lane on the bytes before its slice. */
		for (int l = 0; l < AC_LANES; l++) {
			size_t w = lo[l] >= warm ? lo[l] - warm : 0;
			for (size_t i = w; i < lo[l]; i++)
				s[l] = delta[s[l] + cls[p[i]]];
		}
		size_t len = slice, i;
		bool overflow = false;
		for (i = 0; i < len && !overflow; i++) {
			for (int l = 0; l < AC_LANES; l++) {
				s[l] = delta[s[l] + cls[p[lo[l] + i]]];
				if (__builtin_expect(s[l] >= fo, 0)) {
					buf[l][nb[l]].end = lo[l] + i + 1;
					buf[l][nb[l]].state = s[l];
					if (++nb[l] == LANE_BUF)
						overflow = true;
				}
			}
		}
		/* Lanes 0..L-1 covered lo[l]..lo[l]+i; report in order. */
		for (int l = 0; l < AC_LANES; l++) {
			for (size_t k = 0; k < nb[l]; k++) {
				int rc = report(ac, buf[l][k].state,
				    buf[l][k].end, hit, arg);
				if (rc != 0)
					return rc;
			}
			size_t from = lo[l] + i;
			size_t to = hi[l];
			if (from < to) {
				size_t w = from >= warm ? from - warm : 0;
				int rc =
				    scan_range(ac, p, w, to, from, hit, arg);
				if (rc != 0)
					return rc;
			}
		}
		done += blk;
	}
	return 0;
}
