## axgate run, end to end.
TESTS += tests/integration/run-block.sh tests/integration/run-proxy.sh \
	tests/integration/run-escape.sh tests/integration/run-failclosed.sh \
	tests/integration/run-mounts.sh tests/integration/run-init.sh \
	tests/integration/run-limits.sh
EXTRA_DIST += tests/integration/run-block.sh tests/integration/run-proxy.sh \
	tests/integration/run-escape.sh tests/integration/run-failclosed.sh \
	tests/integration/run-mounts.sh tests/integration/run-init.sh \
	tests/integration/run-limits.sh

## failsys: makes one system call fail, then execs the launcher (the
## fail-closed suite).  No sanitizers: it execs the launcher in place.
check_PROGRAMS += tests/integration/failsys
tests_integration_failsys_SOURCES = tests/integration/failsys.c
tests_integration_failsys_CFLAGS = -std=gnu11 $(WARN_CFLAGS) \
	$(LIBSECCOMP_CFLAGS)
tests_integration_failsys_LDFLAGS =
tests_integration_failsys_LDADD = $(LIBSECCOMP_LIBS)

## The built-in SHA-256 of common/ (the policy digest on the launch path).
check_PROGRAMS += tests/unit/t-common-sha256
TESTS += tests/unit/t-common-sha256
