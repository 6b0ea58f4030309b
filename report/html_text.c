/*
 * report/html_text.c - untrusted text in the HTML report: report_html_puts escapes a string for
 * HTML text and attributes, report_html_put_path writes a path of an owner from its exact bytes.
 * The page (html.c) and its surface map (html_map.c) both write through it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "escape.h"
#include "html.h"

void report_html_puts(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0, len = n * 4 + 8;
	char small[256], *buf = len <= sizeof(small) ? small : malloc(len);

	if (!s)
		return;
	if (!buf) {
		fputs("(out of memory)", f);
		return;
	}
	/* Control bytes and invalid UTF-8 as \xNN first (a terminal's rule), then HTML's five. */
	report_escape(s, buf, len);
	for (const char *p = buf; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
	if (buf != small)
		free(buf);
}

/* Return the value of hex digit c, or -1. */
static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void report_html_put_path(FILE *f, json_object *o, const char *key, size_t k)
{
	json_object *a, *hex = NULL;
	char hkey[64];
	const char *h;
	size_t n;
	char *raw;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return;
	/*
	 * A name that is not UTF-8 is in the JSON with \xNN (and its backslashes doubled); its
	 * exact bytes are in KEY_hex: escape those, as the terminal's output does.
	 */
	snprintf(hkey, sizeof(hkey), "%s_hex", key);
	if (json_object_object_get_ex(o, hkey, &hex) && json_object_is_type(hex, json_type_array) &&
	    (h = json_object_get_string(json_object_array_get_idx(hex, k))) &&
	    (n = strlen(h)) % 2 == 0 && (raw = malloc(n / 2 + 1))) {
		size_t w = 0;

		for (size_t i = 0; i < n; i += 2) {
			int hi = hexval(h[i]), lo = hexval(h[i + 1]);

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				break;
			raw[w++] = (char)(hi << 4 | lo);
		}
		raw[w] = '\0';
		report_html_puts(f, raw);
		free(raw);
		return;
	}
	report_html_puts(f, json_object_get_string(json_object_array_get_idx(a, k)));
}
