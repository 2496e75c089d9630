## policy/: the Rego engine and the YAML policy loader.
policy_libaxpolicy_core_la_SOURCES += \
	%reldir%/axpolicy.h \
	%reldir%/version.c \
	%reldir%/value.h \
	%reldir%/value-int.h \
	%reldir%/value.c \
	%reldir%/value-num.c \
	%reldir%/value-json.c \
	%reldir%/builtins.h \
	%reldir%/builtins.c \
	%reldir%/builtins-compare.c \
	%reldir%/builtins-arith.c \
	%reldir%/builtins-aggregates.c \
	%reldir%/builtins-strings.c \
	%reldir%/value-extra-b.h \
	%reldir%/value-codec.c \
	%reldir%/builtins-encoding.c \
	%reldir%/builtins-bits.c \
	%reldir%/builtins-net.c \
	%reldir%/tzfile.h \
	%reldir%/tzfile.c \
	%reldir%/builtins-time.c \
	%reldir%/builtins-uuid.c \
	%reldir%/builtins-crypto.c \
	%reldir%/builtins-jwt.c \
	%reldir%/builtins-x509.c

## The installed library: the core, exporting only axp_* symbols.
policy_libaxpolicy_la_SOURCES = %reldir%/axpolicy.h
policy_libaxpolicy_la_LIBADD = policy/libaxpolicy-core.la
policy_libaxpolicy_la_LDFLAGS = -version-info $(AXPOLICY_LT_VERSION) \
	-export-symbols-regex '^axp_' -no-undefined
include_HEADERS += %reldir%/axpolicy.h
pkgconfig_DATA += %reldir%/libaxpolicy.pc
EXTRA_DIST += %reldir%/libaxpolicy.pc.in
