/*
 * cli/status_cmd.h - `mediascan status` and what report and tests share with it
 * (status_cmd.c): opening the history, printing a time.
 */
#ifndef MEDIASCAN_STATUS_CMD_H
#define MEDIASCAN_STATUS_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "state.h"

/* Return the exit status of `mediascan status ARGS`. */
int cli_status_main(int argc, char **argv);
/*
 * Return 0 and open the state store (state_dir, else the config's state_dir, else the
 * default), or -errno after printing why.
 */
int cli_history_open(const char *state_dir, const char *config, struct scan_state **st);
/*
 * Set *rate to a pass's rate (bytes/s; a running pass: its bytes checkpointed so far over the
 * time since it started) and *eta to its seconds left (-1 unknown): what status shows and
 * the metrics say.
 */
void cli_pass_rate(const struct scan_state_pass *p, time_t now, double *rate, double *eta);
/* Return buf after writing unix time t as local "YYYY-MM-DD HH:MM:SS" ("never" for 0). */
char *cli_fmt_time(int64_t t, char *buf, size_t len);

#endif
