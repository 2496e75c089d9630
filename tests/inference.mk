## Tests of inference routing (proxy/inference.c, server/inference.c).
TESTS += tests/integration/inference-serve.sh \
	tests/integration/inference-run.sh \
	tests/integration/inference-sdk.sh \
	tests/integration/inference-pool.sh
EXTRA_DIST += tests/integration/inference-serve.sh \
	tests/integration/inference-run.sh \
	tests/integration/inference-sdk.sh \
	tests/integration/inference-pool.sh \
	tests/integration/inference-sdk.mjs \
	tests/integration/inference-backend.py

## The added latency and the streamed throughput: `make bench` only.
EXTRA_PROGRAMS += tests/bench/bench-inference
bench_programs += tests/bench/bench-inference
CLEANFILES += tests/bench/bench-inference
