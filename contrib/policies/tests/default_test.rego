# What contrib/policies/default.yaml allows and denies:
#   axgate policy test -p contrib/policies/default.yaml contrib/policies/tests/default_test.rego
package axgate.test.default

test_deny_connect_api_github_com_443 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "api.github.com", "port": 443}
}

test_deny_connect_example_com_80 if {
	data.axgate.connect.allow == false with input as {"kind": "connect", "host": "example.com", "port": 80}
}

test_deny_http_http_example_com if {
	data.axgate.http.allow == false with input as {"kind": "http", "host": "example.com", "port": 80, "method": "GET", "path": "/", "headers": {}}
}
