#!/bin/sh
# The inference virtual host against the abuse cases 25-28, 31 and 32
# through a real axgate serve: see inference-abuse.py for the rows.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "serve drops to an unprivileged user: needs root"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
exec python3 "$top_srcdir/tests/integration/inference-abuse.py"
