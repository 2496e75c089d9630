/*
 * fuzz-polfile: libFuzzer target for YAML policy files, through the whole
 * gate: the loader, the compile with the built-in rules, and a decision
 * of every entry point on what compiled.  A file that does not load must
 * give at least one located message and no gate.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axp_polfile_errors errs;
	struct gate *g =
	    gate_load_mem("fuzz.yaml", (const char *)data, size, NULL, &errs);
	unsigned e;

	if (g == NULL) {
		if (errs.n == 0 || errs.msg[0][0] == '\0')
			abort(); /* a refusal must say why */
		return 0;
	}
	for (e = 0; e < GATE_NENTRIES; e++) {
		struct gate_request r;
		struct gate_decision d;
		struct axv *in;

		memset(&r, 0, sizeof(r));
		r.entry = (enum gate_entry)e;
		r.host = "api.example.com";
		r.port = 443;
		r.addr = "10.0.0.1";
		r.method = "GET";
		r.path = "/";
		r.route = "local";
		r.model = "m";
		r.tokens = 10;
		in = gate_input(&r);
		gate_decide(g, (enum gate_entry)e, in, &d);
		axv_unref(in);
	}
	gate_unref(g);
	return 0;
}
