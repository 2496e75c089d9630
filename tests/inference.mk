## Tests of inference routing (proxy/inference.c, server/inference.c).
TESTS += tests/integration/inference-serve.sh \
	tests/integration/inference-run.sh \
	tests/integration/inference-sdk.sh
EXTRA_DIST += tests/integration/inference-serve.sh \
	tests/integration/inference-run.sh \
	tests/integration/inference-sdk.sh \
	tests/integration/inference-sdk.mjs \
	tests/integration/inference-backend.py
