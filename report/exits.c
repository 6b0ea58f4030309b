/*
 * report/exits.c - the exit status of every subcommand, in one table: each command's --help,
 * `mediascan help exit`, and (checked by tests/e2e/cli-docs.sh) README's and the man page's
 * exit tables are this table.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "exits.h"

struct report_exit_row {
	const char *cmd;		/* "scan", ...; "*" for every command */
	unsigned bit;
	const char *meaning;
};

static const struct report_exit_row exit_rows[] = {
    {"scan", 0,
     "clean: every planned byte read and nothing found, or a planned "
     "--max-duration stop with its checkpoint saved (continue with --resume)"},
    {"scan", REPORT_EXIT_MEDIA, "media errors: data or metadata damaged (restore)"},
    {"scan", REPORT_EXIT_INTEGRITY, "integrity: protection information mismatches, or copies that differ (--compare)"},
    {"scan", REPORT_EXIT_OPERATIONAL,
     "operational error: the pass could not do all it should "
     "(not root, unreadable device, owners not mapped, report or history not written, "
     "target busy, stopped by a signal, or by --max-duration without a checkpoint)"},
    {"scan", REPORT_EXIT_DEVICE,
     "the disk is failing or slow (device faults, slow sectors, the "
     "scan stopped to spare it) or a copy was lost: nothing known lost"},
    {"map", 0, "answered: the owners of a range looked up (whoever they are)"},
    {"map", REPORT_EXIT_MEDIA,
     "files or metadata own a range the kernel log says failed "
     "(--kernel-log)"},
    {"map", REPORT_EXIT_OPERATIONAL,
     "a device, range or layer could not be mapped, a "
     "kernel-log line was not checked (unknown device, past the end, unusable, dropped), or "
     "no line is the kernel's"},
    {"report", 0, "no open damage"},
    {"report", REPORT_EXIT_MEDIA, "open damage remains"},
    {"report", REPORT_EXIT_OPERATIONAL, "the history could not be read or the report written"},
    {"status", 0, "answered (also when nothing was scanned yet)"},
    {"status", REPORT_EXIT_OPERATIONAL, "the history could not be read or the answer written"},
    {"probe", 0, "answered"},
    {"probe", REPORT_EXIT_OPERATIONAL, "a device could not be opened or probed"},
    {"patrol", 0, "stopped by SIGTERM/SIGINT; --check: the config is valid"},
    {"patrol", REPORT_EXIT_OPERATIONAL, "the state store cannot be used"},
    {"forget", 0, "dropped as asked, nothing dropped on a no, or --dry-run answered"},
    {"forget", REPORT_EXIT_OPERATIONAL,
     "the history could not be read or changed (nothing "
     "dropped)"},
    {"*", REPORT_EXIT_USAGE,
     "usage error: bad options, arguments or config (or a config others "
     "may write), not a mount point, unsupported filesystem, a report path that cannot be "
     "written (refused before anything is read)"},
};

#define NR_EXIT_ROWS (sizeof(exit_rows) / sizeof(exit_rows[0]))

void report_print_exits(FILE *f, const char *cmd)
{
	fprintf(f, "exit status (bits combine):\n");
	for (size_t i = 0; i < NR_EXIT_ROWS; i++) {
		const struct report_exit_row *r = &exit_rows[i];

		if (cmd && strcmp(r->cmd, cmd) != 0 && strcmp(r->cmd, "*") != 0)
			continue;
		if (cmd)
			fprintf(f, "  %2u  %s\n", r->bit, r->meaning);
		else
			fprintf(f, "  %-7s %2u  %s\n", strcmp(r->cmd, "*") ? r->cmd : "any",
				r->bit, r->meaning);
	}
}
