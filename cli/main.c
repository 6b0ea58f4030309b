/*
 * cli/main.c - the mediascan command: subcommand dispatch and top-level usage.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "exits.h"
#include "files.h"
#include "forget_cmd.h"
#include "map_cmd.h"
#include "patrol.h"
#include "probe_cmd.h"
#include "report_cmd.h"
#include "status_cmd.h"
#include "units.h"

/* One subcommand: its name, what it does (the top-level usage) and its entry point. */
struct cli_cmd {
	const char *name;
	const char *usage;	/* "NAME ARGS" as the usage prints it */
	const char *what;	/* one or two lines; continuation lines start with '\n' */
	int (*main)(int argc, char **argv);
};

static const struct cli_cmd cli_cmds[] = {
	{ "scan", "scan TARGET",
	  "read every written block of a filesystem (mount point) or a\n"
	  "whole block device; report damaged files and metadata", cli_scan_main },
	{ "patrol", "patrol", "the service: a pass over every configured target within its window",
	  cli_patrol_main },
	{ "status", "status", "per target: pass progress, rate, ETA, last pass, open errors",
	  cli_status_main },
	{ "report", "report", "open damage from the history: new since the last pass, files",
	  cli_report_main },
	{ "probe", "probe DEV|MNT", "what each device can verify itself (NVMe, SCSI, PI)",
	  cli_probe_main },
	{ "map", "map DEV OFF",
	  "who owns a device range (files, metadata, free space, partition\n"
	  "gaps); --kernel-log maps every failed range in kernel log lines", cli_map_main },
	{ "forget", "forget TARGET", "drop a target's history (passes, open ranges) from the state store",
	  cli_forget_main },
};

#define CLI_NR_CMDS (sizeof(cli_cmds) / sizeof(cli_cmds[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: mediascan COMMAND [options]\ncommands:\n");
	for (size_t i = 0; i < CLI_NR_CMDS; i++) {
		const char *w = cli_cmds[i].what, *nl;

		fprintf(f, "  %-13s ", cli_cmds[i].usage);
		while ((nl = strchr(w, '\n'))) {
			fprintf(f, "%.*s\n%16s", (int)(nl - w), w, "");
			w = nl + 1;
		}
		fprintf(f, "%s\n", w);
	}
	fprintf(f,
		"  help [CMD]    this text, or CMD's options (same as mediascan CMD --help)\n"
		"  version       print the version\n"
		"every command that reports takes --json FILE|- (- or a bare --json: stdout)\n"
		"exit status: a bitmask as in xfs_scrub; `mediascan help exit` for every command's\n");
}

static const struct cli_cmd *cli_cmd_find(const char *name)
{
	for (size_t i = 0; i < CLI_NR_CMDS; i++)
		if (strcmp(cli_cmds[i].name, name) == 0)
			return &cli_cmds[i];
	return NULL;
}

/* The unknown-command line names every command the table has. */
static void unknown_cmd(const char *name)
{
	char list[256] = "";
	size_t n = 0;

	for (size_t i = 0; i < CLI_NR_CMDS && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s, ", cli_cmds[i].name);
	report_err("unknown command '%s' (commands: %shelp, version)", name, list);
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	if (argc < 2) {
		usage(stderr);
		return REPORT_EXIT_USAGE;
	}
	/* --json FILE|-, the bare flag meaning stdout (probe, report, status knew only that) */
	report_json_argv(argc, argv,
			 strcmp(argv[1], "probe") == 0 || strcmp(argv[1], "report") == 0 ||
			     strcmp(argv[1], "status") == 0);
	cmd = cli_cmd_find(argv[1]);
	if (cmd)
		return cmd->main(argc - 1, argv + 1);
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		if (argc > 2 && strcmp(argv[2], "exit") == 0) {
			report_print_exits(stdout, NULL);
			return 0;
		}
		if (argc > 2) {
			char *help_argv[] = { argv[2], (char *)"--help", NULL };

			cmd = cli_cmd_find(argv[2]);
			if (!cmd) {
				unknown_cmd(argv[2]);
				return REPORT_EXIT_USAGE;
			}
			return cmd->main(2, help_argv);
		}
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("mediascan %s\n", MEDIASCAN_VERSION);
		return 0;
	}
	unknown_cmd(argv[1]);
	return REPORT_EXIT_USAGE;
}
