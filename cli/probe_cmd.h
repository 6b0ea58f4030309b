/*
 * cli/probe_cmd.h - `mediascan probe` (probe_cmd.c).
 */
#ifndef MEDIASCAN_PROBE_CMD_H
#define MEDIASCAN_PROBE_CMD_H

/* Return the exit status of `mediascan probe ARGS`. */
int cli_probe_main(int argc, char **argv);

#endif
