#!/bin/sh
# The hostile inputs of PROXY-ABUSE-CASES through a real axgate serve,
# with a DNS server, upstreams and a test CA of the test's own: see
# proxy-abuse.py for the table.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "serve drops to an unprivileged user: needs root"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
command -v openssl >/dev/null 2>&1 || skip_all "the openssl command is not installed"
exec python3 "$top_srcdir/tests/integration/proxy-abuse.py"
