#!/bin/sh
# The rules and routes a job network really gets, as nft and ip print them
# (golden files with the job's addresses filled in), and what is left after
# the network is torn down.
. "$top_srcdir/tests/lib.sh"

run="$top_builddir/tests/integration/netns-exec"
golden="$top_srcdir/tests/integration"

need_root "needs root to create network namespaces"
need_cmd nft "needs nft (nftables) to list rules"
need_cmd ip "needs ip (iproute2) to list routes"

tmp=$(mktemp -d) || exit 1
# Whatever happens, leave nothing: the runner tears down its own network,
# and a sweep removes what a killed runner left.
trap '"$run" --sweep >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
"$run" --sweep >/dev/null 2>&1

fill() {
	sed -e "s/@HOST@/$host/g" -e "s/@HOSTIF@/$hostif/g" \
	    -e "s/@TABLE@/$table/g" "$1"
}

# --- proxy mode: inside the job's namespace
"$run" -- sh -c 'echo "$AXG_HOST_ADDR $AXG_HOST_IF $AXG_HOST_TABLE $AXG_JOB_ADDR $AXG_JOB_IF"
	nft list ruleset > "$1/job.nft"
	ip -4 route > "$1/route"
	ip -6 addr > "$1/addr6"
	ip -o -4 addr show dev "$AXG_JOB_IF" > "$1/addr4"' sh "$tmp" > "$tmp/env"
is "$?" 0 "the runner set up a proxy-mode network and ran a shell in it"
read -r host hostif table jobaddr jobif < "$tmp/env"
like "$host" "10." "host address $host"

fill "$golden/netns-ruleset-job.golden" > "$tmp/want.nft"
if diff -u "$tmp/want.nft" "$tmp/job.nft" > "$tmp/diff"; then
	ok 0 "the job's ruleset is exactly the golden one"
else
	ok 1 "the job's ruleset is exactly the golden one"
	sed 's/^/# /' "$tmp/diff"
fi
net=$(echo "$host" | awk -F. '{ printf "%d.%d.%d.%d", $1, $2, $3, $4 - 1 }')
is "$(sed 's/ *$//' "$tmp/route")" \
    "$net/30 dev $jobif proto kernel scope link src $jobaddr" \
    "the only route is the connected /30 (no default route)"
is "$(cat "$tmp/addr6")" "" "no IPv6 address inside"
like "$(cat "$tmp/addr4")" "inet $jobaddr/30" "the job end has $jobaddr/30"

# --- proxy mode: the host-side table
"$run" --host -- sh -c 'echo "$AXG_HOST_ADDR $AXG_HOST_IF $AXG_HOST_TABLE"
	nft list table inet "$AXG_HOST_TABLE" > "$1/host.nft"
	ip -o -4 addr show dev "$AXG_HOST_IF" > "$1/haddr"' sh "$tmp" \
    > "$tmp/env"
is "$?" 0 "the runner ran a shell beside a network"
read -r host hostif table < "$tmp/env"
fill "$golden/netns-ruleset-host.golden" > "$tmp/want.nft"
if diff -u "$tmp/want.nft" "$tmp/host.nft" > "$tmp/diff"; then
	ok 0 "the host table is exactly the golden one"
else
	ok 1 "the host table is exactly the golden one"
	sed 's/^/# /' "$tmp/diff"
fi
like "$(cat "$tmp/haddr")" "inet $host/30" "the host end has $host/30"
# The teardown hands the table's deletion to a short-lived process.
gone=1
for _ in $(seq 50); do
	if ! nft list table inet "$table" > /dev/null 2>&1; then
		gone=0
		break
	fi
	sleep 0.1
done
ok "$gone" "table $table is gone after teardown"
gone=1
for _ in $(seq 100); do
	if ! ip link show "$hostif" > /dev/null 2>&1; then
		gone=0
		break
	fi
	sleep 0.1
done
ok "$gone" "link $hostif is gone after teardown"

# --- other ports, block mode, exit status
"$run" --port 8080 -- nft list ruleset > "$tmp/p.nft"
like "$(cat "$tmp/p.nft")" "tcp dport 8080 accept" "--port 8080 is allowed"
case "$(cat "$tmp/p.nft")" in
*"dport 3128"*) ok 1 "... and 3128 is not" ;;
*) ok 0 "... and 3128 is not" ;;
esac
"$run" --block -- sh -c 'nft list ruleset; ip -br link | cut -d" " -f1' \
    > "$tmp/block"
is "$(cat "$tmp/block")" "lo" "block mode: no rules, only lo"
"$run" -- sh -c 'exit 7'
is "$?" 7 "the command's exit status comes back"
"$run" --sweep > /dev/null
is "$?" 0 "a sweep runs cleanly"

done_testing
