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
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "proxy_harness", os.path.join(here, "proxy-harness.py"))
H = importlib.util.module_from_spec(spec)
spec.loader.exec_module(H)

HOSTKEY = "sk-abuse-host-held-0123456789abcdef"
JOBKEY = "sk-job-own-key-9876543210fedcba"


class Backend:
    """An OpenAI-shaped backend whose model picks a misbehaviour."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.heads = []
        self.lock = threading.Lock()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,),
                             daemon=True).start()

    def serve(self, c):
        try:
            c.settimeout(20)
            buf = b""
            while True:
                while b"\r\n\r\n" not in buf:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                head, buf = buf.split(b"\r\n\r\n", 1)
                n = 0
                for line in head.split(b"\r\n")[1:]:
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        n = int(v.strip())
                while len(buf) < n:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                body, buf = buf[:n], buf[n:]
                with self.lock:
                    self.heads.append(head)
                try:
                    model = json.loads(body).get("model", "")
                except ValueError:
                    model = ""
                if not self.answer(c, model):
                    return
        except OSError:
            pass
        finally:
            c.close()

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
        if model == "continue":
            c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" * 40000)
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
            for m in ("gpt", "up101", "continue", "clte", "bighdr", "forever",
                      "hugeline", "negusage", "bigusage"))
        policy = ("version: 1\nname: inference-abuse\nnetwork:\n  mode: "
                  "proxy\ninference:\n  default_provider: gpt\n  routes:\n"
                  + routes + "  token_budget:\n    max_tokens_per_request: "
                  "1000\n    max_tokens_per_hour: 1000000\n"
                  "    action_on_exhaust: reject\n"
                  "safety:\n  credential_scan: block\n")
        os.environ["AXG_ABUSE_KEY"] = HOSTKEY
        dns = H.DnsServer()
        d = H.Daemon(tmp, "inf", policy, dns.port,
                     {"idle_timeout_ms": 2000, "head_timeout_ms": 2000})
        if not d.ok():
            tap.ok(False, "axgate serve starts", d.read_log()[-2000:])
            return tap.done()
        tap.ok(True, "axgate serve starts with inference routes")
        run(tap, d, be)
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
        reached=None, wait=6.0, check=None, chunks=None):
    """One request: status (int or tuple), connection state (None: any),
    the count of audit records it wrote, whether the backend got it."""
    c0 = be.count()
    n0 = len(d.records())
    t0 = time.monotonic()
    st, head, body, cs = H.exchange(d.port, data, wait=wait, settle=0.5,
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
    # the line is relayed as it comes (or cut); the usage reader keeps at
    # most 1 MiB of it
    R("#31 a 3 MiB SSE line: relayed or cut, never a crash",
      req(chat("hugeline", ',"stream":true')), (200, 502), reached=1,
      wait=10)
    R("#31 ... and the proxy still answers", req(chat("gpt")), 200,
      reached=1)
    # 32. a backend that misbehaves
    R("#32 101 Switching Protocols without an Upgrade request: 502",
      req(chat("up101")), 502, reached=1,
      check=no_echo(b"raw bytes"))
    R("#32 40 000 interim 100 Continue heads: skipped, the answer passes",
      req(chat("continue")), (200, 502), reached=1, wait=10)
    R("#32 ... and the proxy still answers",
      req(chat("gpt")), 200, reached=1)
    R("#32 Content-Length and Transfer-Encoding in the response: 502",
      req(chat("clte")), 502, reached=1)
    R("#32 100 KB of response headers: 502", req(chat("bighdr")), 502,
      reached=1)


if __name__ == "__main__":
    sys.exit(main())
