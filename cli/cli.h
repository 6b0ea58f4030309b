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
#include "scan.h"
#include "target.h"

/* Exit status, a bitmask as in xfs_scrub. */
enum cli_exit {
	CLI_EXIT_CLEAN = 0,
	CLI_EXIT_MEDIA = 1,		/* media errors: data or metadata damaged */
	CLI_EXIT_INTEGRITY = 2,		/* protection information mismatches */
	CLI_EXIT_OPERATIONAL = 4,	/* the scan could not do all it should */
	CLI_EXIT_USAGE = 8,		/* bad command line */
	CLI_EXIT_DEVICE = 16,		/* the disk is failing or slow: device faults, slow
					 * sectors, or the scan stopped to spare the disk */
};

/* Everything a report is made of. */
struct cli_report {
	struct map_target *t;
	const char *method;
	struct scan_result *r;
	struct map_damage dmg;		/* owners of damage: what to restore */
	struct map_damage risk;		/* owners of slow and device-fault ranges: at risk */
	size_t *own_first;		/* per scan error: its owners in dmg.owners (damage) or */
	size_t *own_count;		/* risk.owners (slow, device fault) */
	int resumed;			/* the pass continued an interrupted one */
	uint64_t base_bytes;		/* of r->scanned_bytes, read before a resume */
	unsigned exit_bits;
	unsigned nr_damage_errors;	/* media/PI errors: the blocks fail every read */
	unsigned nr_gap_errors;
	unsigned nr_transient_errors;	/* failed once, read fine when retried */
	unsigned nr_slow_errors;	/* answered slower than the I/O timeout */
	unsigned nr_device_faults;	/* timeouts, transport, target, device gone */
	unsigned nr_op_errors;
};

#define CLI_DEFAULT_STATE_DIR "/var/lib/mediascan"
#define CLI_SCAN_DEFAULT_DEPTH 16
/* Failed or late reads in a row on one device before the disk is called failing. */
#define CLI_DEFAULT_MAX_FAILED_READS 4096

/* One scan of one target: the options of `mediascan scan`, also built by `mediascan patrol`. */
struct cli_scan_cfg {
	const char *target;
	const char *json;
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
	int resume;
	int recheck;			/* re-read only the open errors of the history */
	int no_state;
	int quiet;
	/* For patrol and scripts (cli/scan_hooks.c). */
	const char *format;		/* human output: NULL or "human", or "xfs_scrub" */
	const char *label;		/* patrol target name for events; NULL: the target */
	const char *on_damage;		/* shell command given the JSON of new damage on stdin */
	double hook_timeout_s;		/* on_damage is killed after this; 0: the default */
	int journal;			/* journal events for new damage and the pass end */
	int window_from_start;		/* a resumed pass keeps the end of its window */
};

/* Return the exit status of `mediascan scan ARGS`. */
int cli_scan_main(int argc, char **argv);
/* Return the exit status (enum cli_exit bits) of one scan as cfg describes it. */
int cli_scan_run(const struct cli_scan_cfg *cfg);
/* Write the state store's key of target t (filesystem type:UUID:devices) into key. */
void cli_scan_target_key(const struct map_target *t, char *key, size_t len);
/* Return 0 after parsing "50M" or "50M/s" into bytes per second (> 0), or -EINVAL. */
int cli_parse_rate(const char *s, uint64_t *bps);
/* Print a one-line error "mediascan: ..." to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct json_object;

/* Return 0 after looking up owners and paths for every error of rep->r; -errno on failure. */
int cli_report_build(struct cli_report *rep);
/* Return 0 after writing the JSON report (schema mediascan-report/1) to path ("-": stdout). */
int cli_report_write_json(const struct cli_report *rep, const char *path);
/* Return the rate of the summary: planned bytes checked per second in this run. */
double cli_report_rate(const struct cli_report *rep);
/* Print the human summary of the report. */
void cli_report_print(const struct cli_report *rep, FILE *f);
/* Return a new json-c object of error i of the report, as in media_errors[] (json-c type). */
struct json_object *cli_report_error_json(const struct cli_report *rep, size_t i);
/* Return 0; free what cli_report_build allocated. */
int cli_report_free(struct cli_report *rep);

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
