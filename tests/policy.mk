## Tests of policy/.
check_PROGRAMS += \
	tests/unit/t-policy-jidx \
	tests/unit/t-policy-value \
	tests/unit/t-policy-eval \
	tests/unit/t-policy-bi-extra \
	tests/unit/t-policy-fastpath \
	tests/unit/t-policy-lang \
	tests/rego-conformance
TESTS += \
	tests/unit/t-policy-jidx \
	tests/unit/t-policy-value \
	tests/unit/t-policy-eval \
	tests/unit/t-policy-bi-extra \
	tests/unit/t-policy-fastpath \
	tests/unit/t-policy-lang \
	tests/conformance/rego.sh \
	tests/conformance/rego-fmt.sh \
	tests/conformance/rego-compile-errors.sh \
	tests/integration/policy-cli.sh \
	tests/integration/policy-test.sh \
	tests/integration/policy-fmt.sh \
	tests/integration/policy-offline.sh
tests_rego_conformance_SOURCES = tests/conformance/rego-conformance.c
EXTRA_DIST += \
	tests/conformance/rego.sh \
	tests/conformance/rego-fmt.sh \
	tests/integration/policy-fmt.sh \
	tests/integration/policy-cli.sh \
	tests/integration/policy-test.sh \
	tests/integration/policy-offline.sh \
	tests/conformance/rego-todo.txt \
	tests/conformance/rego-compile-errors.sh \
	tests/conformance/rego-compile-errors-todo.txt

## The egress benchmark (make bench).
EXTRA_PROGRAMS += tests/bench/bench-policy
bench_programs += tests/bench/bench-policy
tests_bench_bench_policy_SOURCES = tests/bench/bench-policy.c
CLEANFILES += tests/bench/bench-policy

## The parser/compiler fuzz target (configure --enable-fuzzing CC=clang).
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz-policy
tests_fuzz_fuzz_policy_SOURCES = tests/fuzz/fuzz-policy.c
tests_fuzz_fuzz_policy_LDFLAGS = $(FUZZ_CFLAGS)
endif
EXTRA_DIST += tests/fuzz/fuzz-policy.c tests/fuzz/corpus/policy/basic.rego \
	tests/fuzz/corpus/policy/nested-call-args.rego \
	tests/fuzz/corpus/policy/graphql.rego \
	tests/fuzz/corpus/policy/numbers.rego
