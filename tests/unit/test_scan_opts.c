/*
 * test_scan_opts.c - the option table of `mediascan scan` (cli/scan_opts.c) is the one source:
 * the bash completion's value lists, the man page's option list and docs/usage.md's table
 * agree with it (names, choices, the defaults the help names), and the parse keeps its bounds.
 * Run with the source root as its argument.
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

/* The completion's `case "$prev"` of scan: one label list and what it does. */
struct comp_case {
	char labels[512];		/* " --a --b " */
	char action[512];
};

/* Parse the scan block of completion/mediascan into cases; return how many. */
static int comp_cases(struct comp_case *cc, int max)
{
	char *all = doc_slurp("completion/mediascan");
	char *scan = doc_section(all, "\tscan)\n", "\tmap | probe)");
	char *blk = doc_section(scan, "case \"$prev\" in", "esac");
	char *line, *save;
	int n = 0;

	/* join continued lines */
	for (char *p = strstr(blk, "\\\n"); p; p = strstr(p, "\\\n"))
		memset(p, ' ', 2);
	for (line = strtok_r(blk, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *paren = strchr(line, ')');
		char *l = line;

		while (*l == ' ' || *l == '\t')
			l++;
		if (strncmp(l, "--", 2) || !paren || n == max)
			continue;
		cc[n].labels[0] = ' ';
		cc[n].labels[1] = '\0';
		*paren = '\0';
		for (char *w = strtok(l, " |\t"); w; w = strtok(NULL, " |\t")) {
			strncat(cc[n].labels, w, sizeof(cc[n].labels) - strlen(cc[n].labels) - 2);
			strcat(cc[n].labels, " ");
		}
		snprintf(cc[n].action, sizeof(cc[n].action), "%s", paren + 1);
		n++;
	}
	free(blk);
	free(scan);
	free(all);
	return n;
}

/* Return the case whose labels name --name, or NULL. */
static const struct comp_case *comp_find(const struct comp_case *cc, int n, const char *name)
{
	char pat[128];

	snprintf(pat, sizeof(pat), " --%s ", name);
	for (int i = 0; i < n; i++)
		if (strstr(cc[i].labels, pat))
			return &cc[i];
	return NULL;
}

/* Completion: what follows each option is what the table says it takes. */
static void test_completion(void **state)
{
	struct comp_case cc[64];
	int n = comp_cases(cc, 64);

	(void)state;
	assert_true(n > 3);
	for (size_t i = 0; i < cli_scan_nr_opts; i++) {
		const struct cli_opt *o = &cli_scan_opts[i];
		const struct comp_case *c = comp_find(cc, n, o->name);
		const char *choices = cli_opt_choices(o);
		const char *w;

		if (o->type == CLI_OPT_FLAG) {
			if (c)
				fail_msg("completion: --%s takes no value but is completed",
					 o->name);
			continue;
		}
		if (!c)
			fail_msg("completion: nothing says what follows --%s", o->name);
		if (o->type == CLI_OPT_FILE) {
			if (!strstr(c->action, "_filedir"))
				fail_msg("completion: --%s takes a path: %s", o->name, c->action);
		} else if (choices) {
			w = strstr(c->action, "compgen -W \"");
			if (!w)
				fail_msg("completion: --%s has no word list: %s", o->name,
					 c->action);
			char words[512];

			snprintf(words, sizeof(words), "%s", w + strlen("compgen -W \""));
			*strchrnul(words, '"') = '\0';
			if (o->choices_fn ? !doc_words_within(choices, words) :
					    !doc_same_words(choices, words))
				fail_msg("completion: --%s offers '%s', the table '%s'", o->name,
					 words, choices);
		} else if (strncmp(c->action, " return ;;", 10) != 0) {
			fail_msg("completion: --%s takes a value, completed as: %s", o->name,
				 c->action);
		}
	}
	/* and nothing the table does not know */
	for (int i = 0; i < n; i++) {
		char labels[1024], *w, *save;

		memcpy(labels, cc[i].labels, sizeof(cc[i].labels));
		for (w = strtok_r(labels, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (!cli_opt_find(cli_scan_opts, cli_scan_nr_opts, w + 2))
				fail_msg("completion: %s is no option of scan", w);
	}
}

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

/* Man page: the SCAN section defines each option once, with its choices and default. */
static void test_man_page(void **state)
{
	char *all = doc_slurp("man/mediascan.8.scd");
	char *scan = doc_section(all, "\n# SCAN\n", "\n# ");
	char *copy = strdup(scan), *line, *save;

	(void)state;
	/* every definition line (starting with *-) names options of the table */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "*-", 2))
			continue;
		for (char *p = strstr(line, "*--"); p; p = strstr(p + 1, "*--")) {
			char name[64];

			if (sscanf(p + 3, "%63[a-z-]", name) != 1)
				continue;
			if (!cli_opt_find(cli_scan_opts, cli_scan_nr_opts, name))
				fail_msg("man page SCAN defines --%s, no option of scan", name);
		}
	}
	free(copy);
	for (size_t i = 0; i < cli_scan_nr_opts; i++) {
		const struct cli_opt *o = &cli_scan_opts[i];
		const char *choices = cli_opt_choices(o);
		char pat[512], def[256];
		const char *def_line = NULL, *end;
		char *para;

		snprintf(pat, sizeof(pat), "*--%s*", o->name);
		for (const char *p = strstr(scan, pat); p && !def_line; p = strstr(p + 1, pat)) {
			const char *bol = p;

			while (bol > scan && bol[-1] != '\n')
				bol--;
			if (strncmp(bol, "*-", 2) == 0)
				def_line = bol;
		}
		if (!def_line)
			fail_msg("man page SCAN does not define --%s", o->name);
		end = strstr(def_line, "\n\n");
		para = strndup(def_line, end ? (size_t)(end - def_line) : strlen(def_line));
		if (choices && !o->choices_fn) {
			snprintf(pat, sizeof(pat), "*--%s* %s\n", o->name, choices);
			if (!strstr(para, pat))
				fail_msg("man page: --%s does not offer %s", o->name, choices);
		} else if (choices) {
			char first[512];

			snprintf(first, sizeof(first), "%.*s", (int)strcspn(para, "\n"), para);
			if (!doc_words_within(choices, strchrnul(first, ' ')))
				fail_msg("man page: --%s lacks one of %s", o->name, choices);
		}
		if (default_text(o, def, sizeof(def))) {
			snprintf(pat, sizeof(pat), "default %s", def);
			if (!strstr(para, pat))
				fail_msg("man page: --%s does not say 'default %s'", o->name, def);
		}
		free(para);
	}
	free(scan);
	free(all);
}

/* docs/usage.md: one row per option of scan, with its choices and default. */
static void test_usage_md(void **state)
{
	char *all = doc_slurp("docs/usage.md");
	char *scan = doc_section(all, "## Scanning: options of `scan`", "\n## ");
	char *copy = strdup(scan), *line, *save;

	(void)state;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *cell_end;

		if (strncmp(line, "| `-", 4))
			continue;
		cell_end = strstr(line + 2, " | ");
		if (cell_end)
			*cell_end = '\0';
		for (char *p = strstr(line, "`--"); p; p = strstr(p + 1, "`--")) {
			char name[64];

			if (sscanf(p + 3, "%63[a-z-]", name) != 1)
				continue;
			if (!cli_opt_find(cli_scan_opts, cli_scan_nr_opts, name))
				fail_msg("docs/usage.md lists --%s, no option of scan", name);
		}
	}
	free(copy);
	for (size_t i = 0; i < cli_scan_nr_opts; i++) {
		const struct cli_opt *o = &cli_scan_opts[i];
		const char *choices = cli_opt_choices(o);
		char pat[512], def[256], *row = NULL;

		snprintf(pat, sizeof(pat), "`--%s", o->name);
		for (char *p = strstr(scan, pat); p && !row; p = strstr(p + 1, pat)) {
			char *bol = p, *cell_end;

			while (bol > scan && bol[-1] != '\n')
				bol--;
			cell_end = strstr(bol + 2, " | ");
			if (strncmp(bol, "| `-", 4) == 0 && cell_end && p < cell_end &&
			    strchr(" `", p[strlen(pat)]))
				row = strndup(bol, strcspn(bol, "\n"));
		}
		if (!row)
			fail_msg("docs/usage.md has no row for --%s", o->name);
		if (choices && !o->choices_fn) {
			char esc[256];
			size_t n = 0;

			for (const char *c = choices; *c && n + 3 < sizeof(esc); c++) {
				if (*c == '|')
					esc[n++] = '\\';
				esc[n++] = *c;
			}
			esc[n] = '\0';
			snprintf(pat, sizeof(pat), "`--%s %s`", o->name, esc);
			if (!strstr(row, pat))
				fail_msg("docs/usage.md: --%s does not offer %s", o->name, choices);
		}
		if (default_text(o, def, sizeof(def))) {
			char quoted[512];

			snprintf(pat, sizeof(pat), "default %s", def);
			snprintf(quoted, sizeof(quoted), "default `%s`", def);
			if (!strstr(row, pat) && !strstr(row, quoted))
				fail_msg("docs/usage.md: --%s does not say 'default %s'",
					 o->name, def);
		}
		free(row);
	}
	free(scan);
	free(all);
}

/* The help names the defaults the pass uses, and the parse keeps the bounds. */
static void test_defaults_and_bounds(void **state)
{
	const struct cli_opt *o;
	struct run_cfg cfg;
	char buf[1024];

	(void)state;
	o = cli_opt_find(cli_scan_opts, cli_scan_nr_opts, "io-timeout");
	assert_non_null(o);
	cli_opt_help_text(o, buf, sizeof(buf));
	assert_non_null(strstr(buf, "(default 30s; 0 disables)"));
	memset(&cfg, 0, sizeof(cfg));
	cli_opt_defaults(cli_scan_opts, cli_scan_nr_opts, &cfg);
	assert_true(cfg.pass.io_timeout_s == PASS_DEFAULT_IO_TIMEOUT_S);
	assert_string_equal(cfg.pass.method, "auto");
	assert_string_equal(cfg.progress, "auto");
	assert_string_equal(cfg.pass.state_dir, REPORT_DEFAULT_STATE_DIR);

	o = cli_opt_find(cli_scan_opts, cli_scan_nr_opts, "queue-depth");
	assert_int_equal(cli_opt_parse(o, "4096", &cfg), 0);
	assert_int_equal(cfg.pass.depth, 4096);
	assert_int_equal(cli_opt_parse(o, "4097", &cfg), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "0", &cfg), REPORT_EXIT_USAGE);
	o = cli_opt_find(cli_scan_opts, cli_scan_nr_opts, "latency-target");
	assert_int_equal(cli_opt_parse(o, "1.5", &cfg), 0);
	assert_int_equal(cfg.pass.lat_target_pct, 150);
	o = cli_opt_find(cli_scan_opts, cli_scan_nr_opts, "sample-reads");
	assert_int_equal(cli_opt_parse(o, "2.5", &cfg), 0);
	assert_int_equal(cfg.pass.sample_permille, 25);
	assert_int_equal(cfg.pass.sample_set, 1);
	o = cli_opt_find(cli_scan_opts, cli_scan_nr_opts, "io-size");
	assert_int_equal(cli_opt_parse(o, "3000", &cfg), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "64M", &cfg), 0);
	assert_int_equal(cfg.pass.io_size, 64ull << 20);
	o = cli_opt_find(cli_scan_opts, cli_scan_nr_opts, "pacing");
	assert_int_equal(cli_opt_parse(o, "fast", &cfg), REPORT_EXIT_USAGE);
	assert_int_equal(cli_opt_parse(o, "off", &cfg), 0);
	assert_string_equal(cfg.pass.pacing, "off");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_completion),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_usage_md),
		cmocka_unit_test(test_defaults_and_bounds),
	};

	if (argc > 1)
		doc_src_root = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
