/* Unit tests of proxy/tls-hello.c: SNI extraction from ClientHellos built
 * here, split across records and reads, and malformed ones. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"
#include "tests/tap.h"

static size_t
put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* Build a handshake message (type 1) with an optional SNI (sni_count
 * server_name extensions) and pad bytes of another extension. */
static size_t
build_hello(uint8_t *out, const char *sni, int sni_count, size_t pad)
{
	uint8_t body[20000];
	size_t n = 0, ext_start;

	body[n++] = 3;
	body[n++] = 3;
	memset(body + n, 0xab, 32);
	n += 32;
	body[n++] = 0; /* session id */
	n += put16(body + n, 2);
	body[n++] = 0x13;
	body[n++] = 0x01;
	body[n++] = 1;
	body[n++] = 0;
	ext_start = n;
	n += 2;
	for (int k = 0; sni != NULL && k < sni_count; k++) {
		size_t sl = strlen(sni);

		n += put16(body + n, 0);
		n += put16(body + n, sl + 5);
		n += put16(body + n, sl + 3);
		body[n++] = 0;
		n += put16(body + n, sl);
		memcpy(body + n, sni, sl);
		n += sl;
	}
	if (pad > 0) {
		n += put16(body + n, 21); /* padding */
		n += put16(body + n, pad);
		memset(body + n, 0, pad);
		n += pad;
	}
	put16(body + ext_start, n - ext_start - 2);
	out[0] = 1;
	out[1] = (uint8_t)(n >> 16);
	out[2] = (uint8_t)(n >> 8);
	out[3] = (uint8_t)n;
	memcpy(out + 4, body, n);
	return n + 4;
}

/* Wrap a handshake message in records of at most frag bytes. */
static size_t
wrap(uint8_t *out, const uint8_t *msg, size_t n, size_t frag)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += frag) {
		size_t l = n - i < frag ? n - i : frag;

		out[o++] = 22;
		out[o++] = 3;
		out[o++] = 1;
		o += put16(out + o, l);
		memcpy(out + o, msg + i, l);
		o += l;
	}
	return o;
}

static uint8_t msg[20000], rec[40000];

static void
test_basic(void)
{
	char sni[256], err[128];
	size_t n = build_hello(msg, "Example.COM", 1, 0), r;

	r = wrap(rec, msg, n, 16384);
	is_int(px_tls_hello_sni(rec, r, sni, sizeof(sni), err, sizeof(err)),
	    PX_HELLO_SNI, "SNI found");
	is_str(sni, "example.com", "SNI canonicalised");

	r = wrap(rec, msg, n, 7);
	is_int(px_tls_hello_sni(rec, r, sni, sizeof(sni), err, sizeof(err)),
	    PX_HELLO_SNI, "hello split over 7-byte records");
	is_str(sni, "example.com", "same SNI from fragments");
	{
		bool all_more = true;

		for (size_t k = 0; k < r; k++)
			if (px_tls_hello_sni(rec, k, sni, sizeof(sni), err,
				sizeof(err)) != PX_HELLO_MORE)
				all_more = false;
		ok(all_more, "every shorter prefix asks for more");
	}
	n = build_hello(msg, NULL, 0, 0);
	r = wrap(rec, msg, n, 16384);
	is_int(px_tls_hello_sni(rec, r, sni, sizeof(sni), err, sizeof(err)),
	    PX_HELLO_NO_SNI, "hello without SNI");
	n = build_hello(msg, "a.example", 1, 600);
	r = wrap(rec, msg, n, 100);
	is_int(px_tls_hello_sni(rec, r, sni, sizeof(sni), err, sizeof(err)),
	    PX_HELLO_SNI, "padded hello over many records");
}

static void
expect_error(const uint8_t *p, size_t n, const char *name, const char *why)
{
	char sni[256], err[160] = "";
	int rc = px_tls_hello_sni(p, n, sni, sizeof(sni), err, sizeof(err));

	ok(rc == PX_HELLO_ERROR && strstr(err, why) != NULL, "%s rejected",
	    name);
	if (rc != PX_HELLO_ERROR || strstr(err, why) == NULL)
		tap_diag("  rc %d err %s", rc, err);
}

static void
test_errors(void)
{
	size_t n, r;

	expect_error((const uint8_t *)"GET / HTTP/1.1\r\n", 16,
	    "plain HTTP in a TLS tunnel", "not a handshake");
	expect_error((const uint8_t *)"S", 1, "first byte of an SSH banner",
	    "not a handshake");
	expect_error((const uint8_t *)"\x16\x02", 2, "SSL 2 version",
	    "record version");
	n = build_hello(msg, "127.0.0.1", 1, 0);
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "IP literal SNI", "IP address");
	n = build_hello(msg, "evil_host.example", 1, 0);
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "invalid SNI", "not a valid host");
	n = build_hello(msg, "a.example", 2, 0);
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "two server_name extensions", "duplicate");
	n = build_hello(msg, "a.example", 1, 0);
	msg[0] = 2;
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "ServerHello", "not a ClientHello");
	n = build_hello(msg, "a.example", 1, 17000);
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "oversized hello", "too large");
	/* an extension length past the end of the extensions */
	n = build_hello(msg, "a.example", 1, 0);
	msg[4 + 2 + 32 + 1 + 4 + 2 + 2 + 2 + 1] = 0x7f;
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "extension length overrun", "extension");
	/* the session id longer than 32 */
	n = build_hello(msg, "a.example", 1, 0);
	msg[4 + 2 + 32] = 33;
	r = wrap(rec, msg, n, 16384);
	expect_error(rec, r, "long session id", "session_id");
	/* a zero-length record */
	expect_error((const uint8_t *)"\x16\x03\x01\x00\x00", 5, "empty record",
	    "record length");
	/* a record claiming more than 2^14 */
	expect_error((const uint8_t *)"\x16\x03\x01\x40\x01", 5,
	    "record over 16 KiB", "record length");
	/* an alert record */
	expect_error((const uint8_t *)"\x15\x03\x01\x00\x02\x02\x28", 7,
	    "alert record", "not a handshake");
}

int
main(void)
{
	test_basic();
	test_errors();
	return tap_done();
}
