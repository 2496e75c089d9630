## Tests of the axgate command line and of the build itself.
TESTS += \
	tests/integration/cli-basics.sh \
	tests/integration/configure-deps.sh
EXTRA_DIST += \
	tests/integration/cli-basics.sh \
	tests/integration/configure-deps.sh
