/*
 * cli/scan_opts.c - the options of `mediascan scan` as one table, and what is made from it:
 * getopt's table, the usage lines, the parse of each argument into struct run_cfg. Every
 * default shown is the constant the pass or the engine uses.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_opts.h"
#include "cli.h"
#include "exits.h"
#include "units.h"
#include "verify.h"
#include "engine.h"
#include "governor.h"
#include "plan.h"

#define F(field) offsetof(struct run_cfg, field)
#define TEN_YEARS_S (10 * 365 * 86400.0)

const struct cli_opt cli_scan_opts[] = {
	{ .name = "json", .type = CLI_OPT_FILE, .arg = "FILE|-", .off = F(json),
	  .section = "output",
	  .help = "write the JSON report (schema mediascan-report/1)" },
	{ .name = "html", .type = CLI_OPT_FILE, .arg = "FILE|-", .off = F(html),
	  .help = "write the HTML report: a surface map of each device, the damaged files and "
		  "metadata (one self-contained page)" },
	{ .name = "progress", .type = CLI_OPT_CHOICE, .flags = CLI_OPT_INIT,
	  .choices = "auto|bar|log|none", .def_str = "auto", .off = F(progress),
	  .help = "progress on stderr: a bar (auto: on a terminal) or one machine-readable line "
		  "a second (log)" },
	{ .name = "quiet", .short_name = 'q', .type = CLI_OPT_FLAG, .off = F(quiet),
	  .help = "no human summary" },
	{ .name = "format", .type = CLI_OPT_CHOICE, .choices = "human|xfs_scrub", .off = F(format),
	  .help = "xfs_scrub: damage as xfs_scrub -x prints it on stderr (\"Unfixable Error: "
		  "PATH: media error at data offset N length M.\") instead of the human summary" },

	{ .name = "io-size", .type = CLI_OPT_SIZE, .arg = "SIZE", .min = 512, .max = 64 << 20,
	  .align = 512, .def = SCAN_DEFAULT_IO_SIZE, .off = F(pass.io_size), .section = "I/O",
	  .hint = "give a multiple of {align} from {min} to {max}, e.g. 1M",
	  .help = "bytes per read, a multiple of {align} (default: {def}, capped by the queue's "
		  "max_sectors_kb; a size given is used as given, whole blocks; above that "
		  "limit the kernel splits it)" },
	{ .name = "queue-depth", .type = CLI_OPT_UINT, .flags = CLI_OPT_WIDE, .arg = "N",
	  .min = 1, .max = 4096, .def = PASS_DEFAULT_DEPTH, .off = F(pass.depth),
	  .help = "reads or device commands in flight (default {def})" },
	{ .name = "engine", .type = CLI_OPT_STR, .choices_fn = scan_engine_names,
	  .off = F(pass.engine),
	  .help = "I/O engine (default: the first that works)" },
	{ .name = "method", .type = CLI_OPT_STR, .flags = CLI_OPT_INIT, .arg = "M",
	  .choices_fn = vfy_method_names, .def_str = "auto", .off = F(pass.method),
	  .help = "how blocks are verified: {choices} (default {def}; mediascan probe says which "
		  "work); a drive-side verify is trusted only where it proved that it reads the "
		  "medium (timed against reads of the plan)" },
	{ .name = "trust-verify", .type = CLI_OPT_FLAG, .off = F(pass.trust_verify),
	  .help = "use a drive-side verify that failed that proof" },
	{ .name = "sample-reads", .type = CLI_OPT_SCALED, .flags = CLI_OPT_MARK, .arg = "PCT",
	  .min = 0, .max = 100, .scale = 10, .def = PASS_DEFAULT_SAMPLE_PERMILLE,
	  .off = F(pass.sample_permille), .set_off = F(pass.sample_set),
	  .hint = "a percentage from {min} to {max}",
	  .help = "also read PCT% of what a drive-side verify passed; a read that fails there "
		  "voids the method on that device and the plan is read again (default {def}, "
		  "{min} to {max})" },
	{ .name = "merge-gap", .type = CLI_OPT_SIZE, .arg = "SIZE", .max = 1 << 30,
	  .def = MAP_DEFAULT_GAP_ROTATIONAL, .off = F(pass.merge_gap),
	  .hint = "give a size up to {max}, e.g. 64k",
	  .help = "bridge gaps up to SIZE between ranges (default {def} on rotational disks, 0 "
		  "otherwise)" },
	{ .name = "io-timeout", .type = CLI_OPT_DURATION, .flags = CLI_OPT_INIT,
	  .arg = "DURATION", .max = TEN_YEARS_S, .def = PASS_DEFAULT_IO_TIMEOUT_S,
	  .off = F(pass.io_timeout_s),
	  .help = "a read slower than this is set aside; once the queue has drained it is read "
		  "again alone and narrowed: 'slow' sectors with their latency, never damage "
		  "(default {def}; 0 disables)" },
	{ .name = "max-failed-reads", .type = CLI_OPT_UINT, .flags = CLI_OPT_MARK, .arg = "N",
	  .min = 0, .max = 1000000, .def = PASS_DEFAULT_MAX_FAILED_READS,
	  .off = F(pass.max_failed_reads), .set_off = F(pass.max_failed_reads_set),
	  .help = "after N failed or late reads in a row the disk is called failing and the "
		  "scan stops (default {def}; 0 never)" },

	{ .name = "rate", .type = CLI_OPT_RATE, .arg = "SIZE[/s]", .off = F(pass.rate),
	  .section = "pacing",
	  .help = "read at most SIZE per second (fio's deadline model)" },
	{ .name = "window", .type = CLI_OPT_DURATION, .flags = CLI_OPT_POSITIVE,
	  .arg = "DURATION", .max = TEN_YEARS_S, .off = F(pass.window_s),
	  .help = "pace the pass to end within DURATION (7d, 12h, 90m)" },
	{ .name = "rate-min", .type = CLI_OPT_RATE, .arg = "SIZE[/s]",
	  .def = SCAN_GOV_FLOOR_BPS_DEFAULT, .off = F(pass.rate_min),
	  .help = "floor of the window rate and of pacing (default {def})" },
	{ .name = "rate-max", .type = CLI_OPT_RATE, .arg = "SIZE[/s]", .off = F(pass.rate_max),
	  .help = "ceiling of the window rate" },
	{ .name = "pacing", .type = CLI_OPT_CHOICE, .choices = "latency|backoff|off",
	  .off = F(pass.pacing),
	  .help = "how to yield to other I/O on the disk: latency keeps other requests' mean "
		  "time within --latency-target of theirs without the scan (default with "
		  "--window); backoff drops to --rate-min while any other I/O is seen (default "
		  "with --rate); off: the pace only" },
	{ .name = "latency-target", .type = CLI_OPT_SCALED, .arg = "X", .min = 1.01, .max = 10,
	  .scale = 100, .def = SCAN_GOV_LAT_TARGET_PCT_DEFAULT, .off = F(pass.lat_target_pct),
	  .hint = "a factor from {min} to {max} (1.25: 25% slower than alone)",
	  .help = "other requests may take X times as long (default {def})" },
	{ .name = "no-backoff", .type = CLI_OPT_FLAG, .off = F(pass.no_backoff),
	  .help = "same as --pacing off" },
	{ .name = "ioprio", .type = CLI_OPT_CHOICE, .choices = "idle|be", .off = F(pass.ioprio),
	  .help = "I/O priority class (default idle with --window, else be); only the BFQ and "
		  "mq-deadline schedulers act on it" },
	{ .name = "max-duration", .type = CLI_OPT_DURATION, .flags = CLI_OPT_POSITIVE,
	  .arg = "DURATION", .max = TEN_YEARS_S, .off = F(pass.max_duration_s),
	  .help = "stop cleanly after this long, with a checkpoint" },

	{ .name = "state-dir", .type = CLI_OPT_FILE, .flags = CLI_OPT_INIT, .arg = "DIR",
	  .def_str = REPORT_DEFAULT_STATE_DIR, .off = F(pass.state_dir), .section = "state",
	  .help = "checkpoints and history (default {def})" },
	{ .name = "resume", .type = CLI_OPT_FLAG, .off = F(pass.resume),
	  .help = "continue the interrupted pass of this target" },
	{ .name = "recheck", .type = CLI_OPT_FLAG, .off = F(pass.recheck),
	  .help = "re-read only the open errors of the history (after a restore or a drive's "
		  "reallocation): cleared when read clean" },
	{ .name = "no-state", .type = CLI_OPT_FLAG, .off = F(pass.no_state),
	  .help = "keep no checkpoints" },
	{ .name = "top-only", .type = CLI_OPT_FLAG, .off = F(pass.top_only),
	  .help = "on md RAID/LVM/dm-crypt: read the filesystem's device as md serves it, not "
		  "every copy on the member disks" },
	{ .name = "compare", .type = CLI_OPT_FLAG, .off = F(pass.compare),
	  .help = "on md RAID/LVM raid: compare the copies (mirrors, parity, RAID6 P and Q) "
		  "read at member level; differing copies are named with their files" },
	{ .name = "no-compare", .type = CLI_OPT_FLAG, .off = F(pass.no_compare),
	  .help = "do not compare the copies (the default of scan; patrol compares when the "
		  "machine has 2 CPUs or more)" },
};
const size_t cli_scan_nr_opts = sizeof(cli_scan_opts) / sizeof(cli_scan_opts[0]);

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

static void *field(struct run_cfg *cfg, size_t off)
{
	return (char *)cfg + off;
}

void cli_opt_defaults(const struct cli_opt *opts, size_t nr, struct run_cfg *cfg)
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
	*v = strtoull(arg, &end, 10);
	if (errno || *end || end == arg || arg[0] == '-' || *v < o->min || *v > o->max)
		return -EINVAL;
	return 0;
}

int cli_opt_parse(const struct cli_opt *o, const char *arg, struct run_cfg *cfg)
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
		    *(uint64_t *)dst > o->max || (o->align && *(uint64_t *)dst % o->align))
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
