# What contrib/policies/claude-code.yaml allows and denies:
#   axgate policy test -p contrib/policies/claude-code.yaml contrib/policies/tests/claude-code_test.rego
package axgate.test.claude_code

test_allow_connect_api_anthropic_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "api.anthropic.com", "port": 443}
}

test_allow_connect_github_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "github.com", "port": 443}
}

test_allow_connect_registry_npmjs_org_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "registry.npmjs.org", "port": 443}
}

test_deny_connect_api_openai_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.openai.com", "port": 443}
}

test_deny_connect_anthropic_com_evil_example_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "anthropic.com.evil.example", "port": 443}
}
