#!/bin/sh
# The escape suite, through the real `axgate run` in proxy mode: a probe
# performs one action inside the job and prints "OK" or the errno's name;
# each case asserts the exact result.  A listener on the host counts the
# connections that reach it: none may.  See the launcher notes' escape list.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"
probe_src="$top_builddir/tests/escape/probe"
[ -x "$probe_src" ] || skip_all "the probe is not built ($probe_src)"

tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
listener=""
cleanup() {
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/bin" "$tmp/ws" "$tmp/outside" "$tmp/ro"
cp "$probe_src" "$tmp/bin/probe"
chmod 777 "$tmp/ws"
echo secret >"$tmp/outside/secret"
ln -s "$tmp/outside/secret" "$tmp/ws/link-to-secret"

# A host listener on every address, counting what reaches it.
lport=$((30000 + $$ % 20000))
python3 - "$lport" "$tmp/hits" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", int(sys.argv[1])))
s.listen(64)
open(sys.argv[2] + ".ready", "w").close()
while True:
    c, a = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("%s\n" % (a,))
    c.close()
PY
listener=$!
i=0
while [ ! -f "$tmp/hits.ready" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -f "$tmp/hits.ready" ] || { echo "Bail out! the host listener did not start"; exit 1; }

cat >"$tmp/p.yaml" <<YAML
version: 1
name: escape
filesystem: {read_only: ["$tmp/bin", "$tmp/ro"], read_write: ["{workspace}"]}
process: {max_processes: 32}
network: {mode: proxy, policies: []}
YAML

# @host stands for the host end of the job's veth (where the proxy is),
# read from the job's HTTP_PROXY: each job gets a /30 of its own.
run_probe() {
	"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
	    /bin/sh -c 'h=${HTTP_PROXY#http://}; h=${h%:*}; p=$1; shift
		exec "$p" $(echo "$@" | sed "s/@host/$h/g")' sh \
	    "$tmp/bin/probe" "$@" 2>&1
}

# expected | probe action and arguments | what it means
cases=$(cat <<CASES
OK|connect @host 3128|the proxy's port on the host end is reachable
EACCES|connect @host $lport|another port of the host end: Landlock
EACCES|connect 127.0.0.1 $lport|the job's own loopback, another port
EACCES|connect 1.1.1.1 443|a public address, directly
EACCES|connect 169.254.169.254 80|the cloud metadata service
EACCES|connect ::1 $lport|IPv6 loopback
EACCES|connect 2606:4700:4700::1111 443|IPv6, public
EPERM|udp @host 53|UDP DNS to the host end
ENETUNREACH|udp 1.1.1.1 53|UDP DNS to a public resolver: no route
EPERM|socket raw|raw IPv4 sockets
EPERM|socket raw6|raw IPv6 sockets
EAFNOSUPPORT|socket packet|packet sockets
EPERM|socket sockpacket|SOCK_PACKET
EAFNOSUPPORT|socket netlink-audit|netlink other than route
EPROTONOSUPPORT|socket sctp|SCTP (outside Landlock's TCP rules)
EPROTONOSUPPORT|socket mptcp|MPTCP (outside Landlock's TCP rules)
ENOSYS|io_uring|io_uring
EPERM|unshare|new namespaces
EPERM|ptrace|ptrace
EPERM|bpf|eBPF
EPERM|keyctl|keyrings
EPERM|mount|mount
ENOSYS|fsopen|the new mount API
EPERM|tiocsti|terminal injection
ENOENT|read /root/.ssh/id_rsa|the home folder is hidden
ENOENT|read $tmp/ws/link-to-secret|a workspace symlink to a file outside the grants
EACCES|write /etc/axgate-escape|writing outside the grants
EROFS|write $tmp/ro/x|writing in a read-only grant
ENOENT|write $tmp/outside/x|writing in a folder the job cannot see
OK|write $tmp/ws/x|writing in the workspace
ESRCH|kill -1 15|signals reach nothing outside the job's PID namespace
0 1 2|fds|no inherited descriptors
CASES
)
n=$(printf '%s\n' "$cases" | wc -l)
plan $((n + 9))

exec 7>"$tmp/inherited"
printf '%s\n' "$cases" | {
	while IFS='|' read -r want args what; do
		# shellcheck disable=SC2086
		got=$(run_probe $args | tail -1)
		if [ "$got" = "$want" ]; then
			echo "ok - $what: $want"
		else
			echo "not ok - $what: got '$got', want '$want'"
		fi
	done
} >"$tmp/results"
exec 7>&-
while read -r line; do
	case $line in
	"ok - "*) ok 0 "${line#ok - }" ;;
	*) ok 1 "${line#not ok - }" ;;
	esac
done <"$tmp/results"

out=$(run_probe fork-bomb 200 | tail -1)
like "$out" " EAGAIN" "a fork bomb stops at max_processes"

out=$(run_probe uid | tail -1)
is "$out" "uid=65534 gid=65534 euid=65534 groups=0" \
	"the job runs as nobody, with no groups"

# The proxy survives the job's attempts: signals, then a request after.
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
    /bin/sh -c "trap '' TERM; $tmp/bin/probe kill -1 15; curl -s -m 10 -o /dev/null \
	-w '%{http_code}' http://example.com/" 2>&1 | tail -1)
is "$out" "403" "the proxy still answers after the job signalled everything"

hits=0
[ -f "$tmp/hits" ] && hits=$(wc -l <"$tmp/hits")
is "$hits" 0 "the host listener saw no connection from any job"
curl -s -m 2 "http://127.0.0.1:$lport/" >/dev/null 2>&1
# the listener writes its line after the accept: give a loaded machine
# up to 10 s to get there
hits=0
i=0
while [ $i -lt 100 ]; do
	[ -f "$tmp/hits" ] && hits=$(wc -l <"$tmp/hits")
	[ "$hits" -gt 0 ] && break
	sleep 0.1
	i=$((i + 1))
done
is "$hits" 1 "... and it does see one from the host (it was listening)"

# Teardown: 100 launches leave no link, no table, no process behind.
# Job links whose launcher is gone: leaked (a link of a live launcher
# belongs to a job running now, perhaps another test's).
stale_links() {
	ip -o link show | grep -o 'alias axgate owner=[0-9]*' |
	while read -r _ _ o; do
		kill -0 "${o#owner=}" 2>/dev/null || echo "$o"
	done | wc -l
}
links_before=$(stale_links)
i=0
fails=0
while [ $i -lt 100 ]; do
	"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
	    /bin/true >/dev/null 2>&1 || fails=$((fails + 1))
	i=$((i + 1))
done
is "$fails" 0 "100 launches in proxy mode succeed"
sleep 0.5
links_after=$(stale_links)
is "$links_after" "$links_before" "and leave no veth behind"
if command -v nft >/dev/null; then
	# tables of launchers that are gone (a live one's job is running)
	tables=$(nft list tables 2>/dev/null |
	    sed -n 's/^table inet axgate_[0-9]*_\([0-9]*\)$/\1/p' |
	    while read -r o; do kill -0 "$o" 2>/dev/null || echo "$o"; done |
	    wc -l)
	is "$tables" 0 "and no host-side nftables table"
else
	skip "nft tables" "the nft command is not installed to list tables"
fi
left=$(pgrep -f "axgate run --policy $tmp/p.yaml" | wc -l)
is "$left" 0 "and no launcher or proxy process"

done_testing
