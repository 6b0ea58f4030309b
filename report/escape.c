/*
 * report/escape.c - escape untrusted names for human output (JSON escaping is json-c's job).
 * Valid UTF-8 sequences pass through; anything else becomes \xNN.
 */
#include <stdio.h>
#include <string.h>

#include "escape.h"

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not valid; with c1 set, C1
 * controls (U+0080..U+009F) count as invalid (for terminals; JSON takes them).
 */
static size_t utf8_seq(const unsigned char *s, int c1)
{
	size_t n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, out of range, and C1 controls are not passed. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || (c1 && cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

int report_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p, 0);

		if (!n)
			return 0;
		p += n;
	}
	return 1;
}


/*
 * Copy s to out: valid UTF-8 as it is, a backslash doubled, anything else as \xNN. For a
 * terminal (json 0) control characters and C1 are escaped too (\n, \t, \xNN); for JSON
 * (json 1) they stay, json-c escapes them, and only invalid UTF-8 is written out.
 */
static char *escape_to(const char *s, char *out, size_t len, int json)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0;

	if (!len)
		return out;
	while (*p && w + 5 < len) {
		size_t n;

		if (*p >= 0x20 && *p < 0x7f && *p != '\\') {	/* printable ASCII: as it is */
			out[w++] = (char)*p++;
			continue;
		}
		n = utf8_seq(p, !json);

		if (n && *p != '\\' && (json || n > 1 || (*p >= 0x20 && *p != 0x7f))) {
			memcpy(out + w, p, n);
			w += n;
			p += n;
		} else if (!json && *p == '\n') {
			w += (size_t)snprintf(out + w, len - w, "\\n");
			p++;
		} else if (!json && *p == '\t') {
			w += (size_t)snprintf(out + w, len - w, "\\t");
			p++;
		} else if (*p == '\\') {
			w += (size_t)snprintf(out + w, len - w, "\\\\");
			p++;
		} else {
			w += (size_t)snprintf(out + w, len - w, "\\x%02x", *p);
			p++;
		}
	}
	out[w] = '\0';
	return out;
}

char *report_escape(const char *s, char *out, size_t len)
{
	return escape_to(s, out, len, 0);
}

char *report_utf8_repair(const char *s, char *out, size_t len)
{
	return escape_to(s, out, len, 1);
}
