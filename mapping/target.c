/*
 * mapping/target.c - resolve what the user named (mount point or block device) to the
 * filesystem and the devices to read, with their roles and facts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "target.h"

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

/* Set up a mounted filesystem; 0 or -errno with a reason. */
static int open_mounted(struct map_target *t, const struct kio_mount *m, char *err,
			size_t errlen, int *err_class)
{
	int fd;

	snprintf(t->mount_point, sizeof(t->mount_point), "%s", m->mount_point);
	snprintf(t->fs_type, sizeof(t->fs_type), "%s", m->fs_type);
	if (strcmp(m->fs_type, "xfs") == 0) {
		t->fs = MAP_FS_XFS;
	} else if (strcmp(m->fs_type, "btrfs") == 0) {
		snprintf(err, errlen,
			 "%s is btrfs, which mediascan does not scan; use `btrfs scrub start %s` "
			 "(it checks data against its checksums); supported: xfs",
			 m->mount_point, m->mount_point);
		*err_class = MAP_TERR_USAGE;
		return -EOPNOTSUPP;
	} else {
		snprintf(err, errlen, "%s holds %s, which mediascan cannot map yet; "
			 "supported: xfs (or name a block device to read it whole)",
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
	return open_xfs(t, m, err, errlen, err_class);
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
			snprintf(t->fs_type, sizeof(t->fs_type), "none");
			t->fs = MAP_FS_NONE;
			ret = add_device(t, real, MAP_ROLE_WHOLE, err, errlen, err_class);
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

int map_target_close(struct map_target *t)
{
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
