## End-to-end suites of the proxy through axgate serve: the abuse cases
## and the request matrix (python3, curl and openssl at test time).
proxytests_scripts = \
	tests/integration/proxy-abuse.sh \
	tests/integration/proxy-matrix.sh \
	tests/integration/inference-abuse.sh
TESTS += $(proxytests_scripts)
EXTRA_DIST += $(proxytests_scripts) \
	tests/integration/proxy-abuse.py \
	tests/integration/proxy-matrix.py \
	tests/integration/inference-abuse.py \
	tests/integration/proxy-harness.py

## The credential scan's decoder of gzip and deflate request bodies.
check_PROGRAMS += tests/unit/t-safety-inflate
TESTS += tests/unit/t-safety-inflate
