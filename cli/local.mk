## cli/: the axgate command.
cli_axgate_SOURCES = \
	%reldir%/cli.h \
	%reldir%/axgate.c \
	%reldir%/cmd-run.c \
	%reldir%/cmd-serve.c \
	%reldir%/cmd-policy.c \
	%reldir%/cmd-scan.c
