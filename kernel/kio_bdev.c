/*
 * kernel/kio_bdev.c - block device facts: size, block sizes, queue limits, rotational,
 * partition start, from BLK* ioctls and /sys/dev/block/MAJ:MIN; a disk's stable identity
 * (WWN, serial, loop backing file) from sysfs; a device node's devt (stat).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>

#include "kio.h"

/* Read /sys/dev/block/M:m/<attr> as a number; 0 on success. */
static int sysdev_u64(dev_t devt, const char *attr, uint64_t *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major(devt), minor(devt), attr);
	return kio_sysfs_u64(path, val);
}

int kio_devt_of_path(const char *path, dev_t *devt)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*devt = st.st_rdev;
	return 0;
}

/* Fill the kernel names of the device and its whole disk from the sysfs link. */
static void bdev_names(dev_t devt, struct kio_bdev_info *bi)
{
	char link[PATH_MAX], target[PATH_MAX], parent[PATH_MAX], *name;
	ssize_t n;
	uint64_t v;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(devt), minor(devt));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	name = strrchr(target, '/');
	snprintf(bi->name, sizeof(bi->name), "%.63s", name ? name + 1 : target);
	snprintf(bi->disk_name, sizeof(bi->disk_name), "%s", bi->name);
	if (sysdev_u64(devt, "partition", &v) == 0 && v > 0) {
		bi->is_partition = 1;
		if (sysdev_u64(devt, "start", &v) == 0)
			bi->part_start_bytes = v * 512;
		if (name) {
			*name = '\0';
			snprintf(parent, sizeof(parent), "%s", target);
			name = strrchr(parent, '/');
			snprintf(bi->disk_name, sizeof(bi->disk_name), "%.63s",
				 name ? name + 1 : parent);
		}
	}
}

/* Read a sysfs attribute of block device name into out, trimmed; 0, or -errno (-ENOENT empty). */
static int ident_attr(const char *name, const char *attr, char *out, size_t len)
{
	char path[PATH_MAX];
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, attr);
	n = kio_sysfs_read(path, out, len);
	if (n < 0)
		return n;
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\n'))
		out[--n] = '\0';
	return n > 0 ? 0 : -ENOENT;
}

int kio_bdev_ident(const char *name, char *out, size_t len)
{
	/* The kernel's own names for a disk that survive a reboot, most specific first. */
	static const char *const attrs[][2] = {
		{ "wwid", "wwid" },			/* NVMe namespace: eui., nguid, nvme. */
		{ "device/wwid", "wwid" },		/* SCSI: naa., t10., eui. (VPD 0x83) */
		{ "serial", "serial" },			/* virtio-blk */
		{ "device/serial", "serial" },		/* MMC, some drivers */
		{ "loop/backing_file", "loop-file" },	/* a loop device: what it shows */
	};
	char v[512];

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		if (ident_attr(name, attrs[i][0], v, sizeof(v)) == 0) {
			snprintf(out, len, "%s:%s", attrs[i][1], v);
			return 0;
		}
	}
	return -ENOENT;
}

int kio_bdev_size(int fd, uint64_t *bytes)
{
	if (ioctl(fd, BLKGETSIZE64, bytes) < 0)
		return -errno;
	return 0;
}

int kio_bdev_info(int fd, struct kio_bdev_info *bi)
{
	struct stat st;
	uint64_t v;
	int ssz = 0;
	unsigned int pbsz = 0;
	char path[PATH_MAX];

	memset(bi, 0, sizeof(*bi));
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	bi->devt = st.st_rdev;
	if (ioctl(fd, BLKGETSIZE64, &bi->size_bytes) < 0)
		return -errno;
	if (ioctl(fd, BLKSSZGET, &ssz) < 0)
		return -errno;
	bi->logical_block_size = (uint32_t)ssz;
	if (ioctl(fd, BLKPBSZGET, &pbsz) == 0)
		bi->physical_block_size = pbsz;
	else
		bi->physical_block_size = bi->logical_block_size;
	bi->rotational = -1;
	bdev_names(bi->devt, bi);

	/* Queue limits live on the whole disk; partitions have a queue link on newer kernels. */
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/max_sectors_kb", bi->disk_name);
	if (kio_sysfs_u64(path, &v) == 0)
		bi->max_sectors_kb = (uint32_t)v;
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/max_hw_sectors_kb", bi->disk_name);
	if (kio_sysfs_u64(path, &v) == 0)
		bi->max_hw_sectors_kb = (uint32_t)v;
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/max_segments", bi->disk_name);
	if (kio_sysfs_u64(path, &v) == 0)
		bi->max_segments = (uint32_t)v;
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/optimal_io_size", bi->disk_name);
	if (kio_sysfs_u64(path, &v) == 0)
		bi->optimal_io_bytes = (uint32_t)v;
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/rotational", bi->disk_name);
	if (kio_sysfs_u64(path, &v) == 0)
		bi->rotational = (int)v;
	snprintf(path, sizeof(path), "/sys/class/block/%s/device/model", bi->disk_name);
	kio_sysfs_read(path, bi->model, sizeof(bi->model));
	return 0;
}
