/*
 * run/run.h - running a pass: one scan of one target as `mediascan scan` and each run of patrol
 * give it (struct run_cfg), run with the pass's output hooks filled in by report/'s writers
 * (scan.c): human output, JSON, HTML, journal events, xfs_scrub-style lines; and the on_damage
 * command (hook.c).
 */
#ifndef MEDIASCAN_RUN_H
#define MEDIASCAN_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "pass.h"
#include "report.h"

#define RUN_HOOK_TIMEOUT_DEFAULT_S 300.0	/* on_damage is killed after 5 minutes */

/*
 * One scan of one target: the options of `mediascan scan`, also built by `mediascan patrol`:
 * the pass's own options (filled in directly, handed to pass_run as they are) and how it is
 * reported.
 */
struct run_cfg {
	struct pass_opts pass;		/* target, method, pacing, state... (pass/pass.h) */
	const char *json;
	const char *html;		/* --html FILE|-: the HTML report (report/html.c) */
	const char *progress;
	int quiet;
	/* For patrol and scripts: the output hooks (run/scan.c). */
	const char *format;		/* human output: NULL or "human", or "xfs_scrub" */
	const char *on_damage;		/* shell command given the JSON of new damage on stdin */
	double hook_timeout_s;		/* on_damage is killed after this; 0: the default */
	int journal;			/* journal events for new damage and the pass end */
};

/* Return the exit status (enum report_exit bits) of one pass as cfg describes it (scan.c). */
int run_scan(const struct run_cfg *cfg);

/*
 * Return the exit status of `sh -c cmd` fed input on stdin (128+N if killed by signal N);
 * -ETIMEDOUT after killing its process group when it ran longer than timeout_s (0: the
 * default), -EINTR after killing it on SIGTERM/SIGINT (passed on to their handlers), or -errno.
 */
int run_hook(const char *cmd, const char *input, double timeout_s);	/* hook.c */

#endif
