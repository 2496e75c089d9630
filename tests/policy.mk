## Tests of policy/.
check_PROGRAMS += \
	tests/unit/t-policy-value \
	tests/rego-conformance
TESTS += \
	tests/unit/t-policy-value \
	tests/conformance/rego.sh \
	tests/integration/policy-cli.sh
tests_rego_conformance_SOURCES = tests/conformance/rego-conformance.c
EXTRA_DIST += \
	tests/conformance/rego.sh \
	tests/integration/policy-cli.sh \
	tests/conformance/rego-todo.txt
