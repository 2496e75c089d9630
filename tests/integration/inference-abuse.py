#!/usr/bin/env python3
# The inference virtual host (http://inference.local through the proxy)
# against the abuse cases that concern it (PROXY-ABUSE-CASES 25-28, 31,
# 32): Host and path tricks, the job's own credentials and spoofed
# internal headers, token budget edge cases, and a backend that
# misbehaves.  Each row checks the status, the connection state, the
# audit records written and how many requests reached the backend; the
# backend records every head it gets, so the key it was given can be
# checked too.
#
# Usage: inference-abuse.py (AXGATE, top_srcdir in the environment).
# Prints TAP.

import gzip
import importlib.util
import json
import os
import shutil
import socket
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "proxy_harness", os.path.join(here, "proxy-harness.py"))
H = importlib.util.module_from_spec(spec)
spec.loader.exec_module(H)

HOSTKEY = "sk-abuse-host-held-0123456789abcdef"
JOBKEY = "sk-job-own-key-9876543210fedcba"
AWSKEY = "AKIAQWERTYUIOPASDFGH"
STREAM_LINE = 65536  # limits.max_stream_line of the daemon
MAX_BODY = 1 << 20  # limits.max_response_body
LONG_SSE = (b'data: {"x":"' + b"y" * (STREAM_LINE - 20) + b'"}\n\n'
            b"data: [DONE]\n\n: bye")


class Backend(H.Server):
    """An OpenAI-shaped backend whose model picks a misbehaviour; every
    request head it reads is kept in .heads."""

    def __init__(self):
        self.heads = []
        H.Server.__init__(self, timeout=20)

    def handle(self, c, n):
        buf = b""
        while True:
            r = H.read_request(c, buf)
            if r is None:
                return
            head, body, buf = r
            with self.lock:
                self.heads.append(head)
            try:
                model = json.loads(body).get("model", "")
            except ValueError:
                model = ""
            if not self.answer(c, model):
                return

    @staticmethod
    def ok_body(usage):
        return json.dumps({"id": "x", "object": "chat.completion",
                           "choices": [{"index": 0, "message": {
                               "role": "assistant",
                               "content": "hello from abuse"}}],
                           "usage": usage}).encode()

    def answer(self, c, model):
        """Answer one request; False to close the connection."""
        if model == "up101":
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: "
                      b"websocket\r\nConnection: Upgrade\r\n\r\nraw bytes")
            time.sleep(0.5)
            return False
        if model in ("continue", "continue3"):
            c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" *
                      (3 if model == "continue3" else 40000))
            b = self.ok_body({"prompt_tokens": 1, "completion_tokens": 1})
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n"
                      % len(b) + b)
            return False
        if model == "clte":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-"
                      b"Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            return False
        if model == "bighdr":
            c.sendall(b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"p" * 1000 +
                      b"\r\n" * 1 + (b"X-Pad: " + b"p" * 1000 + b"\r\n") *
                      100 + b"Content-Length: 2\r\n\r\n{}")
            return False
        if model == "forever":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"
                      b"\r\nTransfer-Encoding: chunked\r\n\r\n")
            ev = b'data: {"choices":[{"delta":{"content":"x"}}]}\n\n'
            end = time.monotonic() + 15
            while time.monotonic() < end:
                c.sendall(b"%x\r\n%s\r\n" % (len(ev), ev))
                time.sleep(0.01)
            return False
        if model == "hugeline":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"
                      b"\r\nTransfer-Encoding: chunked\r\n\r\n")
            line = b"data: " + b"z" * (3 << 20)
            for i in range(0, len(line), 65536):
                part = line[i:i + 65536]
                c.sendall(b"%x\r\n%s\r\n" % (len(part), part))
            time.sleep(3)
            return False
        if model == "longline":
            # a line just under max_stream_line, in small pieces, and a
            # last line without its newline
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"
                      b"\r\nTransfer-Encoding: chunked\r\n\r\n")
            for i in range(0, len(LONG_SSE), 4000):
                part = LONG_SSE[i:i + 4000]
                c.sendall(b"%x\r\n%s\r\n" % (len(part), part))
                time.sleep(0.002)
            c.sendall(b"0\r\n\r\n")
            return True
        if model == "bigbody":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json"
                      b"\r\nContent-Length: %d\r\n\r\n" % (2 * MAX_BODY))
            c.sendall(b" " * (2 * MAX_BODY))
            return False
        if model == "bigclose":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json"
                      b"\r\n\r\n")
            try:
                for _ in range(2 * MAX_BODY // 65536):
                    c.sendall(b" " * 65536)
            except OSError:
                pass
            return False
        if model == "negusage":
            usage = {"prompt_tokens": -5, "completion_tokens": -7,
                     "total_tokens": -12}
        elif model == "bigusage":
            usage = {"prompt_tokens": 10 ** 30,
                     "completion_tokens": 18446744073709551617,
                     "total_tokens": 1e300}
        else:
            usage = {"prompt_tokens": 3, "completion_tokens": 2,
                     "total_tokens": 5}
        b = self.ok_body(usage)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(b) + b)
        return True

    def count(self):
        with self.lock:
            return len(self.heads)


def chat(model, extra="", content="hi"):
    return ('{"model":"%s","messages":[{"role":"user","content":"%s"}]%s}'
            % (model, content, extra)).encode()


def req(body, path=b"/v1/chat/completions", host=b"inference.local",
        target=b"http://inference.local", extra=b""):
    return (b"POST " + target + path + b" HTTP/1.1\r\nHost: " + host +
            b"\r\nContent-Type: application/json\r\n" + extra +
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


def main():
    if os.geteuid() != 0:
        H.skip_all("serve drops to an unprivileged user: needs root")
    tap = H.Tap()
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    d = None
    try:
        be = Backend()
        routes = "".join(
            '    - {name: %s, provider: openai, endpoint: "http://127.0.0.1:'
            '%d/v1", model: %s, api_key_env: AXG_ABUSE_KEY}\n' % (m, be.port,
                                                                  m)
            for m in ("gpt", "up101", "continue", "continue3", "clte",
                      "bighdr", "forever", "hugeline", "longline", "bigbody",
                      "bigclose", "negusage", "bigusage"))
        policy = ("version: 1\nname: inference-abuse\nnetwork:\n  mode: "
                  "proxy\ninference:\n  default_provider: gpt\n  routes:\n"
                  + routes + "  token_budget:\n    max_tokens_per_request: "
                  "1000\n    max_tokens_per_hour: 1000000000\n"
                  "    action_on_exhaust: reject\n"
                  "safety:\n  credential_scan: block\n")
        os.environ["AXG_ABUSE_KEY"] = HOSTKEY
        dns = H.DnsServer()
        d = H.Daemon(tmp, "inf", policy, dns.port,
                     {"idle_timeout_ms": 2000, "head_timeout_ms": 2000,
                      "max_stream_line": STREAM_LINE,
                      "max_response_body": MAX_BODY},
                     config_text='inference_listeners: ["127.0.0.1:0"]\n')
        if not d.ok():
            tap.ok(False, "axgate serve starts", d.read_log()[-2000:])
            return tap.done()
        tap.ok(True, "axgate serve starts with inference routes")
        run(tap, d, be)
        keepalive(tap, d, be)
        recs = d.records()
        tap.ok(not [r for r in recs if "unparsable" in r],
               "every audit line is JSON (%d records)" % len(recs))
        text = open(d.audit, errors="replace").read() + d.read_log()
        where = [line[:300] for line in text.splitlines()
                 if HOSTKEY in line or JOBKEY in line]
        tap.ok(not where, "neither key is in the audit or the log", where)
        ran, good, out = H.validate(d.audit)
        if ran:
            tap.ok(good, "every audit record passes ocsf-validate",
                   out[-2000:])
        else:
            tap.skip("ocsf-validate", out)
    finally:
        if d is not None:
            d.stop()
        if not os.environ.get("AXG_KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


def row(tap, d, be, label, data, status, state=None, nrecs=None,
        reached=None, wait=6.0, check=None, chunks=None, settle=0.5):
    """One request: status (int or tuple), connection state (None: any),
    the count of audit records it wrote, whether the backend got it."""
    c0 = be.count()
    n0 = len(d.records())
    t0 = time.monotonic()
    st, head, body, cs = H.exchange(d.port, data, wait=wait, settle=settle,
                                    chunks=chunks)
    el = time.monotonic() - t0
    recs = H.case_records(d, n0, nrecs or 1)
    problems = []
    want = status if isinstance(status, tuple) else (status,)
    if st not in want:
        problems.append("status %r, want %r" % (st, status))
    if state is not None and cs != state:
        problems.append("connection %s, want %s" % (cs, state))
    if recs is None:
        problems.append("the audit stalled")
    elif nrecs is not None and len(recs) != nrecs:
        problems.append("records %r, want %d" % (
            [H.rec_sig(r) for r in recs], nrecs))
    got = be.count() - c0
    if reached is not None and got != reached:
        problems.append("the backend got %d requests, want %d" % (got,
                                                                 reached))
    if check is not None and not problems:
        good, why = check(dict(status=st, head=head, body=body, recs=recs,
                               heads=be.heads[c0:], elapsed=el))
        if not good:
            problems.append("check: %r" % (why,))
    tap.ok(not problems, label, "; ".join(problems) +
           ("\n" + body[:300].decode("utf-8", "replace") if problems else ""))


def no_echo(*secrets):
    def f(r):
        bad = [s for s in secrets if s in r["head"] + r["body"]]
        return not bad, bad
    return f


def audit_lacks(*secrets):
    def f(r):
        text = json.dumps(r["recs"])
        bad = [x for x in secrets if x in text]
        return not bad, (bad, text[:600])
    return f


def audit_says(what):
    def f(r):
        text = json.dumps(r["recs"])
        return what in text, text[:600]
    return f


def line_cut(r):
    """The stream ended with an error event naming max_stream_line, no
    line longer than that reached the client, the audit says why."""
    body = H.dechunk(r["body"])
    longest = max(len(x) for x in body.split(b"\n"))
    text = json.dumps(r["recs"])
    good = (b"event: error" in body and b"max_stream_line" in body and
            longest <= STREAM_LINE and "max_stream_line" in text)
    return good, (longest, body[-300:], text[:600])


def tokens(r):
    """The 6003 record's token counts are sane numbers."""
    for x in r["recs"]:
        if x.get("class_uid") == 6003:
            u = (x.get("ai_model") or {})
            u = x.get("usage") or (x.get("unmapped") or {}).get("usage") or u
            text = json.dumps(x)
            return ('"prompt_tokens":-' not in text.replace(" ", "") and
                    "e+" not in text and "1e300" not in text), text[:400]
    return False, "no 6003 record"


def run(tap, d, be):
    R = lambda label, *a, **k: row(tap, d, be, label, *a, **k)  # noqa
    # 25. no injection where the request is not for inference.local
    R("#25 inference.local target with Host: attacker.test: 400, no "
      "injection", req(chat("gpt"), host=b"attacker.test"), 400, "closed",
      reached=0)
    R("#25 attacker target with Host: inference.local: 400",
      req(chat("gpt"), target=b"http://attacker.test"), 400, "closed",
      reached=0)
    R("#25 the backend's own address with Host of it: 403 by policy, no "
      "key", req(chat("gpt"), target=b"http://127.0.0.1:%d" % be.port,
                 host=b"127.0.0.1:%d" % be.port), 403, "closed", 1, 0)
    R("#25 inference.local. (trailing dot) is the inference host",
      req(chat("gpt"), target=b"http://inference.local.",
          host=b"inference.local."), (200, 400), None, reached=None)
    # 26. paths
    for p in (b"/v1/%252Fchat/completions", b"/v1/chat/completions%23frag",
              b"/v1\\chat/completions", b"/v1/./chat/completions",
              b"//v1/chat/completions", b"/V1/CHAT/COMPLETIONS"):
        R("#26 path %s: refused, nothing forwarded" % p.decode(),
          req(chat("gpt"), path=p), (400, 404), reached=0)
    # 27. queries
    for q in (b"?api_key=x&API_KEY=y", b"?api%5Fkey=" + JOBKEY.encode(),
              b"?q=%zz" + JOBKEY.encode()):
        R("#27 query %s: 400, not echoed" % q.decode()[:20],
          req(chat("gpt"), path=b"/v1/chat/completions" + q), (400, 404),
          reached=0, check=no_echo(JOBKEY.encode(), b"%zz"))
    # the audit never holds a refused request's query, nor a credential
    # in its path (redacted as in other plain-HTTP records)
    no_key = audit_lacks(JOBKEY, AWSKEY)
    R("#27 an unknown path with a key in its query: 404, not in the "
      "audit", req(chat("gpt"), path=b"/v1/nope?key=" + JOBKEY.encode()),
      404, reached=0, check=no_key)
    R("#27 an over-long path with a key in its query: 404, not in the "
      "audit", req(chat("gpt"), path=b"/v1/" + b"x" * 80 + b"?key=" +
                   JOBKEY.encode()), 404, reached=0, check=no_key)
    R("#27 Host not inference.local, a key in the query: 400, not in the "
      "audit", req(chat("gpt"), host=b"attacker.test",
                   path=b"/v1/chat/completions?k=" + JOBKEY.encode()),
      400, reached=0, check=no_key)
    R("#27 an unknown path with an AWS key in it: 404, redacted in the "
      "audit", req(chat("gpt"), path=b"/v1/" + AWSKEY.encode() + b"/x"),
      404, reached=0, check=lambda r: (
          no_key(r)[0] and "REDACTED" in json.dumps(r["recs"]),
          json.dumps(r["recs"])[:600]))
    R("#27 ?beta=true on an OpenAI path: 400, the audit keeps the query",
      req(chat("gpt"), path=b"/v1/chat/completions?beta=true"), 400,
      reached=0, check=lambda r: ("beta=true" in json.dumps(r["recs"]),
                                  json.dumps(r["recs"])[:600]))
    R("#27 a placeholder in the prompt is not a credential",
      req(chat("gpt", content="my key is sk-your-key-here or ${API_KEY}")),
      200, reached=1)
    # 28. the job's credentials and spoofed internal headers
    spoof = (b"Authorization: Bearer " + JOBKEY.encode() + b"\r\n"
             b"x-api-key: " + JOBKEY.encode() + b"\r\n"
             b"X-Forwarded-For: 10.1.2.3\r\nForwarded: for=10.1.2.3\r\n"
             b"X-Real-IP: 10.1.2.3\r\nX-Axgate-Sandbox: spoofed\r\n"
             b"X-Axgate-Route: claude\r\nConnection: Authorization, "
             b"x-api-key, keep-alive\r\n")

    def injected(r):
        h = b"\n".join(r["heads"]).lower()
        bad = [s for s in (JOBKEY.lower().encode(), b"x-forwarded-for",
                           b"forwarded:", b"x-real-ip", b"x-axgate")
               if s in h]
        good = b"authorization: bearer " + HOSTKEY.encode() in h
        return good and not bad, (good, bad, h[:400])
    R("#28 the job's Authorization and x-api-key are replaced, spoofed "
      "headers dropped, Connection: Authorization cannot drop the key",
      req(chat("gpt"), extra=spoof), 200, reached=1, check=injected)
    # 29. an encoded prompt cannot slip past the scanner
    R("#29 a gzip-encoded prompt with a key: refused, nothing forwarded",
      req(gzip.compress(chat("gpt", content="AKIAQWERTYUIOPASDFGH")),
          extra=b"Content-Encoding: gzip\r\n"), (400, 403, 415), "closed",
      reached=0)
    # 31. token budget edge cases
    R("#31 no max_tokens: allowed", req(chat("gpt")), 200, reached=1)
    # the model picks the route: never a default for one that is cut,
    # shortened by a NUL or not a string
    R("#31 a 300-byte model name: 400, not the default route",
      req(chat("g" * 300)), 400, reached=0)
    R("#31 a model name with a NUL: 400 (the JSON parser refuses it)",
      req(chat("gpt\\u0000x")), 400, reached=0)
    R("#31 a model that is not a string: 400",
      req(b'{"model":5,"messages":[]}'), 400, reached=0)
    R("#31 a body nested 100 000 deep: 400, the proxy goes on",
      req(b'{"model":"gpt","x":' + b"[" * 100000 + b"]" * 100000 + b"}"),
      400, reached=0)
    R("#31 an enormous max_tokens (a real): 400, no budget bypass",
      req(chat("gpt", ',"max_tokens":1e300')), 400, reached=0)
    R("#31 max_tokens 5000.0 (a real above the limit): 400",
      req(chat("gpt", ',"max_tokens":5000.0')), 400, reached=0)
    R("#31 max_tokens as a string: 400",
      req(chat("gpt", ',"max_completion_tokens":"5000"')), 400, reached=0)
    R("#31 max_tokens above the per-request limit: 429",
      req(chat("gpt", ',"max_tokens":5000')), 429, reached=0)
    R("#31 an overflowing integer max_tokens: refused",
      req(chat("gpt", ',"max_tokens":18446744073709551617')), (400, 429),
      reached=0)
    R("#31 a negative max_tokens: refused",
      req(chat("gpt", ',"max_tokens":-5')), (400, 429), reached=0)
    R("#31 negative usage from the backend: counted sanely",
      req(chat("negusage")), 200, reached=1, nrecs=None, check=tokens)
    R("#31 overflowing usage from the backend: counted sanely",
      req(chat("bigusage")), 200, reached=1, nrecs=None, check=tokens)
    # a stream goes on line by line, each at most max_stream_line long
    R("#31 a 3 MiB SSE line: the stream ends with an error event before "
      "it, the audit says why", req(chat("hugeline", ',"stream":true')),
      200, "closed", reached=1, wait=10, check=line_cut)
    R("#31 ... and the proxy still answers", req(chat("gpt")), 200,
      reached=1)
    R("#31 an SSE line just under max_stream_line, in pieces: relayed "
      "whole", req(chat("longline", ',"stream":true')), 200, reached=1,
      check=lambda r: (H.dechunk(r["body"]) == LONG_SSE,
                       H.dechunk(r["body"])[-80:]))
    # response bodies: limits.max_response_body
    R("#32 a response body over max_response_body (Content-Length): 502",
      req(chat("bigbody")), 502, "closed", reached=1,
      check=audit_says("max_response_body"))
    R("#32 a close-delimited body over max_response_body: cut",
      req(chat("bigclose")), 200, "closed", reached=1, wait=20, settle=15,
      check=lambda r: (len(H.dechunk(r["body"])) <= MAX_BODY and
                       "max_response_body" in json.dumps(r["recs"]),
                       len(r["body"])))
    # 32. a backend that misbehaves
    R("#32 101 Switching Protocols without an Upgrade request: 502",
      req(chat("up101")), 502, reached=1,
      check=no_echo(b"raw bytes"))
    R("#32 three interim 100 Continue heads: skipped, the answer passes",
      req(chat("continue3")), 200, reached=1)
    R("#32 40 000 interim 100 Continue heads: 502, bounded",
      req(chat("continue")), 502, reached=1, wait=10,
      check=audit_says("interim"))
    R("#32 ... and the proxy still answers",
      req(chat("gpt")), 200, reached=1)
    R("#32 Content-Length and Transfer-Encoding in the response: 502",
      req(chat("clte")), 502, reached=1)
    R("#32 100 KB of response headers: 502", req(chat("bighdr")), 502,
      reached=1)


def read_response(s, buf):
    """One response off s: ((status, head, body) or None, rest), a
    chunked body decoded."""
    head, body, rest = H.read_response(s, buf)
    if head is None:
        return None, b""
    if b"transfer-encoding: chunked" in head.lower():
        body = H.dechunk(body)
    return (int(head.split(b" ")[1]), head, body), rest


def roundtrips(port, reqs):
    """Send each request on one connection after the previous answer:
    (answers, state), an answer None where none came; state is "closed"
    or "open" after the last answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=8)
    out, buf = [], b""
    for r in reqs:
        try:
            s.sendall(r)
        except OSError:
            out.append(None)
            break
        a, buf = read_response(s, buf)
        out.append(a)
        if a is None:
            break
    s.settimeout(1.5)
    try:
        state = "closed" if s.recv(1) == b"" else "data"
    except socket.timeout:
        state = "open"
    except OSError:
        state = "closed"
    s.close()
    return out, state


def origin(body, version=b"1.1", conn=None, model="gpt"):
    """An origin-form request for an inference listener."""
    return (b"POST /v1/chat/completions HTTP/" + version +
            b"\r\nHost: inference.local\r\nContent-Type: application/json"
            b"\r\n" + (b"Connection: " + conn + b"\r\n" if conn else b"") +
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


def keepalive(tap, d, be):
    """RFC 9112 9.3 on inference.local: 1.1 persists unless close; 1.0
    only with keep-alive, only where axgate is the origin server (an
    inference listener), never through the proxy port, and only for an
    answer framed by its length."""
    if d.inf_port is None:
        tap.ok(False, "the inference listener is up", d.read_log()[-500:])
        return

    def ka(label, port, reqs, n_ok, state, conn_hdr):
        c0 = be.count()
        got, st = roundtrips(port, reqs)
        oks = [a for a in got if a is not None and a[0] == 200]
        heads = b"\n".join(a[1].lower() for a in oks)
        problems = []
        if len(oks) != n_ok:
            problems.append("%d answers of 200, want %d" % (len(oks), n_ok))
        if st != state:
            problems.append("connection %s, want %s" % (st, state))
        if conn_hdr is None:
            if b"connection:" in heads:
                problems.append("a Connection field")
        elif heads.count(b"connection: " + conn_hdr) != len(oks):
            problems.append("not every answer says Connection: %s" %
                            conn_hdr.decode())
        if be.count() - c0 != n_ok:
            problems.append("the backend got %d" % (be.count() - c0))
        tap.ok(not problems, label, "; ".join(problems) + "\n" +
               heads.decode("utf-8", "replace")[:400])

    one = origin(chat("gpt"), b"1.0", b"keep-alive")
    ka("HTTP/1.0 with keep-alive on an inference listener: kept, said "
       "so, a second request on it answered", d.inf_port, [one, one], 2,
       "open", b"keep-alive")
    ka("HTTP/1.0 without keep-alive: answered, Connection: close, closed",
       d.inf_port, [origin(chat("gpt"), b"1.0")], 1, "closed", b"close")
    ka("HTTP/1.0 with \"keep-alive, close\": close wins", d.inf_port,
       [origin(chat("gpt"), b"1.0", b"keep-alive, close")], 1, "closed",
       b"close")
    one = origin(chat("gpt"))
    ka("HTTP/1.1 without close: kept, a second request on it answered",
       d.inf_port, [one, one], 2, "open", None)
    ka("HTTP/1.1 with close: answered, Connection: close, closed",
       d.inf_port, [origin(chat("gpt"), conn=b"close")], 1, "closed",
       b"close")
    one = req(chat("gpt")).replace(b"HTTP/1.1\r\n",
                                   b"HTTP/1.0\r\nConnection: keep-alive\r\n",
                                   1)
    ka("HTTP/1.0 with keep-alive through the proxy port: a proxy keeps no "
       "1.0 client's connection", d.port, [one], 1, "closed", b"close")
    # a chunked (streamed) answer has no length a 1.0 client can read
    c0 = be.count()
    got, st = roundtrips(d.inf_port, [origin(
        chat("longline", ',"stream":true'), b"1.0", b"keep-alive")])
    a = got[0]
    tap.ok(a is not None and a[0] == 200 and a[2] == LONG_SSE and
           b"connection: close" in a[1].lower() and
           b"transfer-encoding" not in a[1].lower() and st == "closed" and
           be.count() - c0 == 1,
           "HTTP/1.0 with keep-alive, a streamed answer: relayed whole, "
           "ended by the close", (a and a[1], st))


if __name__ == "__main__":
    sys.exit(main())
