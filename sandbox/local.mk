## sandbox/: a job's process confinement (namespaces, Landlock, seccomp,
## capabilities, limits, environment, supervision).  See sandbox/sandbox.h.
libaxgate_la_SOURCES += \
	%reldir%/sandbox.h \
	%reldir%/sandbox-int.h \
	%reldir%/landlock-abi.h \
	%reldir%/spawn.c \
	%reldir%/child.c \
	%reldir%/env.c \
	%reldir%/user.c \
	%reldir%/landlock.c \
	%reldir%/seccomp.c \
	%reldir%/seccomp-gen.c \
	%reldir%/self.c \
	%reldir%/limits.c \
	%reldir%/cgroup.c \
	%reldir%/mounts.c

## The deny-list filters, compiled by libseccomp at build time: gen-seccomp
## writes them as C arrays that the launcher loads as they are (the unit
## test compiles them again and compares).
noinst_PROGRAMS += %reldir%/gen-seccomp
%canon_reldir%_gen_seccomp_SOURCES = %reldir%/gen-seccomp.c \
	%reldir%/seccomp-gen.c
%canon_reldir%_gen_seccomp_CFLAGS = $(AM_CFLAGS)
%canon_reldir%_gen_seccomp_LDADD = common/libaxcommon.la $(LIBSECCOMP_LIBS)
nodist_libaxgate_la_SOURCES += %reldir%/seccomp-progs.c
BUILT_SOURCES += %reldir%/seccomp-progs.c
CLEANFILES += %reldir%/seccomp-progs.c
%reldir%/seccomp-progs.c: %reldir%/gen-seccomp$(EXEEXT)
	$(AM_V_GEN)%reldir%/gen-seccomp$(EXEEXT) >$@.tmp && mv -f $@.tmp $@
