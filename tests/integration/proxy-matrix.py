#!/usr/bin/env python3
# curl through a real `axgate serve`: the matrix {CONNECT, plain HTTP} x
# {TLS, plain} x {allowed, denied host} x {allowed, denied port}, against
# local HTTP and HTTPS upstreams (a test CA made with the openssl command),
# names answered by a DNS server of the test's own.  Each cell checks the
# status, the audit records of the decision and whether the upstream saw
# a connection.  Prints TAP.

import importlib.util
import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "proxy_harness", os.path.join(here, "proxy-harness.py"))
H = importlib.util.module_from_spec(spec)
spec.loader.exec_module(H)


def main():
    if os.geteuid() != 0:
        H.skip_all("serve drops to an unprivileged user: needs root")
    for tool in ("curl", "openssl"):
        if shutil.which(tool) is None:
            H.skip_all("the %s command is not installed" % tool)
    tap = H.Tap()
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    d = None
    try:
        certs = H.make_ca(tmp, ["allowed.test", "denied.test"])
        if certs is None:
            H.skip_all("openssl could not make a test CA")
        ca = certs[0]
        dns = H.DnsServer()
        dns.set("allowed.test", A=[["127.0.0.1"]])
        dns.set("denied.test", A=[["127.0.0.1"]])
        ctx = H.server_ctx(certs[1], certs[2])
        ups = {
            ("plain", "allowed"): H.Counter("127.0.0.1", 0, "http", "http"),
            ("plain", "denied"): H.Counter("127.0.0.1", 0, "http", "http2"),
            ("tls", "allowed"): H.Counter("127.0.0.1", 0, "http", "https",
                                          tls=ctx),
            ("tls", "denied"): H.Counter("127.0.0.1", 0, "http", "https2",
                                         tls=ctx),
        }
        ports = {k: v.port for k, v in ups.items()}
        policy = """version: 1
name: matrix
network:
  mode: proxy
  policies:
    - name: web
      endpoints:
        - {host: allowed.test, ports: [%d, %d]}
    - name: loop
      endpoints:
        - {cidr: 127.0.0.1/32, ports: [%d, %d]}
""" % (ports[("plain", "allowed")], ports[("tls", "allowed")],
            ports[("plain", "allowed")], ports[("tls", "allowed")])
        limits = {"tls_ports": "[%d, %d]" % (ports[("tls", "allowed")],
                                            ports[("tls", "denied")])}
        d = H.Daemon(tmp, "m", policy, dns.port, limits)
        if not d.ok():
            tap.ok(False, "axgate serve starts", d.read_log())
            return tap.done()
        tap.ok(True, "axgate serve starts")
        px = "http://127.0.0.1:%d" % d.port
        for mode in ("connect", "plain"):
            for tr in ("plain", "tls"):
                for host in ("allowed", "denied"):
                    for port in ("allowed", "denied"):
                        cell(tap, d, ups, ports, px, ca, mode, tr, host, port)
        ran, good, out = H.validate(d.audit)
        if ran:
            tap.ok(good, "every audit record passes ocsf-validate",
                   out[-2000:])
        else:
            tap.skip("ocsf-validate", out)
        return tap.done()
    finally:
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def cell(tap, d, ups, ports, px, ca, mode, tr, host, port):
    up = ups[(tr, port)]
    allow = host == "allowed" and port == "allowed"
    target = "%s.test:%d" % (host, up.port)
    name = "%s %s, %s host, %s port" % (
        "CONNECT" if mode == "connect" else "plain HTTP",
        "TLS" if tr == "tls" else "plain", host, port)
    before = {k: u.accepts for k, u in ups.items()}
    n0 = len(d.records())
    if mode == "plain" and tr == "tls":
        # curl always tunnels https:// through a proxy; an https:// target
        # in absolute form is refused whatever its host: use CONNECT
        st, _, _, state = H.exchange(
            d.port, b"GET https://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n" % (
                target.encode(), target.encode()), wait=5)
        want_status, body, want_recs, dial = 400, "", [(4002, None)], False
        got_status, got_body = st, ""
    else:
        scheme = "https" if tr == "tls" else "http"
        args = ["-x", px, "--cacert", ca, "-o", "-", "-w",
                "\n%{http_code} %{http_connect}",
                "%s://%s/m.txt" % (scheme, target)]
        if mode == "connect" and tr == "plain":
            args.insert(0, "--proxytunnel")
        rc, out, err = H.curl(args)
        body, _, codes = out.rpartition("\n")
        code, connect = (codes.split() + ["000", "000"])[:2]
        if mode == "connect":
            got_status = int(connect) if not allow else int(code)
            want_status = 403 if not allow else 200
            want_recs = [(4001, 1), (4001, 2)] if allow else [(4001, 5)]
        else:
            got_status = int(code)
            want_status = 403 if not allow else 200
            want_recs = [(4002, None)]
        dial = allow
        got_body = body
    recs = H.case_records(d, n0, len(want_recs))
    if dial:
        H.poll(lambda: up.accepts > before[(tr, port)], 3)
    dials = {k: u.accepts - before[k] for k, u in ups.items()
             if u.accepts != before[k]}
    want_dials = {(tr, port): 1} if dial else {}
    problems = []
    if got_status != want_status:
        problems.append("status %r, want %r" % (got_status, want_status))
    if dial and "hello from" not in got_body:
        problems.append("body %r" % got_body[:100])
    if recs is None or not H.match_recs(recs, want_recs):
        problems.append("records %r, want %r" % (
            recs and [H.rec_sig(r) for r in recs], want_recs))
    if dials != want_dials:
        problems.append("upstream accepts %r, want %r" % (dials, want_dials))
    if recs and not problems and not (mode == "plain" and tr == "tls"):
        rules = [(r.get("firewall_rule") or {}).get("name") for r in recs]
        if allow and "web" not in rules:
            problems.append("rules %r, want web" % rules)
    tap.ok(not problems, name, "; ".join(problems))


if __name__ == "__main__":
    sys.exit(main())
