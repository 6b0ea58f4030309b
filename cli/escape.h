/*
 * cli/escape.h - file names are untrusted: make them safe to print on a terminal.
 */
#ifndef MEDIASCAN_ESCAPE_H
#define MEDIASCAN_ESCAPE_H

#include <stddef.h>

/*
 * Return out after copying s with control characters, backslashes and invalid UTF-8
 * written as \xNN (and \n, \t as such); out is always NUL-terminated.
 */
char *cli_escape(const char *s, char *out, size_t len);

#endif
