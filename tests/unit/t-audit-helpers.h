/*
 * t-audit-helpers.h: what the audit tests share: a syslog collector on a
 * real TCP socket (RFC 6587 octet counting) that can stop reading, die and
 * come back, and a runner for the OCSF validator.
 */
#ifndef AXG_T_AUDIT_HELPERS_H
#define AXG_T_AUDIT_HELPERS_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"

struct collector {
	int lfd, cfd;
	unsigned short port;
	pthread_t th;
	pthread_mutex_t mu;
	atomic_bool paused, stop, kill_req, restart_req, alive;
	struct axg_buf in;
	char **msgs; /* the frames' messages */
	size_t nmsgs, cap;
	int bad_frames;
	int connections;
};

static inline int
collector_listen(struct collector *c)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1;

	c->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->lfd < 0)
		return -1;
	setsockopt(c->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(c->port);
	if (bind(c->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(c->lfd, 8) < 0 ||
	    getsockname(c->lfd, (struct sockaddr *)&sa, &sl) < 0) {
		close(c->lfd);
		c->lfd = -1;
		return -1;
	}
	c->port = ntohs(sa.sin_port);
	return 0;
}

/* Parse whole frames out of c->in (called with mu held). */
static inline void
collector_parse(struct collector *c)
{
	size_t pos = 0;

	for (;;) {
		size_t i = pos, len = 0;

		while (i < c->in.len && c->in.data[i] >= '0' &&
		    c->in.data[i] <= '9' && i - pos < 9)
			len = len * 10 + (size_t)(c->in.data[i++] - '0');
		if (i >= c->in.len)
			break;
		if (i == pos || c->in.data[i] != ' ') {
			c->bad_frames++;
			pos = c->in.len;
			break;
		}
		i++;
		if (c->in.len - i < len)
			break;
		if (c->nmsgs == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 1024;
			c->msgs =
			    axg_reallocarray(c->msgs, c->cap, sizeof(*c->msgs));
		}
		c->msgs[c->nmsgs++] = axg_strndup(c->in.data + i, len);
		pos = i + len;
	}
	axg_buf_consume(&c->in, pos);
}

static inline void *
collector_main(void *arg)
{
	struct collector *c = arg;
	char buf[65536];

	while (!atomic_load(&c->stop)) {
		struct pollfd p[2];
		int np = 0;

		if (atomic_load(&c->kill_req)) {
			if (c->cfd >= 0)
				close(c->cfd);
			if (c->lfd >= 0)
				close(c->lfd);
			c->cfd = c->lfd = -1;
			pthread_mutex_lock(&c->mu);
			axg_buf_reset(&c->in);
			pthread_mutex_unlock(&c->mu);
			atomic_store(&c->alive, false);
			atomic_store(&c->kill_req, false);
		}
		if (atomic_load(&c->restart_req)) {
			if (collector_listen(c) == 0)
				atomic_store(&c->alive, true);
			atomic_store(&c->restart_req, false);
		}
		if (c->lfd >= 0 && !atomic_load(&c->paused)) {
			p[np].fd = c->lfd;
			p[np++].events = POLLIN;
		}
		if (c->cfd >= 0 && !atomic_load(&c->paused)) {
			p[np].fd = c->cfd;
			p[np++].events = POLLIN;
		}
		if (np == 0 || poll(p, (nfds_t)np, 10) <= 0) {
			if (np == 0)
				usleep(10000);
			continue;
		}
		for (int i = 0; i < np; i++) {
			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (p[i].fd == c->lfd) {
				int fd =
				    accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC);

				if (fd >= 0) {
					if (c->cfd >= 0)
						close(c->cfd);
					c->cfd = fd;
					pthread_mutex_lock(&c->mu);
					axg_buf_reset(&c->in);
					c->connections++;
					pthread_mutex_unlock(&c->mu);
				}
			} else {
				ssize_t n = read(c->cfd, buf, sizeof(buf));

				if (n <= 0) {
					close(c->cfd);
					c->cfd = -1;
					continue;
				}
				pthread_mutex_lock(&c->mu);
				axg_buf_append(&c->in, buf, (size_t)n);
				collector_parse(c);
				pthread_mutex_unlock(&c->mu);
			}
		}
	}
	return NULL;
}

static inline int
collector_start(struct collector *c)
{
	memset(c, 0, sizeof(*c));
	c->cfd = -1;
	axg_buf_init(&c->in, 0);
	pthread_mutex_init(&c->mu, NULL);
	if (collector_listen(c) < 0)
		return -1;
	atomic_store(&c->alive, true);
	return pthread_create(&c->th, NULL, collector_main, c) == 0 ? 0 : -1;
}

static inline size_t
collector_count(struct collector *c)
{
	size_t n;

	pthread_mutex_lock(&c->mu);
	n = c->nmsgs;
	pthread_mutex_unlock(&c->mu);
	return n;
}

/* Wait until the collector holds at least n messages, up to ms. */
static inline bool
collector_wait(struct collector *c, size_t n, unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 10) {
		if (collector_count(c) >= n)
			return true;
		usleep(10000);
	}
	return collector_count(c) >= n;
}

static inline void
collector_kill(struct collector *c)
{
	atomic_store(&c->kill_req, true);
	while (atomic_load(&c->kill_req))
		usleep(1000);
}

static inline void
collector_restart(struct collector *c)
{
	atomic_store(&c->restart_req, true);
	while (atomic_load(&c->restart_req))
		usleep(1000);
}

static inline void
collector_stop(struct collector *c)
{
	atomic_store(&c->stop, true);
	pthread_join(c->th, NULL);
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->lfd >= 0)
		close(c->lfd);
	for (size_t i = 0; i < c->nmsgs; i++)
		free(c->msgs[i]);
	free(c->msgs);
	axg_buf_free(&c->in);
	pthread_mutex_destroy(&c->mu);
}

/* Run the validator on path: its exit status, -1 if it could not run, or
 * -2 if AXG_SHARED_DIR has no validator (the caller skips). */
static inline int
run_validator(const char *path, char *out, size_t outsz)
{
	const char *shared = getenv("AXG_SHARED_DIR");
	char validator[4096];
	int pfd[2], status;
	pid_t pid;
	size_t got = 0;
	ssize_t r;

	out[0] = '\0';
	if (shared == NULL || shared[0] == '\0')
		return -2;
	snprintf(validator, sizeof(validator), "%s/ocsf/ocsf-validate", shared);
	if (access(validator, X_OK) != 0)
		return -2;
	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execl(validator, validator, path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (got + 1 < outsz &&
	    (r = read(pfd[0], out + got, outsz - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* AXG_T_AUDIT_HELPERS_H */
