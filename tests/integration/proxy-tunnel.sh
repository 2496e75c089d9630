#!/bin/sh
# Established CONNECT tunnels through a real axgate serve: large transfers,
# half-close, a client that never reads, the idle timeout and the pipe
# pool of the spliced relay (see proxy-tunnel.py).
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "serve drops to an unprivileged user: needs root"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
exec python3 "$top_srcdir/tests/integration/proxy-tunnel.py"
