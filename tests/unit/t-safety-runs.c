/*
 * t-safety-runs.c: the byte-class bitmaps and the run searches of
 * safety/runs.c, each instruction set against a byte-at-a-time reference
 * written here: every byte value, random text of every length around the
 * 64-byte blocks, and runs placed across word edges.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"
#include "tests/rnd.h"
#include "tests/tap.h"

static bool
is_b64(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '-' ||
	    c == '_';
}

static bool
is_hex(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static bool
bit(const uint64_t *m, size_t i)
{
	return (m[i / 64] >> (i % 64) & 1) != 0;
}

static const char *const level_name[] = { "scalar", "AVX2", "AVX-512" };

/* Does rm hold exactly the classes of p[0..n)? */
static bool
classes_right(const struct leak_runmask *rm, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (bit(rm->b64, i) != is_b64(c) ||
		    bit(rm->hex, i) != is_hex(c) ||
		    bit(rm->upper, i) != (c >= 'A' && c <= 'Z') ||
		    bit(rm->lower, i) != (c >= 'a' && c <= 'z')) {
			tap_diag("byte %zu (0x%02x) classed wrong", i, c);
			return false;
		}
	}
	/* Bits past n are clear, to the end of the last word. */
	for (size_t i = n; i % 64 != 0; i++)
		if (bit(rm->b64, i) || bit(rm->hex, i) || bit(rm->upper, i) ||
		    bit(rm->lower, i)) {
			tap_diag("bit %zu past the end (%zu) is set", i, n);
			return false;
		}
	return true;
}

/* The reference search: the first run of at least min bytes that in()
 * accepts in p[from..e), as [*rs, *re), or [e, e). */
static void
ref_run(const uint8_t *p, size_t from, size_t e, bool (*in)(uint8_t),
    size_t min, size_t *rs, size_t *re)
{
	*rs = *re = e;
	for (size_t i = from; i < e;) {
		size_t j = i;
		while (j < e && in(p[j]))
			j++;
		if (j - i >= min) {
			*rs = i;
			*re = j;
			return;
		}
		i = j + 1;
	}
}

/* The runs of at least 24 base64 bytes, each searched from the end of the
 * last as the scanner does, against the bytes themselves. */
static bool
runs_right(const struct leak_runmask *rm, const uint8_t *p, size_t n)
{
	size_t from = 0, s, e;

	for (;;) {
		size_t rs, re;
		ref_run(p, from, n, is_b64, LEAK_B64_RUN_MIN, &rs, &re);
		bool got = leak_runmask_b64_run(rm, from, &s, &e);
		if (got != (rs < n) || (got && (s != rs || e != re))) {
			tap_diag("from %zu: run [%zu, %zu), want [%zu, %zu)",
			    from, got ? s : n, got ? e : n, rs, re);
			return false;
		}
		if (!got)
			return true;
		/* Both cases, and hex runs of 32 inside the run. */
		bool up = false, low = false;
		for (size_t i = s; i < e; i++) {
			up = up || (p[i] >= 'A' && p[i] <= 'Z');
			low = low || (p[i] >= 'a' && p[i] <= 'z');
		}
		if (leak_runmask_both_cases(rm, s, e) != (up && low)) {
			tap_diag("both cases of [%zu, %zu) wrong", s, e);
			return false;
		}
		size_t hf = s, hs, he;
		for (;;) {
			size_t ws, we;
			ref_run(p, hf, e, is_hex, LEAK_HEX_RUN_MIN, &ws, &we);
			bool hg = leak_runmask_hex_run(rm, hf, e, &hs, &he);
			if (hg != (ws < e) || (hg && (hs != ws || he != we))) {
				tap_diag("hex in [%zu, %zu) from %zu: [%zu, "
					 "%zu), want [%zu, %zu)",
				    s, e, hf, hg ? hs : e, hg ? he : e, ws, we);
				return false;
			}
			if (!hg)
				break;
			hf = he;
		}
		from = e;
	}
}

/* Text made of pieces that make runs of every kind and length: hex,
 * base64 of both cases, one case, identifiers, separators. */
static size_t
make_text(uint8_t *p, size_t cap)
{
	static const char *const alpha[] = { "0123456789abcdef",
		"0123456789ABCDEF",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
		"qrstuvwxyz0123456789+/-_",
		"abcdefghijklmnopqrstuvwxyz_", " =\n\"%\\.:,",
		"\x80\xff\x00\x7f" };
	size_t n = 0;

	while (n < cap) {
		const char *a = alpha[rnd() % AXG_ARRAY_LEN(alpha)];
		size_t al = a[0] == '\x80' ? 4 : strlen(a);
		size_t len = rnd() % 3 == 0 ? rnd() % 80 : rnd() % 12;
		for (size_t k = 0; k < len && n < cap; k++)
			p[n++] = (uint8_t)a[rnd() % al];
	}
	return n;
}

int
main(void)
{
	enum { MAXN = 700 };
	uint8_t all[256], text[MAXN];
	struct leak_runmask rm = { 0 };
	bool avx2 = false, avx512 = false;

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	__builtin_cpu_init();
	avx2 = __builtin_cpu_supports("avx2") != 0;
	avx512 = avx2 && __builtin_cpu_supports("avx512f") != 0 &&
	    __builtin_cpu_supports("avx512bw") != 0;
#endif
	for (int c = 0; c < 256; c++)
		all[c] = (uint8_t)c;

	for (int lvl = LEAK_SIMD_NONE; lvl <= LEAK_SIMD_AVX512; lvl++) {
		const char *name = level_name[lvl];
		if ((lvl == LEAK_SIMD_AVX2 && !avx2) ||
		    (lvl == LEAK_SIMD_AVX512 && !avx512)) {
			for (int k = 0; k < 3; k++)
				tap_skip(name,
				    "the CPU has no such instructions");
			continue;
		}
		leak_runmask_build(&rm, all, 256, (enum leak_simd)lvl);
		ok(classes_right(&rm, all, 256), "%s: every byte value classed",
		    name);

		bool classes = true, runs = true;
		for (size_t n = 0; n <= MAXN && classes && runs; n++) {
			size_t len = make_text(text, n);
			leak_runmask_build(&rm, text, len, (enum leak_simd)lvl);
			classes = classes_right(&rm, text, len);
			runs = runs && runs_right(&rm, text, len);
		}
		ok(classes, "%s: random text of 0 to %d bytes classed", name,
		    MAXN);
		ok(runs,
		    "%s: base64 runs, hex runs and cases found as byte by byte",
		    name);
	}

	/* A run of exactly 24 and one of 23, across every word edge. */
	bool edges = true;
	for (size_t at = 0; at < 140 && edges; at++)
		for (size_t len = 23; len <= 24 && edges; len++) {
			memset(text, ' ', 200);
			memset(text + at, 'Q', len);
			leak_runmask_build(&rm, text, 200, LEAK_SIMD_NONE);
			size_t s, e;
			bool got = leak_runmask_b64_run(&rm, 0, &s, &e);
			edges = edges && got == (len == 24) &&
			    (!got || (s == at && e == at + len));
			if (!edges)
				tap_diag("run of %zu at %zu: got %d", len, at,
				    got);
		}
	ok(edges, "runs of 24 found and of 23 not, at every offset");
	leak_runmask_free(&rm);
	return tap_done();
}
