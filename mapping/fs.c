/*
 * mapping/fs.c - picking a filesystem's ops table (fs.h) by the mounted type, the generic
 * naming walk the tables share, and the per-target private state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "fs.h"

static const struct {
	const char *type;		/* as mountinfo names it */
	const struct map_fs_ops *ops;
} mounted_types[] = {
	{ "xfs", &map_fs_xfs },
	{ "ext4", &map_fs_ext4 },
	{ "ext3", &map_fs_ext4 },	/* ext2/ext3 mounted by the ext4 driver */
	{ "ext2", &map_fs_ext4 },
};

const struct map_fs_ops *map_fs_by_type(const char *fs_type)
{
	for (size_t i = 0; i < sizeof(mounted_types) / sizeof(mounted_types[0]); i++)
		if (strcmp(fs_type, mounted_types[i].type) == 0)
			return mounted_types[i].ops;
	return NULL;
}

const struct map_fs_ops *map_target_ops(const struct map_target *t)
{
	return t->ops ? t->ops : &map_fs_bare;
}

int map_fs_name_walk(struct map_target *fs, struct map_inode_paths *want, size_t nr,
		     struct map_damage *d)
{
	unsigned unreadable = 0;
	int ret = map_paths_resolve(fs->mount_point, want, nr, &unreadable);

	if (ret < 0 && !d->paths_err)
		d->paths_err = ret;
	d->unreadable_dirs += unreadable;
	return 0;
}

struct map_fsx *map_fsx_get(struct map_target *t)
{
	if (!t->x)
		t->x = calloc(1, sizeof(*t->x));
	return t->x;
}

int map_fsx_free(struct map_target *t)
{
	if (t->x) {
		free(t->x->ag_done);
		free(t->x->ag_sick);
		free(t->x->ag_checked);
		free(t->x);
		t->x = NULL;
	}
	return 0;
}
