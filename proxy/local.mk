## proxy/: the forward proxy (see DESIGN.md and proxy/proxy.h).
libaxgate_la_SOURCES += \
	%reldir%/proxy.h \
	%reldir%/http1.c \
	%reldir%/chunked.c \
	%reldir%/host.c \
	%reldir%/tls-hello.c \
	%reldir%/proxy-int.h \
	%reldir%/core.c \
	%reldir%/conn.c \
	%reldir%/tunnel.c \
	%reldir%/forward.c \
	%reldir%/inference.c \
	%reldir%/upool.c \
	%reldir%/json.c
