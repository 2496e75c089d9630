## Tests of safety/ (the credential-leak scanner) and `axgate scan`.
check_PROGRAMS += \
	tests/unit/t-safety-corpus \
	tests/unit/t-safety-scan \
	tests/unit/t-safety-hook \
	tests/unit/t-safety-engine \
	tests/unit/t-safety-runs
TESTS += \
	tests/unit/t-safety-corpus \
	tests/unit/t-safety-scan \
	tests/unit/t-safety-hook \
	tests/unit/t-safety-engine \
	tests/unit/t-safety-runs \
	tests/integration/safety-scan.sh \
	tests/integration/safety-enforce.sh
EXTRA_DIST += \
	tests/integration/safety-scan.sh \
	tests/integration/safety-enforce.sh \
	tests/data/leaks/positives.txt \
	tests/data/leaks/negatives.txt \
	tests/data/leaks/acme-rules.yaml

## `make bench`: scanner throughput and latency.
EXTRA_PROGRAMS += tests/bench/bench-safety
bench_programs += tests/bench/bench-safety
CLEANFILES += tests/bench/bench-safety

## Fuzz targets (configure --enable-fuzzing CC=clang): the scanner and the
## YAML rule loader.  Seeds in tests/fuzz/corpus/scan{,-rules}/.
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz-scan tests/fuzz/fuzz-scan-rules
tests_fuzz_fuzz_scan_SOURCES = tests/fuzz/fuzz-scan.c
tests_fuzz_fuzz_scan_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_scan_rules_SOURCES = tests/fuzz/fuzz-scan-rules.c
tests_fuzz_fuzz_scan_rules_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
endif
EXTRA_DIST += \
	tests/fuzz/fuzz-scan.c \
	tests/fuzz/fuzz-scan-rules.c \
	tests/fuzz/corpus/scan/env-json.txt \
	tests/fuzz/corpus/scan/auth-url.txt \
	tests/fuzz/corpus/scan-rules/one-rule.yaml
