## tests/: TAP programs and scripts run through automake's tap-driver.
## Each part lists its own tests in tests/<part>.mk.

TEST_EXTENSIONS = .sh
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
SH_LOG_DRIVER = $(LOG_DRIVER)
AM_TESTS_ENVIRONMENT = \
	AXGATE='$(abs_top_builddir)/cli/axgate'; \
	top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	AXG_SHARED_DIR="$${AXG_SHARED_DIR:-$(AXG_SHARED_DIR)}"; \
	export AXGATE top_srcdir top_builddir AXG_SHARED_DIR;

EXTRA_DIST += %reldir%/tap.h %reldir%/rnd.h %reldir%/tap-summary.awk %reldir%/lib.sh

include %reldir%/common.mk
include %reldir%/cli.mk
include %reldir%/run.mk
include %reldir%/policy.mk
include %reldir%/polfile.mk
include %reldir%/policyload.mk
include %reldir%/proxy.mk
include %reldir%/netns.mk
include %reldir%/safety.mk
include %reldir%/audit.mk
include %reldir%/sandbox.mk
include %reldir%/policy-bi-a.mk
include %reldir%/policy-bi-b.mk
include %reldir%/server.mk
include %reldir%/proxyrate.mk

## Keep going to the summary; the awk still fails the run.
.IGNORE: check-TESTS
check-local: check-TESTS
	@for f in $(TEST_LOGS); do \
		sed -n 's/^# \(rego conformance: .*\)/\1/p' "$$f" 2>/dev/null; \
	done
	@$(AWK) -f $(srcdir)/tests/tap-summary.awk $(TEST_LOGS:.log=.trs)

## Benchmarks: built and run only by `make bench`.  Parts add programs to
## bench_programs (and EXTRA_PROGRAMS) and scripts to bench_scripts.
bench: $(bench_programs)
	@for b in $(bench_programs); do \
		echo "== $$b"; \
		AXG_SHARED_DIR="$${AXG_SHARED_DIR:-$(AXG_SHARED_DIR)}" \
		top_srcdir='$(abs_top_srcdir)' ./$$b || exit 1; \
	done
	@for b in $(bench_scripts); do \
		echo "== $$b"; \
		AXG_SHARED_DIR="$${AXG_SHARED_DIR:-$(AXG_SHARED_DIR)}" \
		AXGATE='$(abs_top_builddir)/cli/axgate' \
		top_srcdir='$(abs_top_srcdir)' $(SHELL) $(srcdir)/$$b || exit 1; \
	done
.PHONY: bench
include %reldir%/inference.mk
include %reldir%/benchcmp.mk
include %reldir%/proxytests.mk
include %reldir%/proxytunnel.mk
