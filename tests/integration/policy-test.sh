#!/bin/sh
# axgate policy test: runs the test_* rules, reports failures and counts.
. "$top_srcdir/tests/lib.sh"

t=$(mktemp -d "${TMPDIR:-/tmp}/axg-ptest.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT

plan 8

cat >"$t/gate.rego" <<'REGO'
package gate

allow if input.port == 443

allow if input.host in data.open
REGO
cat >"$t/gate_test.rego" <<'REGO'
package gate

test_443 if allow with input as {"port": 443, "host": "x"}

test_open_host if allow with input as {"port": 22, "host": "a.com"}

test_22_denied if not allow with input as {"port": 22, "host": "x"}
REGO
echo '{"open": ["a.com"]}' >"$t/data.json"

out=$("$AXGATE" policy test "$t"); rc=$?
is "$rc" 0 "all tests pass: exit 0"
is "$out" "3 passed, 0 failed" "only the counts without -v"

out=$("$AXGATE" policy test -v "$t")
like "$out" "data.gate.test_443: PASS" "-v lists passing tests"

cat >"$t/more_test.rego" <<'REGO'
package gate

test_80 if allow with input as {"port": 80, "host": "x"}
REGO
out=$("$AXGATE" policy test "$t"); rc=$?
is "$rc" 1 "a failing test: exit 1"
like "$out" "data.gate.test_80: FAIL" "the failing test is named"
like "$out" "more_test.rego:3" "with its location"
like "$out" "3 passed, 1 failed" "and counted"

echo 'package broken p if {' >"$t/broken.rego"
"$AXGATE" policy test "$t" >/dev/null 2>&1; rc=$?
is "$rc" 1 "a module that does not compile: exit 1"
done_testing
