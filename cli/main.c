/*
 * cli/main.c - the mediascan command: subcommand dispatch and top-level usage.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "files.h"
#include "map_cmd.h"
#include "patrol.h"
#include "probe_cmd.h"
#include "report_cmd.h"
#include "status_cmd.h"
#include "units.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mediascan COMMAND [options]\n"
		"commands:\n"
		"  scan TARGET   read every written block of a filesystem (mount point) or a\n"
		"                whole block device; report damaged files and metadata\n"
		"  patrol        the service: a pass over every configured target within its window\n"
		"  status        per target: pass progress, rate, ETA, last pass, open errors\n"
		"  report        open damage from the history: new since the last pass, files\n"
		"  probe DEV|MNT what each device can verify itself (NVMe, SCSI, PI)\n"
		"  map DEV OFF   who owns a device range (files, metadata, free space, partition\n"
		"                gaps); --kernel-log maps every failed range in kernel log lines\n"
		"  help          this text; `mediascan scan --help` for the scan options\n"
		"every command that reports takes --json FILE|- (- or a bare --json: stdout)\n"
		"  version       print the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	/* --json FILE|-, the bare flag meaning stdout (probe, report, status knew only that) */
	cli_json_argv(argc, argv, strcmp(argv[1], "probe") == 0 || strcmp(argv[1], "report") == 0 ||
				  strcmp(argv[1], "status") == 0);
	if (strcmp(argv[1], "scan") == 0)
		return cli_scan_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "map") == 0)
		return cli_map_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "patrol") == 0)
		return cli_patrol_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "status") == 0)
		return cli_status_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "probe") == 0)
		return cli_probe_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "report") == 0)
		return cli_report_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("mediascan %s\n", MEDIASCAN_VERSION);
		return 0;
	}
	cli_err("unknown command '%s' (commands: scan, map, patrol, status, report, help, version)", argv[1]);
	return CLI_EXIT_USAGE;
}
