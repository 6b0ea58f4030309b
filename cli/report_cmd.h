/*
 * cli/report_cmd.h - `mediascan report` (report_cmd.c): open damage from the history.
 */
#ifndef MEDIASCAN_REPORT_CMD_H
#define MEDIASCAN_REPORT_CMD_H

/* Return the exit status of `mediascan report ARGS`. */
int cli_report_main(int argc, char **argv);

#endif
