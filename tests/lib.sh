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

skip() { _t_n=$((_t_n + 1)); echo "ok $_t_n - $1 # SKIP $2"; }

done_testing() {
	[ -n "${_t_planned:-}" ] || echo "1..$_t_n"
	[ "$_t_fail" -eq 0 ]
}
