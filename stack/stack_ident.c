/*
 * stack/stack_ident.c - what the history knows a member of the stack by: the member disk's
 * own identity (WWN/serial, ":partN" for a partition), which survives a reboot that renames
 * it, and the UUID of the array that holds the other copies (md's uuid, or the DM uuid of an
 * LVM RAID LV), which survives the array being assembled under another name.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kio.h"
#include "stack.h"

int map_stack_ident(const char *sysfs, const char *name, char *out, size_t len)
{
	char disk[KIO_DISK_NAME_LEN], id[300];
	uint64_t part = 0;
	int is_part = kio_blk_parent(sysfs, name, disk, sizeof(disk)) == 0;
	int ret;

	out[0] = '\0';
	ret = kio_bdev_ident(is_part ? disk : name, id, sizeof(id));
	if (ret < 0)
		return ret;
	if (!is_part) {
		snprintf(out, len, "%s", id);
		return 0;
	}
	ret = kio_blk_attr_u64(sysfs, name, "partition", &part);
	if (ret < 0)
		return ret;
	snprintf(out, len, "%s:part%llu", id, (unsigned long long)part);
	return 0;
}

/* Keep only what a UUID is made of: sysfs text, but bounded and checked all the same. */
static int uuid_clean(char *s)
{
	size_t n = strcspn(s, "\n");

	s[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '-' || s[i] == ':' || s[i] == '_'))
			return -EINVAL;
	return n ? 0 : -ENOENT;
}

int map_stack_array_of(const char *sysfs, const struct map_stack_up *u, char *name,
		       size_t name_len, char *uuid, size_t uuid_len)
{
	name[0] = uuid[0] = '\0';
	for (unsigned k = 1; k < u->nr_hops; k++) {
		const char *kind = u->hop[k].kind;
		int md = strncmp(kind, "md-", 3) == 0;

		if (!md && strcmp(kind, "dm-raid") && strcmp(kind, "dm-mirror"))
			continue;
		snprintf(name, name_len, "%s", u->hop[k].name);
		if (kio_blk_attr(sysfs, u->hop[k].name, md ? "md/uuid" : "dm/uuid", uuid,
				 uuid_len) < 0 || uuid_clean(uuid) < 0)
			uuid[0] = '\0';
		return 1;
	}
	return 0;
}

