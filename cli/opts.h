/*
 * cli/opts.h - the options of each subcommand declared once, as data (fio's option table is
 * the model): name, type, bounds, default and help. The getopt table, the usage text and the
 * parse come from it (opts.c); the tables are in the subcommands' files, and unit tests hold
 * the bash completion, the man page and docs/usage.md to them.
 */
#ifndef MEDIASCAN_CLI_OPTS_H
#define MEDIASCAN_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"

struct option;

/* What an option's argument is, and how it is parsed into its field of the arguments. */
enum cli_opt_type {
	CLI_OPT_FLAG,			/* no argument: an int set to 1 */
	CLI_OPT_STR,			/* const char *, kept as given (checked by the pass) */
	CLI_OPT_FILE,			/* const char *, a path (FILE, - for stdout, DIR) */
	CLI_OPT_CHOICE,			/* const char *, one of .choices */
	CLI_OPT_SIZE,			/* uint64_t bytes: 4096, 64k, 1M (report_parse_size) */
	CLI_OPT_RATE,			/* uint64_t bytes/s: 50M or 50M/s (report_parse_rate) */
	CLI_OPT_DURATION,		/* double seconds: 30s, 90m, 12h, 7d */
	CLI_OPT_UINT,			/* unsigned or uint64_t (.wide), decimal */
	CLI_OPT_SCALED,			/* unsigned: a decimal number times .scale, rounded */
	CLI_OPT_SINCE,			/* int64_t unix seconds: a date, @UNIXTIME or 7d ago */
};

/* enum cli_opt_flag: bits of cli_opt.flags */
#define CLI_OPT_WIDE 0x1		/* UINT: the field is a uint64_t, not an unsigned */
#define CLI_OPT_POSITIVE 0x2		/* DURATION: 0 is refused */
#define CLI_OPT_MARK 0x4		/* given: also set the int at .set_off to 1 */
#define CLI_OPT_INIT 0x8		/* the field starts at the default (else 0: the pass's) */
#define CLI_OPT_HIDDEN 0x10		/* not in the usage (--help) */
#define CLI_OPT_ANYBASE 0x20		/* UINT: 0x1f and 017 read as C reads them */
#define CLI_OPT_POW2 0x40		/* SIZE: a power of two */

struct cli_opt {
	const char *name;		/* long name, without "--" */
	int short_name;			/* a one-letter alias, or 0 */
	enum cli_opt_type type;
	unsigned flags;			/* CLI_OPT_* */
	const char *arg;		/* the argument's name in the usage: FILE|-, SIZE[/s] */
	const char *choices;		/* CHOICE and the completion's words: "a|b|c" */
	const char *(*choices_fn)(void);	/* or those known at run time ("a|b|c") */
	double min, max;		/* bounds of SIZE, DURATION, UINT, SCALED (as given) */
	unsigned align;			/* SIZE: a multiple of this */
	unsigned scale;			/* SCALED: the field holds the number times this */
	size_t off;			/* the field in the subcommand's arguments */
	size_t set_off;			/* with CLI_OPT_MARK: the int that says it was given */
	double def;			/* the default, in the field's unit (0: none said) */
	const char *def_str;		/* or as text (a string option's default) */
	const char *hint;		/* after "bad --NAME 'ARG': "; NULL: made from the bounds */
	const char *section;		/* the usage heading this option opens, or NULL */
	/*
	 * What the option does, one line of meaning (wrapped in the usage). "{def}" stands for
	 * the default, "{min}" and "{max}" for the bounds, "{choices}" for the choices.
	 */
	const char *help;
};

/* A subcommand's options: its table and the usage's text around the option lines. */
struct cli_opts {
	const char *cmd;		/* "map": in messages and the exit table */
	const struct cli_opt *opts;
	size_t nr;
	const char *synopsis;		/* the usage's lines before the options */
	const char *after;		/* lines after them, or NULL */
};

#define CLI_MAX_OPTS 48			/* the longest table cli_opts_parse takes */

extern const struct cli_opt cli_scan_opts[];
extern const size_t cli_scan_nr_opts;
/* The options of each subcommand (all_opts.c lists them, in the order `mediascan help` does). */
extern const struct cli_opts cli_scan_cmd_opts, cli_patrol_opts, cli_status_opts,
	cli_report_opts, cli_probe_opts, cli_map_opts, cli_forget_opts;
extern const struct cli_opts *const cli_all_opts[];
extern const size_t cli_nr_all_opts;

/*
 * Options several subcommands take, each defined once: the same name, argument and (but for
 * --json, whose answer differs) help wherever it appears. FIELD is the offset of its field in
 * the subcommand's arguments.
 */
#define CLI_OPT_JSON(FIELD, HELP) { .name = "json", .type = CLI_OPT_FILE, .arg = "FILE|-", \
	.off = (FIELD), .help = (HELP) }
#define CLI_OPT_STATE_DIR(FIELD) { .name = "state-dir", .type = CLI_OPT_FILE, .arg = "DIR", \
	.off = (FIELD), .def_str = REPORT_DEFAULT_STATE_DIR, \
	.help = "the state store (default: the config's state_dir, else {def})" }
#define CLI_OPT_CONFIG(FIELD) { .name = "config", .type = CLI_OPT_FILE, .arg = "FILE", \
	.off = (FIELD), .help = "the patrol config naming the state store" }

/* Return the choices of o as "a|b|c", or NULL when it has none. */
const char *cli_opt_choices(const struct cli_opt *o);

/* Return the option of opts named name (without "--"), or NULL. */
const struct cli_opt *cli_opt_find(const struct cli_opt *opts, size_t nr, const char *name);

/*
 * Fill lopts (nr + 1 entries, the last zeroed) as getopt_long's table: option i answers
 * 256 + i, or its short name. Return the short options string in shorts (len bytes).
 */
void cli_opt_getopt(const struct cli_opt *opts, size_t nr, struct option *lopts, char *shorts,
		    size_t len);

/* Set the fields of cfg (a subcommand's arguments) that the options give a default. */
void cli_opt_defaults(const struct cli_opt *opts, size_t nr, void *cfg);

/* Return 0 after storing arg (NULL for a flag) in o's field of cfg, or 8 after saying why. */
int cli_opt_parse(const struct cli_opt *o, const char *arg, void *cfg);

/* Print the usage lines of opts, by section, wrapped. */
void cli_opt_usage(FILE *f, const struct cli_opt *opts, size_t nr);

/* Write the help of o with its tokens filled in to buf (len bytes). */
void cli_opt_help_text(const struct cli_opt *o, char *buf, size_t len);

/* Print c's usage: the synopsis, the options by section, what follows, the exit table. */
void cli_opts_usage(FILE *f, const struct cli_opts *c);

/*
 * Return 0 after parsing argv's options into cfg (the fields with a default set first; optind
 * at the first operand), 1 after printing the usage on stdout (--help), or 8 after saying why.
 */
int cli_opts_parse(const struct cli_opts *c, int argc, char **argv, void *cfg);

#endif
