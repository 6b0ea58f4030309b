/*
 * mapping/fsmap.h - GETFSMAP record helpers shared by the planner and owner lookup:
 * query keys, what a record means for the plan, and the names of special owners.
 */
#ifndef MEDIASCAN_FSMAP_H
#define MEDIASCAN_FSMAP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/fsmap.h>

/* Return 0; set head's keys to every record of device dev overlapping [start, last]. */
int map_fsmap_keys(struct fsmap_head *head, uint32_t dev, uint64_t start, uint64_t last);
/* Return the map_tag bits to plan for a record, or 0 when it is not read (free, unwritten). */
uint32_t map_fsmap_classify(const struct fsmap *rec);
/*
 * Return a stable name for a special owner ("free", "unknown", "log", "fs-headers",
 * "ag-btrees", "inobt", "inodes", "refcountbt", "cow-staging", "defective", "metadata"),
 * or NULL when the owner is an inode.
 */
const char *map_fsmap_special_name(const struct fsmap *rec);
/*
 * Return map_fsmap_special_name with ext4's meaning where it differs: "superblock" for its
 * superblocks and backups, "inode-table" for inode tables, "journal" for a log.
 */
const char *map_fsmap_special_name_ext4(const struct fsmap *rec);

/*
 * Return 1 when a GETFSMAP error means the kernel could not read or trust the space map of
 * one part of the filesystem (EFSCORRUPTED, EFSBADCRC, a bad block under a btree, no memory
 * for it): that part is handled without it and the rest goes on. 0 for any other error.
 */
int map_fsmap_error_local(int err);

#endif
