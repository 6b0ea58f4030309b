/*
 * mapping/fs/fs.c - picking a filesystem's ops table (fs.h) by the mounted type, the generic
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
	int ret = map_paths_resolve_fs(fs, want, nr, &unreadable);

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

int map_fsx_add_bad(struct map_target *fs, uint64_t start, uint64_t end)
{
	struct map_fsx *x = map_fsx_get(fs);
	struct map_ix_query *n;
	size_t i, j, lo, hi;

	if (!x)
		return -ENOMEM;
	if (end <= start)
		return 0;
	if (x->nr_bad == x->cap_bad) {
		size_t cap = x->cap_bad ? x->cap_bad * 2 : 16;

		n = realloc(x->bad, sizeof(*n) * cap);
		if (!n)
			return -ENOMEM;
		x->bad = n;
		x->cap_bad = cap;
	}
	n = x->bad;
	/* [i, j): the ranges the new one overlaps or touches, merged into one in place */
	for (lo = 0, hi = x->nr_bad; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (n[mid].end < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	for (j = i; j < x->nr_bad && n[j].start <= end; j++) {
		if (n[j].start < start)
			start = n[j].start;
		if (n[j].end > end)
			end = n[j].end;
	}
	if (j == i)
		memmove(&n[i + 1], &n[i], sizeof(*n) * (x->nr_bad - i));
	else if (j > i + 1)
		memmove(&n[i + 1], &n[j], sizeof(*n) * (x->nr_bad - j));
	n[i] = (struct map_ix_query){ start, end };
	x->nr_bad = x->nr_bad + 1 - (j - i);
	return 0;
}

int map_fsx_is_bad(const struct map_target *fs, uint64_t start, uint64_t end)
{
	const struct map_fsx *x = fs->x;
	size_t i;

	if (!x || !x->nr_bad || end <= start)
		return 0;
	i = map_ix_first(x->bad, x->nr_bad, start);
	return i < x->nr_bad && x->bad[i].start < end;
}

/* Return the index of the first tainted inode >= ino. */
static size_t taint_pos(const struct map_fsx *x, uint64_t ino)
{
	size_t lo = 0, hi = x->nr_tainted;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->tainted[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int map_fsx_taint(struct map_target *fs, uint64_t ino)
{
	struct map_fsx *x = map_fsx_get(fs);
	size_t i;

	if (!x)
		return -ENOMEM;
	i = taint_pos(x, ino);
	if (i < x->nr_tainted && x->tainted[i] == ino)
		return 0;
	if (x->nr_tainted == x->cap_tainted) {
		size_t cap = x->cap_tainted ? x->cap_tainted * 2 : 64;
		uint64_t *n = realloc(x->tainted, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		x->tainted = n;
		x->cap_tainted = cap;
	}
	memmove(x->tainted + i + 1, x->tainted + i, sizeof(*x->tainted) * (x->nr_tainted - i));
	x->tainted[i] = ino;
	x->nr_tainted++;
	return 0;
}

int map_fsx_tainted(const struct map_target *fs, uint64_t ino)
{
	const struct map_fsx *x = fs ? fs->x : NULL;
	size_t i;

	if (!x || !x->nr_tainted)
		return 0;
	i = taint_pos(x, ino);
	return i < x->nr_tainted && x->tainted[i] == ino;
}

/* The slot of ino in x->stat: where it is, or the empty one where it would go. */
static size_t stat_slot(const struct map_fsx *x, uint64_t ino)
{
	size_t mask = x->cap_stat - 1, i = (size_t)((ino * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (x->stat[i].ino && x->stat[i].ino != ino)
		i = (i + 1) & mask;
	return i;
}

/* Make room for one more answer in x->stat (kept at most half full); 0 or -ENOMEM. */
static int stat_grow(struct map_fsx *x)
{
	struct kio_xfs_inode *old = x->stat;
	size_t old_cap = x->cap_stat, cap = old_cap ? old_cap * 2 : 256;

	if (2 * (x->nr_stat + 1) <= old_cap)
		return 0;
	x->stat = calloc(cap, sizeof(*x->stat));
	if (!x->stat) {
		x->stat = old;
		return -ENOMEM;
	}
	x->cap_stat = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].ino)
			x->stat[stat_slot(x, old[i].ino)] = old[i];
	free(old);
	return 0;
}

/* Answer ino from x->stat when kept (with an exact link count when exact): 0, else -ENOENT. */
static int stat_known(const struct map_fsx *x, uint64_t ino, int exact, struct kio_xfs_inode *out)
{
	size_t i;

	if (!x || !x->nr_stat || !ino)
		return -ENOENT;
	i = stat_slot(x, ino);
	if (x->stat[i].ino != ino || (exact && x->stat[i].nlink_low16))
		return -ENOENT;
	*out = x->stat[i];
	return 0;
}

/* Keep answer in (of inode ino) in x->stat, over what was kept; without memory, not kept. */
static void stat_keep(struct map_fsx *x, uint64_t ino, const struct kio_xfs_inode *in)
{
	size_t i;

	/* inode 0 is never an XFS inode: it marks an empty slot */
	if (!x || !ino || in->ino != ino || stat_grow(x) < 0)
		return;
	i = stat_slot(x, ino);
	if (!x->stat[i].ino)
		x->nr_stat++;
	x->stat[i] = *in;
}

int map_fsx_bulkstat(struct map_target *fs, uint64_t ino, struct kio_xfs_inode *out)
{
	struct map_fsx *x = map_fsx_get(fs);
	int ret;

	if (stat_known(x, ino, 1, out) == 0)
		return 0;
	ret = kio_xfs_bulkstat_one(fs->mount_fd, ino, out);
	if (ret == 0)
		stat_keep(x, ino, out);
	return ret;
}

int map_fsx_inode(struct map_target *fs, uint64_t ino, struct kio_xfs_inode *out)
{
	struct map_fsx *x = map_fsx_get(fs);
	int ret;

	if (stat_known(x, ino, 0, out) == 0)
		return 0;
	ret = kio_xfs_stat_one(fs->mount_fd, ino, out);
	if (ret == 0)
		stat_keep(x, ino, out);
	return ret;
}

int map_fsx_free(struct map_target *t)
{
	if (t->x) {
		if (t->x->raw_free)
			t->x->raw_free(t->x->raw);
		free(t->x->bad);
		free(t->x->tainted);
		free(t->x->ag_done);
		free(t->x->ag_sick);
		free(t->x->ag_checked);
		free(t->x->stat);
		free(t->x);
		t->x = NULL;
	}
	return 0;
}
