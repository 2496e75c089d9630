#!/bin/sh
# axgate serve, end to end: a real daemon on loopback, curl through it to
# a local upstream, the admin API, reload, confinement, shutdown.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd curl
need_cmd python3

scratch
chmod 755 "$tmp"
mkdir "$tmp/www" "$tmp/audit" "$tmp/pol"
chmod 755 "$tmp/pol"
echo hello-upstream > "$tmp/www/hello.txt"

# wait_for FILE PATTERN: up to 10 s
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# The upstream: python's HTTP server on a free port.
(cd "$tmp/www" && exec python3 -u -m http.server 0 --bind 127.0.0.1) \
    > "$tmp/up.log" 2>&1 &
pids="$pids $!"
wait_for "$tmp/up.log" "Serving HTTP" || { echo "1..0 # SKIP upstream did not start"; exit 0; }
up=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$tmp/up.log" | head -n1)

policy() { # NAME PORT
	cat <<EOP
version: 1
name: $1
network:
  mode: proxy
  policies:
    - name: upstream
      endpoints:
        - {host: 127.0.0.1, port: $2}
        - {cidr: 127.0.0.1/32, port: $2}
EOP
}
policy serve-test "$up" > "$tmp/pol/policy.yaml"

# sd_notify: a unix datagram listener that logs what it receives.
python3 -u - "$tmp/notify.sock" > "$tmp/notify.log" 2>&1 <<'EOP' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
print("listening", flush=True)
while True:
    print(s.recv(4096).decode(), flush=True)
EOP
pids="$pids $!"
wait_for "$tmp/notify.log" listening

# LeakSanitizer cannot read /proc once the process is confined (Landlock,
# another uid), so a sanitizer build checks leaks in the unit tests only.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
NOTIFY_SOCKET="$tmp/notify.sock" "$AXGATE" serve \
    --policy "$tmp/pol/policy.yaml" --listen 127.0.0.1:0 --listen '[::1]:0' \
    --admin 127.0.0.1:0 --audit "$tmp/audit/audit.jsonl" --workers 2 \
    --user nobody --drain-timeout 3000 2> "$tmp/serve.log" &
spid=$!
pids="$pids $spid"
if ! wait_for "$tmp/serve.log" "serving with policy"; then
	sed 's/^/# /' "$tmp/serve.log"
	ok 1 "axgate serve starts"
	done_testing
	exit 1
fi
ok 0 "axgate serve starts"
px=$(sed -n 's/.*proxy listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")
px6=$(sed -n 's/.*proxy listening on \(\[::1\]:[0-9]*\).*/\1/p' "$tmp/serve.log")
adm=$(sed -n 's/.*admin listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")
ok $([ -n "$px" ] && [ -n "$px6" ] && [ -n "$adm" ]; echo $?) "it names its listeners (v4, v6, admin)"

# ---- the serving process is confined ----
st=/proc/$spid/status
is "$(awk '/^Uid:/ {print $2 $3 $4 $5}' $st)" 65534655346553465534 "it runs as nobody (every uid)"
is "$(awk '/^CapEff:/ {print $2}' $st)" 0000000000000000 "with no effective capabilities"
is "$(awk '/^CapBnd:/ {print $2}' $st)" 0000000000000000 "and an empty bounding set"
is "$(awk '/^NoNewPrivs:/ {print $2}' $st)" 1 "no_new_privs is set"
is "$(awk '/^Seccomp:/ {print $2}' $st)" 2 "a seccomp filter is installed"
nt=$(ls /proc/$spid/task | wc -l)
nf=$(cat /proc/$spid/task/*/status | grep -c '^Seccomp:[[:space:]]*2')
nu=$(cat /proc/$spid/task/*/status | grep -c '^Uid:[[:space:]]*65534')
ok $([ "$nt" -ge 4 ] && [ "$nf" -eq "$nt" ] && [ "$nu" -eq "$nt" ]; echo $?) \
    "every thread ($nt: main, 2 workers, audit) is filtered and unprivileged"
like "$(cat "$tmp/notify.log")" "READY=1" "READY=1 went to NOTIFY_SOCKET"

# ---- plain HTTP and CONNECT through the proxy ----
out=$(curl -s -m 10 -x "http://$px" "http://127.0.0.1:$up/hello.txt")
is "$out" hello-upstream "plain HTTP to an allowed upstream passes"
out=$(curl -s -m 10 -x "http://$px6" "http://127.0.0.1:$up/hello.txt")
is "$out" hello-upstream "the same through the IPv6 listener"
out=$(curl -s -m 10 -o "$tmp/body" -w '%{http_code}' -x "http://$px" \
    "http://denied.example/")
is "$out" 403 "plain HTTP to a host no rule names: 403"
body=$(cat "$tmp/body")
like "$body" '"error":"policy_denied"' "with a policy_denied JSON body"
like "$body" '"reason":' "  that gives a reason"
like "$body" '"rule":' "  and the rule"
out=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -x "http://$px" \
    "http://127.0.0.1:1/")
is "$out" 403 "an allowed host on a port no rule names: 403"
out=$(curl -s -m 10 -p -x "http://$px" "http://127.0.0.1:$up/hello.txt")
is "$out" hello-upstream "CONNECT (--proxytunnel) to the allowed upstream"
out=$(curl -s -m 10 -p -o /dev/null -w '%{http_connect}' -x "http://$px" \
    "http://denied.example:80/")
is "$out" 403 "CONNECT to a denied host: 403"

# ---- the admin listener ----
is "$(curl -s -m 5 "http://$adm/healthz")" ok "/healthz"
is "$(curl -s -m 5 "http://$adm/readyz")" ready "/readyz once serving"
m=$(curl -s -m 5 "http://$adm/metrics")
like "$m" 'axgate_decisions_total{entry="connect",outcome="deny"} ' "/metrics: decisions by entry and outcome"
like "$m" 'axgate_decision_duration_seconds_bucket{le="+Inf"}' "/metrics: the decision latency histogram"
like "$m" 'axgate_connections_accepted_total ' "/metrics: connections"
like "$m" 'axgate_audit_queue_length ' "/metrics: the audit queue"
like "$m" 'axgate_policy_info{name="serve-test"' "/metrics: the policy in force"
like "$m" 'axgate_requests_by_rule_total{rule="upstream",outcome="allowed"} ' "/metrics: requests by rule"
like "$m" 'axgate_refusals_total{stage="' "/metrics: refusals by stage and status"
# workers publish their counters every 100 ms: wait for them
i=0
while :; do
	deny=$(printf '%s\n' "$m" | sed -n 's/^axgate_requests_total{outcome="denied"} //p')
	[ "${deny:-0}" -ge 3 ] || [ $i -ge 30 ] && break
	sleep 0.1
	i=$((i + 1))
	m=$(curl -s -m 5 "http://$adm/metrics")
done
ok $([ "${deny:-0}" -ge 3 ]; echo $?) "/metrics counts the denied requests ($deny)"

# OPA's Data API
d=$(curl -s -m 5 -X POST -d "{\"input\":{\"kind\":\"connect\",\"host\":\"127.0.0.1\",\"port\":$up}}" \
    "http://$adm/v1/data/axgate/connect")
like "$d" '{"result":{' "Data API: POST answers {\"result\": ...}"
like "$d" '"allow":true' "  allowing what the policy allows"
d=$(curl -s -m 5 -X POST -d '{"input":{"kind":"connect","host":"denied.example","port":443}}' \
    "http://$adm/v1/data/axgate/connect")
like "$d" '"allow":false' "  and denying the rest"
is "$(curl -s -m 5 "http://$adm/v1/data/axgate/policy/name")" \
    '{"result":"serve-test"}' "Data API: GET a document"
is "$(curl -s -m 5 -X POST -d '{}' "http://$adm/v1/data/no/such/doc")" '{}' \
    "Data API: an undefined document is {}"
out=$(curl -s -m 5 -o "$tmp/body" -w '%{http_code}' -X POST -d '{"input":' \
    "http://$adm/v1/data/axgate/connect")
is "$out" 400 "Data API: bad JSON is 400"
like "$(cat "$tmp/body")" '"code":"invalid_parameter"' "  with OPA's error shape"
is "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://$adm/nope")" 404 \
    "an unknown admin path is 404"

# ---- reload ----
policy serve-test-2 1 > "$tmp/pol/policy.yaml"
kill -HUP "$spid"
wait_for "$tmp/serve.log" "reload (SIGHUP): policy serve-test-2"
ok $? "SIGHUP reloads a good policy"
out=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -x "http://$px" \
    "http://127.0.0.1:$up/hello.txt")
is "$out" 403 "the new policy decides new connections"
printf 'version: 1\nname: broken\nnetwork: [\n' > "$tmp/pol/policy.yaml"
kill -HUP "$spid"
wait_for "$tmp/serve.log" "reload (SIGHUP) failed"
ok $? "SIGHUP with a broken policy fails and says so"
is "$(curl -s -m 5 "http://$adm/v1/data/axgate/policy/name")" \
    '{"result":"serve-test-2"}' "the old policy is kept"
policy serve-test-3 "$up" > "$tmp/pol/policy.yaml"
out=$(curl -s -m 10 -X POST "http://$adm/-/reload")
like "$out" '"policy":"serve-test-3"' "POST /-/reload reloads"
out=$(curl -s -m 10 -x "http://$px" "http://127.0.0.1:$up/hello.txt")
is "$out" hello-upstream "and the upstream is allowed again"

# ---- shutdown: a tunnel in flight outlives SIGTERM ----
python3 -u - "${px%:*}" "${px##*:}" "$up" "$tmp/go" > "$tmp/held.log" 2>&1 <<'EOP' &
import os, socket, sys, time
host, port, up, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = socket.create_connection((host, port), timeout=20)
s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (up, up))
print("tunnel", s.recv(4096).split(b"\r\n")[0].decode(), flush=True)
while not os.path.exists(go):
    time.sleep(0.05)
s.sendall(b"GET /hello.txt HTTP/1.0\r\nHost: x\r\n\r\n")
data = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    data += d
print("after", data.split(b"\r\n\r\n", 1)[-1].decode().strip(), flush=True)
EOP
held=$!
wait_for "$tmp/held.log" "tunnel"
like "$(cat "$tmp/held.log")" "tunnel HTTP/1.1 200" "a tunnel is open before SIGTERM"
kill -TERM "$spid"
wait_for "$tmp/serve.log" "no longer accepting"
curl -s -m 5 -o /dev/null -x "http://$px" "http://127.0.0.1:$up/hello.txt"
is "$?" 7 "after SIGTERM new clients are refused"
kill -0 "$spid" 2>/dev/null
ok $? "the daemon waits for the tunnel in flight"
is "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://$adm/readyz")" 503 \
    "/readyz says not ready while draining"
touch "$tmp/go"
wait "$held"
like "$(cat "$tmp/held.log")" "after hello-upstream" "the tunnel finishes its exchange"
i=0
while kill -0 "$spid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
wait "$spid"
is "$?" 0 "SIGTERM: it drains and exits 0"
like "$(cat "$tmp/notify.log")" "STOPPING=1" "STOPPING=1 went to NOTIFY_SOCKET"

a="$tmp/audit/audit.jsonl"
is "$(grep -c '"class_uid":3004' "$a")" 4 "four policy events (load, 2 reloads, 1 failure)"
like "$(grep '"class_uid":3004' "$a" | grep '"status_id":2')" "policy.yaml:" \
    "the failed reload names its error"
like "$(head -n 1 "$a")" '"class_uid":3004' "the first event is the policy load"
like "$(tail -n 1 "$a")" '"class_uid":6002' "the last event is the stop"
ok $([ "$(grep -c '"class_uid":4001' "$a")" -ge 2 ]; echo $?) "4001 events for the CONNECTs (allowed, denied)"
ok $([ "$(grep -c '"class_uid":4002' "$a")" -ge 5 ]; echo $?) "4002 events for the plain requests"
validator="$AXG_SHARED_DIR/ocsf/ocsf-validate"
if [ -f "$validator" ]; then
	vout=$(python3 "$validator" "$a" 2>&1)
	like "$vout" " 0 failed" "every audit line passes ocsf-validate"
	[ $? -eq 0 ] || printf '%s\n' "$vout" | sed 's/^/# /' | head -20
else
	skip "ocsf-validate" "the shared OCSF validator is not at $validator"
fi
done_testing
