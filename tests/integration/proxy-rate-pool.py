#!/usr/bin/env python3
# Plain HTTP through a real `axgate serve` on kept upstream connections:
# an upstream connection is reused only after a response with exact
# framing (Content-Length, chunked); never after "Connection: close", an
# HTTP/1.0 answer, a close-delimited body or a request with a body that
# failed; a kept connection the upstream closed meanwhile is replaced
# without the client noticing; each request is still decided by the
# policy (a reload that denies the upstream refuses the next request
# although a connection to it is kept) and writes exactly one audit
# record.  Prints TAP.

import importlib.util
import os
import socket
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "proxy_harness", os.path.join(here, "proxy-harness.py"))
H = importlib.util.module_from_spec(spec)
spec.loader.exec_module(H)


class Upstream(H.Server):
    """An HTTP/1.1 server whose answer depends on the path; it records
    (connection number, path) for every request it reads."""

    ANSWERS = {
        "/ka": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "/chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    b"2\r\nok\r\n0\r\n\r\n",
        "/close": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                  b"Connection: close\r\n\r\nok",
        "/h10": b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n"
                b"Connection: keep-alive\r\n\r\nok",
        "/eof": b"HTTP/1.1 200 OK\r\n\r\nok",
        "/drop": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "/post": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "/badchunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                     b"\r\nzz\r\nok\r\n0\r\n\r\n",
    }

    def __init__(self):
        self.log = []
        H.Server.__init__(self, timeout=None)

    def handle(self, c, n):
        buf = b""
        while True:
            r = H.read_request(c, buf, 4096)
            if r is None:
                return
            head, _, buf = r
            path = head.split(b"\r\n")[0].split(b" ")[1].decode()
            with self.lock:
                self.log.append((n, path))
            c.sendall(self.ANSWERS.get(path, self.ANSWERS["/ka"]))
            if path in ("/close", "/h10", "/eof"):
                return
            if path == "/drop":
                time.sleep(0.2)  # then the idle connection goes away
                return

    def last(self):
        with self.lock:
            return self.log[-1] if self.log else None


def read_response(s):
    """One response on s as it came (head, blank line, body); what came
    before a reset or the end."""
    head, body, _ = H.read_response(s, b"", 4096)
    if head is None:
        return body
    return head + b"\r\n\r\n" + body


def request(s, port, path, body=None):
    if body is None:
        s.sendall(b"GET http://127.0.0.1:%d%s HTTP/1.1\r\n"
                  b"Host: 127.0.0.1:%d\r\n\r\n" % (port, path.encode(), port))
    else:
        s.sendall(b"POST http://127.0.0.1:%d%s HTTP/1.1\r\n"
                  b"Host: 127.0.0.1:%d\r\nContent-Length: %d\r\n\r\n%s" % (
                      port, path.encode(), port, len(body), body))
    return read_response(s)


def main():
    if os.geteuid() != 0:
        H.skip_all("serve drops to an unprivileged user: needs root")
    tap = H.Tap()
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    up = Upstream()
    policy = ("version: 1\nname: %s\nnetwork:\n  mode: proxy\n"
              "  policies:\n    - name: upstream\n      endpoints:\n"
              "        - {host: 127.0.0.1, port: %d}\n"
              "        - {cidr: 127.0.0.1/32, port: %d}\n")
    d = H.Daemon(tmp, "pool", policy % ("pool-open", up.port, up.port), 9,
                 listen6="127.0.0.1:0")
    if not d.ok():
        tap.ok(False, "axgate serve starts", d.read_log())
        return tap.done()
    nreq = 0
    try:
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)

        def go(path, body=None):
            nonlocal nreq
            nreq += 1
            r = request(s, up.port, path, body)
            return r, up.last()

        r1, a = go("/ka")
        r2, b = go("/ka")
        tap.ok(r1.startswith(b"HTTP/1.1 200") and r2.startswith(
            b"HTTP/1.1 200") and r2.endswith(b"ok"),
            "two requests on one client connection are answered")
        tap.ok(a[0] == b[0],
               "the second goes on the upstream connection the first used",
               "%r %r" % (a, b))
        r, c = go("/chunked")
        tap.ok(r.endswith(b"0\r\n\r\n") and c[0] == a[0],
               "a chunked answer is relayed on the same upstream connection",
               "%r %r" % (r, c))
        r, e = go("/ka")
        tap.ok(e[0] == a[0], "and the connection is kept after it (exact "
               "framing)", "%r" % (e,))
        H.poll(lambda: d.metric("axgate_upstream_reused_total") >= 3, 5)
        n = d.metric("axgate_upstream_reused_total")
        tap.ok(n == 3, "/metrics counts the 3 requests sent on a kept "
               "upstream connection", "%r" % n)

        for path, what in (("/close", "Connection: close"),
                           ("/h10", "an HTTP/1.0 answer"),
                           ("/eof", "a body ended by the close")):
            r, x = go(path)
            if path == "/eof":
                # a close-delimited body ends the client connection too
                s.close()
                s = socket.create_connection(("127.0.0.1", d.port),
                                             timeout=10)
            r, y = go("/ka")
            tap.ok(r.startswith(b"HTTP/1.1 200") and y[0] != x[0],
                   "no reuse after %s" % what, "%r %r" % (x, y))

        # a response the proxy cannot frame (a bad chunk size) ends both
        # connections; the next request dials anew
        r, x = go("/badchunk")
        s.close()
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        r, y = go("/ka")
        tap.ok(r.startswith(b"HTTP/1.1 200") and y[0] != x[0],
               "no reuse after an upstream framing error", "%r %r" % (x, y))

        # a request with a body: sent on its own new connection, which is
        # kept after a complete answer
        r, p = go("/post", b"x" * 100)
        r2, q = go("/ka")
        tap.ok(r.startswith(b"HTTP/1.1 200") and p[0] != y[0] and
               q[0] == p[0],
               "a request with a body is answered and its connection kept",
               "%r %r %r" % (y, p, q))

        # the upstream closes the kept connection: the next request goes on
        # a new one, answered once, with no error for the client
        r, x = go("/drop")
        time.sleep(0.6)
        before = len(up.log)
        r, y = go("/ka")
        tap.ok(r.startswith(b"HTTP/1.1 200") and r.endswith(b"ok") and
               y[0] != x[0] and len(up.log) == before + 1,
               "a kept connection the upstream closed is replaced, the "
               "request sent once", "%r %r %r" % (r, x, y))
        s.close()

        # the same race, without the wait: the request may reach the
        # closing connection; it is then sent again on a new one
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        bad = 0
        for i in range(5):
            r, x = go("/drop")
            time.sleep(0.19)
            r, y = go("/ka")
            if not r.startswith(b"HTTP/1.1 200"):
                bad += 1
        tap.ok(bad == 0, "requests racing the upstream's close all get "
               "their answer", "%d failed" % bad)
        s.close()

        # an HTTP/1.0 client asking for keep-alive is answered with
        # "Connection: close" and its connection ends (RFC 9112 9.3)
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        nreq += 1
        s.sendall(b"GET http://127.0.0.1:%d/ka HTTP/1.0\r\n"
                  b"Connection: keep-alive\r\n\r\n" % up.port)
        r = read_response(s)
        try:
            rest = s.recv(1)
        except OSError:
            rest = b"?"
        s.close()
        tap.ok(r.startswith(b"HTTP/1.1 200") and
               b"\r\nConnection: close\r\n" in r and rest == b"",
               "an HTTP/1.0 client's keep-alive is refused: close, then EOF",
               "%r %r" % (r, rest))

        # one audit record per request
        H.poll(lambda: len([r for r in d.records()
                            if r.get("class_uid") == 4002]) >= nreq, 5)
        http = [r for r in d.records() if r.get("class_uid") == 4002]
        tap.ok(len(http) == nreq, "one audit record per request (%d)" % nreq,
               "%d records" % len(http))

        # keep one connection to the upstream, then deny it by a reload:
        # the next request is refused by the new policy, the kept
        # connection notwithstanding, and nothing reaches the upstream
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        go("/ka")
        s.close()
        before = len(up.log)
        with open(d.policy, "w") as fh:
            fh.write(policy.replace("127.0.0.1, port", "127.0.0.9, port") % (
                "pool-tight", up.port, up.port + 1))
        nlog = d.read_log().count("policy pool-tight")
        d.sighup()
        tap.ok(H.poll(lambda: d.read_log().count("policy pool-tight") > nlog,
                      10), "SIGHUP loads a policy denying the upstream")
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        nreq += 1
        r = request(s, up.port, "/ka")
        s.close()
        time.sleep(0.2)
        tap.ok(r.startswith(b"HTTP/1.1 403") and len(up.log) == before,
               "a request to the kept upstream is decided again and denied",
               "%r %d %d" % (r[:60], len(up.log), before))
        H.poll(lambda: len([r for r in d.records()
                            if r.get("class_uid") == 4002]) >= nreq, 5)
        http = [r for r in d.records() if r.get("class_uid") == 4002]
        tap.ok(len(http) == nreq and http[-1].get("action") == "Denied" and
               (http[-1].get("policy") or {}).get("name") == "pool-tight",
               "its one record says denied by the new policy",
               "%r" % (http[-1:],))
    finally:
        rc = d.stop()
        tap.ok(rc == 0, "serve exits cleanly on SIGTERM", d.read_log()[-2000:])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
