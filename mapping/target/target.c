/*
 * mapping/target/target.c - resolve what the user named (mount point or block device) to the
 * filesystem and the devices to read, with their roles and facts: XFS (data, external log,
 * realtime), ext4, a partitioned disk (partitions through their mounted filesystems, the rest
 * read whole) or a bare device. What each kind needs to open is its ops table's (fs.h):
 * fs_xfs.c, fs_ext4.c, fs_disk.c; here the mount is found, the table picked, and the target's
 * devices, identities, keys and plan notes kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fs.h"
#include "target.h"
#include "devinfo.h"

const char *map_role_name(enum map_role role)
{
	switch (role) {
	case MAP_ROLE_DATA:
		return "data";
	case MAP_ROLE_LOG:
		return "log";
	case MAP_ROLE_RT:
		return "realtime";
	case MAP_ROLE_WHOLE:
		return "whole";
	case MAP_ROLE_DISK:
		return "disk";
	}
	return "unknown";
}

/* The identity the history knows device d of t by (map_device.ident). */
static void device_ident(const struct map_target *t, struct map_device *d)
{
	const struct map_dev_info *bi = &d->info;
	char id[300];
	uint64_t part = 0;

	d->ident[0] = '\0';
	if ((map_target_ops(t)->caps & MAP_FSC_MOUNTED) &&
	    (d->role == MAP_ROLE_DATA || d->role == MAP_ROLE_LOG || d->role == MAP_ROLE_RT)) {
		snprintf(d->ident, sizeof(d->ident), "%s", map_role_name(d->role));
		return;
	}
	if (kio_bdev_ident(bi->disk_name, id, sizeof(id)) < 0)
		return;
	if (bi->is_partition) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "/sys/class/block/%s/partition", bi->name);
		if (kio_sysfs_u64(path, &part) < 0)
			return;
		snprintf(d->ident, sizeof(d->ident), "%s:part%llu", id, (unsigned long long)part);
		return;
	}
	snprintf(d->ident, sizeof(d->ident), "%s", id);
}

const char *map_device_key(const struct map_device *d)
{
	return d->ident[0] ? d->ident : d->path;
}

int map_target_key(const struct map_target *t, char *key, size_t len, char *legacy,
		   size_t legacy_len)
{
	int mounted = !!(map_target_ops(t)->caps & MAP_FSC_MOUNTED);
	size_t n;
	int ret = 0;

	if (mounted)
		n = (size_t)snprintf(legacy, legacy_len, "%s:%s:", t->fs_type, t->uuid);
	else
		n = (size_t)snprintf(legacy, legacy_len, "device:%llu:",
				     (unsigned long long)t->devices[0].info.size_bytes);
	for (unsigned i = 0; i < t->nr_devices && n < legacy_len; i++)
		n += (size_t)snprintf(legacy + n, legacy_len - n, "%s%s", i ? "," : "",
				      t->devices[i].path);
	if (mounted && t->uuid[0]) {
		snprintf(key, len, "%s:%s", t->fs_type, t->uuid);
	} else if (!mounted && t->devices[0].ident[0]) {
		snprintf(key, len, "device:%s", t->devices[0].ident);
	} else {
		snprintf(key, len, "%s", legacy);	/* no stable identity: the kernel name */
		ret = -ENOENT;
	}
	return ret;
}


/* The kernel's facts about a block device, as mapping keeps them. */
static void dev_info_from(struct map_dev_info *o, const struct kio_bdev_info *bi)
{
	memset(o, 0, sizeof(*o));
	o->devt = bi->devt;
	o->size_bytes = bi->size_bytes;
	o->logical_block_size = bi->logical_block_size;
	o->physical_block_size = bi->physical_block_size;
	o->max_sectors_kb = bi->max_sectors_kb;
	o->max_hw_sectors_kb = bi->max_hw_sectors_kb;
	o->max_segments = bi->max_segments;
	o->optimal_io_bytes = bi->optimal_io_bytes;
	o->rotational = bi->rotational;
	o->is_partition = bi->is_partition;
	o->part_start_bytes = bi->part_start_bytes;
	snprintf(o->name, sizeof(o->name), "%s", bi->name);
	snprintf(o->disk_name, sizeof(o->disk_name), "%s", bi->disk_name);
	snprintf(o->model, sizeof(o->model), "%s", bi->model);
}

int map_target_add_device(struct map_target *t, const char *path, enum map_role role,
			  char *err, size_t errlen, int *err_class)
{
	struct kio_bdev_info bi;
	struct map_device *d;
	int fd, ret;

	if (t->nr_devices >= MAP_MAX_DEVICES) {
		snprintf(err, errlen, "too many devices in %s", t->arg);
		*err_class = MAP_TERR_OPERATIONAL;
		return -E2BIG;
	}
	d = &t->devices[t->nr_devices];
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->role = role;
	fd = kio_open_direct(path);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s device %s for reading: %s%s",
			 map_role_name(role), path, strerror(-fd),
			 (fd == -EACCES || fd == -EPERM) && geteuid() != 0 ?
			 " (mediascan needs root)" : "");
		*err_class = MAP_TERR_OPERATIONAL;
		return fd;
	}
	ret = kio_bdev_info(fd, &bi);
	if (ret < 0) {
		snprintf(err, errlen, "%s is not a usable block device: %s", path, strerror(-ret));
		*err_class = ret == -ENOTBLK ? MAP_TERR_USAGE : MAP_TERR_OPERATIONAL;
		kio_close(fd);
		return ret;
	}
	dev_info_from(&d->info, &bi);
	d->fd = fd;
	device_ident(t, d);
	t->nr_devices++;
	return 0;
}

int map_format_uuid(const unsigned char *u, char *out, size_t len)
{
	snprintf(out, len,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	return 0;
}

/* Set up a mounted filesystem; 0 or -errno with a reason. */
static int open_mounted(struct map_target *t, const struct kio_mount *m, char *err,
			size_t errlen, int *err_class)
{
	int fd;

	snprintf(t->mount_point, sizeof(t->mount_point), "%s", m->mount_point);
	snprintf(t->fs_type, sizeof(t->fs_type), "%s", m->fs_type);
	t->ops = map_fs_by_type(m->fs_type);
	if (t->ops) {
		/* one of ours: opened below */
	} else if (strcmp(m->fs_type, "btrfs") == 0) {
		snprintf(err, errlen,
			 "%s is btrfs, which mediascan does not scan; use `btrfs scrub start %s` "
			 "(it reads every copy and checks data against its checksums); "
			 "supported: " MAP_SUPPORTED_FS, m->mount_point, m->mount_point);
		*err_class = MAP_TERR_USAGE;
		return -EOPNOTSUPP;
	} else if (strcmp(m->fs_type, "zfs") == 0) {
		snprintf(err, errlen, "%s is ZFS; use `zpool scrub`; supported: " MAP_SUPPORTED_FS,
			 m->mount_point);
		*err_class = MAP_TERR_USAGE;
		return -EOPNOTSUPP;
	} else if (strncmp(m->fs_type, "nfs", 3) == 0 || strcmp(m->fs_type, "cifs") == 0 ||
		   strcmp(m->fs_type, "smb3") == 0 || strncmp(m->fs_type, "fuse", 4) == 0 ||
		   strcmp(m->fs_type, "ceph") == 0 || strcmp(m->fs_type, "9p") == 0) {
		snprintf(err, errlen, "%s holds %s, whose disks are not here: scan them on the "
			 "machine that has them; supported: " MAP_SUPPORTED_FS,
			 m->mount_point, m->fs_type);
		*err_class = MAP_TERR_USAGE;
		return -EOPNOTSUPP;
	} else {
		snprintf(err, errlen, "%s holds %s, which mediascan cannot map; "
			 "supported: " MAP_SUPPORTED_FS " (or name a block device to read it whole)",
			 m->mount_point, m->fs_type);
		*err_class = MAP_TERR_USAGE;
		return -EOPNOTSUPP;
	}
	fd = kio_open_ro(t->mount_point);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", t->mount_point, strerror(-fd));
		*err_class = MAP_TERR_OPERATIONAL;
		return fd;
	}
	t->mount_fd = fd;
	return t->ops->open(t, NULL, m, err, errlen, err_class);
}

/* Set up a block device without a filesystem mounted on it: a partitioned disk or bare. */
static int open_bare(struct map_target *t, const char *path, char *err, size_t errlen,
		     int *err_class)
{
	int ret;

	t->ops = &map_fs_bare;
	ret = map_fs_bare.open(t, path, NULL, err, errlen, err_class);
	if (ret < 0)
		return ret;
	if (!t->devices[0].info.is_partition) {
		ret = map_fs_disk.open(t, path, NULL, err, errlen, err_class);
		if (ret == 0) {
			t->ops = &map_fs_disk;
			return 0;
		}
		if (ret != -ENOENT && ret != -EOPNOTSUPP) {
			*err_class = MAP_TERR_OPERATIONAL;
			return ret;
		}
	}
	/* No partition table: read it whole, its owners named by the ext4 on it if any (read
	 * from the raw device, map_fs_ext4_raw); else, or when it cannot be read, unknown. */
	map_ext4_raw_open(t, t->raw_err, sizeof(t->raw_err));
	return 0;
}

struct foreign_lookup {
	dev_t devt;
	struct map_target *t;
};

static int foreign_one(const struct kio_mount *m, void *arg)
{
	struct foreign_lookup *l = arg;
	struct stat st;

	if (m->source[0] != '/' || stat(m->source, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    st.st_rdev != l->devt)
		return 0;
	snprintf(l->t->foreign_fs, sizeof(l->t->foreign_fs), "%.*s",
		 (int)sizeof(l->t->foreign_fs) - 1, m->fs_type);
	snprintf(l->t->foreign_mount, sizeof(l->t->foreign_mount), "%.*s",
		 (int)sizeof(l->t->foreign_mount) - 1, m->mount_point);
	return 1;
}

/*
 * A filesystem whose mounts carry an anonymous device number (btrfs) does not show under
 * the block device's own number: find it by its mount source, so that a device read whole
 * is not called "no filesystem mounted" while one is.
 */
static void note_foreign_mount(struct map_target *t, dev_t devt)
{
	struct foreign_lookup l = { .devt = devt, .t = t };

	kio_mount_each(foreign_one, &l);
}

int map_target_open(const char *arg, struct map_target *t, char *err, size_t errlen,
		    int *err_class)
{
	char real[PATH_MAX];
	struct kio_mount *m;
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	t->mount_fd = -1;
	snprintf(t->arg, sizeof(t->arg), "%s", arg);
	*err_class = MAP_TERR_USAGE;
	if (!realpath(arg, real) || stat(real, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", arg, strerror(errno));
		if (ret == -EACCES)
			*err_class = MAP_TERR_OPERATIONAL;
		return ret;
	}
	m = malloc(sizeof(*m));
	if (!m) {
		*err_class = MAP_TERR_OPERATIONAL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (S_ISBLK(st.st_mode)) {
		ret = kio_mount_find_dev(st.st_rdev, m);
		if (ret == 0) {
			ret = open_mounted(t, m, err, errlen, err_class);
		} else {
			ret = open_bare(t, real, err, errlen, err_class);
			if (ret == 0)
				note_foreign_mount(t, st.st_rdev);
		}
	} else if (S_ISDIR(st.st_mode)) {
		ret = kio_mount_find(real, m);
		if (ret < 0) {
			snprintf(err, errlen, "%s is not a mount point (name the mount point of "
				 "the filesystem, or a block device)", arg);
			*err_class = MAP_TERR_USAGE;
		} else {
			ret = open_mounted(t, m, err, errlen, err_class);
		}
	} else {
		snprintf(err, errlen, "%s is neither a mount point nor a block device", arg);
		ret = -EINVAL;
	}
	free(m);
	if (ret < 0)
		map_target_close(t);
	return ret;
}

int map_target_open_device(const char *path, struct map_target *t, unsigned *dev_idx,
			   char *err, size_t errlen, int *err_class)
{
	struct kio_mount *m;
	struct stat st;
	int ret;

	*dev_idx = 0;
	memset(t, 0, sizeof(*t));
	t->mount_fd = -1;
	*err_class = MAP_TERR_USAGE;
	if (stat(path, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s is not a block device", path);
		return -ENOTBLK;
	}
	m = malloc(sizeof(*m));
	if (!m) {
		*err_class = MAP_TERR_OPERATIONAL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* The external log or realtime device of a mounted XFS: map through that XFS. */
	if (kio_mount_find_dev(st.st_rdev, m) < 0 && map_mount_find_aux_dev(st.st_rdev, m) == 0) {
		ret = map_target_open(m->mount_point, t, err, errlen, err_class);
		free(m);
		if (ret < 0)
			return ret;
		for (unsigned i = 0; i < t->nr_devices; i++)
			if (t->devices[i].info.devt == st.st_rdev)
				*dev_idx = i;
		return 0;
	}
	free(m);
	ret = map_target_open(path, t, err, errlen, err_class);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < t->nr_devices; i++)
		if (t->devices[i].info.devt == st.st_rdev)
			*dev_idx = i;
	return 0;
}

struct map_target *map_target_fs(struct map_target *t, uint32_t fs_idx)
{
	if (fs_idx == 0)
		return t;
	if (fs_idx > t->nr_parts)
		return NULL;
	return t->parts[fs_idx - 1].fs;
}

const struct map_seg *map_target_seg(const struct map_target *t, uint64_t offset)
{
	size_t lo = 0, hi = t->nr_segs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct map_seg *s = &t->segs[mid];

		if (offset < s->start)
			hi = mid;
		else if (offset >= s->start + s->length)
			lo = mid + 1;
		else
			return s;
	}
	return NULL;
}

int map_target_plan_note(struct map_target *t, uint32_t dev_idx, int64_t group,
			 const char *object, uint64_t offset, uint64_t length, int err)
{
	struct map_plan_note *n;

	for (unsigned i = 0; i < t->nr_plan_notes; i++) {
		n = &t->plan_notes[i];
		if (n->dev_idx == dev_idx && n->offset == offset)
			return 0;		/* the counting pass said it already */
	}
	if (t->nr_plan_notes >= MAP_MAX_PLAN_NOTES) {
		t->plan_notes_dropped++;
		return 0;
	}
	n = realloc(t->plan_notes, sizeof(*n) * (t->nr_plan_notes + 1));
	if (!n)
		return -ENOMEM;
	t->plan_notes = n;
	n = &t->plan_notes[t->nr_plan_notes++];
	memset(n, 0, sizeof(*n));
	n->dev_idx = dev_idx;
	n->group = group;
	n->offset = offset;
	n->length = length;
	n->err = err;
	snprintf(n->object, sizeof(n->object), "%s", object);
	if (dev_idx < t->nr_devices)
		snprintf(n->device, sizeof(n->device), "%s", t->devices[dev_idx].path);
	return 0;
}

/* Free the partitions and segments of t, closing the filesystems opened on partitions. */
static void parts_free(struct map_target *t)
{
	for (unsigned i = 0; i < t->nr_parts; i++) {
		if (t->parts[i].fs) {
			map_target_close(t->parts[i].fs);
			free(t->parts[i].fs);
		}
	}
	free(t->parts);
	free(t->segs);
	t->parts = NULL;
	t->segs = NULL;
	t->nr_parts = t->nr_segs = 0;
}

int map_target_xfs_fd(const struct map_target *t)
{
	return (map_target_ops(t)->caps & MAP_FSC_XFS_IOC) ? t->mount_fd : -1;
}

int map_target_close(struct map_target *t)
{
	free(t->plan_notes);
	t->plan_notes = NULL;
	t->nr_plan_notes = 0;
	parts_free(t);
	map_fsx_free(t);
	for (unsigned i = 0; i < t->nr_devices; i++) {
		kio_close(t->devices[i].fd);
		t->devices[i].fd = -1;
	}
	t->nr_devices = 0;
	if (t->mount_fd >= 0)
		kio_close(t->mount_fd);
	t->mount_fd = -1;
	return 0;
}
