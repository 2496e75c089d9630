## safety/: the credential-leak scanner (see safety/safety.h).
libaxgate_la_SOURCES += \
	%reldir%/safety.h \
	%reldir%/safety-int.h \
	%reldir%/rules-builtin.c \
	%reldir%/rules-yaml.c \
	%reldir%/ruleset.c \
	%reldir%/ac.c \
	%reldir%/check.c \
	%reldir%/decode.c \
	%reldir%/scan.c \
	%reldir%/runs.c \
	%reldir%/stream.c \
	%reldir%/redact.c \
	%reldir%/proxy-hook.c \
	%reldir%/inflate.h \
	%reldir%/inflate.c
