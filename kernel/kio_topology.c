/*
 * kernel/kio_topology.c - which physical disks carry a block device: its whole disk, and
 * below stacked devices (dm, md) the disks sysfs lists under slaves/.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kio.h"

#define TOPO_MAX_DEPTH 8

/* Return 0 after setting disk to the whole disk of block device name (itself if a disk). */
static int topo_whole_disk(const char *sysfs, const char *name, char *disk, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *slash;

	snprintf(path, sizeof(path), "%s/class/block/%s/partition", sysfs, name);
	if (access(path, F_OK) != 0) {
		snprintf(disk, len, "%s", name);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/class/block/%s/..", sysfs, name);
	if (!realpath(path, real))
		return -errno;
	slash = strrchr(real, '/');
	slash = slash ? slash + 1 : real;
	if (strlen(slash) >= len)
		return -ENAMETOOLONG;
	memcpy(disk, slash, strlen(slash) + 1);
	return 0;
}

static int topo_add(char (*out)[KIO_DISK_NAME_LEN], unsigned max, unsigned *nr, const char *d)
{
	for (unsigned i = 0; i < *nr; i++)
		if (strcmp(out[i], d) == 0)
			return 0;
	if (*nr == max)
		return -E2BIG;
	snprintf(out[(*nr)++], KIO_DISK_NAME_LEN, "%s", d);
	return 0;
}

static int topo_walk(const char *sysfs, const char *name, char (*out)[KIO_DISK_NAME_LEN],
		     unsigned max, unsigned *nr, int depth)
{
	char disk[KIO_DISK_NAME_LEN], path[PATH_MAX];
	struct dirent *de;
	int ret, found = 0;
	DIR *d;

	if (depth > TOPO_MAX_DEPTH)
		return -ELOOP;
	ret = topo_whole_disk(sysfs, name, disk, sizeof(disk));
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/block/%s/slaves", sysfs, disk);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			ret = topo_walk(sysfs, de->d_name, out, max, nr, depth + 1);
			if (ret < 0) {
				closedir(d);
				return ret;
			}
			found = 1;
		}
		closedir(d);
	}
	return found ? 0 : topo_add(out, max, nr, disk);
}

int kio_disk_leaves(const char *sysfs, const char *name, char (*out)[KIO_DISK_NAME_LEN],
		    unsigned max)
{
	unsigned nr = 0;
	int ret = topo_walk(sysfs ? sysfs : "/sys", name, out, max, &nr, 0);

	return ret < 0 ? ret : (int)nr;
}
