/*
 * tests/unit/doc_text.c - the documents of the source tree as the option tests read them (the
 * man page, docs/usage.md, the bash completion): a file's text, the part of it between two
 * headings, and word lists compared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "doc_text.h"

const char *doc_src_root = ".";

/* Return the text of the file at doc_src_root/rel (malloc'd). */
char *doc_slurp(const char *rel)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", doc_src_root, rel);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Return a copy of text from the line starting with from up to the next starting with to. */
char *doc_section(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from), *b;
	char *s;

	if (!a)
		fail_msg("no '%s'", from);
	b = strstr(a + strlen(from), to);
	if (!b)
		b = a + strlen(a);
	s = strndup(a, (size_t)(b - a));
	assert_non_null(s);
	return s;
}

/* Return 1 if the words of a ("x y z", "x|y|z") are those of b, in any order. */
int doc_same_words(const char *a, const char *b)
{
	char x[512], y[512], *w, *save;
	int n = 0, m = 0;

	snprintf(x, sizeof(x), "%s", a);
	snprintf(y, sizeof(y), "%s", b);
	for (w = strtok_r(x, " |", &save); w; w = strtok_r(NULL, " |", &save)) {
		char yy[512], *v, *s2;
		int found = 0;

		snprintf(yy, sizeof(yy), "%s", b);
		for (v = strtok_r(yy, " |", &s2); v; v = strtok_r(NULL, " |", &s2))
			found |= strcmp(v, w) == 0;
		if (!found)
			return 0;
		n++;
	}
	for (w = strtok_r(y, " |", &save); w; w = strtok_r(NULL, " |", &save))
		m++;
	return n == m;
}

/* Return 1 if every word of a ("x|y") is one of b ("x y z"). */
int doc_words_within(const char *a, const char *b)
{
	char x[512], *w, *save;

	snprintf(x, sizeof(x), "%s", a);
	for (w = strtok_r(x, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
		char pat[128];
		size_t k;
		const char *p;
		int found = 0;

		k = (size_t)snprintf(pat, sizeof(pat), "%s", w);
		for (p = strstr(b, pat); p && !found; p = strstr(p + 1, pat))
			found = (p == b || p[-1] == ' ' || p[-1] == '|') &&
				(p[k] == ' ' || p[k] == '|' || p[k] == '\0' || p[k] == '"');
		if (!found)
			return 0;
	}
	return 1;
}
