/*
 * builtins-net.c: CIDR builtins (net.cidr_contains, net.cidr_intersects,
 * net.cidr_contains_matches, net.cidr_expand, net.cidr_merge,
 * net.cidr_is_valid), with Go's net package parsing and printing rules.
 * No name resolution happens here.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"

/* net.cidr_expand gives at most this many addresses. */
#define NET_MAX_EXPAND 65536
/* net.cidr_merge takes at most this many networks. */
#define NET_MAX_MERGE 100000

/* An address (len 4 or 16 bytes) with a prefix length. */
struct ipn {
	unsigned char a[16];
	int len;
	int prefix;
};

/* Go's net.ParseIP: dotted IPv4 or IPv6 text.  An IPv4-mapped IPv6
 * address counts as IPv4 (Go's To4). */
static bool
parse_ip(const char *s, size_t n, struct ipn *ip)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf) || memchr(s, '\0', n) != NULL)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	memset(ip, 0, sizeof(*ip));
	if (memchr(buf, ':', n) == NULL) {
		if (inet_pton(AF_INET, buf, ip->a) != 1)
			return false;
		ip->len = 4;
		ip->prefix = 32;
		return true;
	}
	if (inet_pton(AF_INET6, buf, ip->a) != 1)
		return false;
	ip->len = 16;
	ip->prefix = 128;
	return true;
}

/* Is a 16-byte address IPv4-mapped (Go's To4 != nil)? */
static bool
is_mapped(const struct ipn *ip)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff };

	return ip->len == 16 && memcmp(ip->a, mapped, 12) == 0;
}

/* As an IP to test for membership: mapped addresses become IPv4. */
static void
to4(struct ipn *ip)
{
	if (is_mapped(ip)) {
		memmove(ip->a, ip->a + 12, 4);
		memset(ip->a + 4, 0, 12);
		ip->len = 4;
		ip->prefix = 32;
	}
}

static void
mask_net(struct ipn *n)
{
	int i;

	for (i = 0; i < n->len; i++) {
		int keep = n->prefix - 8 * i;
		if (keep <= 0)
			n->a[i] = 0;
		else if (keep < 8)
			n->a[i] &= (unsigned char)(0xff << (8 - keep));
	}
}

/* Go's net.ParseCIDR; the result is the masked network. */
static bool
parse_cidr(const char *s, size_t n, struct ipn *net)
{
	const char *slash = memchr(s, '/', n);
	size_t i, ml;
	int p = 0;

	if (slash == NULL)
		return false;
	if (!parse_ip(s, (size_t)(slash - s), net))
		return false;
	ml = n - (size_t)(slash - s) - 1;
	if (ml == 0 || ml > 3)
		return false;
	for (i = 0; i < ml; i++) {
		char c = slash[1 + i];
		if (c < '0' || c > '9')
			return false;
		p = p * 10 + (c - '0');
	}
	if (p > 8 * net->len)
		return false;
	net->prefix = p;
	mask_net(net);
	return true;
}

static bool
net_contains(const struct ipn *net, const struct ipn *ip0)
{
	struct ipn ip = *ip0;
	int i;

	to4(&ip);
	if (ip.len != net->len)
		return false;
	for (i = 0; i < net->len; i++) {
		int keep = net->prefix - 8 * i;
		unsigned char m = keep >= 8 ? 0xff
		    : keep <= 0		    ? 0
				: (unsigned char)(0xff << (8 - keep));
		if ((ip.a[i] & m) != net->a[i])
			return false;
	}
	return true;
}

/* Go's IP.String (RFC 5952, mapped addresses as dotted IPv4), plus
 * "/prefix" when with_prefix. */
static void
format_ip(const struct ipn *ip, bool with_prefix, struct axg_buf *b)
{
	int i, best = -1, bestlen = 0;

	if (ip->len == 4 || is_mapped(ip)) {
		const unsigned char *a = ip->len == 4 ? ip->a : ip->a + 12;
		axg_buf_printf(b, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	} else {
		for (i = 0; i < 8;) {
			int j = i;
			while (
			    j < 8 && ip->a[2 * j] == 0 && ip->a[2 * j + 1] == 0)
				j++;
			if (j - i > bestlen && j - i >= 2) {
				best = i;
				bestlen = j - i;
			}
			i = j > i ? j : i + 1;
		}
		for (i = 0; i < 8; i++) {
			if (i == best) {
				axg_buf_puts(b, "::");
				i += bestlen - 1;
				continue;
			}
			if (i > 0 && i != best + bestlen)
				axg_buf_putc(b, ':');
			axg_buf_printf(b, "%x",
			    (unsigned)ip->a[2 * i] << 8 | ip->a[2 * i + 1]);
		}
	}
	if (with_prefix)
		axg_buf_printf(b, "/%d", ip->prefix);
}

static int
bad_cidr(struct axp_bctx *ctx, const struct axv *s)
{
	return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
	    "invalid CIDR address: %s", axv_str(s));
}

/* cidr_contains on two strings: 1 true, 0 false, -1 error recorded. */
static int
contains(struct axp_bctx *ctx, const struct axv *a, const struct axv *b)
{
	struct ipn net, x, last;
	int i;

	if (axv_kind(a) != AXV_STRING)
		return axp_bi_type_error(ctx, 1, "string", a), -1;
	if (axv_kind(b) != AXV_STRING)
		return axp_bi_type_error(ctx, 2, "string", b), -1;
	if (!parse_cidr(axv_str(a), axv_strlen(a), &net))
		return bad_cidr(ctx, a), -1;
	if (parse_ip(axv_str(b), axv_strlen(b), &x))
		return net_contains(&net, &x);
	if (!parse_cidr(axv_str(b), axv_strlen(b), &x))
		return bad_cidr(ctx, b), -1;
	if (!net_contains(&net, &x))
		return 0;
	last = x;
	for (i = 0; i < last.len; i++) {
		int keep = last.prefix - 8 * i;
		if (keep <= 0)
			last.a[i] = 0xff;
		else if (keep < 8)
			last.a[i] |= (unsigned char)(0xff >> keep);
	}
	return net_contains(&net, &last);
}

static int
bi_cidr_contains(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	int r = contains(ctx, args[0], args[1]);

	if (r < 0)
		return AXP_BI_ERROR;
	*out = axv_bool(r == 1);
	return AXP_BI_OK;
}

static int
bi_cidr_intersects(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct ipn a, b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	if (!parse_cidr(axv_str(args[0]), axv_strlen(args[0]), &a))
		return bad_cidr(ctx, args[0]);
	if (!parse_cidr(axv_str(args[1]), axv_strlen(args[1]), &b))
		return bad_cidr(ctx, args[1]);
	*out = axv_bool(net_contains(&a, &b) || net_contains(&b, &a));
	return AXP_BI_OK;
}

static int
bi_cidr_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct ipn n;

	(void)ctx;
	*out = axv_bool(axv_kind(args[0]) == AXV_STRING &&
	    parse_cidr(axv_str(args[0]), axv_strlen(args[0]), &n));
	return AXP_BI_OK;
}

static int
bi_cidr_expand(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct ipn n;
	struct axv *set;
	struct axg_buf b;
	int host, i;
	uint64_t count, k;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (!parse_cidr(axv_str(args[0]), axv_strlen(args[0]), &n))
		return bad_cidr(ctx, args[0]);
	host = 8 * n.len - n.prefix;
	if (host > 16)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "CIDR %s has more than %d addresses", axv_str(args[0]),
		    NET_MAX_EXPAND);
	count = UINT64_C(1) << host;
	set = axv_set_new((size_t)count);
	axg_buf_init(&b, 0);
	for (k = 0; k < count; k++) {
		struct ipn x = n;
		uint64_t carry = k;
		for (i = x.len - 1; i >= 0 && carry; i--) {
			carry += x.a[i];
			x.a[i] = (unsigned char)carry;
			carry >>= 8;
		}
		axg_buf_reset(&b);
		format_ip(&x, false, &b);
		axv_set_add(set, axv_string(b.data, b.len));
	}
	axg_buf_free(&b);
	*out = set;
	return AXP_BI_OK;
}

/* ---- cidr_contains_matches ---- */

/* The CIDR of an element: a string, or the first item of an array. */
static const struct axv *
match_term(const struct axv *e)
{
	if (axv_kind(e) == AXV_STRING)
		return e;
	if (axv_kind(e) == AXV_ARRAY && axv_array_len(e) > 0)
		return axv_array_get(e, 0);
	return NULL;
}

struct match_item {
	const struct axv *cidr;
	struct axv *key; /* borrowed, or owned when owned is set */
	bool owned;
};

/* Flatten an operand into (cidr, key) items; -1 on a bad element. */
static int
match_items(struct axp_bctx *ctx, const struct axv *v, int pos,
    struct match_item **items, size_t *n)
{
	size_t i, len;

	*items = NULL;
	*n = 0;
	switch (axv_kind(v)) {
	case AXV_STRING:
		*items = axg_calloc(1, sizeof(**items));
		(*items)[0].cidr = v;
		(*items)[0].key = (struct axv *)v;
		*n = 1;
		return 0;
	case AXV_ARRAY:
	case AXV_SET:
	case AXV_OBJECT:
		len = axv_count(v) > 0 ? (size_t)axv_count(v) : 0;
		*items = axg_calloc(len + 1, sizeof(**items));
		for (i = 0; i < len; i++) {
			const struct axv *e = axv_kind(v) == AXV_ARRAY
			    ? axv_array_get(v, i)
			    : axv_kind(v) == AXV_SET ? axv_set_at(v, i)
						     : axv_object_val(v, i);
			const struct axv *c = match_term(e);
			if (c == NULL) {
				*n = i;
				return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "operand %d: element must be string or "
				    "non-empty array",
				    pos);
			}
			(*items)[i].cidr = c;
			if (axv_kind(v) == AXV_ARRAY) {
				(*items)[i].key = axv_int((int64_t)i);
				(*items)[i].owned = true;
			} else if (axv_kind(v) == AXV_SET)
				(*items)[i].key = (struct axv *)e;
			else
				(*items)[i].key = axv_object_key(v, i);
			*n = i + 1;
		}
		return 0;
	default:
		return 0;
	}
}

static void
match_free(struct match_item *items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (items[i].owned)
			axv_unref(items[i].key);
	free(items);
}

static int
bi_cidr_contains_matches(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct match_item *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, i, j;
	struct axv *set = NULL;
	int rc = AXP_BI_ERROR;

	if (match_items(ctx, args[0], 1, &a, &na) < 0)
		goto done;
	if (na > 0 && match_items(ctx, args[1], 2, &b, &nb) < 0)
		goto done;
	set = axv_set_new(0);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++) {
			int r = contains(ctx, a[i].cidr, b[j].cidr);
			struct axv *pair;
			if (r < 0)
				goto done;
			if (r == 0)
				continue;
			pair = axv_array_new(2);
			axv_array_push(pair, axv_ref(a[i].key));
			axv_array_push(pair, axv_ref(b[j].key));
			axv_set_add(set, pair);
		}
	*out = set;
	set = NULL;
	rc = AXP_BI_OK;
done:
	axv_unref(set);
	match_free(a, na);
	match_free(b, nb);
	return rc;
}

/* ---- cidr_merge ---- */

static int
cmp_net(const void *pa, const void *pb)
{
	const struct ipn *a = pa, *b = pb;
	int c;

	if (a->len != b->len)
		return a->len - b->len;
	c = memcmp(a->a, b->a, (size_t)a->len);
	if (c != 0)
		return c;
	return a->prefix - b->prefix;
}

/* Is net b (same family) inside net a? */
static bool
net_within(const struct ipn *a, const struct ipn *b)
{
	return a->prefix <= b->prefix && net_contains(a, b);
}

/* Are a and b the two halves of one parent network? */
static bool
siblings(const struct ipn *a, const struct ipn *b, struct ipn *parent)
{
	int bit;

	if (a->len != b->len || a->prefix != b->prefix || a->prefix == 0)
		return false;
	*parent = *a;
	parent->prefix--;
	mask_net(parent);
	bit = a->prefix - 1;
	if (a->a[bit / 8] & (0x80 >> (bit % 8)))
		return false;
	return net_contains(parent, b);
}

static int
net_of(struct axp_bctx *ctx, const struct axv *e, struct ipn *n)
{
	if (axv_kind(e) != AXV_STRING)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "element must be string");
	if (memchr(axv_str(e), '/', axv_strlen(e)) != NULL) {
		if (!parse_cidr(axv_str(e), axv_strlen(e), n))
			return bad_cidr(ctx, e);
		return 0;
	}
	if (!parse_ip(axv_str(e), axv_strlen(e), n))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "invalid IP address: %s", axv_str(e));
	to4(n);
	if (n->len == 16)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "IPv6 invalid: needs prefix length");
	/* Go's IP.DefaultMask: the classful mask */
	n->prefix = n->a[0] < 0x80 ? 8
	    : n->a[0] < 0xc0	   ? 16
	    : n->a[0] < 0xe0	   ? 24
				   : 32;
	mask_net(n);
	return 0;
}

static int
bi_cidr_merge(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axv *v = args[0];
	struct ipn *nets, *st;
	size_t n, i, top = 0;
	struct axv *set;
	struct axg_buf b;

	if (axv_kind(v) != AXV_ARRAY && axv_kind(v) != AXV_SET)
		return axp_bi_type_error(ctx, 1, "one of {array, set}", v);
	n = (size_t)axv_count(v);
	if (n > NET_MAX_MERGE)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "more than %d networks", NET_MAX_MERGE);
	nets = axg_calloc(n + 1, sizeof(*nets));
	for (i = 0; i < n; i++) {
		const struct axv *e = axv_kind(v) == AXV_ARRAY
		    ? axv_array_get(v, i)
		    : axv_set_at(v, i);
		if (net_of(ctx, e, &nets[i]) < 0) {
			free(nets);
			return AXP_BI_ERROR;
		}
	}
	qsort(nets, n, sizeof(*nets), cmp_net);
	/* a stack of disjoint networks in address order */
	st = axg_calloc(n + 1, sizeof(*st));
	for (i = 0; i < n; i++) {
		struct ipn cur = nets[i], parent;
		if (top > 0 && net_within(&st[top - 1], &cur))
			continue;
		while (top > 0 && siblings(&st[top - 1], &cur, &parent)) {
			top--;
			cur = parent;
			while (top > 0 && net_within(&cur, &st[top - 1]))
				top--;
		}
		st[top++] = cur;
	}
	set = axv_set_new(top);
	axg_buf_init(&b, 0);
	for (i = 0; i < top; i++) {
		axg_buf_reset(&b);
		format_ip(&st[i], true, &b);
		axv_set_add(set, axv_string(b.data, b.len));
	}
	axg_buf_free(&b);
	free(st);
	free(nets);
	*out = set;
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_net[] = {
	{ "net.cidr_contains", 2, bi_cidr_contains,
	    "(string, string) => boolean", 0 },
	{ "net.cidr_intersects", 2, bi_cidr_intersects,
	    "(string, string) => boolean", 0 },
	{ "net.cidr_contains_matches", 2, bi_cidr_contains_matches,
	    "(any, any) => set[array]", 0 },
	{ "net.cidr_expand", 1, bi_cidr_expand, "(string) => set[string]", 0 },
	{ "net.cidr_merge", 1, bi_cidr_merge,
	    "(any<array[string], set[string]>) => set[string]", 0 },
	{ "net.cidr_is_valid", 1, bi_cidr_is_valid, "(string) => boolean", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
