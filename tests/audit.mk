## Tests of audit/: the JSON writer, every event kind against the OCSF
## validator, sink specs, syslog framing, rotation and the overflow policies.
audit_tests = \
	tests/unit/t-audit-json \
	tests/unit/t-audit-config \
	tests/unit/t-audit-events \
	tests/unit/t-audit-syslog \
	tests/unit/t-audit-rotate \
	tests/unit/t-audit-overflow
check_PROGRAMS += $(audit_tests)
TESTS += $(audit_tests)
tests_unit_t_audit_json_LDADD = libaxgate.la $(JANSSON_LIBS)
tests_unit_t_audit_events_LDADD = libaxgate.la $(JANSSON_LIBS)
tests_unit_t_audit_rotate_LDADD = libaxgate.la $(JANSSON_LIBS)

## make bench: events/s serialised and written, and the enqueue cost.
EXTRA_PROGRAMS += tests/bench/bench-audit
bench_programs += tests/bench/bench-audit
CLEANFILES += tests/bench/bench-audit
EXTRA_DIST += tests/unit/t-audit-helpers.h
tests_unit_t_audit_syslog_LDADD = libaxgate.la $(JANSSON_LIBS)
tests_unit_t_audit_overflow_LDADD = libaxgate.la $(JANSSON_LIBS)

## libFuzzer target (configure --enable-fuzzing CC=clang).
EXTRA_DIST += tests/fuzz/fuzz-audit-json.c
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz-audit-json
tests_fuzz_fuzz_audit_json_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_audit_json_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
tests_fuzz_fuzz_audit_json_LDADD = libaxgate.la $(JANSSON_LIBS)
endif
