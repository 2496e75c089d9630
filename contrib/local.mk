## contrib/: packaging helpers, style checks.
EXTRA_DIST += %reldir%/install-deps %reldir%/checksrc %reldir%/quickstart

## `make check-style`: clang-format (when installed) and banned calls.
check-style:
	@$(SHELL) $(srcdir)/contrib/checksrc $(srcdir)
.PHONY: check-style

## Policy templates, installed as examples.
policiesdir = $(datadir)/axgate/policies
dist_policies_DATA = \
	%reldir%/policies/default.yaml \
	%reldir%/policies/minimal.yaml \
	%reldir%/policies/coding-agent.yaml \
	%reldir%/policies/claude-code.yaml \
	%reldir%/policies/codex.yaml \
	%reldir%/policies/gemini-cli.yaml \
	%reldir%/policies/opencode.yaml
