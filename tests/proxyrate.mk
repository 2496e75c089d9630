## Tests of the proxy's request-rate paths (kept upstream connections,
## batched audit writes).
proxyrate_tests = \
	tests/integration/proxy-rate-pool.sh
TESTS += $(proxyrate_tests)
EXTRA_DIST += $(proxyrate_tests) \
	tests/integration/proxy-rate-pool.py
