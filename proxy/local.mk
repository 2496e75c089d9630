## proxy/: the forward proxy (see DESIGN.md and proxy/proxy.h).
libaxgate_la_SOURCES += \
	%reldir%/proxy.h \
	%reldir%/http1.c \
	%reldir%/chunked.c \
	%reldir%/host.c \
	%reldir%/tls-hello.c
