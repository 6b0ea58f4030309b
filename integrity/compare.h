/*
 * integrity/compare.h - the bytes of a redundancy row compared: the copies of a mirror, the
 * XOR parity of a RAID4/5 stripe row, P and Q of a RAID6 one, block by block, naming the wrong
 * leg where it can be known (a majority of copies, RAID6's syndrome, a metadata block's own
 * CRC). Pure: the caller reads the legs.
 *
 * The row is described here, not by stack/'s struct map_row: integrity/ may not see the
 * storage stack's headers. The values match (enum cmp_kind = enum map_row_kind, enum cmp_role
 * = enum map_md_role, the same leg index) so a caller that sees both converts with
 * CMP_ROW_DESC_FROM.
 */
#ifndef MEDIASCAN_COMPARE_H
#define MEDIASCAN_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#define CMP_MAX_LEGS 16

enum cmp_kind { CMP_MIRROR, CMP_XOR, CMP_PQ };		/* = enum map_row_kind */
enum cmp_role { CMP_DATA, CMP_COPY, CMP_P, CMP_Q };	/* = enum map_md_role */

struct cmp_leg {
	enum cmp_role role;
	int index;			/* data legs of CMP_PQ: Q = sum of g^index * D (0..254) */
};

struct cmp_row_desc {
	enum cmp_kind kind;
	unsigned nr_legs;
	struct cmp_leg leg[CMP_MAX_LEGS];
};

/*
 * Fill struct cmp_row_desc *d from a row with the same field names (stack/'s struct map_row:
 * kind, nr_legs, leg[].role, leg[].index), for a caller that sees both headers.
 */
#define CMP_ROW_DESC_FROM(d, r)							\
	do {									\
		(d)->kind = (enum cmp_kind)(r)->kind;				\
		(d)->nr_legs = (r)->nr_legs <= CMP_MAX_LEGS ? (r)->nr_legs : 0;	\
		for (unsigned cmp_i_ = 0; cmp_i_ < (d)->nr_legs; cmp_i_++) {	\
			(d)->leg[cmp_i_].role = (enum cmp_role)(r)->leg[cmp_i_].role;	\
			(d)->leg[cmp_i_].index = (r)->leg[cmp_i_].index;	\
		}								\
	} while (0)

enum cmp_wrong_how { CMP_WHO_UNKNOWN, CMP_WHO_MAJORITY, CMP_WHO_SYNDROME, CMP_WHO_CRC };

/* One run of differing blocks. */
struct cmp_run {
	uint64_t offset, length;	/* bytes within the legs (0 = leg start) */
	int wrong;			/* leg index that is wrong, -1 unknown */
	enum cmp_wrong_how how;
	int parity_only;		/* PQ: the syndrome says P or Q alone is wrong, the data
					 * agrees */
};

/*
 * Compare the legs (bufs[i] is leg i's bytes, len bytes each, in row->leg order) block by
 * block (blk bytes, e.g. 512 or 4096; the last block may be shorter): return the number of
 * runs written to out[0..max) (adjacent differing blocks with the same verdict merged), 0 when
 * all agree; -E2BIG when there are more runs than max (the first max kept), -EINVAL for a row
 * that is not one (a mirror of fewer than 2 legs, parity rows without exactly one P, one Q for
 * PQ, a data index used twice or over 254).
 * Mirrors: with >= 3 copies a strict majority names the odd copies (a run per wrong copy),
 * otherwise unknown. XOR: the parity disagrees, which leg cannot be known. PQ: only P differs
 * -> P wrong, only Q -> Q wrong (both parity_only); both and one data index z with
 * Q ^ Q' = g^z (P ^ P') on every byte of the block -> data leg z wrong (CMP_WHO_SYNDROME);
 * otherwise unknown.
 */
int cmp_row(const struct cmp_row_desc *row, const void *const *bufs, size_t len, uint32_t blk,
	    struct cmp_run *out, unsigned max);
/*
 * cmp_row, and then a mirror's block whose wrong copy is unknown is decided by metadata CRCs,
 * XFS v5's and the ext4 superblock's (cmp_meta_crc_walk over the block): when the copies whose
 * CRCs are good all agree, every copy that differs from them is wrong (CMP_WHO_CRC, a run per
 * wrong copy). blk must cover the metadata structures (the filesystem block size does for all
 * but directory blocks larger than it; the structures in a block are walked back to back).
 */
int cmp_row_crc(const struct cmp_row_desc *row, const void *const *bufs, size_t len,
		uint32_t blk, struct cmp_run *out, unsigned max);

/*
 * meta_crc.c: return 1 when buf starts with an XFS v5 metadata structure whose CRC is good, 0
 * when it is one with a bad CRC, -1 when it is not recognisable as one (or len is shorter
 * than the structure). The structure's length is not in every block: the CRC is tried over
 * each length the structure may have (sector sizes, block sizes, inode sizes 256 to 2048)
 * that fits in len.
 * Also an ext4 superblock with metadata_csum (crc32c), at buf (a backup, at its group's
 * first block) or at buf + 1024 when len >= 2048 (the primary's block, buf the device's
 * start), with the group descriptors that follow it within len (the next filesystem block:
 * its group numbers and checksum seed come from the superblock); a descriptor block alone,
 * and ext4's other structures (seeded by inode or group from outside the block), are -1.
 */
int cmp_meta_crc(const void *buf, size_t len);
/*
 * Return 1 when buf starts with XFS v5 structures back to back (an inode cluster, the AG
 * headers' sectors) or with an ext4 superblock as above, every one with a good CRC, up to
 * the first that is not recognised or the end; 0 when one of them has a bad CRC; -1 when none
 * is recognised at the start.
 */
int cmp_meta_crc_walk(const void *buf, size_t len);

#endif
