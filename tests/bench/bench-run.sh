#!/bin/sh
# bench-run: wall time of `axgate run -- /bin/true` in proxy mode and in
# block mode, side by side with `unshare -n /bin/true` and, when
# installed, `bwrap --unshare-all --ro-bind / / /bin/true`, alternating
# the commands in the same run so that drift shows.  Prints the median and
# the spread of each, and the ratios to `unshare -n`.
# Targets: proxy mode within 2.5x of unshare -n and faster than bwrap;
# block mode within 1.2x of unshare -n.  Then the launcher's own profile
# of each step (AXGATE_TRACE_LAUNCH=1), median per step, in both modes.
# AXGATE_BASELINE=path/to/another/axgate adds that build to the same run
# (before/after comparisons).  BENCH_RUN_GAP=SECONDS sleeps that long
# before each command: launches far apart, where the kernel has freed
# what the last job's teardown deleted before the next one starts (a
# netfilter socket released while a deletion waits for its RCU grace
# period holds the nftables mutex that registering a veth pair takes;
# see HOLD_NS in netns/nft.c).
set -u
[ "$(id -u)" -eq 0 ] || { echo "bench-run: needs root (namespaces)"; exit 0; }
AXGATE=${AXGATE:-cli/axgate}
top_srcdir=${top_srcdir:-.}
rounds=${BENCH_RUN_ROUNDS:-15}
gap=${BENCH_RUN_GAP:-0}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
printf 'version: 1\nname: bench\nnetwork: {mode: proxy, policies: []}\n' \
	>"$tmp/proxy.yaml"
block="$top_srcdir/contrib/policies/minimal.yaml"

# time_ms CMD...: milliseconds of one run, on stdout
time_ms() {
	python3 -c 'import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.2f" % ((time.monotonic() - t) * 1000))' "$@"
}

if ! command -v bwrap >/dev/null; then
	apt-get install -y bubblewrap >/dev/null 2>&1 ||
		echo "(bubblewrap could not be installed: no bwrap column)"
fi
names="unshare-n axgate-block axgate-proxy"
[ -n "${AXGATE_BASELINE:-}" ] && names="$names base-block base-proxy"
command -v bwrap >/dev/null && names="$names bwrap"
for n in $names; do : >"$tmp/$n"; done
i=0
while [ $i -lt "$rounds" ]; do
	for n in $names; do
		[ "$gap" = 0 ] || sleep "$gap"
		case $n in
		unshare-n) t=$(time_ms unshare -n /bin/true) ;;
		axgate-block) t=$(time_ms "$AXGATE" run --policy "$block" \
		    --workspace "$tmp" -- /bin/true) ;;
		axgate-proxy) t=$(time_ms "$AXGATE" run --policy \
		    "$tmp/proxy.yaml" --workspace "$tmp" -- /bin/true) ;;
		base-block) t=$(time_ms "$AXGATE_BASELINE" run --policy \
		    "$block" --workspace "$tmp" -- /bin/true) ;;
		base-proxy) t=$(time_ms "$AXGATE_BASELINE" run --policy \
		    "$tmp/proxy.yaml" --workspace "$tmp" -- /bin/true) ;;
		bwrap) t=$(time_ms bwrap --unshare-all --ro-bind / / /bin/true) ;;
		esac
		echo "$t" >>"$tmp/$n"
	done
	i=$((i + 1))
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
spread() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%s-%s", a[int(NR/10)+1], a[NR-int(NR/10)]}'; }
base=$(median "$tmp/unshare-n")
[ "$gap" = 0 ] || echo "($gap s between launches)"
printf '%-14s %10s %16s %10s\n' command "median ms" "p10-p90 ms" "vs unshare"
for n in $names; do
	m=$(median "$tmp/$n")
	printf '%-14s %10s %16s %9.2fx\n' "$n" "$m" "$(spread "$tmp/$n")" \
		"$(echo "$m $base" | awk '{print $1 / $2}')"
done

# trace POLICY: the median of each step over the rounds, with the
# program's start-up (from this side's clock before the exec to the
# launcher's first step) and its exit (from its last step to its reaping)
trace() {
	python3 - "$AXGATE" "$1" "$tmp" "$rounds" "$gap" <<'PY'
import re, statistics, subprocess, sys, time
axgate, policy, ws, rounds, gap = sys.argv[1:6]
steps, order = {}, []
def add(name, ms):
    if name not in steps:
        steps[name] = []
        order.append(name)
    steps[name].append(ms)
env = {"AXGATE_TRACE_LAUNCH": "1", "PATH": "/usr/bin:/bin"}
for _ in range(int(rounds)):
    if float(gap) > 0:
        time.sleep(float(gap))
    t0 = time.monotonic_ns()
    p = subprocess.run([axgate, "run", "--policy", policy, "--workspace",
        ws, "--", "/bin/true"], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, env=env, text=True)
    t1 = time.monotonic_ns()
    start, last = None, 0.0
    for line in p.stderr.splitlines():
        m = re.match(r"axgate run: trace: start at (\d+) ns", line)
        if m:
            start = int(m.group(1))
            add("start-up", (start - t0) / 1e6)
            continue
        m = re.match(r"axgate run: trace: (.*[a-z]) +([0-9.]+) ms "
            r"\(at +([0-9.]+) ms\)", line)
        if m:
            add(m.group(1), float(m.group(2)))
            last = float(m.group(3))
    if start is not None:
        add("exit", (t1 - start) / 1e6 - last)
for s in order:
    print("  %-16s %8.2f ms" % (s, statistics.median(steps[s])))
PY
}
echo "launch steps, block mode (median ms):"
trace "$block"
echo "launch steps, proxy mode (median ms):"
trace "$tmp/proxy.yaml"
