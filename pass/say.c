/*
 * pass/say.c - the pass's messages: pass_say hands each to the say hook, or to stdout/stderr
 * when the caller gave none. Every stage file calls it; it calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pass.h"

void pass_say(const struct pass_hooks *h, enum pass_say kind, const char *fmt, ...)
{
	char msg[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h && h->say)
		h->say(h->arg, kind, msg);
	else if (kind == PASS_SAY_INFO || kind == PASS_SAY_HUMAN)
		printf("%s\n", msg);
	else
		fprintf(stderr, "mediascan: %s\n", msg);
}
