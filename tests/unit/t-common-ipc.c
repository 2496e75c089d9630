/* Unit tests of common/ipc.c and common/sdnotify.c over real sockets. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/common.h"
#include "tests/tap.h"

enum { T_HELLO = 1, T_FILE = 2, T_BIG = 3 };

static const struct axg_ipc_bound bounds[] = {
	{ T_HELLO, 1, 64, false },
	{ T_FILE, 0, 0, true },
	{ T_BIG, 0, AXG_IPC_MAX_PAYLOAD, false },
};

static struct axg_ipc_msg msg;

static void
test_roundtrip(int s[2])
{
	char err[256];
	int rc;

	ok(axg_ipc_send(s[0], T_HELLO, "hello", 5, -1, err, sizeof(err)) == 0,
	    "send a small message");
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == 0 && msg.type == T_HELLO && msg.len == 5 &&
		memcmp(msg.data, "hello", 5) == 0 && msg.fd == -1,
	    "it arrives whole, with its type and no descriptor");
}

static void
test_fd_passing(int s[2])
{
	char err[256], buf[8] = "";
	int pfd[2], rc;

	if (pipe(pfd) < 0) {
		ok(0, "pipe");
		return;
	}
	ok(axg_ipc_send(s[0], T_FILE, NULL, 0, pfd[0], err, sizeof(err)) == 0,
	    "send a descriptor");
	close(pfd[0]);
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == 0 && msg.fd >= 0, "the descriptor arrives");
	if (msg.fd >= 0) {
		(void)write(pfd[1], "ping", 4);
		ok(read(msg.fd, buf, 4) == 4 && memcmp(buf, "ping", 4) == 0,
		    "and reads from the same pipe");
		ok(fcntl(msg.fd, F_GETFD) & FD_CLOEXEC,
		    "received descriptors are close-on-exec");
		close(msg.fd);
	}
	close(pfd[1]);
}

static void
test_refusals(int s[2])
{
	char err[256];
	int pfd[2], rc;
	static char big[AXG_IPC_MAX_PAYLOAD + 1];

	/* Too long for its type. */
	axg_ipc_send(s[0], T_HELLO, big, 65, -1, err, sizeof(err));
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == -1, "a message longer than its type allows is refused");
	like_str(err, "type 1 has 65 bytes, expected 1 to 64", "and says why");

	/* Unknown type. */
	axg_ipc_send(s[0], 99, "x", 1, -1, err, sizeof(err));
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == -1, "an unexpected type is refused");
	like_str(err, "unexpected message type 99", "and named");

	/* A descriptor where none belongs is refused and closed. */
	if (pipe(pfd) == 0) {
		axg_ipc_send(s[0], T_HELLO, "hi", 2, pfd[0], err, sizeof(err));
		rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg,
		    err, sizeof(err));
		ok(rc == -1 && msg.fd == -1,
		    "a stray descriptor is refused and not handed out");
		close(pfd[0]);
		close(pfd[1]);
	}

	/* A descriptor missing where one must come. */
	axg_ipc_send(s[0], T_FILE, NULL, 0, -1, err, sizeof(err));
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == -1, "a missing descriptor is refused");

	/* A forged header: length field disagrees with the bytes. */
	{
		uint32_t forged[3] = { T_HELLO, 40, 0 };

		send(s[0], forged, sizeof(forged), 0);
		rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg,
		    err, sizeof(err));
		ok(rc == -1, "a header that lies about its length is refused");
		like_str(err, "says 40 bytes but carries 4", "and says so");
	}
	/* A runt shorter than the header. */
	send(s[0], "ab", 2, 0);
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == -1, "a runt message is refused");

	ok(axg_ipc_send(s[0], T_BIG, big, sizeof(big), -1, err, sizeof(err)) ==
		-1,
	    "the sender refuses a payload over the limit");
	ok(axg_ipc_send(s[0], T_BIG, big, AXG_IPC_MAX_PAYLOAD, -1, err,
	       sizeof(err)) == 0,
	    "a payload of exactly the limit is sent");
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	ok(rc == 0 && msg.len == AXG_IPC_MAX_PAYLOAD, "and received whole");

	close(s[0]);
	rc = axg_ipc_recv(s[1], bounds, AXG_ARRAY_LEN(bounds), &msg, err,
	    sizeof(err));
	is_int(rc, 1, "a closed peer is reported as such");
}

static void
test_sd_notify(void)
{
	char dir[] = "/tmp/t-sdnotify-XXXXXX", path[128], buf[64], err[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	ssize_t n;
	int fd;

	unsetenv("NOTIFY_SOCKET");
	ok(axg_sd_notify("READY=1", err, sizeof(err)) == 0,
	    "without NOTIFY_SOCKET nothing is sent and all is well");
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	axg_strlcpy(sa.sun_path, path, sizeof(sa.sun_path));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ok(0, "bind");
		return;
	}
	setenv("NOTIFY_SOCKET", path, 1);
	ok(axg_sd_notify("READY=1", err, sizeof(err)) == 0, "notify READY=1");
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf, "READY=1", "the manager's socket receives the state");
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	ok(axg_sd_notify("READY=1", err, sizeof(err)) == -1,
	    "a relative NOTIFY_SOCKET is refused");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	int s[2];
	char err[256];

	if (axg_ipc_pair(s, err, sizeof(err)) < 0) {
		tap_diag("%s", err);
		return 1;
	}
	test_roundtrip(s);
	test_fd_passing(s);
	test_refusals(s);
	close(s[1]);
	test_sd_notify();
	return tap_done();
}
