## server/: the proxy as axgate runs it (decider and audit from a gate).
libaxgate_la_SOURCES += \
	%reldir%/server.h \
	%reldir%/gatekeeper.c \
	%reldir%/child.c \
	%reldir%/scan.c
