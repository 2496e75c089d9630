/* cmd-policy.c: axgate policy: check and evaluate Rego policies. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/common.h"
#include "policy/axpolicy.h"
#include "policy/policy-int.h"
#include "policy/value.h"

#define POLICY_MAX_FILE (64u << 20)

struct loader {
	struct axp_compiler *c;
	struct axv *data; /* merged data documents */
	int nfiles;
	int errors;
};

/* Merge src into the object dst at path (consumes src). */
static struct axv *
merge_into(struct axv *dst, struct axv *src)
{
	struct axv *o;
	size_t i;

	if (dst == NULL)
		return src;
	if (axv_kind(dst) != AXV_OBJECT || axv_kind(src) != AXV_OBJECT) {
		axv_unref(dst);
		return src;
	}
	o = axv_object_new(0);
	for (i = 0; i < axv_object_len(dst); i++)
		axv_object_put(o, axv_ref(axv_object_key(dst, i)),
		    axv_ref(axv_object_val(dst, i)));
	for (i = 0; i < axv_object_len(src); i++) {
		struct axv *k = axv_object_key(src, i);
		struct axv *old = axv_object_get(o, k);
		axv_object_put(o, axv_ref(k),
		    merge_into(old ? axv_ref(old) : NULL,
			axv_ref(axv_object_val(src, i))));
	}
	axv_unref(dst);
	axv_unref(src);
	return o;
}

static int
load_file(struct loader *ld, const char *path)
{
	char err[512];
	size_t len;
	char *text =
	    axg_read_file(path, POLICY_MAX_FILE, &len, err, sizeof(err));

	if (text == NULL) {
		fprintf(stderr, "axgate policy: %s\n", err);
		ld->errors++;
		return -1;
	}
	ld->nfiles++;
	if (axg_endswith(path, ".json")) {
		struct axv *v =
		    axv_from_json(text, len, NULL, err, sizeof(err));
		free(text);
		if (v == NULL) {
			fprintf(stderr, "%s: %s\n", path, err);
			ld->errors++;
			return -1;
		}
		ld->data = merge_into(ld->data, v);
		return 0;
	}
	axp_compiler_add_module(ld->c, path, text, len);
	free(text);
	return 0;
}

static int
load_path(struct loader *ld, const char *path, bool top)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "axgate policy: %s: %s\n", path,
		    strerror(errno));
		ld->errors++;
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (top || axg_endswith(path, ".rego") ||
		    axg_endswith(path, ".json"))
			return load_file(ld, path);
		return 0;
	}
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "axgate policy: %s: %s\n", path,
		    strerror(errno));
		ld->errors++;
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char *p;
		if (de->d_name[0] == '.')
			continue;
		p = axg_asprintf("%s/%s", path, de->d_name);
		load_path(ld, p, false);
		free(p);
	}
	closedir(d);
	return 0;
}

static void
print_errors(struct axp_compiler *c)
{
	size_t i;

	for (i = 0; i < axp_compiler_error_count(c); i++) {
		const struct axp_error *e = axp_compiler_error(c, i);
		if (e->line > 0)
			fprintf(stderr, "%s:%d:%d: %s: %s\n", e->file, e->line,
			    e->col, axp_errcode_str(e->code), e->message);
		else
			fprintf(stderr, "%s: %s\n", axp_errcode_str(e->code),
			    e->message);
	}
}

static struct axp_policy *
compile_loaded(struct loader *ld)
{
	struct axp_policy *p;

	if (ld->data != NULL) {
		ld->c->data = ld->data;
		ld->data = NULL;
	}
	if (ld->errors > 0) {
		print_errors(ld->c);
		return NULL;
	}
	p = axp_compiler_compile(ld->c);
	if (p == NULL)
		print_errors(ld->c);
	return p;
}

static int
policy_check(int argc, char **argv)
{
	struct loader ld;
	struct axp_policy *p;
	bool yaml_failed = false;
	int i;

	if (argc < 2) {
		axg_cmd_usage(&axg_cmd_policy);
		return AXG_EXIT_USAGE;
	}
	memset(&ld, 0, sizeof(ld));
	ld.c = axp_compiler_new();
	for (i = 1; i < argc; i++) {
		if (!axg_is_yaml_path(argv[i])) {
			load_path(&ld, argv[i], true);
			continue;
		}
		/* a YAML policy file is checked on its own, with the
		 * built-in rules and the modules it names */
		if (axg_policy_check_yaml(argv[i]) != AXG_EXIT_OK)
			yaml_failed = true;
		else
			ld.nfiles++;
	}
	if (ld.nfiles == 0 && ld.errors == 0 && yaml_failed) {
		axp_compiler_free(ld.c);
		return AXG_EXIT_FAIL;
	}
	p = compile_loaded(&ld);
	axp_compiler_free(ld.c);
	axv_unref(ld.data);
	if (p == NULL)
		return AXG_EXIT_FAIL;
	axp_policy_free(p);
	return yaml_failed ? AXG_EXIT_FAIL : AXG_EXIT_OK;
}

static int
policy_eval(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "policy", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct loader ld;
	struct axp_policy *p = NULL;
	struct axp_query *q = NULL;
	struct axp_error err;
	struct axv *input = NULL, *res = NULL, *ex = NULL, *out = NULL;
	const char *input_path = NULL, *yaml = NULL;
	struct gate *g = NULL;
	bool pretty = false;
	int ch, rc = AXG_EXIT_FAIL;
	size_t i;
	struct axg_buf b;

	memset(&ld, 0, sizeof(ld));
	memset(&err, 0, sizeof(err));
	ld.c = axp_compiler_new();
	optind = 1;
	while ((ch = getopt_long(argc, argv, "d:i:f:p:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			load_path(&ld, optarg, true);
			break;
		case 'i':
			input_path = optarg;
			break;
		case 'p':
			yaml = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "pretty") == 0)
				pretty = true;
			else if (strcmp(optarg, "json") != 0) {
				fprintf(stderr,
				    "axgate policy eval: unknown format %s\n",
				    optarg);
				rc = AXG_EXIT_USAGE;
				goto out;
			}
			break;
		default:
			axg_cmd_usage(&axg_cmd_policy);
			rc = AXG_EXIT_USAGE;
			goto out;
		}
	}
	if (optind != argc - 1) {
		axg_cmd_usage(&axg_cmd_policy);
		rc = AXG_EXIT_USAGE;
		goto out;
	}
	if (input_path != NULL) {
		char msg[512];
		size_t len;
		char *text = axg_read_file(input_path, POLICY_MAX_FILE, &len,
		    msg, sizeof(msg));
		if (text == NULL) {
			fprintf(stderr, "axgate policy eval: %s\n", msg);
			goto out;
		}
		input = axv_from_json(text, len, NULL, msg, sizeof(msg));
		free(text);
		if (input == NULL) {
			fprintf(stderr, "%s: %s\n", input_path, msg);
			goto out;
		}
	}
	if (yaml != NULL && ld.nfiles + ld.errors > 0) {
		fprintf(stderr,
		    "axgate policy eval: -p and -d do not mix: "
		    "name extra modules under rego: in the policy "
		    "file\n");
		rc = AXG_EXIT_USAGE;
		goto out;
	}
	if (yaml != NULL) {
		g = axg_gate_open(yaml, NULL, "axgate policy eval");
		if (g == NULL)
			goto out;
	} else if ((p = compile_loaded(&ld)) == NULL) {
		goto out;
	}
	q = axp_query_prepare(g ? gate_policy(g) : p, argv[optind], &err);
	if (q == NULL) {
		fprintf(stderr, "query:%d:%d: %s: %s\n", err.line, err.col,
		    axp_errcode_str(err.code), err.message);
		goto out;
	}
	if (axp_eval_exprs(q, input, NULL, &res, &ex, &err) < 0) {
		if (err.line > 0)
			fprintf(stderr, "%s:%d:%d: %s: %s\n", err.file,
			    err.line, err.col, axp_errcode_str(err.code),
			    err.message);
		else
			fprintf(stderr, "%s: %s\n", axp_errcode_str(err.code),
			    err.message);
		goto out;
	}
	/* OPA's shape: {"result": [{"expressions": [{"value": V, "text":
	 * Q}], "bindings": {...}}]}; an undefined query prints {} */
	out = axv_object_new(1);
	if (axv_array_len(res) > 0) {
		struct axv *rows = axv_array_new(axv_array_len(res));
		for (i = 0; i < axv_array_len(res); i++) {
			struct axv *row = axv_object_new(2), *exs;
			struct axv *e = axv_array_get(ex, i);
			size_t j;
			exs = axv_array_new(axv_array_len(e));
			for (j = 0; j < axv_array_len(e); j++) {
				struct axv *o = axv_object_new(2);
				axv_object_put(o, axv_cstr("value"),
				    axv_ref(axv_array_get(e, j)));
				axv_object_put(o, axv_cstr("text"),
				    axv_cstr(argv[optind]));
				axv_array_push(exs, o);
			}
			axv_object_put(row, axv_cstr("expressions"), exs);
			if (axv_object_len(axv_array_get(res, i)) > 0)
				axv_object_put(row, axv_cstr("bindings"),
				    axv_ref(axv_array_get(res, i)));
			axv_array_push(rows, row);
		}
		axv_object_put(out, axv_cstr("result"), rows);
	}
	axg_buf_init(&b, 0);
	axv_to_json(out, &b, pretty);
	printf("%s\n", b.data);
	axg_buf_free(&b);
	rc = AXG_EXIT_OK;
out:
	axv_unref(out);
	axv_unref(res);
	axv_unref(ex);
	axv_unref(input);
	axp_error_clear(&err);
	axp_query_free(q);
	axp_policy_free(p);
	gate_unref(g);
	axp_compiler_free(ld.c);
	axv_unref(ld.data);
	return rc;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Run one test rule: 1 passed (defined and true), 0 failed, -1 error
 * (message in err). */
static int
run_test(struct axp_policy *p, const char *name, struct axp_error *err)
{
	struct axp_query *q = axp_query_prepare(p, name, err);
	struct axv *res = NULL, *ex = NULL, *row, *v;
	int rc = -1;

	if (q == NULL)
		return -1;
	if (axp_eval_exprs(q, NULL, NULL, &res, &ex, err) == 0) {
		row = axv_array_len(ex) > 0 ? axv_array_get(ex, 0) : NULL;
		v = row && axv_array_len(row) > 0 ? axv_array_get(row, 0)
						  : NULL;
		rc = v != NULL && axv_kind(v) == AXV_BOOL && axv_bool_get(v);
	}
	axv_unref(res);
	axv_unref(ex);
	axp_query_free(q);
	return rc;
}

/* axgate policy test [-v] FILE_OR_DIR...: evaluate every test_* rule as
 * `opa test` does; print the failures (every test with -v) and the
 * counts; exit 1 if any test failed. */
static int
policy_test(int argc, char **argv)
{
	struct loader ld;
	struct axp_policy *p;
	const char **names = NULL;
	const char *yaml = NULL;
	struct gate *gt = NULL;
	size_t n = 0, i, passed = 0, failed = 0;
	bool verbose = false;
	int ch;

	optind = 1;
	while ((ch = getopt(argc, argv, "vp:h")) != -1) {
		if (ch == 'p') {
			yaml = optarg;
			continue;
		}
		if (ch != 'v') {
			axg_cmd_usage(&axg_cmd_policy);
			return ch == 'h' ? AXG_EXIT_OK : AXG_EXIT_USAGE;
		}
		verbose = true;
	}
	if (optind >= argc) {
		axg_cmd_usage(&axg_cmd_policy);
		return AXG_EXIT_USAGE;
	}
	memset(&ld, 0, sizeof(ld));
	ld.c = axp_compiler_new();
	if (yaml != NULL) {
		/* the tests are compiled with the policy file, its modules
		 * and the built-in rules */
		gt = axg_gate_open_tests(yaml, argv + optind, argc - optind);
		p = gt != NULL ? gate_policy(gt) : NULL;
	} else {
		for (ch = optind; ch < argc; ch++)
			load_path(&ld, argv[ch], true);
		p = compile_loaded(&ld);
	}
	if (p == NULL) {
		axp_compiler_free(ld.c);
		axv_unref(ld.data);
		return AXG_EXIT_FAIL;
	}
	names = axg_calloc(p->ngroups + 1, sizeof(*names));
	for (i = 0; i < p->ngroups; i++) {
		const struct rgroup *g = p->groups[i];
		const char *last = strrchr(g->name, '.');
		if (g->kind != RG_FUNC && last != NULL &&
		    strncmp(last + 1, "test_", 5) == 0)
			names[n++] = g->name;
	}
	qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		struct axp_error err;
		const struct rgroup *g = NULL;
		const struct ast_loc *loc = NULL;
		size_t j;
		int r;
		memset(&err, 0, sizeof(err));
		r = run_test(p, names[i], &err);
		for (j = 0; j < p->ngroups && g == NULL; j++)
			if (p->groups[j]->name == names[i])
				g = p->groups[j];
		if (g != NULL && g->ndefs > 0)
			loc = &g->defs[0]->ast->loc;
		if (r == 1)
			passed++;
		else
			failed++;
		if (r != 1 || verbose)
			printf("%s: %s (%s:%d)%s%s\n", names[i],
			    r == 1	 ? "PASS"
				: r == 0 ? "FAIL"
					 : "ERROR",
			    loc && loc->file ? loc->file : "?",
			    loc ? loc->line : 0, r < 0 ? ": " : "",
			    r < 0 && err.message ? err.message : "");
		axp_error_clear(&err);
	}
	printf("%zu passed, %zu failed\n", passed, failed);
	free(names);
	if (gt != NULL)
		gate_unref(gt);
	else
		axp_policy_free(p);
	axp_compiler_free(ld.c);
	axv_unref(ld.data);
	return failed > 0 ? AXG_EXIT_FAIL : AXG_EXIT_OK;
}

/* Write text to path atomically: a temporary file beside it, then rename. */
static int
write_atomic(const char *path, const char *text, size_t len)
{
	char *tmp = NULL;
	struct stat st;
	FILE *fp = NULL;
	int fd = -1, rc = -1;

	tmp = axg_asprintf("%s.fmt-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (stat(path, &st) == 0)
		(void)fchmod(fd, st.st_mode & 07777);
	fp = fdopen(fd, "w");
	if (fp == NULL)
		goto fail;
	fd = -1;
	if (fwrite(text, 1, len, fp) != len || fflush(fp) != 0 ||
	    fsync(fileno(fp)) != 0)
		goto fail;
	if (fclose(fp) != 0) {
		fp = NULL;
		goto fail;
	}
	fp = NULL;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	fprintf(stderr, "axgate policy fmt: %s: %s\n", path, strerror(errno));
	if (fp != NULL)
		fclose(fp);
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		(void)unlink(tmp);
		free(tmp);
	}
	return rc;
}

/* axgate policy fmt [-w] [-l] [--fail] FILE...: print each module in
 * canonical form; -w rewrites the files that change, -l lists them
 * instead, --fail (and -l) exit 1 when any would change. */
static int
policy_fmt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write", no_argument, NULL, 'w' },
		{ "list", no_argument, NULL, 'l' },
		{ "fail", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool write = false, list = false, fail = false;
	int ch, errors = 0, changed = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "wlh", opts, NULL)) != -1) {
		if (ch == 'w') {
			write = true;
		} else if (ch == 'l') {
			list = true;
			fail = true;
		} else if (ch == 'f') {
			fail = true;
		} else {
			axg_cmd_usage(&axg_cmd_policy);
			return ch == 'h' ? AXG_EXIT_OK : AXG_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		axg_cmd_usage(&axg_cmd_policy);
		return AXG_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		const char *path = argv[i];
		char err[512];
		struct axg_buf out;
		size_t len;
		char *text = axg_read_file(path, POLICY_MAX_FILE, &len, err,
		    sizeof(err));
		bool same;

		if (text == NULL) {
			fprintf(stderr, "axgate policy fmt: %s\n", err);
			errors++;
			continue;
		}
		axg_buf_init(&out, 0);
		if (axp_fmt_module(path, text, len, &out, err, sizeof(err)) <
		    0) {
			fprintf(stderr, "%s\n", err);
			errors++;
			goto next;
		}
		same = out.len == len && memcmp(out.data, text, len) == 0;
		if (!same)
			changed++;
		if (list) {
			if (!same)
				printf("%s\n", path);
		} else if (write) {
			if (!same && write_atomic(path, out.data, out.len) < 0)
				errors++;
		} else {
			fwrite(out.data, 1, out.len, stdout);
		}
	next:
		axg_buf_free(&out);
		free(text);
	}
	if (errors > 0 || (fail && changed > 0))
		return AXG_EXIT_FAIL;
	return AXG_EXIT_OK;
}

/* print() in a policy being evaluated or tested: a line on stderr, as
 * opa eval and opa test write it. */
static void
print_to_stderr(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

static int
cmd_policy(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		axg_cmd_usage(&axg_cmd_policy);
		return argc < 2 ? AXG_EXIT_USAGE : AXG_EXIT_OK;
	}
	axp_set_print_hook(print_to_stderr, NULL);
	if (strcmp(argv[1], "check") == 0)
		return policy_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "eval") == 0)
		return policy_eval(argc - 1, argv + 1);
	if (strcmp(argv[1], "explain") == 0)
		return axg_policy_explain(argc - 1, argv + 1);
	if (strcmp(argv[1], "show-builtin") == 0)
		return axg_policy_show_builtin(argc - 1, argv + 1);
	if (strcmp(argv[1], "test") == 0)
		return policy_test(argc - 1, argv + 1);
	if (strcmp(argv[1], "fmt") == 0)
		return policy_fmt(argc - 1, argv + 1);
	fprintf(stderr, "axgate policy: %s: not available in this version\n",
	    argv[1]);
	return AXG_EXIT_USAGE;
}

const struct axg_cmd axg_cmd_policy = {
	.name = "policy",
	.summary = "check, test, evaluate and format policies",
	.usage = "axgate policy check FILE_OR_DIR|POLICY.yaml...\n"
		 "axgate policy eval [-d FILE_OR_DIR]... [-i INPUT] "
		 "[--format json|pretty] QUERY\n"
		 "axgate policy eval -p POLICY.yaml [-i INPUT] QUERY\n"
		 "axgate policy explain [-p POLICY.yaml] [--job ID] [--input] "
		 "--connect HOST:PORT | --http URL [--method M] | --address "
		 "HOST:PORT=ADDR | --inference ROUTE [--model M]\n"
		 "axgate policy show-builtin\n"
		 "axgate policy test [-v] [-p POLICY.yaml] FILE_OR_DIR...\n"
		 "axgate policy fmt [-w | -l] [--fail] FILE.rego...\n",
	.run = cmd_policy,
};
