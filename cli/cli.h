/*
 * cli/cli.h - subcommands, exit status bits and the shared pieces of the command line.
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
/* Return 0 after parsing "50M" or "50M/s" into bytes per second (> 0), or -EINVAL. */
int cli_parse_rate(const char *s, uint64_t *bps);
/* Print a one-line error "mediascan: ..." to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Return 0 with *out open for writing path, created 0600 if new (a report names private
 * files), never through a symlink or a file with other hard links (-ELOOP, -EMLINK), /dev/
 * and /proc/self/fd/ paths excepted; -errno otherwise.
 */
int cli_create_private(const char *path, FILE **out);
/* Return a reason for a cli_create_private error, for "cannot write FILE: reason". */
const char *cli_create_error(int err);
/* Return 0 when dir is missing or is a directory owned by us or root that only its owner can
 * write; -EPERM/-ENOTDIR/-errno with why otherwise (call it before opening the state store). */
int cli_check_state_dir(const char *dir, char *why, size_t len);
struct json_object;
/* Rewrite a bare --json in argv (end of line, before an option; with before_device also
 * before a device or a directory) to --json=- (stdout): every subcommand takes --json FILE|-. */
void cli_json_argv(int argc, char **argv, int before_device);
/* Return 0 after writing doc (pretty) to path ("-": stdout; else cli_create_private), -errno. */
int cli_json_write(struct json_object *doc, const char *path);

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
/* Return 0 after writing the HTML report of one pass to path ("-": stdout), or -errno after
 * printing why (one line; cli/html.c). */
int cli_html_write(const struct cli_report *rep, const char *path);
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

/* ---- mapping everywhere (issue 4): cli/map_report.c, cli/map_cmd.c ---- */
struct json_object;
/* Return the exit status of `mediascan map ARGS`. */
int cli_map_main(int argc, char **argv);
/*
 * Add the array key (paths[0..n)) to json-c object j, valid UTF-8 always: a name that is not
 * is written with \xNN, and then key_hex[] holds the exact bytes of every name.
 */
void cli_json_add_paths(struct json_object *j, const char *key, const char *const *paths,
			unsigned n);
/* Return a new json-c object for one owner, as in media_errors[].owners[]. */
struct json_object *cli_owner_json(const struct map_damage *d, const struct map_target *t,
				   const struct map_owner *o);
/* Return 0 after adding damaged_files[] and damaged_metadata[] of d to root. */
int cli_damage_json(struct json_object *root, const struct map_damage *d,
		    const struct map_target *t);
/* Return 0 after adding partition_table and partitions[] (partitioned disk) to root. */
int cli_target_json(struct json_object *root, const struct map_target *t);
/* Return 0 after adding scrub, fs_health, paths_from and notes[] of d to root. */
int cli_mapping_json(struct json_object *root, const struct map_damage *d);
/* Print one owner line (and its health and scrub verdicts) for people. */
void cli_print_owner(FILE *f, const struct map_damage *d, const struct map_target *t,
		     const struct map_owner *o);
/* Print the damaged files and damaged metadata sections. */
void cli_print_damage(FILE *f, const struct map_damage *d, const struct map_target *t);
/* Print mapping's notes ("note: ..."), each once. */
void cli_print_notes(FILE *f, const struct map_damage *d);
/* ---- end of issue 4 block ---- */

#endif
