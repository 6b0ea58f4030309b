/*
 * mapping/index_xfs.h - XFS owners without rmapbt: an inode sweep, and the inodes of a chunk.
 */
#ifndef MEDIASCAN_INDEX_XFS_H
#define MEDIASCAN_INDEX_XFS_H

#include "index.h"

/*
 * Return 0 after finding the owners of the queries on an XFS data device without rmapbt
 * (rt: its realtime device): the log and AG headers from the geometry, inode chunks from
 * INUMBERS, and every inode from bulkstat, opened by handle, mapped with FIEMAP (GETBMAPX for
 * directories).
 */
int map_index_xfs(struct map_target *fs, const struct map_ix_query *q, size_t nq, int rt,
		  struct map_ix_hits *h, char *why, size_t whylen);
/*
 * Return the number of inode numbers (at most max) written to inos whose on-disk inodes lie in
 * the bytes [off, off+len) of the data device, in order, or -errno. With whole_unit, every
 * inode of the inode clusters the range touches (the kernel reads a cluster at a time).
 */
int map_xfs_chunk_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			 uint64_t *inos, size_t max);

#endif
