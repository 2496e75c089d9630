#!/bin/sh
# axgate run fails closed: each step of the launch is made to fail by a
# seccomp filter that failsys installs before it execs the real launcher
# (a kernel without the feature, a module that is not loaded, a refused
# privilege change).  For every step: the launch stops with a reserved
# exit code, the message names what is missing and how to fix it, the job
# never ran (it would create a marker file), and nothing is left behind:
# no link or nftables table of the launcher's, no process, no mount.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"
FAILSYS=${FAILSYS:-tests/integration/failsys}
[ -x "$FAILSYS" ] || skip_all "tests/integration/failsys is not built"
"$AXGATE" run --policy "$top_srcdir/contrib/policies/minimal.yaml" \
    -- /bin/true >/dev/null 2>&1 ||
	skip_all "axgate run does not work on this machine (see run-block.sh)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
ws="$tmp/ws"
mkdir "$ws" && chmod 777 "$ws"
block="$top_srcdir/contrib/policies/minimal.yaml"
proxy="$tmp/proxy.yaml"
printf 'version: 1\nname: failproxy\nnetwork: {mode: proxy, policies: []}\n' \
	>"$tmp/proxy.yaml"
printf 'version: 1\nname: faillimits\nnetwork: {mode: block}\nprocess: {max_processes: 64}\n' \
	>"$tmp/limits.yaml"
printf 'version: 1\nname: failcg\nnetwork: {mode: block}\nprocess: {max_memory_mb: 64}\n' \
	>"$tmp/cgroup.yaml"
printf 'version: 1\nname: failcg2\nnetwork: {mode: block}\nprocess: {max_memory_mb: 64, cpu_rate_percent: 50}\n' \
	>"$tmp/cgroup2.yaml"
mounts_before=$(wc -l </proc/1/mountinfo)
# The job's mounts, in order: / private, a tmpfs over each of /home /root
# /run that exists (HOME is /root here), /tmp, the workspace bound back
# (it is under /tmp), then /proc.
HOME=/root
export HOME
MOUNT_PROC=4
for d in /home /root /run; do [ -d "$d" ] && MOUNT_PROC=$((MOUNT_PROC + 1)); done
# The launcher's nftables messages, in order (proxy mode): the start-up
# sweep's table dump, the host table's batch, the job namespace's batch.
SENDTO_HOST=2
SENDTO_JOB=3

# fails POLICY WANT_RC MESSAGE NAME RULE...: run a job that would create
# the marker, with RULE failing, and check the outcome and the leftovers.
fails() {
	pol=$1 want_rc=$2 want_msg=$3 name=$4
	shift 4
	rm -f "$ws/marker" "$tmp/pid"
	out=$(FAILSYS_PIDFILE="$tmp/pid" "$FAILSYS" "$@" -- "$AXGATE" run \
	    --policy "$pol" --workspace "$ws" -- \
	    /bin/sh -c "touch $ws/marker" 2>&1)
	rc=$?
	is "$rc" "$want_rc" "$name: the launch stops with exit $want_rc"
	like "$out" "$want_msg" "$name: the message says what and how"
	ok $([ ! -e "$ws/marker" ]; echo $?) "$name: the job never ran"
	pid=$(cat "$tmp/pid" 2>/dev/null)
	left=""
	if [ -n "$pid" ]; then
		# The launcher closes the job's namespace and lets the kernel
		# destroy it, and the veth pair with it, in the background:
		# give that up to 5 s before calling the link left behind.
		n=0
		while ip -o link show | grep -q "alias axgate owner=$pid\$"; do
			n=$((n + 1))
			[ "$n" -le 50 ] || { left="$left link"; break; }
			sleep 0.1
		done
		# and the host table's deletion to a short-lived process
		n=0
		while nft list tables 2>/dev/null |
		    grep -q "axgate_[0-9]*_$pid\$"; do
			n=$((n + 1))
			[ "$n" -le 50 ] || { left="$left table"; break; }
			sleep 0.1
		done
	else
		left="$left (no pid)"
	fi
	pgrep -f -- "$ws" >/dev/null && left="$left processes"
	[ -n "$pid" ] &&
		[ -n "$(find /sys/fs/cgroup -maxdepth 6 -type d \
		    -name "axgate-$pid-*" 2>/dev/null)" ] &&
		left="$left cgroups"
	[ "$(wc -l </proc/1/mountinfo)" = "$mounts_before" ] ||
		left="$left mounts"
	is "$left" "" "$name: nothing is left behind"
}

# Network namespace: no network namespaces, in both modes (block mode's
# is made by the sandbox's clone, proxy mode's by netns/).
fails "$block" 252 "creating the job's namespaces (PID, mount, IPC, network): Operation not permitted (the kernel refused it" \
	"block: netns creation (EPERM)" 'clone(a0&0x40000000)'
fails "$block" 252 "enable CONFIG_PID_NS, CONFIG_IPC_NS and CONFIG_NET_NS" \
	"block: netns creation (no CONFIG_NET_NS)" 'clone(a0&0x40000000):EINVAL'
fails "$proxy" 252 "unshare(CLONE_NEWNET): Operation not permitted (needs CAP_SYS_ADMIN)" \
	"proxy: netns creation" 'unshare(a0&0x40000000)'
# Block mode: lo cannot be brought up (SIOCSIFFLAGS).
fails "$block" 252 "bringing lo up in the job's network namespace: Operation not permitted" \
	"block: lo up" 'ioctl(a1=0x8914)'
# rtnetlink: in proxy mode the host's (after the sweep's) and then the
# job namespace's, which exists by then and must go away.
fails "$proxy" 252 "rtnetlink socket (host)" \
	"proxy: rtnetlink on the host" 'socket(a0=16):EAFNOSUPPORT'
# nftables: no nfnetlink at all, then the job namespace's socket only
# (the host's was opened: it must be closed, the namespace dropped).
fails "$proxy" 252 "enable CONFIG_NETFILTER_NETLINK and CONFIG_NF_TABLES" \
	"proxy: no nfnetlink" 'socket(a2=12):EPROTONOSUPPORT'
fails "$proxy" 252 "netfilter netlink socket (job namespace)" \
	"proxy: nfnetlink in the job namespace" 'socket(a2=12):EPROTONOSUPPORT:2'
# The veth pair exists when the host table's batch is refused, and the
# host table too when the job namespace's is: both are rolled back.
fails "$proxy" 252 "nftables batch for table axgate_" \
	"proxy: host nftables batch refused" "sendto::$SENDTO_HOST"
fails "$proxy" 252 "nftables batch for table axgate " \
	"proxy: job nftables batch refused" "sendto::$SENDTO_JOB"

# Mount and PID namespaces (sandbox/spawn.c, child.c).
fails "$block" 252 "creating the job's namespaces (PID, mount, IPC, network): Operation not permitted (the kernel refused it" \
	"mount namespace" 'clone(a0&0x20000)'
fails "$block" 252 "creating the job's namespaces (PID, mount, IPC, network): Invalid argument (the kernel lacks" \
	"PID namespace" 'clone(a0&0x20000000):EINVAL'
fails "$block" 252 "mount namespace: making / private: Operation not permitted (the kernel refused it" \
	"mounts" 'mount'
fails "$block" 252 "mounting a fresh /proc for the PID namespace" \
	"/proc of the PID namespace" "mount::$MOUNT_PROC"

# Landlock (C1): absent, disabled at boot, below the ABI floor, refused.
fails "$block" 251 "Landlock is not built into this kernel (CONFIG_SECURITY_LANDLOCK)" \
	"Landlock absent" 'landlock_create_ruleset(a2=1):ENOSYS'
fails "$block" 251 "add 'landlock' to the kernel's lsm= parameter" \
	"Landlock disabled" 'landlock_create_ruleset(a2=1):EOPNOTSUPP'
fails "$block" 251 "the kernel's Landlock ABI is 2, below the 3" \
	"Landlock ABI 2" 'landlock_create_ruleset(a2=1):=2'
fails "$block" 252 "Landlock: restrict_self" \
	"Landlock restrict_self" 'landlock_restrict_self'

# seccomp (C2).
fails "$block" 251 "seccomp: the kernel cannot run the job's filters (Invalid argument): seccomp filters with the kill-process action need CONFIG_SECCOMP_FILTER" \
	"seccomp absent" 'seccomp:EINVAL'
fails "$block" 252 "(the kernel must have CONFIG_SECCOMP_FILTER): Invalid argument" \
	"seccomp filter refused" 'seccomp(a0=1)(a1=0):EINVAL'

# The user switch, capabilities, no_new_privs.
fails "$block" 252 "dropping supplementary groups: Operation not permitted" \
	"setgroups" 'setgroups'
fails "$block" 252 "switching to uid 65534: Operation not permitted" \
	"setuid" 'setresuid'
fails "$block" 252 "clearing capabilities: Operation not permitted" \
	"capset" 'capset'
fails "$block" 252 "setting no_new_privs" \
	"no_new_privs" 'prctl(a0=38)'

# The init confines itself once the job has started (PR_SET_DUMPABLE is
# the init's alone): if that fails, its end takes the job down at once.
rm -f "$ws/marker"
rm -f "$tmp/init.jsonl"
out=$("$FAILSYS" 'prctl(a0=4)' -- "$AXGATE" run --policy "$block" \
    --workspace "$ws" --audit "$tmp/init.jsonl" -- \
    /bin/sh -c "sleep 0.5; touch $ws/marker" 2>&1)
rc=$?
is "$rc" 252 "init confinement fails: the launch ends with exit 252"
like "$out" "the sandbox's init stopped the job: making the init not dumpable: Operation not permitted" \
    "init confinement fails: the message says what"
sleep 0.7
ok $([ ! -e "$ws/marker" ]; echo $?) "init confinement fails: the job went with it"
like "$(sed -n 2p "$tmp/init.jsonl")" '"status_detail":"making the init not dumpable: Operation not permitted"' \
    "init confinement fails: the exit event says why"
ocsf_valid "$tmp/init.jsonl" "init confinement fails: the events pass ocsf-validate"

# rlimits and cgroups (C5).  RLIMIT_NPROC, set when the job cannot have a
# pids group of its own (the first mkdir is the group's)
fails "$tmp/limits.yaml" 252 "setting rlimit 6" \
	"rlimit" 'mkdir:EACCES:1' 'prlimit64(a1=6)'
# A memory or CPU-rate limit with no group to hold it: refused, and a group
# made for the other limit is removed.
fails "$tmp/cgroup.yaml" 251 "process.max_memory_mb, which needs the 'memory' cgroup controller: creating " \
	"memory cgroup" 'mkdir:EACCES:1'
fails "$tmp/cgroup2.yaml" 251 "process.cpu_rate_percent, which needs the 'cpu' cgroup controller: creating " \
	"cpu cgroup, after the memory one" 'mkdir:EACCES:2'

# The proxy child (server/child.c): it confines itself before it reads a
# byte; a refused step stops the launch with the network rolled back.
fails "$proxy" 252 "proxy child: confine" \
	"proxy child: user switch" 'setresuid'
fails "$proxy" 252 "proxy child: confine: seccomp" \
	"proxy child: seccomp" 'seccomp(a0=1)(a1=0):EINVAL'

done_testing
