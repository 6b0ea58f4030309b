/*
 * mapping/owners/owners.h - who owns a device range: files (inode, file offset; their paths come
 * from names.h or parents.h), filesystem metadata (type, AG), the log, or free space.
 */
#ifndef MEDIASCAN_OWNERS_H
#define MEDIASCAN_OWNERS_H

#include <stddef.h>
#include <stdint.h>

#include "health.h"
#include "target.h"

enum map_owner_kind {
	MAP_OWN_FILE,			/* an inode's data or attribute fork */
	MAP_OWN_METADATA,		/* filesystem metadata (incl. an inode's bmbt) */
	MAP_OWN_LOG,
	MAP_OWN_FREE,			/* free space: nothing lost */
	MAP_OWN_UNKNOWN,		/* allocated, owner not recorded */
	MAP_OWN_DEVICE,			/* raw device area: no filesystem, a partition gap */
};

#define MAP_OWNF_ATTR_FORK	(1u << 0)
#define MAP_OWNF_BMBT		(1u << 1)	/* block map btree of the inode */
#define MAP_OWNF_UNWRITTEN	(1u << 2)	/* preallocated, never written */
#define MAP_OWNF_SHARED		(1u << 3)	/* reflinked with another file */
#define MAP_OWNF_PENDING	(1u << 4)	/* unknown: ask the owner index (ext4, no rmapbt) */
#define MAP_OWNF_UNLINKED	(1u << 5)	/* the owning inode has no links (open or orphan) */
#define MAP_OWNF_DIR		(1u << 6)	/* the owning inode is a directory */
#define MAP_OWNF_NOMAP		(1u << 8)	/* the space map of this part cannot be read:
						 * maybe free space */
#define MAP_OWNF_INODE		(1u << 9)	/* the on-disk inode itself (in a damaged
						 * inode table block or chunk) */
#define MAP_OWNF_INODE_NEAR	(1u << 10)	/* with MAP_OWNF_INODE: not in the bad bytes,
						 * but read by the kernel with them */
#define MAP_OWNF_MAP_FROM	(1u << 7)	/* a block-map block: file_offset is the first
						 * file byte it maps */

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
	/* ---- where the owner lives: filesystem, partition, generation ---- */
	uint32_t fs_idx;		/* 0: the target's filesystem; k: t->parts[k-1].fs */
	uint32_t part;			/* partition number holding the range, 0 when none */
	uint64_t fs_offset;		/* bytes on the filesystem's device (dev_offset - start) */
	uint32_t gen;			/* inode generation, 0 when unknown */
	const char *note;		/* static: what an unknown owner can be, ... */
	enum map_health_kind health;
	uint32_t sick, checked;		/* health bits, see enum map_health_kind */
	unsigned nr_scrub;
	struct map_scrub_result scrub[MAP_MAX_SCRUB];
	/* ---- what is lost when the owner is itself damaged ---- */
	char lost[96];			/* what is lost when the owner is itself a damaged
					 * object: "directory entries lost", ... ("" none) */
};

/**
 * map_owners_push() - append one owner to a growable array (grown at powers of two).
 * @owners: the array (realloc'ed)
 * @nr: its length, updated
 * @o: the owner
 *
 * Return: 0, or -ENOMEM.
 */
int map_owners_push(struct map_owner **owners, size_t *nr, const struct map_owner *o);

/**
 * map_owners_lookup() - the owners of a range of a device.
 * @t: the target
 * @dev_idx: the device
 * @offset: first byte
 * @length: length, bytes
 * @owners: the owners, appended to (grown with realloc)
 * @nr: their number, updated
 *
 * Return: the number of owners appended, or -errno.
 */
int map_owners_lookup(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr);

/**
 * map_owners_lookup_many() - the owners of many ranges of a device at once.
 * @t: the target
 * @dev_idx: the device
 * @off: start of each range, bytes (any order)
 * @len: length of each range, bytes
 * @n: how many ranges
 * @owners: the owners, appended to (grown with realloc)
 * @nr: their number, updated
 * @first: set to range i's first owner, ranges in input order
 * @count: set to range i's number of owners
 *
 * Nearby ranges share one GETFSMAP pass (much faster than one query each on ext4).
 *
 * Return: 0, or -errno.
 */
int map_owners_lookup_many(struct map_target *t, uint32_t dev_idx, const uint64_t *off,
			   const uint64_t *len, size_t n, struct map_owner **owners, size_t *nr,
			   size_t *first, size_t *count);

#endif
