## Tests of policy/.
check_PROGRAMS += \
	tests/unit/t-policy-value
TESTS += \
	tests/unit/t-policy-value
