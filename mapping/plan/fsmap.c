/*
 * mapping/plan/fsmap.c - what GETFSMAP records mean: which are planned, how owners are named.
 * The XFS special owner codes come from xfs_fs.h; ext4 uses the generic FMR_OWN_* codes
 * and its own ('f') codes for its static metadata.
 */
#include <errno.h>
#include <string.h>
#include <xfs/xfs.h>

#include "fsmap.h"
#include "plan.h"

/* ext4's special owners (fs/ext4/fsmap.h); not exported in a uapi header. */
#define EXT4_FMR_OWN_GDT	FMR_OWNER('f', 1)
#define EXT4_FMR_OWN_RESV_GDT	FMR_OWNER('f', 2)
#define EXT4_FMR_OWN_BLKBM	FMR_OWNER('f', 3)
#define EXT4_FMR_OWN_INOBM	FMR_OWNER('f', 4)

int map_fsmap_keys(struct fsmap_head *head, uint32_t dev, uint64_t start, uint64_t last)
{
	memset(head->fmh_keys, 0, sizeof(head->fmh_keys));
	head->fmh_iflags = 0;
	head->fmh_oflags = 0;
	head->fmh_entries = 0;
	head->fmh_keys[0].fmr_device = dev;
	head->fmh_keys[0].fmr_physical = start;
	head->fmh_keys[1].fmr_device = dev;
	head->fmh_keys[1].fmr_physical = last;
	head->fmh_keys[1].fmr_owner = UINT64_MAX;
	head->fmh_keys[1].fmr_offset = UINT64_MAX;
	head->fmh_keys[1].fmr_flags = UINT32_MAX;
	return 0;
}

uint32_t map_fsmap_classify(const struct fsmap *rec)
{
	if (rec->fmr_flags & FMR_OF_SPECIAL_OWNER) {
		switch (rec->fmr_owner) {
		case FMR_OWN_FREE:
		case XFS_FMR_OWN_COW:		/* staging copies: no committed data */
		case XFS_FMR_OWN_DEFECTIVE:	/* already known bad, never used */
			return 0;
		case FMR_OWN_UNKNOWN:		/* allocated, owner not tracked (no rmapbt) */
			return MAP_TAG_DATA;
		case XFS_FMR_OWN_LOG:
			return MAP_TAG_LOG;
		default:
			return MAP_TAG_METADATA;
		}
	}
	if (rec->fmr_flags & FMR_OF_PREALLOC)
		return 0;			/* unwritten: nothing to lose */
	if (rec->fmr_flags & FMR_OF_EXTENT_MAP)
		return MAP_TAG_METADATA;	/* an inode's block map btree */
	return MAP_TAG_DATA;
}

const char *map_fsmap_special_name(const struct fsmap *rec)
{
	if (!(rec->fmr_flags & FMR_OF_SPECIAL_OWNER))
		return NULL;
	switch (rec->fmr_owner) {
	case FMR_OWN_FREE:
		return "free";
	case FMR_OWN_UNKNOWN:
		return "unknown";
	case FMR_OWN_METADATA:
		return "metadata";
	case XFS_FMR_OWN_FS:
		return "fs-headers";
	case XFS_FMR_OWN_LOG:
		return "log";
	case XFS_FMR_OWN_AG:
		return "ag-btrees";
	case XFS_FMR_OWN_INOBT:
		return "inobt";
	case XFS_FMR_OWN_INODES:
		return "inodes";
	case XFS_FMR_OWN_REFC:
		return "refcountbt";
	case XFS_FMR_OWN_COW:
		return "cow-staging";
	case XFS_FMR_OWN_DEFECTIVE:
		return "defective";
	case EXT4_FMR_OWN_GDT:
		return "group-descriptors";
	case EXT4_FMR_OWN_RESV_GDT:
		return "reserved-gdt";
	case EXT4_FMR_OWN_BLKBM:
		return "block-bitmap";
	case EXT4_FMR_OWN_INOBM:
		return "inode-bitmap";
	}
	return "metadata";
}

const char *map_fsmap_special_name_ext4(const struct fsmap *rec)
{
	if (rec->fmr_flags & FMR_OF_SPECIAL_OWNER) {
		switch (rec->fmr_owner) {
		case XFS_FMR_OWN_FS:
			return "superblock";
		case XFS_FMR_OWN_INODES:
			return "inode-table";
		case XFS_FMR_OWN_LOG:
			return "journal";
		}
	}
	return map_fsmap_special_name(rec);
}

int map_fsmap_error_local(int err)
{
	return err == -EUCLEAN || err == -EBADMSG || err == -EIO || err == -ENOMEM ||
	       err == -ENODATA || err == -EFBIG;
}
