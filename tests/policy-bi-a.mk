## Tests of the builtin families in policy/builtins-{arrays,sets,objects,
## aggregates,strings,regex,glob,types,numbers,units,semver}.c.
bi_a_tests = \
	tests/unit/t-policy-bi-arrays \
	tests/unit/t-policy-bi-types \
	tests/unit/t-policy-bi-objects \
	tests/unit/t-policy-bi-aggregates \
	tests/unit/t-policy-bi-strings \
	tests/unit/t-policy-bi-sprintf \
	tests/unit/t-policy-bi-regex \
	tests/unit/t-policy-bi-glob \
	tests/unit/t-policy-bi-units
check_PROGRAMS += $(bi_a_tests)
TESTS += $(bi_a_tests)
EXTRA_DIST += %reldir%/unit/policy-bi.h %reldir%/unit/policy-bi-sets.h

## Benchmark (make bench).
EXTRA_PROGRAMS += tests/bench/bench-policy-bi
bench_programs += tests/bench/bench-policy-bi
