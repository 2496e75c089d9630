## Tests of netns/.  t-netns-pool needs no privileges; the others create
## real namespaces, veth pairs and nftables tables, skip (saying why) when
## not run as root, and run under a guard that sweeps what a failing test
## leaves (tests/unit/t-netns-guard.h).
netns_tests = \
	tests/unit/t-netns-pool \
	tests/unit/t-netns-job \
	tests/unit/t-netns-many \
	tests/unit/t-netns-fail
check_PROGRAMS += $(netns_tests)
TESTS += $(netns_tests)
EXTRA_DIST += tests/unit/t-netns-guard.h

## make bench: netns create+destroy against unshare, with a step profile.
EXTRA_PROGRAMS += tests/bench/bench-netns
bench_programs += tests/bench/bench-netns

## Shell tests drive the library through a small runner.
check_PROGRAMS += tests/integration/netns-exec
netns_sh_tests = \
	tests/integration/netns-ruleset.sh
TESTS += $(netns_sh_tests)
EXTRA_DIST += $(netns_sh_tests)
EXTRA_DIST += tests/integration/netns-ruleset-job.golden \
	tests/integration/netns-ruleset-host.golden
