## axgate run, end to end.
TESTS += tests/integration/run-block.sh tests/integration/run-proxy.sh \
	tests/integration/run-escape.sh
EXTRA_DIST += tests/integration/run-block.sh tests/integration/run-proxy.sh \
	tests/integration/run-escape.sh
