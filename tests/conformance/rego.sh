#!/bin/sh
# Run OPA's Rego compliance cases (the shared folder) through the engine.
# Cases listed in rego-todo.txt are expected to fail (TODO); the list is a
# ratchet: a listed case that passes fails the run.
dir="${AXG_SHARED_DIR:-}/conformance/rego"
if [ -z "${AXG_SHARED_DIR:-}" ] || [ ! -d "$dir" ]; then
	echo "1..0 # SKIP conformance cases not found (AXG_SHARED_DIR/conformance/rego)"
	exit 0
fi
exec "${top_builddir:-.}/tests/rego-conformance" \
	--todo "${top_srcdir:-.}/tests/conformance/rego-todo.txt" "$dir"
