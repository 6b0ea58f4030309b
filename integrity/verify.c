/*
 * integrity/verify.c - the table of verify methods and how one is chosen.
 */
#include <stdio.h>
#include <string.h>

#include "verify.h"

static const struct vfy_method vfy_read = {
	.name = "read",
	.summary = "read every block into host memory with O_DIRECT and discard it",
	.moves_data = 1,
};

static const struct vfy_method *const methods[] = {
	&vfy_read,
};

const struct vfy_method *vfy_method_pick(const char *name, char *why, size_t len)
{
	if (!name || strcmp(name, "auto") == 0)
		return methods[0];
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i]->name, name) == 0)
			return methods[i];
	snprintf(why, len, "unknown method '%s' (this build has: read)", name);
	return NULL;
}
