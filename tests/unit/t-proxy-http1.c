/* Unit tests of proxy/http1.c and proxy/chunked.c: table-driven cases from
 * the proxy abuse list (request line, framing, smuggling shapes). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"
#include "tests/tap.h"

/* Tables leave trailing fields of error cases unset. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

enum want { OK, MORE, ERR };

struct req_case {
	const char *name;
	const char *head;
	enum want want;
	int status;		  /* on ERR */
	enum px_target_form form; /* on OK */
	enum px_body_kind body;	  /* on OK */
};

#define H11 " HTTP/1.1\r\nHost: a.example\r\n"

static const struct req_case req_cases[] = {
	/* well-formed */
	{ "CONNECT authority-form", "CONNECT a.example:443" H11 "\r\n", OK, 0,
	    PX_FORM_AUTHORITY, PX_BODY_NONE },
	{ "GET absolute-form", "GET http://a.example/x?y" H11 "\r\n", OK, 0,
	    PX_FORM_ABSOLUTE, PX_BODY_NONE },
	{ "GET origin-form reported", "GET /x" H11 "\r\n", OK, 0,
	    PX_FORM_ORIGIN, PX_BODY_NONE },
	{ "OPTIONS *", "OPTIONS *" H11 "\r\n", OK, 0, PX_FORM_ASTERISK,
	    PX_BODY_NONE },
	{ "POST with Content-Length",
	    "POST http://a.example/" H11 "Content-Length: 5\r\n\r\n", OK, 0,
	    PX_FORM_ABSOLUTE, PX_BODY_LENGTH },
	{ "POST chunked",
	    "POST http://a.example/" H11 "Transfer-Encoding: chunked\r\n\r\n",
	    OK, 0, PX_FORM_ABSOLUTE, PX_BODY_CHUNKED },
	{ "HTTP/1.0 without Host", "GET http://a.example/ HTTP/1.0\r\n\r\n", OK,
	    0, PX_FORM_ABSOLUTE, PX_BODY_NONE },
	{ "Content-Length: 0 is no body",
	    "POST http://a.example/" H11 "Content-Length: 0\r\n\r\n", OK, 0,
	    PX_FORM_ABSOLUTE, PX_BODY_NONE },
	/* incomplete */
	{ "incomplete head", "GET http://a.example/" H11, MORE, 0, 0, 0 },
	{ "CR at the end", "GET http://a.example/" H11 "\r", MORE, 0, 0, 0 },
	{ "empty buffer", "", MORE, 0, 0, 0 },
	/* 17: versions */
	{ "HTTP/0.9", "GET http://a.example/ HTTP/0.9\r\n\r\n", ERR, 505 },
	{ "HTTP/2.0", "GET http://a.example/ HTTP/2.0\r\n\r\n", ERR, 505 },
	{ "PRI preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", ERR, 505 },
	{ "lower-case version", "GET http://a.example/ http/1.1\r\n\r\n", ERR,
	    400 },
	{ "HTTP/1.10", "GET http://a.example/ HTTP/1.10\r\n\r\n", ERR, 400 },
	{ "no version", "GET http://a.example/\r\n\r\n", ERR, 400 },
	/* 16: request-line tricks */
	{ "double space", "CONNECT  a.example:443" H11 "\r\n", ERR, 400 },
	{ "tab separator", "CONNECT\ta.example:443" H11 "\r\n", ERR, 400 },
	{ "trailing space",
	    "CONNECT a.example:443 HTTP/1.1 \r\nHost: "
	    "a\r\n\r\n",
	    ERR, 400 },
	{ "CONNECT /path", "CONNECT /path" H11 "\r\n", ERR, 400 },
	{ "CONNECT http://evil.com:443",
	    "CONNECT http://evil.com:443" H11 "\r\n", ERR, 400 },
	{ "CONNECT userinfo", "CONNECT allowed.com@evil.com:443" H11 "\r\n",
	    ERR, 400 },
	{ "lower-case connect is not CONNECT",
	    "connect a.example:443" H11 "\r\n", ERR, 400 },
	{ "absolute-form userinfo",
	    "GET http://allowed.com@evil.com/" H11 "\r\n", ERR, 400 },
	{ "absolute-form fragment", "GET http://a.example/#f" H11 "\r\n", ERR,
	    400 },
	{ "empty authority", "GET http:///x" H11 "\r\n", ERR, 400 },
	{ "non-ASCII target", "GET http://a\xc3\xa9.example/" H11 "\r\n", ERR,
	    400 },
	{ "asterisk outside OPTIONS", "GET *" H11 "\r\n", ERR, 400 },
	{ "invalid method token", "GE(T http://a.example/" H11 "\r\n", ERR,
	    400 },
	{ "empty request line", "\r\nGET http://a.example/" H11 "\r\n", ERR,
	    400 },
	/* 19: framing and smuggling */
	{ "CL and TE",
	    "POST http://a.example/" H11
	    "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	    ERR, 400 },
	{ "TE chunked, identity",
	    "POST http://a.example/" H11
	    "Transfer-Encoding: chunked, identity\r\n\r\n",
	    ERR, 501 },
	{ "TE xchunked",
	    "POST http://a.example/" H11 "Transfer-Encoding: xchunked\r\n\r\n",
	    ERR, 501 },
	{ "TE twice",
	    "POST http://a.example/" H11 "Transfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n",
	    ERR, 400 },
	{ "TE in HTTP/1.0",
	    "POST http://a.example/ HTTP/1.0\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n",
	    ERR, 400 },
	{ "two different CL",
	    "POST http://a.example/" H11
	    "Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
	    ERR, 400 },
	{ "two equal CL",
	    "POST http://a.example/" H11
	    "Content-Length: 5\r\nContent-Length: 5\r\n\r\n",
	    ERR, 400 },
	{ "CL list",
	    "POST http://a.example/" H11 "Content-Length: 5, 5\r\n\r\n", ERR,
	    400 },
	{ "CL +5", "POST http://a.example/" H11 "Content-Length: +5\r\n\r\n",
	    ERR, 400 },
	{ "CL 0x5", "POST http://a.example/" H11 "Content-Length: 0x5\r\n\r\n",
	    ERR, 400 },
	{ "CL -1", "POST http://a.example/" H11 "Content-Length: -1\r\n\r\n",
	    ERR, 400 },
	{ "CL overflow",
	    "POST http://a.example/" H11
	    "Content-Length: 99999999999999999999\r\n\r\n",
	    ERR, 400 },
	{ "obs-fold",
	    "GET http://a.example/" H11 "X-A: 1\r\n  continued\r\n\r\n", ERR,
	    400 },
	{ "obs-fold tab", "GET http://a.example/" H11 "X-A: 1\r\n\tc\r\n\r\n",
	    ERR, 400 },
	{ "bare LF line end", "GET http://a.example/ HTTP/1.1\nHost: a\n\n",
	    ERR, 400 },
	{ "bare LF in a field",
	    "GET http://a.example/" H11 "X-A: 1\nX-B: "
	    "2\r\n\r\n",
	    ERR, 400 },
	{ "bare CR in a field",
	    "GET http://a.example/" H11 "X-A: 1\rX-B: 2\r\n\r\n", ERR, 400 },
	{ "control byte in value",
	    "GET http://a.example/" H11 "X-A: a\x01z\r\n\r\n", ERR, 400 },
	{ "DEL in value", "GET http://a.example/" H11 "X-A: a\x7fz\r\n\r\n",
	    ERR, 400 },
	{ "invalid field name", "GET http://a.example/" H11 "X(A): 1\r\n\r\n",
	    ERR, 400 },
	{ "empty field name", "GET http://a.example/" H11 ": 1\r\n\r\n", ERR,
	    400 },
	{ "field without colon", "GET http://a.example/" H11 "XA\r\n\r\n", ERR,
	    400 },
	/* 18: Host */
	{ "space before colon",
	    "GET http://a.example/ HTTP/1.1\r\nHost : a.example\r\n\r\n", ERR,
	    400 },
	{ "missing Host in 1.1", "GET http://a.example/ HTTP/1.1\r\n\r\n", ERR,
	    400 },
	{ "duplicate Host", "GET http://a.example/" H11 "Host: b\r\n\r\n", ERR,
	    400 },
	{ "CONNECT with a body",
	    "CONNECT a.example:443" H11 "Content-Length: 3\r\n\r\n", ERR, 400 },
};

static void
test_requests(void)
{
	struct px_http_limits lim;
	struct px_header hdrs[100];

	px_http_limits_default(&lim);
	for (size_t i = 0; i < AXG_ARRAY_LEN(req_cases); i++) {
		const struct req_case *c = &req_cases[i];
		struct px_request req;
		char err[256] = "";
		int status = 0;
		int rc = px_http1_parse_request(c->head, strlen(c->head), &lim,
		    &req, hdrs, &status, err, sizeof(err));

		switch (c->want) {
		case OK:
			ok(rc == (int)strlen(c->head) && req.form == c->form &&
				req.body == c->body,
			    "%s: parsed", c->name);
			if (rc < 0)
				tap_diag("  %s", err);
			break;
		case MORE:
			is_int(rc, 0, "%s: needs more", c->name);
			break;
		case ERR:
			ok(rc == -1 && status == c->status && err[0] != '\0',
			    "%s: rejected with %d", c->name, c->status);
			if (rc != -1 || status != c->status)
				tap_diag("  rc %d status %d err %s", rc, status,
				    err);
			break;
		}
	}
}

static void
test_nul(void)
{
	static const char head[] =
	    "GET http://a.example/" H11 "X-A: a\0b\r\n\r\n";
	struct px_http_limits lim;
	struct px_header hdrs[100];
	struct px_request req;
	char err[128];
	int status;

	px_http_limits_default(&lim);
	ok(px_http1_parse_request(head, sizeof(head) - 1, &lim, &req, hdrs,
	       &status, err, sizeof(err)) == -1 &&
		status == 400,
	    "NUL in a header rejected");
	like_str(err, "NUL", "the message names the NUL");
}

static void
test_fields(void)
{
	static const char head[] =
	    "GET http://A.example:8080/p/q?x=1 HTTP/1.1\r\n"
	    "Host:  A.example:8080  \r\n"
	    "Connection: close, X-Secret\r\n"
	    "X-Secret: s\r\n"
	    "Upgrade: h2c\r\n"
	    "\r\nGET next";
	struct px_http_limits lim;
	struct px_header hdrs[100];
	struct px_request req;
	char err[128];
	int status, rc;

	px_http_limits_default(&lim);
	rc = px_http1_parse_request(head, sizeof(head) - 1, &lim, &req, hdrs,
	    &status, err, sizeof(err));
	is_int(rc, sizeof(head) - 1 - 8,
	    "head length excludes the pipelined "
	    "tail");
	ok(req.authority_len == 14 &&
		memcmp(req.authority, "A.example:8080", 14) == 0,
	    "authority split");
	ok(req.path_len == 8 && memcmp(req.path, "/p/q?x=1", 8) == 0,
	    "path with query split");
	ok(req.scheme_len == 4 && memcmp(req.scheme, "http", 4) == 0,
	    "scheme split");
	is_int(req.nheaders, 4, "four fields");
	is_int(req.host_index, 0, "Host index");
	ok(hdrs[0].value_len == 14 &&
		memcmp(hdrs[0].value, "A.example:8080", 14) == 0,
	    "value trimmed");
	ok(!req.keep_alive, "Connection: close ends keep-alive");
	ok(req.upgrade, "Upgrade noticed");
	ok(px_http_is_hop_by_hop(&hdrs[1], hdrs[1].value, hdrs[1].value_len),
	    "Connection is hop-by-hop");
	ok(px_http_is_hop_by_hop(&hdrs[2], hdrs[1].value, hdrs[1].value_len),
	    "a field named in Connection is hop-by-hop");
	ok(px_http_is_hop_by_hop(&hdrs[3], NULL, 0), "Upgrade is hop-by-hop");
	ok(!px_http_is_hop_by_hop(&hdrs[0], hdrs[1].value, hdrs[1].value_len),
	    "Host is end-to-end");
	ok(px_http_list_has(" a ,b, close ", 13, "CLOSE"),
	    "list lookup is case-insensitive");
	ok(!px_http_list_has("closed", 6, "close"), "list needs whole tokens");
}

/* RFC 9112 9.3: close wins; 1.1 persists by default, 1.0 only with
 * keep-alive. */
static void
test_keep_alive(void)
{
	static const struct {
		const char *head;
		bool keep;
	} cases[] = {
		{ "GET / HTTP/1.1\r\nHost: a\r\n\r\n", true },
		{ "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		    false },
		{ "GET / HTTP/1.0\r\nHost: a\r\n\r\n", false },
		{ "GET / HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n",
		    true },
		{ "GET / HTTP/1.0\r\nHost: a\r\nConnection: keep-alive, "
		  "close\r\n\r\n",
		    false },
	};
	struct px_http_limits lim;
	struct px_header hdrs[100];

	px_http_limits_default(&lim);
	for (size_t i = 0; i < AXG_ARRAY_LEN(cases); i++) {
		struct px_request req;
		char err[128];
		int status = 0;
		int rc =
		    px_http1_parse_request(cases[i].head, strlen(cases[i].head),
			&lim, &req, hdrs, &status, err, sizeof(err));

		ok(rc > 0 && req.keep_alive == cases[i].keep,
		    "keep-alive of case %zu", i);
	}
}

static void
test_limits(void)
{
	struct px_http_limits lim = { 256, 64, 3 };
	struct px_header hdrs[3];
	struct px_request req;
	char err[128], buf[2048];
	int status, rc;

	/* 14: long host in the request line */
	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "CONNECT ", 8);
	rc = px_http1_parse_request(buf, 200, &lim, &req, hdrs, &status, err,
	    sizeof(err));
	ok(rc == -1 && status == 414, "long request line: 414 before the end");
	/* a header with no CRLF */
	rc = px_http1_parse_request("GET http://a/ HTTP/1.1\r\nX: "
				    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    96, &lim, &req, hdrs, &status, err, sizeof(err));
	ok(rc == -1 && status == 431, "long field line without CRLF: 431");
	rc = px_http1_parse_request("GET http://a/ HTTP/1.1\r\nHost: a\r\n"
				    "A: 1\r\nB: 2\r\nC: 3\r\n\r\n",
	    53, &lim, &req, hdrs, &status, err, sizeof(err));
	ok(rc == -1 && status == 431, "too many fields: 431");
	like_str(err, "more than 3", "message names the limit");
	{
		/* many short lines: the head limit */
		size_t n = 0;

		n += (size_t)snprintf(buf, sizeof(buf),
		    "GET http://a/ HTTP/1.1\r\n");
		while (n + 8 < 300) {
			memcpy(buf + n, "X: 1\r\n", 6);
			n += 6;
		}
		rc = px_http1_parse_request(buf, n, &lim, &req, hdrs, &status,
		    err, sizeof(err));
		ok(rc == -1 && status == 431, "head past max_head: 431");
	}
}

struct resp_case {
	const char *name;
	const char *head;
	int want; /* -1 error, else the status */
	enum px_body_kind body;
	bool keep_alive;
};

static const struct resp_case resp_cases[] = {
	{ "Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", 200,
	    PX_BODY_LENGTH, true },
	{ "delimited by close", "HTTP/1.1 200 OK\r\n\r\n", 200, PX_BODY_CLOSE,
	    false },
	{ "304 has no body",
	    "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 304,
	    PX_BODY_NONE, true },
	{ "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
	    200, PX_BODY_CHUNKED, true },
	{ "HTTP/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n",
	    200, PX_BODY_LENGTH, false },
	{ "no reason phrase", "HTTP/1.1 204\r\n\r\n", 204, PX_BODY_NONE, true },
	{ "CL and TE",
	    "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n",
	    -1 },
	{ "two-digit status", "HTTP/1.1 20 OK\r\n\r\n", -1 },
	{ "status 600", "HTTP/1.1 600 OK\r\n\r\n", -1 },
	{ "HTTP/2 status line", "HTTP/2 200\r\n\r\n", -1 },
	{ "bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\n\n", -1 },
};

static void
test_response(void)
{
	struct px_http_limits lim;
	struct px_header hdrs[100];

	px_http_limits_default(&lim);
	for (size_t i = 0; i < AXG_ARRAY_LEN(resp_cases); i++) {
		const struct resp_case *c = &resp_cases[i];
		struct px_response r;
		char err[128] = "";
		int rc = px_http1_parse_response(c->head, strlen(c->head), &lim,
		    false, &r, hdrs, err, sizeof(err));

		if (c->want < 0)
			ok(rc == -1 && err[0] != '\0', "response %s rejected",
			    c->name);
		else
			ok(rc == (int)strlen(c->head) && r.status == c->want &&
				r.body == c->body &&
				r.keep_alive == c->keep_alive,
			    "response %s", c->name);
	}
	{
		struct px_response r;
		char err[128];
		const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n";

		ok(px_http1_parse_response(h, strlen(h), &lim, true, &r, hdrs,
		       err, sizeof(err)) > 0 &&
			r.body == PX_BODY_NONE,
		    "response to HEAD has no body");
	}
}

/* Collect decoded chunk data. */
static int
collect(void *arg, const char *p, size_t n)
{
	struct axg_buf *b = arg;

	return axg_buf_append(b, p, n);
}

struct chunk_case {
	const char *name;
	const char *body;
	int want; /* 1 complete, 0 more, -1 error */
	const char *data;
};

static const struct chunk_case chunk_cases[] = {
	{ "simple", "3\r\nabc\r\n0\r\n\r\n", 1, "abc" },
	{ "two chunks, upper hex", "A\r\n0123456789\r\n1\r\nx\r\n0\r\n\r\n", 1,
	    "0123456789x" },
	{ "extension", "3;name=val\r\nabc\r\n0\r\n\r\n", 1, "abc" },
	{ "trailer", "3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n", 1, "abc" },
	{ "leading zeros", "0003\r\nabc\r\n0\r\n\r\n", 1, "abc" },
	{ "incomplete", "3\r\nab", 0, "ab" },
	{ "size overflow", "ffffffffffffffff1\r\n", -1, "" },
	{ "0x prefix", "0x3\r\nabc\r\n0\r\n\r\n", -1, "" },
	{ "sign", "+3\r\nabc\r\n0\r\n\r\n", -1, "" },
	{ "space before size", " 3\r\nabc\r\n0\r\n\r\n", -1, "" },
	{ "space after size", "3 \r\nabc\r\n0\r\n\r\n", -1, "" },
	{ "empty size", "\r\nabc\r\n0\r\n\r\n", -1, "" },
	{ "bare LF after size", "3\nabc\r\n0\r\n\r\n", -1, "" },
	{ "data longer than size", "3\r\nabcd\r\n0\r\n\r\n", -1, "abc" },
	{ "quoted extension", "3;a=\"b\"\r\nabc\r\n0\r\n\r\n", -1, "" },
	{ "obs-fold trailer", "0\r\nX: 1\r\n 2\r\n\r\n", -1, "" },
	{ "trailer without colon", "0\r\nX\r\n\r\n", -1, "" },
	{ "NUL in trailer", "0\r\nX: a\0\r\n\r\n", -1, "" },
	{ "body limit", "11\r\n01234567890123456\r\n0\r\n\r\n", -1, "" },
};

static void
test_chunked(void)
{
	for (size_t i = 0; i < AXG_ARRAY_LEN(chunk_cases); i++) {
		const struct chunk_case *c = &chunk_cases[i];
		struct px_chunked ch;
		struct axg_buf out = AXG_BUF_INIT;
		size_t len = strlen(c->body), used;
		char err[128] = "";
		int rc;

		if (strcmp(c->name, "NUL in trailer") == 0)
			len = 13;
		px_chunked_init(&ch, 16, 128);
		rc = px_chunked_feed(&ch, c->body, len, &used, collect, &out,
		    err, sizeof(err));
		ok(rc == c->want &&
			strcmp(out.data ? out.data : "", c->data) == 0,
		    "chunked %s", c->name);
		if (rc != c->want)
			tap_diag("  rc %d err %s", rc, err);
		axg_buf_free(&out);
	}
	{
		/* byte by byte, then the tail left unread */
		static const char body[] = "4\r\nwxyz\r\n0\r\n\r\nNEXT";
		struct px_chunked ch;
		struct axg_buf out = AXG_BUF_INIT;
		size_t used, total = 0;
		int rc = 0;
		char err[128];

		px_chunked_init(&ch, 0, 128);
		for (size_t i = 0; i < sizeof(body) - 1 && rc == 0; i++) {
			rc = px_chunked_feed(&ch, body + i, 1, &used, collect,
			    &out, err, sizeof(err));
			total += used;
		}
		ok(rc == 1 && total == sizeof(body) - 5 &&
			strcmp(out.data, "wxyz") == 0,
		    "byte-by-byte decode stops at the end of the body");
		axg_buf_free(&out);
	}
}

int
main(void)
{
	test_requests();
	test_nul();
	test_fields();
	test_keep_alive();
	test_limits();
	test_response();
	test_chunked();
	return tap_done();
}
