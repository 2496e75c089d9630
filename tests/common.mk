## Unit tests of common/.
check_PROGRAMS += \
	tests/unit/t-common-buf \
	tests/unit/t-common-str \
	tests/unit/t-common-log
TESTS += \
	tests/unit/t-common-buf \
	tests/unit/t-common-str \
	tests/unit/t-common-log
