#!/bin/sh
# The official Node.js SDKs (openai 6.x, @anthropic-ai/sdk) against
# http://inference.local: once through axgate serve with a proxy agent,
# once inside axgate run with no proxy configuration at all.  The SDKs come
# from the npm registry when the test starts.
. "$top_srcdir/tests/lib.sh"

need_root "axgate serve and run need root"
need_cmd python3
need_cmd node "Node.js is not installed"
need_cmd npm

scratch
chmod 755 "$tmp"
mkdir "$tmp/node" "$tmp/pol" "$tmp/audit"
chmod 755 "$tmp/pol"

if ! (cd "$tmp/node" && echo '{"private":true}' > package.json &&
    timeout 300 npm install --no-audit --no-fund --silent \
	openai@6 @anthropic-ai/sdk undici@6) > "$tmp/npm.log" 2>&1; then
	sed 's/^/# /' "$tmp/npm.log" | tail -n 5
	skip_all "npm cannot install openai@6 and @anthropic-ai/sdk (no registry?)"
fi
chmod -R a+rX "$tmp/node"
cp "$top_srcdir/tests/integration/inference-sdk.mjs" "$tmp/sdk.mjs"
chmod 644 "$tmp/sdk.mjs"

python3 -u "$top_srcdir/tests/integration/inference-backend.py" "$tmp/port" \
    "$tmp/seen.jsonl" > "$tmp/be.log" 2>&1 &
pids="$pids $!"
i=0
while [ $i -lt 100 ] && [ ! -s "$tmp/port" ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/port" ] || skip_all "the test backend did not start"
port=$(cat "$tmp/port")
cat > "$tmp/pol/p.yaml" <<EOP
version: 1
name: inference-sdk-test
network:
  mode: proxy
inference:
  default_provider: gpt
  routes:
    - {name: gpt, provider: openai, endpoint: "http://127.0.0.1:$port/v1", model: gpt-test, api_key_env: AXG_TEST_OPENAI_KEY}
    - {name: claude, provider: anthropic, endpoint: "http://127.0.0.1:$port", model: claude-test, api_key_env: AXG_TEST_ANTHROPIC_KEY}
EOP
export AXG_TEST_OPENAI_KEY=sk-host-held-openai AXG_TEST_ANTHROPIC_KEY=sk-host-held-anthropic
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

check() { # OUTPUT WHERE
	like "$1" "openai: hello from gpt" "$2: openai chat completion"
	like "$1" "openai-stream: hello stream" "$2: openai streamed"
	like "$1" "openai-models: claude-test,gpt-test" "$2: openai models.list"
	like "$1" "anthropic: hello from claude" "$2: anthropic message"
	like "$1" "anthropic-stream: hello stream" "$2: anthropic streamed"
	seen=$(cat "$tmp/seen.jsonl")
	like "$seen" '"authorization": "Bearer sk-host-held-openai"' "$2: the backend saw the host's OpenAI key"
	like "$seen" '"x-api-key": "sk-host-held-anthropic"' "$2: and the host's Anthropic key"
	ok $(echo "$seen" | grep -q 'job-placeholder'; [ $? -ne 0 ]; echo $?) \
	    "$2: the SDKs' own keys never reached the backend"
	: > "$tmp/seen.jsonl"
}

# 1. axgate serve, the SDKs with a proxy agent.
"$AXGATE" serve --policy "$tmp/pol/p.yaml" --listen 127.0.0.1:0 \
    --audit "$tmp/audit/a.jsonl" --workers 1 --user nobody \
    --drain-timeout 1000 2> "$tmp/serve.log" &
spid=$!
pids="$pids $spid"
i=0
while [ $i -lt 100 ] && ! grep -q "serving with policy" "$tmp/serve.log"; do
	sleep 0.1; i=$((i + 1)); done
px=$(sed -n 's/.*proxy listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")
out=$(cd "$tmp" && timeout 60 node sdk.mjs "$tmp/node/node_modules" "http://$px" 2>&1)
check "$out" "serve"
kill "$spid" 2>/dev/null

# 2. axgate run, no proxy configuration: the job's /etc/hosts and port 80.
cat > "$tmp/job.sh" <<EOJ
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
exec node "$tmp/sdk.mjs" "$tmp/node/node_modules"
EOJ
chmod 644 "$tmp/job.sh"
out=$(timeout 120 "$AXGATE" run --policy "$tmp/pol/p.yaml" --workspace "$tmp" \
    -- sh "$tmp/job.sh" 2>&1)
check "$out" "run"
done_testing
