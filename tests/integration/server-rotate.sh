#!/bin/sh
# Log rotation under load, through the real daemon: while clients make
# requests, the audit file is renamed and axgate serve gets SIGHUP (what
# logrotate does); every request's event is in exactly one of the two
# files, whole.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd python3

tmp=$(mktemp -d) || exit 1
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"
mkdir "$tmp/audit" "$tmp/pol"
chmod 777 "$tmp/audit"
printf 'version: 1\nname: rotate\nnetwork: {mode: proxy, policies: []}\n' \
	>"$tmp/pol/policy.yaml"

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
"$AXGATE" serve --policy "$tmp/pol/policy.yaml" --listen 127.0.0.1:0 \
    --admin off --audit "$tmp/audit/audit.jsonl" --workers 2 \
    --user nobody 2>"$tmp/serve.log" &
spid=$!
i=0
while ! grep -q "proxy listening on" "$tmp/serve.log" && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
px=$(sed -n 's/.*proxy listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve.log")
[ -n "$px" ] || { sed 's/^/# /' "$tmp/serve.log"; skip_all "serve did not start"; }
plan 5

# N denied requests, each with a path of its own, from 4 clients at once;
# the file is rotated while they run.
n=2000
python3 - "$px" "$n" "$tmp/audit/audit.jsonl" "$spid" <<'PY' >"$tmp/load.log" 2>&1
import os, signal, socket, sys, threading, time
port, n, path, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
half = threading.Barrier(5)
def request(i):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET http://denied.example/r%d HTTP/1.1\r\nHost: denied.example\r\n\r\n" % i)
    while s.recv(65536):
        pass
    s.close()
def client(k):
    for i in range(k, n, 4):
        if i // 4 == n // 8:
            half.wait()  # half of the requests made: rotate now
        request(i)
ts = [threading.Thread(target=client, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
half.wait()
# the second half runs while the file is renamed and reopened
os.rename(path, path + ".1")
os.kill(pid, signal.SIGHUP)
for t in ts:
    t.join()
print("done")
PY
like "$(cat "$tmp/load.log")" done "$n requests made while the file was rotated"
kill -TERM "$spid"
wait "$spid"
spid=
ok $([ -s "$tmp/audit/audit.jsonl.1" ] && [ -s "$tmp/audit/audit.jsonl" ]; echo $?) \
	"events went to both the renamed file and the new one"
res=$(python3 - "$tmp/audit/audit.jsonl.1" "$tmp/audit/audit.jsonl" "$n" <<'PY'
import json, sys, collections
seen = collections.Counter()
bad = 0
for f in sys.argv[1:3]:
    for line in open(f):
        try:
            e = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if e.get("class_uid") == 4002:
            seen[e["http_request"]["url"]["path"]] += 1
n = int(sys.argv[3])
missing = sum(1 for i in range(n) if seen["/r%d" % i] == 0)
dup = sum(1 for v in seen.values() if v > 1)
print("bad=%d missing=%d dup=%d" % (bad, missing, dup))
PY
)
is "$res" "bad=0 missing=0 dup=0" "every request's event is there once, every line whole"
like "$(cat "$tmp/serve.log")" "SIGHUP" "the daemon logged the SIGHUP"
last=$(tail -1 "$tmp/audit/audit.jsonl")
like "$last" '"class_uid":6002' "and the stop event went to the new file"

done_testing
