// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faultdisk - a FUSE "fault disk" for mediascan's host end-to-end tests.
 *
 *   faultdisk IMAGE MOUNTDIR [-f] [--service-us=N] [--bandwidth=BYTES_PER_S] [fuse options]
 *
 * exposes MOUNTDIR/disk (IMAGE itself: same size, read/write, st_blksize 4096,
 * direct_io so a loop device with --direct-io=on sees every read) and
 * MOUNTDIR/ctl, a control file. Reads of disk that touch a bad byte range fail
 * as a whole with EIO; reads that touch a delay range sleep first. Lines
 * written to ctl change the state while the disk is in use:
 *
 *   add OFFSET LENGTH           bad byte range (bytes; decimal or 0x hex)
 *   del OFFSET LENGTH           remove exactly that range (of any kind)
 *   clear                       remove every range
 *   delay OFFSET LENGTH MS      reads touching the range sleep MS ms first
 *   flaky OFFSET LENGTH N       the next N reads touching the range fail with EIO,
 *                               later ones succeed (a transient error)
 *   errno OFFSET LENGTH E       reads touching the range fail with errno E (a number:
 *                               ETIMEDOUT, ENOLINK, EREMOTEIO, ENODEV, ENODATA, ...; the loop
 *                               device hands it to its reader through errno_to_blk_status)
 *   readonly on|off             writes fail with EROFS (and are still counted)
 *   reset                       zero the counters
 *   model US BYTES_PER_S        the disk model (below); "model 0 0" turns it off
 *
 * The disk model (--service-us, --bandwidth, or "model"): one queue served one request
 * at a time, first come first served, each read or write of disk taking US microseconds
 * plus its bytes over BYTES_PER_S (0: no transfer term). Requests that arrive while the
 * "disk" is busy wait their turn, so a scan and a foreground sharing it contend as on a
 * real disk (a loop device over tmpfs answers everyone at once and shows no contention).
 * 4 ms + 150 MB/s is a rotating disk without seeks modelled apart; 100 us + 1 GB/s an SSD
 * of queue depth one.
 *
 * Reading ctl returns one line per range, "bad OFFSET LENGTH reads=N",
 * "delay OFFSET LENGTH ms=M reads=N", "flaky OFFSET LENGTH left=K reads=N" or
 * "errno OFFSET LENGTH errno=E reads=N", then "reads N" (read requests on disk),
 * "read_bytes N", "writes N" (write requests received, refused ones too),
 * "write_bytes N" (bytes actually written), "readonly 0|1" and
 * "max_read_size N" (largest read request the kernel sent), "model_us N",
 * "model_bps N" and "model_busy_ns N" (time the model spent serving). A read at offset 0
 * takes a fresh snapshot; later offsets continue that snapshot.
 *
 * Each ctl write is parsed on its own: a command must not be split across
 * write() calls (echo and printf are fine). A bad command fails the write with
 * EINVAL, "del" of a range that does not exist with ENOENT.
 */
#define FUSE_USE_VERSION 35
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FD_DISK_PATH	"/disk"
#define FD_CTL_PATH	"/ctl"
#define FD_BLKSIZE	4096
#define FD_CTL_LINE_MAX	256

enum fd_range_kind {
	FD_RANGE_BAD,
	FD_RANGE_DELAY,
	FD_RANGE_FLAKY,
	FD_RANGE_ERRNO,
};

struct fd_range {
	enum fd_range_kind kind;
	uint64_t off_bytes;
	uint64_t len_bytes;
	unsigned int delay_ms;	/* delay ranges */
	unsigned int fail_left;	/* flaky ranges: reads that still fail */
	unsigned int err;	/* errno ranges: the positive errno reads fail with */
	uint64_t reads;		/* read requests that touched the range */
};

struct fd_state {
	pthread_mutex_t lock;
	int img_fd;
	int img_writable;	/* 0 if IMAGE could only be opened read-only */
	const char *img_path;

	/* everything below is protected by lock */
	struct fd_range *ranges;	/* sorted by (off_bytes, kind) */
	size_t nr_ranges;
	size_t alloc_ranges;
	int readonly;
	uint64_t reads;
	uint64_t read_bytes;
	uint64_t writes;
	uint64_t write_bytes;
	uint64_t max_read_size;
	uint64_t model_ns;		/* per-request service time; 0 with model_bps 0: off */
	uint64_t model_bps;		/* transfer rate; 0: no transfer term */
	uint64_t model_free_ns;		/* CLOCK_MONOTONIC when the queue's last request ends */
	uint64_t model_busy_ns;		/* total service time handed out */
};

/* per-open state of ctl: the snapshot a reader is walking through */
struct fd_ctl_handle {
	char *buf;
	size_t len;
};

static struct fd_state fd_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.img_fd = -1,
};

/* fstat the image into st; returns 0 or -errno. */
static int fd_image_stat(struct stat *st)
{
	if (fstat(fd_state.img_fd, st) < 0)
		return -errno;
	return 0;
}

/* Size of the image in bytes, or -errno. */
static int64_t fd_image_size(void)
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

/* Index of the range with exactly this kind/offset/length, or -ENOENT. */
static ssize_t fd_find_locked(enum fd_range_kind kind, uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < fd_state.nr_ranges; i++) {
		const struct fd_range *r = &fd_state.ranges[i];

		if (r->kind == kind && r->off_bytes == off && r->len_bytes == len)
			return i;
	}
	return -ENOENT;
}

/* Add (or, for delay and flaky, update) a range; arg is the delay in ms or the failures
 * left; returns 0 or -errno. */
static int fd_add_locked(enum fd_range_kind kind, uint64_t off, uint64_t len, unsigned int arg)
{
	struct fd_range *r;
	ssize_t idx;
	size_t pos;

	idx = fd_find_locked(kind, off, len);
	if (idx >= 0) {
		if (kind == FD_RANGE_FLAKY)
			fd_state.ranges[idx].fail_left = arg;
		else if (kind == FD_RANGE_ERRNO)
			fd_state.ranges[idx].err = arg;
		else
			fd_state.ranges[idx].delay_ms = arg;
		return 0;
	}
	if (fd_state.nr_ranges == fd_state.alloc_ranges) {
		size_t n = fd_state.alloc_ranges ? fd_state.alloc_ranges * 2 : 16;

		r = realloc(fd_state.ranges, n * sizeof(*r));
		if (!r)
			return -ENOMEM;
		fd_state.ranges = r;
		fd_state.alloc_ranges = n;
	}
	for (pos = 0; pos < fd_state.nr_ranges; pos++) {
		r = &fd_state.ranges[pos];
		if (r->off_bytes > off || (r->off_bytes == off && r->kind > kind))
			break;
	}
	memmove(&fd_state.ranges[pos + 1], &fd_state.ranges[pos],
		(fd_state.nr_ranges - pos) * sizeof(*r));
	fd_state.ranges[pos] = (struct fd_range){
		.kind = kind,
		.off_bytes = off,
		.len_bytes = len,
		.delay_ms = kind == FD_RANGE_DELAY ? arg : 0,
		.fail_left = kind == FD_RANGE_FLAKY ? arg : 0,
		.err = kind == FD_RANGE_ERRNO ? arg : 0,
	};
	fd_state.nr_ranges++;
	return 0;
}

/* Remove the ranges (of any kind) equal to OFF/LEN; returns 0 or -ENOENT. */
static int fd_del_locked(uint64_t off, uint64_t len)
{
	int found = 0;
	size_t i = 0;

	while (i < fd_state.nr_ranges) {
		struct fd_range *r = &fd_state.ranges[i];

		if (r->off_bytes == off && r->len_bytes == len) {
			memmove(r, r + 1, (fd_state.nr_ranges - i - 1) * sizeof(*r));
			fd_state.nr_ranges--;
			found = 1;
			continue;
		}
		i++;
	}
	return found ? 0 : -ENOENT;
}

/* Parse an unsigned 64-bit number (decimal, 0x hex); returns 0 or -EINVAL. */
static int fd_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s == '-' || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/* Parse OFFSET LENGTH (LENGTH > 0, no overflow); returns 0 or -EINVAL. */
static int fd_parse_range(const char *a, const char *b, uint64_t *off, uint64_t *len)
{
	if (fd_parse_u64(a, off) || fd_parse_u64(b, len))
		return -EINVAL;
	if (*len == 0 || *off + *len < *off)
		return -EINVAL;
	return 0;
}

/* Execute one ctl command line (NUL-terminated); returns 0 or -errno. */
static int fd_ctl_command(char *line)
{
	char *argv[5];
	char *save = NULL;
	uint64_t off, len, ms;
	int argc = 0;
	char *tok;
	int ret;

	for (tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		if (argc == 5)
			return -EINVAL;
		argv[argc++] = tok;
	}
	if (argc == 0 || argv[0][0] == '#')
		return 0;

	pthread_mutex_lock(&fd_state.lock);
	ret = -EINVAL;
	if (!strcmp(argv[0], "add") && argc == 3) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len))
			ret = fd_add_locked(FD_RANGE_BAD, off, len, 0);
	} else if (!strcmp(argv[0], "del") && argc == 3) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len))
			ret = fd_del_locked(off, len);
	} else if (!strcmp(argv[0], "clear") && argc == 1) {
		fd_state.nr_ranges = 0;
		ret = 0;
	} else if (!strcmp(argv[0], "delay") && argc == 4) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len) &&
		    !fd_parse_u64(argv[3], &ms) && ms <= UINT_MAX)
			ret = fd_add_locked(FD_RANGE_DELAY, off, len, ms);
	} else if (!strcmp(argv[0], "flaky") && argc == 4) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len) &&
		    !fd_parse_u64(argv[3], &ms) && ms <= UINT_MAX)
			ret = fd_add_locked(FD_RANGE_FLAKY, off, len, ms);
	} else if (!strcmp(argv[0], "errno") && argc == 4) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len) &&
		    !fd_parse_u64(argv[3], &ms) && ms > 0 && ms < 4096)
			ret = fd_add_locked(FD_RANGE_ERRNO, off, len, ms);
	} else if (!strcmp(argv[0], "readonly") && argc == 2) {
		if (!strcmp(argv[1], "on") || !strcmp(argv[1], "1")) {
			fd_state.readonly = 1;
			ret = 0;
		} else if (!strcmp(argv[1], "off") || !strcmp(argv[1], "0")) {
			fd_state.readonly = 0;
			ret = 0;
		}
	} else if (!strcmp(argv[0], "model") && argc == 3) {
		uint64_t us, bps;

		if (!fd_parse_u64(argv[1], &us) && !fd_parse_u64(argv[2], &bps) &&
		    us <= 60000000ull) {
			fd_state.model_ns = us * 1000;
			fd_state.model_bps = bps;
			ret = 0;
		}
	} else if (!strcmp(argv[0], "reset") && argc == 1) {
		size_t i;

		for (i = 0; i < fd_state.nr_ranges; i++)
			fd_state.ranges[i].reads = 0;
		fd_state.reads = 0;
		fd_state.read_bytes = 0;
		fd_state.writes = 0;
		fd_state.write_bytes = 0;
		fd_state.max_read_size = 0;
		ret = 0;
	}
	pthread_mutex_unlock(&fd_state.lock);
	return ret;
}

/* Render the current state into h (replacing its snapshot); returns 0 or -errno. */
static int fd_ctl_snapshot(struct fd_ctl_handle *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	size_t i;

	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;

	pthread_mutex_lock(&fd_state.lock);
	for (i = 0; i < fd_state.nr_ranges; i++) {
		const struct fd_range *r = &fd_state.ranges[i];

		if (r->kind == FD_RANGE_BAD)
			fprintf(f, "bad %" PRIu64 " %" PRIu64 " reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->reads);
		else if (r->kind == FD_RANGE_FLAKY)
			fprintf(f, "flaky %" PRIu64 " %" PRIu64 " left=%u reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->fail_left, r->reads);
		else if (r->kind == FD_RANGE_ERRNO)
			fprintf(f, "errno %" PRIu64 " %" PRIu64 " errno=%u reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->err, r->reads);
		else
			fprintf(f, "delay %" PRIu64 " %" PRIu64 " ms=%u reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->delay_ms, r->reads);
	}
	fprintf(f, "reads %" PRIu64 "\n", fd_state.reads);
	fprintf(f, "read_bytes %" PRIu64 "\n", fd_state.read_bytes);
	fprintf(f, "writes %" PRIu64 "\n", fd_state.writes);
	fprintf(f, "write_bytes %" PRIu64 "\n", fd_state.write_bytes);
	fprintf(f, "readonly %d\n", fd_state.readonly || !fd_state.img_writable);
	fprintf(f, "max_read_size %" PRIu64 "\n", fd_state.max_read_size);
	fprintf(f, "model_us %" PRIu64 "\n", fd_state.model_ns / 1000);
	fprintf(f, "model_bps %" PRIu64 "\n", fd_state.model_bps);
	fprintf(f, "model_busy_ns %" PRIu64 "\n", fd_state.model_busy_ns);
	pthread_mutex_unlock(&fd_state.lock);

	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	free(h->buf);
	h->buf = buf;
	h->len = len;
	return 0;
}

static int fd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct stat img;
	int ret;

	(void)fi;
	ret = fd_image_stat(&img);
	if (ret < 0)
		return ret;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_blksize = FD_BLKSIZE;
	st->st_atim = img.st_atim;
	st->st_mtim = img.st_mtim;
	st->st_ctim = img.st_ctim;
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (!strcmp(path, FD_DISK_PATH)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = img.st_size;
		st->st_blocks = img.st_blocks;
	} else if (!strcmp(path, FD_CTL_PATH)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int fd_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, FD_DISK_PATH + 1, NULL, 0, 0);
	fill(buf, FD_CTL_PATH + 1, NULL, 0, 0);
	return 0;
}

static int fd_open(const char *path, struct fuse_file_info *fi)
{
	struct fd_ctl_handle *h;

	if (!strcmp(path, FD_DISK_PATH)) {
		fi->direct_io = 1;
		fi->fh = 0;
		return 0;
	}
	if (!strcmp(path, FD_CTL_PATH)) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return -ENOMEM;
		fi->direct_io = 1;
		fi->nonseekable = 0;
		fi->fh = (uintptr_t)h;
		return 0;
	}
	return -ENOENT;
}

static int fd_release(const char *path, struct fuse_file_info *fi)
{
	struct fd_ctl_handle *h = (struct fd_ctl_handle *)(uintptr_t)fi->fh;

	(void)path;
	if (h) {
		free(h->buf);
		free(h);
	}
	return 0;
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
static int fd_disk_read(char *buf, size_t size, off_t off)
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

static int fd_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct fd_ctl_handle *h = (struct fd_ctl_handle *)(uintptr_t)fi->fh;
	int ret;

	if (size > INT_MAX)
		size = INT_MAX;
	if (!strcmp(path, FD_DISK_PATH))
		return fd_disk_read(buf, size, off);
	if (strcmp(path, FD_CTL_PATH) || !h)
		return -ENOENT;

	if (off == 0 || !h->buf) {
		ret = fd_ctl_snapshot(h);
		if (ret < 0)
			return ret;
	}
	if (off < 0 || (uint64_t)off >= h->len)
		return 0;
	if (size > h->len - off)
		size = h->len - off;
	memcpy(buf, h->buf + off, size);
	return size;
}

/* Write to the image unless read-only; returns bytes or -errno. */
static int fd_disk_write(const char *buf, size_t size, off_t off)
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

/* Run every line of a ctl write; returns size or the first -errno. */
static int fd_ctl_write(const char *buf, size_t size)
{
	char line[FD_CTL_LINE_MAX];
	size_t start = 0;
	int ret;

	while (start < size) {
		const char *nl = memchr(buf + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - buf) : size;
		size_t n = end - start;

		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, buf + start, n);
		line[n] = '\0';
		ret = fd_ctl_command(line);
		if (ret < 0)
			return ret;
		start = end + 1;
	}
	return size;
}

static int fd_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)fi;
	if (size > INT_MAX)
		size = INT_MAX;
	if (!strcmp(path, FD_DISK_PATH))
		return fd_disk_write(buf, size, off);
	if (!strcmp(path, FD_CTL_PATH))
		return fd_ctl_write(buf, size);
	return -ENOENT;
}

static int fd_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int64_t img_size;

	(void)fi;
	if (!strcmp(path, FD_CTL_PATH))
		return 0;	/* "echo cmd > ctl" opens with O_TRUNC */
	if (strcmp(path, FD_DISK_PATH))
		return -ENOENT;
	img_size = fd_image_size();
	if (img_size < 0)
		return img_size;
	return size == img_size ? 0 : -EPERM;
}

static int fd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	if (strcmp(path, FD_DISK_PATH))
		return 0;
	if (fdatasync(fd_state.img_fd) < 0)
		return -errno;
	return 0;
}

static int fd_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return 0;
}

static int fd_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	(void)path;
	(void)uid;
	(void)gid;
	(void)fi;
	return 0;
}

static int fd_utimens(const char *path, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	(void)path;
	(void)tv;
	(void)fi;
	return 0;
}

static void *fd_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 1.0;
	cfg->entry_timeout = 1.0;
	return NULL;
}

static void fd_destroy(void *data)
{
	(void)data;
	if (fd_state.img_fd >= 0) {
		fsync(fd_state.img_fd);
		close(fd_state.img_fd);
		fd_state.img_fd = -1;
	}
}

static const struct fuse_operations fd_ops = {
	.init = fd_init,
	.destroy = fd_destroy,
	.getattr = fd_getattr,
	.readdir = fd_readdir,
	.open = fd_open,
	.release = fd_release,
	.read = fd_read,
	.write = fd_write,
	.truncate = fd_truncate,
	.fsync = fd_fsync,
	.chmod = fd_chmod,
	.chown = fd_chown,
	.utimens = fd_utimens,
};

/*
 * Worker threads kept when idle. FUSE_USE_VERSION 35 cannot raise libfuse's
 * limit of 10 workers; that is enough, as the kernel sends at most
 * max_background (12) asynchronous reads at a time anyway.
 */
#define FD_IDLE_THREADS	10

/* The disk model's options, as given on the command line (applied after parsing). */
struct fd_cmdline {
	unsigned long long service_us;
	unsigned long long bandwidth;
};

static struct fd_cmdline fd_cmdline;

static const struct fuse_opt fd_opts[] = {
	{ "--service-us=%llu", offsetof(struct fd_cmdline, service_us), 0 },
	{ "--bandwidth=%llu", offsetof(struct fd_cmdline, bandwidth), 0 },
	FUSE_OPT_END,
};

/* fuse_opt_parse callback: the first non-option is IMAGE, kept for us. */
static int fd_opt_proc(void *data, const char *arg, int key, struct fuse_args *args)
{
	(void)data;
	(void)args;
	if (key == FUSE_OPT_KEY_NONOPT && !fd_state.img_path) {
		fd_state.img_path = arg;
		return 0;
	}
	return 1;
}

static void fd_usage(const char *prog)
{
	printf("usage: %s IMAGE MOUNTDIR [-f] [-s] [-d] [--service-us=N] [--bandwidth=BPS]\n"
	       "       [-o fuse options]\n"
	       "exposes MOUNTDIR/disk (IMAGE; reads touching a bad range fail with EIO)\n"
	       "and MOUNTDIR/ctl (write: add OFF LEN | del OFF LEN | clear |\n"
	       "delay OFF LEN MS | readonly on|off | reset | model US BPS; read: state)\n"
	       "--service-us, --bandwidth: a one-queue disk model, each request taking\n"
	       "N us plus its bytes over BPS, one at a time\n\n",
	       prog);
}

/* Open IMAGE read-write (read-only if it must); returns 0 or -errno. */
static int fd_open_image(void)
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

/*
 * Mount, serve until unmounted or signalled, unmount. Returns 0 on a clean
 * shutdown (fusermount3 -u, SIGTERM, SIGINT, SIGHUP), 1 otherwise.
 */
static int fd_serve(struct fuse_args *args, struct fuse_cmdline_opts *opts)
{
	struct fuse_loop_config cfg;
	struct fuse_session *se;
	struct fuse *fuse;
	int ret = 1;

	fuse = fuse_new(args, &fd_ops, sizeof(fd_ops), NULL);
	if (!fuse)
		return 1;
	if (fuse_mount(fuse, opts->mountpoint))
		goto out_destroy;
	se = fuse_get_session(fuse);
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	if (fuse_daemonize(opts->foreground))
		goto out_signals;

	if (opts->singlethread) {
		ret = fuse_loop(fuse);
	} else {
		/* libfuse 3.14 warns about its own "unlimited" default */
		cfg.clone_fd = opts->clone_fd;
		cfg.max_idle_threads = opts->max_idle_threads;
		if (cfg.max_idle_threads == UINT_MAX)
			cfg.max_idle_threads = FD_IDLE_THREADS;
		ret = fuse_loop_mt(fuse, &cfg);
	}
	/* the loop returns the signal number when a signal stopped it */
	ret = ret < 0 ? 1 : 0;

out_signals:
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_unmount(fuse);
out_destroy:
	fuse_destroy(fuse);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	int ret = 1;

	memset(&opts, 0, sizeof(opts));
	if (fuse_opt_parse(&args, &fd_cmdline, fd_opts, fd_opt_proc) < 0)
		return 1;
	if (fd_cmdline.service_us > 60000000ull) {
		fprintf(stderr, "faultdisk: --service-us above 60 s\n");
		fuse_opt_free_args(&args);
		return 1;
	}
	fd_state.model_ns = fd_cmdline.service_us * 1000;
	fd_state.model_bps = fd_cmdline.bandwidth;
	if (fuse_parse_cmdline(&args, &opts) != 0)
		goto out_args;
	if (opts.show_help) {
		fd_usage(argv[0]);
		fuse_cmdline_help();
		fuse_lib_help(&args);
		ret = 0;
		goto out_args;
	}
	if (opts.show_version) {
		printf("FUSE library version %s\n", fuse_pkgversion());
		ret = 0;
		goto out_args;
	}
	if (!fd_state.img_path || !opts.mountpoint) {
		fd_usage(argv[0]);
		goto out_args;
	}

	ret = fd_open_image();
	if (ret < 0) {
		fprintf(stderr, "faultdisk: %s: %s\n", fd_state.img_path, strerror(-ret));
		ret = 1;
		goto out_args;
	}
	/* fsname makes the mount recognisable in /proc/mounts */
	if (fuse_opt_add_arg(&args, "-ofsname=faultdisk,subtype=faultdisk")) {
		ret = 1;
		goto out_image;
	}
	ret = fd_serve(&args, &opts);

out_image:
	if (fd_state.img_fd >= 0)
		close(fd_state.img_fd);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
