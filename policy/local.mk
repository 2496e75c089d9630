## policy/: the Rego engine and the YAML policy loader.
policy_libaxpolicy_core_la_SOURCES += \
	%reldir%/axpolicy.h \
	%reldir%/version.c \
	%reldir%/value.h \
	%reldir%/value-int.h \
	%reldir%/value.c \
	%reldir%/value-num.c \
	%reldir%/value-json.c \
	%reldir%/value-build.h \
	%reldir%/value-build.c \
	%reldir%/builtins.h \
	%reldir%/builtins.c \
	%reldir%/builtins-compare.c \
	%reldir%/builtins-arith.c \
	%reldir%/builtins-aggregates.c \
	%reldir%/builtins-strings.c \
	%reldir%/builtins-internal.c \
	%reldir%/ast.h \
	%reldir%/ast.c \
	%reldir%/lexer.h \
	%reldir%/lexer.c \
	%reldir%/parser.c \
	%reldir%/ir.h \
	%reldir%/opcodes.def \
	%reldir%/policy-int.h \
	%reldir%/compile.c \
	%reldir%/eval.c \
	%reldir%/api.c \
	%reldir%/value-extra-a.h \
	%reldir%/value-a.c \
	%reldir%/builtins-arrays.c \
	%reldir%/builtins-sets.c \
	%reldir%/builtins-types.c \
	%reldir%/builtins-numbers.c \
	%reldir%/builtins-objects.c \
	%reldir%/builtins-jsonpatch.c \
	%reldir%/value-extra-b.h \
	%reldir%/value-codec.c \
	%reldir%/builtins-encoding.c \
	%reldir%/builtins-bits.c \
	%reldir%/builtins-net.c \
	%reldir%/tzfile.h \
	%reldir%/tzfile.c \
	%reldir%/builtins-time.c \
	%reldir%/builtins-sprintf.c \
	%reldir%/builtins-regex.c \
	%reldir%/builtins-glob.c \
	%reldir%/builtins-units.c \
	%reldir%/builtins-semver.c \
	%reldir%/builtins-uuid.c \
	%reldir%/builtins-crypto.c \
	%reldir%/builtins-jwt.c \
	%reldir%/builtins-x509.c \
	%reldir%/builtins-math.c \
	%reldir%/builtins-graph.c \
	%reldir%/builtins-providers.c \
	%reldir%/annotations.h %reldir%/annotations.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/jidx.h %reldir%/jidx.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/builtins-uri.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/fmt.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/builtins-jsonschema.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/builtins-http.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/builtins-template.c
policy_libaxpolicy_core_la_SOURCES += %reldir%/builtins-graphql.c \
	%reldir%/graphql-int.h %reldir%/graphql-parse.c \
	%reldir%/graphql-schema.c %reldir%/graphql-validate.c

## The installed library: the core, exporting only axp_* symbols.
policy_libaxpolicy_la_SOURCES = %reldir%/axpolicy.h
policy_libaxpolicy_la_LIBADD = policy/libaxpolicy-core.la
policy_libaxpolicy_la_LDFLAGS = -version-info $(AXPOLICY_LT_VERSION) \
	-export-symbols-regex '^axp_' -no-undefined
include_HEADERS += %reldir%/axpolicy.h
pkgconfig_DATA += %reldir%/libaxpolicy.pc
EXTRA_DIST += %reldir%/libaxpolicy.pc.in

## YAML policy files.
policy_libaxpolicy_core_la_SOURCES += \
	%reldir%/polfile.h \
	%reldir%/polfile.c \
	%reldir%/hostpat.c

## The built-in Rego rules (compiled in once the engine loads modules).
EXTRA_DIST += %reldir%/builtin/axgate.rego %reldir%/builtin/entry.rego

## The policy as axgate runs it: the YAML file, the built-in rules compiled
## into the program, and the user's modules (gate.h).
libaxgate_la_SOURCES += \
	%reldir%/gate.h \
	%reldir%/gate.c
gate_builtin_rego = \
	%reldir%/builtin/entry.rego \
	%reldir%/builtin/axgate.rego
EXTRA_DIST += $(gate_builtin_rego)
nodist_libaxgate_la_SOURCES = policy/builtin-rego.c
BUILT_SOURCES += policy/builtin-rego.c
CLEANFILES += policy/builtin-rego.c
policy/builtin-rego.c: $(gate_builtin_rego:%=$(srcdir)/%)
	$(AM_V_GEN)$(MKDIR_P) policy && { \
		echo '/* Generated from the files of policy/builtin. */'; \
		echo '#include "config.h"'; \
		echo '#include "policy/gate.h"'; \
		echo 'const struct gate_module gate_builtin_modules[] = {'; \
		for f in $(gate_builtin_rego); do \
			echo "{\"builtin/$${f##*/}\","; \
			sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' \
				-e 's/$$/\\n"/' $(srcdir)/$$f; \
			echo '},'; \
		done; \
		echo '};'; \
		echo 'const size_t gate_builtin_nmodules ='; \
		echo '    sizeof(gate_builtin_modules) / sizeof(gate_builtin_modules[0]);'; \
		} > $@
