#!/bin/sh
# The inference virtual host against the abuse cases 25-28, 31 and 32
# through a real axgate serve: see inference-abuse.py for the rows.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd python3
exec python3 "$top_srcdir/tests/integration/inference-abuse.py"
