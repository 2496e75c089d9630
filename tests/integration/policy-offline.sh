#!/bin/sh
# A policy that calls http.send or test.sleep does not load on the gate's
# path (a located error), while axgate policy eval still compiles it.
. "$top_srcdir/tests/lib.sh"

t=$(mktemp -d "${TMPDIR:-/tmp}/axg-offline.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT

cat >"$t/net.rego" <<'REGO'
package axgate.extra

x := r if {
	r := http.send({"method": "get", "url": "http://example.com/"})
}
REGO
cat >"$t/p.yaml" <<YAML
version: 1
name: offline
network:
  mode: proxy
rego: [$t/net.rego]
YAML

err=$("$AXGATE" policy check "$t/p.yaml" 2>&1); rc=$?
is "$rc" 1 "a policy calling http.send fails to load"
like "$err" "net.rego:4:7: rego_type_error: http.send is not available in axgate policies" \
	"the error names the file, line and column of the call"

err=$("$AXGATE" policy eval -p "$t/p.yaml" 'data.axgate.extra.x' 2>&1); rc=$?
[ "$rc" -ne 0 ]; ok $? "policy eval -p of that policy fails too"
like "$err" "http.send is not available" "with the same error"

out=$("$AXGATE" policy eval -d "$t/net.rego" 'data.axgate.extra.x' 2>&1); rc=$?
is "$rc" 0 "policy eval -d still compiles a module calling http.send"
is "$out" '{}' "and the call, never sent, is undefined"

cat >"$t/sleep.rego" <<'REGO'
package axgate.extra

x if {
	test.sleep("1ms")
}
REGO
sed "s|$t/net.rego|$t/sleep.rego|" "$t/p.yaml" >"$t/s.yaml"
err=$("$AXGATE" policy check "$t/s.yaml" 2>&1); rc=$?
is "$rc" 1 "a policy calling test.sleep fails to load"
like "$err" "sleep.rego:4:2: rego_type_error: test.sleep is not available in axgate policies" \
	"the error names the file, line and column of the call"
out=$("$AXGATE" policy eval -d "$t/sleep.rego" 'data.axgate.extra.x' 2>&1)
like "$out" '"value":true' "policy eval -d runs test.sleep"

cat >"$t/nonet.rego" <<'REGO'
package axgate.extra

x := r if {
	r := object.union({"method": "get"}, {"url": "http://example.com/"})
}
REGO
sed "s|$t/net.rego|$t/nonet.rego|" "$t/p.yaml" >"$t/q.yaml"
"$AXGATE" policy check "$t/q.yaml" >/dev/null 2>&1; rc=$?
is "$rc" 0 "the same policy without http.send loads"

done_testing
