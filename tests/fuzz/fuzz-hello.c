/*
 * fuzz-hello.c: libFuzzer target for the TLS ClientHello parser.  Every
 * prefix of the input is parsed too, as a client sending it in pieces.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "proxy/proxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sni[PX_HOST_MAX + 1], err[160];
	size_t step = size / 4 + 1;

	for (size_t n = 0; n < size; n += step)
		(void)px_tls_hello_sni(data, n, sni, sizeof(sni), err,
		    sizeof(err));
	if (px_tls_hello_sni(data, size, sni, sizeof(sni), err, sizeof(err)) ==
		PX_HELLO_SNI &&
	    strlen(sni) > PX_HOST_MAX)
		__builtin_trap();
	return 0;
}
