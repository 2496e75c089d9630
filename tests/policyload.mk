## Loading policy data fast: bulk object building and the JSON parser.
check_PROGRAMS += tests/unit/t-policy-json
TESTS += tests/unit/t-policy-json

## The parser numbers template variables per parse (thread-safe).
check_PROGRAMS += tests/unit/t-policy-parse-tmpl
TESTS += tests/unit/t-policy-parse-tmpl
