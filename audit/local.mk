## audit/: OCSF events, sinks and the non-blocking writer (see audit.h).
libaxgate_la_SOURCES += \
	%reldir%/audit.h \
	%reldir%/audit-int.h \
	%reldir%/json.c \
	%reldir%/event.c \
	%reldir%/events-net.c \
	%reldir%/events-host.c \
	%reldir%/config.c \
	%reldir%/sink.c \
	%reldir%/writer.c
