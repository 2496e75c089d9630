#!/bin/sh
# The credential scanner in the proxy, end to end through axgate run:
# log mode forwards a token in the URL but never audits it; redact mode
# forwards a Content-Length body with its new Content-Length; a bare
# Paystack key is named as Paystack's.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"
command -v curl >/dev/null || skip_all "curl is not installed (contrib/install-deps installs it)"
command -v python3 >/dev/null || skip_all "python3 is not installed (contrib/install-deps installs it)"

tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
upstream=""
cleanup() {
	[ -n "$upstream" ] && kill "$upstream" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# An upstream that writes each request (head and body) to a file.
port=$((20000 + ($$ + 7) % 20000))
cat >"$tmp/up.py" <<'PY'
import sys, http.server
out = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def _any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        with open(out, "ab") as f:
            f.write(self.requestline.encode() + b"\n" +
                    bytes(self.headers) + body + b"\n--\n")
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")
    do_GET = do_POST = _any
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
python3 "$tmp/up.py" "$port" "$tmp/seen" >/dev/null 2>&1 &
upstream=$!
i=0
while ! curl -s -o /dev/null "http://127.0.0.1:$port/" && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
: >"$tmp/seen"

policy() { # policy MODE
	cat <<YAML
version: 1
name: safety-enforce-$1
network:
  mode: proxy
  policies:
    - name: upstream
      endpoints:
        - {cidr: 127.0.0.1/32, port: $port}
safety:
  credential_scan: $1
YAML
}
policy log >"$tmp/log.yaml"
policy redact >"$tmp/redact.yaml"

tok=ghp_R7kQ2mXv9LpT4wZs8NbY3cHd6FjG1aUe5Kio
pay=sk_live_3f9a0c7e21b85d64fa07c3e19b2d8a5f60e4c7b1

# log: the request goes on as sent; the audit never holds the token.
"$AXGATE" run --policy "$tmp/log.yaml" --workspace "$tmp" \
    --audit "$tmp/log.jsonl" -- /bin/sh -c "
	curl --noproxy '' -sS -m 10 'http://127.0.0.1:$port/x?access_token=$tok&a=1'
	curl --noproxy '' -sS -m 10 'http://127.0.0.1:$port/p?k=$pay'
	" >"$tmp/out" 2>&1
like "$(cat "$tmp/seen")" "GET /x?access_token=$tok&a=1" \
	"log: the upstream got the URL as sent"
unlike "$(cat "$tmp/log.jsonl")" "R7kQ2mXv9LpT4" \
	"log: the token is in no audit event"
like "$(grep '"class_uid":4002' "$tmp/log.jsonl" | grep '/x?')" \
	'access_token=%5BREDACTED:github-pat%5D&a=1' \
	"log: the HTTP event has the URL with the token redacted"
unlike "$(cat "$tmp/log.jsonl")" "3f9a0c7e21b85d64" \
	"log: the Paystack key is in no audit event"
like "$(grep '"class_uid":2004' "$tmp/log.jsonl")" "paystack-secret-key" \
	"a bare sk_live_ key of Paystack's shape is a Paystack finding"
unlike "$(grep '"class_uid":2004' "$tmp/log.jsonl")" "stripe-secret-key" \
	"and not a Stripe one"

# redact: a body sent with Content-Length goes on with the new length.
: >"$tmp/seen"
"$AXGATE" run --policy "$tmp/redact.yaml" --workspace "$tmp" \
    --audit "$tmp/redact.jsonl" -- /bin/sh -c "
	curl --noproxy '' -sS -m 10 -H 'Content-Type: text/plain' \
	    --data-binary 'token=$tok' http://127.0.0.1:$port/v1
	" >"$tmp/out" 2>&1
seen=$(cat "$tmp/seen")
like "$seen" "POST /v1" "redact: the request reached the upstream"
like "$seen" "Content-Length: 27" \
	"redact: with a Content-Length, the redacted body's"
unlike "$seen" "Transfer-Encoding" "redact: not re-framed as chunked"
like "$seen" "token=[REDACTED:github-pat]" "redact: the body is redacted"
unlike "$seen" "R7kQ2mXv9LpT4" "redact: no token reached the upstream"

# The policy's own rules (safety.rules), which the launcher compiles for
# the proxy child while the network is built: a request carrying an
# ACME token is blocked, and a rules file that does not compile stops the
# launch before the job runs.
cp "$top_srcdir/tests/data/leaks/acme-rules.yaml" "$tmp/acme.yaml"
policy block >"$tmp/rules.yaml"
printf '  rules: %s\n' "$tmp/acme.yaml" >>"$tmp/rules.yaml"
acme=acme_0f3a9c1e7b2d4f6a8c0e1b3d5f7a9c2e
: >"$tmp/seen"
out=$("$AXGATE" run --policy "$tmp/rules.yaml" --workspace "$tmp" -- \
    curl --noproxy '' -sS -m 10 -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:$port/r?t=$acme" 2>/dev/null)
is "$out" 403 "user rules: a request with an ACME token is blocked"
unlike "$(cat "$tmp/seen")" "$acme" "user rules: it never reached the upstream"
# The job's command line in the audit is redacted by the same rules, in
# proxy mode (the proxy's rules) and in block mode (compiled for it).
"$AXGATE" run --policy "$tmp/rules.yaml" --workspace "$tmp" \
    --audit "$tmp/acme-proxy.jsonl" -- /bin/echo "$acme" >/dev/null 2>&1
printf 'version: 1\nname: acme-block\nnetwork: {mode: block}\nsafety: {rules: %s}\n' \
	"$tmp/acme.yaml" >"$tmp/acme-block.yaml"
"$AXGATE" run --policy "$tmp/acme-block.yaml" --workspace "$tmp" \
    --audit "$tmp/acme-block.jsonl" -- /bin/echo "$acme" >/dev/null 2>&1
for m in proxy block; do
	like "$(grep '"class_uid":1007' "$tmp/acme-$m.jsonl" | sed -n 1p)" \
		"[REDACTED:acme-token]" \
		"user rules, $m mode: the command line is audited redacted"
	unlike "$(cat "$tmp/acme-$m.jsonl")" "$acme" \
		"user rules, $m mode: the token is nowhere in the audit"
done
printf "rules:\n  - id: broken\n    keywords: [broken]\n    regex: 'broken([a-z'\n" \
	>"$tmp/acme.yaml"
out=$("$AXGATE" run --policy "$tmp/rules.yaml" --workspace "$tmp" -- \
    /bin/sh -c 'touch ran' 2>&1)
is "$?" 252 "user rules that do not compile stop the launch"
like "$out" "broken" "naming the rule"
ok $([ ! -e "$tmp/ran" ]; echo $?) "and the job never ran"

done_testing
