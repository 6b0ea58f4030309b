/*
 * mapping/plan/fsmap.h - GETFSMAP record helpers shared by the planner and owner lookup:
 * query keys, what a record means for the plan, and the names of special owners.
 */
#ifndef MEDIASCAN_FSMAP_H
#define MEDIASCAN_FSMAP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/fsmap.h>

/**
 * map_fsmap_keys() - set the keys of a GETFSMAP query.
 * @head: the query
 * @dev: the device (fmr_device)
 * @start: first byte
 * @last: last byte
 *
 * The keys ask for every record of the device overlapping [start, last].
 *
 * Return: 0.
 */
int map_fsmap_keys(struct fsmap_head *head, uint32_t dev, uint64_t start, uint64_t last);
/**
 * map_fsmap_classify() - what a record means for the plan.
 * @rec: the record
 *
 * Return: the map_tag bits to plan for it, or 0 when it is not read (free, unwritten).
 */
uint32_t map_fsmap_classify(const struct fsmap *rec);
/**
 * map_fsmap_special_name() - a stable name for a special owner.
 * @rec: the record
 *
 * Return: "free", "unknown", "log", "fs-headers", "ag-btrees", "inobt", "inodes", "refcountbt",
 * "cow-staging", "defective", "metadata", or NULL when the owner is an inode.
 */
const char *map_fsmap_special_name(const struct fsmap *rec);
/**
 * map_fsmap_special_name_ext4() - map_fsmap_special_name() with ext4's meaning where it differs.
 * @rec: the record
 *
 * Return: "superblock" for its superblocks and backups, "inode-table" for inode tables, "journal"
 * for a log, else as map_fsmap_special_name().
 */
const char *map_fsmap_special_name_ext4(const struct fsmap *rec);

/**
 * map_fsmap_error_local() - whether a GETFSMAP error is local to one part of the filesystem.
 * @err: the error (errno)
 *
 * Return: 1 when it means the kernel could not read or trust the space map of one part
 * (EFSCORRUPTED, EFSBADCRC, a bad block under a btree, no memory for it): that part is handled
 * without it and the rest goes on. 0 for any other error.
 */
int map_fsmap_error_local(int err);

#endif
