// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/faultdisk/faultdisk.h - what the fault disk's files share: its one state (the image,
 * the fault table, the counters, the disk model; disk.c), the ctl file (ctl.c), the disk's
 * reads and writes (disk.c). faultdisk.c has the FUSE operations and main.
 */
#ifndef FAULTDISK_H
#define FAULTDISK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

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

extern struct fd_state fd_state;

/* The disk (disk.c). */
/* fstat the image into st; returns 0 or -errno. */
int fd_image_stat(struct stat *st);
/* Size of the image in bytes, or -errno. */
int64_t fd_image_size(void);
/* Read from the image unless the request touches a bad range; returns bytes or -errno. */
int fd_disk_read(char *buf, size_t size, off_t off);
/* Write to the image unless read-only; returns bytes or -errno. */
int fd_disk_write(const char *buf, size_t size, off_t off);
/* Open IMAGE read-write (read-only if it must); returns 0 or -errno. */
int fd_open_image(void);

/* The ctl file (ctl.c). */
/* Render the current state into h (replacing its snapshot); returns 0 or -errno. */
int fd_ctl_snapshot(struct fd_ctl_handle *h);
/* Run every line of a ctl write; returns size or the first -errno. */
int fd_ctl_write(const char *buf, size_t size);

#endif
