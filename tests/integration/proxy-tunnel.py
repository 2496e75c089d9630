#!/usr/bin/env python3
# CONNECT tunnels through a real `axgate serve` once they are established
# (the spliced relay): a large transfer both ways with checksums, half-close
# in each direction with data still in flight, a client that never reads
# (the proxy's memory and pipes stay bounded), the idle timeout, and the
# pipe pool (no pipe held by an idle tunnel, the worker's descriptors back
# to where they were once the tunnels close).  Prints TAP.

import hashlib
import importlib.util
import os
import shutil
import socket
import sys
import tempfile
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "proxy_harness", os.path.join(here, "proxy-harness.py"))
H = importlib.util.module_from_spec(spec)
spec.loader.exec_module(H)

MB = 1024 * 1024
# long enough that a slow test thread on a loaded machine is not idle
IDLE_MS = 3000


def pattern(seed, n):
    """n deterministic bytes (a repeated 1 MiB block derived from seed)."""
    block = hashlib.sha256(seed.encode()).digest() * (MB // 32)
    out = bytearray()
    while len(out) < n:
        out += block[:n - len(out)]
    return bytes(out)


def send_all(s, data, shut=True):
    view = memoryview(data)
    for off in range(0, len(data), 256 * 1024):
        s.sendall(view[off:off + 256 * 1024])
    if shut:
        s.shutdown(socket.SHUT_WR)


def read_to_eof(s, timeout=60):
    """(sha256 hex, length) of everything until EOF."""
    h = hashlib.sha256()
    n = 0
    s.settimeout(timeout)
    while True:
        d = s.recv(1024 * 1024)
        if not d:
            return h.hexdigest(), n
        h.update(d)
        n += len(d)


def Upstream(handler):
    """A listener whose connections each run handler(up, conn, n); what
    it returns is taken with up.result() (the harness's Server, with no
    socket timeout: each handler sets its own)."""
    return H.Server(handler, timeout=None)


# ---- the upstream behaviours ----

BIG = 50 * MB
UP_DATA = pattern("down", BIG)
UP_SUM = hashlib.sha256(UP_DATA).hexdigest()
CLI_DATA = pattern("up", BIG)
CLI_SUM = hashlib.sha256(CLI_DATA).hexdigest()


def both_ways(up, c, n):
    """Send BIG bytes and read the client's, at the same time."""
    t = threading.Thread(target=send_all, args=(c, UP_DATA))
    t.start()
    got = read_to_eof(c)
    t.join()
    return got


TAIL = pattern("tail", 2 * MB)
EARLY = pattern("early", 8 * MB)
POOL = pattern("pool", MB)


def reply_after_eof(up, c, n):
    """Read until the client's FIN, then answer with the digest and a
    2 MiB tail, then close."""
    got = read_to_eof(c)
    send_all(c, ("%s %d\n" % got).encode() + TAIL)
    return got


def fin_first(up, c, n):
    """Send 8 MiB and FIN at once, then read the client until its FIN."""
    send_all(c, EARLY)
    return read_to_eof(c)


def firehose(up, c, n):
    """Send until the peer stops taking bytes (or 30 s)."""
    c.settimeout(0.5)
    chunk = b"z" * (256 * 1024)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            k = c.send(chunk)
        except socket.timeout:
            continue
        except OSError:
            break
        up.stats["sent"] = up.stats.get("sent", 0) + k
    return "done"


def echo(up, c, n):
    c.settimeout(60)
    while True:
        d = c.recv(65536)
        if not d:
            return "eof"
        c.sendall(d)


def connect(d, port, timeout=10):
    """A CONNECT tunnel to 127.0.0.1:port; the socket after the 200."""
    s = socket.create_connection(("127.0.0.1", d.port), timeout=timeout)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
              % (port, port))
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            raise OSError("closed before the 200")
        head += b
    if not head.startswith(b"HTTP/1.1 200"):
        raise OSError("not a 200: %r" % head[:40])
    return s


def proc_status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def nfds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def finals(d, n0=0):
    """The records since n0 that end a connection (not the Open that a
    tunnel writes at its 200)."""
    return [r for r in d.records() if r.get("activity_name") != "Open"][n0:]


def main():
    if os.geteuid() != 0:
        H.skip_all("serve drops to an unprivileged user: needs root")
    tap = H.Tap()
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    d = None
    ups = []
    try:
        dns = H.DnsServer()
        ups = [Upstream(both_ways), Upstream(reply_after_eof),
               Upstream(fin_first), Upstream(firehose), Upstream(echo)]
        big, after_eof, early, hose, ech = ups
        policy = """version: 1
name: tunnel
network:
  mode: proxy
  policies:
    - name: loop
      endpoints:
        - {cidr: 127.0.0.1/32, ports: [%s]}
""" % ", ".join(str(u.port) for u in ups)
        d = H.Daemon(tmp, "d", policy, dns.port,
                     limits={"idle_timeout_ms": IDLE_MS})
        if not tap.ok(d.ok(), "axgate serve starts", d.read_log()):
            return tap.done()
        pid = d.proc.pid

        # ---- 50 MiB both ways ----
        n0 = len(finals(d))
        b0 = d.metric("axgate_bytes_total")
        s = connect(d, big.port, timeout=120)
        t = threading.Thread(target=send_all, args=(s, CLI_DATA))
        t.start()
        got = read_to_eof(s, 120)
        t.join()
        s.close()
        tap.ok(got == (UP_SUM, BIG),
               "50 MiB upstream -> client intact (sha256)", got)
        tap.ok(big.result() == (CLI_SUM, BIG),
               "50 MiB client -> upstream intact (sha256)")
        H.poll(lambda: len(finals(d)) > n0, 10)
        time.sleep(0.3)
        recs = finals(d, n0)
        tap.ok(len(recs) == 1, "50 MiB tunnel: exactly one audit record",
               recs)
        if recs:
            r = recs[0]
            tap.ok(r.get("traffic", {}).get("bytes_out") == BIG and
                   r.get("traffic", {}).get("bytes_in") == BIG,
                   "the record counts 50 MiB each way", r.get("traffic"))
        else:
            tap.ok(False, "the record counts 50 MiB each way")
        H.poll(lambda: d.metric("axgate_bytes_total") - b0 >= 2 * BIG, 3)
        tap.ok(d.metric("axgate_bytes_total") - b0 == 2 * BIG,
               "/metrics counts the 100 MiB relayed",
               d.metric("axgate_bytes_total") - b0)

        # ---- half-close, client first, data in flight ----
        n0 = len(finals(d))
        s = connect(d, after_eof.port)
        msg = pattern("half", 4 * MB)
        send_all(s, msg)  # FIN right behind 4 MiB still in flight
        s.settimeout(30)
        rest = b""
        while True:
            x = s.recv(1024 * 1024)
            if not x:
                break
            rest += x
        s.close()
        line, _, tail = rest.partition(b"\n")
        want = ("%s %d" % (hashlib.sha256(msg).hexdigest(), len(msg)))
        tap.ok(line.decode(errors="replace") == want,
               "client FIN after 4 MiB: upstream got all of it, then EOF")
        tap.ok(tail == TAIL,
               "the upstream's answer after the client's FIN comes back "
               "whole")
        H.poll(lambda: len(finals(d)) > n0, 10)
        tap.ok(len(finals(d)) - n0 == 1, "half-close: one record")

        # ---- half-close, upstream first, data in flight ----
        n0 = len(finals(d))
        s = connect(d, early.port)
        got = read_to_eof(s, 30)
        tap.ok(got == (hashlib.sha256(EARLY).hexdigest(),
                       8 * MB),
               "upstream FIN after 8 MiB: the client got all of it, then "
               "EOF")
        msg = pattern("late", 3 * MB)
        send_all(s, msg)
        tap.ok(early.result() == (hashlib.sha256(msg).hexdigest(), len(msg)),
               "the client's 3 MiB after the upstream's FIN reach it")
        s.close()
        H.poll(lambda: len(finals(d)) > n0, 10)
        tap.ok(len(finals(d)) - n0 == 1, "reverse half-close: one record")

        # ---- the pipe pool ----
        # warm up, then the baseline: descriptors less the pooled pipes
        s = connect(d, ech.port)
        s.sendall(b"x" * 65536)
        read_n(s, 65536)
        s.close()
        H.poll(lambda: d.metric("axgate_connections_active") == 0, 5)
        time.sleep(1.2)  # the stats are sampled each tick

        def fds_less_pool():
            return nfds(pid) - 2 * int(
                d.metric('axgate_tunnel_pipes{state="pooled"}'))

        base_fds = fds_less_pool()
        socks = []
        for i in range(20):
            s = connect(d, ech.port)
            socks.append(s)
        for s in socks:
            s.sendall(POOL)
        for s in socks:
            tap_ok = read_n(s, MB) == POOL
            if not tap_ok:
                break
        tap.ok(tap_ok, "20 tunnels each echo 1 MiB intact")
        time.sleep(1.2)
        busy = d.metric('axgate_tunnel_pipes{state="busy"}')
        tap.ok(busy == 0, "20 idle tunnels hold no pipe (busy=%d)" % busy)
        tap.ok(fds_less_pool() == base_fds + 40,
               "20 idle tunnels: two sockets each and no pipes "
               "(%d -> %d descriptors)" % (base_fds, fds_less_pool()))
        tap.ok(d.metric('axgate_tunnel_pipes{state="pooled"}') <= 32,
               "the pool is bounded")
        for s in socks:
            s.close()
        H.poll(lambda: d.metric("axgate_connections_active") == 0, 5)
        time.sleep(1.2)
        tap.ok(fds_less_pool() == base_fds,
               "tunnels closed: the worker's descriptors are back to the "
               "baseline (%d, %d)" % (base_fds, fds_less_pool()))

        # ---- a client that never reads ----
        n0 = len(finals(d))
        rss0 = proc_status(pid, "VmRSS")
        fd0 = nfds(pid)
        s = connect(d, hose.port)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        # keep the tunnel from idling out while the firehose is blocked
        sent = []
        for _ in range(8):
            time.sleep(0.25)
            s.sendall(b"k")
            sent.append(hose.stats.get("sent", 0))
        time.sleep(0.5)
        s.sendall(b"k")
        later = hose.stats.get("sent", 0)
        rss1 = proc_status(pid, "VmRSS")
        busy = d.metric('axgate_tunnel_pipes{state="busy"}')
        tap.ok(later == sent[-1] and later < 64 * MB,
               "a client that never reads: the upstream is held back "
               "(%d bytes taken, then no more)" % later)
        tap.ok(rss1 - rss0 < 4096,
               "the proxy's memory stays bounded (VmRSS %+d KiB)" %
               (rss1 - rss0))
        tap.ok(busy <= 2 and nfds(pid) - fd0 <= 2 + 2 * busy,
               "and so do its pipes (%d busy, %+d descriptors)" %
               (busy, nfds(pid) - fd0))
        s.close()
        H.poll(lambda: len(finals(d)) > n0, 10)
        tap.ok(len(finals(d)) - n0 == 1, "never-read tunnel: one record")

        # ---- the idle timeout of a spliced tunnel ----
        n0 = len(finals(d))
        s = connect(d, ech.port)
        s.sendall(b"ping")
        tap.ok(read_n(s, 4) == b"ping", "idle: the tunnel echoes")
        for _ in range(8):  # 4 s of activity: longer than the timeout
            time.sleep(0.5)
            s.sendall(b"p")
            read_n(s, 1)
        tap.ok(len(finals(d)) == n0,
               "a tunnel with traffic outlives the idle timeout")
        t0 = time.monotonic()
        s.settimeout(15)
        try:
            eof = s.recv(1) == b""
        except OSError:
            eof = True
        waited = time.monotonic() - t0
        tap.ok(eof and 2.0 < waited < 9,
               "a silent spliced tunnel is closed by the idle timeout "
               "(%.1f s)" % waited)
        s.close()
        H.poll(lambda: len(finals(d)) > n0, 5)
        recs = finals(d, n0)
        tap.ok(len(recs) == 1 and "idle" in str(recs[0]),
               "idle: one record, stage idle", recs)
    finally:
        if d is not None:
            d.stop()
        for u in ups:
            u.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


def read_n(s, n, timeout=30):
    s.settimeout(timeout)
    buf = bytearray()
    while len(buf) < n:
        x = s.recv(n - len(buf))
        if not x:
            break
        buf += x
    return bytes(buf)


if __name__ == "__main__":
    sys.exit(main())
