# What contrib/policies/opencode.yaml allows and denies:
#   axgate policy test -p contrib/policies/opencode.yaml contrib/policies/tests/opencode_test.rego
package axgate.test.opencode

test_allow_connect_opencode_ai_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "opencode.ai", "port": 443}
}

test_allow_connect_api_anthropic_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "api.anthropic.com", "port": 443}
}

test_allow_connect_api_openai_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "api.openai.com", "port": 443}
}

test_deny_connect_generativelanguage_googleapis_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "generativelanguage.googleapis.com", "port": 443}
}
