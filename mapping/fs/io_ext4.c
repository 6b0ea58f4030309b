/*
 * mapping/fs/io_ext4.c - the read-only io_manager through which libext2fs reads an ext4
 * filesystem for index_ext4.c (the inode-table walk) and names_ext4.c (naming below a damaged
 * directory from the raw device).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_config.h"
#include "fs.h"

#if HAVE_EXT2FS
#include <ext2fs/ext2fs.h>

#include "ext4_int.h"

/* The blocks read as zeroes (unreadable or known bad) are counted here when set. */
unsigned *map_ext4_unreadable;
/* The filesystem whose known-bad bytes the read-only manager refuses (map_fsx bad list). */
const struct map_target *map_ext4_refuse;

/* Return 1 when any byte of [off, off+len) of the device is known or suspected bad. */
static int e4_refused(uint64_t off, uint64_t len)
{
	return map_ext4_refuse && map_fsx_is_bad(map_ext4_refuse, off, off + len);
}

/*
 * A read-only io_manager for libext2fs: reads through kernel/ (kio_pread, buffered, so the
 * page cache the mounted filesystem keeps current is what is read), never writes, and never
 * fsyncs the device as unix_io_manager does on open (that would write back the mounted
 * filesystem's dirty buffers). A block that cannot be read is counted and read as zeroes.
 * Known-bad bytes (the ranges the scan found, map_fsx bad list) are never read at all: their
 * sectors are zeroes and counted, the rest of the request read sector by sector (O_DIRECT:
 * the page cache would read the whole page, bad sector included). Callers that must not take
 * zeroes for a directory or map block check map_fsx_is_bad first.
 */

/* The channel's files: buffered reads, and O_DIRECT ones (opened on the first bad read) to
 * find which 512-byte sectors of a failed block are bad: the page cache fails whole pages. */
struct ro_priv {
	uint64_t base;			/* "offset=" option: where the filesystem starts on the
					 * device (a partition the kernel has no device for) */
	int fd;
	int dfd;			/* O_DIRECT, -1 not yet opened, -2 cannot */
	void *sector;			/* aligned 512-byte bounce buffer */
	char name[];
};

static errcode_t ro_open(const char *name, int flags, io_channel *channel)
{
	struct ro_priv *pv;
	io_channel io;
	int fd;

	if (flags & IO_FLAG_RW)
		return EXT2_ET_RO_FILSYS;
	fd = kio_open_ro(name);
	if (fd < 0)
		return (errcode_t)-fd;
	io = calloc(1, sizeof(*io));
	pv = calloc(1, sizeof(*pv) + strlen(name) + 1);
	if (!io || !pv) {
		free(io);
		free(pv);
		kio_close(fd);
		return EXT2_ET_NO_MEMORY;
	}
	pv->fd = fd;
	pv->dfd = -1;
	strcpy(pv->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &map_ext4_ro_manager;
	io->name = strdup(name);
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = pv;
	*channel = io;
	return 0;
}

static errcode_t ro_close(io_channel io)
{
	struct ro_priv *pv = io->private_data;

	if (--io->refcount > 0)
		return 0;
	kio_close(pv->fd);
	if (pv->dfd >= 0)
		kio_close(pv->dfd);
	free(pv->sector);
	free(pv);
	free(io->name);
	free(io);
	return 0;
}

static errcode_t ro_set_blksize(io_channel io, int blksize)
{
	io->block_size = blksize;
	return 0;
}

static errcode_t ro_read_blk64(io_channel io, unsigned long long block, int count, void *data)
{
	struct ro_priv *pv = io->private_data;
	int fd = pv->fd;
	size_t size = count < 0 ? (size_t)-count : (size_t)count * (size_t)io->block_size;
	uint64_t off = block * (uint64_t)io->block_size;
	int refuse = e4_refused(off, size);
	ssize_t n = refuse ? -EIO : kio_pread(fd, data, size, pv->base + off);

	if (n == (ssize_t)size)
		return 0;
	if (n >= 0) {				/* past the end: zeroes */
		memset((char *)data + n, 0, size - (size_t)n);
		return 0;
	}
	/*
	 * A bad sector: sector by sector, zeroes where a sector cannot be read (not the whole
	 * block: an inode table block holds 16 inodes, a bad sector only 2 of them).
	 */
	if (pv->dfd == -1) {
		pv->dfd = kio_open_direct(pv->name);
		if (pv->dfd < 0 || posix_memalign(&pv->sector, 4096, 512)) {
			if (pv->dfd >= 0)
				kio_close(pv->dfd);
			pv->dfd = -2;
		}
	}
	for (size_t done = 0; done < size; done += 512) {
		size_t len = size - done < 512 ? size - done : 512;
		int ok = 0;

		if (refuse && e4_refused(off + done, 512)) {
			ok = 0;			/* known bad: never read again */
		} else if (pv->dfd >= 0 &&
			   kio_pread(pv->dfd, pv->sector, 512, pv->base + off + done) == 512) {
			memcpy((char *)data + done, pv->sector, len);
			ok = 1;
		}
		if (!ok) {
			memset((char *)data + done, 0, len);
			if (map_ext4_unreadable)
				(*map_ext4_unreadable)++;
		}
	}
	return 0;
}

static errcode_t ro_read_blk(io_channel io, unsigned long block, int count, void *data)
{
	return ro_read_blk64(io, block, count, data);
}

static errcode_t ro_write_blk64(io_channel io, unsigned long long block, int count,
				const void *data)
{
	(void)io;
	(void)block;
	(void)count;
	(void)data;
	return EXT2_ET_RO_FILSYS;
}

static errcode_t ro_write_blk(io_channel io, unsigned long block, int count, const void *data)
{
	return ro_write_blk64(io, block, count, data);
}

static errcode_t ro_flush(io_channel io)
{
	(void)io;
	return 0;
}

/* "offset=BYTES" (as unix_io_manager takes it): the filesystem starts there on the device.
 * Known-bad bytes stay in filesystem offsets; only the device reads are shifted. */
static errcode_t ro_set_option(io_channel io, const char *option, const char *arg)
{
	struct ro_priv *pv = io->private_data;
	unsigned long long v;
	char *end;

	if (!option || strcmp(option, "offset") != 0 || !arg || !*arg)
		return EXT2_ET_INVALID_ARGUMENT;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (*end || errno)
		return EXT2_ET_INVALID_ARGUMENT;
	pv->base = v;
	return 0;
}

errcode_t map_ext4_open_ro(const struct map_target *t, ext2_filsys *fs)
{
	char opts[32] = "";

	initialize_ext2_error_table();		/* error_message() names libext2fs's codes */
	if (t->fs_base_bytes)
		snprintf(opts, sizeof(opts), "offset=%llu", (unsigned long long)t->fs_base_bytes);
	/* Read-only (no EXT2_FLAG_RW): libext2fs never writes, and never replays the journal. */
	return ext2fs_open2(t->devices[0].path, opts[0] ? opts : NULL, EXT2_FLAG_64BITS |
			    EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS |
			    EXT2_FLAG_SOFTSUPP_FEATURES | EXT2_FLAG_IGNORE_SB_ERRORS, 0, 0,
			    &map_ext4_ro_manager, fs);
}

struct struct_io_manager map_ext4_ro_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "mediascan read-only",
	.open = ro_open,
	.close = ro_close,
	.set_blksize = ro_set_blksize,
	.read_blk = ro_read_blk,
	.write_blk = ro_write_blk,
	.flush = ro_flush,
	.set_option = ro_set_option,
	.read_blk64 = ro_read_blk64,
	.write_blk64 = ro_write_blk64,
};

#endif
