## axgate run, end to end.
TESTS += tests/integration/run-block.sh
EXTRA_DIST += tests/integration/run-block.sh
