#!/usr/bin/env python3
"""A stand-in inference backend for the tests: OpenAI and Anthropic shapes,
plain and streamed (SSE), over HTTP or HTTPS.  Every request's method,
path and headers go to the log as one JSON line.

The model chooses the behaviour: "stall" sends one event and then nothing,
"die" sends one event and drops the connection, "nousage" answers without
usage, "split" sends its usage line in two pieces, "close" answers with
`Connection: close`, "broken" answers with a Content-Length longer than
its body and closes.  Each log line names the connection ("conn": the
client's port), so tests can count connections.  Usage: inference-backend.py PORTFILE LOG [CERT KEY]
"""
import json
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, LOG = sys.argv[1], sys.argv[2]
CERT = sys.argv[3] if len(sys.argv) > 4 else None
KEY = sys.argv[4] if len(sys.argv) > 4 else None
lock = threading.Lock()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self, body):
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "conn": self.client_address[1],
                                "headers": {k.lower(): v for k, v in
                                            self.headers.items()},
                                "body": body.decode("utf-8", "replace")})
                    + "\n")

    def send_json(self, code, obj, close=False, extra=0):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b) + extra))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(b)
        if extra:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True

    def chunk(self, s):
        b = s.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
        self.wfile.flush()

    def do_GET(self):
        self.record(b"")
        self.send_json(200, {"object": "list", "data": []})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        self.record(body)
        try:
            req = json.loads(body)
        except ValueError:
            self.send_json(400, {"error": {"message": "bad json"}})
            return
        model = req.get("model", "")
        anthropic = self.path.startswith("/v1/messages")
        if not req.get("stream"):
            if anthropic:
                out = {"id": "msg_1", "type": "message", "role": "assistant",
                       "model": model,
                       "content": [{"type": "text", "text": "hello from claude"}],
                       "stop_reason": "end_turn",
                       "usage": {"input_tokens": 13, "output_tokens": 9}}
            else:
                out = {"id": "cmpl-1", "object": "chat.completion",
                       "created": 1, "model": model,
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant",
                                                "content": "hello from gpt"}}],
                       "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                 "total_tokens": 18}}
            if model == "nousage":
                out.pop("usage", None)
            self.send_json(200, out, close=(model == "close"),
                           extra=(10 if model == "broken" else 0))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if anthropic:
            events = [
                ("message_start", {"type": "message_start", "message": {
                    "id": "msg_1", "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": None,
                    "usage": {"input_tokens": 21, "output_tokens": 1}}}),
                ("content_block_start", {"type": "content_block_start",
                                         "index": 0, "content_block": {
                                             "type": "text", "text": ""}}),
            ]
            for w in ["hel", "lo ", "stream"]:
                events.append(("content_block_delta", {
                    "type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": w}}))
            events += [
                ("content_block_stop", {"type": "content_block_stop",
                                        "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {
                    "stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 15}}),
                ("message_stop", {"type": "message_stop"}),
            ]
            lines = ["event: %s\ndata: %s\n\n" % (e, json.dumps(d))
                     for e, d in events]
        else:
            lines = []
            for w in ["hel", "lo ", "stream"]:
                lines.append("data: %s\n\n" % json.dumps({
                    "id": "c1", "object": "chat.completion.chunk",
                    "created": 1, "model": model, "choices": [{
                        "index": 0, "delta": {"content": w},
                        "finish_reason": None}]}))
            lines.append("data: %s\n\n" % json.dumps({
                "id": "c1", "object": "chat.completion.chunk", "created": 1,
                "model": model, "choices": [{"index": 0, "delta": {},
                                             "finish_reason": "stop"}]}))
            if model != "nousage":
                lines.append("data: %s\n\n" % json.dumps({
                    "id": "c1", "object": "chat.completion.chunk",
                    "created": 1, "model": model, "choices": [],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 3,
                              "total_tokens": 8}}))
            lines.append("data: [DONE]\n\n")
        for i, ln in enumerate(lines):
            if model == "split" and "usage" in ln:
                # the usage line in two reads, split mid-line
                h = ln.index("usage")
                self.chunk(ln[:h])
                time.sleep(0.1)
                self.chunk(ln[h:])
                continue
            self.chunk(ln)
            if i == 0 and model == "stall":
                time.sleep(30)
                return
            if i == 0 and model == "die":
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            time.sleep(0.02)
        self.wfile.write(b"0\r\n\r\n")


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
if CERT:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
