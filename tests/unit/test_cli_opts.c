/*
 * tests/unit/test_cli_opts.c - the option tables of patrol, status, report, probe, map and forget
 * (in cli/, one per subcommand file) are the one source: the man page's section of each subcommand
 * names each option and its default, docs/usage.md's does too, the bash completion completes what
 * follows each option as the table says it takes and offers no option the table lacks; every table
 * parses its own usage's names and --help prints each option. scan's table has its own test
 * (test_scan_opts.c). Run with the source root as its argument.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "opts.h"
#include "doc_text.h"

/* Where a subcommand's options are documented. */
struct cmd_docs {
	const struct cli_opts *c;
	const char *man;		/* the man page's section heading */
	const char *usage;		/* docs/usage.md's, or NULL: none of its own */
	const char *comp;		/* the completion's case label that starts its block */
};

static const struct cmd_docs docs[] = {
	{ &cli_patrol_opts, "\n# PATROL\n", "## Options of `patrol`", "\tpatrol)\n" },
	{ &cli_status_opts, "\n# STATUS AND REPORT\n", "## Options of `patrol`", "\tstatus)\n" },
	{ &cli_report_opts, "\n# STATUS AND REPORT\n", "## Options of `patrol`", "\treport)\n" },
	{ &cli_forget_opts, "\n# STATUS AND REPORT\n", "## Options of `patrol`", "\tforget)\n" },
	{ &cli_map_opts, "\n# MAP\n", "## `mediascan map`", "\tmap | probe)\n" },
	{ &cli_probe_opts, "\n# PROBE\n", NULL, "\tmap | probe)\n" },
};

#define NR_DOCS (sizeof(docs) / sizeof(docs[0]))

/* Return the default of o as its help says it, into buf; 0 if the help names none. */
static int default_text(const struct cli_opt *o, char *buf, size_t len)
{
	struct cli_opt d = *o;

	if (!strstr(o->help, "{def}"))
		return 0;
	d.help = "{def}";
	cli_opt_help_text(&d, buf, len);
	return 1;
}

/* Every subcommand but scan has its documents here, and every table is listed once. */
static void test_every_table(void **state)
{
	(void)state;
	assert_int_equal(cli_nr_all_opts, NR_DOCS + 1);
	for (size_t i = 0; i < cli_nr_all_opts; i++) {
		int found = cli_all_opts[i] == &cli_scan_cmd_opts;

		for (size_t k = 0; k < NR_DOCS; k++)
			found += docs[k].c == cli_all_opts[i];
		if (found != 1)
			fail_msg("%s: its options are checked %d times", cli_all_opts[i]->cmd, found);
		assert_true(cli_all_opts[i]->nr <= CLI_MAX_OPTS);
	}
}

/* The man page: each option of each table in its subcommand's section, with its default. */
static void test_man_page(void **state)
{
	char *all = doc_slurp("man/mediascan.8.scd");

	(void)state;
	for (size_t k = 0; k < NR_DOCS; k++) {
		char *sec = doc_section(all, docs[k].man, "\n# ");

		for (size_t i = 0; i < docs[k].c->nr; i++) {
			const struct cli_opt *o = &docs[k].c->opts[i];
			char pat[128], def[256];

			snprintf(pat, sizeof(pat), "*--%s*", o->name);
			if (!strstr(sec, pat))
				fail_msg("man page: %.*s does not name %s --%s",
					 (int)strlen(docs[k].man) - 2, docs[k].man + 1, docs[k].c->cmd,
					 o->name);
			if (o->short_name) {
				snprintf(pat, sizeof(pat), "*-%c*", o->short_name);
				if (!strstr(sec, pat))
					fail_msg("man page: %.*s does not name %s -%c",
						 (int)strlen(docs[k].man) - 2, docs[k].man + 1,
						 docs[k].c->cmd, o->short_name);
			}
			if (default_text(o, def, sizeof(def)) && !strstr(sec, def))
				fail_msg("man page: %s --%s does not say its default %s",
					 docs[k].c->cmd, o->name, def);
		}
		free(sec);
	}
	free(all);
}

/* Return 1 if text names --name (not a longer option that starts so). */
static int names_opt(const char *text, const char *name)
{
	char pat[128];
	size_t k = (size_t)snprintf(pat, sizeof(pat), "--%s", name);

	for (const char *p = strstr(text, pat); p; p = strstr(p + 1, pat))
		if (!strchr("abcdefghijklmnopqrstuvwxyz-", p[k]) || !p[k])
			return 1;
	return 0;
}

/* docs/usage.md: each option in its subcommand's section, with its default. */
static void test_usage_md(void **state)
{
	char *all = doc_slurp("docs/usage.md");

	(void)state;
	for (size_t k = 0; k < NR_DOCS; k++) {
		char *sec;

		if (!docs[k].usage)
			continue;
		sec = doc_section(all, docs[k].usage, "\n## ");
		for (size_t i = 0; i < docs[k].c->nr; i++) {
			const struct cli_opt *o = &docs[k].c->opts[i];
			char pat[128], def[256];

			(void)pat;
			if (!names_opt(sec, o->name))
				fail_msg("docs/usage.md: '%s' does not name %s --%s", docs[k].usage,
					 docs[k].c->cmd, o->name);
			if (default_text(o, def, sizeof(def)) && !strstr(sec, def))
				fail_msg("docs/usage.md: %s --%s does not say its default %s",
					 docs[k].c->cmd, o->name, def);
		}
		free(sec);
	}
	free(all);
}

/* Return the option of the tables of the commands whose block starts at label, or NULL. */
static const struct cli_opt *block_opt(const char *label, const char *name)
{
	const struct cli_opt *o = NULL;

	for (size_t k = 0; k < NR_DOCS && !o; k++)
		if (strcmp(docs[k].comp, label) == 0)
			o = cli_opt_find(docs[k].c->opts, docs[k].c->nr, name);
	return o;
}

/*
 * Completion: in each subcommand's block, what follows an option is what its table says it
 * takes (a path: _filedir; a value: nothing offered), every option the block names is one of
 * the tables, and a fixed list of options offered is the table's, with --help.
 */
static void test_completion(void **state)
{
	char *all = doc_slurp("completion/mediascan");

	(void)state;
	for (size_t k = 0; k < NR_DOCS; k++) {
		const struct cli_opts *c = docs[k].c;
		char *blk = doc_section(all, docs[k].comp, "\t;;\n");
		char *cases = doc_section(blk, "case \"$prev\" in", "esac");
		const char *list = strstr(blk, "compgen -W \"--");

		for (char *p = strstr(cases, "\\\n"); p; p = strstr(p, "\\\n"))
			memset(p, ' ', 2);
		/* every option the cases name belongs to the block's commands */
		for (char *p = strstr(cases, "--"); p; p = strstr(p + 2, "--")) {
			char name[64];

			if (sscanf(p + 2, "%63[a-z-]", name) == 1 && !block_opt(docs[k].comp, name))
				fail_msg("completion: %s names --%s, no option of it", docs[k].comp + 1,
					 name);
		}
		for (size_t i = 0; i < c->nr; i++) {
			const struct cli_opt *o = &c->opts[i];
			char pat[128];
			const char *at, *eol;

			if (o->type == CLI_OPT_FLAG)
				continue;
			snprintf(pat, sizeof(pat), "--%s", o->name);
			at = NULL;
			for (const char *p = strstr(cases, pat); p && !at; p = strstr(p + 1, pat))
				if (strchr(" )|", p[strlen(pat)]))
					at = p;
			if (!at)
				fail_msg("completion: nothing says what follows %s --%s", c->cmd,
					 o->name);
			eol = strchrnul(at, '\n');
			if (o->type == CLI_OPT_FILE ? !memmem(at, (size_t)(eol - at), "_filedir", 8) :
			    !memmem(at, (size_t)(eol - at), ") return ;;", 11))
				fail_msg("completion: %s --%s is completed as: %.*s", c->cmd, o->name,
					 (int)(eol - at), at);
		}
		if (list) {
			char words[512], want[1024] = "--help";

			snprintf(words, sizeof(words), "%s", list + strlen("compgen -W \""));
			*strchrnul(words, '"') = '\0';
			for (size_t i = 0; i < c->nr; i++) {
				strcat(want, " --");
				strcat(want, c->opts[i].name);
			}
			if (!doc_same_words(want, words))
				fail_msg("completion: %s offers '%s', the table '%s'", c->cmd, words,
					 want);
		}
		free(cases);
		free(blk);
	}
	free(all);
}

/* The usage names each option (a hidden one aside), and each parses as its type says. */
static void test_usage_and_parse(void **state)
{
	(void)state;
	for (size_t k = 0; k < cli_nr_all_opts; k++) {
		const struct cli_opts *c = cli_all_opts[k];
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		cli_opts_usage(f, c);
		fclose(f);
		if (strncmp(buf, "usage: mediascan ", 17) || !strstr(buf, "\nexit status"))
			fail_msg("%s: the usage lacks its synopsis or exit table", c->cmd);
		for (size_t i = 0; i < c->nr; i++) {
			char pat[128];

			snprintf(pat, sizeof(pat), "  --%s", c->opts[i].name);
			if (c->opts[i].short_name)
				snprintf(pat, sizeof(pat), "  -%c, --%s", c->opts[i].short_name,
					 c->opts[i].name);
			if (!(c->opts[i].flags & CLI_OPT_HIDDEN) && !strstr(buf, pat))
				fail_msg("%s --help does not list --%s", c->cmd, c->opts[i].name);
		}
		free(buf);
	}
}

/* Return the uint64_t field of o in the arguments args. */
static uint64_t u64_at(const void *args, const struct cli_opt *o)
{
	uint64_t v;

	memcpy(&v, (const char *)args + o->off, sizeof(v));
	return v;
}

/*
 * map's numbers: any base, bounds, a power of two; report's dates; patrol's default. The
 * arguments are a zeroed buffer read at each option's offset, whatever struct holds them.
 */
static void test_map_report_patrol(void **state)
{
	_Alignas(16) unsigned char args[512];
	char *argv_patrol[] = { (char *)"patrol", NULL };
	const struct cli_opt *o, *cfg;
	const char *config;
	int mark;

	(void)state;
	memset(args, 0, sizeof(args));
	o = cli_opt_find(cli_map_opts.opts, cli_map_opts.nr, "sector");
	assert_non_null(o);
	assert_true(o->off + 8 <= sizeof(args) && o->set_off + sizeof(int) <= sizeof(args));
	assert_int_equal(cli_opt_parse(o, "x", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "-1", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "0x10", args), 0);
	assert_int_equal(u64_at(args, o), 16);
	memcpy(&mark, args + o->set_off, sizeof(mark));
	assert_int_equal(mark, 1);
	assert_int_equal(cli_opt_parse(o, "18446744073709551615", args), 0);
	assert_true(u64_at(args, o) == UINT64_MAX);
	o = cli_opt_find(cli_map_opts.opts, cli_map_opts.nr, "count");
	assert_int_equal(cli_opt_parse(o, "0", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "8", args), 0);
	assert_int_equal(u64_at(args, o), 8);
	o = cli_opt_find(cli_map_opts.opts, cli_map_opts.nr, "block-size");
	assert_int_equal(cli_opt_parse(o, "3000", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "256", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "128k", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "4k", args), 0);
	assert_int_equal(u64_at(args, o), 4096);
	o = cli_opt_find(cli_report_opts.opts, cli_report_opts.nr, "since");
	assert_non_null(o);
	assert_int_equal(o->type, CLI_OPT_SINCE);
	assert_int_equal(cli_opt_parse(o, "yesterday", args), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "@1700000000", args), 0);
	assert_int_equal((int64_t)u64_at(args, o), 1700000000);
	/* patrol without options: the default config file */
	memset(args, 0, sizeof(args));
	assert_int_equal(cli_opts_parse(&cli_patrol_opts, 1, argv_patrol, args), 0);
	cfg = cli_opt_find(cli_patrol_opts.opts, cli_patrol_opts.nr, "config");
	assert_non_null(cfg);
	memcpy(&config, args + cfg->off, sizeof(config));
	assert_non_null(config);
	assert_string_equal(config, cfg->def_str);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_usage_md),
		cmocka_unit_test(test_completion),
		cmocka_unit_test(test_usage_and_parse),
		cmocka_unit_test(test_map_report_patrol),
	};

	if (argc > 1)
		doc_src_root = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
