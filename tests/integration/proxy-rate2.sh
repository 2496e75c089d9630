#!/bin/sh
# Request rates, second pass.  The workers' decision cache: a CONNECT
# decided again after a reload follows the new policy, back and forth;
# with a `rego:` module (which may read the client) nothing is cached, so
# two clients of the same host and port get their own decisions.  The
# client stays readable while its upstream is dialed: one that half-closes
# right after its request (plain or CONNECT) still gets its answer.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd curl
need_cmd python3

scratch
chmod 755 "$tmp"
mkdir "$tmp/www" "$tmp/pol"
chmod 755 "$tmp/pol"
echo hello-upstream > "$tmp/www/hello.txt"

# wait_for FILE PATTERN [N]: up to 10 s for the Nth (default 1) match
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		[ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

(cd "$tmp/www" && exec python3 -u -m http.server 0 --bind 127.0.0.1) \
    > "$tmp/up.log" 2>&1 &
pids="$pids $!"
wait_for "$tmp/up.log" "Serving HTTP" || skip_all "the upstream did not start"
up=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$tmp/up.log" | head -n1)

policy() { # NAME PORT [REGO]
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
	[ -z "${3:-}" ] || printf 'rego:\n  - %s\n' "$3"
}
policy cache-1 "$up" > "$tmp/pol/policy.yaml"

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
"$AXGATE" serve --policy "$tmp/pol/policy.yaml" --listen 127.0.0.1:0 \
    --workers 1 --user nobody 2> "$tmp/serve.log" &
spid=$!
pids="$pids $spid"
if ! wait_for "$tmp/serve.log" "serving with policy"; then
	sed 's/^/# /' "$tmp/serve.log"
	ok 1 "axgate serve starts"
	done_testing
	exit 1
fi
px=$(sed -n 's/.*proxy listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$tmp/serve.log")

# tunnel [CURL ARGS]: the status of a CONNECT to the upstream, and the
# body fetched through it
tunnel() {
	curl -s -m 10 -p -o "$tmp/body" -w '%{http_connect}' "$@" \
	    -x "http://$px" "http://127.0.0.1:$up/hello.txt"
	printf ' %s' "$(cat "$tmp/body" 2>/dev/null)"
	rm -f "$tmp/body"
}
is "$(tunnel)" "200 hello-upstream" "CONNECT allowed by the first policy"
is "$(tunnel)" "200 hello-upstream" "  and again (the same decision, kept)"

# half-close right after the request, while the upstream is dialed
halfclose() { # MODE: the first line of the answer, and the body
	python3 - "${px%:*}" "${px##*:}" "$up" "$1" <<'EOP'
import socket, sys
host, port, up, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = socket.create_connection((host, port), timeout=10)
if mode == "connect":
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
              b"GET /hello.txt HTTP/1.0\r\nHost: x\r\n\r\n" % (up, up))
else:
    s.sendall(b"GET http://127.0.0.1:%d/hello.txt HTTP/1.1\r\n"
              b"Host: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % (up, up))
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
print(data.split(b"\r\n")[0].decode(), data.split(b"\r\n\r\n")[-1].decode().strip())
EOP
}
like "$(halfclose plain)" "HTTP/1.1 200 OK hello-upstream" \
    "plain HTTP: half-closed after the request, the answer still comes"
like "$(halfclose connect)" "HTTP/1.1 200 Connection established" \
    "CONNECT: half-closed after the request, the tunnel still opens"
like "$(halfclose connect)" "hello-upstream" \
    "  and relays the request behind it and its answer"

# reload: the kept decision must not outlive its policy
reload() { # NAME PORT [REGO] N
	policy "$1" "$2" ${3:+"$3"} > "$tmp/pol/policy.yaml"
	kill -HUP "$spid"
	wait_for "$tmp/serve.log" "reload (SIGHUP): policy $1"
}
reload cache-2 1
ok $? "SIGHUP loads a policy without the upstream's port"
is "$(tunnel)" "403 " "the same CONNECT is now denied"
is "$(tunnel)" "403 " "  and again"
out=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -x "http://$px" \
    "http://127.0.0.1:$up/hello.txt")
is "$out" 403 "plain HTTP to it is denied too"
reload cache-3 "$up"
ok $? "SIGHUP loads the first policy again"
is "$(tunnel)" "200 hello-upstream" "the CONNECT is allowed again"

# a rego module that reads the client: decisions differ per client
cat > "$tmp/pol/client.rego" <<'EOR'
package axgate.deny

connect contains "only 127.0.0.1 may connect" if {
	input.client.addr != "127.0.0.1"
}
EOR
chmod 644 "$tmp/pol/client.rego"
reload cache-4 "$up" "$tmp/pol/client.rego"
ok $? "SIGHUP loads a policy with a rego module"
is "$(tunnel --interface 127.0.0.1)" "200 hello-upstream" \
    "the module allows the CONNECT from 127.0.0.1"
is "$(tunnel --interface 127.0.0.3)" "403 " \
    "  and denies the same CONNECT from 127.0.0.3"
is "$(tunnel --interface 127.0.0.1)" "200 hello-upstream" \
    "  and allows it from 127.0.0.1 again"

kill "$spid"
wait "$spid" 2>/dev/null
done_testing
