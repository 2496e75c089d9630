## Tests of YAML policy files.
check_PROGRAMS += tests/unit/t-policy-polfile
TESTS += tests/unit/t-policy-polfile

## make bench: load time of large policy files.
EXTRA_PROGRAMS += tests/bench/bench-polfile
bench_programs += tests/bench/bench-polfile

## The compiled policy: built-in rules, user modules, decisions.
check_PROGRAMS += tests/unit/t-policy-gate
TESTS += tests/unit/t-policy-gate

## The templates: each checks, and allows and denies what its cases say.
TESTS += tests/integration/policy-templates.sh
EXTRA_DIST += tests/integration/policy-templates.sh

## The YAML loader's fuzz target (configure --enable-fuzzing CC=clang):
## load, compile with the built-in rules, decide.
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz-polfile
tests_fuzz_fuzz_polfile_SOURCES = tests/fuzz/fuzz-polfile.c
tests_fuzz_fuzz_polfile_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_polfile_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
endif
EXTRA_DIST += tests/fuzz/fuzz-polfile.c \
	tests/fuzz/corpus/polfile/coding-agent.yaml \
	tests/fuzz/corpus/polfile/forms.yaml
