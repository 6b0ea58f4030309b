/*
 * kernel/kio_io.c - device opens and positioned reads; libc's -1/errno becomes -errno here.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "kio.h"

int kio_open_ro(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int kio_open_direct(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY);

	return fd < 0 ? -errno : fd;
}

int kio_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int kio_close(int fd)
{
	if (fd >= 0)
		close(fd);
	return 0;
}

ssize_t kio_pread(int fd, void *buf, size_t len, uint64_t offset)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(offset + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}
