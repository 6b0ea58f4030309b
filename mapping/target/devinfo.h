/*
 * mapping/target/devinfo.h - facts about devices that the rest of the tree asks mapping for
 * (devinfo.c): a kernel name's /dev path, the physical disks under a target, and the
 * filesystem an external log, realtime or journal device belongs to.
 */
#ifndef MEDIASCAN_DEVINFO_H
#define MEDIASCAN_DEVINFO_H

#include <stddef.h>
#include <sys/types.h>

#include "kio.h"
#include "target.h"

#define MAP_DISK_NAME_LEN KIO_DISK_NAME_LEN

/**
 * map_devpath_of_name() - the /dev path of a block device kernel name (sdb, dm-0).
 * @name: the kernel name
 * @out: set to the path
 * @len: size of out
 *
 * Return: 0, or -ENOENT when sysfs does not know it.
 */
int map_devpath_of_name(const char *name, char *out, size_t len);
/**
 * map_target_disks() - the physical disks under a target, each once.
 * @t: the target
 * @out: set to their kernel names
 * @max: room in out
 *
 * A partition's disk; below dm and md their slaves' disks; the device's own disk when its topology
 * cannot be read.
 *
 * Return: the number of disks written.
 */
int map_target_disks(const struct map_target *t, char (*out)[MAP_DISK_NAME_LEN], unsigned max);
/**
 * map_mount_find_aux_dev() - the filesystem an external log, realtime or journal device belongs to.
 * @devt: the block device
 * @m: filled with the (last) mount naming it
 *
 * An XFS mount naming devt as its logdev= or rtdev=, or an ext2/3/4 whose GETFSMAP reports devt
 * (its external journal, which mountinfo does not name).
 *
 * Return: 0, -ENOENT if none, or -errno.
 */
int map_mount_find_aux_dev(dev_t devt, struct kio_mount *m);

#endif
