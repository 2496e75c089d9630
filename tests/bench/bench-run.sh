#!/bin/sh
# bench-run: wall time of `axgate run -- /bin/true` in proxy mode and in
# block mode, side by side with `unshare -n /bin/true` and, when
# installed, `bwrap --unshare-all --ro-bind / / /bin/true`, alternating
# the commands in the same run so that drift shows.  Prints the median and
# the spread of each, and the ratios to `unshare -n`.
# Targets: proxy mode within 2.5x of unshare -n and faster than bwrap;
# block mode within 1.2x of unshare -n.
set -u
[ "$(id -u)" -eq 0 ] || { echo "bench-run: needs root (namespaces)"; exit 0; }
AXGATE=${AXGATE:-cli/axgate}
top_srcdir=${top_srcdir:-.}
rounds=${BENCH_RUN_ROUNDS:-15}
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

names="unshare-n axgate-block axgate-proxy"
command -v bwrap >/dev/null && names="$names bwrap"
for n in $names; do : >"$tmp/$n"; done
i=0
while [ $i -lt "$rounds" ]; do
	for n in $names; do
		case $n in
		unshare-n) t=$(time_ms unshare -n /bin/true) ;;
		axgate-block) t=$(time_ms "$AXGATE" run --policy "$block" \
		    --workspace "$tmp" -- /bin/true) ;;
		axgate-proxy) t=$(time_ms "$AXGATE" run --policy \
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
printf '%-14s %10s %16s %10s\n' command "median ms" "p10-p90 ms" "vs unshare"
for n in $names; do
	m=$(median "$tmp/$n")
	printf '%-14s %10s %16s %9.2fx\n' "$n" "$m" "$(spread "$tmp/$n")" \
		"$(echo "$m $base" | awk '{print $1 / $2}')"
done
if ! command -v bwrap >/dev/null; then
	echo "(bwrap is not installed: apt-get install bubblewrap to compare)"
fi
