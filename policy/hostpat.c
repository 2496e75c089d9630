/* hostpat.c: host names and patterns as policy files write them. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "common/common.h"
#include "policy/polfile.h"

static bool
all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Does the last label look numeric (decimal, or 0x hex)?  Then the WHATWG
 * URL parser, curl and the C resolver read the name as an IPv4 address, so
 * we must too. */
static bool
looks_ipv4(const char *s, size_t n)
{
	const char *last = s;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '.')
			last = s + i + 1;
	n -= (size_t)(last - s);
	if (n >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X'))
		return true;
	return all_digits(last, n);
}

/* Strict dotted quad: four decimal octets, no leading zeros. */
static bool
strict_ipv4(const char *s, size_t n)
{
	int octets = 0;
	size_t i = 0;

	while (i <= n) {
		size_t j = i;
		uint64_t v;

		while (j < n && s[j] != '.')
			j++;
		if (j - i > 1 && s[i] == '0')
			return false;
		if (axg_parse_u64n(s + i, j - i, 0, 255, &v) < 0)
			return false;
		octets++;
		i = j + 1;
		if (j == n)
			break;
	}
	return octets == 4;
}

static int
check_label(const char *l, size_t n, const char **why)
{
	if (n == 0) {
		*why = "empty label (two dots in a row, or a leading dot)";
		return -1;
	}
	if (n > 63) {
		*why = "a label is longer than 63 characters";
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)l[i];

		if (c == '*') {
			*why = "'*' is allowed only as the whole first label, "
			       "as in *.example.com";
			return -1;
		}
		if (c == '_') {
			*why = "'_' is not allowed in a host name";
			return -1;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '-')) {
			*why = "invalid character in host name (letters, "
			       "digits, '-' and '.' only)";
			return -1;
		}
	}
	if (l[0] == '-' || l[n - 1] == '-') {
		*why = "a label starts or ends with '-'";
		return -1;
	}
	return 0;
}

int
axp_host_pattern(const char *pattern, char *out, size_t outlen, bool *wildcard,
    const char **why)
{
	char buf[256];
	size_t n = strlen(pattern);
	const char *name;
	size_t labels = 0;

	*wildcard = false;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)pattern[i] >= 0x80) {
			*why = "non-ASCII host name; write its IDNA form "
			       "(xn--...)";
			return -1;
		}
		if ((unsigned char)pattern[i] < 0x21) {
			*why = "control character or space in host name";
			return -1;
		}
	}
	if (n == 0) {
		*why = "empty host";
		return -1;
	}

	/* IPv6 literal, bracketed or not. */
	if (strchr(pattern, ':') != NULL) {
		struct in6_addr a6;
		char tmp[INET6_ADDRSTRLEN];
		const char *p = pattern;
		size_t m = n;

		if (p[0] == '[' && p[m - 1] == ']') {
			p++;
			m -= 2;
		}
		if (m >= sizeof(tmp) || memchr(p, '%', m) != NULL) {
			*why =
			    "invalid IPv6 address (zone ids are not allowed)";
			return -1;
		}
		memcpy(tmp, p, m);
		tmp[m] = '\0';
		if (inet_pton(AF_INET6, tmp, &a6) != 1) {
			*why = "invalid IPv6 address";
			return -1;
		}
		inet_ntop(AF_INET6, &a6, tmp, sizeof(tmp));
		if (axg_strlcpy(out, tmp, outlen) >= outlen) {
			*why = "host too long";
			return -1;
		}
		return 0;
	}

	if (n >= sizeof(buf)) {
		*why = "host name longer than 253 characters";
		return -1;
	}
	memcpy(buf, pattern, n + 1);
	axg_str_lower(buf);
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = '\0';
	if (n > 253) {
		*why = "host name longer than 253 characters";
		return -1;
	}
	name = buf;
	if (strcmp(buf, "*") == 0) {
		*why = "a bare '*' would allow every host";
		return -1;
	}
	if (buf[0] == '*') {
		if (buf[1] != '.') {
			*why = "'*' is allowed only as the whole first label, "
			       "as in *.example.com";
			return -1;
		}
		*wildcard = true;
		name = buf + 2;
		n -= 2;
	}

	if (looks_ipv4(name, n)) {
		if (*wildcard) {
			*why = "a wildcard cannot cover an IP address";
			return -1;
		}
		if (!strict_ipv4(name, n)) {
			*why = "not a dotted-quad IPv4 address (legacy "
			       "spellings such as 127.1, 0x7f.0.0.1 or "
			       "2130706433 are refused: write a.b.c.d)";
			return -1;
		}
		axg_strlcpy(out, name, outlen);
		return 0;
	}

	for (const char *p = name;;) {
		const char *dot = memchr(p, '.', n - (size_t)(p - name));
		size_t ln = dot ? (size_t)(dot - p) : n - (size_t)(p - name);

		if (check_label(p, ln, why) < 0)
			return -1;
		labels++;
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	if (*wildcard && labels < 2) {
		*why = "a wildcard over a top-level domain is too wide "
		       "(*.com); name at least two labels after '*.'";
		return -1;
	}
	if (axg_strlcpy(out, name, outlen) >= outlen) {
		*why = "host too long";
		return -1;
	}
	return 0;
}
