#!/bin/sh
# process.max_processes through the real `axgate run`: the job's own pids
# group, so the tasks of other jobs and daemons of the same user do not
# count; the group is gone when the job ends, and a killed launcher's group
# is swept by the next launch.  Without a usable pids controller the limit
# falls back to RLIMIT_NPROC.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp, cgroups)"
need_cmd setpriv
"$AXGATE" run --policy "$top_srcdir/contrib/policies/minimal.yaml" \
    -- /bin/true >/dev/null 2>&1 ||
	skip_all "axgate run does not work on this machine (see run-block.sh)"
# where our pids group is: the v1 "pids" hierarchy, else cgroup v2
pids_root=$(awk '$9 == "cgroup" && $NF ~ /(^|,)pids(,|$)/ {print $5; exit}' \
    /proc/self/mountinfo)
self=$(sed -n 's/^[0-9]*:pids:\(.*\)/\1/p' /proc/self/cgroup)
if [ -z "$pids_root" ]; then
	pids_root=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
	self=$(sed -n 's/^0::\(.*\)/\1/p' /proc/self/cgroup)
	grep -qw pids "$pids_root$self/cgroup.subtree_control" 2>/dev/null ||
		skip_all "no pids cgroup controller to use (neither a v1 pids hierarchy nor v2 with pids delegated to $self)"
fi
parent=${pids_root}${self%/}

tmp=$(mktemp -d) || exit 1
holder=""
cleanup() {
	[ -n "$holder" ] && { pkill -P "$holder"; kill "$holder"; } 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"
mkdir "$tmp/ws" && chmod 777 "$tmp/ws"
printf 'version: 1\nname: limits\nnetwork: {mode: block}\nprocess: {max_processes: 8}\n' \
	>"$tmp/p.yaml"
printf 'version: 1\nname: limits\nnetwork: {mode: block}\nprocess: {max_processes: 60000}\n' \
	>"$tmp/big.yaml"
# Eight tasks of nobody on the host, as a daemon of that user would have.
setpriv --reuid=65534 --regid=65534 --clear-groups /bin/sh -c \
    'for i in 1 2 3 4 5 6 7 8; do sleep 60 & done; wait' &
holder=$!
sleep 0.3
n=$(ps -u 65534 -o pid= | wc -l)
ok $([ "$n" -ge 8 ]; echo $?) "nobody has $n processes on the host"

# The job runs as nobody too: its init, sh and six sleeps are 8.
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- /bin/sh -c \
    'for i in 1 2 3 4 5 6; do sleep 0.2 & done; wait; echo forked' 2>&1)
is "$out" "forked" "a job forks up to its limit beside the host's processes of its user"
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- /bin/sh -c \
    'for i in 1 2 3 4 5 6 7; do sleep 0.2 & done; wait; echo forked' 2>&1)
like "$out" "Cannot fork" "and no further: the limit holds"
out=$("$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- /bin/sh -c \
    'sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup; grep "^Max processes" /proc/self/limits' 2>&1)
matches "$out" "/axgate-[0-9]+-[0-9]+$" "the job is in a pids group of its own"
if printf '%s\n' "$out" | grep -Eq "^Max processes +8 "; then r=1; else r=0; fi
ok $r "and RLIMIT_NPROC is not what limits it"

# The group's pids.max, read from the host while the job runs.
"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- /bin/sh -c \
    'sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup; sleep 1' >"$tmp/cg" 2>&1 &
job=$!
i=0
while [ ! -s "$tmp/cg" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
grp=$(head -1 "$tmp/cg")
grp=${grp##*/}
is "$(cat "$parent/$grp/pids.max" 2>&1)" 8 "its pids.max is the policy's max_processes"
wait $job
is "$(ls -d "$parent"/axgate-* 2>/dev/null | wc -l)" 0 "the group is gone after the job"

# A launcher killed with SIGKILL leaves its (empty) group; the next launch
# removes it.
"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- /bin/sleep 30 >/dev/null 2>&1 &
launcher=$!
i=0
while [ -z "$(ls -d "$parent"/axgate-"$launcher"-* 2>/dev/null)" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$launcher"
wait "$launcher" 2>/dev/null
i=0
while [ -n "$(cat "$parent"/axgate-"$launcher"-*/cgroup.procs 2>/dev/null)" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
left=$(ls -d "$parent"/axgate-"$launcher"-* 2>/dev/null | wc -l)
is "$left" 1 "a killed launcher leaves its group"
"$AXGATE" run --policy "$tmp/p.yaml" --workspace "$tmp/ws" -- /bin/true
is "$(ls -d "$parent"/axgate-"$launcher"-* 2>/dev/null | wc -l)" 0 "the next launch sweeps it"

# No pids group to be had (mkdir refused): the limit is RLIMIT_NPROC.
FAILSYS=${FAILSYS:-tests/integration/failsys}
if [ -x "$FAILSYS" ]; then
	out=$("$FAILSYS" 'mkdir:EACCES:1' -- "$AXGATE" run --policy "$tmp/p.yaml" \
	    --workspace "$tmp/ws" -- /bin/true 2>&1)
	like "$out" "Resource temporarily unavailable" \
		"which counts the host's processes of the user: the job cannot start"
	# (a limit that the other tasks of nobody, other tests' among them,
	# leave room under)
	out=$("$FAILSYS" 'mkdir:EACCES:1' -- "$AXGATE" run --policy "$tmp/big.yaml" \
	    --workspace "$tmp/ws" -- /bin/sh -c \
	    'sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup; grep "^Max processes" /proc/self/limits' 2>&1)
	unlike "$out" "axgate-" "without a pids group of its own"
	matches "$out" "^Max processes +60000 +60000 " "the job gets RLIMIT_NPROC"
else
	skip "RLIMIT_NPROC fallback" "tests/integration/failsys is not built"
	skip "RLIMIT_NPROC fallback" "tests/integration/failsys is not built"
	skip "RLIMIT_NPROC fallback" "tests/integration/failsys is not built"
fi

# As on a host with cgroup v2 alone (v1 hierarchies ignored): the v2
# hierarchy here offers neither memory nor cpu (they are bound to v1), so
# the memory and CPU-rate limits are refused and the process limit is
# RLIMIT_NPROC.
v2mnt=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
v2self=$(sed -n 's/^0::\(.*\)/\1/p' /proc/self/cgroup)
v2ctl=$(cat "$v2mnt${v2self%/}/cgroup.controllers" 2>/dev/null)
printf 'version: 1\nname: v2\nnetwork: {mode: block}\nprocess: {max_memory_mb: 64}\n' >"$tmp/v2mem.yaml"
printf 'version: 1\nname: v2\nnetwork: {mode: block}\nprocess: {cpu_rate_percent: 50}\n' >"$tmp/v2cpu.yaml"
if [ -z "$v2mnt" ]; then
	skip "cgroup v2 refusals" "no cgroup v2 hierarchy is mounted"
elif printf '%s\n' "$v2ctl" | grep -qw -e memory -e cpu -e pids; then
	skip "cgroup v2 refusals" "this host's cgroup v2 group offers memory, cpu or pids ($v2ctl)"
else
	rm -f "$tmp/ws/ran"
	out=$(AXGATE_CGROUP_IGNORE_V1=1 "$AXGATE" run --policy "$tmp/v2mem.yaml" \
	    --workspace "$tmp/ws" -- /bin/sh -c "touch $tmp/ws/ran" 2>&1)
	is "$?" 251 "v2 alone, max_memory_mb: the launch is refused"
	like "$out" "process.max_memory_mb, which needs the 'memory' cgroup controller: no cgroup v1 hierarchy carries it, and the cgroup v2 group" \
		"the message names the limit, the controller and the v2 group"
	like "$out" "Delegate=yes" "and says how to fix it"
	ok $([ ! -e "$tmp/ws/ran" ]; echo $?) "the job never ran"
	out=$(AXGATE_CGROUP_IGNORE_V1=1 "$AXGATE" run --policy "$tmp/v2cpu.yaml" \
	    --workspace "$tmp/ws" -- /bin/true 2>&1)
	is "$?" 251 "v2 alone, cpu_rate_percent: refused too"
	like "$out" "'cpu' cgroup controller" "naming the cpu controller"
	out=$(AXGATE_CGROUP_IGNORE_V1=1 "$AXGATE" run --policy "$tmp/big.yaml" \
	    --workspace "$tmp/ws" -- /bin/sh -c 'grep "^Max processes" /proc/self/limits' 2>&1)
	matches "$out" "^Max processes +60000 +60000 " \
		"v2 alone, max_processes: RLIMIT_NPROC"
fi

# Memory and CPU rate: groups of the job's own in the memory and cpu
# controllers (v1 hierarchies here, or cgroup v2 where it delegates them).
probe_src="$top_builddir/tests/escape/probe"
mkdir "$tmp/bin" && cp "$probe_src" "$tmp/bin/probe"
printf 'version: 1\nname: mem\nnetwork: {mode: block}\nfilesystem: {read_only: ["%s"]}\nprocess: {max_memory_mb: 32, cpu_rate_percent: 10}\n' \
	"$tmp/bin" >"$tmp/mem.yaml"
if ! out=$("$AXGATE" run --policy "$tmp/mem.yaml" --workspace "$tmp/ws" \
    -- /bin/true 2>&1); then
	# no controller to use: the refusal must say which
	like "$out" "which needs the 'memory' cgroup controller" \
		"no memory controller on this host: the launch is refused"
	done_testing
	exit 0
fi
: >"$tmp/cg2"
"$AXGATE" run --policy "$tmp/mem.yaml" --workspace "$tmp/ws" -- /bin/sh -c \
    'grep -E "^[0-9]+:(memory|cpu|[a-z,]*,cpu|cpu,[a-z,]*):|^0::" /proc/self/cgroup; sleep 1' \
    >"$tmp/cg2" 2>&1 &
job=$!
i=0
while [ "$(wc -l <"$tmp/cg2")" -lt 2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
mem="" cpu=""
while IFS=: read -r _ ctl path; do
	case ",$ctl," in
	*,memory,*) mem=$(awk -v p="$path" '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ {print $5 p; exit}' /proc/self/mountinfo) ;;
	*,cpu,*) cpu=$(awk -v p="$path" '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ {print $5 p; exit}' /proc/self/mountinfo) ;;
	,,) v2=$(awk -v p="$path" '$9 == "cgroup2" {print $5 p; exit}' /proc/self/mountinfo)
	    # v2 holds what no v1 hierarchy does
	    [ -n "$mem" ] || mem=$v2
	    [ -n "$cpu" ] || cpu=$v2 ;;
	esac
done <"$tmp/cg2"
matches "$mem" "/axgate-[0-9]+-[0-9]+$" "the job is in a memory group of its own"
matches "$cpu" "/axgate-[0-9]+-[0-9]+$" "and in a cpu group of its own"
if [ -f "$mem/memory.max" ]; then
	is "$(cat "$mem/memory.max")" 33554432 "memory.max is max_memory_mb"
	is "$(cat "$cpu/cpu.max")" "10000 100000" "cpu.max is cpu_rate_percent of one CPU"
else
	is "$(cat "$mem/memory.limit_in_bytes")" 33554432 \
		"memory.limit_in_bytes is max_memory_mb"
	if [ -f "$mem/memory.memsw.limit_in_bytes" ]; then
		is "$(cat "$mem/memory.memsw.limit_in_bytes")" 33554432 \
			"and swap does not add to it"
	else
		skip "swap accounting" "this kernel does not account swap (no memory.memsw)"
	fi
	is "$(cat "$cpu/cpu.cfs_quota_us") $(cat "$cpu/cpu.cfs_period_us")" \
		"10000 100000" "cpu.cfs_quota_us is cpu_rate_percent of one CPU"
fi
wait $job
ok $([ ! -d "$mem" ] && [ ! -d "$cpu" ]; echo $?) "the groups are gone after the job"

out=$("$AXGATE" run --policy "$tmp/mem.yaml" --workspace "$tmp/ws" \
    --audit "$tmp/mem.audit" -- "$tmp/bin/probe" alloc 64 2>&1)
is "$?" 137 "a job touching 64 MiB under max_memory_mb 32 is killed"
like "$out" "reached its memory limit (process.max_memory_mb)" "and the launcher says why"
like "$(tail -1 "$tmp/mem.audit")" '"status_detail":"a task was killed at the memory limit' \
	"and so does its exit event"
ocsf_valid "$tmp/mem.audit" "the launch and exit events pass ocsf-validate"
out=$("$AXGATE" run --policy "$tmp/mem.yaml" --workspace "$tmp/ws" \
    -- "$tmp/bin/probe" alloc 8 2>&1)
is "$out" "OK" "8 MiB fits"
out=$("$AXGATE" run --policy "$tmp/mem.yaml" --workspace "$tmp/ws" \
    -- "$tmp/bin/probe" spin 500 2>&1)
cpu_ms=${out#cpu=}
cpu_ms=${cpu_ms%% *}
ok $([ "${cpu_ms:-999}" -lt 200 ]; echo $?) \
	"busy for 500 ms at cpu_rate_percent 10: $out"

done_testing
