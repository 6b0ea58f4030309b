/*
 * mediascan/engine.c - the engine table and the probe order: io_uring, libaio, sync.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "engine.h"

static const struct scan_engine_ops *const engines[] = {
	&scan_engine_uring,
#if HAVE_LIBAIO
	&scan_engine_aio,
#endif
	&scan_engine_sync,
};

const char *scan_engine_names(void)
{
#if HAVE_LIBAIO
	return "uring|aio|sync";
#else
	return "uring|sync";
#endif
}

int scan_engine_known(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strcmp(name, engines[i]->name) == 0)
			return 1;
	return 0;
}

const struct scan_engine_ops *scan_engine_pick(const char *name, char *why, size_t len,
					       char *refused, size_t refused_len)
{
	size_t used = 0;

	if (refused_len)
		refused[0] = '\0';
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		char reason[256] = "";

		if (name && strcmp(name, engines[i]->name) != 0)
			continue;
		if (engines[i]->probe(reason, sizeof(reason)) == 0)
			return engines[i];
		if (name) {
			snprintf(why, len, "engine %s cannot run here: %s", name, reason);
			return NULL;
		}
		if (used < refused_len)
			used += (size_t)snprintf(refused + used, refused_len - used, "%s%s: %s",
						 used ? "; " : "", engines[i]->name, reason);
	}
	if (name)
		snprintf(why, len, "unknown engine '%s' (choose %s)", name, scan_engine_names());
	else
		snprintf(why, len, "no scan engine works here: %s", refused);
	return NULL;
}
