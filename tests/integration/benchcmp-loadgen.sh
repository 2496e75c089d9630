#!/bin/sh
# The load generator of `make bench-compare`, briefly: every mode against
# its own upstreams directly, then CONNECT, deny, keep-alive and idle
# tunnels through a real `axgate serve`.  Checks counts, never timings.
. "$top_srcdir/tests/lib.sh"

LOADGEN=$top_builddir/tests/bench/loadgen
[ -x "$LOADGEN" ] || skip_all "tests/bench/loadgen is not built"

kv() { # KEY LINE
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# check NAME LINE: at least one operation, no errors
check() {
	like "$2" "loadgen mode=" "$1: one result line"
	ops=$(kv ops "$2")
	err=$(kv errors "$2")
	ok $([ "${ops:-0}" -gt 0 ] && [ "${err:-1}" -eq 0 ]; echo $?) \
	    "$1: work done (ops=${ops:-?}), no errors (${err:-?})"
}

l=$("$LOADGEN" --mode connect-echo --clients 4 --duration 0.3 2>&1)
check "direct connect-echo" "$l"
ok $([ "$(kv bytes_in "$l")" -ge $(( $(kv ops "$l") * 64 )) ]; echo $?) \
    "direct connect-echo: 64 bytes came back per transaction"
l=$("$LOADGEN" --mode deny --clients 2 --duration 0.3 2>&1)
check "direct deny (the 403 upstream)" "$l"
l=$("$LOADGEN" --mode http-keepalive --clients 2 --duration 0.3 2>&1)
check "direct http-keepalive GET" "$l"
is "$(kv reconnects "$l")" 0 "direct http-keepalive: the connection was kept"
l=$("$LOADGEN" --mode http-keepalive --clients 1 --bytes 100000 --duration 0.3 2>&1)
check "direct http-keepalive POST of 100000 bytes" "$l"
ok $([ "$(kv bytes_out "$l")" -ge 100000 ]; echo $?) "  the body was sent"
l=$("$LOADGEN" --mode throughput --clients 1 --duration 0.3 2>&1)
like "$l" "unit=MB/s" "direct throughput: MB/s"
ok $([ "$(kv bytes_in "$l")" -gt 0 ] && [ "$(kv errors "$l")" -eq 0 ]; echo $?) \
    "direct throughput: bytes came back"
"$LOADGEN" --mode nonsense >/dev/null 2>&1
is $? 2 "an unknown mode is a usage error"

scratch
chmod 755 "$tmp"
"$LOADGEN" --upstream --hold 60 > "$tmp/up.out" 2>&1 &
pids="$pids $!"
i=0
while ! grep -q '^upstream' "$tmp/up.out" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
set -- $(sed -n 's/^upstream echo=\([0-9]*\) http=\([0-9]*\) deny=\([0-9]*\).*/\1 \2 \3/p' "$tmp/up.out")
ups="$1,$2,$3"

# The relay (the tunnels' ceiling in bench-compare): the load generator
# takes it for the echo upstream and must get every byte back.
RELAY=$top_builddir/tests/bench/relay
"$RELAY" --to "$1" > "$tmp/relay.out" 2>&1 &
pids="$pids $!"
i=0
while ! grep -q '^relay port=' "$tmp/relay.out" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
rp=$(sed -n 's/^relay port=\([0-9]*\)$/\1/p' "$tmp/relay.out")
matches "$rp" "^[0-9]+$" "the relay listens (port ${rp:-none})"
l=$("$LOADGEN" --upstreams "${rp:-1},$2,$3" --mode connect-echo --clients 4 --duration 0.3 2>&1)
check "connect-echo through the relay" "$l"
ok $([ "$(kv bytes_in "$l")" -ge $(( $(kv ops "$l") * 64 )) ]; echo $?) \
    "  64 bytes came back per transaction"
l=$("$LOADGEN" --upstreams "${rp:-1},$2,$3" --mode throughput --clients 2 --duration 0.3 2>&1)
ok $([ "$(kv bytes_in "$l")" -gt 0 ] && [ "$(kv errors "$l")" -eq 0 ]; echo $?) \
    "throughput through the relay: bytes came back"
"$RELAY" --port 1 >/dev/null 2>&1
is $? 2 "the relay without --to is a usage error"

[ "$(id -u)" -eq 0 ] || { skip "through axgate serve" "serve drops to an unprivileged user: needs root"; done_testing; exit $?; }

set -- $(echo "$ups" | tr ',' ' ')
cat > "$tmp/policy.yaml" <<EOP
version: 1
name: loadgen-smoke
network:
  mode: proxy
  policies:
    - name: upstream
      endpoints:
        - {host: 127.0.0.1, ports: [$1, $2]}
        - {cidr: 127.0.0.1/32, ports: [$1, $2]}
EOP
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
"$AXGATE" serve --policy "$tmp/policy.yaml" --listen 127.0.0.1:0 \
    --audit "$tmp/audit.jsonl" --admin off --workers 1 --user nobody \
    2> "$tmp/serve.log" &
pids="$pids $!"
i=0
while ! grep -q 'serving with policy' "$tmp/serve.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
px=$(sed -n 's/.*proxy listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")
[ -n "$px" ] || { sed 's/^/# /' "$tmp/serve.log"; ok 1 "axgate serve starts"; done_testing; exit 1; }

l=$("$LOADGEN" --upstreams "$ups" --proxy "$px" --mode connect-echo --clients 4 --duration 0.5 2>&1)
check "axgate connect-echo" "$l"
l=$("$LOADGEN" --upstreams "$ups" --proxy "$px" --mode deny --clients 2 --duration 0.3 2>&1)
check "axgate deny: every answer a 403" "$l"
l=$("$LOADGEN" --upstreams "$ups" --proxy "$px" --mode http-keepalive --clients 2 --duration 0.3 2>&1)
check "axgate http-keepalive (absolute form)" "$l"
l=$("$LOADGEN" --upstreams "$ups" --proxy "$px" --mode idle-tunnels --tunnels 50 --clients 8 --duration 5 --hold 0.1 2>&1)
is "$(kv tunnels "$l")" 50 "axgate idle-tunnels: 50 tunnels opened and held"
done_testing
