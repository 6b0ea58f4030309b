/*
 * mapping/damage.h - from bad device ranges to what was lost: owners of each range, the
 * damaged files (every path, ranges within the file) and the damaged metadata.
 */
#ifndef MEDIASCAN_DAMAGE_H
#define MEDIASCAN_DAMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "owners.h"

struct map_file_range {
	uint64_t offset;		/* bytes within the file (or its attribute fork) */
	uint64_t length;		/* bytes */
	int attr_fork;
	int lost;			/* 0 only when unwritten (preallocated) */
};

struct map_damage_file {
	uint64_t inode;
	const struct map_inode_paths *paths;	/* nr_paths == 0: no directory reaches it */
	struct map_file_range *ranges;
	size_t nr_ranges;
	int lost;			/* any range lost */
	int shared;			/* some range is reflinked with other files */
};

struct map_damage_meta {
	const char *type;		/* "inodes", "log", "bmbt", ... */
	uint32_t dev_idx;
	uint64_t offset;		/* bytes on the device */
	uint64_t length;
	int64_t ag;			/* -1 when none */
	uint64_t inode;			/* owner inode of a bmbt block, else 0 */
};

struct map_damage {
	struct map_owner *owners;	/* owners of every range added, in order */
	size_t nr_owners;
	struct map_inode_paths *inodes;	/* sorted by inode after resolve */
	size_t nr_inodes;
	struct map_damage_file *files;	/* sorted by inode */
	size_t nr_files;
	struct map_damage_meta *meta;
	size_t nr_meta;
	int paths_err;			/* -errno if the directory walk failed */
	unsigned unreadable_dirs;	/* directories the walk could not read */
};

/*
 * Return 0 after looking up the owners of [offset, offset+length) on device dev_idx and
 * appending them; *first and *count say which owners belong to this range. -errno on error.
 */
int map_damage_add(struct map_damage *d, struct map_target *t, uint32_t dev_idx,
		   uint64_t offset, uint64_t length, size_t *first, size_t *count);
/* Return 0 after naming every owning inode (one walk) and grouping files and metadata. */
int map_damage_resolve(struct map_damage *d, struct map_target *t);
/* Return the paths of inode, or NULL. */
const struct map_inode_paths *map_damage_paths(const struct map_damage *d, uint64_t inode);
/* Return 0; free everything in d. */
int map_damage_free(struct map_damage *d);

#endif
