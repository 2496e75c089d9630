/*
 * tls-hello.c: extract the SNI from a TLS ClientHello, bounded.
 *
 * The first bytes a client sends through a tunnel to a TLS port must be
 * handshake records carrying a ClientHello.  The handshake message may
 * span several records and several reads; its fragments are gathered into
 * a fixed buffer (PX_HELLO_MAX) and every length is checked against what
 * encloses it.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"

struct rd {
	const uint8_t *p;
	size_t n;
};

static bool
rd_u8(struct rd *r, unsigned *v)
{
	if (r->n < 1)
		return false;
	*v = r->p[0];
	r->p++;
	r->n--;
	return true;
}

static bool
rd_u16(struct rd *r, unsigned *v)
{
	if (r->n < 2)
		return false;
	*v = (unsigned)r->p[0] << 8 | r->p[1];
	r->p += 2;
	r->n -= 2;
	return true;
}

static bool
rd_skip(struct rd *r, size_t n)
{
	if (r->n < n)
		return false;
	r->p += n;
	r->n -= n;
	return true;
}

/* Take a length-prefixed vector as a sub-reader. */
static bool
rd_vec(struct rd *r, unsigned lenbytes, struct rd *sub)
{
	unsigned l;

	if (lenbytes == 1 ? !rd_u8(r, &l) : !rd_u16(r, &l))
		return false;
	if (r->n < l)
		return false;
	sub->p = r->p;
	sub->n = l;
	r->p += l;
	r->n -= l;
	return true;
}

static enum px_hello_result
bad(char *err, size_t errlen, const char *what)
{
	axg_seterr(err, errlen, "ClientHello: %s", what);
	return PX_HELLO_ERROR;
}

static enum px_hello_result
parse_sni_ext(struct rd *ext, char *sni, size_t snilen, char *err,
    size_t errlen)
{
	struct rd list, name;
	unsigned type;
	struct px_hostport hp;
	char herr[128];

	if (!rd_vec(ext, 2, &list) || ext->n != 0 || list.n == 0)
		return bad(err, errlen, "malformed server_name extension");
	if (!rd_u8(&list, &type) || !rd_vec(&list, 2, &name) || list.n != 0)
		return bad(err, errlen, "malformed server_name list");
	if (type != 0)
		return bad(err, errlen, "server_name of unknown type");
	if (name.n == 0 || name.n > PX_HOST_MAX)
		return bad(err, errlen, "server_name of invalid length");
	if (px_host_canon((const char *)name.p, name.n, &hp, herr,
		sizeof(herr)) != 0)
		return bad(err, errlen, "server_name is not a valid host");
	if (hp.kind != PX_HOST_NAME)
		return bad(err, errlen, "server_name is an IP address");
	if (strlen(hp.host) >= snilen)
		return bad(err, errlen, "server_name too long for the buffer");
	axg_strlcpy(sni, hp.host, snilen);
	return PX_HELLO_SNI;
}

static enum px_hello_result
parse_hello(const uint8_t *msg, size_t len, char *sni, size_t snilen, char *err,
    size_t errlen)
{
	struct rd r = { msg, len }, v, exts;
	unsigned major, minor;
	enum px_hello_result res = PX_HELLO_NO_SNI;
	bool seen_sni = false;

	if (!rd_u8(&r, &major) || !rd_u8(&r, &minor) || major != 3)
		return bad(err, errlen, "bad client_version");
	if (!rd_skip(&r, 32))
		return bad(err, errlen, "short random");
	if (!rd_vec(&r, 1, &v) || v.n > 32)
		return bad(err, errlen, "bad session_id");
	if (!rd_vec(&r, 2, &v) || v.n < 2 || v.n % 2 != 0)
		return bad(err, errlen, "bad cipher_suites");
	if (!rd_vec(&r, 1, &v) || v.n < 1)
		return bad(err, errlen, "bad compression_methods");
	if (r.n == 0)
		return PX_HELLO_NO_SNI; /* no extensions at all */
	if (!rd_vec(&r, 2, &exts) || r.n != 0)
		return bad(err, errlen, "bad extensions length");
	while (exts.n > 0) {
		unsigned type;
		struct rd ext;

		if (!rd_u16(&exts, &type) || !rd_vec(&exts, 2, &ext))
			return bad(err, errlen, "truncated extension");
		if (type != 0)
			continue;
		if (seen_sni)
			return bad(err, errlen, "duplicate server_name");
		seen_sni = true;
		res = parse_sni_ext(&ext, sni, snilen, err, errlen);
		if (res == PX_HELLO_ERROR)
			return res;
	}
	return res;
}

enum px_hello_result
px_tls_hello_sni(const uint8_t *buf, size_t len, char *sni, size_t snilen,
    char *err, size_t errlen)
{
	uint8_t msg[PX_HELLO_MAX + 4];
	size_t have = 0, need = 0, off = 0;

	if (snilen > 0)
		sni[0] = '\0';
	for (;;) {
		size_t rlen, take;

		if (len - off < 5) {
			/* judge the bytes we have of the header */
			if (len - off >= 1 && buf[off] != 22)
				return bad(err, errlen,
				    "not a handshake record");
			if (len - off >= 2 && buf[off + 1] != 3)
				return bad(err, errlen, "bad record version");
			return PX_HELLO_MORE;
		}
		if (buf[off] != 22)
			return bad(err, errlen, "not a handshake record");
		if (buf[off + 1] != 3)
			return bad(err, errlen, "bad record version");
		rlen = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (rlen == 0 || rlen > 16384)
			return bad(err, errlen, "bad record length");
		off += 5;
		take = rlen < len - off ? rlen : len - off;
		if (have + take > sizeof(msg))
			take = sizeof(msg) - have;
		memcpy(msg + have, buf + off, take);
		have += take;
		if (need == 0 && have >= 4) {
			if (msg[0] != 1)
				return bad(err, errlen,
				    "first handshake message is not a "
				    "ClientHello");
			need =
			    (size_t)msg[1] << 16 | (size_t)msg[2] << 8 | msg[3];
			if (need > PX_HELLO_MAX)
				return bad(err, errlen,
				    "ClientHello too large");
			need += 4;
		}
		if (need != 0 && have >= need)
			return parse_hello(msg + 4, need - 4, sni, snilen, err,
			    errlen);
		if (off + rlen > len)
			return PX_HELLO_MORE; /* the record is incomplete */
		off += rlen;
		if (need == 0 && have >= 4)
			return bad(err, errlen, "internal: no length");
	}
}
