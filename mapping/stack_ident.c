/*
 * mapping/stack_ident.c - what the history knows a member of the stack by: the member disk's
 * own identity (WWN/serial, ":partN" for a partition), which survives a reboot that renames
 * it, and the UUID of the array that holds the other copies (md's uuid, or the DM uuid of an
 * LVM RAID LV), which survives the array being assembled under another name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* What lies before a layer's data on the device below it. */
static const char *layer_meta(const char *kind)
{
	if (strncmp(kind, "md-", 3) == 0)
		return "md superblock and bitmap";
	if (strcmp(kind, "dm-crypt") == 0)
		return "LUKS header";
	if (strcmp(kind, "dm-linear") == 0 || strcmp(kind, "dm-striped") == 0 ||
	    strcmp(kind, "dm-raid") == 0)
		return "LVM metadata";
	return "layer metadata";
}

int map_stack_regions(const char *sysfs, const char *leaf, struct map_stack_region *out,
		      unsigned max)
{
	char cur[MAP_STACK_NAME], h[1][KIO_DISK_NAME_LEN];
	uint64_t base = 0;		/* bytes on leaf where cur's byte 0 lies */
	unsigned n = 0;

	snprintf(cur, sizeof(cur), "%s", leaf);
	while (n < max) {
		struct map_stack_up *u;
		uint64_t start;
		int linear;

		if (kio_blk_list(sysfs, cur, "holders", NULL, h, 1) != 1 ||
		    map_stack_data_start(sysfs, h[0], cur, &start) < 0)
			break;
		u = malloc(sizeof(*u));
		if (!u)
			return -ENOMEM;
		/* the layer above, and where cur's first data byte lands on it */
		if (map_stack_up(sysfs, cur, start, 512, u) < 0 || u->nr_hops < 2 ||
		    u->unmappable) {
			free(u);
			break;
		}
		snprintf(out[n].name, sizeof(out[n].name), "%s", u->hop[1].name);
		snprintf(out[n].kind, sizeof(out[n].kind), "%s", u->hop[1].kind);
		out[n].data_start = base + start;
		out[n].meta = layer_meta(u->hop[1].kind);
		n++;
		/* follow up only while the layer keeps cur's bytes in order from its byte 0 */
		linear = u->hop[1].offset == 0 && (!strcmp(u->hop[1].kind, "md-raid1") ||
						   !strcmp(u->hop[1].kind, "dm-linear") ||
						   !strcmp(u->hop[1].kind, "dm-crypt"));
		snprintf(cur, sizeof(cur), "%s", u->hop[1].name);
		free(u);
		if (!linear)
			break;
		base += start;
	}
	return (int)n;
}
