/*
 * mapping/index/index_ext4.h - ext4 owners GETFSMAP cannot name, through libext2fs (read-only).
 */
#ifndef MEDIASCAN_INDEX_EXT4_H
#define MEDIASCAN_INDEX_EXT4_H

#include "index.h"

/**
 * map_index_ext4() - find the owners of the queries on an ext4 filesystem.
 * @fs: the target
 * @q: the queries (sorted, disjoint)
 * @nq: how many
 * @h: the hits
 * @unreadable: set to the inode table blocks that could not be read
 * @why: set to the reason of a failure
 * @whylen: size of why
 *
 * One pass over the inode tables with libext2fs (read-only, through the page cache the mounted
 * filesystem shares), each candidate confirmed with FIEMAP; the journal and other special inodes
 * named.
 *
 * Return: 0, -EOPNOTSUPP without libext2fs, or -errno with a reason in why.
 */
int map_index_ext4(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable, char *why, size_t whylen);
/**
 * map_ext4_itable_inodes() - the inodes stored in a range of the data device.
 * @fs: the target
 * @off: first byte
 * @len: length, bytes
 * @whole_unit: every inode of the inode table blocks the range touches (the kernel reads the table
 *              a block at a time: it cannot read any of them while one sector is bad)
 * @inos: set to the inode numbers, in order
 * @max: room in inos
 *
 * Return: the number of inode numbers written, or -errno.
 */
int map_ext4_itable_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			   uint64_t *inos, size_t max);
/**
 * map_ext4_name_below() - name every entry below a directory from the raw device.
 * @fs: the target
 * @dir_ino: the directory
 * @path: its path
 * @fn: called for every entry (a negative return stops the walk)
 * @arg: passed to fn
 *
 * Read with libext2fs (read-only; known-bad blocks never read), never through the mounted
 * filesystem.
 *
 * Return: 0, -EIO when some of it could not be read (names may be missing), or -errno.
 */
int map_ext4_name_below(struct map_target *fs, uint64_t dir_ino, const char *path,
			int (*fn)(void *arg, uint64_t ino, unsigned char type, const char *path),
			void *arg);

#endif
