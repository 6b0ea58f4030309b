/*
 * mapping/index/index_xfs.h - XFS owners without rmapbt: an inode sweep, and the inodes of a chunk.
 */
#ifndef MEDIASCAN_INDEX_XFS_H
#define MEDIASCAN_INDEX_XFS_H

#include "index.h"

/**
 * map_index_xfs() - find the owners of the queries on an XFS device without rmapbt.
 * @fs: the target
 * @q: the queries
 * @nq: how many
 * @rt: on the realtime device (else the data device)
 * @h: the hits
 * @why: set to the reason of a failure
 * @whylen: size of why
 *
 * The log and AG headers from the geometry, inode chunks from INUMBERS, and every inode from
 * bulkstat, opened by handle, mapped with FIEMAP (GETBMAPX for directories).
 *
 * Return: 0, or -errno with a reason in why.
 */
int map_index_xfs(struct map_target *fs, const struct map_ix_query *q, size_t nq, int rt,
		  struct map_ix_hits *h, char *why, size_t whylen);
/**
 * map_xfs_chunk_inodes() - the inodes stored in a range of the data device.
 * @fs: the target
 * @off: first byte
 * @len: length, bytes
 * @whole_unit: every inode of the inode clusters the range touches (the kernel reads a cluster at a
 *              time)
 * @inos: set to the inode numbers, in order
 * @max: room in inos
 *
 * Return: the number of inode numbers written, or -errno.
 */
int map_xfs_chunk_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			 uint64_t *inos, size_t max);

#endif
