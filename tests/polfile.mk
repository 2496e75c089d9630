## Tests of YAML policy files.
check_PROGRAMS += tests/unit/t-policy-polfile
TESTS += tests/unit/t-policy-polfile
