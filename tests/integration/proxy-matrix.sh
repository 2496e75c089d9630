#!/bin/sh
# curl through a real axgate serve: {CONNECT, plain HTTP} x {TLS, plain} x
# {allowed, denied host} x {allowed, denied port}: see proxy-matrix.py.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "serve drops to an unprivileged user: needs root"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v openssl >/dev/null 2>&1 || skip_all "the openssl command is not installed"
exec python3 "$top_srcdir/tests/integration/proxy-matrix.py"
