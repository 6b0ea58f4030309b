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
	MAP_OWN_DEVICE,			/* raw device area: no filesystem, a partition gap */
};

#define MAP_OWNF_ATTR_FORK	(1u << 0)
#define MAP_OWNF_BMBT		(1u << 1)	/* block map btree of the inode */
#define MAP_OWNF_UNWRITTEN	(1u << 2)	/* preallocated, never written */
#define MAP_OWNF_SHARED		(1u << 3)	/* reflinked with another file */
#define MAP_OWNF_PENDING	(1u << 4)	/* unknown: ask the owner index (ext4, no rmapbt) */
#define MAP_OWNF_UNLINKED	(1u << 5)	/* the owning inode has no links (open or orphan) */
#define MAP_OWNF_DIR		(1u << 6)	/* the owning inode is a directory (issue 12) */
#define MAP_OWNF_NOMAP		(1u << 8)	/* the space map of this part cannot be read:
						 * maybe free space (issue 12) */
#define MAP_OWNF_INODE		(1u << 9)	/* the on-disk inode itself (in a damaged
						 * inode table block or chunk), issue 12 */
#define MAP_OWNF_INODE_NEAR	(1u << 10)	/* with MAP_OWNF_INODE: not in the bad bytes,
						 * but read by the kernel with them */
#define MAP_OWNF_MAP_FROM	(1u << 7)	/* a block-map block: file_offset is the first
						 * file byte it maps (issue 12) */

/* Health the kernel keeps about the owning object (XFS). */
enum map_health_kind {
	MAP_HEALTH_NONE,
	MAP_HEALTH_INODE,		/* sick/checked: XFS_BS_SICK_* from bulkstat */
	MAP_HEALTH_AG,			/* sick/checked: XFS_AG_GEOM_SICK_* of the owner's AG */
	MAP_HEALTH_FS,			/* sick/checked: XFS_FSOP_GEOM_SICK_* (whole filesystem) */
};

/* What online scrub said about one object (XFS_IOC_SCRUB_METADATA). */
enum map_verdict {
	MAP_VERDICT_CLEAN,
	MAP_VERDICT_PREEN,		/* could be optimised, not damaged */
	MAP_VERDICT_WARNING,		/* looked odd, not corrupt */
	MAP_VERDICT_INCOMPLETE,		/* the check could not finish */
	MAP_VERDICT_XFAIL,		/* cross-referencing failed */
	MAP_VERDICT_XCORRUPT,		/* disagrees with the metadata it was cross-referenced with */
	MAP_VERDICT_CORRUPT,		/* corrupt: needs repair */
	MAP_VERDICT_ABSENT,		/* the object does not exist (e.g. no finobt) */
	MAP_VERDICT_ERROR,		/* the query failed: err */
};

#define MAP_MAX_SCRUB 6

struct map_scrub_result {
	uint32_t type;			/* XFS_SCRUB_TYPE_* */
	uint32_t agno;
	uint64_t ino;
	enum map_verdict verdict;
	uint32_t oflags;		/* sm_flags as returned */
	int err;			/* -errno of the ioctl, 0 when it answered */
};

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
	/* ---- mapping everywhere (issue 4) ---- */
	uint32_t fs_idx;		/* 0: the target's filesystem; k: t->parts[k-1].fs */
	uint32_t part;			/* partition number holding the range, 0 when none */
	uint64_t fs_offset;		/* bytes on the filesystem's device (dev_offset - start) */
	uint32_t gen;			/* inode generation, 0 when unknown */
	const char *note;		/* static: what an unknown owner can be, ... */
	enum map_health_kind health;
	uint32_t sick, checked;		/* health bits, see enum map_health_kind */
	unsigned nr_scrub;
	struct map_scrub_result scrub[MAP_MAX_SCRUB];
	/* ---- corrupted metadata (issue 12) ---- */
	char lost[96];			/* what is lost when the owner is itself a damaged
					 * object: "directory entries lost", ... ("" none) */
};

/*
 * Return the number of owners appended to *owners (grown with realloc; *nr updated) for the
 * bytes [offset, offset+length) of device dev_idx, or -errno.
 */
int map_owners_lookup(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr);

/*
 * Return 0 after appending the owners of n ranges of device dev_idx (offsets and lengths in
 * bytes, any order): first[i]/count[i] say which owners are range i's, ranges in input order.
 * Nearby ranges share one GETFSMAP pass (much faster than one query each on ext4), -errno.
 */
int map_owners_lookup_many(struct map_target *t, uint32_t dev_idx, const uint64_t *off,
			   const uint64_t *len, size_t n, struct map_owner **owners, size_t *nr,
			   size_t *first, size_t *count);

/* The paths found for one inode. */
struct map_inode_paths {
	uint64_t inode;
	unsigned nlink;			/* links to find, from stat */
	int is_dir;
	int stat_failed;		/* errno of a failed stat: link count unknown */
	unsigned nr_paths;
	char **paths;			/* absolute paths under the mount point */
	/* ---- mapping everywhere (issue 4) ---- */
	uint32_t fs_idx;		/* which filesystem (map_owner.fs_idx) */
	uint32_t gen;			/* generation, when known (bulkstat, libext2fs) */
	int unlinked;			/* link count 0: open but unlinked, or an orphan */
};

/*
 * Return 0 after one directory walk of the mount point that names every inode of want[]
 * with all its hard links (stopping once all are found), or -errno. Inodes no directory
 * reaches keep nr_paths == 0; *unreadable_dirs (may be NULL) counts directories that
 * could not be opened or read (damaged), under which paths may be missing.
 */
int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs);
/*
 * Return 1 when path (not followed if a symlink) is inode ino of generation gen now; 0 when it
 * is another file (the number was reused), gone, or gen is unknown (0): then it cannot be told.
 */
int map_path_is_inode(const char *path, uint64_t ino, uint32_t gen);
/* Return 0; free the paths of want[]. */
int map_paths_free(struct map_inode_paths *want, size_t nr);

/* ---- mapping everywhere (issue 4) ---- */
/* Return the static name of a scrub verdict: "clean", "corrupt", "cross-reference failed"... */
const char *map_verdict_name(enum map_verdict v);
/* Return the verdict of a scrub query: from the ioctl's return ret (-ENOENT absent, -EUCLEAN
 * or -EBADMSG corrupt, other errors "error"), else from the worst XFS_SCRUB_OFLAG_* set. */
enum map_verdict map_scrub_verdict(int ret, uint32_t oflags);
/* Whether online scrub answered on a filesystem, and if not, why (from the probe's errno). */
enum map_scrub_why {
	MAP_SCRUB_NOT_ASKED,		/* no XFS owner to ask about */
	MAP_SCRUB_AVAILABLE,
	MAP_SCRUB_NO_KERNEL,		/* -ENOTTY, -EOPNOTSUPP, -EINVAL: no online scrub */
	MAP_SCRUB_NORECOVERY,		/* -ENOTRECOVERABLE: mounted norecovery, scrub refused */
	MAP_SCRUB_SHUTDOWN,		/* -ESHUTDOWN: the filesystem is shut down */
	MAP_SCRUB_NOT_PERMITTED,	/* -EPERM, -EACCES: needs CAP_SYS_ADMIN */
	MAP_SCRUB_PROBE_FAILED,		/* any other errno */
};
/* Return what a scrub state says (map_damage.scrub: 1 answered, 0 not asked, -errno of the
 * probe otherwise). */
enum map_scrub_why map_scrub_why(int state);
/* Return the static reason for people and JSON: "kernel has no online scrub", ... */
const char *map_scrub_why_name(enum map_scrub_why why);
/* Return the static name of XFS scrub type (XFS_SCRUB_TYPE_*): "inode", "bnobt", ... */
const char *map_scrub_type_name(uint32_t type);
/* Return the number of names of the set health bits written to out (at most max). */
unsigned map_health_names(enum map_health_kind kind, uint32_t bits, const char **out,
			  unsigned max);
/*
 * Return 0 after naming inodes through XFS parent pointers (XFS_IOC_GETPARENTS_BY_HANDLE):
 * every path of each inode of want[] (sorted by inode), or -EOPNOTSUPP when the kernel or
 * the filesystem has none (then walk), or -errno.
 */
int map_parents_resolve(struct map_target *t, struct map_inode_paths *want, size_t nr);

#endif
