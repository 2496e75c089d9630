#!/bin/sh
# The sandbox init (pid 1 of the job's PID namespace) through the real
# `axgate run`: once the job is forked it keeps no privilege the job could
# borrow (the job's user, no capabilities, not dumpable, no_new_privs, a
# seccomp filter of its few calls, only the status pipe open), the job
# cannot use it (trace it, signal it, read its memory, environment or
# descriptors), and it still relays signals and reaps orphans.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"
probe_src="$top_builddir/tests/escape/probe"
[ -x "$probe_src" ] || skip_all "the probe is not built ($probe_src)"

tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
launcher=""
cleanup() {
	[ -n "$launcher" ] && kill "$launcher" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/bin" "$tmp/ws"
cp "$probe_src" "$tmp/bin/probe"
chmod 777 "$tmp/ws"
cat >"$tmp/p.yaml" <<YAML
version: 1
name: init
filesystem: {read_only: ["$tmp/bin"]}
network: {mode: block}
YAML

plan 19

run_probe() {
	"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
	    "$tmp/bin/probe" "$@" 2>&1
}

# From the host: the init of a running job.
"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
    "$tmp/bin/probe" sleep 20000 >/dev/null 2>&1 &
launcher=$!
init=""
i=0
while [ -z "$init" ] && [ $i -lt 100 ]; do
	sleep 0.1
	init=$(pgrep -P "$launcher" | head -1)
	# wait for the job too: the init confines itself after the fork
	[ -n "$init" ] && [ -z "$(pgrep -P "$init")" ] && init=""
	i=$((i + 1))
done
ok $([ -n "$init" ]; echo $?) "the init of a running job is found ($init)"
sleep 0.2
st=$(cat "/proc/$init/status" 2>/dev/null)
field() { printf '%s\n' "$st" | sed -n "s/^$1:[[:space:]]*//p" | tr -s '\t ' ' '; }
is "$(field Uid)" "65534 65534 65534 65534" "the init runs as the job's user, not root"
is "$(field CapEff)" "0000000000000000" "with no effective capabilities"
is "$(field CapPrm)" "0000000000000000" "no permitted capabilities"
is "$(field CapBnd)" "0000000000000000" "an empty bounding set"
is "$(field NoNewPrivs)" "1" "no_new_privs"
is "$(field Seccomp)" "2" "a seccomp filter"
fds=$(ls "/proc/$init/fd" 2>/dev/null | sort -n | tr '\n' ' ')
n=$(printf '%s' "$fds" | wc -w)
case $fds in
"0 1 2 "*) is "$n" 4 "only stdio and the status pipe are open ($fds)" ;;
*) ok 1 "only stdio and the status pipe are open ($fds)" ;;
esac
kill "$launcher"
wait "$launcher" 2>/dev/null
launcher=""

# From inside the job.
is "$(run_probe proc-status 1 | tail -1)" "ENOENT" \
	"the job cannot see the init in /proc (hidepid)"
is "$(run_probe read /proc/1/environ | tail -1)" "ENOENT" \
	"nor read its environment"
is "$(run_probe list-fds 1 | tail -1)" "ENOENT" "nor list its descriptors"
is "$(run_probe ptrace-pid 1 | tail -1)" "EPERM" "nor trace it"
is "$(run_probe vm-readv | tail -1)" "EPERM" \
	"nor read its memory (the probe's parent is the init)"
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
    /bin/sh -c "$tmp/bin/probe kill 1 9; $tmp/bin/probe kill 1 19;
	$tmp/bin/probe kill 1 15; echo still-here; exit 7" 2>&1)
rc=$?
is "$(printf '%s\n' "$out" | tr '\n' ' ')" "EPERM EPERM EPERM still-here " \
	"signals to the init are refused"
is "$rc" 7 "and the job ran on to its own exit status"

# It still does its job: relay signals from the launcher, reap orphans.
"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
    "$tmp/bin/probe" trap-term 20000 >"$tmp/out" 2>&1 &
launcher=$!
i=0
while ! grep -q ready "$tmp/out" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$launcher"
wait "$launcher"
rc=$?
launcher=""
is "$rc" 42 "SIGTERM to the launcher reaches the job through the init"
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- \
    /bin/sh -c "$tmp/bin/probe daemon; sleep 0.2; exit 3" 2>&1)
rc=$?
is "$rc" 3 "a job that leaves an orphan behind ends with its own status"
is "$(pgrep -f "$tmp/bin/probe" | wc -l)" 0 "and the orphan is gone"

# The job itself, for comparison: the same confinement.
is "$(run_probe proc-status self | tail -1)" \
	"Uid=65534 CapPrm=0000000000000000 CapEff=0000000000000000 CapBnd=0000000000000000 NoNewPrivs=1 Seccomp=2" \
	"the job's own status: the same user, no capabilities, filtered"

done_testing
