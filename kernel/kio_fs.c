/*
 * kernel/kio_fs.c - filesystem ioctls any filesystem may answer: FS_IOC_GETFSMAP (the space
 * map) and FS_IOC_GETVERSION (an inode's generation). Returns 0/count or -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "kio.h"

int kio_getfsmap(int fd, struct fsmap_head *head)
{
	if (ioctl(fd, FS_IOC_GETFSMAP, head) < 0)
		return -errno;
	if (head->fmh_entries == 0)
		return 0;
	/* Continue after the last record returned. */
	head->fmh_keys[0] = head->fmh_recs[head->fmh_entries - 1];
	return (int)head->fmh_entries;
}

int kio_getfsmap_first_dev(int fd, uint32_t low_dev, uint32_t *rec_dev)
{
	struct fsmap_head *head = calloc(1, fsmap_sizeof(1));
	int ret = 0;

	if (!head)
		return -ENOMEM;
	head->fmh_count = 1;
	head->fmh_keys[0].fmr_device = low_dev;
	head->fmh_keys[1].fmr_device = UINT32_MAX;
	head->fmh_keys[1].fmr_physical = UINT64_MAX;
	head->fmh_keys[1].fmr_owner = UINT64_MAX;
	head->fmh_keys[1].fmr_offset = UINT64_MAX;
	head->fmh_keys[1].fmr_flags = UINT32_MAX;
	if (ioctl(fd, FS_IOC_GETFSMAP, head) < 0)
		ret = -errno;
	else if (head->fmh_entries) {
		*rec_dev = head->fmh_recs[0].fmr_device;
		ret = 1;
	}
	free(head);
	return ret;
}

int kio_inode_ident(const char *path, uint64_t *ino, uint32_t *gen)
{
	struct stat st;
	int fd, version = 0, ret = 0;

	/* O_PATH would not do: FS_IOC_GETVERSION needs a real open; no follow, no blocking, no
	 * atime update (O_NOATIME needs ownership or CAP_FOWNER). */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	*ino = (uint64_t)st.st_ino;
	if (ioctl(fd, FS_IOC_GETVERSION, &version) < 0) {
		ret = -errno;
		goto out_close;
	}
	*gen = (uint32_t)version;
out_close:
	close(fd);
	return ret;
}

int kio_fs_readonly(int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return -errno;
	return !!(sv.f_flag & ST_RDONLY);
}
