/*
 * sdnotify.c: tell the service manager about our state, without libsystemd.
 *
 * When NOTIFY_SOCKET is set, send a datagram such as "READY=1" to it.  A
 * name starting with '@' is an abstract socket.  Without NOTIFY_SOCKET this
 * does nothing and succeeds.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/common.h"

int
axg_sd_notify(const char *state, char *err, size_t errlen)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t salen;
	size_t plen;
	ssize_t n;
	int fd;

	if (path == NULL || *path == '\0')
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path))
		return axg_seterr(err, errlen,
		    "NOTIFY_SOCKET: not an absolute or abstract socket name");
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen +
	    (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return axg_seterr(err, errlen, "NOTIFY_SOCKET: socket: %s",
		    strerror(errno));
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
	    (struct sockaddr *)&sa, salen);
	close(fd);
	if (n < 0)
		return axg_seterr(err, errlen, "NOTIFY_SOCKET %s: %s", path,
		    strerror(errno));
	return 0;
}
