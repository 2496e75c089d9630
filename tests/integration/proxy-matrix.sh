#!/bin/sh
# curl through a real axgate serve: {CONNECT, plain HTTP} x {TLS, plain} x
# {allowed, denied host} x {allowed, denied port}: see proxy-matrix.py.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd python3
need_cmd curl
need_cmd openssl "the openssl command is not installed"
exec python3 "$top_srcdir/tests/integration/proxy-matrix.py"
