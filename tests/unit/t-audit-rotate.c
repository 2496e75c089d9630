/*
 * Log rotation under load: producers write events while the file is
 * renamed and the writer reopened (as logrotate and a SIGHUP do); every
 * event must be in exactly one of the files, every line whole.
 */
#include "config.h"

#include <jansson.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "tests/tap.h"

#define PRODUCERS 2
#define PER	  15000
#define ROTATIONS 5

static struct ocsf_writer *w;
static atomic_int queued_ok;
/* The producers emit in ROTATIONS + 1 rounds and wait for each rotation
 * between rounds, so every file gets lines however fast the writer is;
 * the rename still races the writer draining the round before it. */
static atomic_int round_now;  /* the round producers may emit in */
static atomic_int round_done; /* producer rounds finished */

static void *
producer(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct ocsf_net_event ev;
	char conn[32];

	memset(&ev, 0, sizeof(ev));
	ev.activity = OCSF_NET_OPEN;
	ev.correlation_uid = "j-rot";
	ev.src.ip = "10.77.0.2";
	ev.src.uid = "j-rot";
	ev.dst.hostname = "api.github.com";
	ev.dst.port = 443;
	ev.rule = "github";
	ev.reason = "allowed host";
	ev.connection_uid = conn;
	for (int i = 0; i < PER; i++) {
		int round = i / (PER / (ROTATIONS + 1));

		if (round > ROTATIONS)
			round = ROTATIONS;
		if (i > 0 && round != (i - 1) / (PER / (ROTATIONS + 1))) {
			atomic_fetch_add(&round_done, 1);
			while (atomic_load(&round_now) < round)
				usleep(1000);
		}
		snprintf(conn, sizeof(conn), "p%d-%d", id, i);
		if (ocsf_emit_net(w, &ev) == OCSF_QUEUED)
			atomic_fetch_add(&queued_ok, 1);
	}
	return NULL;
}

/* Count the lines of a file; mark each connection uid in seen[]. */
static int
scan(const char *path, unsigned char *seen, int *torn, int *dups)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lines = 0;

	if (fp == NULL)
		return 0;
	while ((n = getline(&line, &cap, fp)) > 0) {
		json_error_t jerr;
		json_t *j = json_loadb(line, (size_t)n, 0, &jerr);
		const char *uid = json_string_value(
		    json_object_get(json_object_get(j, "connection_info"),
			"uid"));
		int p, i;

		lines++;
		if (j == NULL || line[n - 1] != '\n' || uid == NULL ||
		    sscanf(uid, "p%d-%d", &p, &i) != 2 || p < 0 ||
		    p >= PRODUCERS || i < 0 || i >= PER) {
			(*torn)++;
		} else if (seen[p * PER + i]++) {
			(*dups)++;
		}
		json_decref(j);
	}
	free(line);
	fclose(fp);
	return lines;
}

int
main(void)
{
	char dir[] = "/tmp/t-audit-rotate.XXXXXX";
	char path[256], rot[300], spec[300], err[256];
	struct ocsf_config c;
	struct ocsf_stats st;
	pthread_t th[PRODUCERS];
	unsigned char *seen = axg_calloc(PRODUCERS * PER, 1);
	int total = 0, torn = 0, dups = 0, missing = 0, nonempty = 0;

	if (mkdtemp(dir) == NULL)
		tap_skip_all("cannot create a temporary directory");
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	snprintf(spec, sizeof(spec), "file:%s", path);
	ocsf_config_init(&c);
	c.queue_size = 4096;
	ok(ocsf_config_add_sink(&c, spec, err, sizeof(err)) == 0, "file sink");
	w = ocsf_writer_new(&c, NULL, err, sizeof(err));
	ok(w != NULL, "writer starts");
	if (w == NULL)
		return tap_done();
	for (int i = 0; i < PRODUCERS; i++)
		pthread_create(&th[i], NULL, producer, (void *)(intptr_t)i);

	for (int r = 1; r <= ROTATIONS; r++) {
		uint64_t before;

		/* the round before this rotation has been emitted */
		for (int t = 0;
		     t < 30000 && atomic_load(&round_done) < PRODUCERS * r; t++)
			usleep(1000);
		snprintf(rot, sizeof(rot), "%s.%d", path, r);
		if (rename(path, rot) != 0)
			tap_diag("rename %s: %s", path, strerror(errno));
		ocsf_writer_stats(w, &st);
		before = st.reopens;
		ocsf_writer_reopen(w);
		for (int t = 0; t < 1000 && st.reopens == before; t++) {
			usleep(5000);
			ocsf_writer_stats(w, &st);
		}
		atomic_store(&round_now, r);
	}
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(th[i], NULL);
	ok(ocsf_writer_flush(w, 30000) == 0, "everything written");
	ocsf_writer_stats(w, &st);
	is_int(st.reopens, ROTATIONS, "%d reopens carried out", ROTATIONS);
	is_int(st.dropped + st.lost + st.sink_errors, 0,
	    "nothing dropped, lost or failed");
	ocsf_writer_free(w);
	is_int(atomic_load(&queued_ok), PRODUCERS * PER, "every emit queued");

	for (int r = 0; r <= ROTATIONS; r++) {
		int n;

		if (r == 0)
			snprintf(rot, sizeof(rot), "%s", path);
		else
			snprintf(rot, sizeof(rot), "%s.%d", path, r);
		n = scan(rot, seen, &torn, &dups);
		nonempty += n > 0;
		total += n;
		unlink(rot);
	}
	rmdir(dir);
	for (int i = 0; i < PRODUCERS * PER; i++)
		missing += seen[i] == 0;
	is_int(total, PRODUCERS * PER, "%d lines across the %d files",
	    PRODUCERS * PER, ROTATIONS + 1);
	is_int(torn, 0, "no torn or foreign line");
	is_int(dups, 0, "no event twice");
	is_int(missing, 0, "no event missing");
	ok(nonempty >= 3, "the events are spread over the files (%d of %d)",
	    nonempty, ROTATIONS + 1);
	free(seen);
	return tap_done();
}
