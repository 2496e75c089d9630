## Side by side: axgate against Squid, tinyproxy and the direct loopback.
## `make bench-compare` (root; installs squid, tinyproxy and gnuplot with
## apt-get when missing); BENCH_COMPARE_FLAGS=--quick for one short rep.
EXTRA_DIST += tests/bench/bench-compare.sh doc/PERFORMANCE.md \
	doc/perf/policy-size.png doc/perf/body-size.png doc/perf/tunnels.png \
	tests/integration/benchcmp-loadgen.sh

bench-compare: tests/bench/loadgen$(EXEEXT) tests/bench/relay$(EXEEXT) \
	cli/axgate$(EXEEXT)
	AXGATE='$(abs_top_builddir)/cli/axgate' \
	LOADGEN='$(abs_top_builddir)/tests/bench/loadgen' \
	RELAY='$(abs_top_builddir)/tests/bench/relay' \
	top_builddir='$(abs_top_builddir)' \
	$(SHELL) $(srcdir)/tests/bench/bench-compare.sh $(BENCH_COMPARE_FLAGS)
.PHONY: bench-compare

## A quick smoke test of the load generator and the relay (a few seconds).
TESTS += tests/integration/benchcmp-loadgen.sh
check_PROGRAMS += tests/bench/loadgen tests/bench/relay
