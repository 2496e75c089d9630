# What contrib/policies/gemini-cli.yaml allows and denies:
#   axgate policy test -p contrib/policies/gemini-cli.yaml contrib/policies/tests/gemini-cli_test.rego
package axgate.test.gemini_cli

test_allow_connect_generativelanguage_googleapis_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "generativelanguage.googleapis.com", "port": 443}
}

test_allow_connect_oauth2_googleapis_com_443 if {
	data.axgate.connect.allow == true with input as {"kind": "connect", "host": "oauth2.googleapis.com", "port": 443}
}

test_deny_connect_storage_googleapis_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "storage.googleapis.com", "port": 443}
}

test_deny_connect_api_openai_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.openai.com", "port": 443}
}
