/* data-api.c: OPA's Data API over the loaded policy (POST and GET
 * /v1/data/{path}), answered the way OPA answers: {"result": value}, {}
 * when the document is undefined, and {"code": ..., "message": ...} on an
 * error. */
#include "config.h"

#include <string.h>

#include "server/server-int.h"

static void
error_body(struct axg_buf *out, const char *code, const char *prefix,
    const char *msg)
{
	struct axv *m;
	char *text = axg_asprintf("%s%s", prefix, msg);

	m = axv_string_own(text, strlen(text));
	axg_buf_printf(out, "{\"code\":\"%s\",\"message\":", code);
	axv_to_json(m, out, false);
	axg_buf_puts(out, "}\n");
	axv_unref(m);
}

void
srv_data_api(struct gate *g, const char *path, const char *body,
    size_t body_len, int *status, struct axg_buf *out)
{
	struct axv_json_limits lim = { SRV_ADMIN_MAX_BODY, 100 };
	struct axv *doc = NULL, *input = NULL, *value = NULL;
	char err[512];
	size_t i;

	/* an empty body (or only whitespace) is a query without input */
	for (i = 0; body != NULL && i < body_len; i++)
		if (strchr(" \t\r\n", body[i]) == NULL)
			break;
	if (body != NULL && i < body_len) {
		doc = axv_from_json(body, body_len, &lim, err, sizeof(err));
		if (doc == NULL || axv_kind(doc) != AXV_OBJECT) {
			*status = 400;
			error_body(out, "invalid_parameter",
			    "body contains malformed input document: ",
			    doc == NULL ? err : "not a JSON object");
			axv_unref(doc);
			return;
		}
		input = axv_object_gets(doc, "input");
	}
	if (gate_data(g, path, input, &value, err, sizeof(err)) < 0) {
		*status = 500;
		error_body(out, "internal_error", "", err);
		axv_unref(doc);
		return;
	}
	*status = 200;
	if (value == NULL)
		axg_buf_puts(out, "{}\n");
	else {
		axg_buf_puts(out, "{\"result\":");
		axv_to_json(value, out, false);
		axg_buf_puts(out, "}\n");
	}
	axv_unref(value);
	axv_unref(doc);
}
