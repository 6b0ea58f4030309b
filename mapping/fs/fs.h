/*
 * mapping/fs/fs.h - filesystems behind one ops table: what mapping asks of an XFS, an ext4, a
 * partitioned disk or a bare device (open it, plan its GETFSMAP records, index the owners
 * GETFSMAP cannot name, name inodes, its health), in fio's ioengine_ops shape. The tables
 * live in fs_xfs.c, fs_ext4.c and fs_disk.c (disk and bare device); fs.c picks one by the
 * mounted filesystem's type and keeps the per-target private state (struct map_fsx).
 */
#ifndef MEDIASCAN_FS_H
#define MEDIASCAN_FS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/fsmap.h>

#include "index.h"
#include "kio_xfs.h"
#include "names.h"
#include "target.h"

struct kio_mount;
struct map_damage;
struct map_owner;

/* Capabilities (map_fs_ops.caps). */
#define MAP_FSC_MOUNTED		(1u << 0)	/* a mounted filesystem: GETFSMAP, a UUID, a
						 * mount point; devices known by their role */
#define MAP_FSC_XFS_IOC		(1u << 1)	/* the mount answers XFS ioctls (geometry,
						 * bulkstat, XFS_IOC_VERIFY_MEDIA) */
#define MAP_FSC_HEALTH		(1u << 2)	/* the kernel keeps health, online scrub may
						 * answer (health.c) */
#define MAP_FSC_OPEN_WRITES	(1u << 3)	/* opening a regular file on a read-write mount
						 * writes (ext4 records the mount point in its
						 * superblock on the first open): no file opens */
#define MAP_FSC_RAW		(1u << 4)	/* not mounted: read from the raw device with
						 * libext2fs (owners, index, names); no GETFSMAP,
						 * no FIEMAP, no mount point */

/* What GETFSMAP leaves to the owner index on a device (map_fs_ops.fsmap_flags). */
#define MAP_FSMAP_GAPS_ALLOCATED (1u << 0)	/* bytes no record covers are allocated (ext4
						 * leaves some out; XFS without rmapbt): plan
						 * them, their owner is unknown */
#define MAP_FSMAP_UNKNOWN_INDEXED (1u << 1)	/* "unknown" records are found by the index */

struct map_fs_ops {
	const char *name;		/* what reports call it: "xfs", "ext4", "disk", "none" */
	uint32_t caps;			/* MAP_FSC_* */
	const char *group_name;		/* "AG", "block group"; NULL: no groups */
	/* ---- open ---- */
	/*
	 * Return 0 after opening the devices of t (path: the device named; m: its mount, NULL
	 * for a disk or bare device) and filling in the facts the other operations need, or
	 * -errno with a reason in err and *err_class an enum map_target_err.
	 */
	int (*open)(struct map_target *t, const char *path, const struct kio_mount *m,
		    char *err, size_t errlen, int *err_class);
	/*
	 * Return the number of owners appended to *owners (grown as map_owners_push does) for
	 * [offset, offset+length) of the filesystem (fs offsets; dev_idx stamped on them), of a
	 * filesystem with no GETFSMAP to ask (MAP_FSC_RAW), or -errno. NULL: GETFSMAP.
	 */
	int (*owners)(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr);
	/* ---- plan records ---- */
	/* Return MAP_FSMAP_* for a device of role in t. NULL: 0. */
	uint32_t (*fsmap_flags)(const struct map_target *t, enum map_role role);
	/* Return the static name of a GETFSMAP special owner, NULL for an inode. */
	const char *(*special_name)(const struct fsmap *rec);
	/* Return the group (AG) of byte fs_offset of the data device owners carry, -1 none. */
	int64_t (*group_of)(const struct map_target *t, uint64_t fs_offset);
	/* Return 0 and the health the kernel keeps about group g (sick, checked bits), -errno;
	 * NULL: the kernel keeps none. */
	int (*group_health)(struct map_target *t, uint32_t g, uint32_t *sick, uint32_t *checked);
	/* ---- index owners ---- */
	/*
	 * Return 0 after finding owners of the queries (sorted, disjoint; rt: on the realtime
	 * device) that GETFSMAP could not name, *note set to what leftovers can be, notes for
	 * people added to d; -errno with a reason in why. NULL: nothing is pending there.
	 */
	int (*index_owners)(struct map_target *fs, int rt, const struct map_ix_query *q,
			    size_t nq, struct map_ix_hits *h, struct map_damage *d,
			    const char **note, char *why, size_t whylen);
	/* Return 1 when inode ino is a directory, 0 not, -errno; asked only of inodes whose own
	 * inode block is not bad (bulkstat reads it). NULL: owners say (MAP_OWNF_DIR). */
	int (*is_dir)(struct map_target *fs, uint64_t ino);
	/* Return 1 when inode ino is allocated, 0 free, -errno; from what does not read its
	 * inode block (XFS: the inode btree). NULL: only inodes a directory names count. */
	int (*inode_in_use)(struct map_target *fs, uint64_t ino);
	/* Return the inodes stored in [off, off+len) of the data device (whole_unit: of every
	 * unit the kernel reads them in), at most max, or -errno. NULL: none. */
	int (*unit_inodes)(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			   uint64_t *inos, size_t max);
	/* ---- name inodes ---- */
	/* Return 0 after naming want[] (every path; for inodes none reaches, what is known),
	 * the walk's and naming's troubles recorded in d; -ENOMEM. */
	int (*name_inodes)(struct map_target *fs, struct map_inode_paths *want, size_t nr,
			   struct map_damage *d);
	/*
	 * Return 0 after calling fn(arg, ino, d_type, path) for every entry below directory
	 * dir_ino (at path) read from the raw device, never through the mounted filesystem and
	 * never reading a known-bad block; -errno (fn's negative return stops it). NULL: cannot.
	 */
	int (*name_below)(struct map_target *fs, uint64_t dir_ino, const char *path,
			  int (*fn)(void *arg, uint64_t ino, unsigned char type, const char *path),
			  void *arg);
};

extern const struct map_fs_ops map_fs_xfs;
extern const struct map_fs_ops map_fs_ext4;
extern const struct map_fs_ops map_fs_disk;
extern const struct map_fs_ops map_fs_bare;
extern const struct map_fs_ops map_fs_ext4_raw;

/**
 * map_ext4_raw_open() - read the ext4 at a byte offset of a device that nothing mounts.
 * @t: the target: devices[0] opened, fs_base_bytes set to where the filesystem starts
 * @why: set to why an ext4 that is there cannot be read (corrupt superblock, unknown feature)
 * @whylen: size of why
 *
 * On success t answers through map_fs_ext4_raw (fs_type "ext4", geometry from the
 * superblock). Nothing is mounted, written, or replayed.
 *
 * Return: 0, -ENOENT when no ext4 superblock is there (why left empty), -EOPNOTSUPP without
 * libext2fs, or -errno with a reason in why.
 */
int map_ext4_raw_open(struct map_target *t, char *why, size_t whylen);

/**
 * map_target_ops() - the ops table of a target.
 * @t: the target
 *
 * Return: its ops (a target set up by hand without them is a bare device).
 */
const struct map_fs_ops *map_target_ops(const struct map_target *t);
/**
 * map_fs_by_type() - the ops for a mounted filesystem type.
 * @fs_type: "xfs", "ext4", "ext3", "ext2"
 *
 * Return: the ops, or NULL.
 */
const struct map_fs_ops *map_fs_by_type(const char *fs_type);
/**
 * map_fs_name_walk() - name inodes by one directory walk of the mount point (the generic
 * name_inodes).
 * @fs: the target
 * @want: the inodes to name (their paths filled in)
 * @nr: how many
 * @d: where troubles are recorded
 *
 * Return: 0 (a failed walk is recorded in d->paths_err).
 */
int map_fs_name_walk(struct map_target *fs, struct map_inode_paths *want, size_t nr,
		     struct map_damage *d);

/* Per-target state private to mapping/ (handle type, scrub probe, AG health cache). */
struct map_fsx {
	int handle_type;		/* kio_handle_type of the mount, 0 not asked, <0 failed */
	int scrub;			/* 0 not probed, 1 online scrub answers, -errno absent */
	int geom_ext_done;
	uint32_t inodesize;		/* XFS inode size, bytes */
	uint32_t fs_sick, fs_checked;	/* XFS_FSOP_GEOM_SICK_* */
	uint32_t nr_ag;			/* entries of ag_* */
	uint8_t *ag_done;
	uint32_t *ag_sick, *ag_checked;
	unsigned looped_maps;		/* inodes whose block map loops (index walk stopped) */
	unsigned skipped_ags;		/* AGs whose inodes INUMBERS/BULKSTAT could not list */
	unsigned unopened;		/* inodes bulkstat listed that could not be opened */
	/* ---- do no harm: what must never be read through the mounted filesystem ---- */
	struct map_ix_query *bad;	/* known or suspected bad bytes of the data device,
					 * sorted and disjoint (fs offsets) */
	size_t nr_bad, cap_bad;
	uint64_t *tainted;		/* inodes whose metadata (inode block, directory,
					 * extent/bmbt or xattr block) lies in a bad range:
					 * no open, stat, FIEMAP or GETPARENTS; sorted */
	size_t nr_tainted, cap_tainted;
	/* a filesystem read from the raw device: its open state, kept for the target's life */
	void *raw;
	void (*raw_free)(void *raw);
	/* XFS bulkstat answers already asked (map_fsx_bulkstat): open addressing by inode,
	 * nr_stat of cap_stat slots used, cap_stat a power of two */
	struct kio_xfs_inode *stat;
	size_t nr_stat, cap_stat;
};

/**
 * map_fsx_get() - the private state of a target, allocated on first use.
 * @t: the target
 *
 * Return: the state, or NULL without memory.
 */
struct map_fsx *map_fsx_get(struct map_target *t);
/**
 * map_fsx_add_bad() - note bytes of the data device as bad.
 * @fs: the target
 * @start: first byte
 * @end: byte past the last
 *
 * Return: 0, or -ENOMEM.
 */
int map_fsx_add_bad(struct map_target *fs, uint64_t start, uint64_t end);
/**
 * map_fsx_is_bad() - whether any byte of a range of the data device is known or suspected bad.
 * @fs: the target
 * @start: first byte
 * @end: byte past the last
 *
 * Return: 1 when some byte is, else 0.
 */
int map_fsx_is_bad(const struct map_target *fs, uint64_t start, uint64_t end);
/**
 * map_fsx_taint() - mark an inode as one the kernel must not be made to read.
 * @fs: the target
 * @ino: the inode
 *
 * Return: 0, or -ENOMEM.
 */
int map_fsx_taint(struct map_target *fs, uint64_t ino);
/**
 * map_fsx_tainted() - whether an inode must not be opened, stat'ed or mapped through the VFS.
 * @fs: the target
 * @ino: the inode
 *
 * Return: 1 when it must not, else 0.
 */
int map_fsx_tainted(const struct map_target *fs, uint64_t ino);
/**
 * map_fsx_bulkstat() - an XFS inode's bulkstat answer, asked of the kernel once per target.
 * @fs: the target (its mount_fd)
 * @ino: the inode
 * @out: its answer, link count exact
 *
 * The owners, their health and their names ask about the same inodes (each owner once more
 * for every check): the kernel reads the inode once, later askers get the first answer. The
 * caller decides whether the inode may be read at all (map_fsx_tainted).
 *
 * Return: 0, -ENOENT when it is not allocated, or -errno.
 */
int map_fsx_bulkstat(struct map_target *fs, uint64_t ino, struct kio_xfs_inode *out);
/**
 * map_fsx_inode() - map_fsx_bulkstat for askers that need no link count (type, generation,
 * health): asked the cheaper way (kio_xfs_stat_one), out->nlink_low16 may be set.
 * @fs: the target
 * @ino: the inode
 * @out: its answer
 *
 * Return: 0, -ENOENT when it is not allocated, or -errno.
 */
int map_fsx_inode(struct map_target *fs, uint64_t ino, struct kio_xfs_inode *out);
/**
 * map_fsx_free() - free the private state of a target.
 * @t: the target
 *
 * Return: 0.
 */
int map_fsx_free(struct map_target *t);

#endif
