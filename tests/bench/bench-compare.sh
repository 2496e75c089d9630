#!/bin/sh
# bench-compare.sh: axgate against Squid, tinyproxy and the direct loopback,
# on identical work in one run (`make bench-compare`).
#
#   bench-compare.sh [--quick] [--reps N] [--duration SEC] [--out DIR]
#                    [--no-install] [--port-base N] [--nice N]
#
# Starts one set of upstreams (loadgen --upstream), then axgate serve (real
# policy engine, audit file on), squid -N and tinyproxy -d, each on its own
# loopback port, and the relay (tests/bench/relay.c): the simplest
# user-space TCP relay, whose tunnels show the ceiling of any proxy's on
# the same CPU.  The proxies and the upstreams share one CPU, the load
# generator has the other, so the direct runs cross CPUs as often as the
# proxied ones.  Everything runs at nice --nice (-10) so that other work on
# the machine disturbs the figures less.
# Every mode (connect-echo, deny, throughput, http-keepalive) runs at 1, 16
# and 64 clients against each proxy and direct, the proxies alternating,
# repeated --reps times (3; --quick: 1 rep of 1 s and shorter curves).
# Then axgate alone: cost against policy size, request body size (through
# the credential scanner) and open tunnels.  Writes DIR/results.txt (one
# loadgen line each), DIR/table.md and DIR/*.png (gnuplot).
#
# Needs root (axgate serve and squid drop to their own users).  Stops only
# the processes it started, by pid.
set -u

quick=0
reps=3
dur=2
out=bench-compare.out
install=1
base=24100
nice=-10
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=$2; shift ;;
	--duration) dur=$2; shift ;;
	--out) out=$2; shift ;;
	--no-install) install=0 ;;
	--port-base) base=$2; shift ;;
	--nice) nice=$2; shift ;;
	*) echo "usage: $0 [--quick] [--reps N] [--duration SEC] [--out DIR] [--no-install] [--port-base N]" >&2
	   exit 2 ;;
	esac
	shift
done
if [ $quick -eq 1 ]; then
	reps=1
	dur=1
fi

top_builddir=${top_builddir:-.}
AXGATE=${AXGATE:-$top_builddir/cli/axgate}
LOADGEN=${LOADGEN:-$top_builddir/tests/bench/loadgen}
RELAY=${RELAY:-$top_builddir/tests/bench/relay}
say() { echo "bench-compare: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (axgate serve and squid drop to their own users)"
[ -x "$AXGATE" ] || die "no axgate binary at $AXGATE"
[ -x "$LOADGEN" ] || die "no load generator at $LOADGEN (make tests/bench/loadgen)"

# ---- the other proxies and gnuplot, from Debian ----
need=
command -v squid >/dev/null 2>&1 || [ -x /usr/sbin/squid ] || need="$need squid"
command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] || need="$need tinyproxy"
command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
if [ -n "$need" ] && [ $install -eq 1 ]; then
	say "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need >&2 ||
	    say "apt-get install failed: running without$need"
fi
PATH=$PATH:/usr/sbin:/sbin
have_squid=0; command -v squid >/dev/null 2>&1 && have_squid=1
have_tp=0; command -v tinyproxy >/dev/null 2>&1 && have_tp=1
have_gp=0; command -v gnuplot >/dev/null 2>&1 && have_gp=1

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
res=$out/results.txt
: > "$res"

tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The proxy and the upstreams on one CPU, the generator on another, so a
# direct run crosses CPUs as often as a proxied one (doc/PERFORMANCE.md).
ncpu=$(nproc 2>/dev/null || echo 1)
if [ "$ncpu" -ge 2 ]; then px_cpu=1; gen_cpu=0; else px_cpu=0; gen_cpu=0; fi
pin_px="nice -n $nice taskset -c $px_cpu"
pin_gen="nice -n $nice taskset -c $gen_cpu"
command -v taskset >/dev/null 2>&1 || { pin_px="nice -n $nice"; pin_gen=$pin_px; }

# Room for 10,000 tunnels: each holds 2 fds in the proxy.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
maxfd=$(ulimit -n)

# wait_for FILE PATTERN [TENTHS]
wait_for() {
	i=0
	while [ $i -lt "${3:-100}" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# kill_pid PID: stop one process we started and forget it.
kill_pid() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	np=
	for p in $pids; do [ "$p" = "$1" ] || np="$np $p"; done
	pids=$np
}

# rss_kb PID: resident memory of the process and its children.
rss_kb() {
	t=0
	for p in $1 $(pgrep -P "$1" 2>/dev/null); do
		v=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)
		t=$((t + ${v:-0}))
	done
	echo $t
}

# ---- the upstreams ----
$pin_px "$LOADGEN" --upstream --hold 7200 > "$tmp/up.out" 2>&1 &
pids="$pids $!"
wait_for "$tmp/up.out" "^upstream " || die "the upstreams did not start: $(cat "$tmp/up.out")"
set -- $(sed -n 's/^upstream echo=\([0-9]*\) http=\([0-9]*\) deny=\([0-9]*\).*/\1 \2 \3/p' "$tmp/up.out")
echo_port=$1; http_port=$2; deny_port=$3
ups="$echo_port,$http_port,$deny_port"

# ---- the relay: the ceiling of a user-space tunnel on the proxies' CPU ----
relay_port=
if [ -x "$RELAY" ]; then
	$pin_px "$RELAY" --to "$echo_port" > "$tmp/relay.out" 2>&1 &
	pids="$pids $!"
	wait_for "$tmp/relay.out" "^relay port=" ||
	    say "the relay did not start: $(cat "$tmp/relay.out")"
	relay_port=$(sed -n 's/^relay port=\([0-9]*\)$/\1/p' "$tmp/relay.out")
fi
deny_target=127.0.0.2:$http_port

# ---- axgate ----
ax_port=$base
mkdir -p "$tmp/ax"
# axpolicy N FILE: the two upstream ports allowed, plus N-2 other endpoints.
axpolicy() {
	awk -v n="$1" -v e="$echo_port" -v h="$http_port" 'BEGIN {
		print "version: 1"
		print "name: bench"
		print "network:"
		print "  mode: proxy"
		print "  policies:"
		print "    - name: upstream"
		print "      endpoints:"
		printf "        - {host: 127.0.0.1, ports: [%d, %d]}\n", e, h
		printf "        - {cidr: 127.0.0.1/32, ports: [%d, %d]}\n", e, h
		if (n > 2) {
			print "    - name: filler"
			print "      endpoints:"
			for (i = 0; i < n - 2; i++)
				printf "        - {host: h%d.bench.example, port: 443}\n", i
		}
		print "safety:"
		print "  credential_scan: block"
	}' > "$2"
}
cat > "$tmp/ax/axgate.yaml" <<EOF
listeners:
  - 127.0.0.1:$ax_port
policy: $tmp/ax/policy.yaml
audit:
  sinks:
    - file:$tmp/ax/audit.jsonl
limits:
  max_conns: 100000
  max_conns_per_client: 100000
  max_request_body: 0
admin: "off"
user: nobody
workers: 1
EOF
ax_pid=
ax_start() {
	: > "$tmp/ax/serve.log"
	$pin_px "$AXGATE" serve --config "$tmp/ax/axgate.yaml" \
	    2> "$tmp/ax/serve.log" &
	ax_pid=$!
	pids="$pids $ax_pid"
	wait_for "$tmp/ax/serve.log" "serving with policy" 1200 ||
	    die "axgate serve did not start: $(cat "$tmp/ax/serve.log")"
}
ax_stop() {
	[ -n "$ax_pid" ] && kill_pid "$ax_pid"
	ax_pid=
	rm -f "$tmp/ax/audit.jsonl"
}
chmod 755 "$tmp/ax"
axpolicy 2 "$tmp/ax/policy.yaml"
ax_start

# ---- squid ----
sq_port=$((base + 1))
if [ $have_squid -eq 1 ]; then
	mkdir -p "$tmp/squid"
	cat > "$tmp/squid/squid.conf" <<EOF
http_port 127.0.0.1:$sq_port
pid_filename $tmp/squid/squid.pid
cache_effective_user proxy
coredump_dir $tmp/squid
cache deny all
cache_mem 8 MB
access_log stdio:$tmp/squid/access.log
cache_log $tmp/squid/cache.log
cache_store_log none
logfile_rotate 0
pinger_enable off
max_filedescriptors $maxfd
shutdown_lifetime 1 seconds
acl upstream dst 127.0.0.1/32
acl upstream_ports port $echo_port $http_port
acl denied dst 127.0.0.2/32
http_access deny denied
http_access allow upstream upstream_ports
http_access deny all
EOF
	chown -R proxy "$tmp/squid" 2>/dev/null
	$pin_px squid -N -f "$tmp/squid/squid.conf" > "$tmp/squid/out.log" 2>&1 &
	sq_pid=$!
	pids="$pids $sq_pid"
	wait_for "$tmp/squid/cache.log" "Accepting HTTP" 150 ||
	    { say "squid did not start: $(tail -n 5 "$tmp/squid/cache.log" 2>/dev/null)"; have_squid=0; }
fi

# ---- tinyproxy ----
tp_port=$((base + 2))
if [ $have_tp -eq 1 ]; then
	mkdir -p "$tmp/tp"
	printf '^127\\.0\\.0\\.2$\n' > "$tmp/tp/filter"
	cat > "$tmp/tp/tinyproxy.conf" <<EOF
User nobody
Group nogroup
Port $tp_port
Listen 127.0.0.1
Timeout 600
LogFile "$tmp/tp/tinyproxy.log"
LogLevel Info
PidFile "$tmp/tp/tinyproxy.pid"
MaxClients 20000
Allow 127.0.0.1
ConnectPort $echo_port
Filter "$tmp/tp/filter"
FilterExtended On
FilterDefaultDeny No
EOF
	chown -R nobody "$tmp/tp"
	$pin_px tinyproxy -d -c "$tmp/tp/tinyproxy.conf" > "$tmp/tp/out.log" 2>&1 &
	tp_pid=$!
	pids="$pids $tp_pid"
	wait_for "$tmp/tp/tinyproxy.log" "listening on\|Accepting\|Setting" 50
	sleep 0.3
fi

# run PROXYNAME ADDR MODE CLIENTS [EXTRA...]: one loadgen line into $res
run() {
	name=$1 addr=$2 mode=$3 c=$4
	shift 4
	line=$($pin_gen "$LOADGEN" --upstreams "${run_ups:-$ups}" --proxy "$addr" \
	    --mode "$mode" --clients "$c" --duration "$dur" \
	    --deny-target "$deny_target" "$@" 2>&1 | tail -n 1)
	case $line in
	loadgen*) echo "$line proxy=$name rep=${rep:-0}" >> "$res" ;;
	*) say "$name $mode c=$c: $line" ;;
	esac
}

proxies="axgate=127.0.0.1:$ax_port"
[ $have_squid -eq 1 ] && proxies="$proxies squid=127.0.0.1:$sq_port"
[ $have_tp -eq 1 ] && proxies="$proxies tinyproxy=127.0.0.1:$tp_port"
proxies="$proxies direct=direct"

# ---- the comparison: alternate proxies, rotate the order each rep ----
say "cpus: proxies and upstreams on $px_cpu, generator on $gen_cpu; nice $nice; fds $maxfd; $reps rep(s) of ${dur}s"
say "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rep=1
order=$proxies
while [ $rep -le "$reps" ]; do
	for mode in connect-echo deny throughput http-keepalive; do
		for c in 1 16 64; do
			for p in $order; do
				run "${p%%=*}" "${p#*=}" "$mode" "$c"
			done
			# Tunnels through the relay: the load generator
			# takes it for the echo upstream.
			if [ "$mode" = throughput ] && [ -n "$relay_port" ]; then
				run_ups="$relay_port,$http_port,$deny_port"
				run relay direct throughput "$c"
				run_ups=
			fi
		done
	done
	# idle tunnels: memory per tunnel at 2,000 for each proxy
	for p in $order; do
		name=${p%%=*}
		case $name in
		axgate) pid=$ax_pid ;; squid) pid=$sq_pid ;;
		tinyproxy) pid=$tp_pid ;; *) continue ;;
		esac
		n=2000
		r0=$(rss_kb "$pid")
		$pin_gen "$LOADGEN" --upstreams "$ups" --proxy "${p#*=}" \
		    --mode idle-tunnels --tunnels $n --clients 64 \
		    --duration 30 --hold 30 > "$tmp/idle.out" 2>&1 &
		lg=$!
		pids="$pids $lg"
		wait_for "$tmp/idle.out" "^loadgen" 350
		sleep 0.5
		r1=$(rss_kb "$pid")
		kill_pid "$lg"
		line=$(grep '^loadgen' "$tmp/idle.out")
		[ -n "$line" ] && echo "$line proxy=$name rep=$rep rss0_kb=$r0 rss1_kb=$r1" >> "$res"
		sleep 1
	done
	# the next rep starts with another proxy
	order="$(echo $order | cut -d' ' -f2-) $(echo $order | cut -d' ' -f1)"
	rep=$((rep + 1))
done

# ---- the cost curves: axgate only ----
rep=0
if [ $quick -eq 1 ]; then
	sizes="10 1000 10000"
	bodies="1024 102400 10485760"
	tunnels="100 1000"
else
	sizes="10 1000 100000"
	bodies="1024 10240 102400 1048576 10485760"
	tunnels="100 1000 3000 10000"
fi
# Policy size: load time, CONNECT rate, deny latency.
for n in $sizes; do
	ax_stop
	axpolicy "$n" "$tmp/ax/policy.yaml"
	t0=$(date +%s%N)
	ax_start
	t1=$(date +%s%N)
	run axgate "127.0.0.1:$ax_port" connect-echo 16 --label "policy=$n;start_ms=$(( (t1 - t0) / 1000000 ))"
	run axgate "127.0.0.1:$ax_port" deny 16 --label "policy=$n"
done
ax_stop
axpolicy 2 "$tmp/ax/policy.yaml"
ax_start
# Body size: plain-HTTP POST through the scanner, against direct.
for b in $bodies; do
	bd=$dur
	[ "$b" -lt 1000000 ] || bd=$((dur * 3))
	run axgate "127.0.0.1:$ax_port" http-keepalive 1 --bytes "$b" --label "body=$b" --duration $bd
	run direct direct http-keepalive 1 --bytes "$b" --label "body=$b" --duration $bd
	[ $have_squid -eq 1 ] &&
	    run squid "127.0.0.1:$sq_port" http-keepalive 1 --bytes "$b" --label "body=$b" --duration $bd
done
# Open tunnels: memory per tunnel and the CONNECT rate while they are held.
# The proxy holds 2 fds per tunnel: stay under the fd limit.
lim=$(( (maxfd - 300) / 2 / 1000 * 1000 ))
for n in $tunnels; do
	if [ "$n" -gt "$lim" ]; then
		say "$n tunnels do not fit in $maxfd fds: $lim instead"
		n=$lim
	fi
	ax_stop
	ax_start
	run axgate "127.0.0.1:$ax_port" connect-echo 16 --label "warmup"
	r0=$(rss_kb "$ax_pid")
	$pin_gen "$LOADGEN" --upstreams "$ups" --proxy "127.0.0.1:$ax_port" \
	    --mode idle-tunnels --tunnels "$n" --clients 64 --duration 60 \
	    --hold 120 > "$tmp/idle.out" 2>&1 &
	lg=$!
	pids="$pids $lg"
	wait_for "$tmp/idle.out" "^loadgen" 650
	sleep 0.5
	r1=$(rss_kb "$ax_pid")
	line=$(grep '^loadgen' "$tmp/idle.out")
	[ -n "$line" ] && echo "$line proxy=axgate rep=0 rss0_kb=$r0 rss1_kb=$r1 label=tunnels=$n" >> "$res"
	run axgate "127.0.0.1:$ax_port" connect-echo 16 --label "held=$n"
	kill_pid "$lg"
done
ax_stop

# ---- the table ----
get() { # KEY: awk snippet that extracts key=value from $0
	echo "function kv(k,   i, n, a) { n = split(\$0, a, \" \"); for (i = 1; i <= n; i++) if (index(a[i], k \"=\") == 1) return substr(a[i], length(k) + 2); return \"\" }"
}
summarize() {
	awk "$(get)"'
	function med(s,   n, a, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n ? a[int((n + 1) / 2)] : ""
	}
	function mn(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
	function mx(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]; return m }
	function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : sprintf("%.2f", v) }
	$1 == "loadgen" && kv("rep") > 0 && kv("mode") != "idle-tunnels" {
		k = kv("mode") SUBSEP kv("clients") SUBSEP kv("proxy")
		rate[k] = rate[k] " " kv("rate"); p50[k] = p50[k] " " kv("p50_us"); p99[k] = p99[k] " " kv("p99_us")
		err[k] += kv("errors")
		r[kv("mode"), kv("clients"), kv("proxy"), kv("rep")] = kv("rate")
		unit[kv("mode")] = kv("unit"); reps[kv("rep")] = 1; seen[kv("proxy")] = 1
		has[kv("mode"), kv("proxy")] = 1
	}
	$1 == "loadgen" && kv("rep") > 0 && kv("mode") == "idle-tunnels" {
		m = kv("proxy"); t = kv("tunnels")
		if (t > 0) mem[m] = mem[m] " " ((kv("rss1_kb") - kv("rss0_kb")) * 1024 / t)
		irate[m] = irate[m] " " kv("rate")
		seen[m] = 1
	}
	END {
		np = split("axgate squid tinyproxy direct relay", P, " ")
		nm = split("connect-echo deny throughput http-keepalive", M, " ")
		nc = split("1 16 64", C, " ")
		for (mi = 1; mi <= nm; mi++) {
			m = M[mi]
			printf "\n### %s (%s%s)\n\n", m, unit[m], m == "throughput" ? "" : "; p50/p99 latency in us"
			hdr = "| clients |"; sep = "|---|"
			for (pi = 1; pi <= np; pi++) if ((m, P[pi]) in has) { hdr = hdr " " P[pi] " |"; sep = sep "---|" }
			for (pi = 2; pi <= np; pi++) if ((m, P[pi]) in has) { hdr = hdr " axgate/" P[pi] " |"; sep = sep "---|" }
			print hdr; print sep
			for (ci = 1; ci <= nc; ci++) {
				c = C[ci]; line = "| " c " |"
				for (pi = 1; pi <= np; pi++) {
					p = P[pi]; if (!((m, p) in has)) continue
					k = m SUBSEP c SUBSEP p
					if (rate[k] == "") { line = line " – |"; continue }
					if (m == "throughput")
						line = line sprintf(" %s%s |", fmt(med(rate[k])), err[k] > 0 ? " e" err[k] : "")
					else
						line = line sprintf(" %s (%s/%s)%s |", fmt(med(rate[k])), fmt(med(p50[k])), fmt(med(p99[k])), err[k] > 0 ? " e" err[k] : "")
				}
				for (pi = 2; pi <= np; pi++) {
					p = P[pi]; if (!((m, p) in has)) continue
					s = ""
					for (q in reps) {
						a = r[m, c, "axgate", q]; b = r[m, c, p, q]
						if (a != "" && b + 0 > 0) s = s " " (a / b)
					}
					line = line (s == "" ? " – |" : sprintf(" %.2f (%.2f–%.2f) |", med(s), mn(s), mx(s)))
				}
				print line
			}
		}
		printf "\n### idle tunnels (2,000 held): proxy memory per tunnel, tunnels opened per second\n\n"
		print "The largest RSS growth over the reps: a later rep reuses memory the first one freed."
		print ""
		print "| proxy | bytes per tunnel | tunnels/s |"
		print "|---|---|---|"
		for (pi = 1; pi <= np; pi++) {
			p = P[pi]; if (mem[p] == "") continue
			printf "| %s | %.0f | %.0f |\n", p, mx(mem[p]), med(irate[p])
		}
	}' "$res"
}
{
	echo "## axgate, Squid, tinyproxy and direct loopback"
	echo
	echo "Rates are the median over $reps rep(s) of ${dur} s; ratios are per rep, median (min–max)."
	echo "\"eN\": N failed transactions over all reps."
	echo "Proxies, upstreams and the relay pinned to CPU $px_cpu, the generator to CPU $gen_cpu, all at nice $nice."
	summarize
	echo
	echo "### axgate: policy size"
	echo
	echo "| endpoints | start ms | CONNECT+echo/s (16 clients) | p50 us | deny/s | deny p50 us |"
	echo "|---|---|---|---|---|---|"
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^policy=/ {
		split(kv("label"), l, ";"); n = substr(l[1], 8)
		if (kv("mode") == "connect-echo") { st[n] = substr(l[2], 10); ce[n] = kv("rate"); cp[n] = kv("p50_us"); if (!(n in o)) { o[n] = ++k; ord[k] = n } }
		else { de[n] = kv("rate"); dp[n] = kv("p50_us") }
	} END { for (i = 1; i <= k; i++) { n = ord[i]; printf "| %s | %s | %s | %s | %s | %s |\n", n, st[n], ce[n], cp[n], de[n], dp[n] } }' "$res"
	echo
	echo "### axgate: request body size (POST, one client, kept alive)"
	echo
	echo "| body bytes | proxy | requests/s | MB/s | p50 us |"
	echo "|---|---|---|---|---|"
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^body=/ {
		printf "| %s | %s | %s | %.1f | %s |\n", kv("body"), kv("proxy"), kv("rate"), kv("rate") * kv("body") / 1e6, kv("p50_us") }' "$res"
	echo
	echo "### axgate: open tunnels"
	echo
	echo "| tunnels | RSS growth KB | bytes per tunnel | tunnels opened/s | CONNECT+echo/s while held |"
	echo "|---|---|---|---|---|"
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^tunnels=/ { n = substr(kv("label"), 9); d[n] = kv("rss1_kb") - kv("rss0_kb"); t[n] = kv("tunnels"); o[n] = kv("rate"); ord[++k] = n }
	$1 == "loadgen" && kv("label") ~ /^held=/ { h[substr(kv("label"), 6)] = kv("rate") }
	END { for (i = 1; i <= k; i++) { n = ord[i]; printf "| %s | %d | %.0f | %s | %s |\n", t[n], d[n], t[n] ? d[n] * 1024 / t[n] : 0, o[n], h[n] } }' "$res"
} > "$out/table.md"

# ---- the plots ----
if [ $have_gp -eq 1 ]; then
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^policy=/ && kv("mode") == "connect-echo" { split(kv("label"), l, ";"); print substr(l[1], 8), kv("rate"), kv("p50_us"), substr(l[2], 10) }' "$res" > "$tmp/policy.dat"
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^body=/ { print kv("body"), kv("rate") * kv("body") / 1e6 > ("'"$tmp"'/body-" kv("proxy") ".dat") }' "$res"
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^tunnels=/ { t = kv("tunnels"); n = substr(kv("label"), 9); if (t > 0) print n, (kv("rss1_kb") - kv("rss0_kb")) * 1024 / t, kv("rate") }' "$res" > "$tmp/tunnels.dat"
	awk "$(get)"'$1 == "loadgen" && kv("label") ~ /^held=/ { print substr(kv("label"), 6), kv("rate") }' "$res" > "$tmp/held.dat"
	bodyplot="'$tmp/body-axgate.dat' using 1:2 with linespoints title 'axgate', '$tmp/body-direct.dat' using 1:2 with linespoints title 'direct'"
	[ -s "$tmp/body-squid.dat" ] && bodyplot="$bodyplot, '$tmp/body-squid.dat' using 1:2 with linespoints title 'squid'"
	gnuplot > "$tmp/gnuplot.log" 2>&1 <<EOF || say "gnuplot failed: $(cat "$tmp/gnuplot.log")"
set terminal png size 800,500
set grid
set key top left
set logscale x
set output '$out/policy-size.png'
set title 'axgate: CONNECT+echo rate (16 clients) against policy size'
set xlabel 'endpoints in the policy'
set ylabel 'CONNECTs per second'
set yrange [0:*]
set y2label 'start-up ms'
set y2tics
set logscale y2
plot '$tmp/policy.dat' using 1:2 with linespoints title 'CONNECT+echo/s', '' using 1:4 axes x1y2 with linespoints title 'start-up ms'
unset y2tics
unset y2label
unset logscale y2
set output '$out/body-size.png'
set title 'plain-HTTP POST through the credential scanner (one client, kept alive)'
set xlabel 'body bytes'
set ylabel 'MB/s'
set yrange [0:*]
plot $bodyplot
set output '$out/tunnels.png'
set title 'axgate: open tunnels'
set xlabel 'idle tunnels held'
set ylabel 'bytes of proxy RSS per tunnel'
set y2label 'CONNECT+echo/s while held'
set y2tics
set y2range [0:*]
plot '$tmp/tunnels.dat' using 1:2 with linespoints title 'bytes per tunnel', '$tmp/held.dat' using 1:2 axes x1y2 with linespoints title 'CONNECT+echo/s (16 clients)'
EOF
fi
cat "$out/table.md"
say "results in $out (results.txt, table.md$([ $have_gp -eq 1 ] && echo ', *.png'))"
