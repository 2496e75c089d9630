## Tests of proxy/.
proxy_unit_tests = \
	tests/unit/t-proxy-http1 \
	tests/unit/t-proxy-host \
	tests/unit/t-proxy-hello \
	tests/unit/t-proxy-core \
	tests/unit/t-proxy-readmore
check_PROGRAMS += $(proxy_unit_tests)
TESTS += $(proxy_unit_tests)

## Fuzz targets (configure --enable-fuzzing CC=clang).
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz-http1 tests/fuzz/fuzz-hello
tests_fuzz_fuzz_http1_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_hello_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
endif
EXTRA_DIST += tests/fuzz/fuzz-http1.c tests/fuzz/fuzz-hello.c

## The load generator: `make bench` only.
EXTRA_PROGRAMS += tests/bench/bench-proxy
bench_programs += tests/bench/bench-proxy
CLEANFILES += tests/bench/bench-proxy
