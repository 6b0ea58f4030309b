/*
 * kernel/kio_sysfs_block.c - block devices by name in sysfs: a kernel name's devt
 * (/sys/class/block/NAME/dev), a devt's /dev path (/sys/dev/block/MAJ:MIN/uevent) and the
 * partitions the kernel knows of a disk. Returns 0/count or -errno.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kio.h"

int kio_devpath_from_devt(dev_t devt, char *out, size_t len)
{
	char path[PATH_MAX], buf[4096], *p;
	int ret;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major(devt), minor(devt));
	ret = kio_sysfs_read(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	p = strstr(buf, "DEVNAME=");
	if (!p)
		return -ENOENT;
	p += strlen("DEVNAME=");
	p[strcspn(p, "\n")] = '\0';
	if ((size_t)snprintf(out, len, "/dev/%s", p) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Read a decimal number from /sys/class/block/NAME/ATTR. */
static int sys_u64(const char *name, const char *attr, uint64_t *v)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/block/%.255s/%.64s", name, attr);
	return kio_sysfs_u64(path, v);
}

int kio_disk_sched_bfq(const char *disk_name)
{
	char p[256], v[256];
	int ret;

	if (strchr(disk_name, '/'))
		return -EINVAL;
	snprintf(p, sizeof(p), "/sys/block/%s/queue/scheduler", disk_name);
	ret = kio_sysfs_read(p, v, sizeof(v));
	if (ret < 0)
		return ret;
	return strstr(v, "[bfq]") != NULL;
}

int kio_devt_of_name(const char *name, dev_t *devt)
{
	char path[PATH_MAX], buf[64];
	unsigned ma, mi;

	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (kio_sysfs_read(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -ENOENT;
	*devt = makedev(ma, mi);
	return 0;
}

static int cmp_part(const void *a, const void *b)
{
	const struct kio_part *x = a, *y = b;

	return x->start_bytes < y->start_bytes ? -1 : x->start_bytes > y->start_bytes;
}

int kio_partitions(const char *disk_name, struct kio_part *out, unsigned max)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s", disk_name);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		char child[PATH_MAX];
		uint64_t v;

		if (strncmp(de->d_name, disk_name, strlen(disk_name)) != 0)
			continue;
		snprintf(child, sizeof(child), "%s/%s", disk_name, de->d_name);
		if (sys_u64(child, "partition", &v) < 0)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].number = (unsigned)v;
		if (sys_u64(child, "start", &v) < 0)
			continue;
		out[n].start_bytes = v * 512;
		if (sys_u64(child, "size", &v) < 0)
			continue;
		out[n].size_bytes = v * 512;
		snprintf(out[n].name, sizeof(out[n].name), "%.63s", de->d_name);
		if (kio_devt_of_name(out[n].name, &out[n].devt) < 0)
			continue;
		n++;
	}
	closedir(dir);
	qsort(out, n, sizeof(*out), cmp_part);
	return (int)n;
}
