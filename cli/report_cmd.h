/*
 * cli/report_cmd.h - `mediascan report` (report_cmd.c): open damage from the history, and the
 * owners stored with each error (owners_json) read back for people.
 */
#ifndef MEDIASCAN_REPORT_CMD_H
#define MEDIASCAN_REPORT_CMD_H

#include <stdio.h>

struct json_object;

/* Return the exit status of `mediascan report ARGS`. */
int cli_report_main(int argc, char **argv);
/* Return the owners array stored as owners_json (a new empty array when it is not one). */
struct json_object *cli_owners_parse(const char *owners_json);
/* Return what an admin should do about an error with these owners (static text). */
const char *cli_owners_action(struct json_object *owners);
/* Print owners as report's human output does, one line each, names escaped. */
void cli_owners_print(FILE *f, struct json_object *owners);

#endif
