/*
 * fuzz-scan-rules.c: the YAML rule loader on arbitrary text.
 *
 * A load either fails with a message or gives a rule set that can scan
 * its own input.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	struct leak_ruleset *rs;

	if (size > 65536)
		return 0;
	rs = leak_ruleset_new_yaml((const char *)data, size, "fuzz.yaml", err,
	    sizeof(err));
	if (rs == NULL) {
		if (err[0] == '\0')
			abort(); /* failures always say why */
		return 0;
	}
	struct leak_scan *sc = leak_scan_new(rs, err, sizeof(err));
	struct leak_findings f;
	leak_findings_init(&f);
	if (sc != NULL)
		(void)leak_scan_buffer(sc, data, size, &f, err, sizeof(err));
	leak_findings_free(&f);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return 0;
}
