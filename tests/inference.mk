## Tests of inference routing (proxy/inference.c, server/inference.c).
TESTS += tests/integration/inference-serve.sh \
	tests/integration/inference-run.sh
EXTRA_DIST += tests/integration/inference-serve.sh \
	tests/integration/inference-run.sh \
	tests/integration/inference-backend.py
