/*
 * patrol/metrics.c - the Prometheus node_exporter textfile of patrol: per target progress, rate,
 * open and cleared errors, damaged files and the last complete pass, from the state store;
 * written to a temporary file and renamed over the old one, so a scrape never sees half.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "report.h"
#include "files.h"
#include "metrics.h"
#include "owners_json.h"

#define METRICS_MAX_FILES 4096

struct files_ctx {
	uint64_t inodes[METRICS_MAX_FILES];
	unsigned nr;
};

static int count_files(const struct scan_state_error_row *e, void *arg)
{
	struct files_ctx *f = arg;
	uint64_t ino[256];
	unsigned n = report_owners_json_files(e->owners_json, ino, 256);

	for (unsigned i = 0; i < n; i++) {
		unsigned k;

		for (k = 0; k < f->nr; k++)
			if (f->inodes[k] == ino[i])
				break;
		if (k == f->nr && f->nr < METRICS_MAX_FILES)
			f->inodes[f->nr++] = ino[i];
	}
	return 0;
}

struct metrics_ctx {
	struct scan_state *st;
	const struct patrol_metrics_target *targets;
	unsigned nr;
	FILE *f;
	int pass;			/* which metric this walk prints */
	time_t now;
};

/* Label values: escape backslash, quote and newline as the text format wants. */
static void put_label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*v, f);
	}
}

static const struct {
	const char *name, *help;
} metrics[] = {
	{ "mediascan_pass_planned_bytes", "Bytes the current (or last) pass reads." },
	{ "mediascan_pass_scanned_bytes", "Bytes the current (or last) pass has read." },
	{ "mediascan_pass_progress_ratio", "Part of the current (or last) pass done, 0 to 1." },
	{ "mediascan_pass_running", "1 while a scan of the target runs." },
	{ "mediascan_scan_rate_bytes_per_second",
	  "Read rate of the running pass (as status shows it; 0 when none runs)." },
	{ "mediascan_errors_open", "Damaged device ranges not read cleanly since." },
	{ "mediascan_errors_cleared", "Damaged ranges a later complete pass read cleanly." },
	{ "mediascan_damaged_files", "Files with data in open damaged ranges." },
	{ "mediascan_last_complete_pass_timestamp_seconds",
	  "End of the last complete pass, unix time (0: none yet)." },
	{ "mediascan_last_complete_pass_duration_seconds", "Duration of the last complete pass." },
	{ "mediascan_slow_ranges_open",
	  "Ranges that answered slower than the I/O timeout, not read cleanly since." },
	{ "mediascan_device_faults_open",
	  "Ranges with device faults (timeouts, transport, target, device gone) not read "
	  "cleanly since." },
	{ "mediascan_transient_errors_last_pass",
	  "Ranges that failed once, then read cleanly, in the last complete pass or the one "
	  "running since." },
	{ "mediascan_redundancy_lost_ranges",
	  "Member ranges of an array (md, LVM RAID) that failed while another copy read "
	  "fine, not read cleanly since: nothing lost yet, the next failure loses it." },
	{ "mediascan_scan_window_end_seconds",
	  "When the running pass's window ends, unix seconds (0: no window, no scan running)." },
	{ "mediascan_scan_projected_end_seconds",
	  "When the running pass is projected to end at the rate the disk's spare capacity "
	  "gives it, unix seconds (0: not known yet, no scan running)." },
	{ "mediascan_scan_window_late",
	  "1 while the running pass is projected to miss its window (said early, kept while "
	  "true)." },
	{ "mediascan_copies_differ_ranges",
	  "Runs of an array (md, LVM RAID) whose copies or parity disagree with no read "
	  "failing (silent corruption), not found agreeing since." },
};

static int metric_row(const struct scan_state_target *t, void *arg)
{
	struct metrics_ctx *m = arg;
	const struct patrol_metrics_target *mt = NULL;
	const char *devs;
	double v = 0;

	for (unsigned i = 0; i < m->nr; i++)
		if (strcmp(m->targets[i].key, t->key) == 0)
			mt = &m->targets[i];
	if (!mt)
		return 0;
	devs = mt->devices ? mt->devices : "";
	switch (m->pass) {
	case 0:
		v = t->has_latest ? (double)t->latest.planned_bytes : 0;
		break;
	case 1:
		v = t->has_latest ? (double)t->latest.scanned_bytes : 0;
		break;
	case 2:
		v = t->has_latest && t->latest.planned_bytes ?
		    (double)t->latest.scanned_bytes / (double)t->latest.planned_bytes : 0;
		if (v > 1)
			v = 1;
		break;
	case 3:
		v = mt->running;
		break;
	case 4: {
		double eta;

		/* What status says: the pass's rate so far (0 when no scan runs). */
		if (mt->running && t->has_latest)
			report_pass_rate(&t->latest, m->now, &v, &eta);
		break;
	}
	case 5:
		v = t->open_errors;
		break;
	case 6:
		v = t->cleared_errors;
		break;
	case 7: {
		struct files_ctx *fc = calloc(1, sizeof(*fc));

		if (!fc)
			return -ENOMEM;
		scan_state_list_errors(m->st, t->id, 0, 0, count_files, fc);
		v = fc->nr;
		free(fc);
		break;
	}
	case 8:
		v = t->has_complete ? (double)t->last_complete.ended : 0;
		break;
	case 9:
		v = t->has_complete ? (double)(t->last_complete.ended - t->last_complete.started) : 0;
		break;
	case 10:
		v = t->open_slow;
		break;
	case 11:
		v = t->open_device_faults;
		break;
	case 12:
		v = t->transient_latest;
		break;
	case 13:
		v = t->open_redundancy_lost;
		break;
	case 17:
		v = t->open_copies_differ;
		break;
	case 14:
	case 15:
	case 16:
		/* What status says of the running pass's pace against its window. */
		if (mt->running && t->has_latest && t->latest.result == SCAN_PASS_RUNNING)
			v = m->pass == 14 ? (double)t->latest.window_end :
			    m->pass == 15 ? (double)t->latest.projected_end :
			    t->latest.window_late_since != 0;
		break;
	}
	fprintf(m->f, "%s{target=\"", metrics[m->pass].name);
	put_label(m->f, mt->name);
	fputs("\",path=\"", m->f);
	put_label(m->f, t->path);
	fputs("\",device=\"", m->f);
	put_label(m->f, devs);
	fprintf(m->f, "\"} %.17g\n", v);
	return 0;
}

/*
 * Each device and drive-side method the history has a verdict on: 1 where the method was
 * found not to read the medium (its proof failed, or a sampled read voided it), else 0.
 */
static int trust_metrics(FILE *f, struct scan_state *st)
{
	struct scan_state_trust t[64];
	int n = scan_state_trust_list(st, t, sizeof(t) / sizeof(t[0]));

	if (n < 0)
		return n;
	fputs("# HELP mediascan_method_untrusted 1 when a drive-side verify was found not to read "
	      "the device's medium (proof failed, or a sampled read voided it).\n"
	      "# TYPE mediascan_method_untrusted gauge\n", f);
	for (int i = 0; i < n; i++) {
		fputs("mediascan_method_untrusted{identity=\"", f);
		put_label(f, t[i].ident);
		fputs("\",device=\"", f);
		put_label(f, t[i].device_path);
		fputs("\",method=\"", f);
		put_label(f, t[i].method);
		fprintf(f, "\"} %d\n", strcmp(t[i].state, "failed") == 0 ||
			strcmp(t[i].state, "voided") == 0);
	}
	return 0;
}

int patrol_metrics_write(struct scan_state *st, const struct patrol_metrics_target *targets,
		      unsigned nr, const char *path)
{
	struct metrics_ctx m = { .st = st, .targets = targets, .nr = nr, .now = time(NULL) };
	struct report_out o;
	int ret;

	/* A new temp file beside path (O_EXCL|O_NOFOLLOW), readable by the exporter, renamed
	 * over path: a symlink, another user's file or a FIFO at path is refused. */
	ret = report_out_open(path, 0644, &o);
	if (ret < 0)
		return ret;
	m.f = o.f;
	for (m.pass = 0; m.pass < (int)(sizeof(metrics) / sizeof(metrics[0])); m.pass++) {
		fprintf(m.f, "# HELP %s %s\n# TYPE %s gauge\n", metrics[m.pass].name,
			metrics[m.pass].help, metrics[m.pass].name);
		ret = scan_state_list_targets(st, metric_row, &m);
		if (ret < 0)
			break;
	}
	if (ret >= 0) {
		/* From the config, not the history: a target that never opened has none. */
		fputs("# HELP mediascan_target_available 1 when patrol can open and plan the target "
		      "(else it is retried).\n# TYPE mediascan_target_available gauge\n", m.f);
		for (unsigned i = 0; i < nr; i++) {
			fputs("mediascan_target_available{target=\"", m.f);
			put_label(m.f, targets[i].name);
			fprintf(m.f, "\"} %d\n", targets[i].available ? 1 : 0);
		}
		ret = trust_metrics(m.f, st);
	}
	return report_out_close(&o, ret < 0 ? ret : 0);
}
