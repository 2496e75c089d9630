## Tests of proxy/.
check_PROGRAMS += \
	tests/unit/t-proxy-http1
TESTS += \
	tests/unit/t-proxy-http1
