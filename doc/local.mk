## doc/: man pages.
dist_man_MANS += %reldir%/axgate.1 %reldir%/axgate-policy.5
dist_man_MANS += %reldir%/axgate-audit.5
dist_man_MANS += %reldir%/axgate-proxy.7
dist_man_MANS += %reldir%/axgate-scan.1
dist_man_MANS += %reldir%/axgate-serve.8 %reldir%/axgate.yaml.5
