/*
 * mapping/fs/fs_ext4.c - ext4 (and ext2/ext3 mounted by the ext4 driver) behind the ops table
 * (fs.h): the superblock decoded for block size, size, UUID, block groups and an external
 * journal device (found and confirmed through GETFSMAP, else libblkid); GETFSMAP lists only
 * static metadata, so all file data goes to the owner index (libext2fs, else the FIEMAP walk);
 * names by the directory walk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#if HAVE_BLKID
#include <blkid.h>
#endif

#include "damage.h"
#include "fs.h"
#include "fsmap.h"
#include "index_ext4.h"

static const char *const NOTE_EXT4 =
	"allocated, owner not found: no inode maps this block now (a file changed or deleted "
	"since, a block in flux, or one leaked by corruption: e2fsck -fn can tell)";

/* ext4's superblock: the fields mapping needs (fs/ext4/ext4.h), little-endian on disk. */
#define EXT4_SB_OFFSET		1024
#define EXT4_SB_MAGIC_OFF	0x38
#define EXT4_SB_LOG_BSIZE_OFF	0x18
#define EXT4_SB_UUID_OFF	0x68
#define EXT4_SB_FEAT_COMPAT_OFF	0x5c
#define EXT4_SB_JNL_INUM_OFF	0xe0
#define EXT4_SB_JNL_UUID_OFF	0xd0
#define EXT4_SB_JNL_DEV_OFF	0xe4
#define EXT4_SB_BLOCKS_LO_OFF	0x04
#define EXT4_SB_FIRST_DATA_OFF	0x14
#define EXT4_SB_BPG_OFF		0x20
#define EXT4_SB_BLOCKS_HI_OFF	0x150
#define EXT4_SB_FEAT_INCOMPAT_OFF 0x60
#define EXT4_INCOMPAT_64BIT	0x80
#define EXT4_MAGIC		0xef53
#define EXT4_COMPAT_HAS_JOURNAL	0x4

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Return 1 when GETFSMAP confirms devt as a device of the filesystem on mount_fd. */
static int fsmap_has_dev(int mount_fd, dev_t devt)
{
	/* GETFSMAP's new_encode_dev() is glibc's dev_t for majors below 4096. */
	uint32_t want = (uint32_t)devt, got;

	return devt && (dev_t)want == devt && kio_getfsmap_first_dev(mount_fd, want, &got) == 1 &&
	       got == want;
}

/*
 * Return a malloc'ed path of ext4's external journal device, or NULL. Candidates, each
 * confirmed by GETFSMAP: the device of the first record (when it sorts before the data
 * device), the superblock's s_journal_dev (what the kernel opens unless journal_path= was
 * given), libblkid's device for the journal UUID (needs a blkid cache or udev's links).
 */
static char *ext4_journal_dev(const struct map_target *t, const unsigned char *sb,
			      const char *uuid)
{
	uint32_t data_dev = (uint32_t)t->devices[0].info.devt, first, jdev;
	char path[PATH_MAX];
	dev_t cand = 0;

	if (kio_getfsmap_first_dev(t->mount_fd, 0, &first) == 1 && first != data_dev)
		cand = (dev_t)first;
	jdev = le32_at(sb + EXT4_SB_JNL_DEV_OFF);
	if (!cand && jdev && fsmap_has_dev(t->mount_fd, (dev_t)jdev))
		cand = (dev_t)jdev;
	if (cand && kio_devpath_from_devt(cand, path, sizeof(path)) == 0)
		return strdup(path);
#if HAVE_BLKID
	{
		char *dev = blkid_evaluate_tag("UUID", uuid, NULL);

		if (dev && kio_devt_of_path(dev, &cand) == 0 && fsmap_has_dev(t->mount_fd, cand))
			return dev;
		free(dev);
	}
#else
	(void)uuid;
#endif
	return NULL;
}

/* Decode what mapping needs from superblock sb into t. */
static void ext4_decode_sb(struct map_target *t, const unsigned char *sb)
{
	uint64_t bpg = le32_at(sb + EXT4_SB_BPG_OFF);
	uint64_t first = le32_at(sb + EXT4_SB_FIRST_DATA_OFF);

	t->fs_block_size = 1024u << le32_at(sb + EXT4_SB_LOG_BSIZE_OFF);
	t->fs_size_bytes = ((uint64_t)(le32_at(sb + EXT4_SB_FEAT_INCOMPAT_OFF) &
				       EXT4_INCOMPAT_64BIT ? le32_at(sb + EXT4_SB_BLOCKS_HI_OFF) : 0)
			    << 32 | le32_at(sb + EXT4_SB_BLOCKS_LO_OFF)) * t->fs_block_size;
	t->bdev_block_bytes = t->fs_block_size;	/* ext4 sets the device's block size to it */
	map_format_uuid(sb + EXT4_SB_UUID_OFF, t->uuid, sizeof(t->uuid));
	/* Block groups, for a plan that reads a group whole when its map cannot be listed:
	 * untrusted, so only a group size the kernel could have mounted (one bitmap block). */
	if (t->fs_block_size >= 1024 && t->fs_block_size <= 65536 && bpg >= 8 &&
	    bpg <= 8ull * t->fs_block_size && first <= 1) {
		t->fs_group_bytes = bpg * t->fs_block_size;
		t->fs_group_first = first * t->fs_block_size;
	}
}

/* Set up the devices of a mounted ext4 (or ext2/ext3 through the ext4 driver). */
static int ext4_open(struct map_target *t, const char *dev, const struct kio_mount *m,
		     char *err, size_t errlen, int *err_class)
{
	unsigned char sb[1024];
	char path[PATH_MAX];
	int fd, ret;

	(void)dev;
	ret = kio_devpath_from_devt(m->devt, path, sizeof(path));
	if (ret < 0)
		snprintf(path, sizeof(path), "%s", m->source);
	ret = map_target_add_device(t, path, MAP_ROLE_DATA, err, errlen, err_class);
	if (ret < 0)
		return ret;
	/* The superblock through the page cache the mounted filesystem keeps up to date. */
	fd = kio_open_ro(path);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(-fd));
		*err_class = MAP_TERR_OPERATIONAL;
		return fd;
	}
	ret = (int)kio_pread(fd, sb, sizeof(sb), EXT4_SB_OFFSET);
	kio_close(fd);
	if (ret != (int)sizeof(sb) || (sb[EXT4_SB_MAGIC_OFF] | sb[EXT4_SB_MAGIC_OFF + 1] << 8) !=
	    EXT4_MAGIC) {
		snprintf(err, errlen, "cannot read the ext4 superblock of %s: %s", path,
			 ret < 0 ? strerror(-ret) : "bad magic");
		*err_class = MAP_TERR_OPERATIONAL;
		return ret < 0 ? ret : -EUCLEAN;
	}
	ext4_decode_sb(t, sb);
	/*
	 * An external journal device: read it too, as the log (found and confirmed through
	 * GETFSMAP: libblkid alone needs a blkid cache or udev's links, which hosts may lack).
	 */
	if ((le32_at(sb + EXT4_SB_FEAT_COMPAT_OFF) & EXT4_COMPAT_HAS_JOURNAL) &&
	    le32_at(sb + EXT4_SB_JNL_INUM_OFF) == 0) {
		char uuid[40], *jdev;

		map_format_uuid(sb + EXT4_SB_JNL_UUID_OFF, uuid, sizeof(uuid));
		jdev = ext4_journal_dev(t, sb, uuid);
		if (!jdev) {
			snprintf(err, errlen, "%s has an external journal (UUID %s) that neither "
				 "GETFSMAP nor libblkid can find", t->mount_point, uuid);
			*err_class = MAP_TERR_OPERATIONAL;
			return -ENODEV;
		}
		ret = map_target_add_device(t, jdev, MAP_ROLE_LOG, err, errlen, err_class);
		free(jdev);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ext4's GETFSMAP reports all file data as "unknown" and leaves the allocated tail of some
 * block groups out of its listing. */
static uint32_t ext4_fsmap_flags(const struct map_target *t, enum map_role role)
{
	(void)t;
	return role == MAP_ROLE_DATA ? MAP_FSMAP_GAPS_ALLOCATED | MAP_FSMAP_UNKNOWN_INDEXED : 0;
}

/* libext2fs over the inode tables; without it, the FIEMAP walk of the mount point. */
static int ext4_index_owners(struct map_target *fs, int rt, const struct map_ix_query *q,
			     size_t nq, struct map_ix_hits *h, struct map_damage *d,
			     const char **note, char *why, size_t whylen)
{
	unsigned unreadable = 0, dirs = 0;
	int ret;

	(void)rt;
	*note = NOTE_EXT4;
	ret = map_index_ext4(fs, q, nq, h, &unreadable, why, whylen);
	if (ret == -EOPNOTSUPP) {
		d->notes |= MAP_NOTE_NO_EXT2FS;
		h->nr = 0;
		ret = map_index_walk(fs, q, nq, h, &dirs, why, whylen);
		d->unreadable_dirs += dirs;	/* files below them may own what is not found */
	}
	if (unreadable)
		d->notes |= MAP_NOTE_UNREADABLE_META;
	if (fs->x && fs->x->looped_maps)
		d->notes |= MAP_NOTE_LOOPED_MAP;
	return ret;
}

const struct map_fs_ops map_fs_ext4 = {
	.name = "ext4",
	.caps = MAP_FSC_MOUNTED | MAP_FSC_OPEN_WRITES,
	.group_name = "block group",
	.open = ext4_open,
	.fsmap_flags = ext4_fsmap_flags,
	.special_name = map_fsmap_special_name_ext4,
	.index_owners = ext4_index_owners,
	.unit_inodes = map_ext4_itable_inodes,
	.name_inodes = map_fs_name_walk,
	.name_below = map_ext4_name_below,
};
