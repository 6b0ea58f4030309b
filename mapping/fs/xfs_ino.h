/*
 * mapping/fs/xfs_ino.h - XFS inode numbers and where their records lie on the data device. An
 * inode number is the AG number, the block within the AG and the inode within the block, each
 * field as many bits as the geometry needs (xfs_format.h: XFS_INO_TO_AGNO, XFS_INO_TO_AGBNO,
 * XFS_INO_TO_OFFSET); a filesystem block number (sb_logstart) is the AG number and the block
 * within it. One home for this arithmetic: the owner index (index_xfs.c) and the health queries
 * (health.c) both turn inode numbers into bytes and back.
 */
#ifndef MAPPING_XFS_INO_H
#define MAPPING_XFS_INO_H

#include <stdint.h>

#include "kio_xfs.h"

/* The geometry an inode number is decoded with. */
struct map_xfs_ino {
	uint64_t block_bytes;
	uint64_t ag_bytes;
	uint32_t inode_bytes;
	unsigned agblklog;		/* bits of the block within an AG */
	unsigned inopblog;		/* bits of the inode within a block */
};

/* Return the bits needed to count to v: the smallest l with 2^l >= v. */
static inline unsigned map_xfs_log2_roundup(uint64_t v)
{
	unsigned l = 0;

	while ((1ull << l) < v)
		l++;
	return l;
}

/* Fill xi from the geometry g and the inode size (bytes); callers check that both are set. */
static inline void map_xfs_ino_init(struct map_xfs_ino *xi, const struct kio_xfs_geom *g,
				    uint32_t inode_bytes)
{
	xi->block_bytes = g->blocksize;
	xi->ag_bytes = (uint64_t)g->agblocks * g->blocksize;
	xi->inode_bytes = inode_bytes;
	xi->agblklog = map_xfs_log2_roundup(g->agblocks);
	xi->inopblog = inode_bytes ? map_xfs_log2_roundup(g->blocksize / inode_bytes) : 0;
}

/* Return the number of bits of an inode number below its AG number. */
static inline unsigned map_xfs_ino_agshift(const struct map_xfs_ino *xi)
{
	return xi->agblklog + xi->inopblog;
}

/* Return the AG of inode ino. */
static inline uint64_t map_xfs_ino_agno(const struct map_xfs_ino *xi, uint64_t ino)
{
	return ino >> map_xfs_ino_agshift(xi);
}

/* Return the byte offset on the data device of inode ino's record. */
static inline uint64_t map_xfs_ino_offset(const struct map_xfs_ino *xi, uint64_t ino)
{
	uint64_t agino = ino & ((1ull << map_xfs_ino_agshift(xi)) - 1);

	return map_xfs_ino_agno(xi, ino) * xi->ag_bytes +
	       (agino >> xi->inopblog) * xi->block_bytes +
	       (agino & ((1ull << xi->inopblog) - 1)) * xi->inode_bytes;
}

/* Return the number of the inode whose record holds byte off of the data device. */
static inline uint64_t map_xfs_ino_at(const struct map_xfs_ino *xi, uint64_t off)
{
	uint64_t agno = off / xi->ag_bytes, in_ag = off % xi->ag_bytes;

	return agno << map_xfs_ino_agshift(xi) | (in_ag / xi->block_bytes) << xi->inopblog |
	       (in_ag % xi->block_bytes) / xi->inode_bytes;
}

/* Return the AG of filesystem block fsbno (AG-encoded, as sb_logstart is). */
static inline uint64_t map_xfs_fsb_agno(const struct map_xfs_ino *xi, uint64_t fsbno)
{
	return fsbno >> xi->agblklog;
}

/* Return the byte offset on the data device of filesystem block fsbno. */
static inline uint64_t map_xfs_fsb_offset(const struct map_xfs_ino *xi, uint64_t fsbno)
{
	return map_xfs_fsb_agno(xi, fsbno) * xi->ag_bytes +
	       (fsbno & ((1ull << xi->agblklog) - 1)) * xi->block_bytes;
}

#endif
