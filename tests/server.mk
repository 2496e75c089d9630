## Tests of server/ and axgate serve.
server_unit_tests = tests/unit/t-server-config
check_PROGRAMS += $(server_unit_tests)
TESTS += $(server_unit_tests) tests/integration/server-serve.sh \
	tests/integration/server-cli.sh
EXTRA_DIST += tests/integration/server-serve.sh tests/integration/server-cli.sh \
	tests/integration/server-rotate.sh
TESTS += tests/integration/server-rotate.sh
