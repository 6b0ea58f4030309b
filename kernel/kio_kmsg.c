/*
 * kernel/kio_kmsg.c - the kernel log as /dev/kmsg gives it: one record per read().
 * Returns an fd, a length or -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "kio.h"

int kio_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* Start at the oldest record still in the buffer. */
	lseek(fd, 0, SEEK_DATA);
	return fd;
}

ssize_t kio_kmsg_read(int fd, char *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len - 1);

		if (n >= 0) {
			buf[n] = '\0';
			return n;
		}
		if (errno == EINTR || errno == EPIPE)	/* EPIPE: records were overwritten */
			continue;
		if (errno == EAGAIN)
			return 0;
		return -errno;
	}
}
