/*
 * cli/scan_hooks.h - what a scan does after its pass (scan_hooks.c): history, settling, journal
 * events and on_damage for new damage, and xfs_scrub-style output.
 */
#ifndef MEDIASCAN_SCAN_HOOKS_H
#define MEDIASCAN_SCAN_HOOKS_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "state.h"

/*
 * Return the number of settled errors after storing owners, settling (settle[0..nr_settle):
 * read cleanly, or no longer allocated) the open errors a complete pass did not see fail,
 * and sending journal events and on_damage for damage not told before (st may be NULL:
 * everything is new); the damage is marked told only when on_damage (if any) exited 0.
 * Failures are warnings.
 */
int cli_scan_after(const struct cli_scan_cfg *cfg, const struct cli_report *rep,
		   struct scan_state *st, int64_t pass_id, const char *key,
		   const struct scan_state_outcome *settle, size_t nr_settle);
/* Print the damage of rep in xfs_scrub's shape ("Unfixable Error: PATH: media error ..."). */
void cli_report_print_xfs_scrub(const struct cli_report *rep, FILE *f);
/*
 * Return the exit status of `sh -c cmd` fed input on stdin (128+N if killed by signal N);
 * -ETIMEDOUT after killing its process group when it ran longer than timeout_s (0: the
 * default), -EINTR after killing it on SIGTERM/SIGINT (passed on to their handlers), or -errno.
 */
int cli_run_hook(const char *cmd, const char *input, double timeout_s);

#endif
