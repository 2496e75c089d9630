#!/bin/sh
# Inference routing through axgate serve: the keep-alive pool per backend
# (N calls, one backend connection; none reused after `Connection: close`
# or a broken response), kept client connections, a route's own CA file
# (verification fails without it, works with it, fails on a name
# mismatch), redaction of a credential in a prompt, and the default route
# taking a model no route names.
. "$top_srcdir/tests/lib.sh"

need_cmd curl
need_cmd python3
need_cmd openssl "the openssl command is not installed"
need_root "axgate serve --user needs root"

scratch
mkdir -p "$tmp/pol" "$tmp/audit"
chmod 755 "$tmp" "$tmp/pol"
chmod 777 "$tmp/audit"
backend="$top_srcdir/tests/integration/inference-backend.py"

wait_for() { # FILE PATTERN
	i=0
	while [ $i -lt 100 ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_file() {
	i=0
	while [ $i -lt 100 ] && [ ! -s "$1" ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
# The number of distinct backend connections among the log's calls for
# MODEL.
conns() { # LOG MODEL
	grep -F -- '\"model\":\"'"$2"'\"' "$1" |
	    sed -n 's/.*"conn": \([0-9]*\).*/\1/p' | sort -u | wc -l
}

# A test CA and a server certificate for 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=axgate pool CA" \
    -keyout "$tmp/ca.key" -out "$tmp/pol/ca.pem" >/dev/null 2>&1 &&
openssl req -newkey rsa:2048 -nodes -subj "/CN=backend" \
    -keyout "$tmp/srv.key" -out "$tmp/srv.csr" >/dev/null 2>&1 &&
printf 'subjectAltName=IP:127.0.0.1\n' > "$tmp/ext" &&
openssl x509 -req -in "$tmp/srv.csr" -CA "$tmp/pol/ca.pem" -CAkey "$tmp/ca.key" \
    -CAcreateserial -days 2 -extfile "$tmp/ext" -out "$tmp/srv.pem" >/dev/null 2>&1 ||
    skip_all "openssl could not make a test CA"
chmod 644 "$tmp/pol/ca.pem"

python3 -u "$backend" "$tmp/port" "$tmp/seen.jsonl" > "$tmp/be.log" 2>&1 &
pids="$pids $!"
python3 -u "$backend" "$tmp/tport" "$tmp/tseen.jsonl" "$tmp/srv.pem" "$tmp/srv.key" \
    > "$tmp/tbe.log" 2>&1 &
pids="$pids $!"
# the CA's own certificate (signed by itself) does not name 127.0.0.1
python3 -u "$backend" "$tmp/bport" "$tmp/bseen.jsonl" "$tmp/pol/ca.pem" "$tmp/ca.key" \
    > "$tmp/bbe.log" 2>&1 &
pids="$pids $!"
wait_file "$tmp/port" && wait_file "$tmp/tport" && wait_file "$tmp/bport" ||
    skip_all "the test backends did not start"
port=$(cat "$tmp/port")
tport=$(cat "$tmp/tport")
bport=$(cat "$tmp/bport")

# A bad ca_file is refused at load with file:line:col.
cat > "$tmp/bad.yaml" <<EOP
version: 1
name: bad-ca
inference:
  routes:
    - name: tls
      provider: openai
      endpoint: "https://127.0.0.1:$tport/v1"
      ca_file: no-such-ca.pem
EOP
out=$("$AXGATE" policy check "$tmp/bad.yaml" 2>&1)
st=$?
ok $([ $st -ne 0 ]; echo $?) "a route's unreadable ca_file fails the policy check"
like "$out" "bad.yaml:8:16: inference.routes[0].ca_file: cannot read the CA file $tmp/no-such-ca.pem" \
    "the error names file:line:col and the CA file"
out=$(printf 'version: 1\nname: bad-key\ninference:\n  routes:\n    - {name: a, provider: openai, endpoint: "http://127.0.0.1:1", ca_pem: x}\n' \
    > "$tmp/bad2.yaml"; "$AXGATE" policy check "$tmp/bad2.yaml" 2>&1)
like "$out" "bad2.yaml:5:67: inference.routes[0].ca_pem: unknown key" "an unknown route key is named with its place"

cat > "$tmp/pol/policy.yaml" <<EOP
version: 1
name: inference-pool-test
network:
  mode: proxy
inference:
  default_provider: gpt
  keepalive: {max_idle: 4, idle_timeout_ms: 20000}
  routes:
    - {name: gpt, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: gpt-test, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: close, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: close, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: broken, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: broken, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: tlsca, provider: openai, endpoint: "https://127.0.0.1:$tport/v1", model: tls-ca, ca_file: ca.pem, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: tlsnoca, provider: openai, endpoint: "https://127.0.0.1:$tport/v1", model: tls-noca, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: tlsname, provider: openai, endpoint: "https://127.0.0.1:$bport/v1", model: tls-name, ca_file: ca.pem, api_key_env: AXG_TEST_OPENAI_KEY}
safety:
  credential_scan: redact
EOP
printf 'limits:\n  idle_timeout_ms: 3000\n' > "$tmp/pol/axgate.yaml"
HOSTKEY=sk-host-held-pool-0123456789
# no SSL_CERT_FILE: the system store does not hold the test CA
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
AXG_TEST_OPENAI_KEY=$HOSTKEY SSL_CERT_FILE= \
"$AXGATE" serve --config "$tmp/pol/axgate.yaml" --policy "$tmp/pol/policy.yaml" --listen 127.0.0.1:0 \
    --audit "$tmp/audit/audit.jsonl" --workers 1 --user nobody \
    --drain-timeout 1000 2> "$tmp/serve.log" &
pids="$pids $!"
if ! wait_for "$tmp/serve.log" "serving with policy"; then
	sed 's/^/# /' "$tmp/serve.log"
	ok 1 "axgate serve starts"
	done_testing
	exit 1
fi
ok 0 "axgate serve starts"
px=$(sed -n 's/.*proxy listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")

U=http://inference.local
c() { curl -sS --max-time 10 -x "http://$px" -H 'Content-Type: application/json' "$@"; }
chat() { # MODEL [CONTENT]
	printf '{"model":"%s","messages":[{"role":"user","content":"%s"}]}' "$1" "${2:-hi}"
}

# 1. N calls from N client connections, one backend connection.
n=0
for i in 1 2 3 4 5; do
	out=$(c -d "$(chat gpt-test)" "$U/v1/chat/completions")
	case "$out" in *'"hello from gpt"'*) n=$((n + 1)) ;; esac
done
is "$n" 5 "five calls answered"
is "$(grep -c 'gpt-test' "$tmp/seen.jsonl")" 5 "the backend saw five calls"
is "$(conns "$tmp/seen.jsonl" gpt-test)" 1 "on one backend connection (the pool)"

# 2. A client that keeps its connection: three calls, one connection.
out=$(c -d "$(chat gpt-test)" -w ' connects=%{num_connects}\n' \
    "$U/v1/chat/completions" "$U/v1/chat/completions" "$U/v1/chat/completions")
is "$(echo "$out" | grep -c '"hello from gpt"')" 3 "three calls on a kept client connection answered"
is "$(echo "$out" | grep -c 'connects=0')" 2 "curl reused its connection to the proxy twice"
is "$(conns "$tmp/seen.jsonl" gpt-test)" 1 "and the backend connection is still the same one"

# 3. `Connection: close` from the backend: never reused.
for i in 1 2 3; do c -d "$(chat close)" "$U/v1/chat/completions" > /dev/null; done
is "$(conns "$tmp/seen.jsonl" close)" 3 "no reuse after Connection: close (3 calls, 3 connections)"

# 4. A broken response (shorter than its Content-Length): an error, and
# the connection is not reused.
out=$(c -o /dev/null -w '%{http_code}' -d "$(chat broken)" "$U/v1/chat/completions" 2>/dev/null)
c -o /dev/null -d "$(chat broken)" "$U/v1/chat/completions" 2>/dev/null
is "$(conns "$tmp/seen.jsonl" broken)" 2 "no reuse after a broken response (2 calls, 2 connections)"
out=$(c -d "$(chat gpt-test)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "the pool still serves after a broken response"
last=$(tail -n 1 "$tmp/seen.jsonl" | sed -n 's/.*"conn": \([0-9]*\).*/\1/p')
is "$(grep -F '\"model\":\"broken\"' "$tmp/seen.jsonl" | grep -c "\"conn\": $last,")" 0 \
    "the broken connection is not the one used next"

# 5. A route's CA file.
out=$(c -d "$(chat tls-ca)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "https backend verified with the route's ca_file"
like "$(tail -n 1 "$tmp/tseen.jsonl")" "Bearer $HOSTKEY" "and it got the key"
out=$(c -d "$(chat tls-ca)" "$U/v1/chat/completions")
is "$(conns "$tmp/tseen.jsonl" tls-ca)" 1 "two https calls, one TLS connection"
out=$(c -s -o "$tmp/noca.out" -w '%{http_code}' -d "$(chat tls-noca)" "$U/v1/chat/completions")
is "$out" 502 "without the route's CA file verification fails (502)"
like "$(cat "$tmp/noca.out")" "certificate verif" "the error says why"
out=$(c -s -o "$tmp/name.out" -w '%{http_code}' -d "$(chat tls-name)" "$U/v1/chat/completions")
is "$out" 502 "a certificate from the CA that does not name the backend: 502"
is "$(grep -c tls-noca "$tmp/tseen.jsonl")" 0 "no request reached the unverified backend"
ok $([ ! -s "$tmp/bseen.jsonl" ]; echo $?) "nor the misnamed one"

# 6. redact: the prompt goes on with the credential replaced.
out=$(c -d "$(chat gpt-test 'my key is AKIAIOSFODNN7EXAMPLF ok')" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "a prompt with a credential is forwarded under redact"
seen=$(tail -n 1 "$tmp/seen.jsonl")
like "$seen" 'REDACTED' "the backend saw the credential redacted"
ok $(echo "$seen" | grep -q AKIAIOSFODNN7EXAMPLF; [ $? -ne 0 ]; echo $?) "and never the credential"
sleep 0.3
like "$(grep '"class_uid":2004' "$tmp/audit/audit.jsonl" | tail -n 1)" '"disposition_id":' \
    "a Detection Finding is written for it"

# 7. The default route takes a model no route names, with that model.
out=$(c -d "$(chat some-other-model)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "an unnamed model goes to the default route"
like "$(tail -n 1 "$tmp/seen.jsonl")" 'some-other-model' "with the client's model"
sleep 0.3
like "$(grep '"class_uid":6003' "$tmp/audit/audit.jsonl" | tail -n 1)" 'some-other-model' \
    "the API Activity event names that model"

ok $(grep -q "$HOSTKEY" "$tmp/audit/audit.jsonl" "$tmp/serve.log"; [ $? -ne 0 ]; echo $?) \
    "no key in the audit or the log"
done_testing
