# What contrib/policies/coding-agent.yaml allows and denies:
#   axgate policy test -p contrib/policies/coding-agent.yaml contrib/policies/tests/coding-agent_test.rego
package axgate.test.coding_agent

test_allow_connect_api_github_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "api.github.com", "port": 443}
}

test_allow_connect_raw_githubusercontent_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "raw.githubusercontent.com", "port": 443}
}

test_allow_connect_registry_npmjs_org_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "registry.npmjs.org", "port": 443}
}

test_allow_connect_files_pythonhosted_org_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "files.pythonhosted.org", "port": 443}
}

test_deny_connect_githubusercontent_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "githubusercontent.com", "port": 443}
}

test_deny_connect_api_github_com_22 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.github.com", "port": 22}
}

test_deny_connect_pastebin_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "pastebin.com", "port": 443}
}

test_deny_http_http_pypi_org_simple if {
	data.axgate.http.allow == false with input as {"kind": "http", "host": "pypi.org", "port": 80, "method": "GET", "path": "/simple/", "headers": {}}
}

test_deny_address_api_github_com_443_169_254_169_254 if {
	data.axgate.address.allow == false with input as {"kind": "address", "host": "api.github.com", "port": 443, "addr": "169.254.169.254"}
}

test_deny_address_api_github_com_443_10_0_0_1 if {
	data.axgate.address.allow == false with input as {"kind": "address", "host": "api.github.com", "port": 443, "addr": "10.0.0.1"}
}

test_allow_address_api_github_com_443_140_82_112_6 if {
	data.axgate.address.allow == true with input as {"kind": "address", "host": "api.github.com", "port": 443, "addr": "140.82.112.6"}
}
