# The built-in egress rules of axgate.
#
# A YAML policy file becomes data.axgate.policy (see axgate-policy(5)); these
# rules judge requests against it.  The proxy asks the entry points in
# package axgate (connect, address, http, inference); each answers an
# object {"allow": bool, "rule": string, "reason": string}.
#
# User modules combine with these rules through two documents:
#   data.axgate.deny.<entry>      a set of reasons; any reason denies (wins)
#   data.axgate.override.<entry>  a decision object that replaces ours
package axgate.builtin

policy := data.axgate.policy

mode := object.get(data.axgate.policy, ["network", "mode"], "proxy")

# What connect and http answer when the mode, not the endpoints, decides.
mode_decision := {
	"allow": {"allow": true, "rule": "mode:allow", "reason": "network mode is allow: traffic is not gated"},
	"block": {"allow": false, "rule": "mode:block", "reason": "network mode is block: no network access"},
}

# ---- helpers ----

port_ok(ranges, port) if {
	some r in ranges
	r[0] <= port
	port <= r[1]
}

# Index entries that name the host exactly or by a wildcard suffix.  (The
# index is read through data.axgate.policy, not the policy rule above:
# these rules run on every decision, and a base document is one step.)
host_entries contains e if {
	some e in data.axgate.policy.index.exact[input.host]
}

# input.host_suffixes: the host's parent domains, given by the proxy
# ("a.b.example.com": "b.example.com", "example.com", "com").
host_entries contains e if {
	some suffix in suffixes
	some e in data.axgate.policy.index.suffix[suffix]
}

suffixes := input.host_suffixes if {
	input.host_suffixes
} else := [concat(".", array.slice(parts, i, count(parts))) |
	parts := split(input.host, ".")
	some i in numbers.range(1, count(parts) - 1)
] if {
	not host_is_ip
}

# The CIDR endpoints are scanned straight from the base document, so that
# the engine answers the scan with its CIDR index instead of testing
# every endpoint.
host_entries contains e if {
	host_is_ip
	some e in data.axgate.policy.index.cidr
	net.cidr_contains(e.cidr, input.host)
}

# input.host_type: "name", "ipv4" or "ipv6", given by the proxy.
host_is_ip := input.host_type != "name" if {
	input.host_type
} else := is_ip(input.host)

is_ip(h) := input.host_type != "name" if {
	input.host_type
} else := true if {
	not input.host_type
	regex.match(`^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$`, h)
} else := true if {
	not input.host_type
	contains(h, ":")
}

# A tunnel cannot be inspected, so an endpoint with HTTP rules never
# allows CONNECT.  (Written out for each kind of index entry, not over
# host_entries: this runs for every CONNECT.)
connect_ok contains e.policy if {
	some e in data.axgate.policy.index.exact[input.host]
	some r in e.ports
	r[0] <= input.port
	input.port <= r[1]
	not e.rules
}

connect_ok contains e.policy if {
	some suffix in suffixes
	some e in data.axgate.policy.index.suffix[suffix]
	some r in e.ports
	r[0] <= input.port
	input.port <= r[1]
	not e.rules
}

connect_ok contains e.policy if {
	host_is_ip
	some e in data.axgate.policy.index.cidr
	net.cidr_contains(e.cidr, input.host)
	some r in e.ports
	r[0] <= input.port
	input.port <= r[1]
	not e.rules
}

host_known contains e.policy if {
	some e in data.axgate.policy.index.exact[input.host]
}

host_known contains e.policy if {
	some suffix in suffixes
	some e in data.axgate.policy.index.suffix[suffix]
}

host_known contains e.policy if {
	host_is_ip
	some e in data.axgate.policy.index.cidr
	net.cidr_contains(e.cidr, input.host)
}

# ---- data.axgate.connect ----

connect := mode_decision[mode] if {
	mode != "proxy"
} else := {"allow": true, "rule": name, "reason": sprintf("%s:%d is allowed by policy %s", [input.host, input.port, name])} if {
	name := min(connect_ok)
} else := {"allow": false, "rule": name, "reason": sprintf("port %d of %s is not allowed (policy %s)", [input.port, input.host, name])} if {
	name := min(host_known)
} else := {"allow": false, "rule": "", "reason": sprintf("no policy allows %s", [input.host])}

# ---- data.axgate.http ----

rule_ok(rules) if {
	some r in rules
	r.method in {"*", upper(input.method)}
	glob.match(r.path, ["/"], input.path)
}

http_ok contains e.policy if {
	some e in host_entries
	port_ok(e.ports, input.port)
	not e.rules
}

http_ok contains e.policy if {
	some e in host_entries
	port_ok(e.ports, input.port)
	rule_ok(e.rules)
}

http := mode_decision[mode] if {
	mode != "proxy"
} else := {"allow": true, "rule": name, "reason": sprintf("%s %s on %s is allowed by policy %s", [input.method, input.path, input.host, name])} if {
	name := min(http_ok)
} else := {"allow": false, "rule": name, "reason": sprintf("%s %s on %s:%d is not allowed (policy %s)", [input.method, input.path, input.host, input.port, name])} if {
	name := min(host_known)
} else := {"allow": false, "rule": "", "reason": sprintf("no policy allows %s", [input.host])}

# ---- data.axgate.address ----
#
# input: {host, port, addr, addr_class}: may the proxy dial addr, resolved
# for host?  addr_class is the proxy's classification of the address
# ("public", "loopback", "private", "link-local", "metadata", ...; it
# sees through IPv4-mapped, NAT64, 6to4 and Teredo forms).  Anything but
# a public address is refused unless a CIDR endpoint names it.  Without
# addr_class (a hand-written input) the ranges below are checked.

# The special ranges are written out in the scan itself: a constant
# collection, which the engine answers with its CIDR index.
special_range contains c if {
	not input.addr_class
	some c in [
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
		"169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
		"192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "100::/64",
		"2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
	]
	net.cidr_contains(c, input.addr)
}

special_why := sprintf("a %s address", [input.addr_class]) if {
	is_string(input.addr_class)
	input.addr_class != "public"
} else := sprintf("in the special range %s", [r]) if {
	r := min(special_range)
}

named_by_cidr contains e.policy if {
	some e in data.axgate.policy.index.cidr
	net.cidr_contains(e.cidr, input.addr)
	port_ok(e.ports, input.port)
}

address := {"allow": true, "rule": "mode:allow", "reason": "network mode is allow: traffic is not gated"} if {
	mode == "allow"
} else := {"allow": true, "rule": "address", "reason": sprintf("%s is a public address", [input.addr])} if {
	not special_why
} else := {"allow": true, "rule": name, "reason": sprintf("%s is in a range that policy %s names", [input.addr, name])} if {
	name := min(named_by_cidr)
} else := {"allow": false, "rule": "address", "reason": sprintf("%s resolves to %s, %s", [input.host, input.addr, special_why])}

# ---- data.axgate.inference ----
#
# input: {route, model, path, job, tokens}

routes := object.get(policy, ["inference", "routes"], [])

route_named contains r if {
	some r in routes
	r.name == input.route
}

inference := {"allow": false, "rule": "mode:block", "reason": "network mode is block: no network access"} if {
	mode == "block"
} else := {"allow": false, "rule": "", "reason": sprintf("no inference route named %s", [input.route])} if {
	count(route_named) == 0
} else := {"allow": false, "rule": input.route, "reason": sprintf("route %s serves model %s, not %s", [input.route, r.model, input.model])} if {
	# the default route also takes models no route names: they go to its
	# provider with the client's model
	input.route != object.get(policy, ["inference", "default_provider"], "")
	some r in route_named
	r.model
	input.model != ""
	r.model != input.model
} else := {"allow": true, "rule": input.route, "reason": sprintf("route %s", [input.route])}
