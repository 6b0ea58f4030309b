/*
 * kernel/kio_sysfs.c - reading one sysfs (or procfs) attribute: its text, or one number.
 * Returns a length, 0 or -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "kio.h"

int kio_sysfs_read(const char *path, char *buf, size_t len)
{
	int fd, n;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = (int)read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

int kio_sysfs_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	int ret = kio_sysfs_read(path, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}
