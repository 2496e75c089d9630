## doc/: man pages.
dist_man_MANS += %reldir%/axgate.1
dist_man_MANS += %reldir%/axgate-scan.1
