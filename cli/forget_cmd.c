/*
 * cli/forget_cmd.c - `mediascan forget TARGET`: drop a target (a filesystem reformatted or
 * retired, a disk replaced, a test scan) from the state store with its passes and errors,
 * after saying what goes: the passes and the open ranges. It asks on a terminal; elsewhere
 * it needs --yes, so that a script cannot drop history by accident.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exits.h"
#include "forget_cmd.h"
#include "opts.h"
#include "status_cmd.h"
#include "units.h"

/* What the command line of `mediascan forget` asked. */
struct forget_args {
	const char *state_dir, *config;
	int yes, dry;
};

#define F(field) offsetof(struct forget_args, field)

static const struct cli_opt forget_opts[] = {
	{ .name = "yes", .short_name = 'y', .type = CLI_OPT_FLAG, .off = F(yes),
	  .help = "drop without asking" },
	{ .name = "dry-run", .type = CLI_OPT_FLAG, .off = F(dry),
	  .help = "only say what would be dropped" },
	CLI_OPT_STATE_DIR(F(state_dir)),
	CLI_OPT_CONFIG(F(config)),
};

const struct cli_opts cli_forget_opts = {
	.cmd = "forget",
	.opts = forget_opts,
	.nr = sizeof(forget_opts) / sizeof(forget_opts[0]),
	.synopsis = "usage: mediascan forget TARGET [--yes] [--dry-run] [--state-dir DIR] "
		    "[--config FILE]\n"
		    "  drop TARGET (a path or a key as `mediascan status --json` shows it) from the\n"
		    "  history: its passes, checkpoints and errors, open or cleared. Says what it "
		    "drops\n"
		    "  and asks on a terminal; without a terminal it needs --yes (else exit 8).\n"
		    "options:\n",
	.after = "no terminal and no --yes, or no such target: nothing dropped, exit 8\n",
};

/* Return 1 when the answer read from the terminal is yes. */
static int ask_yes(void)
{
	char line[64];

	fputs("Drop it? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

int cli_forget_main(int argc, char **argv)
{
	struct forget_args fa = { 0 };
	const char *state_dir, *config, *name;
	struct scan_state_forget f;
	struct scan_state *st;
	char canon[PATH_MAX];
	int yes, dry, ret;

	ret = cli_opts_parse(&cli_forget_opts, argc, argv, &fa);
	if (ret)
		return ret == 1 ? 0 : ret;
	state_dir = fa.state_dir;
	config = fa.config;
	yes = fa.yes;
	dry = fa.dry;
	if (optind + 1 != argc) {
		report_err(optind == argc ? "forget: which target? (mediascan forget TARGET; "
			"`mediascan status` lists them)" : "forget: one target at a time");
		return REPORT_EXIT_USAGE;
	}
	name = argv[optind];
	if (!name[0] || strlen(name) >= PATH_MAX) {
		report_err("forget: bad target name");
		return REPORT_EXIT_USAGE;
	}
	ret = cli_history_open(state_dir, config, &st);
	if (ret == -ENOENT) {
		report_err("forget: no history yet: no target %s", name);
		return REPORT_EXIT_USAGE;
	}
	if (ret < 0)
		return ret == -EINVAL ? REPORT_EXIT_USAGE : REPORT_EXIT_OPERATIONAL;
	ret = scan_state_forget(st, name, 1, &f);
	/* A path as typed ("/srv/data/", "./data") names the target its real path is. */
	if (ret == 0 && name[0] != '\0' && realpath(name, canon) && strcmp(canon, name) != 0) {
		name = canon;
		ret = scan_state_forget(st, name, 1, &f);
	}
	if (ret < 0) {
		report_err("forget: reading the state store failed: %s", scan_state_errmsg(st));
		scan_state_close(st);
		return REPORT_EXIT_OPERATIONAL;
	}
	if (ret == 0) {
		report_err("forget: no target %s in the history (`mediascan status` lists them)", name);
		scan_state_close(st);
		return REPORT_EXIT_USAGE;
	}
	printf("would drop %s: %u target%s, %u pass%s, %u open range%s (%u error rows in all)\n",
	       name, f.targets, f.targets == 1 ? "" : "s", f.passes,
	       f.passes == 1 ? "" : "es", f.open_ranges, f.open_ranges == 1 ? "" : "s", f.rows);
	if (f.running)
		printf("note: %u pass%s recorded as running: a scan of it may be running now "
		       "(stop it first), or one died\n", f.running, f.running == 1 ? "" : "es");
	fflush(stdout);
	if (dry) {
		scan_state_close(st);
		return 0;
	}
	if (!yes) {
		if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
			report_err("forget: not dropped: no terminal to ask on (give --yes)");
			scan_state_close(st);
			return REPORT_EXIT_USAGE;
		}
		if (!ask_yes()) {
			printf("nothing dropped\n");
			scan_state_close(st);
			return 0;
		}
	}
	ret = scan_state_forget(st, name, 0, &f);
	if (ret < 0) {
		report_err("forget: dropping failed, nothing dropped: %s", scan_state_errmsg(st));
		scan_state_close(st);
		return REPORT_EXIT_OPERATIONAL;
	}
	printf("dropped %s: %u target%s, %u pass%s, %u open range%s\n", name, f.targets,
	       f.targets == 1 ? "" : "s", f.passes, f.passes == 1 ? "" : "es", f.open_ranges,
	       f.open_ranges == 1 ? "" : "s");
	scan_state_close(st);
	return 0;
}
