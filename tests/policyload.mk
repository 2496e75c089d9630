## Loading policy data fast: bulk object building and the JSON parser.
check_PROGRAMS += tests/unit/t-policy-json
TESTS += tests/unit/t-policy-json
