/*
 * kernel/kio_stack.c - the storage stack as sysfs shows it: a block device's holders/ and
 * slaves/, its attributes (md/level, md/dev-sdb1/slot, partition start), and symlinks such as
 * md/rd0 -> dev-sdb1. Names are kernel names (sda1, md0, dm-3); sysfs NULL means "/sys".
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kio.h"

static int safe_name(const char *s)
{
	return s && s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) < KIO_DISK_NAME_LEN;
}

static int safe_attr(const char *a)
{
	return a && a[0] && a[0] != '/' && !strstr(a, "..");
}

int kio_blk_list(const char *sysfs, const char *name, const char *sub, const char *prefix,
		 char (*out)[KIO_DISK_NAME_LEN], unsigned max)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (!safe_name(name) || !safe_attr(sub))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/block/%s/%s", sysfs ? sysfs : "/sys", name, sub);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= KIO_DISK_NAME_LEN)
			continue;
		if (prefix && strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (n == max) {
			closedir(d);
			return -E2BIG;
		}
		snprintf(out[n++], KIO_DISK_NAME_LEN, "%s", de->d_name);
	}
	closedir(d);
	/* sorted, so the answer does not depend on directory order */
	qsort(out, n, KIO_DISK_NAME_LEN, (int (*)(const void *, const void *))strcmp);
	return (int)n;
}

int kio_blk_attr(const char *sysfs, const char *name, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];

	if (!safe_name(name) || !safe_attr(attr))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/block/%s/%s", sysfs ? sysfs : "/sys", name, attr);
	return kio_sysfs_read(path, buf, len);
}

int kio_blk_attr_u64(const char *sysfs, const char *name, const char *attr, uint64_t *val)
{
	char buf[64];
	int ret = kio_blk_attr(sysfs, name, attr, buf, sizeof(buf));

	return ret < 0 ? ret : kio_attr_parse_u64(buf, val);
}

int kio_attr_parse_u64(const char *buf, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || buf[0] == '-')
		return -EINVAL;
	return 0;
}

int kio_blk_link(const char *sysfs, const char *name, const char *attr, char *out, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (!safe_name(name) || !safe_attr(attr))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/block/%s/%s", sysfs ? sysfs : "/sys", name, attr);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", base);
	return 0;
}

int kio_blk_parent(const char *sysfs, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *slash;

	if (!safe_name(name))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/block/%s/partition", sysfs ? sysfs : "/sys", name);
	if (access(path, F_OK) != 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/class/block/%s/..", sysfs ? sysfs : "/sys", name);
	if (!realpath(path, real))
		return -errno;
	slash = strrchr(real, '/');
	slash = slash ? slash + 1 : real;
	if (strlen(slash) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", slash);
	return 0;
}
