// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blkmark: ground truth for the storage-stack VM tier (tests/vm/stack-tier), independent of
 * mediascan. `write` makes a file whose every 4 KiB block starts with a marker naming the
 * file's tag and the block's index (the rest of the block is pseudo-random, so no two blocks
 * are alike); `find` reads a raw device or image and prints where each marker lives, at
 * 512-byte granularity: on a member disk that gives member sector <-> file offset.
 *
 *   blkmark write PATH TAG NBLOCKS      write NBLOCKS 4 KiB blocks to PATH, fsync
 *   blkmark find DEV [TAG]              print "TAG INDEX SECTOR" per marker found on DEV
 *                                       (a regular file's holes are skipped: SEEK_DATA)
 * Exit status: 0 done, 1 error (with the reason on stderr), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLK_BYTES 4096
#define SECTOR_BYTES 512
#define MARK_MAGIC "MSBLKMARK:"
#define MARK_BYTES 64
#define TAG_MAX 40
#define CHUNK_BYTES (1u << 20)

/* fill_block: the content of block IDX of the file tagged TAG. */
static void fill_block(unsigned char *blk, const char *tag, uint64_t idx)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (idx * 0xbf58476d1ce4e5b9ull);
	size_t i;

	for (i = 0; tag[i]; i++)
		x = (x ^ (unsigned char)tag[i]) * 0x100000001b3ull;
	for (i = 0; i < BLK_BYTES; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(blk + i, &x, 8);
	}
	memset(blk, ' ', MARK_BYTES);
	snprintf((char *)blk, MARK_BYTES, MARK_MAGIC "%s:%" PRIu64 ":", tag, idx);
	blk[MARK_BYTES - 1] = '\n';
}

/* do_write: 0 when PATH holds NBLOCKS marked blocks on stable storage, 1 on an error. */
static int do_write(const char *path, const char *tag, uint64_t nblocks)
{
	static unsigned char blk[BLK_BYTES];
	uint64_t i;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "blkmark: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < nblocks; i++) {
		fill_block(blk, tag, i);
		if (pwrite(fd, blk, BLK_BYTES, (off_t)(i * BLK_BYTES)) != BLK_BYTES) {
			fprintf(stderr, "blkmark: write %s block %" PRIu64 ": %s\n", path, i,
				strerror(errno));
			close(fd);
			return 1;
		}
	}
	if (fsync(fd) || close(fd)) {
		fprintf(stderr, "blkmark: fsync %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* scan_buf: print the markers in BUF (LEN bytes read at byte offset POS of the device). */
static void scan_buf(const unsigned char *buf, size_t len, uint64_t pos, const char *want)
{
	char tag[TAG_MAX + 1];
	size_t off, n;
	uint64_t idx;
	const char *p, *end;

	for (off = 0; off + MARK_BYTES <= len; off += SECTOR_BYTES) {
		p = (const char *)buf + off;
		if (memcmp(p, MARK_MAGIC, sizeof(MARK_MAGIC) - 1))
			continue;
		p += sizeof(MARK_MAGIC) - 1;
		end = memchr(p, ':', TAG_MAX + 1);
		if (!end || end == p)
			continue;
		n = (size_t)(end - p);
		memcpy(tag, p, n);
		tag[n] = 0;
		if (want && strcmp(tag, want))
			continue;
		idx = strtoull(end + 1, NULL, 10);
		printf("%s %" PRIu64 " %" PRIu64 "\n", tag, idx, (pos + off) / SECTOR_BYTES);
	}
}

/* do_find: 0 when all of DEV was read (markers printed), 1 on a read error. */
static int do_find(const char *dev, const char *want)
{
	unsigned char *buf;
	struct stat st;
	off_t pos = 0, data;
	ssize_t got;
	int fd, regular;

	fd = open(dev, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "blkmark: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	regular = S_ISREG(st.st_mode);
	buf = malloc(CHUNK_BYTES);
	if (!buf) {
		close(fd);
		return 1;
	}
	for (;;) {
		if (regular) {
			data = lseek(fd, pos, SEEK_DATA);
			if (data < 0)
				break;		/* ENXIO: no data after pos */
			pos = data & ~(off_t)(SECTOR_BYTES - 1);
		}
		got = pread(fd, buf, CHUNK_BYTES, pos);
		if (got < 0) {
			fprintf(stderr, "blkmark: read %s at %lld: %s\n", dev, (long long)pos,
				strerror(errno));
			free(buf);
			close(fd);
			return 1;
		}
		if (got == 0)
			break;
		scan_buf(buf, (size_t)got, (uint64_t)pos, want);
		pos += got;
	}
	free(buf);
	close(fd);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "write") && strlen(argv[3]) <= TAG_MAX &&
	    !strchr(argv[3], ':'))
		return do_write(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "find"))
		return do_find(argv[2], argc == 4 ? argv[3] : NULL);
	fprintf(stderr, "usage: blkmark write PATH TAG NBLOCKS | blkmark find DEV [TAG]\n");
	return 2;
}
