#!/bin/sh
# Inference routing inside axgate run: the job reaches http://inference.local
# with no proxy settings at all (its /etc/hosts names the proxy, which
# answers on port 80), and never sees the key the backend gets.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"
need_cmd curl
need_cmd python3

scratch
chmod 755 "$tmp"
# a key file only root can read, outside the job's workspace
keys=$(mktemp -d) || exit 1
scratch_extra="$keys"
chmod 700 "$keys"
printf 'sk-host-file-key-0123\n' > "$keys/openai" && chmod 600 "$keys/openai" || exit 1

python3 -u "$top_srcdir/tests/integration/inference-backend.py" "$tmp/port" \
    "$tmp/seen.jsonl" > "$tmp/be.log" 2>&1 &
pids="$pids $!"
i=0
while [ $i -lt 100 ] && [ ! -s "$tmp/port" ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/port" ] || skip_all "the test backend did not start"
port=$(cat "$tmp/port")

cat > "$tmp/p.yaml" <<EOP
version: 1
name: inference-run-test
network:
  mode: proxy
inference:
  default_provider: gpt
  routes:
    - {name: gpt, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: gpt-test, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: claude, provider: anthropic, endpoint: "http://127.0.0.1:$port", model: claude-test, api_key_env: AXG_TEST_ANTHROPIC_KEY}
    - {name: filekey, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: file-test, api_key_file: "$keys/openai"}
    - {name: nofile, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: nofile-test, api_key_file: "$keys/missing"}
EOP

cat > "$tmp/job.sh" <<'EOJ'
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
echo "hosts: $(grep inference.local /etc/hosts)"
echo "keys: $(env | grep -c 'sk-host-held')"
curl -sS -m 10 -H 'Authorization: Bearer sk-job-own' -H 'Content-Type: application/json' \
    -d '{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}' \
    http://inference.local/v1/chat/completions
echo
curl -sS -N -m 10 -H 'Content-Type: application/json' -H 'anthropic-version: 2023-06-01' \
    -d '{"model":"claude-test","max_tokens":20,"stream":true,"messages":[{"role":"user","content":"hi"}]}' \
    http://inference.local/v1/messages | grep -c '^event: '
echo "other: $(curl -s -m 5 -o /dev/null -w '%{http_code}' -H 'Host: example.com' http://inference.local/)"
echo "keyfile: $(cat "$KEYDIR/openai" 2>&1 | grep -c sk-host-file)"
curl -sS -m 10 -H 'Content-Type: application/json' \
    -d '{"model":"file-test","messages":[{"role":"user","content":"hi"}]}' \
    http://inference.local/v1/chat/completions
echo
curl -sS -m 10 -w ' status=%{http_code}' -H 'Content-Type: application/json' \
    -d '{"model":"nofile-test","messages":[{"role":"user","content":"hi"}]}' \
    http://inference.local/v1/chat/completions
echo
EOJ
sed -i "s|[$]KEYDIR|$keys|" "$tmp/job.sh"
chmod 644 "$tmp/job.sh"

out=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    AXG_TEST_OPENAI_KEY=sk-host-held-openai AXG_TEST_ANTHROPIC_KEY=sk-host-held-anthropic \
    "$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp" --audit "$tmp/a.jsonl" \
    -- sh "$tmp/job.sh" 2>&1)
like "$out" "inference.local" "the job's /etc/hosts names inference.local"
like "$out" "keys: 0" "the job's environment holds no provider key"
like "$out" '"hello from gpt"' "curl with no proxy settings reaches the backend"
like "$out" "
8" "the Anthropic stream arrives whole (8 events)"
like "$out" "other: 403" "another Host on the inference port is refused"
seen=$(cat "$tmp/seen.jsonl")
like "$seen" '"authorization": "Bearer sk-host-held-openai"' "the backend saw the host-held key"
like "$seen" '"x-api-key": "sk-host-held-anthropic"' "and the Anthropic one"
ok $(echo "$seen" | grep -q sk-job-own; [ $? -ne 0 ]; echo $?) "the job's own Authorization never got through"
like "$out" "keyfile: 0" "the job cannot read the key file"
like "$(grep file-test "$tmp/seen.jsonl")" '"authorization": "Bearer sk-host-file-key-0123"' \
    "the confined proxy injected the key from the root-only file"
like "$out" "key file $keys/missing cannot be read" "a missing key file is named in the error"
like "$out" "status=502" "and the call fails with 502"
ok $(echo "$out" | grep -q 'sk-host-file-key'; [ $? -ne 0 ]; echo $?) "the job never saw the file's key"
is "$(grep -c '"class_uid":6003' "$tmp/a.jsonl")" 3 "one API Activity event per routed call"
ok $(grep -q 'sk-host-held\|sk-host-file' "$tmp/a.jsonl"; [ $? -ne 0 ]; echo $?) "no key in the audit"
grep '"class_uid":\(4002\|6003\)' "$tmp/a.jsonl" > "$tmp/ev.jsonl"
ocsf_valid "$tmp/ev.jsonl" "the events pass ocsf-validate"
done_testing
