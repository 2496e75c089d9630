## Unit tests of common/.
check_PROGRAMS += \
	tests/unit/t-common-buf \
	tests/unit/t-common-str \
	tests/unit/t-common-log \
	tests/unit/t-common-ipc
TESTS += \
	tests/unit/t-common-buf \
	tests/unit/t-common-str \
	tests/unit/t-common-log \
	tests/unit/t-common-ipc
