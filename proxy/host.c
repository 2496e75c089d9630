/*
 * host.c: host canonicalisation, done once at the edge.
 *
 * A host becomes exactly one of: a DNS name (lower-case LDH labels, no
 * trailing dot), an IPv4 address (dotted quad) or an IPv6 address.  A host
 * whose last label is numeric (decimal, or 0x hex) is an IPv4 address in
 * one of inet_aton's legacy spellings or it is invalid: it is never handed
 * to a resolver as a name.  Non-ASCII, underscores, empty labels, labels
 * over 63 bytes, names over 253 bytes, zone ids and percent-escapes are
 * rejected.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Parse one inet_aton part: decimal, 0-octal or 0x-hex.  -1 if invalid. */
static int
parse_part(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (n == 2)
			return -1;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < n; i++) {
		unsigned d;

		if (base == 16 && is_xdigit(s[i]))
			d = (unsigned)(is_digit(s[i])
				? s[i] - '0'
				: (s[i] | 0x20) - 'a' + 10);
		else if (is_digit(s[i]) && (unsigned)(s[i] - '0') < base)
			d = (unsigned)(s[i] - '0');
		else
			return -1;
		v = v * base + d;
		if (v > 0xffffffffu)
			return -1;
	}
	*out = v;
	return 0;
}

/* inet_aton: 1 to 4 parts; the last fills the remaining bytes. */
static int
parse_ipv4_legacy(const char *s, size_t n, struct in_addr *out, bool *legacy)
{
	uint64_t parts[4];
	size_t np = 0, start = 0;
	uint32_t v;
	bool plain = true;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (np == 4)
			return -1;
		if (parse_part(s + start, i - start, &parts[np]) != 0)
			return -1;
		/* a dotted-quad part is 1-3 decimal digits, no leading 0 */
		if (i - start > 3 || (i - start > 1 && s[start] == '0'))
			plain = false;
		for (size_t k = start; k < i; k++)
			if (!is_digit(s[k]))
				plain = false;
		np++;
		start = i + 1;
	}
	switch (np) {
	case 1:
		v = (uint32_t)parts[0];
		break;
	case 2:
		if (parts[0] > 0xff || parts[1] > 0xffffff)
			return -1;
		v = (uint32_t)(parts[0] << 24 | parts[1]);
		break;
	case 3:
		if (parts[0] > 0xff || parts[1] > 0xff || parts[2] > 0xffff)
			return -1;
		v = (uint32_t)(parts[0] << 24 | parts[1] << 16 | parts[2]);
		break;
	default:
		for (int k = 0; k < 4; k++)
			if (parts[k] > 0xff)
				return -1;
		v = (uint32_t)(parts[0] << 24 | parts[1] << 16 | parts[2] << 8 |
		    parts[3]);
		break;
	}
	out->s_addr = htonl(v);
	*legacy = !(plain && np == 4);
	return 0;
}

/* Is the last label numeric (all decimal, or 0x followed by hex)? */
static bool
last_label_numeric(const char *s, size_t n)
{
	size_t start = n;

	while (start > 0 && s[start - 1] != '.')
		start--;
	if (start == n)
		return false;
	if (n - start >= 2 && s[start] == '0' &&
	    (s[start + 1] == 'x' || s[start + 1] == 'X')) {
		for (size_t i = start + 2; i < n; i++)
			if (!is_xdigit(s[i]))
				return false;
		return true;
	}
	for (size_t i = start; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

static void
set_authority(struct px_hostport *out)
{
	if (out->kind == PX_HOST_IPV6)
		snprintf(out->authority, sizeof(out->authority), "[%s]:%u",
		    out->host, (unsigned)out->port);
	else
		snprintf(out->authority, sizeof(out->authority), "%s:%u",
		    out->host, (unsigned)out->port);
}

static int
canon_ipv6(const char *s, size_t n, struct px_hostport *out, char *err,
    size_t errlen)
{
	char tmp[INET6_ADDRSTRLEN + 1];

	if (n == 0 || n >= sizeof(tmp))
		return axg_seterr(err, errlen, "invalid IPv6 literal");
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%')
			return axg_seterr(err, errlen,
			    "IPv6 zone identifiers are not allowed");
		if (!is_xdigit(s[i]) && s[i] != ':' && s[i] != '.')
			return axg_seterr(err, errlen, "invalid IPv6 literal");
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (inet_pton(AF_INET6, tmp, &out->v6) != 1)
		return axg_seterr(err, errlen, "invalid IPv6 literal");
	out->kind = PX_HOST_IPV6;
	inet_ntop(AF_INET6, &out->v6, out->host, sizeof(out->host));
	return 0;
}

int
px_host_canon(const char *s, size_t n, struct px_hostport *out, char *err,
    size_t errlen)
{
	size_t label = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return axg_seterr(err, errlen, "empty host");
	if (s[0] == '[') {
		if (n < 2 || s[n - 1] != ']')
			return axg_seterr(err, errlen, "unbalanced brackets");
		if (canon_ipv6(s + 1, n - 2, out, err, errlen) != 0)
			return -1;
		set_authority(out);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80)
			return axg_seterr(err, errlen,
			    "non-ASCII host (use the xn-- form)");
		if (c == '[' || c == ']' || c == ':')
			return axg_seterr(err, errlen,
			    "unexpected '%c' in host", c);
	}
	/* one trailing dot names the same host */
	if (s[n - 1] == '.')
		n--;
	if (n == 0)
		return axg_seterr(err, errlen, "empty host");
	if (n > PX_HOST_MAX)
		return axg_seterr(err, errlen, "host longer than %d bytes",
		    PX_HOST_MAX);
	if (last_label_numeric(s, n)) {
		if (parse_ipv4_legacy(s, n, &out->v4, &out->legacy_ipv4) != 0)
			return axg_seterr(err, errlen,
			    "numeric host is not a valid IPv4 address");
		out->kind = PX_HOST_IPV4;
		inet_ntop(AF_INET, &out->v4, out->host, sizeof(out->host));
		set_authority(out);
		return 0;
	}
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? s[i] : '.';

		if (c == '.') {
			if (label == 0)
				return axg_seterr(err, errlen,
				    "empty label in host");
			if (label > 63)
				return axg_seterr(err, errlen,
				    "label longer than 63 bytes");
			if (s[i - 1] == '-')
				return axg_seterr(err, errlen,
				    "label ends with '-'");
			label = 0;
			continue;
		}
		if (label == 0 && c == '-')
			return axg_seterr(err, errlen, "label starts with '-'");
		if (!(is_digit(c) || (c >= 'a' && c <= 'z') ||
			(c >= 'A' && c <= 'Z') || c == '-')) {
			char esc[8];

			axg_str_escape(esc, sizeof(esc), &c, 1);
			return axg_seterr(err, errlen,
			    "invalid character '%s' in host", esc);
		}
		label++;
	}
	memcpy(out->host, s, n);
	out->host[n] = '\0';
	axg_str_lower(out->host);
	out->kind = PX_HOST_NAME;
	set_authority(out);
	return 0;
}

int
px_host_parse_authority(const char *s, size_t n, uint16_t default_port,
    struct px_hostport *out, char *err, size_t errlen)
{
	size_t hostlen = n;
	const char *colon = NULL;
	uint64_t port = default_port;

	if (n == 0)
		return axg_seterr(err, errlen, "empty authority");
	if (s[0] == '[') {
		const char *rb = memchr(s, ']', n);

		if (rb == NULL)
			return axg_seterr(err, errlen, "unbalanced brackets");
		hostlen = (size_t)(rb - s) + 1;
		if (hostlen < n) {
			if (s[hostlen] != ':')
				return axg_seterr(err, errlen,
				    "junk after the IPv6 literal");
			colon = s + hostlen;
		}
	} else {
		for (size_t i = n; i > 0; i--) {
			if (s[i - 1] == ':') {
				colon = s + i - 1;
				hostlen = i - 1;
				break;
			}
		}
	}
	if (colon != NULL) {
		const char *p = colon + 1;
		size_t pl = n - (size_t)(p - s);

		if (pl == 0 || (pl > 1 && p[0] == '0') || pl > 5 ||
		    axg_parse_u64n(p, pl, 1, 65535, &port) != 0)
			return axg_seterr(err, errlen, "invalid port");
	} else if (default_port == 0) {
		return axg_seterr(err, errlen, "missing port");
	}
	if (px_host_canon(s, hostlen, out, err, errlen) != 0)
		return -1;
	out->port = (uint16_t)port;
	set_authority(out);
	return 0;
}

void
px_host_redact(struct px_hostport *hp)
{
	hp->kind = PX_HOST_NAME;
	hp->legacy_ipv4 = false;
	axg_strlcpy(hp->host, "redacted.invalid", sizeof(hp->host));
	memset(&hp->v4, 0, sizeof(hp->v4));
	memset(&hp->v6, 0, sizeof(hp->v6));
	set_authority(hp);
}

bool
px_hostport_equal(const struct px_hostport *a, const struct px_hostport *b)
{
	return a->kind == b->kind && a->port == b->port &&
	    strcmp(a->host, b->host) == 0;
}

/* ---- address classification ---- */

static bool
in4(uint32_t a, uint32_t net, unsigned bits)
{
	uint32_t mask = bits == 0 ? 0 : 0xffffffffu << (32 - bits);

	return (a & mask) == (net & mask);
}

enum px_addr_class
px_addr_classify_v4(const struct in_addr *ia)
{
	uint32_t a = ntohl(ia->s_addr);

	if (a == 0xa9fea9fe || a == 0xa9feaa02 || a == 0x646464c8 ||
	    a == 0xc00000c0)
		return PX_ADDR_METADATA; /* 169.254.169.254, 169.254.170.2,
					    100.100.100.200, 192.0.0.192 */
	if (in4(a, 0x00000000, 8))
		return PX_ADDR_UNSPECIFIED;
	if (in4(a, 0x7f000000, 8))
		return PX_ADDR_LOOPBACK;
	if (in4(a, 0x0a000000, 8) || in4(a, 0xac100000, 12) ||
	    in4(a, 0xc0a80000, 16))
		return PX_ADDR_PRIVATE;
	if (in4(a, 0x64400000, 10))
		return PX_ADDR_CGNAT;
	if (in4(a, 0xa9fe0000, 16))
		return PX_ADDR_LINKLOCAL;
	if (a == 0xffffffff)
		return PX_ADDR_BROADCAST;
	if (in4(a, 0xe0000000, 4))
		return PX_ADDR_MULTICAST;
	if (in4(a, 0xf0000000, 4) ||  /* 240/4 */
	    in4(a, 0xc0000000, 24) || /* 192.0.0/24 */
	    in4(a, 0xc0000200, 24) || /* 192.0.2/24 */
	    in4(a, 0xc6336400, 24) || /* 198.51.100/24 */
	    in4(a, 0xcb007100, 24) || /* 203.0.113/24 */
	    in4(a, 0xc6120000, 15) || /* 198.18/15 */
	    in4(a, 0xc0586300, 24))   /* 192.88.99/24 */
		return PX_ADDR_RESERVED;
	return PX_ADDR_PUBLIC;
}

static enum px_addr_class
embedded_v4(const uint8_t *p)
{
	struct in_addr a;

	memcpy(&a.s_addr, p, 4);
	return px_addr_classify_v4(&a);
}

enum px_addr_class
px_addr_classify_v6(const struct in6_addr *ia)
{
	const uint8_t *b = ia->s6_addr;
	static const uint8_t zero[16];
	static const uint8_t ec2[16] = { 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0x02, 0x54 };
	uint8_t teredo[4];

	if (memcmp(b, ec2, 16) == 0)
		return PX_ADDR_METADATA;
	if (memcmp(b, zero, 16) == 0)
		return PX_ADDR_UNSPECIFIED;
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return PX_ADDR_LOOPBACK;
	/* ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) */
	if (memcmp(b, zero, 10) == 0 &&
	    ((b[10] == 0xff && b[11] == 0xff) || (b[10] == 0 && b[11] == 0)))
		return embedded_v4(b + 12);
	/* NAT64 64:ff9b::/96 */
	if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b &&
	    memcmp(b + 4, zero, 8) == 0)
		return embedded_v4(b + 12);
	/* local-use NAT64 64:ff9b:1::/48: treated as internal, whatever it
	 * embeds */
	if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b &&
	    b[4] == 0x00 && b[5] == 0x01) {
		enum px_addr_class c = embedded_v4(b + 12);

		return c == PX_ADDR_PUBLIC ? PX_ADDR_RESERVED : c;
	}
	/* 6to4 2002::/16 embeds the v4 in bytes 2-5 */
	if (b[0] == 0x20 && b[1] == 0x02)
		return embedded_v4(b + 2);
	/* Teredo 2001:0::/32: the client is the last 32 bits inverted */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
		for (int i = 0; i < 4; i++)
			teredo[i] = (uint8_t)~b[12 + i];
		return embedded_v4(teredo);
	}
	if ((b[0] & 0xfe) == 0xfc)
		return PX_ADDR_ULA;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return PX_ADDR_LINKLOCAL;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
		return PX_ADDR_RESERVED; /* deprecated site-local */
	if (b[0] == 0xff)
		return PX_ADDR_MULTICAST;
	/* documentation 2001:db8::/32, discard 100::/64 */
	if ((b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) ||
	    (b[0] == 0x01 && b[1] == 0x00 && memcmp(b + 2, zero, 6) == 0))
		return PX_ADDR_RESERVED;
	/* only 2000::/3 is global unicast */
	if ((b[0] & 0xe0) != 0x20)
		return PX_ADDR_RESERVED;
	return PX_ADDR_PUBLIC;
}

enum px_addr_class
px_addr_classify(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return px_addr_classify_v4(
		    &((const struct sockaddr_in *)(const void *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6)
		return px_addr_classify_v6(
		    &((const struct sockaddr_in6 *)(const void *)sa)
			 ->sin6_addr);
	return PX_ADDR_RESERVED;
}

const char *
px_addr_class_name(enum px_addr_class c)
{
	static const char *const names[] = {
		[PX_ADDR_PUBLIC] = "public",
		[PX_ADDR_UNSPECIFIED] = "unspecified",
		[PX_ADDR_LOOPBACK] = "loopback",
		[PX_ADDR_PRIVATE] = "private",
		[PX_ADDR_CGNAT] = "cgnat",
		[PX_ADDR_LINKLOCAL] = "link-local",
		[PX_ADDR_METADATA] = "metadata",
		[PX_ADDR_MULTICAST] = "multicast",
		[PX_ADDR_BROADCAST] = "broadcast",
		[PX_ADDR_RESERVED] = "reserved",
		[PX_ADDR_ULA] = "unique-local",
	};

	if ((unsigned)c >= AXG_ARRAY_LEN(names))
		return "unknown";
	return names[c];
}

const char *
px_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a;

	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	else
		a = NULL;
	if (a == NULL ||
	    inet_ntop(sa->sa_family, a, buf, (socklen_t)len) == NULL)
		axg_strlcpy(buf, "?", len);
	return buf;
}
