#!/bin/sh
# Kept upstream connections for plain HTTP: see proxy-rate-pool.py.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "serve drops to an unprivileged user: needs root"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
exec python3 "$top_srcdir/tests/integration/proxy-rate-pool.py"
