#!/bin/sh
# Run OPA's compile-error cases (the shared rego-compile-errors folder): each
# case's modules must fail to compile with the same code, row, col and
# message as OPA's.  Cases listed in rego-compile-errors-todo.txt are
# expected to fail (TODO); a listed case that passes fails the run.
dir="${AXG_SHARED_DIR:-}/conformance/rego-compile-errors"
if [ -z "${AXG_SHARED_DIR:-}" ] || [ ! -d "$dir" ]; then
	echo "1..0 # SKIP compile-error cases not found (AXG_SHARED_DIR/conformance/rego-compile-errors)"
	exit 0
fi
exec "${top_builddir:-.}/tests/rego-conformance" --compile-errors \
	--todo "${top_srcdir:-.}/tests/conformance/rego-compile-errors-todo.txt" \
	"$dir"
