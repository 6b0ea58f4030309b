/*
 * mapping/damage/damage_owners.c - the owner table that damage.c's stages share: appending owners,
 * the offset space of an owner's range, inode-table owners; and do no harm: every bad range
 * noted on its filesystem, and the inodes whose own metadata lies there tainted, so that
 * nothing makes the kernel read them through the VFS.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "fs.h"
#include "health.h"

#include "damage_int.h"

int map_damage_owners_append(struct map_owner **v, size_t *nr, size_t *cap, const struct map_owner *o)
{
	if (*nr == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct map_owner *n = realloc(*v, sizeof(*n) * c);

		if (!n)
			return -ENOMEM;
		*v = n;
		*cap = c;
	}
	(*v)[(*nr)++] = *o;
	return 0;
}

void map_damage_owners_install(struct map_damage *d, struct map_owner **v, size_t nr)
{
	free(d->owners);
	d->owners = *v;
	d->nr_owners = nr;
	*v = NULL;
}

int map_damage_owner_space(const struct map_target *t, const struct map_owner *o)
{
	if (o->dev_idx >= t->nr_devices)
		return SPACE_DATA;
	switch (t->devices[o->dev_idx].role) {
	case MAP_ROLE_RT:
		return SPACE_RT;
	case MAP_ROLE_LOG:
		return SPACE_OTHER;
	default:
		return SPACE_DATA;
	}
}

int map_damage_is_inode_table(const struct map_owner *o)
{
	return o->kind == MAP_OWN_METADATA && o->meta_type && !(o->flags & MAP_OWNF_INODE) &&
	       (strcmp(o->meta_type, "inode-table") == 0 || strcmp(o->meta_type, "inodes") == 0);
}

/* ---- do no harm: what the kernel must not be made to read ---- */

/* Is owner o a filesystem object whose own metadata it is (a directory's blocks, a block map
 * block, an attribute block)? Then its inode must not be opened through the VFS. */
static int owner_taints(const struct map_owner *o)
{
	if (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_ATTR_FORK | MAP_OWNF_DIR))
		return o->inode != 0;
	return 0;
}

/*
 * Note every bad range on its filesystem (the raw reader refuses those bytes) and taint the
 * inodes whose metadata lies there: every inode of a damaged inode table block or cluster
 * (the kernel reads them whole), and owners that are a directory's blocks, a block map or an
 * attribute block. Called before the index (which must not confirm tainted inodes) and after.
 */
int map_damage_mark_bad(struct map_damage *d, struct map_target *t)
{
	uint64_t inos[ITABLE_MAX_PER_RANGE];
	int ret;

	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];
		struct map_target *fs = map_target_fs(t, o->fs_idx);
		const struct map_fs_ops *ops;
		int n;

		if (!fs || map_damage_owner_space(t, o) != SPACE_DATA)
			continue;
		ret = map_fsx_add_bad(fs, o->fs_offset, o->fs_offset + o->length);
		if (ret < 0)
			return ret;
		ops = map_target_ops(fs);
		if (o->kind == MAP_OWN_FILE && !(o->flags & MAP_OWNF_DIR) && o->inode &&
		    ops->is_dir && !map_fsx_tainted(fs, o->inode) && ops->is_dir(fs, o->inode) > 0)
			d->owners[i].flags |= MAP_OWNF_DIR;
		if (owner_taints(&d->owners[i])) {
			ret = map_fsx_taint(fs, o->inode);
			if (ret < 0)
				return ret;
		}
		if (!map_damage_is_inode_table(o) || !ops->unit_inodes)
			continue;
		n = ops->unit_inodes(fs, o->fs_offset, o->length, 1, inos, ITABLE_MAX_PER_RANGE);
		for (int k = 0; k < n; k++) {
			ret = map_fsx_taint(fs, inos[k]);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}
