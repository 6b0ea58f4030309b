/*
 * mapping/index/index.h - the owner index's shared parts, for filesystems whose GETFSMAP cannot
 * name file owners (ext4; XFS without rmapbt): the queried ranges, the hits, matching
 * extents against them, FIEMAP of one inode, confirming candidates with FIEMAP, and the
 * directory-walk index used when nothing better is available.
 */
#ifndef MEDIASCAN_INDEX_H
#define MEDIASCAN_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "owners.h"
#include "target.h"

/* One range the index is asked about: bytes [start, end) on the filesystem's device. */
struct map_ix_query {
	uint64_t start;
	uint64_t end;
};

/* One owner the index found: bytes [start, end) on the filesystem's device and the owner
 * (kind, flags, inode, gen, file_offset at start, meta_type, note). */
struct map_ix_hit {
	uint64_t start;
	uint64_t end;
	struct map_owner o;
};

/* Growable array of hits. */
struct map_ix_hits {
	struct map_ix_hit *v;
	size_t nr;
	size_t cap;
};

/**
 * map_ix_push() - append a hit.
 * @h: the hits
 * @start: first byte on the device
 * @end: byte past the last
 * @o: the owner
 *
 * Return: 0, or -ENOMEM.
 */
int map_ix_push(struct map_ix_hits *h, uint64_t start, uint64_t end, const struct map_owner *o);
/**
 * map_ix_first() - the first query ending after an offset.
 * @q: the queries (sorted, disjoint)
 * @nq: how many
 * @offset: bytes on the device
 *
 * Return: its index, or nq when none.
 */
size_t map_ix_first(const struct map_ix_query *q, size_t nq, uint64_t offset);
/**
 * map_ix_match() - add the hits of one device range holding file bytes.
 * @q: the queries (sorted, disjoint)
 * @nq: how many
 * @pstart: first byte of the range on the device
 * @pend: byte past the last
 * @file_offset: the file offset of pstart
 * @o: the owner template
 * @h: the hits
 *
 * A hit clipped to each query the range overlaps, its file_offset set.
 *
 * Return: 0, or -ENOMEM.
 */
int map_ix_match(const struct map_ix_query *q, size_t nq, uint64_t pstart, uint64_t pend,
		 uint64_t file_offset, const struct map_owner *o, struct map_ix_hits *h);
/**
 * map_ix_match_fd() - match every extent of an open inode against the queries.
 * @fd: the open inode
 * @q: the queries
 * @nq: how many
 * @tmpl: the owner template (inode, gen)
 * @h: the hits
 *
 * FIEMAP of the data fork, then of the attributes.
 *
 * Return: 0, -EOPNOTSUPP when FIEMAP cannot map this inode (XFS directories), or -errno.
 */
int map_ix_match_fd(int fd, const struct map_ix_query *q, size_t nq,
		    const struct map_owner *tmpl, struct map_ix_hits *h);
/**
 * map_ix_confirm() - confirm or drop each hit with FIEMAP of its inode.
 * @fs: the target
 * @h: the hits (ext4 candidates from the inode tables); hits the kernel no longer maps are removed
 *
 * Return: 0, or -ENOMEM.
 */
int map_ix_confirm(struct map_target *fs, struct map_ix_hits *h);
/**
 * map_index_walk() - find file owners of the queries by one bounded directory walk of the mount
 * point.
 * @fs: the target
 * @q: the queries
 * @nq: how many
 * @h: the hits
 * @unreadable_dirs: set to the directories the walk could not open, read or go below (too deep),
 *                   whose files may own blocks reported as not found
 * @why: set to the reason of a failure
 * @whylen: size of why
 *
 * walk.c, with FIEMAP on every file and directory, when nothing better is available.
 *
 * Return: 0, or -errno with why.
 */
int map_index_walk(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable_dirs, char *why, size_t whylen);

#endif
