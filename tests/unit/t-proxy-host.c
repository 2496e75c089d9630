/* Unit tests of proxy/host.c: canonicalisation of hosts and authorities
 * (abuse cases 1-5, 9-11, 13, 15, 16) and address classification. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"
#include "tests/tap.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct auth_case {
	const char *in;
	const char *want; /* canonical authority, NULL: rejected */
	enum px_host_kind kind;
	bool legacy;
	const char *why; /* substring of the error */
};

static const struct auth_case auth_cases[] = {
	/* names */
	{ "api.github.com:443", "api.github.com:443", PX_HOST_NAME },
	{ "API.GitHub.COM:443", "api.github.com:443", PX_HOST_NAME },
	{ "api.github.com.:443", "api.github.com:443", PX_HOST_NAME },
	{ "METADATA.GOOGLE.INTERNAL.:80", "metadata.google.internal:80",
	    PX_HOST_NAME },
	{ "xn--80ak6aa92e.com:443", "xn--80ak6aa92e.com:443", PX_HOST_NAME },
	{ "a-b.c:1", "a-b.c:1", PX_HOST_NAME },
	{ "api.github.com..:443", NULL, 0, 0, "empty label" },
	{ ".:443", NULL, 0, 0, "empty host" },
	{ ".github.com:443", NULL, 0, 0, "empty label" },
	{ "a..b:443", NULL, 0, 0, "empty label" },
	{ "bad_host:443", NULL, 0, 0, "invalid character" },
	{ "-bad.example:443", NULL, 0, 0, "starts with" },
	{ "bad-.example:443", NULL, 0, 0, "ends with" },
	{ "a%00b.example:443", NULL, 0, 0, "invalid character" },
	{ "allowed%2ecom:443", NULL, 0, 0, "invalid character" },
	{ "a\\b.example:443", NULL, 0, 0, "invalid character" },
	{ "a b.example:443", NULL, 0, 0, "invalid character" },
	{ "allowed.com@evil.com:443", NULL, 0, 0, "invalid character" },
	{ "\xd0\xb0pi.github.com:443", NULL, 0, 0, "non-ASCII" },
	{ "api\xef\xbc\x8egithub\xef\xbc\x8e"
	  "com:443",
	    NULL, 0, 0, "non-ASCII" },
	{ "api\xe3\x80\x82github\xe3\x80\x82"
	  "com:443",
	    NULL, 0, 0, "non-ASCII" },
	{ "\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.0.0.1:80", NULL, 0, 0,
	    "non-ASCII" },
	/* ports (15) */
	{ "example.com", NULL, 0, 0, "missing port" },
	{ "example.com:", NULL, 0, 0, "invalid port" },
	{ "example.com:0", NULL, 0, 0, "invalid port" },
	{ "example.com:65536", NULL, 0, 0, "invalid port" },
	{ "example.com:-1", NULL, 0, 0, "invalid port" },
	{ "example.com:443abc", NULL, 0, 0, "invalid port" },
	{ "example.com:+443", NULL, 0, 0, "invalid port" },
	{ "example.com:0443", NULL, 0, 0, "invalid port" },
	{ "example.com:007", NULL, 0, 0, "invalid port" },
	{ "example.com:65535", "example.com:65535", PX_HOST_NAME },
	{ "allowed.com:443@evil.com:443", NULL, 0, 0, "unexpected" },
	/* IPv4, plain and legacy (5) */
	{ "10.0.0.1:80", "10.0.0.1:80", PX_HOST_IPV4, false },
	{ "2130706433:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "0x7f000001:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "017700000001:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "0177.0.0.1:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "0x7f.0.0.1:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "127.1:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "127.0.1:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "0x7f.1:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "127.000.000.001:80", "127.0.0.1:80", PX_HOST_IPV4, true },
	{ "2852039166:80", "169.254.169.254:80", PX_HOST_IPV4, true },
	{ "0xA9FEA9FE:80", "169.254.169.254:80", PX_HOST_IPV4, true },
	{ "0251.0376.0251.0376:80", "169.254.169.254:80", PX_HOST_IPV4, true },
	{ "169.254.43518:80", "169.254.169.254:80", PX_HOST_IPV4, true },
	{ "0:80", "0.0.0.0:80", PX_HOST_IPV4, true },
	{ "127.0.0.1.:80", "127.0.0.1:80", PX_HOST_IPV4, false },
	{ "256.0.0.1:80", NULL, 0, 0, "not a valid IPv4" },
	{ "1.2.3.4.5:80", NULL, 0, 0, "not a valid IPv4" },
	{ "4294967296:80", NULL, 0, 0, "not a valid IPv4" },
	{ "08.0.0.1:80", NULL, 0, 0, "not a valid IPv4" },
	{ "example.123:80", NULL, 0, 0, "not a valid IPv4" },
	{ "1.2.3.0x:80", NULL, 0, 0, "not a valid IPv4" },
	/* IPv6 (4, 16) */
	{ "[::1]:443", "[::1]:443", PX_HOST_IPV6 },
	{ "[FD00:EC2::254]:80", "[fd00:ec2::254]:80", PX_HOST_IPV6 },
	{ "[0:0:0:0:0:0:0:1]:443", "[::1]:443", PX_HOST_IPV6 },
	{ "[::ffff:127.0.0.1]:80", "[::ffff:127.0.0.1]:80", PX_HOST_IPV6 },
	{ "[fe80::1%25eth0]:80", NULL, 0, 0, "zone" },
	{ "[[::1]]:443", NULL, 0, 0, "junk" },
	{ "[::1:443", NULL, 0, 0, "unbalanced" },
	{ "::1]:443", NULL, 0, 0, "unexpected" },
	{ "[allowed.example]:443", NULL, 0, 0, "invalid IPv6" },
	{ "::1:443", NULL, 0, 0, "unexpected" },
	{ "[::1]", NULL, 0, 0, "missing port" },
	{ "[::1]x:443", NULL, 0, 0, "junk" },
};

static void
test_authority(void)
{
	char name[80];

	for (size_t i = 0; i < AXG_ARRAY_LEN(auth_cases); i++) {
		const struct auth_case *c = &auth_cases[i];
		struct px_hostport hp;
		char err[160] = "";
		int rc = px_host_parse_authority(c->in, strlen(c->in), 0, &hp,
		    err, sizeof(err));

		axg_str_escape(name, sizeof(name), c->in, strlen(c->in));
		if (c->want != NULL) {
			ok(rc == 0 && strcmp(hp.authority, c->want) == 0 &&
				hp.kind == c->kind &&
				hp.legacy_ipv4 == c->legacy,
			    "%s -> %s", name, c->want);
			if (rc != 0)
				tap_diag("  %s", err);
			else if (strcmp(hp.authority, c->want) != 0)
				tap_diag("  got %s", hp.authority);
		} else {
			ok(rc == -1 && strstr(err, c->why) != NULL,
			    "%s rejected (%s)", name, c->why);
			if (rc != -1 || strstr(err, c->why) == NULL)
				tap_diag("  rc %d err %s", rc, err);
		}
	}
}

static void
test_lengths(void)
{
	char buf[400];
	struct px_hostport hp;
	char err[128];

	memset(buf, 'a', 63);
	memcpy(buf + 63, ".com", 5);
	ok(px_host_canon(buf, strlen(buf), &hp, err, sizeof(err)) == 0,
	    "63-byte label accepted");
	memset(buf, 'a', 64);
	memcpy(buf + 64, ".com", 5);
	ok(px_host_canon(buf, strlen(buf), &hp, err, sizeof(err)) == -1 &&
		strstr(err, "63") != NULL,
	    "64-byte label rejected");
	/* 253 bytes: 63.63.63.61 */
	memset(buf, 'a', 253);
	buf[63] = buf[127] = buf[191] = '.';
	buf[253] = '\0';
	ok(px_host_canon(buf, 253, &hp, err, sizeof(err)) == 0,
	    "253-byte name accepted");
	buf[253] = '.';
	ok(px_host_canon(buf, 254, &hp, err, sizeof(err)) == 0 &&
		strlen(hp.host) == 253,
	    "253-byte name with a trailing dot accepted");
	buf[253] = 'a';
	ok(px_host_canon(buf, 254, &hp, err, sizeof(err)) == -1,
	    "254-byte name rejected");
	ok(px_host_parse_authority("example.com", 11, 80, &hp, err,
	       sizeof(err)) == 0 &&
		hp.port == 80,
	    "default port when allowed");
	{
		struct px_hostport a, b;

		px_host_parse_authority("Example.COM.:80", 15, 0, &a, err,
		    sizeof(err));
		px_host_parse_authority("example.com", 11, 80, &b, err,
		    sizeof(err));
		ok(px_hostport_equal(&a, &b), "spellings compare equal");
		px_host_parse_authority("example.com:81", 14, 0, &b, err,
		    sizeof(err));
		ok(!px_hostport_equal(&a, &b), "ports differ");
	}
}

struct class_case {
	const char *addr;
	enum px_addr_class want;
};

static const struct class_case class_cases[] = {
	{ "169.254.169.254", PX_ADDR_METADATA },
	{ "169.254.170.2", PX_ADDR_METADATA },
	{ "100.100.100.200", PX_ADDR_METADATA },
	{ "192.0.0.192", PX_ADDR_METADATA },
	{ "fd00:ec2::254", PX_ADDR_METADATA },
	{ "169.254.1.1", PX_ADDR_LINKLOCAL },
	{ "127.0.0.1", PX_ADDR_LOOPBACK },
	{ "127.255.255.254", PX_ADDR_LOOPBACK },
	{ "::1", PX_ADDR_LOOPBACK },
	{ "0.0.0.0", PX_ADDR_UNSPECIFIED },
	{ "::", PX_ADDR_UNSPECIFIED },
	{ "10.0.0.1", PX_ADDR_PRIVATE },
	{ "172.16.0.1", PX_ADDR_PRIVATE },
	{ "172.31.255.255", PX_ADDR_PRIVATE },
	{ "172.32.0.1", PX_ADDR_PUBLIC },
	{ "192.168.1.1", PX_ADDR_PRIVATE },
	{ "100.64.0.1", PX_ADDR_CGNAT },
	{ "100.63.255.255", PX_ADDR_PUBLIC },
	{ "100.128.0.1", PX_ADDR_PUBLIC },
	{ "198.18.0.1", PX_ADDR_RESERVED },
	{ "192.0.2.1", PX_ADDR_RESERVED },
	{ "224.0.0.1", PX_ADDR_MULTICAST },
	{ "255.255.255.255", PX_ADDR_BROADCAST },
	{ "240.0.0.1", PX_ADDR_RESERVED },
	{ "8.8.8.8", PX_ADDR_PUBLIC },
	{ "fe80::1", PX_ADDR_LINKLOCAL },
	{ "fc00::1", PX_ADDR_ULA },
	{ "fd12::1", PX_ADDR_ULA },
	{ "ff02::1", PX_ADDR_MULTICAST },
	{ "::ffff:127.0.0.1", PX_ADDR_LOOPBACK },
	{ "::ffff:7f00:1", PX_ADDR_LOOPBACK },
	{ "::ffff:169.254.169.254", PX_ADDR_METADATA },
	{ "::ffff:8.8.8.8", PX_ADDR_PUBLIC },
	{ "::127.0.0.1", PX_ADDR_LOOPBACK },
	{ "64:ff9b::7f00:1", PX_ADDR_LOOPBACK },
	{ "64:ff9b::a9fe:a9fe", PX_ADDR_METADATA },
	{ "64:ff9b::808:808", PX_ADDR_PUBLIC },
	{ "64:ff9b:1::a9fe:a9fe", PX_ADDR_METADATA },
	{ "64:ff9b:1::808:808", PX_ADDR_RESERVED },
	{ "2002:7f00:1::", PX_ADDR_LOOPBACK },
	{ "2002:a9fe:a9fe::", PX_ADDR_METADATA },
	{ "2002:808:808::", PX_ADDR_PUBLIC },
	{ "2001:0:4136:e378:8000:63bf:80ff:fffe", PX_ADDR_LOOPBACK },
	{ "2001:db8::1", PX_ADDR_RESERVED },
	{ "2606:4700::1111", PX_ADDR_PUBLIC },
};

static void
test_classify(void)
{
	for (size_t i = 0; i < AXG_ARRAY_LEN(class_cases); i++) {
		const struct class_case *c = &class_cases[i];
		struct sockaddr_storage ss;
		enum px_addr_class got;

		memset(&ss, 0, sizeof(ss));
		if (strchr(c->addr, ':') != NULL) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			inet_pton(AF_INET6, c->addr, &s6->sin6_addr);
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			inet_pton(AF_INET, c->addr, &s4->sin_addr);
		}
		got = px_addr_classify((struct sockaddr *)&ss);
		is_str(px_addr_class_name(got), px_addr_class_name(c->want),
		    "%s is %s", c->addr, px_addr_class_name(c->want));
	}
	{
		struct sockaddr_in s4 = { .sin_family = AF_INET };
		char buf[64];

		inet_pton(AF_INET, "1.2.3.4", &s4.sin_addr);
		is_str(px_addr_str((struct sockaddr *)&s4, buf, sizeof(buf)),
		    "1.2.3.4", "address formatted");
	}
}

int
main(void)
{
	test_authority();
	test_lengths();
	test_classify();
	return tap_done();
}
