// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/faultdisk/disk.c - the fault disk itself: its state, the image behind it, the disk
 * model's one queue, and the reads and writes of MOUNTDIR/disk, which fail, wait or go
 * through as the fault table says.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "faultdisk.h"

struct fd_state fd_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.img_fd = -1,
};

/* fstat the image into st; returns 0 or -errno. */
int fd_image_stat(struct stat *st)
{
	if (fstat(fd_state.img_fd, st) < 0)
		return -errno;
	return 0;
}

/* Size of the image in bytes, or -errno. */
int64_t fd_image_size(void)
{
	struct stat st;
	int ret;

	ret = fd_image_stat(&st);
	if (ret < 0)
		return ret;
	return st.st_size;
}

static int fd_overlaps(const struct fd_range *r, uint64_t off, uint64_t len)
{
	return off < r->off_bytes + r->len_bytes && r->off_bytes < off + len;
}

static void fd_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t fd_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The disk model: take the next turn of the one queue (first come, first served) for a
 * request of size bytes, and sleep until its service ends. The turn is booked under the
 * lock, the sleep is not, so requests queue up without holding anything.
 */
static void fd_model_serve(size_t size)
{
	struct timespec ts;
	uint64_t now, start, svc, end;

	pthread_mutex_lock(&fd_state.lock);
	if (!fd_state.model_ns && !fd_state.model_bps) {
		pthread_mutex_unlock(&fd_state.lock);
		return;
	}
	svc = fd_state.model_ns;
	if (fd_state.model_bps)
		svc += (uint64_t)((unsigned __int128)size * 1000000000ull / fd_state.model_bps);
	now = fd_mono_ns();
	start = fd_state.model_free_ns > now ? fd_state.model_free_ns : now;
	end = start + svc;
	fd_state.model_free_ns = end;
	fd_state.model_busy_ns += svc;
	pthread_mutex_unlock(&fd_state.lock);
	ts.tv_sec = (time_t)(end / 1000000000ull);
	ts.tv_nsec = (long)(end % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Read from the image unless the request touches a bad range; returns bytes or -errno. */
int fd_disk_read(char *buf, size_t size, off_t off)
{
	unsigned int delay_ms = 0;
	size_t done = 0;
	int bad = 0, err = 0;
	size_t i;
	ssize_t n;

	if (off < 0)
		return -EINVAL;

	pthread_mutex_lock(&fd_state.lock);
	fd_state.reads++;
	if (size > fd_state.max_read_size)
		fd_state.max_read_size = size;
	for (i = 0; size && i < fd_state.nr_ranges; i++) {
		struct fd_range *r = &fd_state.ranges[i];

		if (!fd_overlaps(r, off, size))
			continue;
		r->reads++;
		if (r->kind == FD_RANGE_BAD) {
			bad = 1;
		} else if (r->kind == FD_RANGE_FLAKY) {
			if (r->fail_left) {
				r->fail_left--;
				bad = 1;
			}
		} else if (r->kind == FD_RANGE_ERRNO) {
			err = (int)r->err;
		} else if (r->delay_ms > delay_ms)
			delay_ms = r->delay_ms;
	}
	pthread_mutex_unlock(&fd_state.lock);

	fd_model_serve(size);
	if (delay_ms)
		fd_sleep_ms(delay_ms);
	if (bad)
		return -EIO;
	if (err)
		return -err;

	while (done < size) {
		n = pread(fd_state.img_fd, buf + done, size - done, off + done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += n;
	}

	pthread_mutex_lock(&fd_state.lock);
	fd_state.read_bytes += done;
	pthread_mutex_unlock(&fd_state.lock);
	return done;
}

/* Write to the image unless read-only; returns bytes or -errno. */
int fd_disk_write(const char *buf, size_t size, off_t off)
{
	size_t done = 0;
	int64_t img_size;
	ssize_t n;
	int ro;

	pthread_mutex_lock(&fd_state.lock);
	fd_state.writes++;
	ro = fd_state.readonly || !fd_state.img_writable;
	pthread_mutex_unlock(&fd_state.lock);
	fd_model_serve(size);
	if (ro)
		return -EROFS;

	/* the disk has a fixed size, like a real one */
	img_size = fd_image_size();
	if (img_size < 0)
		return img_size;
	if (off < 0 || off >= img_size)
		return size ? -ENOSPC : 0;
	if (size > (uint64_t)(img_size - off))
		size = img_size - off;

	while (done < size) {
		n = pwrite(fd_state.img_fd, buf + done, size - done, off + done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!done)
				return -errno;
			break;
		}
		done += n;
	}

	pthread_mutex_lock(&fd_state.lock);
	fd_state.write_bytes += done;
	pthread_mutex_unlock(&fd_state.lock);
	return done;
}

/* Open IMAGE read-write (read-only if it must); returns 0 or -errno. */
int fd_open_image(void)
{
	fd_state.img_fd = open(fd_state.img_path, O_RDWR | O_CLOEXEC);
	fd_state.img_writable = 1;
	if (fd_state.img_fd < 0 && (errno == EROFS || errno == EACCES)) {
		fd_state.img_fd = open(fd_state.img_path, O_RDONLY | O_CLOEXEC);
		fd_state.img_writable = 0;
	}
	if (fd_state.img_fd < 0)
		return -errno;
	return 0;
}
