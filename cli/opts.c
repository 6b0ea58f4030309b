/*
 * cli/opts.c - what is made from a subcommand's option table (opts.h): getopt's table, the
 * usage lines, the parse of each argument into its field of the subcommand's arguments, and
 * the loop over the command line that ties them together.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "exits.h"
#include "units.h"

#define OPT_COL 25			/* the help starts in this column */
#define OPT_WIDTH 84			/* and no line is longer than this */

const char *cli_opt_choices(const struct cli_opt *o)
{
	return o->choices_fn ? o->choices_fn() : o->choices;
}

const struct cli_opt *cli_opt_find(const struct cli_opt *opts, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	return NULL;
}

void cli_opt_getopt(const struct cli_opt *opts, size_t nr, struct option *lopts, char *shorts,
		    size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < nr; i++) {
		lopts[i] = (struct option){
			.name = opts[i].name,
			.has_arg = opts[i].type == CLI_OPT_FLAG ? no_argument : required_argument,
			.val = opts[i].short_name ? opts[i].short_name : 256 + (int)i,
		};
		if (opts[i].short_name && n + 3 < len) {
			shorts[n++] = (char)opts[i].short_name;
			if (opts[i].type != CLI_OPT_FLAG)
				shorts[n++] = ':';
		}
	}
	lopts[nr] = (struct option){ .name = "help", .has_arg = no_argument, .val = 'h' };
	lopts[nr + 1] = (struct option){ 0 };
	if (n + 1 < len)
		shorts[n++] = 'h';
	shorts[n] = '\0';
}

static void *field(void *cfg, size_t off)
{
	return (char *)cfg + off;
}

void cli_opt_defaults(const struct cli_opt *opts, size_t nr, void *cfg)
{
	for (size_t i = 0; i < nr; i++) {
		const struct cli_opt *o = &opts[i];

		if (!(o->flags & CLI_OPT_INIT))
			continue;
		if (o->def_str)
			*(const char **)field(cfg, o->off) = o->def_str;
		else if (o->type == CLI_OPT_DURATION)
			*(double *)field(cfg, o->off) = o->def;
	}
}

/* Write v (bytes) with the largest binary suffix that divides it: 512, 64k, 1M, 1G. */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = "kMGT";
	int i = -1;

	while (v && v % 1024 == 0 && i < 3) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suffix[i]);
}

/* Write a value of o (in the field's unit) as the user gives it. */
static void fmt_value(const struct cli_opt *o, double v, char *buf, size_t len)
{
	switch (o->type) {
	case CLI_OPT_SIZE:
	case CLI_OPT_RATE:
		fmt_size(buf, len, (uint64_t)v);
		break;
	case CLI_OPT_DURATION:
		snprintf(buf, len, "%.15gs", v);
		break;
	case CLI_OPT_SCALED:
		snprintf(buf, len, "%.15g", v / o->scale);
		break;
	default:
		snprintf(buf, len, "%.15g", v);
		break;
	}
}

/* Write a bound of o (as given) as the user gives it. */
static void fmt_bound(const struct cli_opt *o, double v, char *buf, size_t len)
{
	if (o->type == CLI_OPT_SIZE)
		fmt_size(buf, len, (uint64_t)v);
	else
		snprintf(buf, len, "%.15g", v);
}

/* Write choices "a|b|c" as "a, b or c". */
static void fmt_choices(const char *choices, char *buf, size_t len)
{
	size_t n = 0, k = strlen(choices);
	const char *last = strrchr(choices, '|');

	buf[0] = '\0';
	for (size_t i = 0; i < k && n + 5 < len; i++) {
		if (choices[i] != '|') {
			buf[n++] = choices[i];
		} else if (choices + i == last) {
			memcpy(buf + n, " or ", 4);
			n += 4;
		} else {
			buf[n++] = ',';
			buf[n++] = ' ';
		}
	}
	buf[n] = '\0';
}

/* Write text to buf with o's tokens ({def}, {min}, {max}, {align}, {choices}) filled in. */
static void fill_tokens(const struct cli_opt *o, const char *text, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	while (*text && n + 1 < len) {
		char val[256];
		const char *end;
		size_t k;

		if (*text != '{' || !(end = strchr(text, '}'))) {
			buf[n++] = *text++;
			continue;
		}
		k = (size_t)(end - text + 1);
		if (k == 5 && strncmp(text, "{def}", 5) == 0) {
			if (o->def_str)
				snprintf(val, sizeof(val), "%s", o->def_str);
			else
				fmt_value(o, o->def, val, sizeof(val));
		} else if (k == 5 && strncmp(text, "{min}", 5) == 0) {
			fmt_bound(o, o->min, val, sizeof(val));
		} else if (k == 5 && strncmp(text, "{max}", 5) == 0) {
			fmt_bound(o, o->max, val, sizeof(val));
		} else if (k == 7 && strncmp(text, "{align}", 7) == 0) {
			snprintf(val, sizeof(val), "%u", o->align);
		} else if (k == 9 && strncmp(text, "{choices}", 9) == 0) {
			fmt_choices(cli_opt_choices(o), val, sizeof(val));
		} else {
			buf[n++] = *text++;
			continue;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s", val);
		if (n >= len)
			n = len - 1;
		text = end + 1;
	}
	buf[n] = '\0';
}

void cli_opt_help_text(const struct cli_opt *o, char *buf, size_t len)
{
	fill_tokens(o, o->help, buf, len);
}

/* Return 8 after saying why arg is no value for o. */
static int refuse(const struct cli_opt *o, const char *arg)
{
	char hint[512], choices[256];
	const char *h = o->hint;

	if (!h) {
		switch (o->type) {
		case CLI_OPT_CHOICE:
			fmt_choices(cli_opt_choices(o), choices, sizeof(choices));
			report_err("bad --%s '%s': choose %s", o->name, arg, choices);
			return REPORT_EXIT_USAGE;
		case CLI_OPT_RATE:
			h = "give bytes per second, e.g. 50M or 50M/s";
			break;
		case CLI_OPT_DURATION:
			h = "give a duration such as 30s, 90m, 12h, 7d";
			break;
		default:
			h = "give a number from {min} to {max}";
			break;
		}
	}
	fill_tokens(o, h, hint, sizeof(hint));
	report_err("bad --%s '%s': %s", o->name, arg, hint);
	return REPORT_EXIT_USAGE;
}

/* Return 0 if arg is one of the words of choices ("a|b|c"). */
static int check_choice(const char *choices, const char *arg)
{
	size_t k = strlen(arg);

	for (const char *p = choices; p; p = strchr(p, '|'), p = p ? p + 1 : NULL)
		if (strncmp(p, arg, k) == 0 && (p[k] == '|' || p[k] == '\0'))
			return 0;
	return -EINVAL;
}

/* Return 0 after parsing arg as a decimal number within o's bounds into *v. */
static int parse_uint(const struct cli_opt *o, const char *arg, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, o->flags & CLI_OPT_ANYBASE ? 0 : 10);
	if (errno || *end || end == arg || arg[0] == '-' || *v < o->min || *v > o->max)
		return -EINVAL;
	return 0;
}

int cli_opt_parse(const struct cli_opt *o, const char *arg, void *cfg)
{
	void *dst = field(cfg, o->off);
	unsigned long long u;
	double d;
	char *end;

	switch (o->type) {
	case CLI_OPT_FLAG:
		*(int *)dst = 1;
		break;
	case CLI_OPT_CHOICE:
		if (check_choice(cli_opt_choices(o), arg))
			return refuse(o, arg);
		/* fall through */
	case CLI_OPT_STR:
	case CLI_OPT_FILE:
		*(const char **)dst = arg;
		break;
	case CLI_OPT_SIZE:
		if (report_parse_size(arg, (uint64_t *)dst) || *(uint64_t *)dst < o->min ||
		    *(uint64_t *)dst > o->max || (o->align && *(uint64_t *)dst % o->align) ||
		    ((o->flags & CLI_OPT_POW2) && (*(uint64_t *)dst & (*(uint64_t *)dst - 1))))
			return refuse(o, arg);
		break;
	case CLI_OPT_SINCE:
		if (report_parse_since(arg, (int64_t *)dst))
			return refuse(o, arg);
		break;
	case CLI_OPT_RATE:
		if (report_parse_rate(arg, (uint64_t *)dst))
			return refuse(o, arg);
		break;
	case CLI_OPT_DURATION:
		if (report_parse_duration(arg, (double *)dst) ||
		    (*(double *)dst <= 0 && (o->flags & CLI_OPT_POSITIVE)) ||
		    *(double *)dst > o->max)
			return refuse(o, arg);
		break;
	case CLI_OPT_UINT:
		if (parse_uint(o, arg, &u))
			return refuse(o, arg);
		if (o->flags & CLI_OPT_WIDE)
			*(uint64_t *)dst = u;
		else
			*(unsigned *)dst = (unsigned)u;
		break;
	case CLI_OPT_SCALED:
		d = strtod(arg, &end);
		if (end == arg || *end || !(d >= o->min && d <= o->max))
			return refuse(o, arg);
		*(unsigned *)dst = (unsigned)(d * o->scale + 0.5);
		break;
	}
	if (o->flags & CLI_OPT_MARK)
		*(int *)field(cfg, o->set_off) = 1;
	return 0;
}

/* Print the words of text after col characters, each after a space, wrapped before OPT_WIDTH. */
static void print_wrapped(FILE *f, const char *text, int col)
{
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > OPT_COL - 1 && col + 1 + (int)w > OPT_WIDTH) {
			fprintf(f, "\n%*s", OPT_COL - 1, "");
			col = OPT_COL - 1;
		}
		fprintf(f, " %.*s", (int)w, p);
		col += 1 + (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void cli_opt_usage(FILE *f, const struct cli_opt *opts, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		const struct cli_opt *o = &opts[i];
		const char *arg = o->arg ? o->arg : cli_opt_choices(o);
		char left[256], help[2048];
		int n;

		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		if (o->section)
			fprintf(f, "%s:\n", o->section);
		if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->name);
		else
			n = snprintf(left, sizeof(left), "--%s", o->name);
		if (o->type != CLI_OPT_FLAG && arg)
			n += snprintf(left + n, sizeof(left) - (size_t)n, " %s", arg);
		cli_opt_help_text(o, help, sizeof(help));
		if (n <= OPT_COL - 3) {
			fprintf(f, "  %-*s", OPT_COL - 3, left);
			print_wrapped(f, help, OPT_COL - 1);
		} else {
			fprintf(f, "  %s ", left);
			print_wrapped(f, help, n + 3);
		}
	}
}

void cli_opts_usage(FILE *f, const struct cli_opts *c)
{
	fputs(c->synopsis, f);
	cli_opt_usage(f, c->opts, c->nr);
	if (c->after)
		fputs(c->after, f);
	report_print_exits(f, c->cmd);
}

int cli_opts_parse(const struct cli_opts *c, int argc, char **argv, void *cfg)
{
	struct option lopts[CLI_MAX_OPTS + 2];
	char shorts[2 * CLI_MAX_OPTS + 2];
	int ch, ret;

	if (c->nr > CLI_MAX_OPTS) {		/* test_cli_opts keeps every table within */
		report_err("%s: %zu options, more than %d", c->cmd, c->nr, CLI_MAX_OPTS);
		return REPORT_EXIT_USAGE;
	}
	cli_opt_defaults(c->opts, c->nr, cfg);
	cli_opt_getopt(c->opts, c->nr, lopts, shorts, sizeof(shorts));
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		const struct cli_opt *o = NULL;

		if (ch == 'h') {
			cli_opts_usage(stdout, c);
			return 1;
		}
		if (ch >= 256 && (size_t)(ch - 256) < c->nr)
			o = &c->opts[ch - 256];
		for (size_t i = 0; !o && ch != '?' && i < c->nr; i++)
			if (c->opts[i].short_name == ch)
				o = &c->opts[i];
		if (!o) {
			report_err("%s: unknown or incomplete option '%s' (see mediascan %s --help)",
				   c->cmd, argv[optind - 1], c->cmd);
			return REPORT_EXIT_USAGE;
		}
		ret = cli_opt_parse(o, optarg, cfg);
		if (ret)
			return ret;
	}
	return 0;
}
