## Tests of sandbox/: the probe run inside sandboxes, unit tests of the
## plan builders, and the escape suite (root, real kernel features).
check_PROGRAMS += \
	tests/escape/probe \
	tests/unit/t-sandbox-spec \
	tests/unit/t-sandbox-run \
	tests/unit/t-sandbox-cgroup
TESTS += \
	tests/unit/t-sandbox-spec \
	tests/unit/t-sandbox-run \
	tests/unit/t-sandbox-cgroup

## The probe runs inside the sandbox: no sanitizers (LeakSanitizer needs
## ptrace, which the sandbox denies) and no library.
tests_escape_probe_SOURCES = tests/escape/probe.c
tests_escape_probe_CFLAGS = -std=gnu11 $(WARN_CFLAGS)
tests_escape_probe_LDFLAGS =
tests_escape_probe_LDADD =

## make bench: axgate run against unshare -n and bwrap.
bench_scripts += tests/bench/bench-run.sh
EXTRA_DIST += tests/bench/bench-run.sh

## make bench: sbx_run of /bin/true against fork+exec.
EXTRA_PROGRAMS += tests/bench/bench-sandbox
bench_programs += tests/bench/bench-sandbox
tests_bench_bench_sandbox_SOURCES = tests/bench/bench-sandbox.c
