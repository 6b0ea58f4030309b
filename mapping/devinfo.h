/*
 * mapping/devinfo.h - facts about devices that the rest of the tree asks mapping for
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

/* Return 0 and write the /dev path of block device kernel name (sdb, dm-0) to out, or
 * -ENOENT when sysfs does not know it. */
int map_devpath_of_name(const char *name, char *out, size_t len);
/*
 * Return the number of physical disks under target t written to out[0..max) (a partition's
 * disk; below dm and md their slaves' disks; the device's own disk when its topology cannot
 * be read), each once.
 */
int map_target_disks(const struct map_target *t, char (*out)[MAP_DISK_NAME_LEN], unsigned max);
/*
 * Return 0 and fill m for the (last) mount naming block device devt as its logdev= or rtdev=
 * (an XFS external log or realtime device), or an ext2/3/4 whose GETFSMAP reports devt (its
 * external journal, which mountinfo does not name); -ENOENT if none, or -errno.
 */
int map_mount_find_aux_dev(dev_t devt, struct kio_mount *m);

#endif
