#!/bin/sh
# Inference routing through axgate serve: curl sends OpenAI and Anthropic
# requests to http://inference.local through the proxy; a local backend
# (plain and HTTPS with a test CA) records what it got.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd curl
need_cmd python3
need_cmd openssl "the openssl command is not installed"

scratch
chmod 755 "$tmp"
mkdir "$tmp/audit" "$tmp/pol" "$tmp/keys"
chmod 755 "$tmp/pol" "$tmp/keys"
# a key file outside the policy's folder, readable only by the user the
# daemon runs as
FILEKEY=sk-from-a-key-file-0123456789
printf '%s\n' "$FILEKEY" > "$tmp/keys/openai.key"
chown nobody "$tmp/keys/openai.key" && chmod 600 "$tmp/keys/openai.key"
backend="$top_srcdir/tests/integration/inference-backend.py"

wait_for() { # FILE PATTERN: up to 10 s
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

# A test CA and a server certificate for localhost.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=axgate test CA" \
    -keyout "$tmp/ca.key" -out "$tmp/pol/ca.pem" >/dev/null 2>&1 &&
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
    -keyout "$tmp/srv.key" -out "$tmp/srv.csr" >/dev/null 2>&1 &&
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$tmp/ext" &&
openssl x509 -req -in "$tmp/srv.csr" -CA "$tmp/pol/ca.pem" -CAkey "$tmp/ca.key" \
    -CAcreateserial -days 2 -extfile "$tmp/ext" -out "$tmp/srv.pem" >/dev/null 2>&1 ||
    skip_all "openssl could not make a test CA"

python3 -u "$backend" "$tmp/port" "$tmp/seen.jsonl" > "$tmp/be.log" 2>&1 &
pids="$pids $!"
python3 -u "$backend" "$tmp/tport" "$tmp/tseen.jsonl" "$tmp/srv.pem" "$tmp/srv.key" \
    > "$tmp/tbe.log" 2>&1 &
pids="$pids $!"
# the CA's own certificate names neither localhost nor 127.0.0.1
python3 -u "$backend" "$tmp/bport" "$tmp/bseen.jsonl" "$tmp/pol/ca.pem" "$tmp/ca.key" \
    > "$tmp/bbe.log" 2>&1 &
pids="$pids $!"
wait_file "$tmp/port" && wait_file "$tmp/tport" && wait_file "$tmp/bport" || skip_all "the test backends did not start"
port=$(cat "$tmp/port")
tport=$(cat "$tmp/tport")
bport=$(cat "$tmp/bport")

cat > "$tmp/pol/policy.yaml" <<EOP
version: 1
name: inference-test
network:
  mode: proxy
inference:
  default_provider: gpt
  routes:
    - {name: gpt, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: gpt-test, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: claude, provider: anthropic, endpoint: "http://127.0.0.1:$port", model: claude-test, api_key_env: AXG_TEST_ANTHROPIC_KEY}
    - {name: tls, provider: openai, endpoint: "https://127.0.0.1:$tport/v1", model: gpt-tls, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: tlsbad, provider: openai, endpoint: "https://127.0.0.1:$bport/v1", model: gpt-badname, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: stall, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: stall, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: die, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: die, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: split, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: split, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: nousage, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: nousage, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: nokey, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: nokey, api_key_env: AXG_TEST_UNSET_KEY}
    - {name: filekey, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: filekey, api_key_file: "$tmp/keys/openai.key"}
  token_budget:
    max_tokens_per_request: 1000
    max_tokens_per_hour: 440
    action_on_exhaust: reject
safety:
  credential_scan: block
EOP

printf 'limits:\n  idle_timeout_ms: 1500\ninference_listeners: ["127.0.0.1:0"]\n' \
    > "$tmp/pol/axgate.yaml"
HOSTKEY=sk-host-held-0123456789abcdef
AKEY=sk-ant-host-held-abcdef
unset AXG_TEST_UNSET_KEY
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
AXG_TEST_OPENAI_KEY=$HOSTKEY AXG_TEST_ANTHROPIC_KEY=$AKEY \
SSL_CERT_FILE="$tmp/pol/ca.pem" \
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
c() { curl -sS --max-time 10 -x "http://$px" "$@"; }
chat() { # MODEL [STREAM] [EXTRA JSON]
	printf '{"model":"%s","messages":[{"role":"user","content":"hi"}]%s%s}' \
	    "$1" "${2:+,\"stream\":true}" "${3:-}"
}

# OpenAI, plain: the backend sees the host's key, never the job's.
out=$(c -H 'Authorization: Bearer sk-job-fake' -H 'Cookie: a=b' \
    -H 'X-Forwarded-For: 1.2.3.4' -H 'Connection: Authorization' \
    -H 'Content-Type: application/json' -d "$(chat gpt-test)" \
    "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "openai chat completion answered"
seen=$(tail -n 1 "$tmp/seen.jsonl")
like "$seen" "\"authorization\": \"Bearer $HOSTKEY\"" "the backend got the host-held key"
like "$seen" '"path": "/v1/chat/completions"' "the /v1 of the endpoint is not doubled"
ok $(echo "$seen" | grep -q 'sk-job-fake\|cookie\|x-forwarded-for'; [ $? -ne 0 ]; echo $?) \
    "the job's credential, cookie and spoofed fields were dropped"

# A key file outside the policy's folder: the confined daemon may read it
# (and only it), when a call needs it, so a rotated key is used at once.
out=$(c -H 'Content-Type: application/json' -d "$(chat filekey)" "$U/v1/chat/completions")
like "$out" '"hello from' "a route with a key file outside the policy folder answers"
like "$(tail -n 1 "$tmp/seen.jsonl")" "\"authorization\": \"Bearer $FILEKEY\"" \
    "the backend got the key file's key"
printf '%s\n' "$FILEKEY-rotated" > "$tmp/keys/openai.key"
out=$(c -H 'Content-Type: application/json' -d "$(chat filekey)" "$U/v1/chat/completions")
like "$(tail -n 1 "$tmp/seen.jsonl")" "\"authorization\": \"Bearer $FILEKEY-rotated\"" \
    "a rotated key file is read again at the next call"
ok $(cat /proc/$(pgrep -n -f "serve --config $tmp/pol/axgate.yaml")/status | grep -q '^NoNewPrivs:[[:space:]]*1'; echo $?) \
    "the daemon reading it is still confined"

# OpenAI, streamed.
out=$(c -N -H 'Content-Type: application/json' -d "$(chat gpt-test 1)" "$U/v1/chat/completions")
like "$out" 'data: [DONE]' "openai stream passes through"
like "$out" '"stream"' "stream deltas arrive"

# Anthropic, plain and streamed: x-api-key.
out=$(c -H 'x-api-key: job-key' -H 'anthropic-version: 2023-06-01' \
    -H 'Content-Type: application/json' \
    -d '{"model":"claude-test","max_tokens":50,"messages":[{"role":"user","content":"hi"}]}' \
    "$U/v1/messages")
like "$out" '"hello from claude"' "anthropic message answered"
seen=$(tail -n 1 "$tmp/seen.jsonl")
like "$seen" "\"x-api-key\": \"$AKEY\"" "anthropic backend got the host-held x-api-key"
like "$seen" '"anthropic-version": "2023-06-01"' "anthropic-version is forwarded"
ok $(echo "$seen" | grep -q 'job-key\|authorization'; [ $? -ne 0 ]; echo $?) \
    "the job's x-api-key never reached the backend"
out=$(c -N -H 'Content-Type: application/json' \
    -d '{"model":"claude-test","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}' \
    "$U/v1/messages")
like "$out" 'event: message_stop' "anthropic stream passes through"

# The inference listener: origin-form requests, no proxy.
ipx=$(sed -n 's/.*inference listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")
iport=${ipx##*:}
out=$(curl -sS --max-time 10 --resolve "inference.local:$iport:127.0.0.1" \
    -H 'Content-Type: application/json' -d "$(chat gpt-test)" \
    "http://inference.local:$iport/v1/chat/completions")
like "$out" '"hello from gpt"' "the inference listener serves origin-form requests"
code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H 'Host: example.com' \
    "http://$ipx/v1/models")
is "$code" 403 "and nothing for another Host"
code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -x "http://$ipx" \
    "http://example.com/")
is "$code" 400 "nor proxy requests"

# A tunnel to inference.local:80 (clients that always CONNECT).
out=$(c -p -H 'Content-Type: application/json' -d "$(chat gpt-test)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "CONNECT inference.local:80, then the request inside"
code=$(c -p -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "$(chat gpt-test)" "http://inference.local:8080/v1/chat/completions" 2>/dev/null)
is "$code" 000 "a tunnel to another port of inference.local is not opened"

# A chunked request body; one above 8 MiB.
out=$(c -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' \
    -d "$(chat gpt-test)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "a chunked request body"
head -c 9000000 /dev/zero | tr '\0' 'a' > "$tmp/big"
code=$(c -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @"$tmp/big" "$U/v1/chat/completions")
is "$code" 413 "a body above 8 MiB: 413"

# HTTPS backend, verified against the test CA.
out=$(c -H 'Content-Type: application/json' -d "$(chat gpt-tls)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "https backend with a test CA"
like "$(tail -n 1 "$tmp/tseen.jsonl")" "Bearer $HOSTKEY" "the https backend got the key"
out=$(c -w ' %{http_code}' -H 'Content-Type: application/json' -d "$(chat gpt-badname)" \
    "$U/v1/chat/completions")
like "$out" ' 502' "a certificate that does not name the backend: 502"
ok $([ ! -s "$tmp/bseen.jsonl" ]; echo $?) "and no request (nor key) reached it"

# /v1/models lists the routes' models.
out=$(c "$U/v1/models")
like "$out" '"id":"claude-test"' "GET /v1/models lists the policy's models"

# Paths, queries and hosts that are not served (cases 25-27).
for p in /v1/chat/completions/../files /v1/%2e%2e/admin /v1%2Fchat \
    '/v1/chat/completions;x' /v1/chat/completions-extra /v1/files; do
	code=$(c -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
	    --path-as-is -d "$(chat gpt-test)" "$U$p")
	is "$code" 404 "path $p is refused with 404"
done
code=$(c -o "$tmp/q.out" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "$(chat gpt-test)" "$U/v1/chat/completions?api_key=sekrit-q")
is "$code" 400 "a query is refused"
ok $(grep -q sekrit-q "$tmp/q.out"; [ $? -ne 0 ]; echo $?) "the refusal does not echo the query"
n0=$(wc -l < "$tmp/seen.jsonl")
code=$(c -o /dev/null -w '%{http_code}' -H 'Host: attacker.example' \
    -H 'Content-Type: application/json' -d "$(chat gpt-test)" "$U/v1/chat/completions")
is "$code" 400 "Host other than inference.local is refused"
is "$(wc -l < "$tmp/seen.jsonl")" "$n0" "nothing reached the backend"

# A missing key names the variable, never a value.
out=$(c -w ' %{http_code}' -H 'Content-Type: application/json' -d "$(chat nokey)" \
    "$U/v1/chat/completions")
like "$out" 'AXG_TEST_UNSET_KEY' "a missing key names its variable"
like "$out" ' 502' "and answers 502"

# A credential in the prompt is blocked before anything is sent.
n0=$(wc -l < "$tmp/seen.jsonl")
out=$(c -w ' %{http_code}' -H 'Content-Type: application/json' \
    -d '{"model":"gpt-test","messages":[{"role":"user","content":"my key is AKIAIOSFODNN7EXAMPLF ok"}]}' \
    "$U/v1/chat/completions")
like "$out" ' 403' "a prompt with an AWS key is refused"
is "$(wc -l < "$tmp/seen.jsonl")" "$n0" "the leaked prompt never reached the backend"

# A usage line split between two reads.
out=$(c -N -H 'Content-Type: application/json' -d "$(chat split 1)" "$U/v1/chat/completions")
like "$out" 'data: [DONE]' "a stream whose usage line is split"

# No usage in the answer: estimated.
out=$(c -H 'Content-Type: application/json' -d "$(chat nousage)" "$U/v1/chat/completions")
like "$out" '"hello from gpt"' "an answer without usage passes"

# A stalled backend: the idle timeout ends it with an SSE error event.
out=$(c -N -H 'Content-Type: application/json' -d "$(chat stall 1)" "$U/v1/chat/completions")
like "$out" 'event: error' "a stalled stream ends with an error event"
# The client leaves mid-stream: the call still ends (and is audited).
c -N --max-time 0.5 -H 'Content-Type: application/json' -d "$(chat stall 1)" \
    "$U/v1/chat/completions" > /dev/null 2>&1
# A backend that dies mid-stream: the same.
out=$(c -N -H 'Content-Type: application/json' -d "$(chat die 1)" "$U/v1/chat/completions")
like "$out" 'event: error' "a dying backend ends the stream with an error event"

# Budgets: max_tokens above the per-request limit, then the hour spent.
code=$(c -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "$(chat gpt-test '' ',"max_tokens":5000')" "$U/v1/chat/completions")
is "$code" 429 "max_tokens above max_tokens_per_request: 429"
i=0
code=200
while [ $i -lt 40 ] && [ "$code" = 200 ]; do
	code=$(c -o /dev/null -D "$tmp/h" -w '%{http_code}' -H 'Content-Type: application/json' \
	    -d "$(chat gpt-test)" "$U/v1/chat/completions")
	i=$((i + 1))
done
is "$code" 429 "the hourly budget runs out: 429"
like "$(tr -d '\r' < "$tmp/h")" 'Retry-After: ' "with Retry-After"

# Audit: 4002 with the route and backend URL, 6003 with tokens; valid OCSF.
sleep 0.5
a="$tmp/audit/audit.jsonl"
like "$(grep '"class_uid":4002' "$a" | grep '"gpt"' | head -n 1)" "127.0.0.1:$port/v1/chat/completions" \
    "4002 names the route and the backend URL"
e=$(grep '"class_uid":6003' "$a" | grep '"claude-test"' | head -n 1)
like "$e" '"prompt_tokens":13' "6003 has the backend's prompt tokens"
like "$e" '"completion_tokens":9' "6003 has the completion tokens"
e=$(grep '"class_uid":6003' "$a" | grep '"claude-test"' | sed -n 2p)
like "$e" '"completion_tokens":15' "streamed usage from message_delta"
like "$(grep '"class_uid":6003' "$a" | grep 'client went away' | head -n 1)" '"ai_model":{"name":"stall"' \
    "a client that left is audited (and its reservation settled)"
like "$(grep '"class_uid":6003' "$a" | grep '"name":"split"' | head -n 1)" \
    '"prompt_tokens":5,"completion_tokens":3' "usage read from a line split between reads"
like "$(grep '"class_uid":6003' "$a" | grep '"nousage"' | head -n 1)" '"prompt_tokens":' \
    "usage is estimated when the backend gives none"
ok $(grep -q "$HOSTKEY\|$AKEY" "$a" "$tmp/serve.log"; [ $? -ne 0 ]; echo $?) \
    "the keys are in neither the audit nor the log"
grep '"class_uid":\(4002\|6003\)' "$a" > "$tmp/ev.jsonl"
ocsf_valid "$tmp/ev.jsonl" "4002 and 6003 events pass ocsf-validate"
done_testing
