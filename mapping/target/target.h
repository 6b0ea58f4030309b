/*
 * mapping/target/target.h - what the user asked to scan: a mounted filesystem (its data device and
 * external log device), a partitioned disk (its partitions, each planned through its mounted
 * filesystem or read whole, and the gaps between them) or a bare block device, with the facts
 * of each device.
 */
#ifndef MEDIASCAN_TARGET_H
#define MEDIASCAN_TARGET_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "kio.h"
#include "kio_xfs.h"

#define MAP_MAX_DEVICES 4

enum map_role {
	MAP_ROLE_DATA,			/* filesystem data device */
	MAP_ROLE_LOG,			/* external log device */
	MAP_ROLE_RT,			/* realtime device */
	MAP_ROLE_WHOLE,			/* a bare device read whole */
	MAP_ROLE_DISK,			/* a partitioned disk: see map_target.segs */
};

/* What mapping knows of a block device (from the kernel, copied at open). */
struct map_dev_info {
	dev_t devt;
	uint64_t size_bytes;
	uint32_t logical_block_size;	/* bytes */
	uint32_t physical_block_size;	/* bytes */
	uint32_t max_sectors_kb;	/* queue/max_sectors_kb, KiB */
	uint32_t max_hw_sectors_kb;	/* queue/max_hw_sectors_kb, KiB */
	uint32_t max_segments;		/* queue/max_segments, 0 if unknown */
	uint32_t optimal_io_bytes;	/* queue/optimal_io_size, 0 if unknown */
	int rotational;			/* 1 spinning, 0 solid state, -1 unknown */
	int is_partition;
	uint64_t part_start_bytes;	/* partition start within the whole disk */
	char name[64];			/* kernel name: loop3, sda1, nvme0n1 */
	char disk_name[64];		/* the whole disk's name (same as name for a disk) */
	char model[128];		/* device/model when sysfs has it */
};

struct map_device {
	char path[PATH_MAX];		/* /dev/... (display only: kernel names move) */
	/*
	 * What the history knows the device by: its role in a filesystem ("data", "log",
	 * "realtime"; the filesystem is known by its UUID), else the disk's own identity
	 * ("wwid:...", "serial:...", "loop-file:...", with ":partN" for a partition); "" when
	 * the device has none (then the kernel name is all there is).
	 */
	char ident[320];
	enum map_role role;
	int fd;				/* O_RDONLY|O_DIRECT, -1 when closed */
	struct map_dev_info info;
};

/* A region of a partitioned disk, in disk order. */
enum map_seg_kind {
	MAP_SEG_TABLE,			/* the partition table (MBR, GPT header and entries, EBR) */
	MAP_SEG_GAP,			/* in no partition */
	MAP_SEG_PART,			/* a partition without a mounted XFS/ext4: read whole */
	MAP_SEG_FS,			/* a partition planned through its mounted filesystem */
};

struct map_seg {
	enum map_seg_kind kind;
	uint64_t start;			/* bytes on the disk */
	uint64_t length;		/* bytes */
	int part;			/* index into map_target.parts, -1 for table and gaps */
};

/* One partition of a partitioned disk (from the partition table, through libblkid). */
struct map_part {
	unsigned number;		/* as the kernel names it: sdb1 is 1 */
	uint64_t start;			/* bytes on the disk */
	uint64_t size;			/* bytes */
	char devpath[80];		/* /dev/sdb1; empty when the kernel has no device for it */
	char type[64];			/* partition type (GPT type GUID name or MBR id) */
	char name[80];			/* GPT partition name */
	char uuid[40];			/* GPT partition UUID */
	char fs_type[32];		/* the mounted filesystem, "" when not mounted */
	char mount_point[256];		/* where it is mounted, "" when not */
	struct map_target *fs;		/* the mounted XFS/ext4 it is planned through, or the
					 * unmounted ext4 read from the raw device (its ops have
					 * MAP_FSC_RAW: the partition is still read whole), or NULL */
	char raw_err[160];		/* an ext4 is there but cannot be read unmounted: why */
};

/* Mapping state private to mapping/ (handle type, scrub probe, AG health); see fs.h. */
struct map_fsx;
/* The filesystem's operations (fs.h): XFS, ext4, partitioned disk, bare device. */
struct map_fs_ops;

/*
 * ---- parts of the space map the plan could not list ----
 * A part of a device the plan read whole because the kernel could not list its space map
 * (GETFSMAP answered EUCLEAN, EBADMSG, EIO, ENOMEM...): which group, where, and why.
 */
struct map_plan_note {
	uint32_t dev_idx;		/* device of the target that was planned */
	int64_t group;			/* AG (XFS) or block group (ext4), -1 for a whole device */
	uint64_t offset;		/* bytes on that device, read whole */
	uint64_t length;		/* bytes */
	int err;			/* -errno GETFSMAP answered */
	char object[48];		/* "AG 1", "block group 7", "log device" */
	int health_known;		/* XFS answered AG geometry: ag_sick/ag_checked valid */
	uint32_t ag_sick, ag_checked;	/* XFS_AG_GEOM_SICK_* the kernel keeps for that AG */
	char device[128];		/* the device's path */
};

#define MAP_MAX_PLAN_NOTES 1024		/* more groups than this: counted, not listed */

struct map_target {
	char arg[PATH_MAX];		/* what the user named */
	char mount_point[PATH_MAX];	/* empty for a bare device */
	char fs_type[64];		/* "xfs", "ext4", "none" */
	const struct map_fs_ops *ops;	/* what it is (fs.h); NULL: a bare device */
	int mount_fd;			/* O_RDONLY on the mount point for ioctls, or -1 */
	struct kio_xfs_geom xfs;	/* valid on XFS (map_fs_xfs) */
	char uuid[40];			/* filesystem UUID when known */
	char foreign_fs[64];		/* a bare device: a filesystem mediascan cannot map is
					 * mounted from it (btrfs), else "" */
	char foreign_mount[PATH_MAX];	/* ... and where */
	unsigned nr_devices;
	struct map_device devices[MAP_MAX_DEVICES];
	/* ---- the filesystem's geometry ---- */
	uint32_t fs_block_size;		/* bytes, XFS and ext4 */
	uint64_t fs_size_bytes;		/* bytes of the data device the filesystem uses */
	uint32_t bdev_block_bytes;	/* block size of the data device's page cache while
					 * mounted (a buffer I/O error's unit), 0 unknown */
	unsigned self_part;		/* the named device is partition N of a disk, 0 if not */
	char pt_type[16];		/* partition table of a MAP_ROLE_DISK device: "gpt", "dos" */
	unsigned nr_parts;
	struct map_part *parts;		/* sorted by start */
	unsigned nr_segs;
	struct map_seg *segs;		/* the whole disk, in order, without overlaps */
	struct map_fsx *x;		/* built on demand, freed by map_target_close */
	/* ---- a filesystem read unmounted from the raw device (MAP_FSC_RAW) ---- */
	uint64_t fs_base_bytes;		/* where it starts on devices[0] (a partition's start) */
	int fs_needs_recovery;		/* its journal needs recovery: not replayed here, so
					 * names are as of its last write to disk */
	char raw_err[160];		/* a bare device: an ext4 is there but cannot be read
					 * unmounted: why ("" none) */
	/* ---- groups (AG / block group) and the parts of them read whole ---- */
	uint64_t fs_group_bytes;	/* AG or block group size, bytes; 0 unknown */
	uint64_t fs_group_first;	/* bytes before group 0 (ext4 with 1 KiB blocks: 1024) */
	struct map_plan_note *plan_notes;	/* groups read whole, in plan order, no repeats */
	unsigned nr_plan_notes;
	unsigned plan_notes_dropped;	/* beyond MAP_MAX_PLAN_NOTES */
};

/* Error classes of map_target_open, so the caller can pick the exit status. */
enum map_target_err {
	MAP_TERR_USAGE = 1,		/* not a mount point, unsupported filesystem */
	MAP_TERR_OPERATIONAL = 2,	/* permission, unreadable device */
};

/**
 * map_target_open() - open a target: a mount point or block device.
 * @arg: the mount point or device
 * @t: filled with the opened target
 * @err: set to a one-line reason of a failure
 * @errlen: size of err
 * @err_class: set to an enum map_target_err on failure
 *
 * Return: 0, or -errno with a reason in err and *err_class set.
 */
int map_target_open(const char *arg, struct map_target *t, char *err, size_t errlen,
		    int *err_class);
/**
 * map_target_close() - close every fd of the target.
 * @t: the target
 *
 * Return: 0.
 */
int map_target_close(struct map_target *t);
/**
 * map_role_name() - the name of a device's role.
 * @role: the role
 *
 * Return: "data", "log", "realtime", "whole".
 */
const char *map_role_name(enum map_role role);
/**
 * map_target_xfs_fd() - the mount fd for XFS ioctls (xfs-verify-media).
 * @t: the target
 *
 * Return: the mount fd when the filesystem answers XFS ioctls, else -1.
 */
int map_target_xfs_fd(const struct map_target *t);

/* ---- targets as `mediascan map` opens them ---- */
/**
 * map_target_open_device() - open the target of a block device as `mediascan map` sees it.
 * @path: the block device
 * @t: filled with the opened target
 * @dev_idx: set to the index of that device in the target
 * @err: set to a reason of a failure
 * @errlen: size of err
 * @err_class: set to an enum map_target_err on failure
 *
 * The data or log device of a mounted filesystem (the mounted filesystem), a partitioned disk, a
 * partition or a bare device.
 *
 * Return: 0, or -errno with a reason in err, as map_target_open().
 */
int map_target_open_device(const char *path, struct map_target *t, unsigned *dev_idx,
			   char *err, size_t errlen, int *err_class);
/**
 * map_target_fs() - one filesystem of a target.
 * @t: the target
 * @fs_idx: 0 t itself, k the one mounted on partition k-1
 *
 * Return: the filesystem, or NULL.
 */
struct map_target *map_target_fs(struct map_target *t, uint32_t fs_idx);
/**
 * map_target_seg() - the segment of a partitioned disk holding a byte.
 * @t: the target
 * @offset: the byte
 *
 * Return: the segment, or NULL.
 */
const struct map_seg *map_target_seg(const struct map_target *t, uint64_t offset);
/**
 * map_device_key() - what the history names a device by.
 * @d: the device
 *
 * Return: its ident, or its path when it has none.
 */
const char *map_device_key(const struct map_device *d);
/**
 * map_target_key() - the key the state store knows a target by.
 * @t: the target
 * @key: set to "FSTYPE:UUID" for a filesystem, "device:IDENT" for a disk or bare device
 * @len: size of key
 * @legacy: set to the key of older versions ("FSTYPE:UUID:/dev/a,/dev/b", "device:SIZE:/dev/a"), to
 *          find old history
 * @legacy_len: size of legacy
 *
 * Return: 0, or -ENOENT (with the legacy key, size and kernel names, written) when a device has no
 * stable identity.
 */
int map_target_key(const struct map_target *t, char *key, size_t len, char *legacy,
		   size_t legacy_len);
/**
 * map_target_plan_note() - record a part of a group the plan read whole.
 * @t: the target
 * @dev_idx: the device
 * @group: the group (AG, block group), -1 for none
 * @object: what the kernel could not map there
 * @offset: first byte
 * @length: length, bytes
 * @err: what the kernel answered
 *
 * Read whole because the kernel answered err listing it; recorded once per place.
 *
 * Return: 0, or -ENOMEM.
 */
int map_target_plan_note(struct map_target *t, uint32_t dev_idx, int64_t group,
			 const char *object, uint64_t offset, uint64_t length, int err);
/* ---- for the filesystems' open operations (fs.h) ---- */
/**
 * map_target_add_device() - open a device of a target in a role (its facts and identity).
 * @t: the target
 * @path: the device
 * @role: its role
 * @err: set to a reason of a failure
 * @errlen: size of err
 * @err_class: set on failure
 *
 * Return: 0, or -errno with a reason in err and *err_class set.
 */
int map_target_add_device(struct map_target *t, const char *path, enum map_role role,
			  char *err, size_t errlen, int *err_class);
/**
 * map_format_uuid() - write a 16-byte UUID as text.
 * @u: the UUID
 * @out: set to the text
 * @len: size of out
 *
 * Return: 0.
 */
int map_format_uuid(const unsigned char *u, char *out, size_t len);

/* Return the filesystems of a name for messages: "xfs, ext4". */
#define MAP_SUPPORTED_FS "xfs, ext4 (ext2/ext3 mounted by the ext4 driver)"

#endif
