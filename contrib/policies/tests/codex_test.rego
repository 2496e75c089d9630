# What contrib/policies/codex.yaml allows and denies:
#   axgate policy test -p contrib/policies/codex.yaml contrib/policies/tests/codex_test.rego
package axgate.test.codex

test_allow_connect_api_openai_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "api.openai.com", "port": 443}
}

test_allow_connect_pypi_org_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "pypi.org", "port": 443}
}

test_deny_connect_api_anthropic_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.anthropic.com", "port": 443}
}

test_deny_connect_api_openai_com_80 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.openai.com", "port": 80}
}
