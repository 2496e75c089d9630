## contrib/: packaging helpers, style checks.
EXTRA_DIST += %reldir%/install-deps %reldir%/checksrc %reldir%/quickstart

## `make check-style`: clang-format (when installed) and banned calls.
check-style:
	@$(SHELL) $(srcdir)/contrib/checksrc $(srcdir)
.PHONY: check-style
