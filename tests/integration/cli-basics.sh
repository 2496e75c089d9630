#!/bin/sh
# The axgate command: version, help, dispatch and usage errors.
. "$top_srcdir/tests/lib.sh"

out=$("$AXGATE" --version); rc=$?
is "$rc" 0 "--version exits 0"
like "$out" "axgate 0." "--version prints the version"

out=$("$AXGATE" version)
like "$out" "axgate 0." "version subcommand"

out=$("$AXGATE" help); rc=$?
is "$rc" 0 "help exits 0"
for c in run serve policy scan; do
	like "$out" "  $c " "help lists $c"
done

out=$("$AXGATE" help policy)
like "$out" "usage: axgate policy check" "help COMMAND prints its synopsis"

"$AXGATE" frobnicate >/dev/null 2>/tmp/axg-cli.$$; rc=$?
is "$rc" 2 "unknown command exits 2"
like "$(cat /tmp/axg-cli.$$)" "unknown command 'frobnicate'" "and names it"

"$AXGATE" --bogus >/dev/null 2>/tmp/axg-cli.$$; rc=$?
is "$rc" 2 "unknown option exits 2"
like "$(cat /tmp/axg-cli.$$)" "usage: axgate" "and prints usage"

"$AXGATE" >/dev/null 2>&1; rc=$?
is "$rc" 2 "no command exits 2"

"$AXGATE" help nosuch >/dev/null 2>&1; rc=$?
is "$rc" 2 "help for an unknown command exits 2"

rm -f /tmp/axg-cli.$$
done_testing
