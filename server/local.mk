## server/: the proxy as axgate runs it (decider and audit from a gate),
## the proxy child of `axgate run`, and the `axgate serve` daemon.
libaxgate_la_SOURCES += \
	%reldir%/server.h \
	%reldir%/gatekeeper.c \
	%reldir%/child.c \
	%reldir%/scan.c \
	%reldir%/inference.c
libaxgate_la_SOURCES += \
	%reldir%/server-int.h \
	%reldir%/config.c \
	%reldir%/admin.c \
	%reldir%/data-api.c \
	%reldir%/counts.c \
	%reldir%/daemon.c
