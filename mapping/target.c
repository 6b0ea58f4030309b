/*
 * mapping/target.c - resolve what the user named (mount point or block device) to the
 * filesystem and the devices to read, with their roles and facts: XFS (data, external log,
 * realtime), ext4, a partitioned disk (partitions through their mounted filesystems, the rest
 * read whole) or a bare device.
 *
 * Over 600 lines for now: opening a target (mount, devices, identities, keys, plan notes) is
 * one job; the ext4 superblock decoding issue 10 names moves to the filesystem ops table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config.h"
#if HAVE_BLKID
#include <blkid.h>
#endif

#include "target.h"
#include "devinfo.h"
#include "fsx.h"
#include "fsmap.h"

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

int map_target_dev_index(const struct map_target *t, uint32_t fmr_device)
{
	for (unsigned i = 0; i < t->nr_devices; i++)
		if ((uint32_t)t->devices[i].info.devt == fmr_device)
			return (int)i;
	return -ENOENT;
}

/* Find "key=value" in a comma-separated option string; 0 and value in out if present. */
static int find_opt(const char *opts, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, ",");

			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return 0;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return -ENOENT;
}
/* The identity the history knows device d of t by (map_device.ident). */
static void device_ident(const struct map_target *t, struct map_device *d)
{
	const struct kio_bdev_info *bi = &d->info;
	char id[300];
	uint64_t part = 0;

	d->ident[0] = '\0';
	if (t->fs != MAP_FS_NONE && (d->role == MAP_ROLE_DATA || d->role == MAP_ROLE_LOG ||
				     d->role == MAP_ROLE_RT)) {
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
	size_t n;
	int ret = 0;

	if (t->fs != MAP_FS_NONE)
		n = (size_t)snprintf(legacy, legacy_len, "%s:%s:", t->fs_type, t->uuid);
	else
		n = (size_t)snprintf(legacy, legacy_len, "device:%llu:",
				     (unsigned long long)t->devices[0].info.size_bytes);
	for (unsigned i = 0; i < t->nr_devices && n < legacy_len; i++)
		n += (size_t)snprintf(legacy + n, legacy_len - n, "%s%s", i ? "," : "",
				      t->devices[i].path);
	if (t->fs != MAP_FS_NONE && t->uuid[0]) {
		snprintf(key, len, "%s:%s", t->fs_type, t->uuid);
	} else if (t->fs == MAP_FS_NONE && t->devices[0].ident[0]) {
		snprintf(key, len, "device:%s", t->devices[0].ident);
	} else {
		snprintf(key, len, "%s", legacy);	/* no stable identity: the kernel name */
		ret = -ENOENT;
	}
	return ret;
}


/* Open a device of the target; 0 or -errno with a reason. */
static int add_device(struct map_target *t, const char *path, enum map_role role, char *err,
		      size_t errlen, int *err_class)
{
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
			 (fd == -EACCES || fd == -EPERM) ? " (mediascan needs root)" : "");
		*err_class = MAP_TERR_OPERATIONAL;
		return fd;
	}
	ret = kio_bdev_info(fd, &d->info);
	if (ret < 0) {
		snprintf(err, errlen, "%s is not a usable block device: %s", path, strerror(-ret));
		*err_class = ret == -ENOTBLK ? MAP_TERR_USAGE : MAP_TERR_OPERATIONAL;
		kio_close(fd);
		return ret;
	}
	d->fd = fd;
	device_ident(t, d);
	t->nr_devices++;
	return 0;
}

static void format_uuid(const unsigned char *u, char *out, size_t len)
{
	snprintf(out, len,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* Set up the devices of a mounted XFS filesystem. */
static int open_xfs(struct map_target *t, const struct kio_mount *m, char *err, size_t errlen,
		    int *err_class)
{
	char path[PATH_MAX];
	int ret;

	ret = kio_xfs_geometry(t->mount_fd, &t->xfs);
	if (ret < 0) {
		snprintf(err, errlen, "cannot read XFS geometry of %s: %s", t->mount_point,
			 strerror(-ret));
		*err_class = MAP_TERR_OPERATIONAL;
		return ret;
	}
	format_uuid(t->xfs.uuid, t->uuid, sizeof(t->uuid));
	t->fs_block_size = t->xfs.blocksize;
	t->fs_group_bytes = (uint64_t)t->xfs.agblocks * t->xfs.blocksize;
	t->fs_size_bytes = t->xfs.datablocks * t->xfs.blocksize;
	ret = kio_devpath_from_devt(m->devt, path, sizeof(path));
	if (ret < 0)
		snprintf(path, sizeof(path), "%s", m->source);
	ret = add_device(t, path, MAP_ROLE_DATA, err, errlen, err_class);
	if (ret < 0)
		return ret;
	if (t->xfs.logstart == 0 && t->xfs.logblocks > 0) {
		if (find_opt(m->super_opts, "logdev", path, sizeof(path)) < 0) {
			snprintf(err, errlen, "%s has an external log but mountinfo names no logdev",
				 t->mount_point);
			*err_class = MAP_TERR_OPERATIONAL;
			return -ENODEV;
		}
		ret = add_device(t, path, MAP_ROLE_LOG, err, errlen, err_class);
		if (ret < 0)
			return ret;
	}
	if (t->xfs.rtblocks > 0 && find_opt(m->super_opts, "rtdev", path, sizeof(path)) == 0) {
		ret = add_device(t, path, MAP_ROLE_RT, err, errlen, err_class);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ext4's superblock: the fields mapping needs (fs/ext4/ext4.h), little-endian on disk. */
#define EXT4_SB_OFFSET		1024
#define EXT4_SB_MAGIC_OFF	0x38
#define EXT4_SB_LOG_BSIZE_OFF	0x18
#define EXT4_SB_UUID_OFF	0x68
#define EXT4_SB_FEAT_COMPAT_OFF	0x5c
#define EXT4_SB_JNL_INUM_OFF	0xe0
#define EXT4_SB_JNL_UUID_OFF	0xd0
#define EXT4_SB_JNL_DEV_OFF	0xe4
#define EXT4_SB_BLOCKS_LO_OFF	0x04
#define EXT4_SB_FIRST_DATA_OFF	0x14
#define EXT4_SB_BPG_OFF		0x20
#define EXT4_SB_BLOCKS_HI_OFF	0x150
#define EXT4_SB_FEAT_INCOMPAT_OFF 0x60
#define EXT4_INCOMPAT_64BIT	0x80
#define EXT4_MAGIC		0xef53
#define EXT4_COMPAT_HAS_JOURNAL	0x4

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Return 1 when GETFSMAP confirms devt as a device of the filesystem on mount_fd. */
static int fsmap_has_dev(int mount_fd, dev_t devt)
{
	/* GETFSMAP's new_encode_dev() is glibc's dev_t for majors below 4096. */
	uint32_t want = (uint32_t)devt, got;

	return devt && (dev_t)want == devt && kio_getfsmap_first_dev(mount_fd, want, &got) == 1 &&
	       got == want;
}

/*
 * Return a malloc'ed path of ext4's external journal device, or NULL. Candidates, each
 * confirmed by GETFSMAP: the device of the first record (when it sorts before the data
 * device), the superblock's s_journal_dev (what the kernel opens unless journal_path= was
 * given), libblkid's device for the journal UUID (needs a blkid cache or udev's links).
 */
static char *ext4_journal_dev(const struct map_target *t, const unsigned char *sb,
			      const char *uuid)
{
	uint32_t data_dev = (uint32_t)t->devices[0].info.devt, first, jdev;
	char path[PATH_MAX];
	dev_t cand = 0;

	if (kio_getfsmap_first_dev(t->mount_fd, 0, &first) == 1 && first != data_dev)
		cand = (dev_t)first;
	jdev = le32_at(sb + EXT4_SB_JNL_DEV_OFF);
	if (!cand && jdev && fsmap_has_dev(t->mount_fd, (dev_t)jdev))
		cand = (dev_t)jdev;
	if (cand && kio_devpath_from_devt(cand, path, sizeof(path)) == 0)
		return strdup(path);
#if HAVE_BLKID
	{
		char *dev = blkid_evaluate_tag("UUID", uuid, NULL);

		if (dev && kio_devt_of_path(dev, &cand) == 0 && fsmap_has_dev(t->mount_fd, cand))
			return dev;
		free(dev);
	}
#else
	(void)uuid;
#endif
	return NULL;
}

/* Set up the devices of a mounted ext4 (or ext2/ext3 through the ext4 driver). */
static int open_ext4(struct map_target *t, const struct kio_mount *m, char *err, size_t errlen,
		     int *err_class)
{
	unsigned char sb[1024];
	char path[PATH_MAX];
	int fd, ret;

	ret = kio_devpath_from_devt(m->devt, path, sizeof(path));
	if (ret < 0)
		snprintf(path, sizeof(path), "%s", m->source);
	ret = add_device(t, path, MAP_ROLE_DATA, err, errlen, err_class);
	if (ret < 0)
		return ret;
	/* The superblock through the page cache the mounted filesystem keeps up to date. */
	fd = kio_open_ro(path);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(-fd));
		*err_class = MAP_TERR_OPERATIONAL;
		return fd;
	}
	ret = (int)kio_pread(fd, sb, sizeof(sb), EXT4_SB_OFFSET);
	kio_close(fd);
	if (ret != (int)sizeof(sb) || (sb[EXT4_SB_MAGIC_OFF] | sb[EXT4_SB_MAGIC_OFF + 1] << 8) !=
	    EXT4_MAGIC) {
		snprintf(err, errlen, "cannot read the ext4 superblock of %s: %s", path,
			 ret < 0 ? strerror(-ret) : "bad magic");
		*err_class = MAP_TERR_OPERATIONAL;
		return ret < 0 ? ret : -EUCLEAN;
	}
	t->fs_block_size = 1024u << le32_at(sb + EXT4_SB_LOG_BSIZE_OFF);
	t->fs_size_bytes = ((uint64_t)(le32_at(sb + EXT4_SB_FEAT_INCOMPAT_OFF) &
				       EXT4_INCOMPAT_64BIT ? le32_at(sb + EXT4_SB_BLOCKS_HI_OFF) : 0)
			    << 32 | le32_at(sb + EXT4_SB_BLOCKS_LO_OFF)) * t->fs_block_size;
	format_uuid(sb + EXT4_SB_UUID_OFF, t->uuid, sizeof(t->uuid));
	/* Block groups, for a plan that reads a group whole when its map cannot be listed:
	 * untrusted, so only a group size the kernel could have mounted (one bitmap block). */
	{
		uint64_t bpg = le32_at(sb + EXT4_SB_BPG_OFF);
		uint64_t first = le32_at(sb + EXT4_SB_FIRST_DATA_OFF);

		if (t->fs_block_size >= 1024 && t->fs_block_size <= 65536 && bpg >= 8 &&
		    bpg <= 8ull * t->fs_block_size && first <= 1) {
			t->fs_group_bytes = bpg * t->fs_block_size;
			t->fs_group_first = first * t->fs_block_size;
		}
	}
	/*
	 * An external journal device: read it too, as the log (found and confirmed through
	 * GETFSMAP: libblkid alone needs a blkid cache or udev's links, which hosts may lack).
	 */
	if ((le32_at(sb + EXT4_SB_FEAT_COMPAT_OFF) & EXT4_COMPAT_HAS_JOURNAL) &&
	    le32_at(sb + EXT4_SB_JNL_INUM_OFF) == 0) {
		char uuid[40], *dev;

		format_uuid(sb + EXT4_SB_JNL_UUID_OFF, uuid, sizeof(uuid));
		dev = ext4_journal_dev(t, sb, uuid);
		if (!dev) {
			snprintf(err, errlen, "%s has an external journal (UUID %s) that neither "
				 "GETFSMAP nor libblkid can find", t->mount_point, uuid);
			*err_class = MAP_TERR_OPERATIONAL;
			return -ENODEV;
		}
		ret = add_device(t, dev, MAP_ROLE_LOG, err, errlen, err_class);
		free(dev);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Set up a mounted filesystem; 0 or -errno with a reason. */
static int open_mounted(struct map_target *t, const struct kio_mount *m, char *err,
			size_t errlen, int *err_class)
{
	int fd;

	snprintf(t->mount_point, sizeof(t->mount_point), "%s", m->mount_point);
	snprintf(t->fs_type, sizeof(t->fs_type), "%s", m->fs_type);
	if (strcmp(m->fs_type, "xfs") == 0) {
		t->fs = MAP_FS_XFS;
	} else if (strcmp(m->fs_type, "ext4") == 0 || strcmp(m->fs_type, "ext3") == 0 ||
		   strcmp(m->fs_type, "ext2") == 0) {
		t->fs = MAP_FS_EXT4;
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
	if (t->fs == MAP_FS_EXT4)
		return open_ext4(t, m, err, errlen, err_class);
	return open_xfs(t, m, err, errlen, err_class);
}

/* Set up a block device without a filesystem mounted on it: a partitioned disk or bare. */
static int open_bare(struct map_target *t, const char *path, char *err, size_t errlen,
		     int *err_class)
{
	struct map_device *d;
	char sys[PATH_MAX];
	uint64_t v;
	int ret;

	snprintf(t->fs_type, sizeof(t->fs_type), "none");
	t->fs = MAP_FS_NONE;
	ret = add_device(t, path, MAP_ROLE_WHOLE, err, errlen, err_class);
	if (ret < 0)
		return ret;
	d = &t->devices[0];
	if (d->info.is_partition) {
		snprintf(sys, sizeof(sys), "/sys/class/block/%s/partition", d->info.name);
		if (kio_sysfs_u64(sys, &v) == 0)
			t->self_part = (unsigned)v;
		return 0;
	}
	ret = map_parts_read(t, err, errlen);
	if (ret == 0) {
		d->role = MAP_ROLE_DISK;
		return 0;
	}
	if (ret == -ENOENT || ret == -EOPNOTSUPP)
		return 0;			/* no partition table: read it whole */
	*err_class = MAP_TERR_OPERATIONAL;
	return ret;
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
		if (ret == 0)
			ret = open_mounted(t, m, err, errlen, err_class);
		else
			ret = open_bare(t, real, err, errlen, err_class);
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

int map_target_close(struct map_target *t)
{
	free(t->plan_notes);
	t->plan_notes = NULL;
	t->nr_plan_notes = 0;
	map_parts_free(t);
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
