## Tests of the axgate command line.
TESTS += tests/integration/cli-basics.sh
EXTRA_DIST += tests/integration/cli-basics.sh
