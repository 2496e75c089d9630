/*
 * http1.c: a strict, bounded HTTP/1.1 head parser.
 *
 * Every line must end in CRLF; a bare CR, a bare LF, a NUL or any other
 * control byte outside a field value's HTAB is an error, as are obs-fold
 * continuations, whitespace before a field's colon, invalid token bytes,
 * versions other than HTTP/1.0 and HTTP/1.1, Content-Length with anything
 * but digits, more than one Content-Length, any Transfer-Encoding but a
 * lone "chunked", and both framings at once.  Nothing is allocated: the
 * result points into the caller's buffer.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"

void
px_http_limits_default(struct px_http_limits *lim)
{
	lim->max_head = 16384;
	lim->max_line = 8192;
	lim->max_headers = 100;
}

/* RFC 9110 tchar. */
static const unsigned char tchar_map[256] = {
	['!'] = 1,
	['#'] = 1,
	['$'] = 1,
	['%'] = 1,
	['&'] = 1,
	['\''] = 1,
	['*'] = 1,
	['+'] = 1,
	['-'] = 1,
	['.'] = 1,
	['^'] = 1,
	['_'] = 1,
	['`'] = 1,
	['|'] = 1,
	['~'] = 1,
	['0'] = 1,
	['1'] = 1,
	['2'] = 1,
	['3'] = 1,
	['4'] = 1,
	['5'] = 1,
	['6'] = 1,
	['7'] = 1,
	['8'] = 1,
	['9'] = 1,
	['A'] = 1,
	['B'] = 1,
	['C'] = 1,
	['D'] = 1,
	['E'] = 1,
	['F'] = 1,
	['G'] = 1,
	['H'] = 1,
	['I'] = 1,
	['J'] = 1,
	['K'] = 1,
	['L'] = 1,
	['M'] = 1,
	['N'] = 1,
	['O'] = 1,
	['P'] = 1,
	['Q'] = 1,
	['R'] = 1,
	['S'] = 1,
	['T'] = 1,
	['U'] = 1,
	['V'] = 1,
	['W'] = 1,
	['X'] = 1,
	['Y'] = 1,
	['Z'] = 1,
	['a'] = 1,
	['b'] = 1,
	['c'] = 1,
	['d'] = 1,
	['e'] = 1,
	['f'] = 1,
	['g'] = 1,
	['h'] = 1,
	['i'] = 1,
	['j'] = 1,
	['k'] = 1,
	['l'] = 1,
	['m'] = 1,
	['n'] = 1,
	['o'] = 1,
	['p'] = 1,
	['q'] = 1,
	['r'] = 1,
	['s'] = 1,
	['t'] = 1,
	['u'] = 1,
	['v'] = 1,
	['w'] = 1,
	['x'] = 1,
	['y'] = 1,
	['z'] = 1,
};

static bool
is_tchar(unsigned char c)
{
	return tchar_map[c] != 0;
}

static bool
is_token(const char *p, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_tchar((unsigned char)p[i]))
			return false;
	return true;
}

static bool
name_is(const struct px_header *h, const char *name)
{
	size_t n = strlen(name);

	return h->name_len == n && axg_strncaseeq(h->name, name, n);
}

/* Split off the lines of a head.  Returns the head length when a blank
 * line ends it, 0 when more is needed, -1 on a framing error. */
static int
scan_head(const char *buf, size_t len, const struct px_http_limits *lim,
    int *status, char *err, size_t errlen)
{
	size_t line_start = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r') {
			if (i + 1 >= len)
				break; /* need the next byte */
			if (buf[i + 1] != '\n') {
				*status = 400;
				return axg_seterr(err, errlen,
				    "bare CR at byte %zu", i);
			}
			if (i - line_start > lim->max_line) {
				*status = line_start == 0 ? 414 : 431;
				return axg_seterr(err, errlen,
				    "line longer than %zu bytes",
				    lim->max_line);
			}
			if (i == line_start && line_start > 0) {
				if (i + 2 > lim->max_head) {
					*status = 431;
					return axg_seterr(err, errlen,
					    "head larger than %zu bytes",
					    lim->max_head);
				}
				return (int)(i + 2);
			}
			if (i == 0) {
				*status = 400;
				return axg_seterr(err, errlen,
				    "empty request line");
			}
			i++;
			line_start = i + 1;
			continue;
		}
		if (c == '\n') {
			*status = 400;
			return axg_seterr(err, errlen, "bare LF at byte %zu",
			    i);
		}
		if (c == 0) {
			*status = 400;
			return axg_seterr(err, errlen, "NUL at byte %zu", i);
		}
	}
	if (len - line_start > lim->max_line) {
		*status = line_start == 0 ? 414 : 431;
		return axg_seterr(err, errlen, "line longer than %zu bytes",
		    lim->max_line);
	}
	if (len >= lim->max_head) {
		*status = 431;
		return axg_seterr(err, errlen, "head larger than %zu bytes",
		    lim->max_head);
	}
	return 0;
}

/* Parse "HTTP/1.x" exactly. */
static int
parse_version(const char *p, size_t n, int *minor, int *status, char *err,
    size_t errlen)
{
	if (n == 8 && memcmp(p, "HTTP/1.", 7) == 0 &&
	    (p[7] == '0' || p[7] == '1')) {
		*minor = p[7] - '0';
		return 0;
	}
	if (n == 8 && memcmp(p, "HTTP/", 5) == 0 && p[5] >= '0' &&
	    p[5] <= '9' && p[6] == '.' && p[7] >= '0' && p[7] <= '9') {
		*status = 505;
		return axg_seterr(err, errlen,
		    "HTTP version %.8s not supported", p);
	}
	*status = 400;
	return axg_seterr(err, errlen, "malformed HTTP version");
}

/* Header fields from p up to the blank line (end points at its CR). */
static int
parse_fields(const char *p, const char *end, const struct px_http_limits *lim,
    struct px_header *hdrs, size_t *nhdrs, int *status, char *err,
    size_t errlen)
{
	size_t n = 0;

	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		const char *colon, *v, *ve;

		if (eol == NULL)
			eol = end;
		if (*p == ' ' || *p == '\t') {
			*status = 400;
			return axg_seterr(err, errlen,
			    "obsolete line folding in field %zu", n + 1);
		}
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon == NULL || !is_token(p, (size_t)(colon - p))) {
			*status = 400;
			if (colon != NULL && colon > p &&
			    (colon[-1] == ' ' || colon[-1] == '\t'))
				return axg_seterr(err, errlen,
				    "whitespace before the colon in field %zu",
				    n + 1);
			return axg_seterr(err, errlen,
			    "invalid field name in field %zu", n + 1);
		}
		v = colon + 1;
		ve = eol;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		for (const char *q = v; q < ve; q++) {
			unsigned char c = (unsigned char)*q;

			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				*status = 400;
				return axg_seterr(err, errlen,
				    "control byte in the value of field %zu",
				    n + 1);
			}
		}
		if (n >= lim->max_headers) {
			*status = 431;
			return axg_seterr(err, errlen,
			    "more than %zu header fields", lim->max_headers);
		}
		hdrs[n].name = p;
		hdrs[n].name_len = (size_t)(colon - p);
		hdrs[n].value = v;
		hdrs[n].value_len = (size_t)(ve - v);
		n++;
		p = eol + 2;
	}
	*nhdrs = n;
	return 0;
}

bool
px_http_list_has(const char *value, size_t len, const char *token)
{
	size_t tl = strlen(token);
	size_t i = 0;

	while (i < len) {
		size_t s, e;

		while (i < len &&
		    (value[i] == ' ' || value[i] == '\t' || value[i] == ','))
			i++;
		s = i;
		while (i < len && value[i] != ',')
			i++;
		e = i;
		while (e > s && (value[e - 1] == ' ' || value[e - 1] == '\t'))
			e--;
		if (e - s == tl && axg_strncaseeq(value + s, token, tl))
			return true;
	}
	return false;
}

bool
px_http_is_hop_by_hop(const struct px_header *h, const char *conn,
    size_t connlen)
{
	static const char *const hop[] = { "connection", "keep-alive",
		"proxy-connection", "proxy-authorization", "proxy-authenticate",
		"te", "trailer", "upgrade" };
	char name[128];

	for (size_t i = 0; i < AXG_ARRAY_LEN(hop); i++)
		if (name_is(h, hop[i]))
			return true;
	if (conn == NULL || h->name_len >= sizeof(name))
		return false;
	memcpy(name, h->name, h->name_len);
	name[h->name_len] = '\0';
	return px_http_list_has(conn, connlen, name);
}

/* Framing and connection semantics shared by requests and responses. */
struct framing {
	int cl_count;
	int te_count;
	bool te_chunked;
	uint64_t cl;
	bool conn_close, conn_keepalive;
	bool upgrade;
	bool expect_continue;
	int host_index;
	int host_count;
};

static int
scan_framing(const struct px_header *hdrs, size_t n, struct framing *f,
    int *status, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->host_index = -1;
	for (size_t i = 0; i < n; i++) {
		const struct px_header *h = &hdrs[i];

		if (name_is(h, "content-length")) {
			if (++f->cl_count > 1) {
				*status = 400;
				return axg_seterr(err, errlen,
				    "more than one Content-Length");
			}
			if (h->value_len > 19 ||
			    axg_parse_u64n(h->value, h->value_len, 0,
				UINT64_MAX, &f->cl) != 0) {
				*status = 400;
				return axg_seterr(err, errlen,
				    "invalid Content-Length");
			}
		} else if (name_is(h, "transfer-encoding")) {
			if (++f->te_count > 1) {
				*status = 400;
				return axg_seterr(err, errlen,
				    "more than one Transfer-Encoding");
			}
			if (h->value_len != 7 ||
			    !axg_strncaseeq(h->value, "chunked", 7)) {
				*status = 501;
				return axg_seterr(err, errlen,
				    "Transfer-Encoding other than chunked");
			}
			f->te_chunked = true;
		} else if (name_is(h, "connection")) {
			if (px_http_list_has(h->value, h->value_len, "close"))
				f->conn_close = true;
			if (px_http_list_has(h->value, h->value_len,
				"keep-alive"))
				f->conn_keepalive = true;
		} else if (name_is(h, "upgrade")) {
			f->upgrade = true;
		} else if (name_is(h, "host")) {
			f->host_count++;
			f->host_index = (int)i;
		} else if (name_is(h, "expect")) {
			f->expect_continue = true;
		}
	}
	if (f->cl_count && f->te_count) {
		*status = 400;
		return axg_seterr(err, errlen,
		    "both Content-Length and Transfer-Encoding");
	}
	return 0;
}

/* Absolute-form: scheme "://" authority [path-abempty ["?" query]]. */
static int
split_absolute(struct px_request *req, int *status, char *err, size_t errlen)
{
	const char *t = req->target, *end = req->target + req->target_len;
	const char *p = t, *a;

	while (p < end &&
	    ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		(p > t &&
		    ((*p >= '0' && *p <= '9') || *p == '+' || *p == '-' ||
			*p == '.'))))
		p++;
	if (p == t || end - p < 3 || memcmp(p, "://", 3) != 0) {
		*status = 400;
		return axg_seterr(err, errlen,
		    "request target is not in "
		    "origin, absolute or "
		    "authority form");
	}
	req->scheme = t;
	req->scheme_len = (size_t)(p - t);
	a = p + 3;
	p = a;
	while (p < end && *p != '/' && *p != '?' && *p != '#')
		p++;
	req->authority = a;
	req->authority_len = (size_t)(p - a);
	if (req->authority_len == 0) {
		*status = 400;
		return axg_seterr(err, errlen, "empty authority");
	}
	if (memchr(a, '@', req->authority_len) != NULL) {
		*status = 400;
		return axg_seterr(err, errlen, "userinfo in the authority");
	}
	if (p < end && *p == '#') {
		*status = 400;
		return axg_seterr(err, errlen,
		    "fragment in the request target");
	}
	if (p == end) {
		req->path = "/";
		req->path_len = 1;
	} else if (*p == '?') {
		/* "http://h?q": the path is empty; forward as "/?q" is
		 * ambiguous, so refuse it. */
		*status = 400;
		return axg_seterr(err, errlen, "query without a path");
	} else {
		req->path = p;
		req->path_len = (size_t)(end - p);
		if (memchr(p, '#', req->path_len) != NULL) {
			*status = 400;
			return axg_seterr(err, errlen,
			    "fragment in the request target");
		}
	}
	return 0;
}

int
px_http1_parse_request(const char *buf, size_t len,
    const struct px_http_limits *lim, struct px_request *req,
    struct px_header *hdrs, int *status, char *err, size_t errlen)
{
	const char *eol, *sp1, *sp2, *end;
	struct framing f;
	int head;

	*status = 0;
	head = scan_head(buf, len, lim, status, err, errlen);
	if (head <= 0)
		return head;
	memset(req, 0, sizeof(*req));
	req->headers = hdrs;
	req->head_len = (size_t)head;
	end = buf + head - 2; /* the blank line's CR */
	eol = memchr(buf, '\r', (size_t)(end - buf) + 1);

	/* method SP request-target SP HTTP-version */
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (sp1 == NULL || !is_token(buf, (size_t)(sp1 - buf))) {
		*status = 400;
		return axg_seterr(err, errlen, "malformed request method");
	}
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (sp2 == NULL || sp2 == sp1 + 1) {
		*status = 400;
		return axg_seterr(err, errlen, "malformed request line");
	}
	if (memchr(sp2 + 1, ' ', (size_t)(eol - sp2 - 1)) != NULL) {
		*status = 400;
		return axg_seterr(err, errlen, "extra space in request line");
	}
	req->method = buf;
	req->method_len = (size_t)(sp1 - buf);
	req->target = sp1 + 1;
	req->target_len = (size_t)(sp2 - sp1 - 1);
	for (size_t i = 0; i < req->target_len; i++) {
		unsigned char c = (unsigned char)req->target[i];

		if (c <= 0x20 || c >= 0x7f) {
			*status = 400;
			return axg_seterr(err, errlen,
			    "invalid byte 0x%02x in request target", c);
		}
	}
	if (parse_version(sp2 + 1, (size_t)(eol - sp2 - 1), &req->version_minor,
		status, err, errlen) != 0)
		return -1;

	req->is_connect =
	    req->method_len == 7 && memcmp(req->method, "CONNECT", 7) == 0;
	if (req->is_connect) {
		if (req->target[0] == '/' ||
		    memchr(req->target, '/', req->target_len) != NULL ||
		    memchr(req->target, '@', req->target_len) != NULL) {
			*status = 400;
			return axg_seterr(err, errlen,
			    "CONNECT target is not host:port");
		}
		req->form = PX_FORM_AUTHORITY;
		req->authority = req->target;
		req->authority_len = req->target_len;
	} else if (req->target[0] == '/') {
		req->form = PX_FORM_ORIGIN;
		req->path = req->target;
		req->path_len = req->target_len;
	} else if (req->target_len == 1 && req->target[0] == '*') {
		if (req->method_len != 7 ||
		    memcmp(req->method, "OPTIONS", 7) != 0) {
			*status = 400;
			return axg_seterr(err, errlen,
			    "asterisk-form outside OPTIONS");
		}
		req->form = PX_FORM_ASTERISK;
	} else {
		req->form = PX_FORM_ABSOLUTE;
		if (split_absolute(req, status, err, errlen) != 0)
			return -1;
	}

	if (parse_fields(eol + 2, end, lim, hdrs, &req->nheaders, status, err,
		errlen) != 0)
		return -1;
	if (scan_framing(hdrs, req->nheaders, &f, status, err, errlen) != 0)
		return -1;
	if (f.host_count > 1) {
		*status = 400;
		return axg_seterr(err, errlen, "more than one Host");
	}
	if (f.host_count == 0 && req->version_minor == 1) {
		*status = 400;
		return axg_seterr(err, errlen, "HTTP/1.1 request without Host");
	}
	if (f.te_count && req->version_minor == 0) {
		*status = 400;
		return axg_seterr(err, errlen,
		    "Transfer-Encoding in an HTTP/1.0 request");
	}
	req->host_index = f.host_index;
	if (f.te_chunked) {
		req->body = PX_BODY_CHUNKED;
	} else if (f.cl_count) {
		req->body = f.cl > 0 ? PX_BODY_LENGTH : PX_BODY_NONE;
		req->content_length = f.cl;
	}
	if (req->is_connect && req->body != PX_BODY_NONE) {
		*status = 400;
		return axg_seterr(err, errlen, "CONNECT with a body");
	}
	req->keep_alive =
	    !f.conn_close && (req->version_minor == 1 || f.conn_keepalive);
	req->upgrade = f.upgrade;
	req->expect_continue = f.expect_continue;
	return head;
}

int
px_http1_parse_response(const char *buf, size_t len,
    const struct px_http_limits *lim, bool is_head_request,
    struct px_response *resp, struct px_header *hdrs, char *err, size_t errlen)
{
	const char *eol, *end;
	struct framing f;
	int status = 0, head;
	uint64_t code;

	head = scan_head(buf, len, lim, &status, err, errlen);
	if (head <= 0)
		return head;
	memset(resp, 0, sizeof(*resp));
	resp->headers = hdrs;
	resp->head_len = (size_t)head;
	end = buf + head - 2;
	eol = memchr(buf, '\r', (size_t)(end - buf) + 1);
	/* HTTP-version SP 3DIGIT SP [reason] */
	if (eol - buf < 12 || buf[8] != ' ' ||
	    parse_version(buf, 8, &resp->version_minor, &status, err, errlen) !=
		0 ||
	    axg_parse_u64n(buf + 9, 3, 100, 599, &code) != 0 ||
	    (eol - buf > 12 && buf[12] != ' ')) {
		return axg_seterr(err, errlen, "malformed status line");
	}
	for (const char *q = buf + 12; q < eol; q++)
		if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f)
			return axg_seterr(err, errlen,
			    "control byte in the reason phrase");
	resp->status = (int)code;
	if (parse_fields(eol + 2, end, lim, hdrs, &resp->nheaders, &status, err,
		errlen) != 0)
		return -1;
	if (scan_framing(hdrs, resp->nheaders, &f, &status, err, errlen) != 0)
		return -1;
	resp->keep_alive =
	    resp->version_minor == 1 ? !f.conn_close : f.conn_keepalive;
	if (is_head_request || code < 200 || code == 204 || code == 304) {
		resp->body = PX_BODY_NONE;
	} else if (f.te_chunked) {
		resp->body = PX_BODY_CHUNKED;
	} else if (f.cl_count) {
		resp->body = f.cl > 0 ? PX_BODY_LENGTH : PX_BODY_NONE;
		resp->content_length = f.cl;
	} else {
		resp->body = PX_BODY_CLOSE;
		resp->keep_alive = false;
	}
	return head;
}
