/*
 * mapping/index_ext4.h - ext4 owners GETFSMAP cannot name, through libext2fs (read-only).
 */
#ifndef MEDIASCAN_INDEX_EXT4_H
#define MEDIASCAN_INDEX_EXT4_H

#include "index.h"

/*
 * Return 0 after finding the owners of the queries (sorted, disjoint) on an ext4 filesystem:
 * one pass over the inode tables with libext2fs (read-only, through the page cache the
 * mounted filesystem shares), each candidate confirmed with FIEMAP; the journal and other
 * special inodes named. -EOPNOTSUPP without libext2fs; -errno with a reason in why.
 * *unreadable counts inode table blocks that could not be read.
 */
int map_index_ext4(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable, char *why, size_t whylen);
/*
 * Return the number of inode numbers (at most max) written to inos whose on-disk inodes lie in
 * the bytes [off, off+len) of the filesystem's data device, in order, or -errno. With
 * whole_unit, every inode of the inode table blocks the range touches (the kernel reads the
 * table a block at a time: it cannot read any of them while one sector is bad).
 */
int map_ext4_itable_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			   uint64_t *inos, size_t max);
/*
 * Return 0 after calling fn for every entry below directory dir_ino (at path), read from the raw
 * device with libext2fs (read-only; known-bad blocks never read), never through the mounted
 * filesystem; -EIO when some of it could not be read (names may be missing), -errno.
 */
int map_ext4_name_below(struct map_target *fs, uint64_t dir_ino, const char *path,
			int (*fn)(void *arg, uint64_t ino, unsigned char type, const char *path),
			void *arg);

#endif
