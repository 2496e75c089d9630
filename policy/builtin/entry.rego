# The entry points the proxy queries.  A user's deny rules always win; a
# user's override replaces the built-in decision; otherwise the built-in
# rules decide.
package axgate

deny_decision(reason) := {"allow": false, "rule": "deny", "reason": reason}

connect := deny_decision(min(data.axgate.deny.connect)) if {
	count(data.axgate.deny.connect) > 0
} else := data.axgate.override.connect if {
	data.axgate.override.connect
} else := data.axgate.builtin.connect

http := deny_decision(min(data.axgate.deny.http)) if {
	count(data.axgate.deny.http) > 0
} else := data.axgate.override.http if {
	data.axgate.override.http
} else := data.axgate.builtin.http

address := deny_decision(min(data.axgate.deny.address)) if {
	count(data.axgate.deny.address) > 0
} else := data.axgate.override.address if {
	data.axgate.override.address
} else := data.axgate.builtin.address

inference := deny_decision(min(data.axgate.deny.inference)) if {
	count(data.axgate.deny.inference) > 0
} else := data.axgate.override.inference if {
	data.axgate.override.inference
} else := data.axgate.builtin.inference
