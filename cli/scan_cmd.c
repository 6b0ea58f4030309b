/*
 * cli/scan_cmd.c - `mediascan scan TARGET`: parse options into a struct run_cfg and run
 * it with run_scan() (run/scan.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scan_opts.h"
#include "exits.h"
#include "units.h"

static void scan_usage(FILE *f)
{
	fputs("usage: mediascan scan TARGET [options]\n"
	      "  TARGET                 mount point of an XFS or ext4 filesystem, or a block device\n"
	      "                         (a disk's partitions are planned through their mounted\n"
	      "                         filesystems; the rest is read whole)\n", f);
	cli_opt_usage(f, cli_scan_opts, cli_scan_nr_opts);
	report_print_exits(f, "scan");
}

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

/* Return 0, or REPORT_EXIT_USAGE after printing why. */
static int parse_args(int argc, char **argv, struct run_cfg *a)
{
	struct option lopts[cli_scan_nr_opts + 2];
	char shorts[16];
	int c, ret;

	memset(a, 0, sizeof(*a));
	cli_opt_defaults(cli_scan_opts, cli_scan_nr_opts, a);
	a->pass.merge_gap = (uint64_t)-1;	/* the device's default */
	cli_opt_getopt(cli_scan_opts, cli_scan_nr_opts, lopts, shorts, sizeof(shorts));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		const struct cli_opt *o = NULL;

		if (c == 'h') {
			scan_usage(stdout);
			exit(0);
		}
		if (c >= 256 && (size_t)(c - 256) < cli_scan_nr_opts)
			o = &cli_scan_opts[c - 256];
		for (size_t i = 0; !o && c != '?' && i < cli_scan_nr_opts; i++)
			if (cli_scan_opts[i].short_name == c)
				o = &cli_scan_opts[i];
		if (!o) {
			report_err("scan: unknown or incomplete option '%s' (see mediascan scan --help)",
				argv[optind - 1]);
			return REPORT_EXIT_USAGE;
		}
		ret = cli_opt_parse(o, optarg, a);
		if (ret)
			return ret;
	}
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
		return ret;
	return run_scan(&a);
}
