/*
 * cli/all_opts.c - every subcommand's option table, for the tests that hold the man page, the
 * completion and docs/usage.md to them. A file of its own: the tables live in the subcommands'
 * files, which call opts.c, and opts.c names none of them.
 */
#include <stddef.h>

#include "opts.h"

const struct cli_opts *const cli_all_opts[] = {
	&cli_scan_cmd_opts, &cli_patrol_opts, &cli_status_opts, &cli_report_opts,
	&cli_probe_opts, &cli_map_opts, &cli_forget_opts,
};
const size_t cli_nr_all_opts = sizeof(cli_all_opts) / sizeof(cli_all_opts[0]);
