## Tests of safety/ (the credential-leak scanner) and `axgate scan`.
check_PROGRAMS += \
	tests/unit/t-safety-corpus
TESTS += \
	tests/unit/t-safety-corpus
EXTRA_DIST += \
	tests/data/leaks/positives.txt \
	tests/data/leaks/negatives.txt
