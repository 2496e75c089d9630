# lib.sh: TAP helpers for shell tests.  Source it, call plan N (or
# done_testing at the end), then ok/is/like per check.
_t_n=0
_t_fail=0

plan() { echo "1..$1"; _t_planned=1; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { printf '# %s\n' "$*"; }

ok() {
	# ok COND_STATUS NAME: COND_STATUS is 0 for pass.
	_t_n=$((_t_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_t_n - $2"
	else
		echo "not ok $_t_n - $2"
		_t_fail=$((_t_fail + 1))
	fi
}

is() {
	# is GOT WANT NAME
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'"; diag "want: '$2'"; fi
}

like() {
	# like GOT SUBSTRING NAME
	case "$1" in
	*"$2"*) ok 0 "$3" ;;
	*) ok 1 "$3"; diag "got:  '$1'"; diag "want it to contain: '$2'" ;;
	esac
}

unlike() {
	# unlike GOT SUBSTRING NAME
	case "$1" in
	*"$2"*) ok 1 "$3"; diag "got:  '$1'"; diag "want it without: '$2'" ;;
	*) ok 0 "$3" ;;
	esac
}

matches() {
	# matches GOT ERE NAME: some line of GOT matches the extended regex
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'"; diag "want a line matching: '$2'"; fi
}

skip() { _t_n=$((_t_n + 1)); echo "ok $_t_n - $1 # SKIP $2"; }

# ocsf_valid FILE NAME: one check that every event of FILE (JSON lines)
# passes the shared ocsf-validate, its report shown on failure; a skip
# when the shared material is absent.
ocsf_valid() {
	_v="${AXG_SHARED_DIR:-}/ocsf/ocsf-validate"
	if [ -x "$_v" ]; then
		_vout=$("$_v" "$1" 2>&1)
		_vst=$?
		ok $_vst "$2"
		[ $_vst -eq 0 ] || printf '%s\n' "$_vout" | head -n 20 |
			sed 's/^/# /'
	else
		skip "$2" "ocsf-validate not found under AXG_SHARED_DIR"
	fi
}

# need_root WHY: skip the whole file, saying WHY, unless run as root.
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "$*"; }

# need_cmd CMD [WHY]: skip the whole file unless CMD is installed.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip_all "${2:-$1 is not installed}"
}

# scratch: $tmp, a new folder, and $pids, the background processes the
# test starts; at exit the processes are stopped and the folder (and the
# paths in $scratch_extra) removed.  AXG_KEEP_TMP=1 keeps them.
scratch() {
	tmp=$(mktemp -d) || exit 1
	pids=
	scratch_extra=
	trap _scratch_end EXIT
	[ -z "${AXG_KEEP_TMP:-}" ] || trap - EXIT
}

_scratch_end() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp" $scratch_extra
}

done_testing() {
	[ -n "${_t_planned:-}" ] || echo "1..$_t_n"
	[ "$_t_fail" -eq 0 ]
}
