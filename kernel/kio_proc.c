/*
 * kernel/kio_proc.c - process lifetime and exclusion: the parent-death signal (prctl
 * PR_SET_PDEATHSIG) so a scanner does not outlive the patrol that started it, and exclusive
 * flock()s on lock files, which the kernel drops when their holder dies however it dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kio.h"

int kio_pdeathsig_set(int sig, pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL) < 0)
		return -errno;
	/* The parent may have died before the prctl: then no signal will ever come. */
	if (getppid() != parent)
		return -ESRCH;
	return 0;
}

/* Return 0 after making the directory that holds path (one level, mode 0755), or -errno. */
static int make_parent(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (!n || n >= sizeof(dir))
		return 0;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int kio_lockfile_take(const char *path, const char *note, char *holder, size_t holder_len)
{
	size_t len = strlen(note);
	int fd, ret;

	if (holder_len)
		holder[0] = '\0';
	ret = make_parent(path);
	if (ret < 0)
		return ret;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		if (ret == -EWOULDBLOCK && holder_len) {
			ssize_t n = pread(fd, holder, holder_len - 1, 0);

			holder[n > 0 ? n : 0] = '\0';
			holder[strcspn(holder, "\n")] = '\0';
		}
		goto out_close;
	}
	/* Who holds it, for the message of whoever is refused next. */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, note, len, 0) != (ssize_t)len) {
		ret = -errno;
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return ret == -EAGAIN ? -EWOULDBLOCK : ret;
}
