/*
 * cli/scan_hooks.h - the pass's output hooks as cli/ fills them in (scan_hooks.c): human
 * output, JSON, journal events, on_damage, xfs_scrub-style lines.
 */
#ifndef MEDIASCAN_SCAN_HOOKS_H
#define MEDIASCAN_SCAN_HOOKS_H

#include <stdio.h>

#include "cli.h"
#include "pass.h"

/* Print the damage of rep in xfs_scrub's shape ("Unfixable Error: PATH: media error ..."). */
void cli_report_print_xfs_scrub(const struct pass_report *rep, FILE *f);
/*
 * Return the exit status of `sh -c cmd` fed input on stdin (128+N if killed by signal N);
 * -ETIMEDOUT after killing its process group when it ran longer than timeout_s (0: the
 * default), -EINTR after killing it on SIGTERM/SIGINT (passed on to their handlers), or -errno.
 */
int cli_run_hook(const char *cmd, const char *input, double timeout_s);

#endif
