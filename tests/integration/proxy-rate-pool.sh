#!/bin/sh
# Kept upstream connections for plain HTTP: see proxy-rate-pool.py.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd python3
exec python3 "$top_srcdir/tests/integration/proxy-rate-pool.py"
