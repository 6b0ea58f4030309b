/*
 * mapping/owners.h - who owns a device range: files (inode, file offset, every path),
 * filesystem metadata (type, AG), the log, or free space.
 */
#ifndef MEDIASCAN_OWNERS_H
#define MEDIASCAN_OWNERS_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

enum map_owner_kind {
	MAP_OWN_FILE,			/* an inode's data or attribute fork */
	MAP_OWN_METADATA,		/* filesystem metadata (incl. an inode's bmbt) */
	MAP_OWN_LOG,
	MAP_OWN_FREE,			/* free space: nothing lost */
	MAP_OWN_UNKNOWN,		/* allocated, owner not recorded */
	MAP_OWN_DEVICE,			/* raw device area: no filesystem */
};

#define MAP_OWNF_ATTR_FORK	(1u << 0)
#define MAP_OWNF_BMBT		(1u << 1)	/* block map btree of the inode */
#define MAP_OWNF_UNWRITTEN	(1u << 2)	/* preallocated, never written */
#define MAP_OWNF_SHARED		(1u << 3)	/* reflinked with another file */

/* One owner of (part of) a bad device range. */
struct map_owner {
	enum map_owner_kind kind;
	uint32_t flags;			/* MAP_OWNF_* */
	uint32_t dev_idx;
	uint64_t dev_offset;		/* bytes: the part of the bad range this owner holds */
	uint64_t length;		/* bytes */
	uint64_t inode;			/* MAP_OWN_FILE, or the inode of a bmbt */
	uint64_t file_offset;		/* bytes within the file (MAP_OWN_FILE) */
	const char *meta_type;		/* static name for metadata/log/free/unknown */
	int64_t ag;			/* allocation group, -1 when none */
};

/*
 * Return the number of owners appended to *owners (grown with realloc; *nr updated) for the
 * bytes [offset, offset+length) of device dev_idx, or -errno.
 */
int map_owners_lookup(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr);

/* The paths found for one inode. */
struct map_inode_paths {
	uint64_t inode;
	unsigned nlink;			/* links to find, from stat */
	int is_dir;
	int stat_failed;		/* errno of a failed stat: link count unknown */
	unsigned nr_paths;
	char **paths;			/* absolute paths under the mount point */
};

/*
 * Return 0 after one directory walk of the mount point that names every inode of want[]
 * with all its hard links (stopping once all are found), or -errno. Inodes no directory
 * reaches keep nr_paths == 0; *unreadable_dirs (may be NULL) counts directories that
 * could not be opened or read (damaged), under which paths may be missing.
 */
int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs);
/* Return 0; free the paths of want[]. */
int map_paths_free(struct map_inode_paths *want, size_t nr);

#endif
