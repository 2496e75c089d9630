#!/bin/sh
# configure stops with a message naming the Debian package of a missing
# dependency.  Each case hides one library's pkg-config file and runs
# configure in a scratch folder.
. "$top_srcdir/tests/lib.sh"

command -v pkg-config >/dev/null 2>&1 || skip_all "pkg-config not installed"
[ -x "$top_srcdir/configure" ] || skip_all "no configure script in the source tree"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

pcpath=$(pkg-config --variable pc_path pkg-config)

# A private copy of what configure reads before its dependency checks, so it
# runs even when the source tree itself is configured in place.
mkdir -p "$tmp/src/cli" "$tmp/src/policy"
cp "$top_srcdir/configure" "$tmp/src/" &&
cp -R "$top_srcdir/build-aux" "$tmp/src/" &&
cp "$top_srcdir/cli/axgate.c" "$tmp/src/cli/" || exit 1

# case: the .pc file to hide, and the package the message must name
set -- libnftnl.pc libnftnl-dev libseccomp.pc libseccomp-dev \
    jansson.pc libjansson-dev libmnl.pc libmnl-dev
plan $(($# / 2 * 2))
while [ $# -gt 0 ]; do
	hide=$1 pkg=$2
	shift 2
	pcdir="$tmp/pc-$hide"
	mkdir -p "$pcdir" "$tmp/build-$hide"
	old_ifs=$IFS; IFS=:
	for d in $pcpath; do
		IFS=$old_ifs
		for f in "$d"/*.pc; do
			[ -e "$f" ] || continue
			b=$(basename "$f")
			[ "$b" = "$hide" ] && continue
			[ -e "$pcdir/$b" ] || ln -s "$f" "$pcdir/$b"
		done
	done
	IFS=$old_ifs
	out=$(cd "$tmp/build-$hide" &&
	    PKG_CONFIG_LIBDIR="$pcdir" PKG_CONFIG_PATH= \
	    "$tmp/src/configure" 2>&1)
	rc=$?
	ok $((rc == 0)) "configure fails without ${hide%.pc}"
	like "$out" "install the Debian package $pkg" \
	    "the message names $pkg"
done
done_testing
