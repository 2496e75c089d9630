/*
 * event.c: what every OCSF event has (class, captions, severity, time,
 * metadata with a fresh uid) and the objects several events share.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "audit/audit-int.h"

/* ---- UUID v4 from a per-thread pool of random bytes ----
 *
 * The pool lives in a page of its own marked MADV_WIPEONFORK: a child
 * made by fork() or clone() finds it zeroed (nothing left) and refills it,
 * so parent and child never hand out the same bytes, and no draw costs a
 * system call.  Where the page cannot be had or marked, the pool is a
 * plain thread-local array and every draw compares getpid() instead. */

#define RAND_PAGE 4096

struct rand_pool {
	size_t left; /* unused bytes at the end of bytes[] */
	unsigned char bytes[RAND_PAGE - sizeof(size_t)];
};

static _Thread_local struct rand_pool *rand_cur;
static _Thread_local struct rand_pool rand_fallback;
static _Thread_local pid_t rand_pid; /* fallback: the pool's process */
static pthread_key_t rand_key;
static pthread_once_t rand_once = PTHREAD_ONCE_INIT;
static bool rand_key_ok;

static void
rand_pool_unmap(void *p)
{
	munmap(p, RAND_PAGE);
}

static void
rand_key_init(void)
{
	rand_key_ok = pthread_key_create(&rand_key, rand_pool_unmap) == 0;
}

static bool
wipe_on_fork(void *p)
{
#ifdef MADV_WIPEONFORK
	return madvise(p, RAND_PAGE, MADV_WIPEONFORK) == 0;
#else
	(void)p;
	return false;
#endif
}

static struct rand_pool *
rand_pool_get(void)
{
	void *p;

	if (rand_cur != NULL)
		return rand_cur;
	pthread_once(&rand_once, rand_key_init);
	p = mmap(NULL, RAND_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED && rand_key_ok && wipe_on_fork(p) &&
	    pthread_setspecific(rand_key, p) == 0) {
		rand_cur = p;
	} else {
		if (p != MAP_FAILED)
			munmap(p, RAND_PAGE);
		rand_cur = &rand_fallback;
	}
	return rand_cur;
}

static void
rand_bytes(unsigned char *out, size_t n)
{
	struct rand_pool *rp = rand_pool_get();
	const size_t size = sizeof(rp->bytes);
	unsigned char *at;

	if (rp == &rand_fallback && rand_pid != getpid()) {
		rp->left = 0;
		rand_pid = getpid();
	}
	if (rp->left < n) {
		size_t got = 0;

		while (got < size) {
			ssize_t r = getrandom(rp->bytes + got, size - got, 0);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				axg_fatal(1, "getrandom: %s", strerror(errno));
			got += (size_t)r;
		}
		rp->left = size;
	}
	at = rp->bytes + size - rp->left;
	memcpy(out, at, n);
	/* never hand the same bytes out twice */
	memset(at, 0, n);
	rp->left -= n;
}

void
ocsf_uuid4(char out[37])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[16];
	size_t o = 0;

	rand_bytes(r, sizeof(r));
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* version 4 */
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	for (size_t i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[r[i] >> 4];
		out[o++] = hex[r[i] & 15];
	}
	out[o] = '\0';
}

/* ---- origin ---- */

static char origin_host[256];
static char origin_user[64];
static char origin_uid[16];

void
ocsf_origin_default(struct ocsf_origin *o)
{
	struct passwd pw, *res = NULL;
	char pwbuf[1024];
	uid_t uid = getuid();

	memset(o, 0, sizeof(*o));
	if (gethostname(origin_host, sizeof(origin_host) - 1) != 0)
		axg_strlcpy(origin_host, "localhost", sizeof(origin_host));
	origin_host[sizeof(origin_host) - 1] = '\0';
	snprintf(origin_uid, sizeof(origin_uid), "%u", (unsigned)uid);
	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 &&
	    res != NULL)
		axg_strlcpy(origin_user, pw.pw_name, sizeof(origin_user));
	o->device_hostname = origin_host;
	o->pid = (int)getpid();
	o->process_name = "axgate";
	o->user_name = origin_user[0] ? origin_user : NULL;
	o->user_uid = origin_uid;
}

/* ---- captions ---- */

const char *
ocsf_severity_name(int id)
{
	switch (id) {
	case 1:
		return "Informational";
	case 2:
		return "Low";
	case 3:
		return "Medium";
	case 4:
		return "High";
	case 5:
		return "Critical";
	case 6:
		return "Fatal";
	default:
		return "Unknown";
	}
}

/* ---- the head ---- */

void
ocsf_event_begin(struct jw *w, const struct ocsf_head *h,
    struct ocsf_meta *meta)
{
	char uuid[37];
	uint64_t t = h->time_ms ? h->time_ms : axg_now_ms();

	jw_obj(w, NULL);
	jw_u64(w, "class_uid", h->class_uid);
	/* captions are the code's own: no escaping; activity_name may be
	 * a request's method */
	jw_cstr(w, "class_name", h->class_name);
	jw_u64(w, "category_uid", h->category_uid);
	jw_cstr(w, "category_name", h->category_name);
	jw_i64(w, "activity_id", h->activity_id);
	jw_str(w, "activity_name", h->activity_name);
	jw_u64(w, "type_uid",
	    (uint64_t)h->class_uid * 100 + (uint64_t)h->activity_id);
	jw_cstr(w, "type_name", h->type_name);
	jw_i64(w, "severity_id", h->severity_id);
	jw_cstr(w, "severity", ocsf_severity_name(h->severity_id));
	jw_u64(w, "time", t);
	if (h->status_id != 0) {
		jw_i64(w, "status_id", h->status_id);
		jw_cstr(w, "status", h->status);
	}
	jw_obj(w, "metadata");
	JW_LIT(w,
	    "\"version\":\"" OCSF_SCHEMA_VERSION "\",\"product\":{"
	    "\"name\":\"axgate\",\"vendor_name\":\"axgate\","
	    "\"version\":\"" PACKAGE_VERSION "\"}");
	jw_arr(w, "profiles");
	for (const char *const *p = h->profiles; p != NULL && *p != NULL; p++) {
		jw_sep(w);
		JW_LIT(w, "\"");
		jw_raw(w, *p, strlen(*p));
		JW_LIT(w, "\"");
	}
	jw_arr_end(w);
	ocsf_uuid4(uuid);
	jw_key(w, "uid");
	JW_LIT(w, "\"");
	jw_raw(w, uuid, 36);
	JW_LIT(w, "\"");
	if (h->correlation_uid != NULL && h->correlation_uid[0] != '\0')
		jw_str(w, "correlation_uid", h->correlation_uid);
	jw_end(w);
	if (meta != NULL) {
		meta->class_uid = h->class_uid;
		meta->severity_id = (uint8_t)h->severity_id;
		meta->time_ms = t;
	}
}

/* Set once a value was cut: metadata.is_truncated can only be written
 * after the fact, so it is inserted into the metadata object. */
void
ocsf_event_end(struct jw *w, size_t start)
{
	static const char needle[] = ",\"profiles\":[";
	static const char ins[] = "\"is_truncated\":true,";

	jw_end(w);
	if (w->truncated) {
		struct axg_buf *b = w->b;
		char *p = strstr(b->data + start, needle);

		if (p != NULL) {
			/* insert before "profiles" (after the comma) */
			size_t at = (size_t)(p - b->data) + 1;
			size_t n = sizeof(ins) - 1;

			jw_reserve(w, n);
			memmove(b->data + at + n, b->data + at,
			    b->len - at + 1);
			memcpy(b->data + at, ins, n);
			b->len += n;
		}
	}
	JW_LIT(w, "\n");
}

/* ---- shared objects ---- */

bool
ocsf_ip_valid(const char *s)
{
	unsigned char tmp[16];

	if (s == NULL)
		return false;
	return inet_pton(AF_INET, s, tmp) == 1 ||
	    inet_pton(AF_INET6, s, tmp) == 1;
}

static bool
nonempty(const char *s)
{
	return s != NULL && s[0] != '\0';
}

bool
ocsf_endpoint_empty(const struct ocsf_endpoint *e)
{
	return !nonempty(e->hostname) && !nonempty(e->uid) &&
	    !ocsf_ip_valid(e->ip);
}

void
ocsf_put_endpoint(struct jw *w, const char *key, const struct ocsf_endpoint *e)
{
	bool ip = ocsf_ip_valid(e->ip);

	if (!ip && !nonempty(e->hostname) && !nonempty(e->uid))
		return;
	jw_obj(w, key);
	if (nonempty(e->hostname))
		jw_str(w, "hostname", e->hostname);
	if (ip)
		jw_cstr(w, "ip", e->ip); /* checked by inet_pton */
	if (e->port != 0 && e->port <= 65535)
		jw_u64(w, "port", e->port);
	if (nonempty(e->uid))
		jw_str(w, "uid", e->uid);
	jw_end(w);
}

bool
ocsf_policy_empty(const struct ocsf_policy *p)
{
	return !nonempty(p->name) && !nonempty(p->uid);
}

void
ocsf_put_policy(struct jw *w, const char *key, const struct ocsf_policy *p)
{
	if (ocsf_policy_empty(p))
		return;
	jw_obj(w, key);
	if (nonempty(p->name))
		jw_str(w, "name", p->name);
	if (nonempty(p->uid))
		jw_str(w, "uid", p->uid);
	if (nonempty(p->version))
		jw_str(w, "version", p->version);
	jw_end(w);
}

void
ocsf_put_device(struct jw *w, const struct ocsf_origin *o)
{
	jw_obj(w, "device");
	jw_str(w, "hostname",
	    nonempty(o->device_hostname) ? o->device_hostname : "localhost");
	if (ocsf_ip_valid(o->device_ip))
		jw_cstr(w, "ip", o->device_ip);
	JW_LIT(w, ",\"type_id\":1,\"type\":\"Server\"}");
}

void
ocsf_put_actor_process(struct jw *w, const struct ocsf_origin *o,
    bool with_user)
{
	jw_obj(w, "actor");
	jw_obj(w, "process");
	if (o->pid > 0)
		jw_i64(w, "pid", o->pid);
	jw_str(w, "name",
	    nonempty(o->process_name) ? o->process_name : "axgate");
	jw_end(w);
	if (with_user && (nonempty(o->user_name) || nonempty(o->user_uid))) {
		jw_obj(w, "user");
		if (nonempty(o->user_name))
			jw_str(w, "name", o->user_name);
		if (nonempty(o->user_uid))
			jw_str(w, "uid", o->user_uid);
		jw_end(w);
	}
	jw_end(w);
}

void
ocsf_put_url(struct jw *w, const char *key, const struct ocsf_url *u)
{
	if (!nonempty(u->url_string) && !nonempty(u->path))
		return;
	jw_obj(w, key);
	if (nonempty(u->url_string))
		jw_str(w, "url_string", u->url_string);
	if (nonempty(u->scheme))
		jw_str(w, "scheme", u->scheme);
	if (nonempty(u->hostname))
		jw_str(w, "hostname", u->hostname);
	if (u->port != 0 && u->port <= 65535)
		jw_u64(w, "port", u->port);
	if (nonempty(u->path))
		jw_str(w, "path", u->path);
	if (nonempty(u->query))
		jw_str(w, "query_string", u->query);
	jw_end(w);
}

void
ocsf_put_decision(struct jw *w, bool allowed)
{
	if (allowed)
		JW_LIT(w,
		    ",\"action_id\":1,\"action\":\"Allowed\","
		    "\"disposition_id\":1,\"disposition\":\"Allowed\"");
	else
		JW_LIT(w,
		    ",\"action_id\":2,\"action\":\"Denied\","
		    "\"disposition_id\":2,\"disposition\":\"Blocked\"");
}

void
ocsf_put_conn_info(struct jw *w, const char *uid)
{
	JW_LIT(w,
	    ",\"connection_info\":{\"direction_id\":2,"
	    "\"direction\":\"Outbound\",\"protocol_num\":6,"
	    "\"protocol_name\":\"tcp\"");
	if (nonempty(uid))
		jw_str(w, "uid", uid);
	jw_end(w);
}

/* ---- previews of secrets ---- */

void
ocsf_mask_preview(char *out, size_t out_size, const char *preview)
{
	size_t n = preview != NULL ? strlen(preview) : 0;
	size_t keep = n >= 16 ? 4 : n >= 8 ? 2 : 0;
	size_t stars = n - 2 * keep;
	size_t o = 0;

	if (out_size == 0)
		return;
	if (stars > 32)
		stars = 32;
	if (out_size < 2 * keep + stars + 1) {
		out[0] = '\0';
		return;
	}
	/* Only printable ASCII survives; anything else is masked. */
	for (size_t i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)preview[i];

		out[o++] = c > 0x20 && c < 0x7f ? (char)c : '*';
	}
	for (size_t i = 0; i < stars; i++)
		out[o++] = '*';
	for (size_t i = n - keep; i < n; i++) {
		unsigned char c = (unsigned char)preview[i];

		out[o++] = c > 0x20 && c < 0x7f ? (char)c : '*';
	}
	out[o] = '\0';
}
