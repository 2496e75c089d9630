# What contrib/policies/minimal.yaml allows and denies:
#   axgate policy test -p contrib/policies/minimal.yaml contrib/policies/tests/minimal_test.rego
package axgate.test.minimal

test_deny_connect_api_github_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.github.com", "port": 443}
}

test_deny_connect_pypi_org_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "pypi.org", "port": 443}
}
