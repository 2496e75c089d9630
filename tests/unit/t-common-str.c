/* Unit tests of common/str.c. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "common/common.h"
#include "tests/tap.h"

static void
test_parse(void)
{
	uint64_t v = 0;

	ok(axg_parse_u64("443", 1, 65535, &v) == 0 && v == 443, "port 443");
	ok(axg_parse_u64("0", 1, 65535, &v) == -1, "below the minimum");
	ok(axg_parse_u64("65536", 1, 65535, &v) == -1, "above the maximum");
	ok(axg_parse_u64("", 0, 10, &v) == -1, "empty string");
	ok(axg_parse_u64("+1", 0, 10, &v) == -1, "sign rejected");
	ok(axg_parse_u64(" 1", 0, 10, &v) == -1, "leading space rejected");
	ok(axg_parse_u64("1x", 0, 10, &v) == -1, "trailing garbage rejected");
	ok(axg_parse_u64("18446744073709551615", 0, UINT64_MAX, &v) == 0 &&
		v == UINT64_MAX,
	    "UINT64_MAX");
	ok(axg_parse_u64("18446744073709551616", 0, UINT64_MAX, &v) == -1,
	    "overflow rejected");
	ok(axg_parse_u64n("8080xyz", 4, 0, 65535, &v) == 0 && v == 8080,
	    "counted parse stops at n");
}

static void
test_strings(void)
{
	char small[4], s[] = "MiXeD.Example.COM";
	char esc[32];

	is_int(axg_strlcpy(small, "abcdef", sizeof(small)), 6,
	    "strlcpy returns the source length");
	is_str(small, "abc", "strlcpy truncates and terminates");
	ok(axg_startswith("inference.local", "inference."), "startswith");
	ok(!axg_startswith("inf", "inference"), "startswith, short string");
	ok(axg_endswith("api.github.com", ".github.com"), "endswith");
	ok(!axg_endswith("com", ".github.com"), "endswith, short string");
	ok(axg_strncaseeq("CONNECT", "connect", 7), "strncaseeq");
	ok(!axg_strncaseeq("CONNECT", "connecx", 7), "strncaseeq mismatch");
	axg_str_lower(s);
	is_str(s, "mixed.example.com", "lower");
	axg_str_escape(esc, sizeof(esc), "a\nb\0c\\", 6);
	is_str(esc, "a\\x0ab\\x00c\\\\", "escape control bytes and NUL");
	axg_str_escape(esc, 10, "0123456789abcdef", 16);
	is_str(esc, "012345...", "escape cuts long input with a marker");
}

static void
test_utf8(void)
{
	ok(axg_utf8_valid("plain", 5), "ASCII");
	ok(axg_utf8_valid("caf\xc3\xa9", 5), "two-byte sequence");
	ok(axg_utf8_valid("\xf0\x9f\x98\x80", 4), "four-byte emoji");
	ok(!axg_utf8_valid("\xc0\xaf", 2), "overlong slash rejected");
	ok(!axg_utf8_valid("\xed\xa0\x80", 3), "surrogate rejected");
	ok(!axg_utf8_valid("\xf4\x90\x80\x80", 4), "above U+10FFFF rejected");
	ok(!axg_utf8_valid("\xe2\x82", 2), "truncated sequence rejected");
	ok(!axg_utf8_valid("\xff", 1), "0xff rejected");
}

static void
test_read_file(void)
{
	char path[] = "/tmp/t-common-str-XXXXXX";
	char err[256];
	size_t n = 0;
	char *p;
	int fd = mkstemp(path);

	if (fd < 0) {
		ok(0, "mkstemp");
		return;
	}
	(void)write(fd, "0123456789", 10);
	close(fd);
	p = axg_read_file(path, 100, &n, err, sizeof(err));
	is_str(p, "0123456789", "read a whole file");
	is_int(n, 10, "its length");
	free(p);
	p = axg_read_file(path, 5, &n, err, sizeof(err));
	ok(p == NULL, "a file over the limit is refused");
	like_str(err, "larger than 5 bytes", "the message says why");
	like_str(err, path, "the message names the file");
	unlink(path);
	p = axg_read_file(path, 100, &n, err, sizeof(err));
	ok(p == NULL, "a missing file fails");
	like_str(err, "No such file", "with the system's reason");
}

int
main(void)
{
	test_parse();
	test_strings();
	test_utf8();
	test_read_file();
	return tap_done();
}
