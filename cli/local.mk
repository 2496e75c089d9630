## cli/: the axgate command.
cli_axgate_SOURCES = \
	%reldir%/cli.h \
	%reldir%/axgate.c \
	%reldir%/cmd-run.c \
	%reldir%/cmd-serve.c \
	%reldir%/cmd-policy.c \
	%reldir%/cmd-scan.c \
	%reldir%/policy-gate.c

## The built-in default policy, compiled in from its YAML file.
nodist_cli_axgate_SOURCES = cli/default-policy.c
BUILT_SOURCES += cli/default-policy.c
CLEANFILES += cli/default-policy.c
cli/default-policy.c: $(srcdir)/contrib/policies/default.yaml
	$(AM_V_GEN)$(MKDIR_P) cli && { \
		echo '/* Generated from contrib/policies/default.yaml. */'; \
		echo 'extern const char axg_default_policy[];'; \
		echo 'const char axg_default_policy[] ='; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
			$(srcdir)/contrib/policies/default.yaml; \
		echo ';'; } > $@
