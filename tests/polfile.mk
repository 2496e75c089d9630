## Tests of YAML policy files.
check_PROGRAMS += tests/unit/t-policy-polfile
TESTS += tests/unit/t-policy-polfile

## make bench: load time of large policy files.
EXTRA_PROGRAMS += tests/bench/bench-polfile
bench_programs += tests/bench/bench-polfile

## The compiled policy: built-in rules, user modules, decisions.
check_PROGRAMS += tests/unit/t-policy-gate
TESTS += tests/unit/t-policy-gate

## The templates: each checks, and allows and denies what its cases say.
TESTS += tests/integration/policy-templates.sh
EXTRA_DIST += tests/integration/policy-templates.sh
