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
	%reldir%/self.c \
	%reldir%/limits.c \
	%reldir%/cgroup.c \
	%reldir%/mounts.c
