#!/bin/sh
# axgate policy fmt: canonical output, stable on its own output, comments
# kept, -l lists and fails, -w rewrites in place, errors located.
. "$top_srcdir/tests/lib.sh"

t=$(mktemp -d "${TMPDIR:-/tmp}/axg-pfmt.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT

# A module written loosely: v0-style spacing, an if without braces, refs in
# brackets, comments of every kind.
cat >"$t/messy.rego" <<'REGO'
# leading comment
package   gate.rules   # the package

import rego.v1
import data.lists as l


default allow:=false   # deny by default
allow if input.port==443
allow if {
    # why 8443
    input.port == 8443 ; input["host"] in l.open
    some x in input.tags   # trailing
    every y in input.list { y > 1 }
}
hosts contains h if { some h in data.h; not startswith(h, "x") }
f(x) := x * (2 + 3) if x > 0 else := 0
obj := {"a": [1, 2.5, null], "b c": {1, 2}, "e": set()}
msg := $"port {input.port} is \{closed\}"
m := [k | some k, v in {"a": 1}; v == 1]
p.q[r] := 1 if r := "s"
# the end
REGO

cat >"$t/want.rego" <<'REGO'
# leading comment
package gate.rules # the package

import rego.v1
import data.lists as l

default allow := false # deny by default

allow if {
	input.port == 443
}

allow if {
	# why 8443
	input.port == 8443
	input.host in l.open
	some x in input.tags # trailing
	every y in input.list {
		y > 1
	}
}

hosts contains h if {
	some h in data.h
	not startswith(h, "x")
}

f(x) := x * (2 + 3) if {
	x > 0
} else := 0

obj := {"a": [1, 2.5, null], "b c": {1, 2}, "e": set()}

msg := $"port {input.port} is \{closed\}"

m := [k | some k, v in {"a": 1}; v == 1]

p.q[r] := 1 if {
	r := "s"
}

# the end
REGO

plan 14

"$AXGATE" policy fmt "$t/messy.rego" >"$t/got.rego"; rc=$?
is "$rc" 0 "fmt prints a module: exit 0"
diff -u "$t/want.rego" "$t/got.rego" >"$t/diff"; rc=$?
ok $rc "canonical form: tabs, if, one rule per block, comments kept"
[ $rc -eq 0 ] || while IFS= read -r l; do diag "$l"; done <"$t/diff"

"$AXGATE" policy fmt "$t/got.rego" >"$t/again.rego"
cmp -s "$t/got.rego" "$t/again.rego"; ok $? "formatting the output changes nothing"

out=$("$AXGATE" policy fmt -l "$t/messy.rego" "$t/got.rego"); rc=$?
is "$rc" 1 "-l: exit 1 when a file would change"
is "$out" "$t/messy.rego" "-l lists only the file that would change"
"$AXGATE" policy fmt -l "$t/got.rego" >/dev/null; rc=$?
is "$rc" 0 "-l: exit 0 when nothing would change"

cp "$t/messy.rego" "$t/w.rego"
chmod 640 "$t/w.rego"
"$AXGATE" policy fmt -w "$t/w.rego"; rc=$?
is "$rc" 0 "-w: exit 0"
cmp -s "$t/w.rego" "$t/want.rego"; ok $? "-w rewrote the file in place"
is "$(stat -c %a "$t/w.rego")" 640 "-w keeps the file mode"
is "$(ls "$t" | grep -c fmt-)" 0 "-w leaves no temporary file"

# The formatted module means the same thing.
a=$("$AXGATE" policy eval -d "$t/messy.rego" -i /dev/stdin data.gate.rules \
	<<'J'
{"port": 8443, "host": "a", "tags": ["t"], "list": [2]}
J
)
b=$("$AXGATE" policy eval -d "$t/want.rego" -i /dev/stdin data.gate.rules \
	<<'J'
{"port": 8443, "host": "a", "tags": ["t"], "list": [2]}
J
)
is "$a" "$b" "the formatted module evaluates the same"

printf 'package p\n\nx := [1,\n' >"$t/bad.rego"
err=$("$AXGATE" policy fmt "$t/bad.rego" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "a parse error: exit 1"
like "$err" "bad.rego:" "the error names the file and place"

# Every policy shipped with the project, and every built-in module, formats
# to text that formats to itself.
fails=""
for f in "$top_srcdir"/contrib/policies/tests/*.rego \
	"$top_srcdir"/policy/builtin/*.rego; do
	"$AXGATE" policy fmt "$f" >"$t/one.rego" 2>"$t/one.err" || {
		fails="$fails $f(error)"; continue; }
	"$AXGATE" policy fmt "$t/one.rego" >"$t/two.rego" &&
		cmp -s "$t/one.rego" "$t/two.rego" || fails="$fails $f"
done
is "$fails" "" "fmt is stable on every shipped .rego"
