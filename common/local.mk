## common/: the bottom layer (allocation, logging, buffers, strings).
## Its own convenience library, taken in by the policy core (so the
## installed libaxpolicy has it, hidden) and through that by libaxgate.la.
noinst_LTLIBRARIES += common/libaxcommon.la
common_libaxcommon_la_SOURCES = \
	%reldir%/common.h \
	%reldir%/xalloc.c \
	%reldir%/log.c \
	%reldir%/buf.c \
	%reldir%/str.c \
	%reldir%/ipc.c \
	%reldir%/sdnotify.c \
	%reldir%/sha256.c
