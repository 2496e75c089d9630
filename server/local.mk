## server/: the proxy as axgate runs it (decider and audit from a gate).
libaxgate_la_SOURCES += \
	%reldir%/server.h \
	%reldir%/gatekeeper.c
libaxgate_la_SOURCES += \
	%reldir%/server-int.h \
	%reldir%/config.c \
	%reldir%/admin.c \
	%reldir%/data-api.c \
	%reldir%/counts.c \
	%reldir%/daemon.c
