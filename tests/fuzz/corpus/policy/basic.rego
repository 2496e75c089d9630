package x

default allow := false

allow if {
	some r in data.rules
	r.host == input.host
	not deny[r.name]
}

deny contains n if n := input.names[_]

f(x) := y if { y := [a | a := x[_]; a > 1] } else := 0

p.q[k] := v if { some k, v in {"a": 1} }
s := $"v={count([1])}"
t := {1, 2} | {3}
u if every x in [1] { x == 1 }
w := 1 with input as {}
