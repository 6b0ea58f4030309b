/*
 * mapping/target/devinfo.c - device facts for cli/ and target.c: /dev paths of kernel names, the
 * physical disks under a target (scan locks), and which mounted filesystem uses a device as
 * its external log, realtime device or journal (the policy; kernel/ gives the mounts).
 */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "devinfo.h"

#define LEAVES_MAX 8			/* physical disks under one device */

int map_devpath_of_name(const char *name, char *out, size_t len)
{
	char disk[64];
	int port, dev, n;
	dev_t devt;

	/* libata's name of a device, ataPORT.DEV: the disk sysfs finds on that port */
	if (sscanf(name, "ata%d.%d%n", &port, &dev, &n) == 2 && !name[n] &&
	    kio_ata_disk_name(NULL, port, dev, disk, sizeof(disk)) == 0)
		name = disk;
	if (kio_devt_of_name(name, &devt) < 0)
		return -ENOENT;
	return kio_devpath_from_devt(devt, out, len);
}

int map_target_disks(const struct map_target *t, char (*out)[MAP_DISK_NAME_LEN], unsigned max)
{
	unsigned nr = 0;

	for (unsigned d = 0; d < t->nr_devices; d++) {
		char leaves[LEAVES_MAX][MAP_DISK_NAME_LEN];
		int n = kio_disk_leaves(NULL, t->devices[d].info.name, leaves, LEAVES_MAX);

		if (n < 0) {		/* unknown topology: the device itself is the unit */
			memcpy(leaves[0], t->devices[d].info.disk_name, MAP_DISK_NAME_LEN);
			n = 1;
		}
		for (int i = 0; i < n; i++) {
			unsigned k;

			for (k = 0; k < nr; k++)
				if (strcmp(out[k], leaves[i]) == 0)
					break;
			if (k == nr && k < max)
				memcpy(out[nr++], leaves[i], MAP_DISK_NAME_LEN);
		}
	}
	return (int)nr;
}

/* Does option key=PATH of the comma-separated opts name block device devt? */
static int opt_names_dev(const char *opts, const char *key, dev_t devt)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			char path[PATH_MAX];
			size_t n = strcspn(p + klen + 1, ",");
			dev_t d;

			if (n < sizeof(path)) {
				memcpy(path, p + klen + 1, n);
				path[n] = '\0';
				if (kio_devt_of_path(path, &d) == 0 && d == devt)
					return 1;
			}
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/*
 * Return 1 when the ext4 filesystem mounted at mp reports records for device devt through
 * GETFSMAP: its external journal, which mountinfo does not name. ext4 accepts only its own
 * devices (and 0, UINT32_MAX) as keys and lists the journal only from physical 0.
 */
static int ext4_owns_dev(const char *mp, dev_t devt)
{
	uint32_t got;
	int fd, found;

	if ((uint32_t)devt != devt)
		return 0;
	fd = kio_open_dir(mp);
	if (fd < 0)
		return 0;
	found = kio_getfsmap_first_dev(fd, (uint32_t)devt, &got) == 1 && got == (uint32_t)devt;
	kio_close(fd);
	return found;
}

struct aux_find {
	dev_t devt;
	char *mp;			/* the last matching mount point (malloc) */
};

static int aux_one(const struct kio_mount *m, void *arg)
{
	struct aux_find *a = arg;
	int is_ext4 = strcmp(m->fs_type, "ext4") == 0 || strcmp(m->fs_type, "ext3") == 0 ||
		      strcmp(m->fs_type, "ext2") == 0;

	if (!m->super_opts[0])
		return 0;
	if (!is_ext4 && !opt_names_dev(m->super_opts, "logdev", a->devt) &&
	    !opt_names_dev(m->super_opts, "rtdev", a->devt))
		return 0;
	if (is_ext4 && !ext4_owns_dev(m->mount_point, a->devt))
		return 0;
	free(a->mp);
	a->mp = strdup(m->mount_point);
	return a->mp ? 0 : -ENOMEM;
}

int map_mount_find_aux_dev(dev_t devt, struct kio_mount *m)
{
	struct aux_find a = { .devt = devt };
	int ret = kio_mount_each(aux_one, &a);

	if (ret == 0)
		ret = a.mp ? kio_mount_find(a.mp, m) : -ENOENT;
	free(a.mp);
	return ret;
}
