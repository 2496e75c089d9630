#!/bin/sh
# The hostile inputs of PROXY-ABUSE-CASES through a real axgate serve,
# with a DNS server, upstreams and a test CA of the test's own: see
# proxy-abuse.py for the table.
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd python3
need_cmd openssl "the openssl command is not installed"
exec python3 "$top_srcdir/tests/integration/proxy-abuse.py"
