/*
 * mapping/damage/damage.h - from bad device ranges to what was lost: owners of each range, the
 * damaged files (every path, ranges within the file) and the damaged metadata.
 */
#ifndef MEDIASCAN_DAMAGE_H
#define MEDIASCAN_DAMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "owners.h"
#include "target.h"

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
	/* ---- where the file lives, and its first owner ---- */
	uint32_t fs_idx;		/* which filesystem (map_owner.fs_idx) */
	uint32_t part;			/* partition number, 0 when none */
	uint32_t gen;			/* generation when known */
	const struct map_owner *first;	/* its first owner: health and scrub verdicts */
	/* ---- a file lost with its inode or block map (no data range is named then) ---- */
	const char *what_lost;		/* the owner's what-is-lost text, NULL when only data */
};

struct map_damage_meta {
	const char *type;		/* "inodes", "log", "bmbt", ... */
	uint32_t dev_idx;
	uint64_t offset;		/* bytes on the device */
	uint64_t length;
	int64_t ag;			/* -1 when none */
	uint64_t inode;			/* owner inode of a bmbt block, else 0 */
	/* ---- where the metadata lives, and its first owner ---- */
	uint32_t fs_idx;
	uint32_t part;			/* partition number, 0 when none */
	uint64_t fs_offset;		/* bytes on the filesystem's device */
	const struct map_owner *first;	/* its first owner: health and scrub verdicts */
};

/* Things to tell the user once (map_damage.notes). */
#define MAP_NOTE_NO_RMAPBT	(1u << 0)	/* XFS without rmapbt: owners by an inode sweep */
#define MAP_NOTE_NO_SCRUB	(1u << 1)	/* online scrub did not answer (why: scrub) */
#define MAP_NOTE_NO_EXT2FS	(1u << 2)	/* ext4 owners without libext2fs: directory walk */
#define MAP_NOTE_INDEX_FAILED	(1u << 3)	/* the owner index could not be built: see note */
#define MAP_NOTE_UNREADABLE_META (1u << 4)	/* the index hit unreadable inode tables */
#define MAP_NOTE_LOOPED_MAP	(1u << 5)	/* some block maps loop: walked once */
#define MAP_NOTE_SKIPPED_INODES	(1u << 6)	/* the XFS inode sweep skipped AGs or inodes */
#define MAP_NOTE_RAW		(1u << 7)	/* an ext4 read unmounted from the raw device */
#define MAP_NOTE_RAW_RECOVERY	(1u << 8)	/* ... whose journal needs recovery (not
						 * replayed: names as of its last write) */

/* The owners of one range map_damage_add_many added (after resolve: what replaced them). */
struct map_damage_group {
	size_t first;
	size_t count;
};

#define MAP_MAX_PLAN_SCRUB 8		/* agf agfl agi bnobt cntbt inobt finobt rmapbt */

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
	/* ---- owners per range added, notes on what could not be mapped ---- */
	struct map_damage_group *groups;	/* one per range added, in order */
	size_t nr_groups;
	unsigned notes;			/* MAP_NOTE_* */
	char index_err[160];		/* why the owner index failed (MAP_NOTE_INDEX_FAILED) */
	char skipped_note[320];		/* MAP_NOTE_SKIPPED_INODES, for people */
	int scrub;			/* 1 online scrub answered, 0 not asked, -errno absent */
	int paths_by_parents;		/* inodes were named through parent pointers */
	unsigned fs_health_sick;	/* XFS_FSOP_GEOM_SICK_* of the target's XFS */
	unsigned fs_health_checked;
	/* ---- groups the plan read whole, and scrub's verdicts on them ---- */
	struct map_plan_note *plan_notes;	/* groups the plan read whole (copied from t) */
	size_t nr_plan_notes;
	/* online scrub's verdicts on each such group's headers and btrees (XFS, where scrub is) */
	struct map_scrub_result (*plan_scrub)[MAP_MAX_PLAN_SCRUB];
	unsigned *nr_plan_scrub;
	unsigned plan_notes_dropped;	/* more than MAP_MAX_PLAN_NOTES */
};

/**
 * map_damage_add_many() - add bad ranges of one device at once (one group each, in order).
 * @d: the damage being built
 * @t: the target
 * @dev_idx: the device of the ranges
 * @off: start of each range, bytes on the device
 * @len: length of each range, bytes
 * @n: how many ranges
 *
 * Nearby ranges share GETFSMAP passes.
 *
 * Return: 0, or -errno.
 */
int map_damage_add_many(struct map_damage *d, struct map_target *t, uint32_t dev_idx,
			const uint64_t *off, const uint64_t *len, size_t n);
/**
 * map_damage_resolve() - find what GETFSMAP could not name, name the owners and group them.
 * @d: the damage (ranges added)
 * @t: the target
 *
 * Owners GETFSMAP could not name are found (ext4, XFS without rmapbt: one index over every inode,
 * built only when some range needs it), every owning inode named (parent pointers, else one walk),
 * XFS asked for its health and online scrub verdicts, and files and metadata grouped. Owners may be
 * replaced: read each call's owners afterwards with map_damage_group().
 *
 * Return: 0, or -errno.
 */
int map_damage_resolve(struct map_damage *d, struct map_target *t);
/**
 * map_damage_group() - the owners of the g-th range added (valid after resolve too).
 * @d: the damage
 * @g: the range, in the order added
 * @first: set to its first owner in d->owners
 * @count: set to how many
 *
 * Return: 0, or -ENOENT when g is past the ranges added.
 */
int map_damage_group(const struct map_damage *d, size_t g, size_t *first, size_t *count);
/**
 * map_damage_paths() - the paths of an inode of any filesystem of the target (filesystem 0 first).
 * @d: the resolved damage
 * @inode: the inode
 *
 * Return: its paths, or NULL.
 */
const struct map_inode_paths *map_damage_paths(const struct map_damage *d, uint64_t inode);
/**
 * map_damage_paths_fs() - the paths of an inode of one filesystem.
 * @d: the resolved damage
 * @fs_idx: the filesystem (map_owner.fs_idx)
 * @inode: the inode
 *
 * Return: its paths, or NULL.
 */
const struct map_inode_paths *map_damage_paths_fs(const struct map_damage *d, uint32_t fs_idx,
						  uint64_t inode);
/**
 * map_damage_notes() - the names of the notes in d->notes, for people.
 * @d: the damage
 * @out: set to the static names, one a line (NULL ends)
 * @max: room in out
 *
 * Return: the number of names written.
 */
int map_damage_notes(const struct map_damage *d, const char **out, unsigned max);
/**
 * map_damage_free() - free everything in d.
 * @d: the damage
 *
 * Return: 0.
 */
int map_damage_free(struct map_damage *d);

#endif
