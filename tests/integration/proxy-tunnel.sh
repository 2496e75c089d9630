#!/bin/sh
# Established CONNECT tunnels through a real axgate serve: large transfers,
# half-close, a client that never reads, the idle timeout and the pipe
# pool of the spliced relay (see proxy-tunnel.py).
. "$top_srcdir/tests/lib.sh"

need_root "serve drops to an unprivileged user: needs root"
need_cmd python3
exec python3 "$top_srcdir/tests/integration/proxy-tunnel.py"
