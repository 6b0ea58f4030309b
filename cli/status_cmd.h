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

#endif
