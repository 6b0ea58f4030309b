/*
 * cli/scan_cmd.c - `mediascan scan TARGET`: parse options into a struct run_cfg and run
 * it with run_scan() (run/scan.c).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "exits.h"
#include "units.h"

/* Return 0, or REPORT_EXIT_USAGE after saying how the options contradict each other. */
static int check_args(const struct run_cfg *a)
{
	if (a->pass.rate && a->pass.window_s) {
		report_err(
		    "--rate and --window exclude each other (bound a window with --rate-max)");
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.rate_min && a->pass.rate_max && a->pass.rate_min > a->pass.rate_max) {
		report_err("--rate-min is above --rate-max");
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.resume && a->pass.no_state) {
		report_err("--resume needs the state store; drop --no-state");
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.recheck && (a->pass.no_state || a->pass.resume)) {
		report_err("--recheck re-reads the open errors of the history: not with --%s",
			a->pass.no_state ? "no-state" : "resume");
		return REPORT_EXIT_USAGE;
	}
	if (a->html && a->json && strcmp(a->html, "-") == 0 && strcmp(a->json, "-") == 0) {
		report_err("--json - and --html - both name stdout: give one of them a FILE");
		return REPORT_EXIT_USAGE;
	}
	return 0;
}

/* Return 0, 1 after --help, or REPORT_EXIT_USAGE after printing why. */
static int parse_args(int argc, char **argv, struct run_cfg *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	a->pass.merge_gap = (uint64_t)-1;	/* the device's default */
	ret = cli_opts_parse(&cli_scan_cmd_opts, argc, argv, a);
	if (ret)
		return ret;
	if (optind != argc - 1) {
		report_err(optind >= argc ? "scan: name a mount point or block device to scan" :
			"scan: one target only, got '%s' too (see mediascan scan --help)",
			optind >= argc ? "" : argv[optind + 1]);
		return REPORT_EXIT_USAGE;
	}
	ret = check_args(a);
	if (ret)
		return ret;
	if (a->html && strcmp(a->html, "-") == 0)
		a->quiet = 1;			/* stdout holds the page */
	a->pass.target = argv[optind];
	return 0;
}

int cli_scan_main(int argc, char **argv)
{
	struct run_cfg a;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret == 1 ? 0 : ret;
	return run_scan(&a);
}
