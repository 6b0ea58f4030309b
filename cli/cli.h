/*
 * cli/cli.h - exit status bits, the scan's options and report, and cli_err: what every
 * subcommand shares. It also declares `mediascan scan` (scan_cmd.c, scan_run.c), its report
 * (report.c) and progress bar (progress.c), which leave cli/ together as the pass module;
 * every other cli/ file has its own header.
 */
#ifndef MEDIASCAN_CLI_H
#define MEDIASCAN_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "damage.h"
#include "pass.h"
#include "scan.h"
#include "target.h"

/* Exit status, a bitmask as in xfs_scrub (the pass's bits, pass/pass.h). */
enum cli_exit {
	CLI_EXIT_CLEAN = PASS_EXIT_CLEAN,
	CLI_EXIT_MEDIA = PASS_EXIT_MEDIA,		/* media errors: data or metadata damaged */
	CLI_EXIT_INTEGRITY = PASS_EXIT_INTEGRITY,	/* protection information mismatches */
	CLI_EXIT_OPERATIONAL = PASS_EXIT_OPERATIONAL,	/* the scan could not do all it should */
	CLI_EXIT_USAGE = PASS_EXIT_USAGE,		/* bad command line */
	CLI_EXIT_DEVICE = PASS_EXIT_DEVICE,		/* the disk is failing or slow */
};

#define CLI_DEFAULT_STATE_DIR "/var/lib/mediascan"
#define CLI_SCAN_DEFAULT_DEPTH PASS_DEFAULT_DEPTH
/* Failed or late reads in a row on one device before the disk is called failing. */
#define CLI_DEFAULT_MAX_FAILED_READS PASS_DEFAULT_MAX_FAILED_READS

/* One scan of one target: the options of `mediascan scan`, also built by `mediascan patrol`. */
struct cli_scan_cfg {
	const char *target;
	const char *json;
	const char *html;		/* --html FILE|-: the HTML report (cli/html.c) */
	const char *engine;
	const char *method;
	const char *progress;
	const char *state_dir;
	const char *ioprio;
	uint64_t io_size;
	uint64_t depth;
	uint64_t merge_gap;
	uint64_t rate, rate_min, rate_max;	/* bytes/s */
	double window_s, max_duration_s, io_timeout_s;
	unsigned max_failed_reads;	/* with max_failed_reads_set; else the default */
	int max_failed_reads_set;
	int no_backoff;
	const char *pacing;		/* --pacing latency|backoff|off; NULL: the default */
	unsigned lat_target_pct;	/* --latency-target as percent of alone; 0: default */
	int resume;
	int recheck;			/* re-read only the open errors of the history */
	int no_state;
	int quiet;
	/* For patrol and scripts: the output hooks (cli/scan_hooks.c). */
	const char *format;		/* human output: NULL or "human", or "xfs_scrub" */
	const char *label;		/* patrol target name for events; NULL: the target */
	const char *on_damage;		/* shell command given the JSON of new damage on stdin */
	double hook_timeout_s;		/* on_damage is killed after this; 0: the default */
	int journal;			/* journal events for new damage and the pass end */
	int window_from_start;		/* a resumed pass keeps the end of its window */
};

/* Return the exit status of `mediascan scan ARGS`. */
int cli_scan_main(int argc, char **argv);
/* Return the exit status (enum cli_exit bits) of one pass as cfg describes it (scan_hooks.c). */
int cli_scan_run(const struct cli_scan_cfg *cfg);
/* Return 0 after parsing "50M" or "50M/s" into bytes per second (> 0), or -EINVAL. */
int cli_parse_rate(const char *s, uint64_t *bps);
/* Print a one-line error "mediascan: ..." to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct json_object;

/* Return 0 after writing the JSON report (schema mediascan-report/1) to path ("-": stdout). */
int cli_report_write_json(const struct pass_report *rep, const char *path);
/* Return the rate of the summary: planned bytes checked per second in this run. */
double cli_report_rate(const struct pass_report *rep);
/* Print the human summary of the report. */
void cli_report_print(const struct pass_report *rep, FILE *f);
/* Return a new json-c object of error i of the report, as in media_errors[] (json-c type). */
struct json_object *cli_report_error_json(const struct pass_report *rep, size_t i);
/* Return 0 after writing the HTML report of one pass to path ("-": stdout), or -errno after
 * printing why (one line; cli/html.c). */
int cli_html_write(const struct pass_report *rep, const char *path);

/* Progress display on stderr: a one-line bar on a terminal. */
struct cli_progress {
	int enabled;			/* 1 bar on a terminal, 2 one log line a second */
	int drawn;
	double last_log_s;		/* elapsed_s of the last log line */
};
/* scan_opts.progress callback: arg is a struct cli_progress. */
void cli_progress_cb(const struct scan_progress *p, void *arg);
/* Clear the bar line when one was drawn. */
void cli_progress_done(struct cli_progress *pr);


#endif
