## Tests of YAML policy files.
check_PROGRAMS += tests/unit/t-policy-polfile
TESTS += tests/unit/t-policy-polfile

## make bench: load time of large policy files.
EXTRA_PROGRAMS += tests/bench/bench-polfile
bench_programs += tests/bench/bench-polfile
