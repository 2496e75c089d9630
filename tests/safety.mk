## Tests of safety/ (the credential-leak scanner) and `axgate scan`.
check_PROGRAMS += \
	tests/unit/t-safety-corpus \
	tests/unit/t-safety-scan
TESTS += \
	tests/unit/t-safety-corpus \
	tests/unit/t-safety-scan
EXTRA_DIST += \
	tests/data/leaks/positives.txt \
	tests/data/leaks/negatives.txt

## `make bench`: scanner throughput and latency.
EXTRA_PROGRAMS += tests/bench/bench-safety
bench_programs += tests/bench/bench-safety
CLEANFILES += tests/bench/bench-safety
