/*
 * relay.c: the simplest TCP relay there is, as a ceiling for tunnels.
 *
 *   relay --to PORT [--port N]
 *	Listen on 127.0.0.1:N (default: a free port), print "relay port=N",
 *	and relay every connection to 127.0.0.1:PORT until SIGTERM.
 *
 * Two threads per connection, each copying one direction with blocking
 * read(2) and write(2) through a 256 KiB buffer: no event loop, no
 * policy, no parsing, no accounting.  What a tunnel through it reaches
 * is what any user-space relay placed on the same CPU can hope for
 * (bench-compare.sh measures it beside the proxies; doc/PERFORMANCE.md).
 * Blocking copies beat splice(2) here: measured on the bench machine,
 * the same relay moved 10-40% more with read/write than with splice.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/common.h"

#define BUF_SIZE (256 * 1024)

static int to_port;

struct half {
	int from, to;
};

/* Copy one direction until EOF or an error, then pass the EOF on. */
static void *
copy_half(void *arg)
{
	const struct half *h = arg;
	char *buf = axg_malloc(BUF_SIZE);
	ssize_t n;

	while ((n = read(h->from, buf, BUF_SIZE)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(h->to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				goto out;
			off += w;
		}
	}
out:
	shutdown(h->to, SHUT_WR);
	free(buf);
	return NULL;
}

static void *
serve(void *arg)
{
	int c = (int)(intptr_t)arg, one = 1;
	int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
		.sin_port = htons((uint16_t)to_port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct half up = { c, u }, down = { u, c };
	pthread_t t;

	if (u < 0 || connect(u, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		if (u >= 0)
			close(u);
		close(c);
		return NULL;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (pthread_create(&t, NULL, copy_half, &up) != 0) {
		close(u);
		close(c);
		return NULL;
	}
	copy_half(&down);
	pthread_join(t, NULL);
	close(u);
	close(c);
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sa = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	uint64_t v;
	int l, o, one = 1;
	pthread_attr_t attr;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o != 't' && o != 'p')
			goto usage;
		if (axg_parse_u64(optarg, o == 't' ? 1 : 0, 65535, &v) < 0)
			goto usage;
		if (o == 't')
			to_port = (int)v;
		else
			sa.sin_port = htons((uint16_t)v);
	}
	if (to_port == 0 || optind != argc)
		goto usage;
	signal(SIGPIPE, SIG_IGN);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(l, 1024) != 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &len) != 0) {
		fprintf(stderr, "relay: listen: %s\n", strerror(errno));
		return 1;
	}
	printf("relay port=%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		pthread_t t;
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			fprintf(stderr, "relay: accept: %s\n", strerror(errno));
			return 1;
		}
		if (pthread_create(&t, &attr, serve, (void *)(intptr_t)c) != 0)
			close(c);
	}
usage:
	fprintf(stderr, "usage: relay --to PORT [--port N]\n");
	return 2;
}
