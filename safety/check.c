/*
 * check.c: the gates a confirmed match passes before it is a finding:
 * entropy, placeholders, value shape (for context rules), the rule's own
 * allowlist and the validators (Basic auth, JWT, URL passwords).
 */
#include "config.h"

#include <ctype.h>

#include <math.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

double
leak_entropy(const uint8_t *p, size_t n)
{
	unsigned cnt[256] = { 0 };
	double h = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		cnt[p[i]]++;
	for (int c = 0; c < 256; c++) {
		if (cnt[c] == 0)
			continue;
		double q = (double)cnt[c] / (double)n;
		h -= q * log2(q);
	}
	return h;
}

static bool
re_hit(const pcre2_code *re, pcre2_match_data *md, pcre2_match_context *mc,
    const uint8_t *s, size_t n)
{
	return pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, mc) >= 0;
}

static bool
is_hex(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static bool
is_uuid(const uint8_t *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!is_hex(s[i])) {
			return false;
		}
	}
	return true;
}

static bool
all_hex(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_hex(s[i]))
			return false;
	return true;
}

/* Content hashes: hex digests and Subresource-Integrity values. */
static bool
is_hash(const uint8_t *s, size_t n)
{
	static const char *const pfx[] = { "sha1-", "sha256-", "sha384-",
		"sha512-", "sha256:", "sha512:", "sha1:", "md5:", "md5-" };

	for (size_t i = 0; i < AXG_ARRAY_LEN(pfx); i++) {
		size_t l = strlen(pfx[i]);
		if (n > l && axg_strncaseeq((const char *)s, pfx[i], l))
			return true;
	}
	return false;
}

bool
leak_mixed_random(const uint8_t *s, size_t n)
{
	size_t digits = 0, flips = 0;
	int last = 0; /* of the last letter: 1 lower case, 2 upper case */

	for (size_t i = 0; i < n; i++) {
		int k = (s[i] >= 'a' && s[i] <= 'z') ? 1
		    : (s[i] >= 'A' && s[i] <= 'Z')   ? 2
						     : 0;
		digits += s[i] >= '0' && s[i] <= '9';
		if (k != 0 && last != 0 && k != last)
			flips++;
		if (k != 0)
			last = k;
	}
	return digits > 0 && flips * 3 > n;
}

bool
leak_contains_nocase(const uint8_t *s, size_t n, const char *w)
{
	size_t l = strlen(w);

	for (size_t i = 0; i + l <= n; i++)
		if (axg_strncaseeq((const char *)s + i, w, l))
			return true;
	return false;
}

/* a.b.c where each part is an identifier with few digits (this.#field,
 * a JavaScript private field, too), and none of 12 bytes or more looks
 * random (hawk.V5D5JUPuwJRewkeasQcF...; not
 * PBESv1SHA1And3KeyTripleDESCBC). */
static bool
dotted_identifier(const uint8_t *s, size_t n)
{
	size_t seg = 0, digits = 0, dots = 0;

	for (size_t i = 0; i <= n; i++) {
		uint8_t c = i < n ? s[i] : '.';
		if (c == '.') {
			if (seg == 0)
				return false;
			if (seg >= 12 && leak_mixed_random(s + i - seg, seg))
				return false;
			seg = digits = 0;
			dots += i < n;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    c == '_' || (c == '#' && seg == 0)) {
			seg++;
		} else if (c >= '0' && c <= '9') {
			if (seg == 0 || ++digits > 3)
				return false;
			seg++;
		} else {
			return false;
		}
	}
	return dots > 0;
}

/* A fingerprint or key id written as colon-separated hex bytes
 * (06:B5:A4:...), or a date and time (2002-04-18T16:56:53Z). */
static bool
fingerprint_or_time(const uint8_t *s, size_t n)
{
	bool hexpairs = n >= 11 && n % 3 == 2;

	for (size_t i = 0; i < n && hexpairs; i++)
		hexpairs = i % 3 == 2 ? s[i] == ':' : is_hex(s[i]);
	if (hexpairs)
		return true;
	if (n < 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (!((c >= '0' && c <= '9') || c == '-' || c == ':' ||
			c == '.' || c == 'T' || c == 'Z' || c == '+'))
			return false;
		if ((i < 4 || i == 5 || i == 6 || i == 8 || i == 9) &&
		    !(c >= '0' && c <= '9'))
			return false;
	}
	return true;
}

/* The kind of one part of a name: a number (2016), a word in one case or
 * capitalised (clause, BSD, Clause), a word and a number (GPL2, m4), a
 * CamelCase word (OpenLDAP, NetBSD); 0 for anything else. */
enum { PART_NONE, PART_NUM, PART_WORD, PART_WORDNUM, PART_CAMEL };

static int
part_kind(const uint8_t *s, size_t n)
{
	size_t l = 0, lower = 0, upper = 0;

	while (l < n &&
	    ((s[l] >= 'a' && s[l] <= 'z') || (s[l] >= 'A' && s[l] <= 'Z'))) {
		lower += s[l] >= 'a';
		upper += s[l] < 'a';
		l++;
	}
	for (size_t i = l; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return PART_NONE;
	if (l == 0)
		return PART_NUM;
	if (lower == 0 || upper == 0 ||
	    (upper == 1 && s[0] >= 'A' && s[0] <= 'Z'))
		return l == n ? PART_WORD : PART_WORDNUM;
	if (l < n || l < 4 || s[0] < 'A' || s[0] > 'Z')
		return PART_NONE;
	/* CamelCase: runs of Capital+lower, or of two or more capitals */
	for (size_t i = 0; i < l;) {
		size_t j = i + 1;
		if (j < l && s[j] >= 'a') {
			while (j < l && s[j] >= 'a')
				j++;
		} else {
			while (j < l && s[j] < 'a' &&
			    !(j + 1 < l && s[j + 1] >= 'a'))
				j++;
			if (j - i < 2)
				return PART_NONE;
		}
		i = j;
	}
	return PART_CAMEL;
}

/* Parts between separator bytes (seps), at least min_parts of them,
 * each of a kind (part_kind), one of them a word of three letters or
 * more.  Random tokens almost never split that way. */
static bool
named_parts(const uint8_t *s, size_t n, const char *seps, size_t min_parts)
{
	size_t parts = 0, i = 0, nseps = strlen(seps);
	bool word = false;

	while (i < n) {
		size_t j = i;
		int k;

		while (j < n && memchr(seps, s[j], nseps) == NULL)
			j++;
		if (j > i) {
			k = part_kind(s + i, j - i);
			if (k == PART_NONE)
				return false;
			if ((k == PART_WORD && j - i >= 3) || k == PART_CAMEL)
				word = true;
			parts++;
		}
		i = j + 1;
	}
	return parts >= min_parts && word;
}

/* A name made of words and numbers: BSD-3-Clause, GPL-3+-or-later,
 * OpenLDAP-2.8, permissive-autoconf-m4: two or more parts between -, .,
 * + and ~. */
static bool
word_name(const uint8_t *s, size_t n)
{
	return named_parts(s, n, "-.+~", 2);
}

/* Base64 of a public PEM block: a certificate, a public key, a CRL or a
 * certificate request (kubeconfig's certificate-authority-data, a
 * secret's tls.crt).  "LS0tLS1CRUdJTi" is the base64 of "-----BEGIN". */
static bool
b64_public_pem(const uint8_t *s, size_t n)
{
	static const char *const labels[] = { "CERTIFICATE", "PUBLIC KEY",
		"RSA PUBLIC KEY", "X509 CRL", "TRUSTED CERTIFICATE",
		"NEW CERTIFICATE REQUEST" };
	char storage[64];
	struct axg_buf b;
	bool pub = false;

	if (n < 40 || memcmp(s, "LS0tLS1CRUdJTi", 14) != 0)
		return false;
	axg_buf_init_ext(&b, storage, sizeof(storage), sizeof(storage));
	if (leak_decode_base64(s, 56 < n ? 56 : n - n % 4, &b) && b.len > 11) {
		for (size_t i = 0; i < AXG_ARRAY_LEN(labels) && !pub; i++) {
			size_t l = strlen(labels[i]);
			pub = b.len >= 11 + l + 5 &&
			    memcmp(b.data + 11, labels[i], l) == 0 &&
			    memcmp(b.data + 11 + l, "-----", 5) == 0;
		}
	}
	axg_buf_free(&b);
	return pub;
}

/* A version or a plain decimal: 1.302138, ^7.0.3, ~1.2, >=2.0, v3.1.4. */
static bool
version_number(const uint8_t *s, size_t n)
{
	size_t i = 0, dots = 0;

	while (i < n && i < 2 &&
	    (s[i] == '^' || s[i] == '~' || s[i] == '=' || s[i] == '>' ||
		s[i] == '<' || s[i] == 'v'))
		i++;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	for (; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return false;
	}
	return dots > 0;
}

/* A compound identifier: three or more parts joined by _ or .:
 * Py_tss_NEEDS_INIT, x86_cpu_index_1_edx,
 * protobuf_specs_1.PublicKeyDetails.PKIX_ECDSA_P256_SHA_256.  A random
 * token rarely has two separators, and then its parts mix cases. */
static bool
compound_identifier(const uint8_t *s, size_t n)
{
	return named_parts(s, n, "_.", 3);
}

/* A shell or template variable inside the value: Checksums-$alg,
 * anonymous:$FROM_EMAIL, ${HOME}/x, $(cat f). */
static bool
interpolates(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] != '$')
			continue;
		uint8_t c = s[i + 1];
		if (c == '{' || c == '(')
			return true;
		size_t l = 0;
		while (i + 1 + l < n &&
		    ((s[i + 1 + l] >= 'a' && s[i + 1 + l] <= 'z') ||
			(s[i + 1 + l] >= 'A' && s[i + 1 + l] <= 'Z') ||
			s[i + 1 + l] == '_'))
			l++;
		if (l >= 3 &&
		    (i + 1 + l == n || s[i + 1 + l] < '0' ||
			s[i + 1 + l] > '9'))
			return true;
	}
	return false;
}

/* Base64 DER of a public key (SubjectPublicKeyInfo) for RSA, P-256,
 * P-384 or Ed25519: signing keys published in TUF roots and package
 * managers. */
static bool
b64_public_der(const uint8_t *s, size_t n)
{
	static const char *const pfx[] = { "MIIBIjANBgkqhkiG9w0BAQEFAAOC",
		"MIICIjANBgkqhkiG9w0BAQEFAAOC",
		"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD",
		"MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAE", "MCowBQYDK2VwAyEA" };

	for (size_t i = 0; i < AXG_ARRAY_LEN(pfx); i++) {
		size_t l = strlen(pfx[i]);
		if (n > l && memcmp(s, pfx[i], l) == 0)
			return true;
	}
	return false;
}

/* An Amazon Resource Name (arn:aws:..., arn:aws-cn:...): a name, never
 * a secret, though it often ends in one's name. */
static bool
is_arn(const uint8_t *s, size_t n)
{
	return n > 8 && memcmp(s, "arn:aws", 7) == 0 &&
	    (s[7] == ':' || s[7] == '-');
}

/* A file name: it ends in a dot and an extension of files that are
 * stored and sent (my-dir/photo.png, app-1.0.war, export-i-1f2e.ova). */
static bool
file_name(const uint8_t *s, size_t n)
{
	static const char *const ext[] = { "zip", "tar", "gz", "tgz", "bz2",
		"xz", "war", "jar", "ear", "bin", "img", "iso", "ova", "ovf",
		"vmdk", "qcow2", "png", "jpg", "jpeg", "gif", "svg", "mp4",
		"mp3", "mov", "pdf", "csv", "txt", "log", "json", "yaml", "yml",
		"xml", "html", "js", "py", "sh", "deb", "rpm", "whl",
		"parquet" };
	size_t dot = n;

	while (dot > 0 && s[dot - 1] != '.')
		dot--;
	if (dot < 2 || dot == n || n - dot > 7)
		return false;
	uint8_t c = s[dot - 2];
	if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '-'))
		return false;
	for (size_t i = 0; i < AXG_ARRAY_LEN(ext); i++)
		if (strlen(ext[i]) == n - dot &&
		    axg_strncaseeq((const char *)s + dot, ext[i], n - dot))
			return true;
	return false;
}

/* A name in brackets: a template's field ({password}, {{ token }},
 * <api-key>, [FILTERED]), not a value. */
static bool
bracketed_name(const uint8_t *s, size_t n)
{
	static const char open[] = "{<[(", close[] = "}>])";
	const char *o = n >= 3 ? memchr(open, s[0], 4) : NULL;

	if (o == NULL || s[n - 1] != close[o - open])
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
			s[i] == '-' || s[i] == '.' || s[i] == ' ' ||
			s[i] == s[0] || s[i] == s[n - 1]))
			return false;
	return true;
}

/* The value of a context rule: not a reference, a path, an identifier,
 * a number, a hash, a word or public PEM material; for passwords the bar
 * is lower. */
/* Does the matched text name an API key, an auth token or a secret?
 * Many providers issue UUIDs as API keys and tokens (Statuspage, Heap,
 * Postmark, Snyk, Loggly, ...), so a generic rule takes a UUID under
 * such a name, while ids, session keys and idempotency keys stay quiet.
 * A token's name qualifies when it is an environment variable's
 * (LOGGLY_TOKEN), "token" itself, or says what the token opens
 * (access_token, hecToken is not: LockToken, ChangeToken and
 * LifecycleActionToken are UUIDs that open nothing). */
static bool
names_api_secret(const uint8_t *ctx, size_t n)
{
	static const char *const words[] = { "apikey", "api_key", "api-key",
		"apitoken", "api_token", "api-token", "authtoken", "auth_token",
		"auth-token", "secret", "password", "private" };
	static const char *const opens[] = { "access", "session", "refresh",
		"bearer", "auth", "private", "personal", "service", "account",
		"server", "bot", "hec" };
	size_t name = 0;
	bool lower = false;

	for (size_t k = 0; k < AXG_ARRAY_LEN(words); k++)
		if (leak_contains_nocase(ctx, n, words[k]))
			return true;
	while (name < n &&
	    ((ctx[name] >= 'a' && ctx[name] <= 'z') ||
		(ctx[name] >= 'A' && ctx[name] <= 'Z') ||
		(ctx[name] >= '0' && ctx[name] <= '9') || ctx[name] == '_' ||
		ctx[name] == '-' || ctx[name] == '.')) {
		lower = lower || (ctx[name] >= 'a' && ctx[name] <= 'z');
		name++;
	}
	if (!leak_contains_nocase(ctx, name, "token"))
		return false;
	if (!lower || name == 5)
		return true;
	for (size_t k = 0; k < AXG_ARRAY_LEN(opens); k++)
		if (leak_contains_nocase(ctx, name, opens[k]))
			return true;
	return false;
}

static bool
value_shape_ok(const struct leak_rule *r, const uint8_t *s, size_t n,
    const uint8_t *ctx, size_t ctxlen)
{
	size_t lower = 0, upper = 0, digit = 0, other = 0, ident = 0;
	bool password = (r->flags & LEAK_RF_PASSWORD) != 0;

	if (s[0] == '$' || s[0] == '%' || s[0] == '@' || s[0] == '.' ||
	    s[0] == '#' || s[0] == ':' || s[0] == '\\')
		return false;
	/* A path (/run/secrets/db, ~/.ssh/id); base64 may start with a
	 * slash, an Entra ID secret with a tilde. */
	if ((s[0] == '/' || s[0] == '~') &&
	    (n < 16 || memchr(s + 1, '/', n - 1) != NULL))
		return false;
	if (b64_public_pem(s, n) || b64_public_der(s, n) ||
	    fingerprint_or_time(s, n) || version_number(s, n) || is_arn(s, n) ||
	    file_name(s, n) || bracketed_name(s, n))
		return false;
	if (!password &&
	    (word_name(s, n) || compound_identifier(s, n) ||
		interpolates(s, n)))
		return false;
	if (is_hash(s, n))
		return false;
	if (!(r->flags & LEAK_RF_UUID_OK) && is_uuid(s, n) &&
	    !((r->flags & LEAK_RF_GENERIC) && names_api_secret(ctx, ctxlen)))
		return false;
	if (!(r->flags & LEAK_RF_HEX_OK) && n >= 32 && all_hex(s, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c >= 'a' && c <= 'z')
			lower++;
		else if (c >= 'A' && c <= 'Z')
			upper++;
		else if (c >= '0' && c <= '9')
			digit++;
		else
			other++;
		if (c == '_' || c == '.' || c == '-' ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9'))
			ident++;
		if (c < 0x20 || c >= 0x7f)
			return false;
	}
	if (digit == n)
		return false; /* a number */
	/* Dotted identifiers: os.environ, process.env.KEY, config.api_key,
	 * win32api.RegOpenKeyEx. */
	if (dotted_identifier(s, n))
		return false;
	if (digit == 0 && ident == n) {
		/* SOME_CONSTANT_NAME or some_variable_name */
		if ((upper == 0 || lower == 0) && memchr(s, '_', n) != NULL)
			return false;
	}
	/* if auth is AuthFlow.SRP:, a block's colon */
	if (!password && s[n - 1] == ':')
		return false;
	/* X509_ATTRIBUTE, SHA256_DIGEST: a constant with a number */
	if (!password && lower == 0 && memchr(s, '_', n) != NULL &&
	    named_parts(s, n, "_", 2))
		return false;
	/* A path or a URL: slashes between mostly lower-case words. */
	if (memchr(s, '/', n) != NULL && upper * 8 < n && digit * 4 < n)
		return false;
	if (n > 4 && memmem(s, n, "://", 3) != NULL)
		return false;
	/* An identifier: no digits or symbols, few capitals (getUserName,
	 * useState, xmlSecKeysMngrGetKey, confirm_password:). */
	bool identifier = digit == 0 && upper * 3 < n;
	for (size_t i = 0; i < n && identifier; i++)
		if (!(s[i] == '_' || s[i] == ':' || s[i] == '.' ||
			s[i] == '-' || (s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z')))
			identifier = false;
	if (identifier)
		return false;
	/* One word in one case, perhaps with a final mark: PASSWD. */
	if (digit == 0 && (upper == 0 || lower == 0) && other <= 1)
		return false;
	if (password)
		return true;
	/* Tokens look random: at least two character kinds. */
	int kinds = (lower > 0) + (upper > 0) + (digit > 0);
	if (kinds < 2)
		return false;
	return true;
}

/* base64 text -> bytes; false if not base64. */
bool
leak_decode_base64(const uint8_t *p, size_t n, struct axg_buf *out)
{
	uint32_t acc = 0;
	int bits = 0;

	axg_buf_reset(out);
	while (n > 0 && p[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		int v;
		if (c >= 'A' && c <= 'Z')
			v = c - 'A';
		else if (c >= 'a' && c <= 'z')
			v = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			v = c - '0' + 52;
		else if (c == '+' || c == '-')
			v = 62;
		else if (c == '/' || c == '_')
			v = 63;
		else
			return false;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (axg_buf_putc(out, (char)((acc >> bits) & 0xff)) < 0)
				return false;
		}
	}
	return true;
}

/* A printf format (%s, user_%d, VS%0.f0COMNTOOLS) rather than a value: a
 * conversion, and around it not the mix of lower case, upper case and
 * digits of a generated password that holds "%d" or "%f" among its
 * symbols (FF@pqT%duX7lK). */
static bool
format_string(const uint8_t *s, size_t n)
{
	bool conv = false, lower = false, upper = false, digit = false;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			size_t j = i + 1;
			while (j < n && j < i + 6 &&
			    ((s[j] >= '0' && s[j] <= '9') || s[j] == '-' ||
				s[j] == '+' || s[j] == '.'))
				j++;
			if (j < n && memchr("sdfiux", s[j], 6) != NULL) {
				conv = true;
				i = j;
				continue;
			}
		}
		lower = lower || (s[i] >= 'a' && s[i] <= 'z');
		upper = upper || (s[i] >= 'A' && s[i] <= 'Z');
		digit = digit || (s[i] >= '0' && s[i] <= '9');
	}
	return conv && !(lower && upper && digit);
}

static bool
placeholder(const struct leak_ruleset *rs, pcre2_match_data *md,
    pcre2_match_context *mc, const uint8_t *s, size_t n)
{
	return format_string(s, n) || re_hit(rs->placeholder, md, mc, s, n);
}

/* Basic credentials: base64 of "user:password" with a real password. */
static bool
basic_ok(const struct leak_ruleset *rs, pcre2_match_data *md,
    pcre2_match_context *mc, const uint8_t *s, size_t n)
{
	struct axg_buf b = AXG_BUF_INIT;
	bool ok = false;
	const char *colon;

	axg_buf_init(&b, 4096);
	if (!leak_decode_base64(s, n, &b) || b.len < 3)
		goto out;
	for (size_t i = 0; i < b.len; i++)
		if ((uint8_t)b.data[i] < 0x20 || (uint8_t)b.data[i] >= 0x7f)
			goto out;
	colon = memchr(b.data, ':', b.len);
	if (colon == NULL)
		goto out;
	size_t pl = b.len - (size_t)(colon + 1 - b.data);
	if (pl == 0)
		goto out;
	ok = !placeholder(rs, md, mc, (const uint8_t *)colon + 1, pl);
out:
	axg_buf_free(&b);
	return ok;
}

static bool
jwt_ok(const uint8_t *s, size_t n)
{
	struct axg_buf b = AXG_BUF_INIT;
	const uint8_t *dot = memchr(s, '.', n);
	bool ok = false;

	if (dot == NULL)
		return false;
	axg_buf_init(&b, 4096);
	if (leak_decode_base64(s, (size_t)(dot - s), &b) && b.len > 0 &&
	    b.data[0] == '{' && strstr(b.data, "\"alg\"") != NULL)
		ok = true;
	axg_buf_free(&b);
	return ok;
}

/* A.B or A.B.C of identifiers: an attribute in a format field, such as
 * {self.password} in a template of a .netrc line. */
static bool
dotted_name(const uint8_t *s, size_t n)
{
	bool dot = false;

	if (n == 0 || !(isalpha(s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (s[i] == '.') {
			if (s[i - 1] == '.' || i + 1 == n)
				return false;
			dot = true;
		} else if (!isalnum(s[i]) && s[i] != '_') {
			return false;
		}
	}
	return dot;
}

static bool
url_password_ok(const struct leak_ruleset *rs, pcre2_match_data *md,
    pcre2_match_context *mc, const uint8_t *s, size_t n)
{
	static const char *const words[] = { "password", "passwd", "pass",
		"pwd", "secret", "changeme", "user", "username", "pw", "xxx",
		"****", "<password>", "test", "example", "token", "xyz", "abc",
		"123", "foo", "bar", "baz", "qwerty", "guest",
		"tiger" /* Oracle's scott/tiger demo login */ };

	if (n > 1 && (s[0] == '\'' || s[0] == '{')) {
		/* {self.password}: a format field, not a quoted value */
		if (s[0] == '{' && dotted_name(s + 1, n - 2))
			return false;
		s++, n -= 2; /* quoted connection-string values */
	}
	if (n < 3)
		return false; /* https://a:b@host, in docs */
	for (size_t i = 0; i < AXG_ARRAY_LEN(words); i++)
		if (strlen(words[i]) == n &&
		    axg_strncaseeq((const char *)s, words[i], n))
			return false;
	if (s[0] == '$' || s[0] == '%' || s[0] == '<' || s[0] == '{' ||
	    s[0] == '[')
		return false;
	if (n == 1 && s[0] == '*')
		return false;
	return !placeholder(rs, md, mc, s, n);
}

bool
leak_secret_ok(const struct leak_ruleset *rs, const struct leak_rule *r,
    const pcre2_code *allow, pcre2_match_data *md, pcre2_match_context *mc,
    const uint8_t *s, size_t n, const uint8_t *ctx, size_t ctxlen)
{
	if (n == 0)
		return false;
	if (r->entropy > 0) {
		/* Short strings cannot reach high entropy: scale the floor to
		 * what a random string of this length would give. */
		double floor_ = r->entropy;
		double cap = log2((double)n) * 0.85;
		if (cap < floor_)
			floor_ = cap;
		if (leak_entropy(s, n) < floor_)
			return false;
	}
	if ((r->flags & LEAK_RF_VALUE) && !value_shape_ok(r, s, n, ctx, ctxlen))
		return false;
	switch (r->validator) {
	case LEAK_V_BASIC_AUTH:
		if (allow != NULL && re_hit(allow, md, mc, s, n))
			return false;
		return basic_ok(rs, md, mc, s, n);
	case LEAK_V_JWT:
		if (!jwt_ok(s, n))
			return false;
		break;
	case LEAK_V_URL_PASSWORD:
		return url_password_ok(rs, md, mc, s, n);
	case LEAK_V_NONE:
		break;
	}
	if (!(r->flags & LEAK_RF_NOALLOW) && placeholder(rs, md, mc, s, n))
		return false;
	if (allow != NULL && re_hit(allow, md, mc, s, n))
		return false;
	return true;
}
