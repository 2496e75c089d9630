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
policiestestsdir = $(datadir)/axgate/policies/tests
dist_policiestests_DATA = \
	%reldir%/policies/tests/default_test.rego \
	%reldir%/policies/tests/minimal_test.rego \
	%reldir%/policies/tests/coding-agent_test.rego \
	%reldir%/policies/tests/claude-code_test.rego \
	%reldir%/policies/tests/codex_test.rego \
	%reldir%/policies/tests/gemini-cli_test.rego \
	%reldir%/policies/tests/opencode_test.rego
EXTRA_DIST += %reldir%/policies/cases/README \
	%reldir%/policies/cases/templates.cases

## systemd unit (made from its .in with the configured paths) and logrotate.
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = contrib/systemd/axgate.service
CLEANFILES += contrib/systemd/axgate.service
EXTRA_DIST += %reldir%/systemd/axgate.service.in %reldir%/logrotate/axgate
contrib/systemd/axgate.service: $(srcdir)/contrib/systemd/axgate.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib/systemd && \
	sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
		$(srcdir)/contrib/systemd/axgate.service.in > $@
logrotatedir = $(sysconfdir)/logrotate.d
dist_logrotate_DATA = %reldir%/logrotate/axgate

## A sample axgate.yaml for axgate serve, installed as an example.
examplesdir = $(docdir)/examples
dist_examples_DATA = %reldir%/axgate.yaml
