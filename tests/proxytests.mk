## End-to-end suites of the proxy through axgate serve: the abuse cases
## and the request matrix (python3, curl and openssl at test time).
proxytests_scripts = \
	tests/integration/proxy-abuse.sh \
	tests/integration/proxy-matrix.sh
TESTS += $(proxytests_scripts)
EXTRA_DIST += $(proxytests_scripts) \
	tests/integration/proxy-abuse.py \
	tests/integration/proxy-matrix.py \
	tests/integration/proxy-harness.py
