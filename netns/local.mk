## netns/: a job's network (namespace, veth pair, addresses, nftables).
libaxgate_la_SOURCES += \
	%reldir%/netns.h \
	%reldir%/netns-int.h \
	%reldir%/ns.c \
	%reldir%/pool.c \
	%reldir%/rtnl.c \
	%reldir%/nft.c \
	%reldir%/sweep.c
