/*
 * mapping/fs/fs_disk.c - the two kinds of target without a mounted filesystem behind the ops
 * table (fs.h): a bare device, read whole, and a partitioned disk, whose table is read here
 * (through the device, handed to the parser in parts.c), each partition matched to the
 * kernel's partition device and to the XFS or ext4 mounted on it, and the disk cut into
 * segments. When the table cannot be read (it may be the damaged part) the partitions the
 * kernel lists are planned instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "parts.h"

#define DISK_PARTS_MAX 256

/* A bare device: opened whole; the partition number when it is one. */
static int bare_open(struct map_target *t, const char *path, const struct kio_mount *m,
		     char *err, size_t errlen, int *err_class)
{
	struct map_device *d;
	char sys[PATH_MAX];
	uint64_t v;
	int ret;

	(void)m;
	snprintf(t->fs_type, sizeof(t->fs_type), "none");
	ret = map_target_add_device(t, path, MAP_ROLE_WHOLE, err, errlen, err_class);
	if (ret < 0)
		return ret;
	d = &t->devices[0];
	if (d->info.is_partition) {
		snprintf(sys, sizeof(sys), "/sys/class/block/%s/partition", d->info.name);
		if (kio_sysfs_u64(sys, &v) == 0)
			t->self_part = (unsigned)v;
	}
	return 0;
}

/* Reads for the parser: O_DIRECT on the device, in whole logical blocks. */
struct disk_reader {
	int fd;
	uint32_t lbs;
};

static int disk_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct disk_reader *r = arg;
	uint64_t start = off - off % r->lbs, end = off + len;
	void *b;
	ssize_t n;

	if (end % r->lbs)
		end += r->lbs - end % r->lbs;
	if (posix_memalign(&b, 4096, end - start))
		return -ENOMEM;
	n = kio_pread(r->fd, b, end - start, start);
	if (n == (ssize_t)(end - start))
		memcpy(buf, (char *)b + (off - start), len);
	free(b);
	return n < 0 ? (int)n : n == (ssize_t)(end - start) ? 0 : -EIO;
}

/* Open the mounted XFS/ext4 of partition p, if any; never fatal. */
static void part_attach_fs(struct map_part *p, dev_t devt)
{
	struct kio_mount *m = malloc(sizeof(*m));
	struct map_target *fs;
	char err[512];
	int cls;

	if (!m)
		return;
	if (kio_mount_find_dev(devt, m) == 0) {
		snprintf(p->fs_type, sizeof(p->fs_type), "%.31s", m->fs_type);
		snprintf(p->mount_point, sizeof(p->mount_point), "%.255s", m->mount_point);
		fs = calloc(1, sizeof(*fs));
		if (fs && map_target_open(m->mount_point, fs, err, sizeof(err), &cls) == 0 &&
		    fs->nr_devices > 0 && fs->devices[0].info.devt == devt)
			p->fs = fs;
		else if (fs) {
			map_target_close(fs);
			free(fs);
		}
	}
	free(m);
}

/*
 * A partition nothing mounts that holds an ext4: read it from the raw device at the
 * partition's start (the kernel may have no device for it: dm devices get none). The
 * partition is still read whole; its owners are named through p->fs. Never fatal: when the
 * ext4 cannot be read, p->raw_err says why and its contents stay unknown.
 */
static void part_attach_raw(const struct map_target *t, struct map_part *p)
{
	struct map_target *fs;
	char err[256];
	int cls, ret;

	if (p->fs || p->mount_point[0])
		return;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return;
	fs->mount_fd = -1;
	snprintf(fs->arg, sizeof(fs->arg), "%s", t->devices[0].path);
	ret = map_target_add_device(fs, t->devices[0].path, MAP_ROLE_WHOLE, err, sizeof(err),
				    &cls);
	if (ret == 0) {
		fs->fs_base_bytes = p->start;
		ret = map_ext4_raw_open(fs, p->raw_err, sizeof(p->raw_err));
	}
	if (ret == 0 && fs->fs_size_bytes > p->size) {
		snprintf(p->raw_err, sizeof(p->raw_err), "its ext4 superblock says %llu bytes, "
			 "more than the partition's %llu", (unsigned long long)fs->fs_size_bytes,
			 (unsigned long long)p->size);
		ret = -EUCLEAN;
	}
	if (ret == 0) {
		fs->self_part = p->number;
		snprintf(p->fs_type, sizeof(p->fs_type), "ext4");
		p->fs = fs;
		return;
	}
	map_target_close(fs);
	free(fs);
}

/*
 * The partition table cannot be read (it may be the damaged part), but the kernel parsed it
 * when the disk appeared (or partx added them): plan the partitions the kernel lists, so the
 * filesystems on them still map errors to files. Return 0, -ENOENT when the kernel lists none.
 */
static int parts_from_kernel(struct map_target *t)
{
	struct map_device *d = &t->devices[0];
	struct kio_part kparts[DISK_PARTS_MAX];
	int nk = kio_partitions(d->info.name, kparts, DISK_PARTS_MAX);

	if (nk <= 0)
		return -ENOENT;
	t->parts = calloc((size_t)nk, sizeof(*t->parts));
	if (!t->parts)
		return -ENOMEM;
	snprintf(t->pt_type, sizeof(t->pt_type), "kernel");
	for (int k = 0; k < nk; k++) {
		struct map_part *p = &t->parts[t->nr_parts++];

		p->number = kparts[k].number;
		p->start = kparts[k].start_bytes;
		p->size = kparts[k].size_bytes;
		snprintf(p->type, sizeof(p->type), "unknown: the table could not be read");
		if (kio_devpath_from_devt(kparts[k].devt, p->devpath, sizeof(p->devpath)) < 0)
			snprintf(p->devpath, sizeof(p->devpath), "/dev/%s", kparts[k].name);
		part_attach_fs(p, kparts[k].devt);
	}
	return 0;
}

/* A partitioned disk: its table (else the kernel's list), partition devices, filesystems. */
static int disk_open(struct map_target *t, const char *path, const struct kio_mount *m,
		     char *err, size_t errlen, int *err_class)
{
	struct kio_part kparts[DISK_PARTS_MAX];
	struct map_device *d;
	struct disk_reader r;
	uint32_t lbs;
	int nk, ret;

	if (!t->nr_devices) {
		ret = bare_open(t, path, m, err, errlen, err_class);
		if (ret < 0)
			return ret;
	}
	d = &t->devices[0];
	lbs = d->info.logical_block_size ? d->info.logical_block_size : 512;
	r = (struct disk_reader){ .fd = d->fd, .lbs = lbs };
	ret = map_parts_parse(disk_read, &r, d->info.size_bytes, lbs, &t->parts, &t->nr_parts,
			      t->pt_type, sizeof(t->pt_type));
	if (ret == -ENOMEM)
		goto out_err;
	if (ret < 0) {
		/* No table readable (a bad sector under it?): what the kernel knows, if any. */
		ret = parts_from_kernel(t);
	} else {
		nk = kio_partitions(d->info.name, kparts, DISK_PARTS_MAX);
		for (unsigned i = 0; i < t->nr_parts; i++) {
			struct map_part *p = &t->parts[i];

			for (int k = 0; k < nk; k++) {
				if (kparts[k].start_bytes != p->start)
					continue;
				if (kio_devpath_from_devt(kparts[k].devt, p->devpath,
							  sizeof(p->devpath)) < 0)
					snprintf(p->devpath, sizeof(p->devpath), "/dev/%s",
						 kparts[k].name);
				part_attach_fs(p, kparts[k].devt);
				break;
			}
		}
	}
	if (ret == 0)
		ret = map_parts_segments(t, d->info.size_bytes, lbs);
	if (ret == 0) {
		d->role = MAP_ROLE_DISK;
		/* After the segments: a partition named through an unmounted ext4 is read whole. */
		for (unsigned i = 0; i < t->nr_parts; i++)
			part_attach_raw(t, &t->parts[i]);
		return 0;
	}
out_err:
	if (ret != -ENOENT)
		snprintf(err, errlen, "cannot read the partition table of %s: %s", d->path,
			 strerror(-ret));
	return ret;
}

const struct map_fs_ops map_fs_bare = {
	.name = "none",
	.open = bare_open,
};

const struct map_fs_ops map_fs_disk = {
	.name = "none",
	.open = disk_open,
};
