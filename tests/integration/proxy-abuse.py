#!/usr/bin/env python3
# The hostile inputs of PROXY-ABUSE-CASES through a real `axgate serve`:
# a table of raw requests, each checked for the status, the state the
# connection is left in, the audit records of the decision, whether an
# upstream listener saw a connection and which names reached the DNS
# server.  Two daemons: "x" whose policy names every host it allows, and
# "p" whose policy (a Rego override) allows every host, so that only the
# address rules stand between a request and an internal address.
#
# Usage: proxy-abuse.py (AXGATE, top_srcdir, AXG_SHARED_DIR in the
# environment).  Prints TAP.

import base64
import gzip
import importlib.util
import os
import shutil
import socket
import ssl
import sys
import tempfile
import time
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "proxy_harness", os.path.join(here, "proxy-harness.py"))
H = importlib.util.module_from_spec(spec)
spec.loader.exec_module(H)

NET_OPEN, NET_CLOSE, NET_RESET, NET_FAIL, NET_REFUSE = 1, 2, 3, 4, 5
REFUSE = [(4001, NET_REFUSE)]  # a CONNECT refused before any dial
HTTP = [(4002, None)]  # one HTTP Activity record
TUNNEL = [(4001, NET_OPEN), (4001, NET_CLOSE)]


def free_port(addr):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.bind((addr, 0))
    p = s.getsockname()[1]
    s.close()
    return p


def client_hello(sni, alpn=None):
    """The bytes of a real ClientHello (Python's ssl) with this SNI (None:
    no SNI; an IP literal is patched in over a name of the same length,
    since ssl never sends one)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if alpn:
        ctx.set_alpn_protocols(alpn)
    name = sni
    if sni is not None and sni.replace(".", "").isdigit():
        name = "a" * len(sni)
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(i, o, server_hostname=name)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    data = o.read()
    if name != sni:
        data = data.replace(name.encode(), sni.encode())
    return data


def main():
    if os.geteuid() != 0:
        H.skip_all("serve drops to an unprivileged user: needs root")
    if shutil.which("openssl") is None:
        H.skip_all("the openssl command is not installed")
    tap = H.Tap()
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    daemons = {}
    try:
        rc = run(tap, tmp, daemons)
    finally:
        for d in daemons.values():
            d.stop()
        if not os.environ.get("AXG_KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tap.diag("kept " + tmp)
    return rc


def run(tap, tmp, daemons):
    dns = H.DnsServer()
    up = H.Counter("127.0.0.1", 0, "http", "up")
    UP = up.port
    # 127.0.0.2:UP refuses (a dead address for retries); 127.0.0.3 and
    # [::1] on UP are traps: the policy never allows them.
    trap3 = H.Counter("127.0.0.3", UP, "http", "trap3")
    trap6 = H.Counter("::1", UP, "http", "trap6")
    echo = H.Counter("127.0.0.1", 0, "echo", "echo")
    EP = echo.port
    silent = H.Counter("127.0.0.1", 0, "silent", "silent")
    SP = silent.port
    certs = H.make_ca(tmp, ["allowed.test"])
    if certs is None:
        H.skip_all("openssl could not make a test CA")
    tls = H.Counter("127.0.0.1", 0, "http", "tls",
                    tls=H.server_ctx(certs[1], certs[2]))
    TP = tls.port
    P6 = free_port("::1")
    # a blackhole: a listener that never accepts, its queue full, so
    # further SYNs are dropped and a dial can only time out
    hole = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    hole.bind(("127.0.0.1", 0))
    hole.listen(0)
    BP = hole.getsockname()[1]
    fillers = []
    for _ in range(3):
        f = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        f.setblocking(False)
        f.connect_ex(("127.0.0.1", BP))
        fillers.append(f)
    time.sleep(0.2)
    counters = [up, trap3, trap6, echo, silent, tls]

    for n in ("allowed.test", "other.test", "a.wild.test", "b.a.wild.test",
              "byname.test"):
        dns.set(n, A=[["127.0.0.1"]])
    for n in ("localhost", "foo.localhost", "localtest.me",
              "127.0.0.1.nip.io"):
        dns.set(n, A=[["127.0.0.1"]], AAAA=[["::1"]])
    dns.set("169.254.169.254.nip.io", A=[["169.254.169.254"]])
    dns.set("metadata.google.internal", A=[["169.254.169.254"]])
    dns.set("kubernetes.default.svc", A=[["10.96.0.1"]])
    dns.set("mixed.test", A=[["127.0.0.1", "10.0.0.1"]])
    dns.set("mixed-pub.test", A=[["8.8.8.8", "127.0.0.3"]])
    dns.set("aaaa-private.test", AAAA=[["::1"]])
    dns.set("rebind.test", A=[["127.0.0.1"], ["127.0.0.3"]], ttl=0)
    dns.set("rebind-http.test", A=[["127.0.0.1"], ["127.0.0.3"]], ttl=0)
    dns.set("retry.test", A=[["127.0.0.2", "127.0.0.1"], ["127.0.0.3"]],
            ttl=0)
    dns.set("cname.test", cname="internal.test")
    dns.set("internal.test", A=[["10.0.0.5"]])
    dns.set("silent.test", mode="silent")
    dns.set("nx.test", mode="nxdomain")
    dns.set("servfail.test", mode="servfail")
    dns.set("truncated.test", mode="truncated")
    dns.set("ipname.test", A=[["127.0.0.4"]])

    explicit = """version: 1
name: abuse-explicit
network:
  mode: proxy
  policies:
    - name: web
      endpoints:
        - {host: allowed.test, ports: [%(UP)d, %(TP)d, %(EP)d, %(SP)d]}
        - {host: other.test, port: %(UP)d}
        - {host: "*.wild.test", port: %(UP)d}
        - {host: rebind.test, port: %(UP)d}
        - {host: rebind-http.test, port: %(UP)d}
        - {host: retry.test, port: %(UP)d}
        - {host: cname.test, port: %(UP)d}
        - {host: mixed.test, port: %(UP)d}
        - {host: mixed-pub.test, port: %(UP)d}
        - {host: aaaa-private.test, port: %(UP)d}
        - {host: silent.test, port: %(UP)d}
        - {host: nx.test, port: %(UP)d}
        - {host: servfail.test, port: %(UP)d}
        - {host: truncated.test, port: %(UP)d}
        - {host: ipname.test, port: %(UP)d}
    - name: internal-names
      endpoints:
        - {host: metadata.google.internal, ports: [80, 443]}
        - {host: localhost, ports: [80, %(UP)d]}
        - {host: foo.localhost, port: 80}
        - {host: localtest.me, port: 80}
        - {host: 127.0.0.1.nip.io, port: 80}
        - {host: 169.254.169.254.nip.io, port: 80}
        - {host: kubernetes.default.svc, port: 443}
        - {host: 169.254.169.254, ports: [80, 443]}
        - {host: 10.0.0.1, port: 80}
    - name: loop
      endpoints:
        - {cidr: 127.0.0.1/32, ports: [%(UP)d, %(TP)d, %(EP)d, %(SP)d, %(BP)d]}
        - {cidr: 127.0.0.2/32, port: %(UP)d}
        - {cidr: "::1/128", port: %(P6)d}
""" % dict(UP=UP, TP=TP, EP=EP, SP=SP, P6=P6, BP=BP)
    public = """version: 1
name: abuse-public
network:
  mode: proxy
  policies:
    - name: loop
      endpoints:
        - {cidr: 127.0.0.1/32, ports: [%(UP)d, %(EP)d]}
rego: [all-public.rego]
""" % dict(UP=UP, EP=EP)
    all_public = """package axgate.override

connect := {"allow": true, "rule": "all-public", "reason": "any host; its addresses are judged"}

http := {"allow": true, "rule": "all-public", "reason": "any host; its addresses are judged"}
"""
    # every plain request dials its own upstream (no kept connections), so
    # that the counters' accepts say whether a request was dialed
    limits = {"head_timeout_ms": 1500, "dns_timeout_ms": 1500,
              "connect_timeout_ms": 1000, "idle_timeout_ms": 2500,
              "tls_ports": "[443, %d]" % TP, "http_pool_max_idle": 0}
    d = H.Daemon(tmp, "x", explicit, dns.port, limits,
                 listen6="[::1]:%d" % P6)
    daemons["x"] = d
    # the IPv6 listener on a port chosen before start, so the policy can
    # name it (a "self connection" that the policy allows)
    if not d.ok():
        tap.ok(False, "axgate serve (explicit policy) starts", d.read_log())
        return tap.done()
    p = H.Daemon(tmp, "p", public, dns.port, limits,
                 {"all-public.rego": all_public})
    daemons["p"] = p
    if not p.ok():
        tap.ok(False, "axgate serve (all-public policy) starts", p.read_log())
        return tap.done()
    lg = H.Daemon(tmp, "l", explicit.replace(
        "name: abuse-explicit", "name: abuse-log") +
        "safety: {credential_scan: log}\n", dns.port,
        dict(limits, idle_timeout_ms=8000, connect_timeout_ms=10000),
        asan="quarantine_size_mb=0")
    daemons["l"] = lg
    if not lg.ok():
        tap.ok(False, "axgate serve (credential_scan log) starts",
               lg.read_log())
        return tap.done()
    tap.ok(True, "three daemons serve (explicit, all-public and "
           "credential_scan log policies)")

    PX = d.port
    cases = table(UP, TP, EP, SP, P6, PX) + resource_rows(UP, SP, BP)
    for c in cases:
        run_case(tap, daemons, dns, counters, c)
    special_cases(tap, daemons, dns, counters, UP, EP, tmp)
    resource_cases(tap, daemons, dns, counters, UP, EP, SP, tmp)
    final_checks(tap, daemons, counters)
    coverage(tap, cases)
    for f in fillers + [hole]:
        f.close()
    return tap.done()


# ---------------------------------------------------------------- the table


def case(name, abuse, data, status, state="closed", recs=None, dial=False,
         on="x", rule=None, nodns=(), check=None, wait=5.0, chunks=None,
         dials=None, host="127.0.0.1", v6=False, then=None):
    """One row.  status: an int, a tuple of ints, or None (no answer).
    dial: which counter must see one accept (a name), False for none,
    None for "don't care".  recs: the (class_uid, activity_id) of the
    records, in order; activity None matches any.  nodns: names the DNS
    server must never be asked."""
    return dict(name=name, abuse=abuse, data=data, status=status,
                state=state, recs=recs if recs is not None else REFUSE,
                dial=dial, on=on, rule=rule, nodns=nodns, check=check,
                wait=wait, chunks=chunks, v6=v6, then=then, dials=dials)


def both(abuse, auth, status=403, on="xp", rule=None, nodns=(), dial=False,
         what=None, recs_c=None, recs_h=None, state="closed", hosthdr=None):
    """The same target as a CONNECT and as an absolute-form GET."""
    what = what or auth
    hh = hosthdr if hosthdr is not None else auth
    out = [case("CONNECT %s" % what, abuse,
                b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (auth, hh),
                status, state, recs_c or REFUSE, dial, on, rule, nodns),
           case("GET http://%s/" % what, abuse,
                b"GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n" % (auth, hh),
                status, state, recs_h or HTTP, dial, on, rule, nodns)]
    return out


def table(UP, TP, EP, SP, P6, PX):
    b = lambda s: s.encode("utf-8")  # noqa: E731
    T = []
    # 1. metadata addresses and names
    for h in ("169.254.169.254:80", "169.254.169.254:443",
              "169.254.170.2:80", "100.100.100.200:80", "192.0.0.192:80",
              "[fd00:ec2::254]:80"):
        T += both(1, b(h))
    for h in ("metadata.google.internal:80", "metadata.google.internal.:80",
              "METADATA.GOOGLE.INTERNAL:80"):
        T += both(1, b(h), rule="address")
    # 2. loopback and self
    for h in ("127.0.0.1:%d" % PX, "127.0.0.2:22", "127.255.255.254:80",
              "[::1]:443", "0.0.0.0:80", "[::]:80", "0:80"):
        T += both(2, b(h))
    # the [::1] listener is named by a cidr endpoint: still refused
    T += both(2, b("[::1]:%d" % P6), on="x", what="[::1]:<own port>",
              status=(403, 508))
    # 3. private and special IPv4
    for h in ("10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1",
              "100.64.0.1", "198.18.0.1", "192.0.2.1", "224.0.0.1",
              "255.255.255.255", "240.0.0.1"):
        T += both(3, b(h + ":80"))
    # the CGNAT edges are public: the all-public policy dials them (no
    # route to the outside here, so the dial fails: 502/504, not 403)
    for h in ("100.63.255.255", "100.128.0.1"):
        T.append(case("CONNECT %s:80 (CGNAT edge, public)" % h, 3,
                      b"CONNECT %s:80 HTTP/1.1\r\nHost: x\r\n\r\n" % b(h),
                      (200, 502, 504), recs="any", state=None, on="p",
                      rule="all-public", wait=8, check=not_refused))
    # 4. IPv6 forms
    for h in ("fe80::1", "fc00::1", "fd12::1", "::ffff:127.0.0.1",
              "::ffff:7f00:1", "::ffff:169.254.169.254", "::127.0.0.1",
              "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe",
              "64:ff9b:1::a9fe:a9fe", "2002:7f00:1::", "2002:a9fe:a9fe::",
              "2001:0:4136:e378:8000:63bf:80ff:fffe"):
        T += both(4, b("[%s]:80" % h))
    T += both(4, b"[fe80::1%25eth0]:80", status=400)
    T.append(case("CONNECT [64:ff9b::808:808]:80 (NAT64 of a public "
                  "address)", 4,
                  b"CONNECT [64:ff9b::808:808]:80 HTTP/1.1\r\nHost: x\r\n\r\n",
                  (200, 502, 504), recs="any", state=None, on="p",
                  rule="all-public", wait=8, check=not_refused))
    # 5. legacy IPv4 spellings: decided as the address, never resolved
    legacy = ("2130706433", "0x7f000001", "017700000001", "0177.0.0.1",
              "0x7f.0.0.1", "127.1", "127.0.1", "0x7f.1", "127.000.000.001",
              "2852039166", "0xA9FEA9FE", "0251.0376.0251.0376",
              "169.254.43518")
    for h in legacy:
        T += both(5, b(h + ":80"), nodns=(h, h.lower()))
    T += both(5, b("\uff11\uff12\uff17.\uff10.\uff10.\uff11:80"), status=400,
              what="full-width 127.0.0.1:80")
    # decoded, the spelling is the allowed 127.0.0.1 and is dialed as such
    T.append(case("CONNECT 0x7f.1:%d is 127.0.0.1 (allowed by cidr)" % UP, 5,
                  b"CONNECT 0x7f.1:%d HTTP/1.1\r\nHost: x\r\n\r\n" % UP,
                  200, "open", TUNNEL, "up", on="x", rule="loop",
                  nodns=("0x7f.1",), check=host_is("127.0.0.1")))
    # 6. names that resolve inside
    for h in ("localhost", "localhost.", "LOCALHOST", "foo.localhost",
              "127.0.0.1.nip.io", "169.254.169.254.nip.io", "localtest.me"):
        T += both(6, b(h + ":80"), rule="address")
    T += both(6, b"kubernetes.default.svc:443", rule="address", on="x",
              recs_c=REFUSE)
    T += both(6, b("mixed.test:%d" % UP), rule="address",
              what="mixed.test (127.0.0.1 allowed + 10.0.0.1)")
    T += both(6, b("mixed-pub.test:%d" % UP), rule="address",
              what="mixed-pub.test (8.8.8.8 + 127.0.0.3)")
    T += both(6, b("aaaa-private.test:%d" % UP), rule="address",
              what="aaaa-private.test (AAAA ::1 only)")
    # 7. CNAME to an internal name
    T += both(7, b("cname.test:%d" % UP), rule="address", on="x",
              what="cname.test -> internal.test (10.0.0.5)")
    # 8. DNS failures: bounded, audited, 502/504
    T.append(case("CONNECT silent.test (resolver never answers): 504 within "
                  "the DNS timeout", 8,
                  b"CONNECT silent.test:%d HTTP/1.1\r\nHost: x\r\n\r\n" % UP,
                  (502, 504), recs=[(4001, NET_FAIL)], wait=6,
                  check=elapsed_below(4.0)))
    T.append(case("GET http://silent.test/ (resolver never answers)", 8,
                  b"GET http://silent.test:%d/ HTTP/1.1\r\nHost: silent.test:%d"
                  b"\r\n\r\n" % (UP, UP),
                  (502, 504), recs=HTTP, wait=6, check=elapsed_below(4.0)))
    for h in ("nx.test", "servfail.test", "truncated.test"):
        T += both(8, b("%s:%d" % (h, UP)), status=502, on="x",
                  recs_c=[(4001, NET_FAIL)])
    # 9. trailing dots
    T.append(case("CONNECT allowed.test.:%d is allowed.test" % EP, 9,
                  b"CONNECT allowed.test.:%d HTTP/1.1\r\nHost: h\r\n\r\n" % EP, 200,
                  "open", TUNNEL, "echo", rule="web",
                  check=host_is("allowed.test")))
    for h in ("allowed.test..", ".", ".allowed.test", "..allowed.test"):
        T += both(9, b("%s:%d" % (h, UP)), status=400, on="x",
                  nodns=(h.strip("."),))
    # 10. case
    T.append(case("CONNECT ALLOWED.Test (case folded)", 10,
                  b"CONNECT ALLOWED.Test:%d HTTP/1.1\r\nHost: allowed.TEST:%d"
                  b"\r\n\r\n" % (EP, EP), 200, "open", TUNNEL, "echo",
                  rule="web", check=host_is("allowed.test")))
    T.append(case("GET http://ALLOWED.Test/ with Host: allowed.TEST", 10,
                  b"GET http://ALLOWED.Test:%d/ HTTP/1.1\r\nHost: allowed.TEST:%d"
                  b"\r\nConnection: close\r\n\r\n" % (UP, UP), 200, "closed",
                  HTTP, "up", rule="web", check=host_is("allowed.test")))
    # 11. IDN
    for h, what in (("\u0430llowed.test", "Cyrillic a"),
                    ("allowed\uff0etest", "full-width dot"),
                    ("allowed\u3002test", "ideographic dot")):
        T += both(11, b("%s:%d" % (h, UP)), status=400, on="xp",
                  what="allowed.test with a " + what)
    T += both(11, b("xn--llowed-2nf.test:%d" % UP), status=403, on="x",
              nodns=("xn--llowed-2nf.test",))
    # 12. wildcards
    T.append(case("CONNECT a.wild.test (*.wild.test)", 12,
                  b"CONNECT a.wild.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, 200,
                  "open", TUNNEL, "up", rule="web"))
    for h in ("wild.test", "evilwild.test", "wild.test.evil.test",
              "a.wild.test.evil.test", "a.wild.testx"):
        T += both(12, b("%s:%d" % (h, UP)), status=403, on="x", nodns=(h,))
    # 13. invalid labels
    for h, what in (("bad_host", None), ("a" * 64 + ".test", "a 64-byte label"),
                    (("a" * 62 + ".") * 4 + "test", "a 256-byte name"),
                    ("a..b", None), ("a%00.test", None), ("a\\b.test", None),
                    ("a@b.test", None), ("a%2eb.test", None)):
        T += both(13, b("%s:%d" % (h, UP)), status=400, on="xp", what=what)
    T += both(13, b("-bad.test:%d" % UP), status=(400, 403), on="x")
    T += both(13, b"a b.test:80", status=400, on="x", what="a space in the host")
    # 14. lengths
    for n, what in ((8 * 1024, "8 KiB"), (64 * 1024, "64 KiB"),
                    (1024 * 1024, "1 MiB")):
        host = b"a" * n
        T.append(case("CONNECT a %s host" % what, 14,
                      b"CONNECT " + host + b":443 HTTP/1.1\r\nHost: h\r\n\r\n",
                      (400, 414, 431), recs=[(None, None)], wait=8))
        T.append(case("GET a %s path" % what, 14,
                      b"GET http://allowed.test:%d/" % UP + host +
                      b" HTTP/1.1\r\n\r\n", (400, 414, 431),
                      recs=HTTP, wait=8))
    T.append(case("10 000 header fields", 14,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\n" % UP +
                  b"X-A: b\r\n" * 10000 + b"\r\n", (400, 431), recs=HTTP,
                  wait=8))
    T.append(case("a 64 KiB field without CRLF", 14,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\nX-A: " % UP +
                  b"b" * 65536, (400, 431), recs=HTTP, wait=8))
    T.append(case("slowloris: one byte every 100 ms gets 408 in bounded "
                  "time", 14, None, 408, recs=HTTP, wait=8,
                  chunks=[(bytes([c]), 0.1) for c in
                          b"GET http://allowed.test/ HTTP/1.1\r\nX-Slow: "
                          + b"z" * 60],
                  check=elapsed_below(5.0)))
    # 15. ports
    for p in ("", ":0", ":65536", ":-1", ":443abc", ":+443", ":0443", ":007",
              ":", ":99999999999999999999"):
        T.append(case("CONNECT allowed.test%s" % (p or " (no port)"), 15,
                      b"CONNECT allowed.test%s HTTP/1.1\r\nHost: h\r\n\r\n" % b(p), 400,
                      nodns=("allowed.test",)))
    T += both(15, b"allowed.test:22", rule="web", on="x")
    T += both(15, b"allowed.test:8443", rule="web", on="x")
    T += both(15, b("other.test:%d" % TP), rule="web", on="x",
              what="other.test on a port allowed for allowed.test")
    # 16. authority tricks
    for a in ("allowed.test@evil.test:443", "allowed.test:443@evil.test:443",
              "[allowed.test]:443", "[[::1]]:443", "[::1:443", "::1]:443",
              "allowed%2etest:443", "evil.test%00.allowed.test:443",
              "http://evil.test:443", "/path", "evil.test:443/x"):
        T.append(case("CONNECT %s" % a, 16,
                      b"CONNECT %s HTTP/1.1\r\nHost: h\r\n\r\n" % b(a), 400,
                      nodns=("evil.test",)))
    for line, what in ((b"CONNECT  allowed.test:443 HTTP/1.1", "double space"),
                       (b"CONNECT\tallowed.test:443 HTTP/1.1", "a tab"),
                       (b"connect allowed.test:443 HTTP/1.1", "lower case"),
                       (b"CONNECT allowed.test:443  HTTP/1.1", "two spaces"
                        " before the version")):
        T.append(case("request line with %s" % what, 16,
                      line + b"\r\n\r\n", 400, recs=[(None, None)]))
    # 17. versions
    T.append(case("CONNECT ... HTTP/1.0", 17,
                  b"CONNECT allowed.test:%d HTTP/1.0\r\n\r\n" % EP, 200,
                  "open", TUNNEL, "echo", rule="web"))
    for v, st in ((b"HTTP/0.9", (400, 505)), (b"HTTP/2.0", 505),
                  (b"HTTP/1.2", 505), (b"HTTP/11", 400), (b"http/1.1", 400)):
        T.append(case("CONNECT ... %s" % v.decode(), 17,
                      b"CONNECT allowed.test:443 " + v + b"\r\n\r\n", st))
    T.append(case("GET with no version (HTTP/0.9 style)", 17,
                  b"GET http://allowed.test:%d/\r\n\r\n" % UP, (400, 505),
                  recs=HTTP))
    T.append(case("the HTTP/2 preface", 17,
                  b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", (400, 505),
                  recs=HTTP))
    T.append(case("Upgrade: h2c is removed", 17,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c"
                  b"\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n" % (UP, UP),
                  200, "open", HTTP, "up", rule="web",
                  check=upstream_lacks(b"upgrade", b"http2-settings")))
    # 18. absolute form against Host
    G = b"GET http://allowed.test:%d/ HTTP/1.1\r\n" % UP
    for hdrs, what, st in (
            (b"Host: evil.test\r\n", "Host: evil.test", 400),
            (b"", "no Host", 400),
            (b"Host: allowed.test:%d\r\nHost: allowed.test:%d\r\n" % (UP, UP),
             "two Host fields", 400),
            (b"Host: allowed.test:81\r\n", "Host on another port", 400),
            (b"Host : allowed.test\r\n", "space before the colon", 400),
            (b"Host: user@allowed.test\r\n", "userinfo in Host", 400),
            (b"Host: allowed.test:%d, evil.test\r\n" % UP, "a Host list",
             400)):
        if st is None:
            # decided: a missing Host is taken from the target
            T.append(case("absolute form with %s" % what, 18, G + hdrs +
                          b"Connection: close\r\n\r\n", 200, "closed", HTTP,
                          "up", rule="web",
                          check=upstream_has(b"host: allowed.test")))
        else:
            T.append(case("absolute form with %s" % what, 18,
                          G + hdrs + b"\r\n", st, recs=HTTP))
    T.append(case("GET http://evil.test/ with Host: allowed.test", 18,
                  b"GET http://evil.test/ HTTP/1.1\r\nHost: allowed.test:%d"
                  b"\r\n\r\n" % UP, (400, 403), recs=HTTP,
                  nodns=("evil.test",)))
    T.append(case("an https:// target on the plain path", 18,
                  b"GET https://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\n\r\n" % (TP, TP), 400, recs=HTTP))
    T.append(case("origin form to the proxy", 18,
                  b"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400,
                  recs=HTTP))
    T.append(case("userinfo in the target", 18,
                  b"GET http://u:p@allowed.test:%d/ HTTP/1.1\r\n\r\n" % UP,
                  400, recs=HTTP))
    # 19. framing
    P = b"POST http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test:%d\r\n" % (
        UP, UP)
    for hdrs, body, what, st in (
            (b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
             b"0\r\n\r\n", "CL and TE", 400),
            (b"Transfer-Encoding: chunked, identity\r\n", b"0\r\n\r\n",
             "TE chunked, identity", (400, 501)),
            (b"Transfer-Encoding: xchunked\r\n", b"0\r\n\r\n", "TE xchunked",
             (400, 501)),
            (b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
             b"0\r\n\r\n", "TE twice", (400, 501)),
            (b"X-A: b\r\n c\r\nContent-Length: 0\r\n", b"", "obs-fold", 400),
            (b"Content-Length: 5\r\nContent-Length: 6\r\n", b"hello!",
             "two Content-Lengths", 400),
            (b"Content-Length: 5\r\nContent-Length: 5\r\n", b"hello",
             "Content-Length twice", 400),
            (b"Content-Length: +5\r\n", b"hello", "Content-Length +5", 400),
            (b"Content-Length: 0x5\r\n", b"hello", "Content-Length 0x5", 400),
            (b"Content-Length: 5 5\r\n", b"hello", "Content-Length 5 5", 400),
            (b"Content-Length: 99999999999999999999999\r\n", b"hello",
             "Content-Length overflow", 400),
            (b"X-A: b\nContent-Length: 0\r\n", b"", "a bare LF", 400),
            (b"X-A: b\rContent-Length: 0\r\n", b"", "a bare CR", 400),
            (b"X-A: b\x00c\r\nContent-Length: 0\r\n", b"", "a NUL", 400),
            (b"X(A): b\r\nContent-Length: 0\r\n", b"", "a bad token", 400),
            (b"X-A: \x01\r\nContent-Length: 0\r\n", b"", "a control byte",
             400)):
        T.append(case("POST with %s" % what, 19, P + hdrs + b"\r\n" + body,
                      st, recs=HTTP))
    # bad chunk sizes are found while the body streams: after the dial
    for body, what in ((b"ffffffffffffffff1\r\nx\r\n0\r\n\r\n",
                        "chunk size overflow"),
                       (b"5x\r\nhello\r\n0\r\n\r\n", "junk after a chunk size"),
                       (b"-5\r\nhello\r\n0\r\n\r\n", "a negative chunk size"),
                       (b"5\r\nhello\n0\r\n\r\n", "a bare LF after data")):
        T.append(case("POST chunked with %s" % what, 19,
                      P + b"Transfer-Encoding: chunked\r\n\r\n" + body,
                      (400, 502), recs=HTTP, dial=None))
    T.append(case("POST chunked with extensions and trailers passes", 19,
                  P + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                  b"5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n", 200,
                  "closed", HTTP, "up", rule="web"))
    # 20. bytes after a denied CONNECT
    T.append(case("pipelined GET after a denied CONNECT goes nowhere", 20,
                  b"CONNECT evil.test:443 HTTP/1.1\r\nHost: h\r\n\r\nGET http://"
                  b"allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n"
                  % (UP, UP), 403, nodns=("evil.test",),
                  check=single_answer))
    T.append(case("early TLS bytes after a denied CONNECT go nowhere", 20,
                  b"CONNECT evil.test:443 HTTP/1.1\r\nHost: h\r\n\r\n" +
                  client_hello("evil.test"), 403, nodns=("evil.test",),
                  check=single_answer))
    T.append(case("pipelined CONNECT after a denied GET goes nowhere", 20,
                  b"GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
                  b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % EP, 403,
                  recs=HTTP, nodns=("evil.test",), check=single_answer))
    T.append(case("early bytes behind an allowed CONNECT reach the tunnel", 20,
                  b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\nPING-early" % EP,
                  200, "open", TUNNEL, "echo", rule="web",
                  check=body_has(b"PING-early")))
    # 21. keep-alive: each request decided on its own
    T.append(case("keep-alive: allowed then denied host", 21,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\n\r\nGET http://evil.test/ HTTP/1.1\r\nHost: "
                  b"evil.test\r\n\r\n" % (UP, UP), 200, "closed",
                  [(4002, None), (4002, None)], "up",
                  check=answers(200, 403), nodns=("evil.test",)))
    T.append(case("keep-alive: two allowed hosts, two upstream connections",
                  21,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\n\r\nGET http://other.test:%d/ HTTP/1.1\r\nHost: "
                  b"other.test:%d\r\nConnection: close\r\n\r\n" % (UP, UP, UP,
                                                                   UP),
                  200, "closed", [(4002, None), (4002, None)], None,
                  check=answers(200, 200), dials={"up": 2}))
    # 22/23. tunnels on a TLS port: the ClientHello's SNI
    for sni, what in (("allowed.test", None), ("evil.test", "SNI evil.test"),
                      (None, "no SNI"), ("127.0.0.1", "SNI an IP literal")):
        data = b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % TP
        then = sender(client_hello(sni, ["h2", "http/1.1"]))
        if what is None:
            T.append(case("CONNECT allowed.test:TLS with the right SNI", 22,
                          data, 200, "open", [(4001, NET_OPEN),
                                              (4001, NET_CLOSE)], "tls",
                          rule="web", check=body_has(b"\x16\x03"),
                          then=then))
        else:
            T.append(case("CONNECT allowed.test:TLS then %s: reset" % what, 22,
                          data, 200, "reset",
                          [(4001, NET_OPEN), (4001, NET_RESET)], "tls",
                          rule="sni", then=then))
    for payload, what in ((b"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
                           "plain HTTP"),
                          (b"SSH-2.0-OpenSSH_9.0\r\n", "an SSH banner")):
        T.append(case("%s on a TLS-port tunnel: reset" % what, 23,
                      b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % TP,
                      200, "reset",
                      [(4001, NET_OPEN), (4001, NET_RESET)], "tls",
                      rule="sni", then=sender(payload)))
    # 24. upgrades and loops
    T.append(case("WebSocket Upgrade on the plain path is removed", 24,
                  b"GET http://allowed.test:%d/ws HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                  b"Sec-WebSocket-Version: 13\r\n\r\n" % (UP, UP), 200, "open",
                  HTTP, "up", rule="web",
                  check=upstream_lacks(b"upgrade:")))
    T.append(case("a Via loop: 508", 24,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\nVia: 1.1 axgate\r\n\r\n" % (UP, UP), 508,
                  recs=HTTP))
    # 29. a key as a DNS label never reaches the resolver
    key = "AKIAQWERTYUIOPASDFGH"
    T += both(29, b("%s.attacker.test:443" % key), status=403, on="xp",
              nodns=("%s.attacker.test" % key.lower(),),
              recs_c=[(None, None)] * 2, recs_h=[(None, None)] * 2,
              what="an AWS key id as a DNS label")
    T += leak_rows(UP, TP)
    # 35. log injection
    T.append(case("a quote in the host", 35,
                  b'CONNECT a"b.test:443 HTTP/1.1\r\nHost: h\r\n\r\n', 400))
    T.append(case("quotes, backslashes and escapes in an allowed path", 35,
                  b'GET http://allowed.test:%d/a"b\\c%%00%%0a?q="x"\\u0000 '
                  b"HTTP/1.1\r\nHost: allowed.test:%d\r\nConnection: close"
                  b"\r\n\r\n" % (UP, UP), (200, 400), "closed", HTTP, None))
    return T


KEY = b"AKIAQWERTYUIOPASDFGH"  # an AWS access key id (not the example)
FOUND = [(None, None)] * 2  # the request's record and the finding's


def post(UP, body, extra=b"", chunked=False):
    """A POST to allowed.test with this body (and extra header lines)."""
    head = (b"POST http://allowed.test:%d/p HTTP/1.1\r\nHost: allowed.test:%d"
            b"\r\nContent-Type: application/json\r\nConnection: close\r\n"
            % (UP, UP)) + extra
    if chunked:
        return head + b"Transfer-Encoding: chunked\r\n\r\n" + body
    return head + b"Content-Length: %d\r\n\r\n" % len(body) + body


def deflate_raw(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def leak_rows(UP, TP):
    """29: a credential hidden from the scanner, and the encoded bodies
    it must read (gzip, deflate) or refuse (br, zstd, bombs)."""
    T = []
    doc = b'{"prompt":"here is my key ' + KEY + b' use it"}'
    clean = b'{"prompt":"' + b"nothing secret here. " * 200 + b'"}'

    def blocked(name, data, status=403, recs=FOUND, chunks=None, on="x"):
        T.append(case(name, 29, data, status, "closed", recs, None, on,
                      "scan", chunks=chunks, check=upstream_none))

    def passes(name, data, check=None, on="x"):
        T.append(case(name, 29, data, 200, "closed", HTTP, "up", on, "web",
                      check=check or upstream_has(b"post /p")))

    blocked("a key in a JSON body", post(UP, doc))
    blocked("a key in the path", b"GET http://allowed.test:%d/x/%s HTTP/1.1"
            b"\r\nHost: allowed.test:%d\r\n\r\n" % (UP, KEY, UP))
    blocked("a key in the query", b"GET http://allowed.test:%d/x?k=%s "
            b"HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n" % (UP, KEY, UP))
    blocked("a base64-encoded key in the body",
            post(UP, b'{"b":"' + base64.b64encode(b"key=" + KEY) + b'"}'))
    blocked("a hex-encoded key in the body",
            post(UP, b'{"h":"' + KEY.hex().encode() + b'"}'))
    blocked("a percent-encoded key in the body",
            post(UP, b"q=" + b"".join(b"%%%02X" % c for c in KEY)))
    data = post(UP, doc)
    cut = data.index(KEY) + 8
    blocked("a key split across two TCP writes", None,
            chunks=[(data[:cut], 0.4), (data[cut:], 0)])
    half = len(KEY) // 2
    body = (b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" %
            (len(b"key " + KEY[:half]), b"key " + KEY[:half],
             len(KEY[half:] + b" end"), KEY[half:] + b" end"))
    blocked("a key split across two chunks", post(UP, body, chunked=True))
    # encoded bodies: decoded for the scan (block and redact modes)
    for enc, z in ((b"gzip", gzip.compress), (b"x-gzip", gzip.compress),
                   (b"deflate", zlib.compress),
                   (b"deflate", deflate_raw)):
        what = enc.decode() + (" (raw)" if z is deflate_raw else "")
        blocked("a key in a %s body" % what,
                post(UP, z(doc), b"Content-Encoding: %s\r\n" % enc))
        passes("a clean %s body is forwarded encoded" % what,
               post(UP, z(clean), b"Content-Encoding: %s\r\n" % enc),
               check=upstream_has(b"content-encoding: " + enc))
    blocked("a key in the second gzip member",
            post(UP, gzip.compress(clean) + gzip.compress(doc),
                 b"Content-Encoding: gzip\r\n"))
    blocked("a key in a chunked gzip body",
            post(UP, b"%x\r\n%s\r\n0\r\n\r\n" % (
                len(gzip.compress(doc)), gzip.compress(doc)),
                b"Content-Encoding: gzip\r\n", chunked=True))
    # a key deep in a large compressed body: settled bytes stream on,
    # the key is still found
    big = b'{"p":"' + b"lorem ipsum dolor sit amet " * 20000 + KEY + b'"}'
    blocked("a key after 500 KiB of a gzip body", post(
        UP, gzip.compress(big), b"Content-Encoding: gzip\r\n"))
    bomb = gzip.compress(b"\0" * (8 << 20))
    blocked("a gzip bomb (8 MiB of zeros in %d bytes): 413" % len(bomb),
            post(UP, bomb, b"Content-Encoding: gzip\r\n"), 413, HTTP)
    blocked("a corrupt gzip body: 400",
            post(UP, b"\x1f\x8b\x08\x00garbage-not-deflate" * 4,
                 b"Content-Encoding: gzip\r\n"), 400, HTTP)
    blocked("a truncated gzip body: 400",
            post(UP, gzip.compress(clean)[:-12],
                 b"Content-Encoding: gzip\r\n"), 400, HTTP)
    blocked("junk after a deflate stream: 400",
            post(UP, zlib.compress(clean) + b"junk",
                 b"Content-Encoding: deflate\r\n"), 400, HTTP)
    for ce in (b"br", b"zstd", b"compress", b"gzip, gzip", b"identity, gzip",
               b"gzip\r\nContent-Encoding: gzip"):
        blocked("Content-Encoding %s: 415" % ce.decode().replace("\r\n", " + "),
                post(UP, b"\x1b\x00\x00secret", b"Content-Encoding: %s\r\n"
                     % ce), 415, HTTP)
    passes("Content-Encoding identity is scanned as it is",
           post(UP, clean, b"Content-Encoding: identity\r\n"))
    # no body, nothing to decode: a GET that names a coding passes
    T.append(case("a GET with Content-Encoding br and no body passes", 29,
                  b"GET http://allowed.test:%d/g HTTP/1.1\r\nHost: "
                  b"allowed.test:%d\r\nContent-Encoding: br\r\n"
                  b"Connection: close\r\n\r\n" % (UP, UP), 200, "closed",
                  HTTP, "up", "x", "web", check=upstream_has(b"get /g")))
    # credential_scan log reads nothing it cannot and refuses nothing: a
    # br body is scanned as it is (the key in clear is logged) and passes
    T.append(case("credential_scan log: a br body passes (scanned as is)",
                  29, post(UP, b"\x1b\x00\x00" + KEY,
                           b"Content-Encoding: br\r\n"), 200, "closed",
                  FOUND, "up", "l", "web",
                  check=upstream_has(b"content-encoding: br")))
    # a key as the SNI of an allowed tunnel: a mismatch, reset
    T.append(case("a key as the SNI of an allowed tunnel: reset", 29,
                  b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % TP,
                  200, "reset", "any", "tls",
                  then=sender(client_hello(KEY.decode() + ".attacker.test")),
                  check=has_rec(4001, NET_RESET)))
    return T


def resource_rows(UP, SP, BP):
    """14 and 30 as table rows: slowloris at 1 byte/s, an upstream that
    accepts and never answers, a blackhole destination."""
    T = []
    T.append(case("slowloris: one byte a second gets 408 within the head "
                  "timeout", 14, None, 408, recs=HTTP, wait=8,
                  chunks=[(bytes([c]), 1.0) for c in
                          b"GET http://allowed.test/ HTTP/1.1\r\n"],
                  check=elapsed_below(5.0)))
    T.append(case("an upstream that accepts and never answers: 504 in the "
                  "idle timeout", 30,
                  b"GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test"
                  b":%d\r\n\r\n" % (SP, SP), 504, "closed", HTTP,
                  "silent", rule="web", wait=10, check=elapsed_below(8.0)))
    T.append(case("a POST whose body stops half way: 408 in the idle "
                  "timeout", 30,
                  b"POST http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed."
                  b"test:%d\r\nContent-Length: 100\r\n\r\nonly ten b"
                  % (UP, UP), 408, "closed", HTTP, None, rule="web", wait=10,
                  check=elapsed_below(8.0)))
    T.append(case("CONNECT to a blackhole: 502/504 in the connect timeout", 30,
                  b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: h\r\n\r\n" % BP,
                  (502, 504), "closed", [(4001, NET_FAIL)], False, wait=8,
                  check=elapsed_below(5.0)))
    T.append(case("GET to a blackhole: 502/504 in the connect timeout", 30,
                  b"GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d"
                  b"\r\n\r\n" % (BP, BP), (502, 504), "closed", HTTP, False, wait=8,
                  check=elapsed_below(5.0)))
    return T


# ---------------------------------------------------------------- checks


def has_rec(cls, act):
    def f(res, recs):
        sigs = [H.rec_sig(r) for r in recs]
        return (cls, act) in sigs, sigs
    return f


def upstream_none(res, recs):
    return not res["upstream_heads"], res["upstream_heads"]



def sender(data):
    def f(sock, head):
        sock.sendall(data)
    return f


def not_refused(res, recs):
    acts = [H.rec_sig(r) for r in recs]
    return bool(recs) and (4001, NET_REFUSE) not in acts, acts


def host_is(h):
    def f(res, recs):
        hosts = [r.get("dst_endpoint", {}).get("hostname") or
                 H.rec_host(r) for r in recs]
        return all(x == h for x in hosts), "audit hosts %r" % hosts
    return f


def elapsed_below(sec):
    def f(res, recs):
        return res["elapsed"] < sec, "took %.2f s" % res["elapsed"]
    return f


def single_answer(res, recs):
    return res["raw"].count(b"HTTP/1.") == 1, res["raw"][:300]


def answers(*codes):
    def f(res, recs):
        got = []
        for part in res["raw"].split(b"HTTP/1.1 ")[1:]:
            try:
                got.append(int(part[:3]))
            except ValueError:
                pass
        return tuple(got) == codes, "answers %r" % (got,)
    return f


def body_has(s):
    def f(res, recs):
        return s in res["body"], res["body"][:200]
    return f


def upstream_lacks(*names):
    def f(res, recs):
        heads = res["upstream_heads"]
        bad = [h for h in heads for n in names if n in h.lower()]
        return bool(heads) and not bad, heads
    return f


def upstream_has(s):
    def f(res, recs):
        heads = res["upstream_heads"]
        return any(s in h.lower() for h in heads), heads
    return f


# ---------------------------------------------------------------- running

def run_case(tap, daemons, dns, counters, c):
    for on in c["on"]:
        d = daemons[on]
        label = "[%s] #%d %s" % (on, c["abuse"], c["name"])
        before = {k.name: k.accepts for k in counters}
        heads0 = {k.name: len(k.requests) for k in counters}
        dns0 = {n: dns.count(n) for n in c["nodns"]}
        n0 = len(d.records())
        t0 = time.monotonic()
        status, head, body, state = H.exchange(
            d.port, c["data"], wait=c["wait"], chunks=c["chunks"],
            then=c["then"],
            settle=0.3 if c["state"] == "open" else 1.5)
        elapsed = time.monotonic() - t0
        raw = head + b"\r\n\r\n" + body if head else b""
        recs = H.case_records(d, n0, 1 if c["recs"] == "any" else
                              len(c["recs"]))
        # the dial (an allowed tunnel's upstream may still be accepting)
        want_dials = dict(c.get("dials") or {})
        if c["dial"]:
            want_dials[c["dial"]] = 1
        if want_dials:
            H.poll(lambda: all(k.accepts - before[k.name] >= want_dials.get(
                k.name, 0) for k in counters), 3)
        got_dials = {k.name: k.accepts - before[k.name] for k in counters
                     if k.accepts != before[k.name]}
        ups = []
        for k in counters:
            with k.lock:
                ups += k.requests[heads0[k.name]:]
        res = dict(status=status, head=head, body=body, state=state,
                   raw=raw, elapsed=elapsed, upstream_heads=ups)
        problems = []
        st = c["status"]
        if isinstance(st, tuple):
            if status not in st:
                problems.append("status %r, want one of %r" % (status, st))
        elif status != st:
            problems.append("status %r, want %r" % (status, st))
        if c["state"] is not None and c["state"] != state:
            problems.append("connection %s, want %s" % (state, c["state"]))
        if c["recs"] == "any" and not recs:
            problems.append("no record")
        if recs is None:
            problems.append("no sentinel record: the audit stalled")
        elif c["recs"] != "any" and not H.match_recs(recs, c["recs"]):
            problems.append("records %r, want %r" % (
                [H.rec_sig(r) for r in recs], c["recs"]))
        elif c["rule"] is not None:
            rules = [((r.get("firewall_rule") or {}).get("name"))
                     for r in recs if r.get("class_uid") in (4001, 4002)]
            if c["rule"] not in rules:
                problems.append("rules %r, want %r" % (rules, c["rule"]))
        if c["dial"] is not None and got_dials != want_dials:
            problems.append("upstream accepts %r, want %r" % (got_dials,
                                                               want_dials))
        for n in c["nodns"]:
            if dns.count(n) != dns0[n]:
                problems.append("the resolver was asked for %s" % n)
        if c["check"] is not None and recs is not None and not problems:
            good, why = c["check"](res, recs)
            if not good:
                problems.append("check: %r" % (why,))
        diag = "; ".join(problems)
        if problems and recs:
            diag += "\nrecords: " + " | ".join(
                str({k: r.get(k) for k in ("class_uid", "activity_id",
                                           "status_code", "firewall_rule",
                                           "status_detail", "message")})
                for r in recs)[:1500]
        if c.get("todo"):
            tap.todo(not problems, label, c["todo"], diag)
        else:
            tap.ok(not problems, label, diag)


def special_cases(tap, daemons, dns, counters, UP, EP, tmp):
    d = daemons["x"]
    up, trap3 = counters[0], counters[1]
    # 7. rebinding: one lookup per request, the judged address dialed
    a0, t0 = up.accepts, trap3.accepts
    s, h, body, st = H.exchange(
        d.port, b"CONNECT rebind.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5,
        then=lambda sock, head: sock.sendall(
            b"GET / HTTP/1.1\r\nHost: rebind.test\r\n\r\n"), settle=1.0)
    tap.ok(s == 200 and b"hello from up" in body,
           "#7 rebinding: the first answer (allowed) is dialed", (s, body))
    tap.ok(dns.count("rebind.test", "A") == 1,
           "#7 rebinding: one A question for the tunnel",
           dns.count("rebind.test", "A"))
    s, h, body, st = H.exchange(
        d.port, b"CONNECT rebind.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5)
    tap.ok(s == 403 and up.accepts == a0 + 1 and trap3.accepts == t0,
           "#7 rebinding: the next request sees the private answer: 403, "
           "never dialed", (s, up.accepts - a0, trap3.accepts - t0))
    a0, t0 = up.accepts, trap3.accepts
    s, h, body, st = H.exchange(
        d.port, b"GET http://rebind-http.test:%d/ HTTP/1.1\r\nHost: rebind-"
        b"http.test:%d\r\n\r\nGET http://rebind-http.test:%d/ HTTP/1.1\r\n"
        b"Host: rebind-http.test:%d\r\n\r\n" % (UP, UP, UP, UP), wait=5)
    tap.ok(s == 200 and trap3.accepts == t0 and
           dns.count("rebind-http.test", "A") == 2,
           "#7 rebinding on keep-alive: each request resolves once and the "
           "private answer is never dialed",
           (s, trap3.accepts - t0, dns.count("rebind-http.test", "A")))
    # retry to the next judged address, without a second lookup
    a0, t0 = up.accepts, trap3.accepts
    s, h, body, st = H.exchange(
        d.port, b"CONNECT retry.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5,
        then=lambda sock, head: sock.sendall(
            b"GET / HTTP/1.1\r\nHost: retry.test\r\n\r\n"), settle=1.0)
    tap.ok(s == 200 and b"hello from up" in body and
           dns.count("retry.test", "A") == 1 and trap3.accepts == t0,
           "#7 a refused first address: the next judged one is dialed, no "
           "second lookup",
           (s, body[:80], dns.count("retry.test", "A"), trap3.accepts - t0))
    recs = [r for r in d.records() if H.rec_host(r) == "retry.test"]
    tap.ok(bool(recs) and (recs[-1].get("dst_endpoint") or {}).get("ip") ==
           "127.0.0.1", "#7 the audit names the address dialed",
           [r.get("dst_endpoint") for r in recs])

    # 34. an IP literal allowed, a name for it not; a name allowed, its
    # address not
    n0 = len(d.records())
    s, _, _, _ = H.exchange(
        d.port, b"CONNECT byname.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5)
    tap.ok(s == 403 and dns.count("byname.test") == 0,
           "#34 a name for an allowed IP literal: 403 by name, never resolved",
           (s, dns.count("byname.test")))
    s, _, _, _ = H.exchange(
        d.port, b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5,
        then=lambda sock, head: sock.sendall(
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"), settle=0.5)
    tap.ok(s == 200, "#34 the IP literal itself is allowed (cidr)", s)
    s, _, _, _ = H.exchange(
        d.port, b"CONNECT ipname.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5)
    tap.ok(s == 403 and dns.count("ipname.test") >= 1,
           "#34 an allowed name whose address the policy does not name: 403 "
           "(address)", (s, dns.count("ipname.test")))
    s, _, _, _ = H.exchange(
        d.port, b"CONNECT 127.0.0.4:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5)
    tap.ok(s == 403, "#34 ... and that address as a literal: 403", s)

    # 12. wildcard shapes refused when the policy loads
    for pat in ("*", "*.com", "ex*ample.com", "*.*.example.com"):
        f = os.path.join(tmp, "wild.yaml")
        with open(f, "w") as fh:
            fh.write("version: 1\nname: w\nnetwork:\n  policies:\n"
                     "    - name: w\n      endpoints:\n"
                     "        - {host: \"%s\", port: 443}\n" % pat)
        r = H.subprocess.run([os.environ["AXGATE"], "policy", "check", f],
                             stdout=H.subprocess.PIPE,
                             stderr=H.subprocess.STDOUT)
        tap.ok(r.returncode != 0, "#12 host %s is refused at load" % pat,
               r.stdout.decode("utf-8", "replace"))

    # 33. reload tightening the policy while a tunnel is open
    pol = open(d.policy).read()
    s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
    s.sendall(b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % EP)
    first = s.recv(4096)
    tight = pol.replace("name: abuse-explicit", "name: abuse-tight").replace(
        "%d, %d]}\n        - {host: other.test" % (EP, counters[4].port),
        "%d]}\n        - {host: other.test" % counters[4].port)
    tap.ok(tight != pol, "#33 a tighter policy (allowed.test loses the echo "
           "port)")
    with open(d.policy, "w") as fh:
        fh.write(tight)
    nlog = d.read_log().count("reload (SIGHUP): policy abuse-tight")
    d.sighup()
    tap.ok(H.poll(lambda: d.read_log().count(
        "reload (SIGHUP): policy abuse-tight") > nlog, 10),
        "#33 SIGHUP loads it")
    s.sendall(b"after-reload")
    got = b""
    s.settimeout(5)
    try:
        while len(got) < 12:
            x = s.recv(4096)
            if not x:
                break
            got += x
    except OSError:
        pass
    tap.ok(first.startswith(b"HTTP/1.1 200") and got == b"after-reload",
           "#33 the tunnel opened before the reload keeps its policy",
           (first[:40], got))
    s.close()
    st, _, _, _ = H.exchange(
        d.port, b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % EP, wait=5)
    tap.ok(st == 403, "#33 a new tunnel to the same place is refused", st)
    with open(d.policy, "w") as fh:
        fh.write("version: 1\nname: broken\nnetwork: [\n")
    d.sighup()
    tap.ok(H.poll(lambda: "reload (SIGHUP) failed" in d.read_log(), 10),
           "#33 a broken policy fails to reload")
    st, _, _, _ = H.exchange(
        d.port, b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % UP, wait=5,
        then=lambda sock, head: sock.sendall(
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"), settle=0.3)
    tap.ok(st == 200, "#33 ... and the tight policy stays in force", st)


def final_checks(tap, daemons, counters):
    for on, d in daemons.items():
        recs = d.records()
        bad = [r for r in recs if "unparsable" in r]
        tap.ok(not bad, "[%s] every audit line is JSON (%d records)" %
               (on, len(recs)), bad[:3])
        ran, good, out = H.validate(d.audit)
        if ran:
            tap.ok(good, "[%s] every audit record passes ocsf-validate" % on,
                   out[-2000:])
        else:
            tap.skip("[%s] ocsf-validate" % on, out)
        secret = [r for r in recs if "qwertyuiopasdfgh" in str(r).lower()]
        tap.ok(not secret, "[%s] the key never appears in the audit" % on,
               str(secret)[:500])


# ---------------------------------------------------------------- resources

SPECIAL = {7, 12, 33, 34, 14, 30}  # cases with rows outside the table


def flood(port, payload, n, wait=8.0):
    """n connections at once, each sending payload; returns the statuses."""
    out = [None] * n

    def one(i):
        try:
            st, _, _, _ = H.exchange(port, payload, wait=wait, settle=0.2)
            out[i] = st
        except OSError as e:
            out[i] = str(e)
    ths = [H.threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(wait + 5)
    return out


def resource_cases(tap, daemons, dns, counters, UP, EP, SP, tmp):
    d = daemons["x"]
    pid = d.proc.pid
    # 14. absurd heads from 48 clients at once: answered, memory bounded
    # (what a proxy that buffered them would hold: 48 MiB).  On the
    # daemon whose policy no reload has changed.
    d = daemons["l"]
    pid = d.proc.pid
    w = H.RssWatch(pid)
    n0 = len(d.records())
    sts = flood(d.port, b"CONNECT " + b"a" * (1 << 20) +
                b":443 HTTP/1.1\r\n\r\n", 24)
    sts += flood(d.port, b"GET http://allowed.test:%d/ HTTP/1.1\r\nX-A: " %
                 UP + b"b" * (1 << 20), 24)
    grew = w.stop()
    tap.ok(all(s in (400, 414, 431) for s in sts),
           "#14 48 concurrent 1 MiB heads (host, field without CRLF): "
           "400/414/431", sts)
    tap.ok(grew < 24 * 1024, "#14 ... while the proxy's memory grew by "
           "%d KiB (bound 24 MiB; 48 MiB were sent)" % grew, grew)
    H.poll(lambda: len(d.records()) >= n0 + 48, 5)
    tap.ok(len(d.records()) - n0 == 48, "#14 ... one audit record each",
           len(d.records()) - n0)

    # 30. idle tunnels: all answered, bounded memory, all closed by the
    # idle timeout with two records each
    N = 300
    silent = counters[4]
    act0 = d.metric("axgate_connections_active")
    a0 = silent.accepts
    n0 = len(d.records())
    base = H.rss_kb(pid)
    socks, ok200, other = [], 0, []
    for i in range(0, N, 25):  # in batches: the upstream accepts slowly
        batch = []
        for _ in range(25):
            s = socket.create_connection(("127.0.0.1", d.port), timeout=8)
            s.sendall(b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n"
                      b"\r\n" % SP)
            batch.append(s)
        for s in batch:
            try:
                got = s.recv(100)
                if got.startswith(b"HTTP/1.1 200"):
                    ok200 += 1
                else:
                    other.append(got[:40])
            except OSError as e:
                other.append(str(e))
        socks += batch
    H.poll(lambda: silent.accepts - a0 >= N, 5)
    per = (H.rss_kb(pid) - base) * 1024 // N
    # the workers publish their counters now and then: wait for them
    H.poll(lambda: d.metric("axgate_connections_active") >= N, 5)
    act = d.metric("axgate_connections_active")
    tap.ok(ok200 == N and silent.accepts - a0 == N,
           "#30 %d idle tunnels opened, one upstream dial each" % N,
           (ok200, silent.accepts - a0, other[:5]))
    tap.ok(act >= N, "#30 ... counted in axgate_connections_active",
           (act0, act))
    tap.diag("#30 proxy memory per idle tunnel: %d bytes (sanitizer "
             "builds count their redzones)" % per)
    tap.ok(per < 256 * 1024, "#30 ... memory per idle tunnel under 256 "
           "KiB", per)
    closed = 0
    for s in socks:
        s.settimeout(15)
        try:
            if s.recv(100) == b"":
                closed += 1
        except OSError:
            closed += 1
        s.close()
    tap.ok(closed == N, "#30 ... all ended by the idle timeout", closed)
    H.poll(lambda: d.metric("axgate_connections_active") <= act0, 5)
    tap.ok(d.metric("axgate_connections_active") <= act0,
           "#30 ... and no longer counted as active")
    H.poll(lambda: len(d.records()) >= n0 + 2 * N, 10)
    recs = d.records()[n0:]
    sigs = [H.rec_sig(r) for r in recs]
    tap.ok(sigs.count((4001, NET_OPEN)) == N and
           sigs.count((4001, NET_CLOSE)) == N,
           "#30 ... two audit records each (open, close)",
           (sigs.count((4001, NET_OPEN)), sigs.count((4001, NET_CLOSE))))

    # 30. a client that never reads a tunnel answering everything:
    # backpressure stops the transfer, memory stays bounded.  What the
    # client gets to send is what the kernel buffers on the way: the
    # socket buffers grow up to tcp_rmem's and tcp_wmem's maxima (the
    # proxy's two sockets, the upstream's, the client's sending side)
    # and the proxy's two pipes (1 MiB at most each).  Past that much,
    # every further byte would be the proxy reading what it cannot pass on.
    def sysmax(name):
        with open("/proc/sys/net/ipv4/" + name) as f:
            return int(f.read().split()[-1])
    bound = 4 * (sysmax("tcp_rmem") + sysmax("tcp_wmem")) + (2 << 20)
    w = H.RssWatch(pid)
    s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.sendall(b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % EP)
    head = s.recv(100)
    sent = 0
    s.settimeout(3)
    chunk = b"x" * 65536
    try:
        while sent < bound + (32 << 20):
            sent += s.send(chunk)
    except (socket.timeout, OSError):
        pass
    grew = w.stop()
    s.close()
    tap.ok(head.startswith(b"HTTP/1.1 200") and sent <= bound,
           "#30 a client that never reads: the proxy stops reading from it "
           "(%d KiB accepted; the kernel's buffers on the way hold up to "
           "%d KiB)" % (sent >> 10, bound >> 10), (head[:20], sent))
    tap.ok(grew < 16 * 1024, "#30 ... and holds under 16 MiB for it (grew "
           "%d KiB)" % grew, grew)

    # 30. a policy with 5000 endpoints: decisions still right and prompt
    n = 5000
    eps = "".join("        - {host: h%d.test, port: %d}\n" % (i, UP)
                  for i in range(n))
    dns.set("h%d.test" % (n - 1), A=[["127.0.0.1"]])
    big = ("version: 1\nname: abuse-big\nnetwork:\n  mode: proxy\n"
           "  policies:\n    - name: many\n      endpoints:\n" + eps +
           "    - name: loop\n      endpoints:\n"
           "        - {cidr: 127.0.0.1/32, port: %d}\n" % UP)
    t0 = time.monotonic()
    b = H.Daemon(tmp, "big", big, dns.port, {"head_timeout_ms": 1500})
    daemons["big"] = b
    if not b.ok():
        tap.ok(False, "#30 axgate serve loads a policy of %d endpoints" % n,
               b.read_log()[-2000:])
        return
    tap.ok(True, "#30 axgate serve loads a policy of %d endpoints (%.1f s)"
           % (n, time.monotonic() - t0))

    def deny_time(port):
        t = time.monotonic()
        for _ in range(20):
            st, _, _, _ = H.exchange(port, b"CONNECT nope.test:%d HTTP/1.1"
                                     b"\r\nHost: h\r\n\r\n" % UP, settle=0.01)
            if st != 403:
                return None
        return (time.monotonic() - t) / 20
    tb, ts = deny_time(b.port), deny_time(d.port)
    tap.ok(tb is not None, "#30 ... a host it does not name: 403")
    if tb is not None and ts:
        tap.diag("#30 deny round trip: %.2f ms with %d endpoints, %.2f ms "
                 "with the small policy (ratio %.2f)" % (tb * 1e3, n,
                                                         ts * 1e3, tb / ts))
    st, _, body, _ = H.exchange(
        b.port, b"CONNECT h%d.test:%d HTTP/1.1\r\nHost: h\r\n\r\n" % (n - 1,
                                                                       UP),
        then=lambda sock, head: sock.sendall(b"GET / HTTP/1.1\r\nHost: x"
                                             b"\r\n\r\n"), settle=0.5)
    tap.ok(st == 200 and b"hello from up" in body,
           "#30 ... its last endpoint is allowed and dialed", (st, body[:60]))


# ---------------------------------------------------------------- coverage

# Cases whose rows live in other suites: (file, a test name in it).
ELSEWHERE = {
    22: [("tests/integration/proxy-matrix.py", "SNI")],
    29: [("tests/integration/inference-abuse.py", "#29")],
    25: [("tests/integration/inference-serve.sh",
          "Host other than inference.local is refused"),
         ("tests/integration/inference-run.sh",
          "another Host on the inference port is refused"),
         ("tests/integration/inference-abuse.py", "#25")],
    26: [("tests/integration/inference-serve.sh", "is refused with 404"),
         ("tests/integration/inference-abuse.py", "#26")],
    27: [("tests/integration/inference-serve.sh", "a query is refused"),
         ("tests/integration/inference-abuse.py", "#27")],
    28: [("tests/integration/inference-run.sh",
          "the job's own Authorization never got through"),
         ("tests/integration/inference-abuse.py", "#28")],
    31: [("tests/integration/inference-serve.sh",
          "max_tokens above max_tokens_per_request: 429"),
         ("tests/integration/inference-serve.sh",
          "a stalled stream ends with an error event"),
         ("tests/integration/inference-abuse.py", "#31")],
    32: [("tests/integration/inference-abuse.py", "#32")],
}
# Parts of cases judged not applicable, with the reason (the rest of each
# case has rows).
NOT_APPLICABLE = {
    22: "inner Host / HTTP/2 :authority checks need TLS termination, which "
        "the proxy does not do (tunnels are opaque past the ClientHello)",
    29: "a key in a WebSocket frame: the plain path removes Upgrade (case "
        "24), so frames only travel inside opaque CONNECT tunnels",
}


def coverage(tap, cases):
    """The ratchet: every case 1-35 of PROXY-ABUSE-CASES has a row here
    or in a suite named in ELSEWHERE (whose file must hold the test)."""
    top = os.environ.get("top_srcdir") or os.path.join(here, "..", "..")
    rows = {}
    for c in cases:
        rows[c["abuse"]] = rows.get(c["abuse"], 0) + len(c["on"])
    for n in SPECIAL | {29, 35}:
        rows.setdefault(n, 0)
    for n in range(1, 36):
        where = []
        if n in rows:
            where.append("proxy-abuse.py (%s)" % (
                "%d table rows" % rows[n] if rows[n] else "special cases"))
        for f, name in ELSEWHERE.get(n, []):
            try:
                with open(os.path.join(top, f), encoding="utf-8") as fh:
                    if name in fh.read():
                        where.append("%s: %s" % (os.path.basename(f), name))
            except OSError:
                pass
        na = NOT_APPLICABLE.get(n)
        tap.ok(bool(where), "abuse case %d has rows: %s%s" % (
            n, "; ".join(where) or "none",
            " (not applicable: %s)" % na if na else ""),
            "add rows for case %d or record why it does not apply" % n)

if __name__ == "__main__":
    sys.exit(main())
