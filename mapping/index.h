/*
 * mapping/index.h - the owner index's shared parts, for filesystems whose GETFSMAP cannot
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

/* Return 0 after appending a hit, or -ENOMEM. */
int map_ix_push(struct map_ix_hits *h, uint64_t start, uint64_t end, const struct map_owner *o);
/* Return the index of the first query ending after offset (q sorted, disjoint), or nq. */
size_t map_ix_first(const struct map_ix_query *q, size_t nq, uint64_t offset);
/*
 * Return 0 after adding, for the device range [pstart, pend) holding file bytes from
 * file_offset, a hit clipped to each query it overlaps (owner template o; file_offset set).
 */
int map_ix_match(const struct map_ix_query *q, size_t nq, uint64_t pstart, uint64_t pend,
		 uint64_t file_offset, const struct map_owner *o, struct map_ix_hits *h);
/* Return 0 after matching every extent of the open inode fd (FIEMAP of the data fork, then
 * of the attributes) against the queries; tmpl gives inode, gen. -EOPNOTSUPP when FIEMAP
 * cannot map this inode (XFS directories). */
int map_ix_match_fd(int fd, const struct map_ix_query *q, size_t nq,
		    const struct map_owner *tmpl, struct map_ix_hits *h);
/* Return 0 after FIEMAP of every inode listed in the hits confirmed or dropped each one
 * (ext4 candidates from the inode tables); hits the kernel no longer maps are removed. */
int map_ix_confirm(struct map_target *fs, struct map_ix_hits *h);
/*
 * Return 0 after finding file owners of the queries by one bounded directory walk of the
 * mount point (walk.c) with FIEMAP on every file and directory (when nothing better is
 * available); *unreadable_dirs counts directories the walk could not open, read, or go
 * below (too deep), whose files may own blocks reported as not found. -errno with why.
 */
int map_index_walk(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable_dirs, char *why, size_t whylen);

#endif
