/*
 * cli/scan_opts.h - the options of `mediascan scan` declared once, as data (fio's option
 * table is the model): name, type, bounds, default and help. The getopt table, the usage
 * text and the parse come from it; a unit test holds the bash completion, the man page and
 * docs/usage.md to it.
 */
#ifndef MEDIASCAN_CLI_SCAN_OPTS_H
#define MEDIASCAN_CLI_SCAN_OPTS_H

#include <stddef.h>
#include <stdio.h>

struct option;
struct run_cfg;

/* What an option's argument is, and how it is parsed into its field of struct run_cfg. */
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
};

/* enum cli_opt_flag: bits of cli_opt.flags */
#define CLI_OPT_WIDE 0x1		/* UINT: the field is a uint64_t, not an unsigned */
#define CLI_OPT_POSITIVE 0x2		/* DURATION: 0 is refused */
#define CLI_OPT_MARK 0x4		/* given: also set the int at .set_off to 1 */
#define CLI_OPT_INIT 0x8		/* the field starts at the default (else 0: the pass's) */
#define CLI_OPT_HIDDEN 0x10		/* not in the usage (--help) */

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
	size_t off;			/* the field in struct run_cfg */
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

extern const struct cli_opt cli_scan_opts[];
extern const size_t cli_scan_nr_opts;

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

/* Set the fields of cfg the options give a default (CLI_OPT_INIT). */
void cli_opt_defaults(const struct cli_opt *opts, size_t nr, struct run_cfg *cfg);

/* Return 0 after storing arg (NULL for a flag) in o's field of cfg, or 8 after saying why. */
int cli_opt_parse(const struct cli_opt *o, const char *arg, struct run_cfg *cfg);

/* Print the usage lines of opts, by section, wrapped. */
void cli_opt_usage(FILE *f, const struct cli_opt *opts, size_t nr);

/* Write the help of o with its tokens filled in to buf (len bytes). */
void cli_opt_help_text(const struct cli_opt *o, char *buf, size_t len);

#endif
