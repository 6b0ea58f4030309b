/*
 * cli/status_cmd.c - `mediascan status [--json]`: per target in the state store, the pass in
 * progress (progress, rate, ETA), the last complete pass and the open errors.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "exits.h"
#include "escape.h"
#include "files.h"
#include "config_file.h"
#include "opts.h"
#include "status_cmd.h"
#include "units.h"

int cli_history_open(const char *state_dir, const char *config, struct scan_state **st)
{
	struct patrol_config *cfg = NULL;
	char err[2048], warn[512] = "", dir[PATH_MAX];
	int ret;

	snprintf(dir, sizeof(dir), "%s", state_dir ? state_dir : REPORT_DEFAULT_STATE_DIR);
	if (!state_dir && (config || access(PATROL_DEFAULT_CONFIG, R_OK) == 0)) {
		cfg = malloc(sizeof(*cfg));
		if (!cfg)
			return -ENOMEM;
		ret = patrol_config_load(config ? config : PATROL_DEFAULT_CONFIG, cfg, err,
					 sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "mediascan: %s\n", err);
			free(cfg);
			return ret;
		}
		snprintf(dir, sizeof(dir), "%s", cfg->state_dir);
		free(cfg);
	}
	if (access(dir, F_OK) != 0)
		return -ENOENT;		/* no history yet: the callers say so, exit 0 */
	ret = pass_check_state_dir(dir, err, sizeof(err));
	if (ret < 0) {
		report_err("%s", err);
		return ret;
	}
	ret = scan_state_open(dir, st, warn, sizeof(warn));
	if (warn[0])
		report_err("warning: %s", warn);
	if (ret < 0)
		report_err("cannot open the state store in %s: %s", dir, strerror(-ret));
	return ret;
}

struct status_ctx {
	struct scan_state *st;
	int json;
	const char *json_path;		/* --json FILE|- */
	json_object *arr;
	time_t now;
};

static json_object *json_pass(const struct scan_state_pass *p, time_t now)
{
	json_object *j = json_object_new_object();
	double rate, eta;

	report_pass_rate(p, now, &rate, &eta);
	json_object_object_add(j, "id", json_object_new_int64(p->id));
	json_object_object_add(j, "number", json_object_new_int64(p->number));
	json_object_object_add(j, "result", json_object_new_string(
		scan_pass_result_name(p->result)));
	json_object_object_add(j, "started", json_object_new_int64(p->started));
	json_object_object_add(j, "ended", p->ended ? json_object_new_int64(p->ended) : NULL);
	json_object_object_add(j, "planned_bytes", json_object_new_uint64(p->planned_bytes));
	json_object_object_add(j, "scanned_bytes", json_object_new_uint64(p->scanned_bytes));
	json_object_object_add(j, "progress", json_object_new_double(p->planned_bytes ?
		(double)p->scanned_bytes / (double)p->planned_bytes : 0));
	json_object_object_add(j, "bytes_per_s", json_object_new_double(rate));
	json_object_object_add(j, "eta_s", eta >= 0 ? json_object_new_double(eta) : NULL);
	json_object_object_add(j, "method", json_object_new_string(p->method));
	/* A running pass's pace against its window (null: no window, not known yet). */
	if (p->result == SCAN_PASS_RUNNING) {
		json_object_object_add(j, "window_end", p->window_end ?
				       json_object_new_int64(p->window_end) : NULL);
		json_object_object_add(j, "projected_end", p->projected_end ?
				       json_object_new_int64(p->projected_end) : NULL);
		json_object_object_add(j, "window_late",
				       json_object_new_boolean(p->window_late_since != 0));
		json_object_object_add(j, "window_late_since", p->window_late_since ?
				       json_object_new_int64(p->window_late_since) : NULL);
	}
	return j;
}

/* A running pass's pace against its window, in words: a pass that will miss it says so. */
static void status_pace(const struct scan_state_pass *p)
{
	char a[64], b[64], c[64];

	if (!p->window_end && !p->projected_end)
		return;
	printf("  ");
	if (p->window_end)
		printf("window ends %s, ", report_fmt_time(p->window_end, a, sizeof(a)));
	if (p->projected_end)
		printf("projected end %s", report_fmt_time(p->projected_end, b, sizeof(b)));
	else
		printf("projected end not known yet");
	if (p->window_late_since)
		printf(": WILL MISS THE WINDOW (the disk's spare capacity is too little; said "
		       "since %s)", report_fmt_time(p->window_late_since, c, sizeof(c)));
	else if (p->window_end)
		printf(": in time");
	printf("\n");
}

/* The arrays with copies that differ, each with its open runs and md's own mismatch_cnt. */
struct cd_arrays {
	char path[8][72];
	unsigned runs[8];
	unsigned n;
};

static int cd_array(const struct scan_state_cd_row *e, void *arg)
{
	struct cd_arrays *a = arg;
	const char *p = e->cd.array_path ? e->cd.array_path : "?";
	unsigned i;

	for (i = 0; i < a->n && strcmp(a->path[i], p); i++)
		;
	if (i == a->n) {
		if (a->n == 8)
			return 0;
		snprintf(a->path[a->n++], sizeof(a->path[0]), "%s", p);
	}
	a->runs[i]++;
	return 0;
}

/* md's mismatch_cnt of array path (/dev/mdN), or -1 when it has none (dm-raid, gone). */
static int64_t md_mismatch_cnt(const char *path)
{
	char f[128];
	uint64_t v;

	if (strncmp(path, "/dev/md", 7))
		return -1;
	snprintf(f, sizeof(f), "/sys/block/%s/md/mismatch_cnt", path + 5);
	return kio_sysfs_u64(f, &v) == 0 ? (int64_t)v : -1;
}

static void status_cd(const struct status_ctx *s, const struct scan_state_target *t,
		      json_object *j)
{
	struct cd_arrays a = { .n = 0 };
	json_object *arr = j ? json_object_new_array() : NULL;

	if (t->open_copies_differ && s->st)
		scan_state_list_cd(s->st, t->id, 0, cd_array, &a);
	for (unsigned i = 0; i < a.n; i++) {
		int64_t m = md_mismatch_cnt(a.path[i]);

		if (j) {
			json_object *e = json_object_new_object();

			json_object_object_add(e, "array", json_object_new_string(a.path[i]));
			json_object_object_add(e, "open_runs", json_object_new_int((int)a.runs[i]));
			json_object_object_add(e, "md_mismatch_cnt", m < 0 ? NULL :
					       json_object_new_int64(m));
			json_object_array_add(arr, e);
		} else {
			printf("  copies differ: %u run%s in %s", a.runs[i], a.runs[i] == 1 ? "" : "s",
			       a.path[i]);
			if (m >= 0)
				printf(" (md's mismatch_cnt: %lld)", (long long)m);
			printf(": `mediascan report` names the files and the wrong copy\n");
		}
	}
	if (j) {
		json_object_object_add(j, "open_copies_differ",
				       json_object_new_int((int)t->open_copies_differ));
		json_object_object_add(j, "copies_differ_arrays", arr);
	}
}

static int status_row(const struct scan_state_target *t, void *arg)
{
	struct status_ctx *s = arg;
	char a[32], b[32], c[32], d[64];
	double rate, eta;

	if (s->json) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "path", json_object_new_string(t->path));
		json_object_object_add(j, "fs_type", json_object_new_string(t->fs_type));
		json_object_object_add(j, "key", json_object_new_string(t->key));
		json_object_object_add(j, "latest_pass", t->has_latest ?
				       json_pass(&t->latest, s->now) : NULL);
		json_object_object_add(j, "last_complete_pass", t->has_complete ?
				       json_pass(&t->last_complete, s->now) : NULL);
		json_object_object_add(j, "open_errors", json_object_new_int((int)t->open_errors));
		json_object_object_add(j, "cleared_errors",
				       json_object_new_int((int)t->cleared_errors));
		json_object_object_add(j, "open_redundancy_lost",
				       json_object_new_int((int)t->open_redundancy_lost));
		status_cd(s, t, j);
		json_object_array_add(s->arr, j);
		return 0;
	}
	/* the store's text is untrusted like any file: escaped as everywhere else */
	char pe[PATH_MAX * 4], fe[256];

	printf("%s (%s)\n", report_escape(t->path ? t->path : "", pe, sizeof(pe)),
	       report_escape(t->fs_type ? t->fs_type : "", fe, sizeof(fe)));
	if (t->has_latest) {
		const struct scan_state_pass *p = &t->latest;

		report_pass_rate(p, s->now, &rate, &eta);
		printf("  pass %lld %s: %s of %s (%.1f%%), %s/s", (long long)p->number,
		       scan_pass_result_name(p->result), report_fmt_bytes(p->scanned_bytes, a, sizeof(a)),
		       report_fmt_bytes(p->planned_bytes, b, sizeof(b)), p->planned_bytes ?
		       100.0 * (double)p->scanned_bytes / (double)p->planned_bytes : 0.0,
		       report_fmt_bytes((uint64_t)rate, c, sizeof(c)));
		if (eta >= 0)
			printf(", ETA %s", report_fmt_duration(eta, d, sizeof(d)));
		printf(", started %s\n", report_fmt_time(p->started, d, sizeof(d)));
		if (p->result == SCAN_PASS_RUNNING)
			status_pace(p);
	}
	printf("  last complete pass: %s\n", t->has_complete ?
	       report_fmt_time(t->last_complete.ended, d, sizeof(d)) : "none yet");
	printf("  open errors: %u, cleared: %u\n", t->open_errors, t->cleared_errors);
	if (t->open_redundancy_lost)
		printf("  redundancy lost: %u member range%s (a copy failed, another reads: "
		       "`mediascan report` names the member disk, array and repair)\n",
		       t->open_redundancy_lost, t->open_redundancy_lost == 1 ? "" : "s");
	status_cd(s, t, NULL);
	return 0;
}

/*
 * The patrol config's targets that cannot be opened now (nothing mounted there, a device
 * gone): patrol retries them while it scans the others. Printed, or returned as a JSON array.
 * (A space map the kernel refuses shows in the patrol log, the journal and the metrics: status
 * does not plan every target.)
 */
static json_object *unopenable_targets(const char *config, const struct status_ctx *s)
{
	struct patrol_config *cfg;
	json_object *a = json_object_new_array();
	char err[2048];

	/* Opening devices needs root: a user's status cannot tell, so it does not guess. */
	if (geteuid() != 0 || (!config && access(PATROL_DEFAULT_CONFIG, R_OK) != 0))
		return a;
	cfg = malloc(sizeof(*cfg));
	if (!cfg || patrol_config_load(config ? config : PATROL_DEFAULT_CONFIG, cfg, err,
				    sizeof(err)) < 0) {
		free(cfg);
		return a;
	}
	for (unsigned i = 0; i < cfg->nr_targets; i++) {
		struct map_target t;
		char terr[1024];
		int cls;

		if (map_target_open(cfg->targets[i].path, &t, terr, sizeof(terr), &cls) == 0) {
			map_target_close(&t);
			continue;
		}
		if (s->json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "target",
					       json_object_new_string(cfg->targets[i].name));
			json_object_object_add(o, "path", json_object_new_string(cfg->targets[i].path));
			json_object_object_add(o, "why", json_object_new_string(terr));
			json_object_array_add(a, o);
		} else {
			printf("%s (%s): cannot be scanned now: %s (patrol retries it)\n",
			       cfg->targets[i].name, cfg->targets[i].path, terr);
		}
	}
	free(cfg);
	return a;
}

/* What the command line of `mediascan status` asked. */
struct status_args {
	const char *json, *state_dir, *config;
};

#define F(field) offsetof(struct status_args, field)

static const struct cli_opt status_opts[] = {
	CLI_OPT_JSON(F(json), "write the answer as JSON (schema mediascan-status/1)"),
	CLI_OPT_STATE_DIR(F(state_dir)),
	CLI_OPT_CONFIG(F(config)),
};

const struct cli_opts cli_status_opts = {
	.cmd = "status",
	.opts = status_opts,
	.nr = sizeof(status_opts) / sizeof(status_opts[0]),
	.synopsis = "usage: mediascan status [--json FILE|-] [--state-dir DIR] [--config FILE]\n"
		    "  per target: pass progress, rate, ETA, last complete pass, open errors\n"
		    "options:\n",
};

int cli_status_main(int argc, char **argv)
{
	struct status_ctx s = { .now = time(NULL) };
	json_object *unavailable = NULL;
	struct status_args sa = { 0 };
	const char *state_dir, *config;
	struct scan_state *st;
	int ret;

	ret = cli_opts_parse(&cli_status_opts, argc, argv, &sa);
	if (ret)
		return ret == 1 ? 0 : ret;
	s.json = sa.json != NULL;
	s.json_path = sa.json;
	state_dir = sa.state_dir;
	config = sa.config;
	if (optind != argc) {
		report_err("status: unexpected argument '%s'", argv[optind]);
		return REPORT_EXIT_USAGE;
	}
	ret = report_out_refuse("status", "--json", s.json_path);
	if (ret)
		return ret;
	ret = cli_history_open(state_dir, config, &st);
	if (ret < 0 && ret != -ENOENT)
		return ret == -EINVAL ? REPORT_EXIT_USAGE : REPORT_EXIT_OPERATIONAL;
	s.arr = json_object_new_array();
	if (ret == -ENOENT) {
		ret = 0;	/* no state store: no history yet, an answer, not an error */
	} else {
		s.st = st;
		ret = scan_state_list_targets(st, status_row, &s);
		s.st = NULL;
		scan_state_close(st);
	}
	if (ret >= 0)
		unavailable = unopenable_targets(config, &s);
	if (ret < 0) {
		json_object_put(s.arr);
		report_err("status: reading the state store failed: %s", strerror(-ret));
		return REPORT_EXIT_OPERATIONAL;
	}
	if (s.json) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "schema", json_object_new_string("mediascan-status/1"));
		json_object_object_add(doc, "targets", s.arr);
		json_object_object_add(doc, "unavailable", unavailable);
		unavailable = NULL;
		ret = report_json_write(doc, s.json_path);
		json_object_put(doc);
		if (ret < 0) {
			report_err("status: cannot write %s: %s", s.json_path,
				   report_create_error(ret));
			return REPORT_EXIT_OPERATIONAL;
		}
	} else {
		json_object_put(s.arr);
		if (!ret)
			printf("no history yet: no target scanned\n");
	}
	json_object_put(unavailable);
	return 0;
}
