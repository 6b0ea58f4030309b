/*
 * report/exits.h - the exit status of every subcommand (report/exits.c), for --help and
 * `mediascan help exit`.
 */
#ifndef MEDIASCAN_REPORT_EXITS_H
#define MEDIASCAN_REPORT_EXITS_H

#include <stdio.h>

/* Print the exit table of cmd ("scan", "map", ...), or of every command when cmd is NULL. */
void report_print_exits(FILE *f, const char *cmd);

#endif
