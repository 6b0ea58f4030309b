/*
 * cli/cli.h - the subcommands' entry points that have no header of their own: `mediascan scan`
 * (scan_cmd.c), `mediascan patrol` (patrol_cmd.c). What the writers and the daemon share is in
 * report.h and run.h.
 */
#ifndef MEDIASCAN_CLI_H
#define MEDIASCAN_CLI_H

#include "report.h"
#include "run.h"

/* Return the exit status of `mediascan scan ARGS`. */
int cli_scan_main(int argc, char **argv);
/* Return the exit status of `mediascan patrol ARGS`. */
int cli_patrol_main(int argc, char **argv);

#endif
