/*
 * integrity/meta_crc.c - whether a block holds XFS v5 metadata and whether its own CRC holds,
 * so that of two differing copies the good one can be named. The layouts and the checksum
 * are libxfs's (xfs_format.h, xfs_da_format.h, xfs_cksum.h; offsets as xfs_ondisk.h pins
 * them): crc32c seeded with ~0 over the structure with its CRC field taken as zero, stored
 * inverted, little endian. The CRC covers the whole buffer the kernel reads the structure
 * in, whose length is not in the block (sector size, filesystem or directory block size,
 * inode size), so each length the structure may have is tried.
 */
#include <stdint.h>
#include <string.h>
#include <isa-l/crc.h>

#include "compare.h"

#define MAGIC32(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (c) << 8 | (d))

/* The lengths a structure's buffer may have: powers of two from lo to hi. */
struct kind {
	uint32_t crc_off;
	uint32_t lo, hi;
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* xfs_verify_cksum(): crc32c(~0) over [0, n) with the field at off read as zero. */
static int crc_ok(const uint8_t *b, size_t n, uint32_t off)
{
	static const unsigned char zero[4];
	uint32_t crc, want;

	crc = crc32_iscsi((unsigned char *)b, (int)off, ~0u);
	crc = crc32_iscsi((unsigned char *)zero, 4, crc);
	crc = crc32_iscsi((unsigned char *)b + off + 4, (int)(n - off - 4), crc);
	want = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
	       (uint32_t)b[off + 3] << 24;
	return ~crc == want;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Which structure b starts with (0 when none known), its CRC's offset and buffer lengths. */
static int classify(const uint8_t *b, size_t len, struct kind *k)
{
	uint32_t m = be32(b);
	uint16_t da = len >= 12 ? be16(b + 8) : 0;

	switch (m) {
	case MAGIC32('X', 'F', 'S', 'B'): {
		/* v5 only; the superblock's buffer is one sector (sb_sectsize) */
		uint16_t ss = len >= 104 ? be16(b + 102) : 0;

		if (len < 104 || (be16(b + 100) & 0xf) != 5 || ss < 512 || (ss & (ss - 1)))
			return 0;
		*k = (struct kind){ 224, ss, ss };
		return 1;
	}
	case MAGIC32('X', 'A', 'G', 'F'):	/* v4 keeps agf_uuid zero */
		*k = (struct kind){ 216, 512, 32768 };
		return len >= 80 && !all_zero(b + 64, 16);
	case MAGIC32('X', 'A', 'G', 'I'):	/* agi_uuid */
		*k = (struct kind){ 312, 512, 32768 };
		return len >= 312 && !all_zero(b + 296, 16);
	case MAGIC32('X', 'A', 'F', 'L'):	/* v5 only: v4's AGFL has no header */
		*k = (struct kind){ 32, 512, 32768 };
		return 1;
	case MAGIC32('A', 'B', '3', 'B'):	/* short-form btree blocks: bno, cnt, ino, */
	case MAGIC32('A', 'B', '3', 'C'):	/* fino, rmap, refcount */
	case MAGIC32('I', 'A', 'B', '3'):
	case MAGIC32('F', 'I', 'B', '3'):
	case MAGIC32('R', 'M', 'B', '3'):
	case MAGIC32('R', '3', 'F', 'C'):
		*k = (struct kind){ 52, 512, 65536 };
		return 1;
	case MAGIC32('B', 'M', 'A', '3'):	/* long-form: bmbt */
		*k = (struct kind){ 64, 512, 65536 };
		return 1;
	case MAGIC32('X', 'D', 'B', '3'):	/* dir3 block, data, free: xfs_dir3_blk_hdr */
	case MAGIC32('X', 'D', 'D', '3'):
	case MAGIC32('X', 'D', 'F', '3'):
		*k = (struct kind){ 4, 512, 65536 };
		return 1;
	case MAGIC32('X', 'S', 'L', 'M'):	/* symlink, remote attr value: crc after */
	case MAGIC32('X', 'A', 'R', 'M'):	/* magic, offset, bytes */
		*k = (struct kind){ 12, 512, 65536 };
		return 1;
	}
	/* da3 node, dir3 leaf1/leafn, attr3 leaf: xfs_da3_blkinfo, magic at 8 */
	if (da == 0x3ebe || da == 0x3df1 || da == 0x3dff || da == 0x3bee) {
		*k = (struct kind){ 12, 512, 65536 };
		return 1;
	}
	/* v3 inode: 'IN', di_version 3 at 4; its CRC covers the inode (256 to 2048 bytes) */
	if (len >= 176 && b[0] == 'I' && b[1] == 'N' && b[4] == 3) {
		*k = (struct kind){ 100, 256, 2048 };
		return 1;
	}
	return 0;
}

int cmp_meta_crc(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	struct kind k;
	int tried = 0;

	if (len < 8 || !classify(b, len, &k))
		return -1;
	for (uint32_t n = k.lo; n <= k.hi && n <= len; n *= 2) {
		if (n < k.crc_off + 4)
			continue;
		tried = 1;
		if (crc_ok(b, n, k.crc_off))
			return 1;
	}
	return tried ? 0 : -1;
}
