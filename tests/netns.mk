## Tests of netns/.  The root tests create real namespaces, veth pairs and
## nftables tables; they skip (saying why) when not run as root.
netns_tests = \
	tests/unit/t-netns-job
check_PROGRAMS += $(netns_tests)
TESTS += $(netns_tests)
EXTRA_DIST += tests/unit/t-netns-guard.h
