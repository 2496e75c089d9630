#!/bin/sh
# axgate run in block mode, end to end: the real launcher, the real
# namespace and sandbox, the job's exit status, and the audit events.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
minimal="$top_srcdir/contrib/policies/minimal.yaml"
# Job links whose launcher is gone: leaked (a link of a live launcher
# belongs to a job running now, perhaps another test's).
stale_links() {
	ip -o link show | grep -o 'alias axgate owner=[0-9]*' |
	while read -r _ _ o; do
		kill -0 "${o#owner=}" 2>/dev/null || echo "$o"
	done | wc -l
}
links_before=$(stale_links)

out=$("$AXGATE" run --policy "$minimal" --workspace "$tmp" \
    --audit "$tmp/audit.jsonl" -- /bin/sh -c 'echo job-ran; exit 7' 2>&1)
rc=$?
is "$rc" 7 "the job's exit status is passed through"
like "$out" "job-ran" "the job ran"

lines=$(wc -l < "$tmp/audit.jsonl")
is "$lines" 2 "two Process Activity events: launch and exit"
launch=$(sed -n 1p "$tmp/audit.jsonl")
term=$(sed -n 2p "$tmp/audit.jsonl")
like "$launch" '"activity_name":"Launch"' "the first is the launch"
like "$term" '"activity_name":"Terminate"' "the second is the exit"
like "$term" '"exit_code":7' "with the exit code"
job=$(printf '%s' "$launch" | sed -n 's/.*"correlation_uid":"\(j-[0-9a-f]*\)".*/\1/p')
ok $([ -n "$job" ]; echo $?) "the launch carries the job id"
like "$term" "\"correlation_uid\":\"$job\"" "and the exit carries the same id"
validator="$AXG_SHARED_DIR/ocsf/ocsf-validate"
if [ -x "$validator" ] || [ -f "$validator" ]; then
	vout=$(python3 "$validator" "$tmp/audit.jsonl" 2>&1)
	like "$vout" "2 passed, 0 failed" "both events pass ocsf-validate (strict)"
else
	skip "ocsf-validate" "the shared OCSF validator is not at $validator"
fi

out=$("$AXGATE" run --policy "$minimal" --workspace "$tmp" -- id -u 2>&1)
is "$out" 65534 "the job runs as an unprivileged user"

out=$("$AXGATE" run --policy "$minimal" --workspace "$tmp" -- \
    /usr/bin/python3 -c 'import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    print("opened")
except OSError as e:
    print("errno", e.errno)' 2>&1)
is "$out" "errno 97" "block mode refuses IPv4 sockets (EAFNOSUPPORT)"

out=$("$AXGATE" run --policy "$minimal" --workspace "$tmp" -- \
    /bin/sh -c 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "' 2>&1)
is "$out" "lo" "the job's namespace has only lo"

"$AXGATE" run --policy "$minimal" --workspace "$tmp" -- \
    /bin/sh -c 'kill -TERM $$' >/dev/null 2>&1
is "$?" 143 "a job killed by SIGTERM exits 128+15"

out=$(env AXG_SECRET=s3cret "$AXGATE" run --policy "$minimal" \
    --workspace "$tmp" -- /usr/bin/env 2>&1)
case "$out" in *AXG_SECRET*) r=1 ;; *) r=0 ;; esac
ok $r "the caller's environment does not reach the job"


printf 'version: 1\nname: x\nnetwork: {mode: open}\n' > "$tmp/bad.yaml"
out=$("$AXGATE" run --policy "$tmp/bad.yaml" -- /bin/true 2>&1)
rc=$?
is "$rc" 2 "a bad policy stops the launch with exit 2"
like "$out" "$tmp/bad.yaml:3:17: network.mode: must be one of" \
    "naming file, line, column and key"

# Block mode queries no Rego rule, so the built-in ones are not compiled
# there; the policy's own modules still are, and must stop a launch.
printf 'package axgate.extra\nbroken := {\n' > "$tmp/broken.rego"
printf 'version: 1\nname: x\nnetwork: {mode: block}\nrego: [broken.rego]\n' \
	> "$tmp/badrego.yaml"
out=$("$AXGATE" run --policy "$tmp/badrego.yaml" --workspace "$tmp" -- \
    /bin/sh -c 'touch ran' 2>&1)
rc=$?
is "$rc" 2 "block mode: a policy module that does not compile stops the launch"
like "$out" "broken.rego:" "naming the module"
ok $([ ! -e "$tmp/ran" ]; echo $?) "and the job never ran"

"$AXGATE" run --policy "$minimal" -- /nonexistent/cmd >/dev/null 2>&1
is "$?" 253 "a command that cannot be executed exits 253"

"$AXGATE" run >/dev/null 2>&1
is "$?" 2 "no command is a usage error"

links_after=$(stale_links)
is "$links_after" "$links_before" "no job network is left behind"

done_testing
