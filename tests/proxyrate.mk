## Tests of the proxy's request-rate paths (kept upstream connections,
## batched audit writes, the workers' decision cache).
proxyrate_tests = \
	tests/integration/proxy-rate-pool.sh \
	tests/integration/proxy-rate2.sh
TESTS += $(proxyrate_tests)
EXTRA_DIST += $(proxyrate_tests) \
	tests/integration/proxy-rate-pool.py

## What a connection's decisions cost, with and without the decision
## cache (`make bench`).
EXTRA_PROGRAMS += tests/bench/bench-proxyrate
bench_programs += tests/bench/bench-proxyrate
CLEANFILES += tests/bench/bench-proxyrate
