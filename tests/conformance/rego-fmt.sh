#!/bin/sh
# The conformance cases again, each module first put through the formatter:
# formatting must be stable and must not change what a policy means, so the
# same cases pass (the same ratchet manifest applies).
dir="${AXG_SHARED_DIR:-}/conformance/rego"
if [ -z "${AXG_SHARED_DIR:-}" ] || [ ! -d "$dir" ]; then
	echo "1..0 # SKIP conformance cases not found (AXG_SHARED_DIR/conformance/rego)"
	exit 0
fi
exec "${top_builddir:-.}/tests/rego-conformance" --fmt \
	--todo "${top_srcdir:-.}/tests/conformance/rego-todo.txt" "$dir"
