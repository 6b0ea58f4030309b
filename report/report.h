/*
 * report/report.h - the report of one pass for people and programs: exit status bits, the
 * human summary and the JSON report (report.c), the HTML page of a pass (html.c) and the
 * progress bar (progress.c). Every writer, the daemon and the subcommands share it.
 */
#ifndef MEDIASCAN_REPORT_H
#define MEDIASCAN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "damage.h"
#include "pass.h"
#include "scan.h"
#include "target.h"
#include "state.h"
#include <time.h>

/* Exit status, a bitmask as in xfs_scrub (the pass's bits, pass/pass.h). */
enum report_exit {
	REPORT_EXIT_CLEAN = PASS_EXIT_CLEAN,
	REPORT_EXIT_MEDIA = PASS_EXIT_MEDIA,	     /* media errors: data or metadata damaged */
	REPORT_EXIT_INTEGRITY = PASS_EXIT_INTEGRITY, /* protection information mismatches */
	REPORT_EXIT_OPERATIONAL = PASS_EXIT_OPERATIONAL, /* the scan could not do all it should */
	REPORT_EXIT_USAGE = PASS_EXIT_USAGE,		 /* bad command line */
	REPORT_EXIT_DEVICE = PASS_EXIT_DEVICE,		 /* the disk is failing or slow */
};

#define REPORT_DEFAULT_STATE_DIR "/var/lib/mediascan"

struct json_object;

/**
 * report_write_json() - write the JSON report (schema mediascan-report/1).
 * @rep: the report of the pass
 * @path: the file ("-": stdout)
 *
 * Return: 0, or -errno.
 */
int report_write_json(const struct pass_report *rep, const char *path);
/**
 * report_rate() - the rate of the summary.
 * @rep: the report of the pass
 *
 * Return: the planned bytes checked per second in this run.
 */
double report_rate(const struct pass_report *rep);
/**
 * report_print() - print the human summary of the report.
 * @rep: the report of the pass
 * @f: where to print it
 */
void report_print(const struct pass_report *rep, FILE *f);
/* Print the damage of rep in xfs_scrub's shape ("Unfixable Error: PATH: media error ..."). */
void report_print_xfs_scrub(const struct pass_report *rep, FILE *f);
/**
 * report_error_json() - one error of the report as JSON, as in media_errors[].
 * @rep: the report of the pass
 * @i: the error's index
 *
 * Return: a new json-c object (json-c type); the caller puts it.
 */
struct json_object *report_error_json(const struct pass_report *rep, size_t i);
/**
 * report_html_write() - write the HTML report of one pass (report/html.c).
 * @rep: the report of the pass
 * @path: the file ("-": stdout)
 *
 * Return: 0, or -errno after printing why (one line).
 */
int report_html_write(const struct pass_report *rep, const char *path);

/* Progress display on stderr: a one-line bar on a terminal. */
struct report_progress {
	int enabled;			/* 1 bar on a terminal, 2 one log line a second */
	int drawn;
	double last_log_s;		/* elapsed_s of the last log line */
};
/**
 * report_progress_cb() - the scan_opts.progress callback: draw the bar or log a line.
 * @p: the scan's progress
 * @arg: a struct report_progress
 */
void report_progress_cb(const struct scan_progress *p, void *arg);
/**
 * report_progress_done() - clear the bar line when one was drawn.
 * @pr: the progress display
 */
void report_progress_done(struct report_progress *pr);
/**
 * report_pass_rate() - a pass's rate and time left: what status shows and the metrics say
 * (pass_rate.c).
 * @p: the pass
 * @now: the time now (unix seconds)
 * @rate: set to its rate, bytes/s (a running pass: its bytes checkpointed so far over the time
 *        since it started)
 * @eta: set to its seconds left (-1 unknown)
 */
void report_pass_rate(const struct scan_state_pass *p, time_t now, double *rate, double *eta);
#endif
