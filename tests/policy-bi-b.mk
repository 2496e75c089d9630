## Tests of the builtins in policy/builtins-{encoding,bits,net,time,uuid,
## crypto,jwt,x509,graphql}.c, and providers.aws.sign_req (builtins-providers.c)
## with the crypto ones.
EXTRA_DIST += %reldir%/unit/policy-bi-rows.h
check_PROGRAMS += \
	tests/unit/t-policy-bi-encoding \
	tests/unit/t-policy-bi-bits \
	tests/unit/t-policy-bi-net \
	tests/unit/t-policy-bi-time \
	tests/unit/t-policy-bi-uuid \
	tests/unit/t-policy-bi-crypto \
	tests/unit/t-policy-bi-jwt \
	tests/unit/t-policy-bi-x509 \
	tests/unit/t-policy-bi-graphql
TESTS += \
	tests/unit/t-policy-bi-encoding \
	tests/unit/t-policy-bi-bits \
	tests/unit/t-policy-bi-net \
	tests/unit/t-policy-bi-time \
	tests/unit/t-policy-bi-uuid \
	tests/unit/t-policy-bi-crypto \
	tests/unit/t-policy-bi-jwt \
	tests/unit/t-policy-bi-x509 \
	tests/unit/t-policy-bi-graphql
EXTRA_PROGRAMS += tests/bench/bench-policy-bi-b
bench_programs += tests/bench/bench-policy-bi-b
