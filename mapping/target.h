/*
 * mapping/target.h - what the user asked to scan: a mounted filesystem (its data device and
 * external log device) or a bare block device, with the facts of each device.
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
};

struct map_device {
	char path[PATH_MAX];		/* /dev/... */
	enum map_role role;
	int fd;				/* O_RDONLY|O_DIRECT, -1 when closed */
	struct kio_bdev_info info;
};

enum map_fs {
	MAP_FS_NONE,			/* bare device */
	MAP_FS_XFS,
	MAP_FS_EXT4,
};

struct map_target {
	char arg[PATH_MAX];		/* what the user named */
	char mount_point[PATH_MAX];	/* empty for a bare device */
	char fs_type[64];		/* "xfs", "ext4", "none" */
	enum map_fs fs;
	int mount_fd;			/* O_RDONLY on the mount point for ioctls, or -1 */
	struct kio_xfs_geom xfs;	/* valid when fs == MAP_FS_XFS */
	char uuid[40];			/* filesystem UUID when known */
	unsigned nr_devices;
	struct map_device devices[MAP_MAX_DEVICES];
};

/* Error classes of map_target_open, so the caller can pick the exit status. */
enum map_target_err {
	MAP_TERR_USAGE = 1,		/* not a mount point, unsupported filesystem */
	MAP_TERR_OPERATIONAL = 2,	/* permission, unreadable device */
};

/*
 * Return 0 and an opened target for a mount point or block device, or -errno with a
 * one-line reason in err and *err_class set to an enum map_target_err.
 */
int map_target_open(const char *arg, struct map_target *t, char *err, size_t errlen,
		    int *err_class);
/* Return 0; close every fd of the target. */
int map_target_close(struct map_target *t);
/* Return the role's name: "data", "log", "realtime", "whole". */
const char *map_role_name(enum map_role role);
/* Return the device index for a GETFSMAP fmr_device number, or -ENOENT. */
int map_target_dev_index(const struct map_target *t, uint32_t fmr_device);

#endif
