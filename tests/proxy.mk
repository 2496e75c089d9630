## Tests of proxy/.
proxy_unit_tests = \
	tests/unit/t-proxy-http1 \
	tests/unit/t-proxy-host
check_PROGRAMS += $(proxy_unit_tests)
TESTS += $(proxy_unit_tests)
