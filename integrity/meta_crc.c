/*
 * integrity/meta_crc.c - whether a block holds XFS v5 metadata and whether its own CRC holds,
 * so that of two differing copies the good one can be named. The layouts and the checksum
 * are libxfs's (xfs_format.h, xfs_da_format.h, xfs_cksum.h; offsets as xfs_ondisk.h pins
 * them): crc32c seeded with ~0 over the structure with its CRC field taken as zero, stored
 * inverted, little endian. The CRC covers the whole buffer the kernel reads the structure
 * in, whose length is not in the block (sector size, filesystem or directory block size,
 * inode size), so each length the structure may have is tried.
 *
 * ext4 with metadata_csum: the superblock, and the group descriptors that follow it in the
 * same buffer; the other ext4 structures' checksums are seeded with the inode's number and
 * generation or the group's, which a block alone does not hold.
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

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ext4's struct ext4_super_block (1024 bytes), the fields used here */
#define E4_SB_LEN		1024
#define E4_FIRST_DATA_BLOCK	0x14
#define E4_LOG_BLOCK_SIZE	0x18	/* block size = 1024 << this */
#define E4_BLOCKS_PER_GROUP	0x20
#define E4_MAGIC		0x38	/* le16 0xEF53 */
#define E4_BLOCK_GROUP_NR	0x5a	/* the group this copy sits in */
#define E4_INCOMPAT		0x60
#define E4_RO_COMPAT		0x64
#define E4_UUID			0x68
#define E4_DESC_SIZE		0xfe
#define E4_FIRST_META_BG	0x104
#define E4_BLOCKS_COUNT_HI	0x150
#define E4_CHECKSUM_TYPE	0x175	/* 1: crc32c, the only one defined */
#define E4_CHECKSUM_SEED	0x270
#define E4_CHECKSUM		0x3fc
#define E4_INCOMPAT_META_BG	0x10
#define E4_INCOMPAT_64BIT	0x80
#define E4_INCOMPAT_CSUM_SEED	0x2000
#define E4_RO_COMPAT_METADATA_CSUM 0x400
#define E4_BG_CHECKSUM		0x1e	/* le16 in struct ext4_group_desc */

/* An ext4 superblock whose copies carry a crc32c (metadata_csum), good or bad. */
static int e4_is_sb(const uint8_t *sb)
{
	return le16(sb + E4_MAGIC) == 0xef53 &&
	       (le32(sb + E4_RO_COMPAT) & E4_RO_COMPAT_METADATA_CSUM) &&
	       sb[E4_CHECKSUM_TYPE] == 1;
}

/*
 * ext4_superblock_csum() (e2fsprogs' ext2fs_superblock_csum the same): crc32c seeded with ~0
 * over the bytes before s_checksum, NOT inverted at the end (the kernel's crc32c() and ISA-L's
 * crc32_iscsi alike leave the inversions to the caller), stored little endian. Every copy
 * carries its own (s_block_group_nr differs), so a backup checks alone.
 */
static int e4_sb_ok(const uint8_t *sb)
{
	return crc32_iscsi((unsigned char *)sb, E4_CHECKSUM, ~0u) == le32(sb + E4_CHECKSUM);
}

/*
 * ext4_group_desc_csum() with metadata_csum: crc32c from the filesystem's seed over the group
 * number (le32), then the descriptor with bg_checksum read as zero; the low 16 bits kept.
 */
static int e4_gd_ok(const uint8_t *gd, uint32_t dsz, uint32_t group, uint32_t seed)
{
	static const unsigned char zero[2];
	unsigned char g[4] = { (unsigned char)group, (unsigned char)(group >> 8),
			       (unsigned char)(group >> 16), (unsigned char)(group >> 24) };
	uint32_t c;

	c = crc32_iscsi(g, 4, seed);
	c = crc32_iscsi((unsigned char *)gd, E4_BG_CHECKSUM, c);
	c = crc32_iscsi((unsigned char *)zero, 2, c);
	c = crc32_iscsi((unsigned char *)gd + E4_BG_CHECKSUM + 2,
			(int)(dsz - E4_BG_CHECKSUM - 2), c);
	return (c & 0xffff) == le16(gd + E4_BG_CHECKSUM);
}

/*
 * The group descriptor table after the good superblock at b + p: it starts at the next
 * filesystem block (the primary sits at byte 1024 of block 0 when blocks are larger than
 * 1 KiB, a backup at the start of its group's first block) and holds groups 0, 1, ... in
 * order, so each descriptor's group number is its index. Those that fit in len are checked,
 * up to the filesystem's last group (the rest of the table's block is unused) and, with
 * meta_bg, only the first s_first_meta_bg blocks (the others live in their meta groups).
 * Return 1 with *end past the last checked (or the superblock's end when none fit), 0 when
 * one is bad.
 */
static int e4_gdt(const uint8_t *b, size_t len, size_t p, size_t *end)
{
	const uint8_t *sb = b + p;
	uint32_t incompat = le32(sb + E4_INCOMPAT), lbs = le32(sb + E4_LOG_BLOCK_SIZE);
	uint32_t bpg = le32(sb + E4_BLOCKS_PER_GROUP), first = le32(sb + E4_FIRST_DATA_BLOCK);
	uint32_t dsz = 32, seed;
	uint64_t blocks = le32(sb + 4), ngroups, max, bs;
	size_t in_blk, gdt, i;

	*end = p + E4_SB_LEN;
	if (lbs > 6 || !bpg)
		return 1;
	bs = 1024u << lbs;
	if (incompat & E4_INCOMPAT_64BIT) {
		dsz = le16(sb + E4_DESC_SIZE);
		blocks |= (uint64_t)le32(sb + E4_BLOCKS_COUNT_HI) << 32;
		if (dsz < 64 || dsz > 1024 || (dsz & (dsz - 1)))
			return 1;
	}
	if (blocks <= first)
		return 1;
	in_blk = bs > 1024 && le16(sb + E4_BLOCK_GROUP_NR) == 0 ? 1024 : 0;
	gdt = p - in_blk + bs;
	ngroups = (blocks - first + bpg - 1) / bpg;
	max = ngroups;
	if ((incompat & E4_INCOMPAT_META_BG) && le32(sb + E4_FIRST_META_BG) * (bs / dsz) < max)
		max = le32(sb + E4_FIRST_META_BG) * (bs / dsz);
	if (incompat & E4_INCOMPAT_CSUM_SEED)
		seed = le32(sb + E4_CHECKSUM_SEED);
	else
		seed = crc32_iscsi((unsigned char *)sb + E4_UUID, 16, ~0u);
	for (i = 0; i < max && gdt + (i + 1) * dsz <= len; i++)
		if (!e4_gd_ok(b + gdt + i * dsz, dsz, (uint32_t)i, seed))
			return 0;
	if (i)
		*end = gdt + i * dsz;
	return 1;
}

/*
 * An ext4 superblock at the buffer's start (a backup at its group's first block, or the
 * primary when the buffer starts at byte 1024) or at byte 1024 (the primary's block, the
 * buffer starting at the device's start; a 1 KiB-block filesystem's backups too).
 */
static int ext4_crc(const uint8_t *b, size_t len, size_t *n)
{
	size_t p;

	if (len >= E4_SB_LEN && e4_is_sb(b))
		p = 0;
	else if (len >= 2 * E4_SB_LEN && e4_is_sb(b + E4_SB_LEN))
		p = E4_SB_LEN;
	else
		return -1;
	if (!e4_sb_ok(b + p))
		return 0;
	return e4_gdt(b, len, p, n);
}

/* cmp_meta_crc, and *n the length whose CRC held (when 1). */
static int meta_crc(const uint8_t *b, size_t len, size_t *n)
{
	struct kind k;
	int tried = 0;

	if (len < 8)
		return -1;
	if (!classify(b, len, &k))
		return ext4_crc(b, len, n);
	for (uint32_t l = k.lo; l <= k.hi && l <= len; l *= 2) {
		if (l < k.crc_off + 4)
			continue;
		tried = 1;
		if (crc_ok(b, l, k.crc_off)) {
			*n = l;
			return 1;
		}
	}
	return tried ? 0 : -1;
}

int cmp_meta_crc(const void *buf, size_t len)
{
	size_t n;

	return meta_crc(buf, len, &n);
}

int cmp_meta_crc_walk(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t off = 0, n = 0;
	int r;

	while (off < len) {
		r = meta_crc(b + off, len - off, &n);
		if (r == 0)
			return 0;
		if (r < 0)
			break;
		off += n;
	}
	return off ? 1 : -1;
}
