/* Unit tests of common/sha256.c: the FIPS 180-4 and NIST vectors, every
 * split of a message across updates, and lengths around the padding
 * boundary checked against the one-shot digest of the same bytes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "tests/tap.h"

static void
hex(const unsigned char *d, char out[2 * AXG_SHA256_LEN + 1])
{
	for (int i = 0; i < AXG_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
check(const char *msg, size_t n, const char *want, const char *name)
{
	unsigned char d[AXG_SHA256_LEN];
	char h[2 * AXG_SHA256_LEN + 1];

	axg_sha256(msg, n, d);
	hex(d, h);
	is_str(h, want, "%s", name);
}

static void
test_vectors(void)
{
	static const char a448[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char a896[] =
	    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	char *million = malloc(1000000);
	struct axg_sha256 s;
	unsigned char d[AXG_SHA256_LEN];
	char h[2 * AXG_SHA256_LEN + 1];

	check("", 0,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	    "empty message");
	check("abc", 3,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "\"abc\"");
	check(a448, strlen(a448),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	    "448-bit message");
	check(a896, strlen(a896),
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
	    "896-bit message");
	memset(million, 'a', 1000000);
	check(million, 1000000,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "a million 'a'");
	/* the same million through uneven updates */
	axg_sha256_init(&s);
	for (size_t off = 0, step = 1; off < 1000000;
	     step = step * 7 % 997 + 1) {
		size_t n = step < 1000000 - off ? step : 1000000 - off;

		axg_sha256_update(&s, million + off, n);
		off += n;
	}
	axg_sha256_final(&s, d);
	hex(d, h);
	is_str(h,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "a million 'a' in uneven pieces");
	free(million);
}

/* Every length from 0 to 200 (both sides of the 55/56/64-byte padding
 * edges), each split at every point: the same digest as in one piece. */
static void
test_splits(void)
{
	unsigned char msg[200], one[AXG_SHA256_LEN], two[AXG_SHA256_LEN];
	int bad = 0;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)(i * 131 + 7);
	for (size_t n = 0; n <= sizeof(msg); n++) {
		axg_sha256(msg, n, one);
		for (size_t cut = 0; cut <= n; cut++) {
			struct axg_sha256 s;

			axg_sha256_init(&s);
			axg_sha256_update(&s, msg, cut);
			axg_sha256_update(&s, msg + cut, n - cut);
			axg_sha256_final(&s, two);
			if (memcmp(one, two, sizeof(one)) != 0)
				bad++;
		}
	}
	is_int(bad, 0, "split updates agree with one-shot digests");
	/* 55, 56 and 64 bytes: the lengths where the padding changes */
	check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 55,
	    "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
	    "55 bytes");
	check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 56,
	    "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
	    "56 bytes");
	check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	      "a",
	    64,
	    "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
	    "64 bytes");
}

int
main(void)
{
	test_vectors();
	test_splits();
	return tap_done();
}
