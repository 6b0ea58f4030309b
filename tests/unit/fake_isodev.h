/*
 * tests/unit/fake_isodev.h - the fake device of test_isolate (fake_isodev.c): each 512-byte
 * block answers 0 (good) or a -errno, as struct scan_isolate's read and read_many see it.
 */
#ifndef MEDIASCAN_FAKE_ISODEV_H
#define MEDIASCAN_FAKE_ISODEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scan.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define LBS 512u
#define DEV_BLOCKS 16384u		/* 8 MiB fake device */
#define FAKE_FD 42

/* The fake device: each 512-byte block answers 0 (good) or a -errno. */
struct fake_isodev {
	int err[DEV_BLOCKS];
	unsigned reads;			/* every read issued */
	unsigned block_reads[DEV_BLOCKS];	/* reads that touched each block */
	size_t max_len;			/* longest read */
	unsigned batches;		/* read_many calls */
	unsigned batch_len[512];	/* entries of each */
	uint64_t batch_first[512];	/* offset of its first entry */
	unsigned stop_after;		/* read_many: answer -EINTR after this many reads (0 never) */
};

extern struct fake_isodev dev;
extern void *isobuf;			/* read_many's reads land here */

/* Return len after reading [offset, offset+len) of the fake device, or a block's -errno. */
ssize_t fake_read(void *arg, uint32_t dev_idx, void *buf, size_t len, uint64_t offset);
/* Return 0 after answering the reads rd[0..n) issued together (each res set), or -EINTR. */
int fake_read_many(void *arg, uint32_t dev_idx, struct scan_iso_read *rd, unsigned n);
/* Return as fake_read, but half of what was asked where a block answers -EREMOTEIO. */
ssize_t short_read(void *arg, uint32_t dev_idx, void *buf, size_t len, uint64_t offset);

#endif
