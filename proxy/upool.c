/*
 * upool.c: idle upstream connections kept for reuse, per key (one pool
 * per proxy and user: the inference backends, the plain-HTTP upstreams).
 *
 * A connection is put here only by a caller that read its last response
 * completely (exact framing), so nothing of an earlier exchange can be
 * taken for the next one's answer.  An idle connection that speaks,
 * closes or fails is dropped at once; each one is dropped after its idle
 * time.  The most recently returned connection of a key is taken first.
 */
#include "config.h"

#include <string.h>

#include "proxy/proxy-int.h"

struct upool_idle;

struct upool_key {
	struct upool_key *next;
	char *key;
	void *slot; /* the caller's (px_upool_slot) */
	TAILQ_HEAD(upool_idle_list, upool_idle) idle; /* most recent first */
	unsigned nidle;
};

struct upool_idle {
	TAILQ_ENTRY(upool_idle) link;
	struct px_upool *pool;
	struct upool_key *k;
	struct bufferevent *bev;
	struct event *timer;
	struct sockaddr_storage addr;
	bool has_addr;
};

struct px_upool {
	struct event_base *base;
	struct upool_key *keys;
	unsigned nkeys, nidle;
	unsigned max_keys, max_idle;
	void (*slot_free)(void *);
};

struct px_upool *
px_upool_new(struct event_base *base, unsigned max_keys, unsigned max_idle,
    void (*slot_free)(void *))
{
	struct px_upool *pl = axg_calloc(1, sizeof(*pl));

	pl->base = base;
	pl->max_keys = max_keys;
	pl->max_idle = max_idle;
	pl->slot_free = slot_free;
	return pl;
}

static struct upool_key *
key_find(struct px_upool *pl, const char *key, bool create)
{
	struct upool_key *k;

	for (k = pl->keys; k != NULL; k = k->next)
		if (strcmp(k->key, key) == 0)
			return k;
	if (!create || pl->nkeys >= pl->max_keys)
		return NULL;
	k = axg_calloc(1, sizeof(*k));
	k->key = axg_strdup(key);
	TAILQ_INIT(&k->idle);
	k->next = pl->keys;
	pl->keys = k;
	pl->nkeys++;
	return k;
}

void **
px_upool_slot(struct px_upool *pl, const char *key, bool create)
{
	struct upool_key *k = key_find(pl, key, create);

	return k != NULL ? &k->slot : NULL;
}

static void
idle_drop(struct upool_idle *i)
{
	TAILQ_REMOVE(&i->k->idle, i, link);
	i->k->nidle--;
	i->pool->nidle--;
	event_free(i->timer);
	if (i->bev != NULL)
		bufferevent_free(i->bev);
	free(i);
}

static void
idle_readcb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	idle_drop(arg);
}

static void
idle_eventcb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	idle_drop(arg);
}

static void
idle_timercb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	idle_drop(arg);
}

struct bufferevent *
px_upool_take(struct px_upool *pl, const char *key,
    struct sockaddr_storage *addr, bool *has_addr)
{
	struct upool_key *k;
	struct upool_idle *i;
	struct bufferevent *bev;

	if (pl == NULL || pl->nidle == 0 ||
	    (k = key_find(pl, key, false)) == NULL ||
	    (i = TAILQ_FIRST(&k->idle)) == NULL)
		return NULL;
	bev = i->bev;
	i->bev = NULL;
	*addr = i->addr;
	*has_addr = i->has_addr;
	idle_drop(i);
	bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
	return bev;
}

bool
px_upool_put(struct px_upool *pl, const char *key, struct bufferevent *bev,
    const struct sockaddr_storage *addr, bool has_addr, unsigned max,
    unsigned ms)
{
	struct upool_key *k;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct upool_idle *i;

	if (max == 0 || ms == 0 || (k = key_find(pl, key, true)) == NULL ||
	    evbuffer_get_length(bufferevent_get_input(bev)) != 0 ||
	    evbuffer_get_length(bufferevent_get_output(bev)) != 0) {
		bufferevent_free(bev);
		return false;
	}
	while (k->nidle >= max)
		idle_drop(TAILQ_LAST(&k->idle, upool_idle_list));
	if (pl->nidle >= pl->max_idle) {
		bufferevent_free(bev);
		return false;
	}
	i = axg_calloc(1, sizeof(*i));
	i->pool = pl;
	i->k = k;
	i->bev = bev;
	i->addr = *addr;
	i->has_addr = has_addr;
	i->timer = evtimer_new(pl->base, idle_timercb, i);
	TAILQ_INSERT_HEAD(&k->idle, i, link);
	k->nidle++;
	pl->nidle++;
	bufferevent_setcb(bev, idle_readcb, NULL, idle_eventcb, i);
	bufferevent_setwatermark(bev, EV_READ, 0, 0);
	bufferevent_enable(bev, EV_READ);
	evtimer_add(i->timer, &tv);
	return true;
}

unsigned
px_upool_idle(const struct px_upool *pl)
{
	return pl != NULL ? pl->nidle : 0;
}

void
px_upool_free(struct px_upool *pl)
{
	if (pl == NULL)
		return;
	while (pl->keys != NULL) {
		struct upool_key *k = pl->keys;

		while (!TAILQ_EMPTY(&k->idle))
			idle_drop(TAILQ_FIRST(&k->idle));
		if (k->slot != NULL && pl->slot_free != NULL)
			pl->slot_free(k->slot);
		pl->keys = k->next;
		free(k->key);
		free(k);
	}
	free(pl);
}
