# proxy-harness.py: what the proxy's end-to-end suites share (standard
# library only).  A DNS server the test controls, listeners that count the
# connections they accept, plain and TLS upstreams, an `axgate serve` daemon
# with its audit file, raw clients and TAP output.
#
# Loaded with importlib by proxy-abuse.py, proxy-matrix.py, proxy-tunnel.py,
# proxy-rate-pool.py and inference-abuse.py.  What is here:
#   Tap, skip_all, poll            TAP output; waiting for a condition
#   DnsServer                      UDP DNS answering from a table
#   Server                         a TCP upstream or backend: a listener
#                                  with a deep backlog, one thread and
#                                  handler(server, conn, n) per connection,
#                                  counters, a clean stop (close)
#   read_request, read_response    one HTTP/1.1 request or response off
#                                  a connection
#   dechunk                        the payload of a chunked body
#   Counter                        a Server answering 200, echo, silent
#                                  or close, counting accepts and requests
#   make_ca, server_ctx            a test CA and a TLS server context
#   Daemon                         `axgate serve` with its audit and admin
#   recv_all, exchange, curl       raw and curl clients
#   validate                       the shared OCSF validator
#   sentinel, case_records, ...    a case's audit records
#   rss_kb, RssWatch               the memory of a process tree

import json
import os
import select
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time

# ---------------------------------------------------------------- TAP


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None):
        self.n += 1
        name = name.replace("\n", " ").replace("#", "\\#")
        if cond:
            print("ok %d - %s" % (self.n, name), flush=True)
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name), flush=True)
            if diag:
                for line in str(diag).splitlines()[:20]:
                    print("# " + line, flush=True)
        return cond

    def todo(self, cond, name, why, diag=None):
        """A known gap: reported as TODO while it fails, a plain pass
        once it holds."""
        if cond:
            return self.ok(True, name)
        self.n += 1
        name = name.replace("\n", " ").replace("#", "\\#")
        print("not ok %d - %s # TODO %s" % (self.n, name, why), flush=True)
        if diag:
            for line in str(diag).splitlines()[:5]:
                print("# " + line, flush=True)
        return cond

    def diag(self, msg):
        for line in str(msg).splitlines():
            print("# " + line, flush=True)

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why), flush=True)

    def done(self):
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0


def skip_all(why):
    print("1..0 # SKIP " + why, flush=True)
    sys.exit(0)


def poll(pred, timeout=10.0, step=0.01):
    """Call pred until it is true or timeout seconds passed."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= end:
            return v
        time.sleep(step)
        step = min(step * 1.5, 0.1)


# ---------------------------------------------------------------- DNS

QTYPE = {1: "A", 28: "AAAA", 5: "CNAME"}


class DnsServer:
    """UDP DNS on 127.0.0.1 answering from a table.

    table[name] = {"A": [[addr, ...], ...], "AAAA": [...], "ttl": 0,
                   "mode": None|"silent"|"nxdomain"|"servfail"|"truncated",
                   "cname": "other.name"}
    Each list of answers is used in turn (the last repeats), so a name can
    answer public first and private after.  Unknown names get NXDOMAIN.
    queries[(name, type)] counts the questions."""

    def __init__(self):
        self.table = {}
        self.queries = {}
        self.lock = threading.Lock()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def set(self, name, **kw):
        with self.lock:
            e = {"A": [], "AAAA": [], "ttl": 0, "mode": None, "cname": None}
            e.update(kw)
            self.table[name.lower()] = e

    def count(self, name, qtype=None):
        with self.lock:
            return sum(v for (n, t), v in self.queries.items()
                       if n == name.lower() and (qtype is None or t == qtype))

    def run(self):
        while not self.stop:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            try:
                reply = self.answer(data)
            except Exception:  # a malformed question: no answer
                reply = None
            if reply is not None:
                try:
                    self.sock.sendto(reply, peer)
                except OSError:
                    pass

    @staticmethod
    def qname(data, off):
        labels = []
        while True:
            ln = data[off]
            off += 1
            if ln == 0:
                break
            labels.append(data[off:off + ln].decode("ascii", "replace"))
            off += ln
        return ".".join(labels), off

    @staticmethod
    def encode_name(name):
        out = b""
        for label in name.rstrip(".").split("."):
            out += bytes([len(label)]) + label.encode()
        return out + b"\0"

    def rrs(self, name, qtype, e, qtname):
        """Answer records for name (following a CNAME in the table)."""
        out = []
        ttl = e["ttl"]
        seen = 0
        while e.get("cname") and seen < 8:
            out.append(self.encode_name(name) + struct.pack(
                "!HHIH", 5, 1, ttl, len(self.encode_name(e["cname"]))) +
                self.encode_name(e["cname"]))
            name = e["cname"]
            e = self.table.get(name.lower())
            seen += 1
            if e is None:
                return out
        seq = e[qtype]
        if not seq:
            return out
        key = (qtname.lower(), qtype)
        idx = min(self.queries.get(key, 1) - 1, len(seq) - 1)
        for addr in seq[idx]:
            if qtype == "A":
                rd = socket.inet_pton(socket.AF_INET, addr)
                t = 1
            else:
                rd = socket.inet_pton(socket.AF_INET6, addr)
                t = 28
            out.append(self.encode_name(name) +
                       struct.pack("!HHIH", t, 1, e["ttl"], len(rd)) + rd)
        return out

    def answer(self, data):
        qid, flags, qd = struct.unpack("!HHH", data[:6])
        name, off = self.qname(data, 12)
        qt, qc = struct.unpack("!HH", data[off:off + 4])
        question = data[12:off + 4]
        tname = QTYPE.get(qt, str(qt))
        with self.lock:
            key = (name.lower(), tname)
            self.queries[key] = self.queries.get(key, 0) + 1
            e = self.table.get(name.lower())
            rcode = 0
            answers = []
            tc = 0
            if e is None:
                rcode = 3
            elif e["mode"] == "silent":
                return None
            elif e["mode"] == "nxdomain":
                rcode = 3
            elif e["mode"] == "servfail":
                rcode = 2
            elif e["mode"] == "truncated":
                tc = 0x0200
            elif tname in ("A", "AAAA"):
                answers = self.rrs(name, tname, e, name)
        rflags = 0x8000 | 0x0400 | 0x0100 | 0x0080 | tc | rcode
        return (struct.pack("!HHHHHH", qid, rflags, 1, len(answers), 0, 0) +
                question + b"".join(answers))

    def close(self):
        self.stop = True
        self.sock.close()


# ---------------------------------------------------------------- listeners


class Server:
    """A TCP server standing in for an upstream or a backend.

    Server(handler=None, addr="127.0.0.1", port=0, tls=None, backlog=1024,
           timeout=30.0)

    Listens on addr:port (port 0 picks one: see .port) with a deep accept
    queue: a busy machine may let hundreds of handshakes wait for the
    accepting thread, and a full queue drops SYNs whose retransmission
    comes after the proxy's connect timeout.  Each accepted connection
    runs handler(server, conn, n) in a thread of its own (handler None:
    the subclass's handle method), conn being the socket (wrapped in TLS
    when tls is an ssl.SSLContext; timeout set, None for none) and n the
    connection's number from 1.  What the handler returns is appended to
    .results (("error", text) when it raises OSError, SSLError or
    ValueError) and the connection is closed after it.

    Counters: .accepts (connections accepted), .results (result() waits
    for and takes the oldest), .stats (a dict for the handler's own
    counts).  close() stops accepting and shuts the live connections
    down, so that their handlers end."""

    def __init__(self, handler=None, addr="127.0.0.1", port=0, tls=None,
                 backlog=1024, timeout=30.0):
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((addr, port))
        self.sock.listen(backlog)
        self.addr = addr
        self.port = self.sock.getsockname()[1]
        self.handler = handler if handler is not None else \
            (lambda srv, c, n: srv.handle(c, n))
        self.tls = tls
        self.timeout = timeout
        self.accepts = 0
        self.results = []
        self.stats = {}
        self.lock = threading.Lock()
        self.live = []
        self.closed = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def handle(self, conn, n):
        raise NotImplementedError("Server needs a handler")

    def run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                if self.closed:
                    c.close()
                    return
                self.accepts += 1
                n = self.accepts
                self.live.append(c)
            threading.Thread(target=self.serve, args=(c, n),
                             daemon=True).start()

    def serve(self, c, n):
        conn = c
        try:
            c.settimeout(self.timeout)
            if self.tls is not None:
                conn = self.tls.wrap_socket(c, server_side=True)
            r = self.handler(self, conn, n)
        except (OSError, ssl.SSLError, ValueError) as e:
            r = ("error", str(e))
        with self.lock:
            self.results.append(r)
            if c in self.live:
                self.live.remove(c)
        for x in (conn, c):
            try:
                x.close()
            except OSError:
                pass

    def result(self, timeout=60):
        """The oldest handler result (waiting up to timeout), or None."""
        poll(lambda: self.results, timeout)
        with self.lock:
            return self.results.pop(0) if self.results else None

    def close(self):
        with self.lock:
            self.closed = True
            live = list(self.live)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes accept()
        except OSError:
            pass
        self.sock.close()
        for c in live:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(2)


def read_request(conn, buf=b"", bufsize=65536):
    """One HTTP/1.1 request from conn: (head, body, rest), where head is
    the request line and fields without the blank line, body the
    Content-Length bytes after it and rest what came after the body (the
    start of the next request: pass it back as buf).  None when the
    connection ends first."""
    while b"\r\n\r\n" not in buf:
        d = conn.recv(bufsize)
        if not d:
            return None
        buf += d
    head, buf = buf.split(b"\r\n\r\n", 1)
    n = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v.strip())
    while len(buf) < n:
        d = conn.recv(bufsize)
        if not d:
            return None
        buf += d
    return head, buf[:n], buf[n:]


def read_response(conn, buf=b"", bufsize=65536):
    """One HTTP/1.1 response from conn: (head, body, rest), where head is
    the status line and fields without the blank line (None when the
    connection ended or was reset first), body the bytes of the body as
    they came (chunked encoding kept: see dechunk), framed by
    Content-Length, chunked encoding or the close (or what came before a
    reset or a timeout), and rest what followed it."""
    try:
        while b"\r\n\r\n" not in buf:
            d = conn.recv(bufsize)
            if not d:
                return None, buf, b""
            buf += d
    except (socket.timeout, ConnectionResetError):
        return None, buf, b""
    head, buf = buf.split(b"\r\n\r\n", 1)
    hl = head.lower()
    try:
        if b"transfer-encoding: chunked" in hl:
            while b"\r\n0\r\n\r\n" not in b"\r\n" + buf:
                d = conn.recv(bufsize)
                if not d:
                    return head, buf, b""
                buf += d
            end = (b"\r\n" + buf).index(b"\r\n0\r\n\r\n") + 5
            return head, buf[:end], buf[end:]
        if b"content-length:" in hl:
            n = int(hl.split(b"content-length:")[1].split(b"\r\n")[0])
            while len(buf) < n:
                d = conn.recv(bufsize)
                if not d:
                    break
                buf += d
            return head, buf[:n], buf[n:]
        while True:
            d = conn.recv(bufsize)
            if not d:
                break
            buf += d
    except (socket.timeout, ConnectionResetError):
        pass
    return head, buf, b""


def dechunk(data):
    """The payload of a chunked body (what arrived of it)."""
    out = b""
    while data:
        line, sep, rest = data.partition(b"\r\n")
        if not sep:
            break
        try:
            n = int(line.split(b";")[0], 16)
        except ValueError:
            break
        if n == 0:
            break
        out += rest[:n]
        data = rest[n + 2:]
    return out


class Counter(Server):
    """A Server that counts accepts.  mode "http": answers each request
    with 200 and a body naming the listener (keep-alive), the heads it
    read in .requests; "echo": echoes; "silent": holds the connection;
    "close": closes."""

    def __init__(self, addr, port=0, mode="http", name="up", tls=None):
        self.mode = mode
        self.name = name
        self.requests = []
        Server.__init__(self, None, addr, port, tls=tls)

    def handle(self, c, n):
        try:
            self.answer(c)
        except (OSError, ssl.SSLError, ValueError):
            pass

    def answer(self, c):
        if self.mode == "close":
            return
        if self.mode == "silent":
            while c.recv(4096):
                pass
            return
        if self.mode == "echo":
            while True:
                d = c.recv(65536)
                if not d:
                    return
                c.sendall(d)
        buf = b""
        while True:
            r = read_request(c, buf)
            if r is None:
                return
            head, _, buf = r
            with self.lock:
                self.requests.append(head)
            body = ("hello from %s\n" % self.name).encode()
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                      b"Content-Type: text/plain\r\n\r\n" % len(body) + body)


# ---------------------------------------------------------------- TLS


def make_ca(tmp, names, ips=("127.0.0.1",)):
    """A test CA and a server certificate for names; returns (ca, crt, key)
    paths or None when the openssl command fails."""
    ca, cakey = os.path.join(tmp, "ca.pem"), os.path.join(tmp, "ca.key")
    crt, key = os.path.join(tmp, "srv.pem"), os.path.join(tmp, "srv.key")
    csr, ext = os.path.join(tmp, "srv.csr"), os.path.join(tmp, "ext")
    san = ",".join(["DNS:" + n for n in names] + ["IP:" + i for i in ips])
    with open(ext, "w") as f:
        f.write("subjectAltName=%s\n" % san)
    cmds = [
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
         "2", "-subj", "/CN=axgate test CA", "-keyout", cakey, "-out", ca],
        ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj",
         "/CN=" + names[0], "-keyout", key, "-out", csr],
        ["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", cakey,
         "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", crt],
    ]
    for c in cmds:
        if subprocess.run(c, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            return None
    return ca, crt, key


def server_ctx(crt, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    return ctx


# ---------------------------------------------------------------- daemon


class Daemon:
    """axgate serve with one worker (so audit records come in the order of
    the events), its audit file and its admin listener."""

    def __init__(self, tmp, name, policy_text, resolver_port, limits=None,
                 extra_files=None, listen6="[::1]:0", asan="",
                 config_text=""):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)
        self.policy = os.path.join(self.dir, "policy.yaml")
        with open(self.policy, "w") as f:
            f.write(policy_text)
        for fn, text in (extra_files or {}).items():
            with open(os.path.join(self.dir, fn), "w") as f:
                f.write(text)
        self.audit = os.path.join(self.dir, "audit.jsonl")
        self.log = os.path.join(self.dir, "serve.log")
        conf = os.path.join(self.dir, "axgate.yaml")
        with open(conf, "w") as f:
            f.write("drain_timeout_ms: 1000\n")
            if limits:
                f.write("limits:\n")
            for k, v in (limits or {}).items():
                f.write("  %s: %s\n" % (k, v))
            # more top-level keys (with inference_listeners:
            # ["127.0.0.1:0"], .inf_port is the inference listener's)
            f.write(config_text)
        env = dict(os.environ)
        # asan: more sanitizer options (quarantine_size_mb=0 for a daemon
        # whose memory is measured: freed memory is reused at once)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               ":detect_leaks=0" +
                               (":" + asan if asan else "")).lstrip(":")
        self.logf = open(self.log, "w")
        self.proc = subprocess.Popen(
            [os.environ["AXGATE"], "serve", "--config", conf,
             "--policy", self.policy, "--listen", "127.0.0.1:0",
             "--listen", listen6, "--admin", "127.0.0.1:0",
             "--audit", self.audit, "--workers", "1", "--user", "nobody",
             "--resolver", "127.0.0.1:%d" % resolver_port,
             "--drain-timeout", "1000"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.logf, env=env)
        self.port = self.port6 = self.admin = self.inf_port = None
        if not poll(lambda: "serving with policy" in self.read_log() or
                    self.proc.poll() is not None, 20):
            return
        log = self.read_log()
        for line in log.splitlines():
            if "proxy listening on 127.0.0.1:" in line:
                self.port = int(line.rsplit(":", 1)[1].split()[0])
            if "proxy listening on [::1]:" in line:
                self.port6 = int(line.rsplit(":", 1)[1].split()[0])
            if "inference listening on 127.0.0.1:" in line:
                self.inf_port = int(line.rsplit(":", 1)[1].split()[0])
            if "admin listening on 127.0.0.1:" in line:
                self.admin = int(line.rsplit(":", 1)[1].split()[0])
        # the start-up records (policy load, application start) reach the
        # audit file from the writer thread: wait for them, so that a
        # case's "records since" never counts them
        poll(lambda: any(r.get("class_uid") == 6002 for r in
                         self.records()) or self.proc.poll() is not None,
             10)

    def ok(self):
        return self.port is not None and self.proc.poll() is None

    def read_log(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def records(self):
        """The audit records written so far (whole lines only)."""
        try:
            with open(self.audit, "rb") as f:
                data = f.read()
        except OSError:
            return []
        out = []
        for line in data.split(b"\n")[:-1]:
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"unparsable": line.decode("utf-8", "replace")})
        return out

    def metric(self, name):
        """A counter from /metrics, summed over its label sets."""
        s = socket.create_connection(("127.0.0.1", self.admin), timeout=5)
        s.sendall(b"GET /metrics HTTP/1.0\r\nHost: a\r\n\r\n")
        data = recv_all(s, 5)
        s.close()
        total = 0
        for line in data.decode("utf-8", "replace").splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def sighup(self):
        self.proc.send_signal(signal.SIGHUP)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.logf.close()
        return self.proc.returncode


# ---------------------------------------------------------------- clients


def recv_all(s, timeout):
    """Read until EOF or timeout; returns the bytes."""
    s.settimeout(timeout)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def exchange(port, data, wait=5.0, host="127.0.0.1", then=None,
             settle=1.5, chunks=None):
    """Send data (or the chunks, with pauses) to the proxy and read its
    answer.  Returns (status, head, body, state) where state is "closed"
    (orderly EOF), "reset" or "open" (still open settle seconds after the
    first answer or after wait seconds without one).  then(sock, head) may
    send more after the answer head arrived."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(wait)
    s.connect((host, port))
    state = None
    buf = b""
    sent = {"err": None}

    def sender():
        try:
            if chunks is not None:
                for piece, pause in chunks:
                    s.sendall(piece)
                    if pause:
                        time.sleep(pause)
            else:
                s.sendall(data)
        except OSError as e:
            sent["err"] = e

    th = threading.Thread(target=sender, daemon=True)
    th.start()
    end = time.monotonic() + wait
    did_then = False
    while state is None:
        left = end - time.monotonic()
        if left <= 0:
            state = "open"
            break
        r, _, _ = select.select([s], [], [], left)
        if not r:
            state = "open"
            break
        try:
            d = s.recv(65536)
        except ConnectionResetError:
            state = "reset"
            break
        if not d:
            state = "closed"
            break
        buf += d
        if b"\r\n\r\n" in buf:
            if then is not None and not did_then:
                did_then = True
                try:
                    then(s, buf)
                except (BrokenPipeError, ConnectionResetError):
                    state = "reset"
                    break
            # once an answer came, wait only a little for the close
            end = min(end, time.monotonic() + settle)
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    th.join(5)
    s.close()
    status = None
    head, _, body = buf.partition(b"\r\n\r\n")
    if buf.startswith(b"HTTP/1."):
        try:
            status = int(buf.split(b" ", 2)[1])
        except (IndexError, ValueError):
            pass
    return status, head, body, state


def curl(args, timeout=15):
    r = subprocess.run(["curl", "-sS", "--max-time", "10"] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    return r.returncode, r.stdout.decode("utf-8", "replace"), \
        r.stderr.decode("utf-8", "replace")


def validate(audit_path):
    """Run the shared OCSF validator on an audit file: (ran, ok, output)."""
    v = os.path.join(os.environ.get("AXG_SHARED_DIR", ""), "ocsf",
                     "ocsf-validate")
    if not os.path.isfile(v):
        return False, True, "the shared OCSF validator is not at " + v
    r = subprocess.run([sys.executable, v, audit_path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = r.stdout.decode("utf-8", "replace")
    return True, " 0 failed" in out, out


# ---------------------------------------------------------------- audit

_sentinels = [0]


def sentinel(d):
    """A request whose record marks the end of a case's records."""
    _sentinels[0] += 1
    name = "sentinel-%d.invalid" % _sentinels[0]
    exchange(d.port, b"CONNECT %s:1 HTTP/1.1\r\nHost: %s:1\r\n\r\n" % (
        name.encode(), name.encode()),
               wait=5, settle=0.05)
    return name


def rec_host(r):
    return (r.get("dst_endpoint") or {}).get("hostname") or \
        ((r.get("http_request") or {}).get("url") or {}).get("hostname")


def case_records(d, n0, want):
    """The records a case wrote: those after n0 and before the sentinel."""
    poll(lambda: len(d.records()) >= n0 + want, 5)
    name = sentinel(d)
    recs = poll(lambda: [r for r in d.records()[n0:]] if any(
        rec_host(r) == name for r in d.records()[n0:]) else None, 5)
    if recs is None:
        return None
    out = []
    for r in recs:
        if rec_host(r) == name:
            break
        out.append(r)
    return out


def rec_sig(r):
    return (r.get("class_uid"), r.get("activity_id"))


def match_recs(got, want):
    if len(got) != len(want):
        return False
    for g, (c, a) in zip(got, want):
        if c is not None and g.get("class_uid") != c:
            return False
        if a is not None and g.get("activity_id") != a:
            return False
    return True


# ---------------------------------------------------------------- memory


def descendants(pid):
    """pid and every process below it."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        ppid = int(st.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def rss_kb(pid):
    """The resident memory of pid and its descendants, in KiB."""
    total = 0
    for p in descendants(pid):
        try:
            with open("/proc/%d/status" % p) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


class RssWatch:
    """Samples rss_kb(pid) every 20 ms in a thread; peak is the highest."""

    def __init__(self, pid):
        self.pid = pid
        self.base = rss_kb(pid)
        self.peak = self.base
        self.stop_ = False
        self.th = threading.Thread(target=self.run, daemon=True)
        self.th.start()

    def run(self):
        while not self.stop_:
            self.peak = max(self.peak, rss_kb(self.pid))
            time.sleep(0.02)

    def stop(self):
        self.stop_ = True
        self.th.join(2)
        return self.peak - self.base
