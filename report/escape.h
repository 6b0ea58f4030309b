/*
 * report/escape.h - file names are untrusted: make them safe to print on a terminal.
 */
#ifndef MEDIASCAN_ESCAPE_H
#define MEDIASCAN_ESCAPE_H

#include <stddef.h>

/*
 * Return out after copying s with control characters, backslashes and invalid UTF-8
 * written as \xNN (and \n, \t as such); out is always NUL-terminated.
 */
char *report_escape(const char *s, char *out, size_t len);
/* Return 1 when s is valid UTF-8 (what JSON text must be), else 0. */
int report_utf8_valid(const char *s);
/*
 * Return out after copying s with each byte that is not valid UTF-8 written as \xNN and each
 * backslash doubled (for a name that is not valid UTF-8; the exact bytes go in *_hex).
 */
char *report_utf8_repair(const char *s, char *out, size_t len);

#endif
