#!/bin/sh
# axgate run: grants under hidden trees (/tmp, /home, $HOME) are bound
# back into the job's mount namespace with the access they were granted,
# also when one is nested in another: a read-write grant inside a
# read-only one stays writable, a read-only one inside a read-write one
# stays read-only.
. "$top_srcdir/tests/lib.sh"

need_root "axgate run needs root (namespaces, Landlock, seccomp)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/ws" "$tmp/ro/rw/ro2" "$tmp/rw/ro"
chmod -R 777 "$tmp/ws" "$tmp/ro" "$tmp/rw"
cat >"$tmp/policy.yaml" <<EOP
version: 1
name: nested
network: {mode: block}
filesystem:
  read_only: ["$tmp/ro", "$tmp/ro/rw/ro2", "$tmp/rw/ro"]
  read_write: ["$tmp/ro/rw", "$tmp/rw"]
EOP

# try PATH: "ok" or the shell's complaint
try() {
	"$AXGATE" run --policy "$tmp/policy.yaml" --workspace "$tmp/ws" -- \
	    /bin/sh -c "echo x >'$1' && echo ok" 2>&1
}

out=$(try "$tmp/ro/rw/f")
is "$out" ok "a read-write grant inside a read-only one is writable"
out=$(try "$tmp/ro/f")
like "$out" "$tmp/ro/f" "the read-only grant around it is not"
ok $([ ! -e "$tmp/ro/f" ]; echo $?) "and nothing was written there"
out=$(try "$tmp/ro/rw/ro2/f")
like "$out" "Read-only file system" "a read-only grant inside that stays read-only"
out=$(try "$tmp/rw/f")
is "$out" ok "a read-write grant is writable"
out=$(try "$tmp/rw/ro/f")
like "$out" "Read-only file system" "a read-only grant inside it is not"
is "$(cat "$tmp/ro/rw/f" 2>/dev/null)" x "the write went to the granted directory"
done_testing
