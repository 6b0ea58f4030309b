/*
 * cli/patrol_cmd.c - `mediascan patrol [--config FILE] [--check]`: parse the options and run
 * the service (patrol/patrol.c) with them.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "config_file.h"
#include "exits.h"
#include "opts.h"
#include "patrol.h"
#include "units.h"

/* What the command line of `mediascan patrol` asked. */
struct patrol_args {
	const char *config;
	int check;
};

#define F(field) offsetof(struct patrol_args, field)

static const struct cli_opt patrol_opts[] = {
	{ .name = "config", .type = CLI_OPT_FILE, .flags = CLI_OPT_INIT, .arg = "FILE",
	  .def_str = PATROL_DEFAULT_CONFIG, .off = F(config),
	  .help = "config file (default {def})" },
	{ .name = "check", .type = CLI_OPT_FLAG, .off = F(check),
	  .help = "check the config (and that its targets open) and exit" },
};

const struct cli_opts cli_patrol_opts = {
	.cmd = "patrol",
	.opts = patrol_opts,
	.nr = sizeof(patrol_opts) / sizeof(patrol_opts[0]),
	.synopsis = "usage: mediascan patrol [--config FILE] [--check]\n"
		    "options:\n",
	.after = "Runs until SIGTERM: a pass of every target within its window, one scan per\n"
		 "physical disk at a time; SIGHUP reloads the config.\n",
};

int cli_patrol_main(int argc, char **argv)
{
	struct patrol_args pa = { 0 };
	int ret;

	ret = cli_opts_parse(&cli_patrol_opts, argc, argv, &pa);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (optind != argc) {
		report_err("patrol: unexpected argument '%s'", argv[optind]);
		return REPORT_EXIT_USAGE;
	}
	return patrol_run(pa.config, pa.check);
}
