/*
 * ipc.c: typed, length-checked messages between axgate's processes.
 *
 * The privileged parent and the unprivileged proxy talk over a
 * SOCK_SEQPACKET socketpair, so every message arrives whole or not at all.
 * A message is a fixed header (type, payload length) and a payload, with at
 * most one file descriptor passed alongside (SCM_RIGHTS).  The receiver
 * checks every length against the header and against the bounds its caller
 * gives for the message type, and refuses truncated messages and stray
 * descriptors.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/common.h"

struct ipc_hdr {
	uint32_t type;
	uint32_t len;
};

int
axg_ipc_pair(int fds[2], char *err, size_t errlen)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
		return axg_seterr(err, errlen, "socketpair: %s",
		    strerror(errno));
	return 0;
}

int
axg_ipc_send(int sock, uint32_t type, const void *data, size_t len, int fd,
    char *err, size_t errlen)
{
	struct ipc_hdr h = { type, (uint32_t)len };
	struct iovec iov[2] = {
		{ &h, sizeof(h) },
		{ (void *)(uintptr_t)data, len },
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct msghdr msg = { 0 };
	ssize_t n;

	if (len > AXG_IPC_MAX_PAYLOAD)
		return axg_seterr(err, errlen,
		    "ipc: message type %u of %zu bytes is over the %u-byte "
		    "limit",
		    type, len, AXG_IPC_MAX_PAYLOAD);
	msg.msg_iov = iov;
	msg.msg_iovlen = len > 0 ? 2 : 1;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = sizeof(cbuf.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return axg_seterr(err, errlen, "ipc: send type %u: %s", type,
		    strerror(errno));
	if ((size_t)n != sizeof(h) + len)
		return axg_seterr(err, errlen, "ipc: short send of type %u",
		    type);
	return 0;
}

int
axg_ipc_recv(int sock, const struct axg_ipc_bound *bounds, size_t nbounds,
    struct axg_ipc_msg *out, char *err, size_t errlen)
{
	struct ipc_hdr h;
	struct iovec iov[2] = {
		{ &h, sizeof(h) },
		{ out->data, sizeof(out->data) },
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} cbuf;
	struct msghdr msg = { 0 };
	struct cmsghdr *c;
	const struct axg_ipc_bound *b = NULL;
	ssize_t n;
	int nfds = 0;

	out->fd = -1;
	out->len = 0;
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	msg.msg_control = cbuf.buf;
	msg.msg_controllen = sizeof(cbuf.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return axg_seterr(err, errlen, "ipc: receive: %s",
		    strerror(errno));
	if (n == 0) {
		axg_seterr(err, errlen, "ipc: peer closed the channel");
		return 1;
	}
	/* Take every descriptor that came, so none leaks on refusal. */
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
			    sizeof(int));
			if (nfds++ == 0)
				out->fd = fd;
			else
				close(fd);
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		axg_seterr(err, errlen, "ipc: truncated message refused");
		goto bad;
	}
	if ((size_t)n < sizeof(h)) {
		axg_seterr(err, errlen,
		    "ipc: message of %zd bytes is shorter "
		    "than its header",
		    n);
		goto bad;
	}
	if (h.len != (size_t)n - sizeof(h)) {
		axg_seterr(err, errlen,
		    "ipc: message type %u says %u bytes but carries %zu",
		    h.type, h.len, (size_t)n - sizeof(h));
		goto bad;
	}
	for (size_t i = 0; i < nbounds; i++)
		if (bounds[i].type == h.type) {
			b = &bounds[i];
			break;
		}
	if (b == NULL) {
		axg_seterr(err, errlen, "ipc: unexpected message type %u",
		    h.type);
		goto bad;
	}
	if (h.len < b->min_len || h.len > b->max_len) {
		axg_seterr(err, errlen,
		    "ipc: message type %u has %u bytes, expected %zu to %zu",
		    h.type, h.len, b->min_len, b->max_len);
		goto bad;
	}
	if (nfds > 1 || (nfds == 1) != b->with_fd) {
		axg_seterr(err, errlen,
		    "ipc: message type %u came with %d descriptors, expected "
		    "%d",
		    h.type, nfds, b->with_fd ? 1 : 0);
		goto bad;
	}
	out->type = h.type;
	out->len = h.len;
	return 0;
bad:
	if (out->fd >= 0)
		close(out->fd);
	out->fd = -1;
	return -1;
}
