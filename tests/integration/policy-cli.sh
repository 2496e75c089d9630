#!/bin/sh
# axgate policy check / eval.
. "$top_srcdir/tests/lib.sh"

t=$(mktemp -d "${TMPDIR:-/tmp}/axg-policy.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT

cat >"$t/egress.rego" <<'REGO'
package egress

default allow := false

allow if {
	input.host in data.hosts
	input.port == 443
}

names contains h if some h in data.hosts
REGO
echo '{"hosts": ["b.com", "a.com"]}' >"$t/data.json"
echo '{"host": "a.com", "port": 443}' >"$t/in.json"
echo '{"host": "a.com", "port": 22}' >"$t/in22.json"

out=$("$AXGATE" policy eval -d "$t" -i "$t/in.json" data.egress.allow); rc=$?
is "$rc" 0 "eval exits 0"
is "$out" '{"result":[{"expressions":[{"text":"data.egress.allow","value":true}]}]}' \
	"eval prints OPA's result shape"

out=$("$AXGATE" policy eval -d "$t" -i "$t/in22.json" data.egress.allow)
like "$out" '"value":false' "the default applies when no rule matches"

out=$("$AXGATE" policy eval -d "$t/egress.rego" -d "$t/data.json" 'x := data.egress.names')
like "$out" '"bindings":{"x":["a.com","b.com"]}' "bindings of query variables, sets sorted"

out=$("$AXGATE" policy eval -d "$t" 'data.egress.nothing')
is "$out" '{}' "an undefined query prints {}"

"$AXGATE" policy check "$t/egress.rego"; rc=$?
is "$rc" 0 "check of a good module exits 0"

printf 'package x\np if { y == 1; z }\n' >"$t/unsafe.rego"
err=$("$AXGATE" policy check "$t/unsafe.rego" 2>&1); rc=$?
is "$rc" 1 "check of a bad module exits 1"
like "$err" "unsafe.rego:2:8: rego_unsafe_var_error: var y is unsafe" "first error located"
like "$err" "unsafe.rego:2:16: rego_unsafe_var_error: var z is unsafe" "and the second one too"

printf 'package x\np if {\n  1 +\n}\n' >"$t/parse.rego"
err=$("$AXGATE" policy check "$t/parse.rego" 2>&1); rc=$?
is "$rc" 1 "parse error exits 1"
like "$err" "parse.rego:4:1: rego_parse_error" "parse error located"

printf '{"a": [1,}' >"$t/bad.json"
err=$("$AXGATE" policy eval -d "$t/bad.json" 'true' 2>&1); rc=$?
is "$rc" 1 "bad data exits 1"
like "$err" "bad.json: line 1, column 10" "bad data located"

i=0; deep=""; while [ $i -lt 400 ]; do deep="$deep["; i=$((i+1)); done
printf 'package d\np := %s\n' "$deep" >"$t/deep.rego"
err=$("$AXGATE" policy check "$t/deep.rego" 2>&1); rc=$?
is "$rc" 1 "deep nesting is refused"
like "$err" "nesting too deep" "with a clear message"

"$AXGATE" policy eval >/dev/null 2>&1; rc=$?
is "$rc" 2 "eval without a query is a usage error"

done_testing
