/*
 * mapping/fs/fs_xfs.c - XFS behind the ops table (fs.h): its devices (data, external log,
 * realtime) from the geometry and mountinfo, what its GETFSMAP leaves to the owner index
 * (everything without rmapbt, realtime data always), the inode sweep that finds those owners,
 * names through parent pointers (else the walk), and the health the kernel keeps per AG.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xfs/xfs.h>

#include "damage.h"
#include "fs.h"
#include "fsmap.h"
#include "index_xfs.h"
#include "parents.h"

static const char *const NOTE_XFS =
	"allocated, owner not found: a free-space, inode or block-map btree block (without "
	"rmapbt XFS cannot say which), or a file changed since";
static const char *const NOTE_XFS_RMAP =
	"allocated, owner not found: the space map (GETFSMAP) of this part cannot be read and "
	"no inode maps this block (a btree or inode block of that AG, or a file changed since)";

/* Find "key=value" in a comma-separated option string; 0 and value in out if present. */
static int find_opt(const char *opts, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, ",");

			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return 0;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return -ENOENT;
}

/* Set up the devices of a mounted XFS filesystem. */
static int xfs_open(struct map_target *t, const char *dev, const struct kio_mount *m,
		    char *err, size_t errlen, int *err_class)
{
	char path[PATH_MAX];
	int ret;

	(void)dev;
	ret = kio_xfs_geometry(t->mount_fd, &t->xfs);
	if (ret < 0) {
		snprintf(err, errlen, "cannot read XFS geometry of %s: %s", t->mount_point,
			 strerror(-ret));
		*err_class = MAP_TERR_OPERATIONAL;
		return ret;
	}
	map_format_uuid(t->xfs.uuid, t->uuid, sizeof(t->uuid));
	t->fs_block_size = t->xfs.blocksize;
	t->fs_group_bytes = (uint64_t)t->xfs.agblocks * t->xfs.blocksize;
	t->fs_size_bytes = t->xfs.datablocks * t->xfs.blocksize;
	t->bdev_block_bytes = t->xfs.sectsize;	/* XFS sets the device's block size to it */
	ret = kio_devpath_from_devt(m->devt, path, sizeof(path));
	if (ret < 0)
		snprintf(path, sizeof(path), "%s", m->source);
	ret = map_target_add_device(t, path, MAP_ROLE_DATA, err, errlen, err_class);
	if (ret < 0)
		return ret;
	if (t->xfs.logstart == 0 && t->xfs.logblocks > 0) {
		if (find_opt(m->super_opts, "logdev", path, sizeof(path)) < 0) {
			snprintf(err, errlen, "%s has an external log but mountinfo names no logdev",
				 t->mount_point);
			*err_class = MAP_TERR_OPERATIONAL;
			return -ENODEV;
		}
		ret = map_target_add_device(t, path, MAP_ROLE_LOG, err, errlen, err_class);
		if (ret < 0)
			return ret;
	}
	if (t->xfs.rtblocks > 0 && find_opt(m->super_opts, "rtdev", path, sizeof(path)) == 0) {
		ret = map_target_add_device(t, path, MAP_ROLE_RT, err, errlen, err_class);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Without rmapbt GETFSMAP says "unknown" for every allocated block of the data device; the
 * realtime device has no reverse map at all. */
static uint32_t xfs_fsmap_flags(const struct map_target *t, enum map_role role)
{
	if (role == MAP_ROLE_DATA && !t->xfs.has_rmapbt)
		return MAP_FSMAP_GAPS_ALLOCATED | MAP_FSMAP_UNKNOWN_INDEXED;
	if (role == MAP_ROLE_RT)
		return MAP_FSMAP_UNKNOWN_INDEXED;
	return 0;
}

static int64_t xfs_group_of(const struct map_target *t, uint64_t fs_offset)
{
	uint64_t ag_bytes = (uint64_t)t->xfs.agblocks * t->xfs.blocksize;

	return ag_bytes ? (int64_t)(fs_offset / ag_bytes) : -1;
}

static int xfs_group_health(struct map_target *t, uint32_t g, uint32_t *sick, uint32_t *checked)
{
	struct xfs_ag_geometry ag;
	int ret = kio_xfs_ag_geometry(t->mount_fd, g, &ag);

	if (ret < 0)
		return ret;
	*sick = ag.ag_sick;
	*checked = ag.ag_checked;
	return 0;
}

static int xfs_index_owners(struct map_target *fs, int rt, const struct map_ix_query *q,
			    size_t nq, struct map_ix_hits *h, struct map_damage *d,
			    const char **note, char *why, size_t whylen)
{
	int ret;

	if (fs->xfs.has_rmapbt && !rt) {
		/* rmapbt, but GETFSMAP failed on this part: an inode sweep. */
		*note = NOTE_XFS_RMAP;
		ret = map_index_xfs(fs, q, nq, 0, h, why, whylen);
	} else {
		*note = NOTE_XFS;
		d->notes |= MAP_NOTE_NO_RMAPBT;
		ret = map_index_xfs(fs, q, nq, rt, h, why, whylen);
	}
	if (fs->x && (fs->x->skipped_ags || fs->x->unopened)) {
		d->notes |= MAP_NOTE_SKIPPED_INODES;
		snprintf(d->skipped_note, sizeof(d->skipped_note), "the inode sweep of %.60s "
			 "could not list the inodes of %u AG(s) (the kernel could not read their "
			 "inode btree) and could not open %u inode(s) (damaged): blocks they own "
			 "are reported as not found", fs->mount_point, fs->x->skipped_ags,
			 fs->x->unopened);
	}
	return ret;
}

/* Whether inode ino is a directory (bulkstat: reads its inode cluster, asked only when that is
 * not bad). */
static int xfs_is_dir(struct map_target *fs, uint64_t ino)
{
	struct kio_xfs_inode in;
	int ret = map_fsx_inode(fs, ino, &in);

	if (ret < 0)
		return ret;
	return (in.mode & 0170000) == 0040000;
}

/* Whether inode ino is allocated, from the inode btree (XFS_IOC_INUMBERS reads no inode
 * cluster): 1 allocated, 0 free, -errno. */
static int xfs_inode_in_use(struct map_target *fs, uint64_t ino)
{
	struct kio_xfs_ichunk ch;
	uint64_t next = ino & ~63ull;		/* inobt records cover 64 aligned inodes */
	int ret = kio_xfs_inumbers(fs->mount_fd, &next, &ch, 1);

	if (ret < 0)
		return ret;
	if (ret == 0 || ino < ch.startino || ino >= ch.startino + 64)
		return 0;
	return !!(ch.allocmask & (1ull << (ino - ch.startino)));
}

/* Parent pointers, else the walk; inodes no directory reaches get their generation and link
 * count from bulkstat (not those whose inode cluster is bad: bulkstat would read it). */
static int xfs_name_inodes(struct map_target *fs, struct map_inode_paths *want, size_t nr,
			   struct map_damage *d)
{
	int ret = map_parents_resolve(fs, want, nr);

	if (ret == 0) {
		d->paths_by_parents = 1;
		/* what parent pointers could not name safely (a damaged inode or directory on
		 * the way up): the walk, which does not open those */
		for (size_t i = 0; i < nr; i++)
			if (!want[i].nr_paths && map_fsx_tainted(fs, want[i].inode)) {
				map_fs_name_walk(fs, want, nr, d);
				break;
			}
	} else if (ret == -EOPNOTSUPP) {
		map_fs_name_walk(fs, want, nr, d);
	} else if (!d->paths_err) {
		d->paths_err = ret;
	}
	for (size_t i = 0; i < nr; i++) {
		struct kio_xfs_inode in;

		if (want[i].nr_paths || map_fsx_tainted(fs, want[i].inode))
			continue;
		if (map_fsx_bulkstat(fs, want[i].inode, &in) == 0) {
			want[i].gen = in.gen;
			want[i].unlinked = in.nlink == 0;
		}
	}
	return 0;
}

const struct map_fs_ops map_fs_xfs = {
	.name = "xfs",
	.caps = MAP_FSC_MOUNTED | MAP_FSC_XFS_IOC | MAP_FSC_HEALTH,
	.group_name = "AG",
	.open = xfs_open,
	.fsmap_flags = xfs_fsmap_flags,
	.special_name = map_fsmap_special_name,
	.group_of = xfs_group_of,
	.group_health = xfs_group_health,
	.index_owners = xfs_index_owners,
	.is_dir = xfs_is_dir,
	.inode_in_use = xfs_inode_in_use,
	.unit_inodes = map_xfs_chunk_inodes,
	.name_inodes = xfs_name_inodes,
};
