/* Unit tests of audit/json.c and the helpers: hostile strings never break
 * a line or the JSON, UUIDs, masked previews. */
#include "config.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit/audit.h"
#include "tests/tap.h"

/* Encode s[0..n) and decode it with jansson: the decoded string, or NULL
 * if the output was not one valid JSON string on one line. */
static char *
roundtrip(const void *s, size_t n, bool *cut, size_t *outlen)
{
	struct axg_buf b;
	json_error_t jerr;
	json_t *j;
	char *res = NULL;

	axg_buf_init(&b, 0);
	*cut = ocsf_json_string(&b, s, n);
	if (outlen != NULL)
		*outlen = b.len;
	if (memchr(b.data, '\n', b.len) != NULL ||
	    memchr(b.data, '\0', b.len) != NULL ||
	    !axg_utf8_valid(b.data, b.len))
		goto out;
	j = json_loadb(b.data, b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (j == NULL || !json_is_string(j)) {
		json_decref(j);
		goto out;
	}
	res = axg_malloc(json_string_length(j) + 1);
	memcpy(res, json_string_value(j), json_string_length(j) + 1);
	json_decref(j);
out:
	axg_buf_free(&b);
	return res;
}

/* Plain runs are scanned eight bytes at a time: a byte that needs care
 * must be caught at every offset of a block, in every block. */
static void
test_escape_positions(void)
{
	static const char *const specials[] = { "\"", "\\", "\n", "\x01",
		"\x1f", "\x7f", "\xc3\xa9", "\xe2\x80\xa8", "\xff" };
	int bad = 0, cases = 0;

	for (size_t k = 0; k < AXG_ARRAY_LEN(specials); k++) {
		for (size_t pos = 0; pos < 26; pos++) {
			char in[40], want[40];
			size_t sl = strlen(specials[k]), n = 0, wn = 0;
			bool cut;
			char *r;

			memset(in, 'x', pos);
			n = pos;
			memcpy(in + n, specials[k], sl);
			n += sl;
			memset(in + n, 'y', 9);
			n += 9;
			memcpy(want, in, n);
			wn = n;
			if (specials[k][0] == '\xff') /* becomes U+FFFD */
				wn = (size_t)(stpcpy(stpcpy(want + pos,
							 "\xef\xbf\xbd"),
						  "yyyyyyyyy") -
				    want);
			want[wn] = '\0';
			r = roundtrip(in, n, &cut, NULL);
			cases++;
			if (r == NULL || strcmp(r, want) != 0 || cut) {
				if (bad++ == 0)
					tap_diag("special %zu at %zu: %s", k,
					    pos, r ? r : "(invalid)");
			}
			free(r);
		}
	}
	is_int(bad, 0,
	    "every special byte at every offset of a block (%d "
	    "cases)",
	    cases);
}

static void
test_escapes(void)
{
	static const char hostile[] = "a\"b\\c\nd\re\tf\x01g\x7fh";
	bool cut;
	char *r;
	struct axg_buf b;

	r = roundtrip(hostile, sizeof(hostile) - 1, &cut, NULL);
	is_str(r, hostile, "quotes, backslashes and control bytes round-trip");
	ok(!cut, "a short value is not cut");
	free(r);

	axg_buf_init(&b, 0);
	ocsf_json_string(&b, "x\ny", 3);
	is_str(b.data, "\"x\\ny\"", "a newline becomes \\n");
	axg_buf_reset(&b);
	ocsf_json_string(&b, "\x01", 1);
	is_str(b.data, "\"\\u0001\"", "a control byte becomes \\u0001");
	axg_buf_reset(&b);
	ocsf_json_string(&b, "a\0b", 3);
	is_str(b.data, "\"a\\u0000b\"", "an embedded NUL becomes \\u0000");
	axg_buf_reset(&b);
	ocsf_json_string(&b, "\xe2\x80\xa8", 3);
	is_str(b.data, "\"\\u2028\"", "U+2028 is escaped");
	axg_buf_free(&b);
}

static void
test_utf8(void)
{
	struct {
		const char *in;
		const char *want;
		const char *name;
	} cases[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9", "valid 2-byte UTF-8 kept" },
		{ "\xf0\x9f\x94\x91", "\xf0\x9f\x94\x91", "valid 4-byte kept" },
		{ "a\xffz", "a\xef\xbf\xbdz", "0xff becomes U+FFFD" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "overlong rejected" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		    "surrogate rejected" },
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd",
		    "truncated sequence rejected" },
		{ "\xf4\x90\x80\x80",
		    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		    "\xef\xbf\xbd",
		    "beyond U+10FFFF rejected" },
	};

	for (size_t i = 0; i < AXG_ARRAY_LEN(cases); i++) {
		bool cut;
		char *r =
		    roundtrip(cases[i].in, strlen(cases[i].in), &cut, NULL);

		is_str(r, cases[i].want, "%s", cases[i].name);
		free(r);
	}
}

static void
test_truncation(void)
{
	size_t n = 1024 * 1024, outlen;
	char *big = axg_malloc(n);
	bool cut;
	char *r;

	memset(big, 'h', n);
	r = roundtrip(big, n, &cut, &outlen);
	ok(r != NULL, "a 1 MB value is still one valid JSON string");
	ok(cut, "and it is reported as cut");
	ok(outlen <= OCSF_STRING_MAX + sizeof(OCSF_TRUNC_MARKER) + 2,
	    "the output is bounded (%zu bytes)", outlen);
	ok(r != NULL && axg_endswith(r, OCSF_TRUNC_MARKER),
	    "the value ends with the marker");
	free(r);

	/* escapes near the limit never split: all \u0001 */
	memset(big, 1, n);
	r = roundtrip(big, n, &cut, &outlen);
	ok(r != NULL && cut, "a 1 MB run of escapes is cut cleanly");
	free(r);
	/* multi-byte characters are not split at the cut */
	for (size_t i = 0; i + 3 <= n; i += 3)
		memcpy(big + i, "\xe2\x82\xac", 3);
	r = roundtrip(big, n - n % 3, &cut, NULL);
	ok(r != NULL && cut, "a 1 MB run of euro signs is cut on a character");
	free(r);
	free(big);
}

static void
test_uuid(void)
{
	char a[37], b[37];
	bool shape = true;

	ocsf_uuid4(a);
	ocsf_uuid4(b);
	is_int(strlen(a), 36, "a UUID is 36 characters");
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? a[i] != '-'
			 : strchr("0123456789abcdef", a[i]) == NULL)
			shape = false;
	}
	ok(shape, "8-4-4-4-12 lower-case hex");
	ok(a[14] == '4', "version 4");
	ok(strchr("89ab", a[19]) != NULL, "RFC 4122 variant");
	ok(strcmp(a, b) != 0, "two UUIDs differ");
	/* many more than one pool of random bytes */
	{
		char prev[37];
		bool distinct = true;

		axg_strlcpy(prev, b, sizeof(prev));
		for (int i = 0; i < 1000; i++) {
			ocsf_uuid4(a);
			if (strcmp(a, prev) == 0)
				distinct = false;
			axg_strlcpy(prev, a, sizeof(prev));
		}
		ok(distinct, "1000 UUIDs in a row, each new");
	}
}

/* A child made by fork() (or by a raw clone(), which runs no atfork
 * handler) inherits the parent's pool of random bytes: it must not hand
 * out the UUIDs the parent hands out next. */
static void
uuid_in_child(bool raw_clone, const char *what)
{
	char mine[37], theirs[37] = "";
	int p[2];
	pid_t pid;
	ssize_t r;

	ocsf_uuid4(mine); /* the pool is filled and in use */
	if (pipe(p) < 0) {
		tap_skip(what, "no pipe");
		return;
	}
	pid = raw_clone
	    ? (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL)
	    : fork();
	if (pid == 0) {
		char u[37];

		ocsf_uuid4(u);
		(void)!write(p[1], u, 36);
		_exit(0);
	}
	close(p[1]);
	r = pid > 0 ? read(p[0], theirs, 36) : -1;
	theirs[r == 36 ? 36 : 0] = '\0';
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	ocsf_uuid4(mine);
	ok(r == 36 && strcmp(mine, theirs) != 0,
	    "%s: the child's UUID differs from the parent's next (%s, %s)",
	    what, theirs, mine);
}

static void
test_mask(void)
{
	char out[48];

	ocsf_mask_preview(out, sizeof(out), "AKIAIOSFODNN7EXAMPLE");
	is_str(out, "AKIA************MPLE", "a 20-character key keeps 4+4");
	ocsf_mask_preview(out, sizeof(out), "AKIA************MPLE");
	is_str(out, "AKIA************MPLE",
	    "masking a masked preview is "
	    "idempotent");
	ocsf_mask_preview(out, sizeof(out), "hunter2pw");
	is_str(out, "hu*****pw", "a 9-character value keeps 2+2");
	ocsf_mask_preview(out, sizeof(out), "secret");
	is_str(out, "******", "a short value is all stars");
	ocsf_mask_preview(out, sizeof(out),
	    "ghp_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ");
	is_int(strlen(out), 40, "a long value shows at most 32 stars");
	ocsf_mask_preview(out, sizeof(out), NULL);
	is_str(out, "", "no preview, nothing");
}

/* A whole event with hostile fields stays one valid line. */
static void
test_hostile_event(void)
{
	struct ocsf_origin o = { .device_hostname = "gw\n1", .pid = 1 };
	struct ocsf_net_event ev;
	size_t n = 1024 * 1024;
	char *host = axg_malloc(n + 1);
	struct axg_buf b;
	json_error_t jerr;
	json_t *j, *meta;
	char err[128];

	memset(host, 'a', n);
	host[n] = '\0';
	memcpy(host, "evil\"\n}{\xff", 9);
	memset(&ev, 0, sizeof(ev));
	ev.activity = OCSF_NET_REFUSE;
	ev.correlation_uid = "j-\"1\"";
	ev.dst.hostname = host;
	ev.dst.port = 443;
	ev.dst.ip = "not-an-ip\n";
	ev.src.ip = "10.77.0.2";
	ev.rule = "r\r\n";
	ev.reason = "line1\nline2";
	axg_buf_init(&b, 0);
	ok(ocsf_format_net(&b, &o, &ev, err, sizeof(err)) == 0,
	    "an event with a 1 MB hostile host name is written");
	ok(b.len > 0 && b.data[b.len - 1] == '\n' &&
		memchr(b.data, '\n', b.len - 1) == NULL,
	    "as exactly one line");
	ok(b.len < 16384, "of bounded size (%zu bytes)", b.len);
	j = json_loadb(b.data, b.len, 0, &jerr);
	ok(j != NULL, "that is valid JSON");
	meta = json_object_get(j, "metadata");
	ok(json_is_true(json_object_get(meta, "is_truncated")),
	    "metadata.is_truncated is set");
	ok(json_object_get(json_object_get(j, "dst_endpoint"), "ip") == NULL,
	    "an invalid IP address is left out");
	like_str(json_string_value(
		     json_object_get(json_object_get(j, "dst_endpoint"),
			 "hostname")),
	    "evil\"\n}{\xef\xbf\xbd", "the host name survives, escaped");
	json_decref(j);
	axg_buf_free(&b);
	free(host);
}

int
main(void)
{
	test_escapes();
	test_escape_positions();
	test_utf8();
	test_truncation();
	test_uuid();
	uuid_in_child(false, "fork");
	uuid_in_child(true, "raw clone");
	test_mask();
	test_hostile_event();
	return tap_done();
}
