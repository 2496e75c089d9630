# tap-summary.awk: count automake's .trs results and print the final line.
# Skips and expected failures are never counted as passed.
/^:test-result: PASS/               { pass++ }
/^:test-result: (FAIL|XPASS|ERROR)/ { fail++ }
/^:test-result: SKIP/               { skip++ }
/^:test-result: XFAIL/              { xfail++ }
END {
	if (skip || xfail)
		printf "# not counted: %d skipped, %d expected failures\n", skip, xfail
	printf "%d passed, %d failed\n", pass, fail
	exit fail != 0
}
