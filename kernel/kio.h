/*
 * kernel/kio.h - the only layer that talks to the kernel directly: ioctl() wrappers,
 * sysfs and procfs readers, device opens and positioned reads. Every function returns
 * 0 or a count on success and -errno on failure; there is no policy here. Declarations are
 * grouped by the kernel interface (and file) they wrap. XFS ioctls are in kio_xfs.h,
 * device command passthrough (NVMe, SCSI, XFS_IOC_VERIFY_MEDIA) in kio_dev.h.
 */
#ifndef MEDIASCAN_KIO_H
#define MEDIASCAN_KIO_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/fsmap.h>

/* ---- opens and positioned reads (kio_io.c) ---- */

/* Return an fd opened O_RDONLY|O_CLOEXEC, or -errno. */
int kio_open_ro(const char *path);
/* Return an fd opened O_RDONLY|O_DIRECT|O_CLOEXEC for reading a block device, or -errno. */
int kio_open_direct(const char *path);
/* Return an fd on directory path opened O_RDONLY|O_DIRECTORY|O_CLOEXEC, or -errno. */
int kio_open_dir(const char *path);
/* Return 0 after closing fd (errors ignored: read-only fds). */
int kio_close(int fd);
/* Return bytes read (short only at end of device) or -errno. */
ssize_t kio_pread(int fd, void *buf, size_t len, uint64_t offset);

/* ---- many positioned reads in flight: io_uring, pread where it is missing (kio_batch.c) ---- */

struct kio_batch;
/* Return a batch reader (free with kio_batch_close), NULL when out of memory. */
struct kio_batch *kio_batch_open(void);
void kio_batch_close(struct kio_batch *b);
/*
 * Return 0 after reading len bytes at each of offs[0..n) of fd into bufs + i * len (for
 * O_DIRECT: bufs and len aligned), all in flight together; the first -errno otherwise, -EIO
 * for a short read.
 */
int kio_batch_read(struct kio_batch *b, int fd, const uint64_t *offs, unsigned n, size_t len,
		   void *bufs);

/* ---- block device facts: BLK* ioctls, sysfs attributes, stat (kio_bdev.c) ---- */

/* Facts about one block device, from ioctls and /sys/dev/block/MAJ:MIN. */
struct kio_bdev_info {
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

/* Return 0 and fill bi for the block device open on fd, or -errno (-ENOTBLK if not one). */
int kio_bdev_info(int fd, struct kio_bdev_info *bi);
/* Return 0 and set *bytes to the current size of the block device open on fd, or -errno. */
int kio_bdev_size(int fd, uint64_t *bytes);
/*
 * Return 0 and write a stable identity of whole disk name (kernel name: sda, nvme0n1, loop3)
 * to out: "wwid:...", "serial:..." or "loop-file:PATH", from sysfs; -ENOENT when it has none.
 */
int kio_bdev_ident(const char *name, char *out, size_t len);
/* Return 0 and set *devt for a block device path, or -errno (-ENOTBLK if not a block device). */
int kio_devt_of_path(const char *path, dev_t *devt);

/* ---- one sysfs or procfs attribute (kio_sysfs.c) ---- */

/* Return bytes read into buf (NUL-terminated, trailing newline removed) from a sysfs file. */
int kio_sysfs_read(const char *path, char *buf, size_t len);
/* Return 0 and set *val from a sysfs file holding one unsigned number, or -errno. */
int kio_sysfs_u64(const char *path, uint64_t *val);

/* ---- block devices by name, and a disk's partitions, in sysfs (kio_sysfs_block.c) ---- */

/*
 * Return 1 when the disk's queue uses the bfq I/O scheduler ("[bfq]" in
 * /sys/block/DISK/queue/scheduler), 0 when another or none, -errno when unreadable.
 */
int kio_disk_sched_bfq(const char *disk_name);

/* One partition the kernel knows of a disk. */
struct kio_part {
	unsigned number;
	uint64_t start_bytes;
	uint64_t size_bytes;
	dev_t devt;
	char name[64];
};

/* Return 0 and write "/dev/NAME" for devt (from sysfs uevent DEVNAME), or -errno. */
int kio_devpath_from_devt(dev_t devt, char *out, size_t len);
/* Return 0 and set *devt of the block device kernel name (sdb, nvme0n1p2) from sysfs, or
 * -ENOENT. */
int kio_devt_of_name(const char *name, dev_t *devt);
/* Return the number of partitions of whole disk disk_name (as sda, loop3) written to out[]
 * (at most max, sorted by start), from /sys/class/block/DISK/DISK*, or -errno. */
int kio_partitions(const char *disk_name, struct kio_part *out, unsigned max);

/* What a whole disk says it is, from sysfs: who made it and which driver carries it. */
struct kio_disk_hw {
	char vendor[64];		/* device/vendor (SCSI INQUIRY: "ATA", "QEMU", "VMware") */
	char model[128];		/* device/model */
	char driver[64];		/* the host adapter's driver (scsi_host proc_name:
					 * virtio_scsi, vmw_pvscsi, ata_piix, ahci, storvsc,
					 * scsi_debug), else the device's driver (virtio_blk,
					 * nvme: the controller's); "" unknown */
	int ata_port;			/* libata: N of ataN, -1 not on libata */
	int ata_dev;			/* libata: the device on the port (the .DD of ataN.DD) */
};

/*
 * Return 0 and fill hw for whole disk disk_name (sda, nvme0n1, vda) from sysfs (NULL:
 * "/sys"), or -errno (-ENOENT: no such disk).
 */
int kio_disk_hw(const char *sysfs, const char *disk_name, struct kio_disk_hw *hw);
/*
 * Return 0 and write the kernel name of the disk libata calls ataPORT.DEV (sdc) to out, or
 * -ENOENT when no disk is there (sysfs NULL: "/sys").
 */
int kio_ata_disk_name(const char *sysfs, int port, int dev, char *out, size_t len);

/* ---- physical disks under block devices: sysfs slaves/ (kio_topology.c) ---- */

#define KIO_DISK_NAME_LEN 64
/*
 * Return the number of physical disks written to out[0..max) that carry block device name
 * (sda1 -> sda; dm-0 -> its slaves' disks, recursively), or -errno. sysfs NULL: "/sys".
 */
int kio_disk_leaves(const char *sysfs, const char *name, char (*out)[KIO_DISK_NAME_LEN],
		    unsigned max);

/* ---- the storage stack in sysfs: holders/, slaves/, md/ (kio_stack.c) ---- */

/*
 * Return the number of entries of /sys/class/block/NAME/SUB (as "holders", "slaves", "md")
 * starting with prefix (NULL: all) written sorted to out[0..max), 0 when SUB is missing,
 * -E2BIG or -errno. sysfs NULL: "/sys".
 */
int kio_blk_list(const char *sysfs, const char *name, const char *sub, const char *prefix,
		 char (*out)[KIO_DISK_NAME_LEN], unsigned max);
/* Return the length of attribute ATTR (as "md/level", "start") of block device name read
 * into buf, or -errno. */
int kio_blk_attr(const char *sysfs, const char *name, const char *attr, char *buf, size_t len);
/* Return 0 and set *val from attribute ATTR of block device name (one number), or -errno. */
int kio_blk_attr_u64(const char *sysfs, const char *name, const char *attr, uint64_t *val);
/* Parse a sysfs attribute's decimal value (no sign): 0, or -EINVAL. */
int kio_attr_parse_u64(const char *buf, uint64_t *val);
/* Return 0 and the last component of symlink ATTR (md/rd0 -> dev-sdb1), or -errno. */
int kio_blk_link(const char *sysfs, const char *name, const char *attr, char *out, size_t len);
/* Return 0 and the whole disk's name of partition name, -ENOENT if name is no partition. */
int kio_blk_parent(const char *sysfs, const char *name, char *out, size_t len);

/* ---- device-mapper tables: DM_TABLE_STATUS (kio_dm.c) ---- */

/* One row of a device-mapper table. crypt's key is "-"; params of targets mediascan does not
 * map (thin, cache, integrity...) are empty. */
struct kio_dm_target {
	uint64_t start;			/* 512-byte sectors on the dm device */
	uint64_t length;
	char type[16];			/* "linear", "striped", "crypt", ... */
	char params[1024];
};

/* Return the number of rows of dm device devt's live table written to out[0..max), or
 * -E2BIG, -EOVERFLOW (a row too long), -errno. */
int kio_dm_table(dev_t devt, struct kio_dm_target *out, unsigned max);

/* ---- I/O counters: /sys/class/block/NAME/stat (kio_diskstat.c) ---- */

/*
 * One snapshot of /sys/class/block/NAME/stat (Documentation/block/stat.rst). Sectors are
 * 512-byte units whatever the logical block size; ticks are milliseconds. Counters are
 * cumulative since the device appeared; fields the kernel does not report stay 0.
 */
struct kio_diskstat {
	uint64_t read_ios;		/* read requests completed */
	uint64_t read_merges;
	uint64_t read_sectors;		/* 512B sectors */
	uint64_t read_ticks_ms;
	uint64_t write_ios;
	uint64_t write_merges;
	uint64_t write_sectors;		/* 512B sectors */
	uint64_t write_ticks_ms;
	uint64_t in_flight;		/* requests in flight now (not cumulative) */
	uint64_t io_ticks_ms;		/* time with at least one request in flight */
	uint64_t time_in_queue_ms;
	uint64_t discard_ios;		/* Linux 4.18+ */
	uint64_t discard_merges;
	uint64_t discard_sectors;	/* 512B sectors */
	uint64_t discard_ticks_ms;
	uint64_t flush_ios;		/* Linux 5.5+ */
	uint64_t flush_ticks_ms;
	unsigned nr_fields;		/* fields present: 11, 15 or 17 */
};

/* Return the number of fields parsed (11..17) from one stat line, or -EINVAL. */
int kio_diskstat_parse(const char *line, struct kio_diskstat *st);
/* Return 0 and fill st from /sys/class/block/NAME/stat (NAME as sda1, nvme0n1), or -errno. */
int kio_diskstat_read(const char *disk_name, struct kio_diskstat *st);

/* ---- the calling thread's run-queue wait: /proc/thread-self/schedstat (kio_schedstat.c) ---- */

/* Return an fd of the calling thread's schedstat (read it from that thread only), or -errno. */
int kio_schedstat_open(void);
/* Return 0 and set *run_delay_ns from one schedstat line ("cpu run_delay slices"), or -EINVAL. */
int kio_schedstat_parse(const char *line, uint64_t *run_delay_ns);
/* Return 0 and set *run_delay_ns (ns the thread was ready but waiting, so far), or -errno. */
int kio_schedstat_run_delay(int fd, uint64_t *run_delay_ns);
/* Return the number of CPUs online (1 when it cannot be read). */
unsigned kio_cpus_online(void);

/* ---- I/O class: ioprio_set() (kio_ioprio.c) ---- */

/* Return 0 after putting the calling thread in the idle I/O class, or -errno. */
int kio_ioprio_set_idle(void);
/* Return 0 after putting the calling thread in best-effort class at level (0..7), or -errno. */
int kio_ioprio_set_be(int level);

/* ---- I/O buffers: mmap, huge pages (kio_mem.c) ---- */

/* How an I/O buffer from kio_buf_alloc is backed. */
enum kio_buf_kind {
	KIO_BUF_THP,			/* transparent huge pages: one segment per 2 MiB */
	KIO_BUF_HUGETLB,		/* hugetlbfs pages (MAP_HUGETLB) */
	KIO_BUF_PAGES,			/* small pages: one segment per page at worst */
};
/*
 * Return a zeroed buffer of at least len bytes (2 MiB multiple, huge pages when the kernel
 * gives them) and set *map_len for kio_buf_free and *kind, or NULL.
 */
void *kio_buf_alloc(size_t len, size_t *map_len, enum kio_buf_kind *kind);
void kio_buf_free(void *buf, size_t map_len);

/* ---- process lifetime and exclusion: prctl, flock (kio_proc.c) ---- */

/*
 * Return 0 after asking for signal sig when the parent dies, -ESRCH if the parent (pid
 * parent, read before the call) is already gone, or -errno.
 */
int kio_pdeathsig_set(int sig, pid_t parent);
/*
 * Return an fd (O_CLOEXEC) holding an exclusive flock() on lock file path (created 0644, its
 * directory 0755 if missing) after writing note into it; -EWOULDBLOCK when another process
 * holds it (its note's first line copied into holder), or -errno. Closing the fd releases it.
 */
int kio_lockfile_take(const char *path, const char *note, char *holder, size_t holder_len);

/* ---- mounts: /proc/self/mountinfo (kio_mountinfo.c) ---- */

/* One line of /proc/self/mountinfo that matters to us. */
struct kio_mount {
	dev_t devt;			/* st_dev of the filesystem */
	char mount_point[4096];
	char fs_type[64];
	char source[4096];		/* mount source, e.g. /dev/loop3 */
	char super_opts[4096];		/* super options, e.g. rw,logdev=/dev/loop4 */
};

/*
 * Return 0 after calling fn for every mount in mountinfo order until fn returns non-zero
 * (then that value), or -errno when mountinfo cannot be read.
 */
int kio_mount_each(int (*fn)(const struct kio_mount *m, void *arg), void *arg);
/* Close the open mountinfo and drop its text (a pass's teardown: it leaves nothing open). */
void kio_mount_forget(void);
/* Return as kio_mount_each, for the mountinfo lines of f (the fuzz harness feeds its own). */
int kio_mount_each_stream(FILE *f, int (*fn)(const struct kio_mount *m, void *arg), void *arg);
/* Return 0 and fill m for the mount whose mount point is exactly path, -ENOENT if none. */
int kio_mount_find(const char *path, struct kio_mount *m);
/* Return 0 and fill m for the first mount of block device devt, -ENOENT if none. */
int kio_mount_find_dev(dev_t devt, struct kio_mount *m);

/* ---- filesystem ioctls: FS_IOC_GETFSMAP, FS_IOC_GETVERSION (kio_fs.c) ---- */

/*
 * Return the number of records placed in head->fmh_recs (0 at the end) or -errno.
 * head must have fmh_count and both keys set; on return fmh_keys[0] is advanced past the
 * last record so the next call continues (the GETFSMAP iteration protocol).
 */
int kio_getfsmap(int fd, struct fsmap_head *head);
/*
 * Return 1 and set *rec_dev to the device of the first GETFSMAP record at or after device
 * low_dev (from physical 0), 0 if there is none, or -errno (ext4 takes only 0, UINT32_MAX and
 * its own devices as keys: EINVAL for another; it lists its external journal only to a query
 * from physical 0). Finds and confirms an external log or journal device.
 */
int kio_getfsmap_first_dev(int fd, uint32_t low_dev, uint32_t *rec_dev);
/*
 * Return 0 and set *ino and *gen (FS_IOC_GETVERSION: the inode generation) of the file at
 * path (not following a final symlink), or -errno.
 */
int kio_inode_ident(const char *path, uint64_t *ino, uint32_t *gen);
/* Return 1 when the filesystem of open fd is mounted read-only, 0 read-write, or -errno. */
int kio_fs_readonly(int fd);

/* ---- a file's extents: FS_IOC_FIEMAP (kio_fiemap.c) ---- */

struct fiemap;
/* Return 0 and fill fm from FS_IOC_FIEMAP (the caller sets fm_start, fm_length, fm_flags and
 * fm_extent_count), or -errno (-EOPNOTSUPP when the filesystem cannot map this inode). */
int kio_fiemap(int fd, struct fiemap *fm);

/* ---- file handles: name_to_handle_at, open_by_handle_at (kio_handle.c) ---- */

/* Return 0 and the file handle type of the filesystem mounted at mount_fd (name_to_handle_at
 * of its root), or -errno. */
int kio_handle_type(int mount_fd, int *handle_type);
/* Return an fd for inode ino (generation gen) opened O_RDONLY|flags by open_by_handle_at
 * through mount_fd, or -errno (-ESTALE: gone or reused; -EOPNOTSUPP: unknown handle type).
 * handle_type comes from kio_handle_type: 1 (32-bit inode, generation: ext4, XFS inode32)
 * or 0x81 (XFS 64-bit inode numbers). */
int kio_open_inode(int mount_fd, int handle_type, uint64_t ino, uint32_t gen, int flags);

/* ---- the kernel log: /dev/kmsg (kio_kmsg.c) ---- */

/* Return an fd on /dev/kmsg opened O_RDONLY|O_NONBLOCK, positioned at the oldest record,
 * or -errno. */
int kio_kmsg_open(void);
/* Return the length of the next /dev/kmsg record copied (NUL-terminated) into buf, 0 when no
 * more records are waiting, or -errno (-EPIPE after records were overwritten is skipped). */
ssize_t kio_kmsg_read(int fd, char *buf, size_t len);

#endif
