/*
 * stack/stack_thin_meta.c - dm-thin's on-disk metadata, read only: the superblock and the
 * B-trees of persistent-data (drivers/md/dm-thin-metadata.c, persistent-data/dm-btree*.c).
 * Every node read is checked before any of its bytes is used (checksum, the block number it
 * says it lives at, flags, sizes, keys in order within the bounds its parent gave), so a torn
 * or reused block met during a commit is an error, never a mapping.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isa-l/crc.h>

#include "stack_thin_int.h"

/* Superblock field offsets (struct thin_disk_superblock, packed). */
enum {
	SB_CSUM = 0, SB_FLAGS = 4, SB_BLOCKNR = 8, SB_UUID = 16, SB_MAGIC = 32, SB_VERSION = 40,
	SB_TIME = 44, SB_TRANS_ID = 48, SB_HELD_ROOT = 56, SB_DATA_SM = 64, SB_META_SM = 192,
	SB_MAPPING_ROOT = 320, SB_DETAILS_ROOT = 328, SB_DATA_BLOCK_SIZE = 336,
	SB_META_BLOCK_SIZE = 340, SB_META_NR_BLOCKS = 344, SB_COMPAT = 352, SB_COMPAT_RO = 356,
	SB_INCOMPAT = 360,
};
/* struct disk_sm_root: nr_blocks, nr_allocated, bitmap_root, ref_count_root. */
enum { SM_NR_BLOCKS = 0, SM_NR_ALLOCATED = 8 };
/* struct node_header, then keys[max_entries], then values[max_entries]. */
enum {
	NODE_CSUM = 0, NODE_FLAGS = 4, NODE_BLOCKNR = 8, NODE_NR_ENTRIES = 16,
	NODE_MAX_ENTRIES = 20, NODE_VALUE_SIZE = 24, NODE_KEYS = 32,
};
#define NODE_INTERNAL 1u
#define NODE_LEAF 2u
/* The metadata versions and data block sizes the kernel accepts (dm-thin-metadata.c,
 * dm-thin.c): anything else was not written by a kernel this reader knows. */
#define THIN_VERSION_MIN 1
#define THIN_VERSION_MAX 2
#define THIN_DATA_BLOCK_MIN 128
#define THIN_DATA_BLOCK_MAX 2097152

uint32_t thin_block_csum(const void *block, uint32_t salt)
{
	/* The kernel's dm_bm_checksum: crc32c(~0, ...) without the final inversion, which is
	 * what ISA-L's crc32_iscsi computes from seed ~0. */
	return crc32_iscsi((unsigned char *)block + 4, THIN_META_BLOCK - 4, 0xffffffffu) ^ salt;
}

int thin_sb_parse(const void *block, struct thin_sb *sb, char *why, size_t why_len)
{
	const uint8_t *p = block;
	uint64_t magic = thin_le64(p + SB_MAGIC);

	memset(sb, 0, sizeof(*sb));
	if (magic != THIN_SB_MAGIC) {
		snprintf(why, why_len, "superblock: magic %" PRIu64 ", not dm-thin's %llu", magic,
			 THIN_SB_MAGIC);
		return -EBADMSG;
	}
	if (thin_le32(p + SB_CSUM) != thin_block_csum(p, THIN_SB_CSUM_XOR)) {
		snprintf(why, why_len, "superblock: checksum mismatch (torn or corrupt block 0)");
		return -EBADMSG;
	}
	if (thin_le64(p + SB_BLOCKNR) != 0) {
		snprintf(why, why_len, "superblock: says it lives at block %" PRIu64 ", not 0",
			 thin_le64(p + SB_BLOCKNR));
		return -EBADMSG;
	}
	memcpy(sb->uuid, p + SB_UUID, sizeof(sb->uuid));
	sb->flags = thin_le32(p + SB_FLAGS);
	sb->version = thin_le32(p + SB_VERSION);
	sb->time = thin_le32(p + SB_TIME);
	sb->trans_id = thin_le64(p + SB_TRANS_ID);
	sb->held_root = thin_le64(p + SB_HELD_ROOT);
	sb->data_nr_blocks = thin_le64(p + SB_DATA_SM + SM_NR_BLOCKS);
	sb->data_nr_allocated = thin_le64(p + SB_DATA_SM + SM_NR_ALLOCATED);
	sb->meta_nr_blocks = thin_le64(p + SB_META_SM + SM_NR_BLOCKS);
	sb->meta_nr_allocated = thin_le64(p + SB_META_SM + SM_NR_ALLOCATED);
	sb->mapping_root = thin_le64(p + SB_MAPPING_ROOT);
	sb->details_root = thin_le64(p + SB_DETAILS_ROOT);
	sb->data_block_size = thin_le32(p + SB_DATA_BLOCK_SIZE);
	sb->metadata_block_size = thin_le32(p + SB_META_BLOCK_SIZE);
	sb->metadata_nr_blocks = thin_le64(p + SB_META_NR_BLOCKS);
	sb->compat_flags = thin_le32(p + SB_COMPAT);
	sb->compat_ro_flags = thin_le32(p + SB_COMPAT_RO);
	sb->incompat_flags = thin_le32(p + SB_INCOMPAT);
	if (sb->version < THIN_VERSION_MIN || sb->version > THIN_VERSION_MAX) {
		snprintf(why, why_len, "superblock: metadata version %u (known: %d..%d)",
			 sb->version, THIN_VERSION_MIN, THIN_VERSION_MAX);
		return -EOPNOTSUPP;
	}
	if (sb->incompat_flags) {
		snprintf(why, why_len, "superblock: incompatible features 0x%x", sb->incompat_flags);
		return -EOPNOTSUPP;
	}
	if (sb->metadata_block_size != THIN_META_BLOCK / 512) {
		snprintf(why, why_len, "superblock: metadata block size %u sectors, not %d",
			 sb->metadata_block_size, THIN_META_BLOCK / 512);
		return -EBADMSG;
	}
	if (sb->data_block_size < THIN_DATA_BLOCK_MIN || sb->data_block_size > THIN_DATA_BLOCK_MAX) {
		snprintf(why, why_len, "superblock: data block size %u sectors out of %d..%d",
			 sb->data_block_size, THIN_DATA_BLOCK_MIN, THIN_DATA_BLOCK_MAX);
		return -EBADMSG;
	}
	if (sb->data_nr_blocks > UINT64_MAX / sb->data_block_size) {
		snprintf(why, why_len, "superblock: %" PRIu64 " data blocks overflow 64-bit sectors",
			 sb->data_nr_blocks);
		return -EBADMSG;
	}
	/* The metadata space map is what the kernel allocates from; after a resize it may
	 * exceed the size recorded at format time. */
	if (sb->meta_nr_blocks > sb->metadata_nr_blocks)
		sb->metadata_nr_blocks = sb->meta_nr_blocks;
	if (sb->mapping_root == 0 || sb->mapping_root >= sb->metadata_nr_blocks ||
	    sb->details_root == 0 || sb->details_root >= sb->metadata_nr_blocks) {
		snprintf(why, why_len, "superblock: roots %" PRIu64 ", %" PRIu64 " outside metadata "
			 "blocks 1..%" PRIu64, sb->mapping_root, sb->details_root,
			 sb->metadata_nr_blocks);
		return -EBADMSG;
	}
	return 0;
}

/* Return 0 when the node at block (in b) is one this walk may use, else -EBADMSG and why. */
static int node_check(struct thin_walk *w, uint64_t block, const uint8_t *b, int *leaf)
{
	uint32_t flags = thin_le32(b + NODE_FLAGS);
	uint32_t nr = thin_le32(b + NODE_NR_ENTRIES), max = thin_le32(b + NODE_MAX_ENTRIES);
	uint32_t vsize = thin_le32(b + NODE_VALUE_SIZE);

	if (thin_le32(b + NODE_CSUM) != thin_block_csum(b, THIN_NODE_CSUM_XOR)) {
		snprintf(w->why, w->why_len, "B-tree node at metadata block %" PRIu64 ": checksum "
			 "mismatch", block);
		return -EBADMSG;
	}
	if (thin_le64(b + NODE_BLOCKNR) != block) {
		snprintf(w->why, w->why_len, "B-tree node at metadata block %" PRIu64 " says it "
			 "lives at block %" PRIu64, block, thin_le64(b + NODE_BLOCKNR));
		return -EBADMSG;
	}
	if (flags != NODE_INTERNAL && flags != NODE_LEAF) {
		snprintf(w->why, w->why_len, "B-tree node at metadata block %" PRIu64 ": flags "
			 "0x%x are neither internal nor leaf", block, flags);
		return -EBADMSG;
	}
	*leaf = flags == NODE_LEAF;
	if (vsize != (*leaf ? w->value_size : 8) || nr > max ||
	    NODE_KEYS + (uint64_t)max * (8 + vsize) > THIN_META_BLOCK) {
		snprintf(w->why, w->why_len, "B-tree node at metadata block %" PRIu64 ": %u of %u "
			 "entries of %u bytes do not fit (expected values of %u bytes)", block, nr,
			 max, vsize, *leaf ? w->value_size : 8);
		return -EBADMSG;
	}
	return 0;
}

/* Return the node at block in *out: the prefetched copy pre, the warm set's, else read into
 * the level's buffer; 0 or -errno (why set). */
static int node_bytes(struct thin_walk *w, uint64_t block, unsigned depth, const uint8_t *pre,
		      const uint8_t **out)
{
	const uint8_t *warm = w->warm ? thin_warm_find(w->warm, block) : NULL;
	int r;

	if (w->warm && thin_warm_note(w->warm, block) < 0)
		return -ENOMEM;
	if (pre || warm) {
		*out = pre ? pre : warm;
		return 0;
	}
	if (!w->buf[depth]) {
		w->buf[depth] = aligned_alloc(THIN_META_BLOCK, THIN_META_BLOCK);
		if (!w->buf[depth])
			return -ENOMEM;
	}
	r = w->read(w->arg, block, w->buf[depth]);
	if (r < 0) {
		snprintf(w->why, w->why_len, "reading metadata block %" PRIu64 ": %s", block,
			 strerror(-r));
		return r;
	}
	w->nodes_read++;
	*out = w->buf[depth];
	return 0;
}

/*
 * Read the children of internal node b (at depth) together into level depth + 1's prefetch
 * buffers, those the walk will read (valid block numbers, not given by known()); slot[i] is
 * where child i is, -1 when it was not prefetched (then it is read alone, which also names
 * the block of a failed read).
 */
static int prefetch(struct thin_walk *w, const uint8_t *b, unsigned depth, uint32_t nr,
		    uint32_t max)
{
	struct thin_prefetch *p;
	uint64_t blocks[THIN_PREFETCH];
	unsigned n = 0;

	if (!w->read_many || depth + 1 >= THIN_MAX_DEPTH)
		return 0;
	p = &w->pre[depth + 1];
	if (!p->bufs) {
		p->bufs = aligned_alloc(THIN_META_BLOCK, (size_t)THIN_PREFETCH * THIN_META_BLOCK);
		if (!p->bufs)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t child = thin_le64(b + NODE_KEYS + 8 * (uint64_t)max + 8 * (uint64_t)i);

		p->slot[i] = -1;
		if (child == 0 || child >= w->nr_blocks || (w->known && w->known(w->ctx, child)) ||
		    (w->warm && thin_warm_find(w->warm, child)))
			continue;
		p->slot[i] = (int16_t)n;
		blocks[n++] = child;
	}
	if (n && w->read_many(w->arg, blocks, n, p->bufs) < 0) {
		for (uint32_t i = 0; i < nr; i++)
			p->slot[i] = -1;
		return 0;
	}
	w->nodes_read += n;
	return 0;
}

/* Walk the subtree at block whose keys must lie in [lo, hi) (hi_set: hi bounds them); pre:
 * its bytes when prefetched, else NULL. */
static int walk_node(struct thin_walk *w, uint64_t block, unsigned depth, uint64_t lo,
		     uint64_t hi, int hi_set, const uint8_t *pre)
{
	const uint8_t *b;
	uint32_t nr, max, vsize;
	int leaf, r;

	if (depth >= THIN_MAX_DEPTH) {
		snprintf(w->why, w->why_len, "B-tree deeper than %d levels at metadata block %"
			 PRIu64 " (a loop)", THIN_MAX_DEPTH, block);
		return -EBADMSG;
	}
	if (block == 0 || block >= w->nr_blocks) {
		snprintf(w->why, w->why_len, "B-tree points at metadata block %" PRIu64 ", outside "
			 "1..%" PRIu64, block, w->nr_blocks);
		return -EBADMSG;
	}
	if (w->enter) {
		r = w->enter(w->ctx, block, lo, hi, hi_set);
		if (r)
			return r < 0 ? r : 0;
	}
	r = node_bytes(w, block, depth, pre, &b);
	if (r == 0)
		r = node_check(w, block, b, &leaf);
	if (r < 0)
		return r;
	nr = thin_le32(b + NODE_NR_ENTRIES);
	max = thin_le32(b + NODE_MAX_ENTRIES);
	vsize = thin_le32(b + NODE_VALUE_SIZE);
	/* Below the root an internal node always has children: the kernel collapses one left
	 * with a single child into its parent, and thin_check refuses underfull nodes there. */
	if (nr == 0 && depth > 0 && !leaf) {
		snprintf(w->why, w->why_len, "B-tree node at metadata block %" PRIu64 ": internal "
			 "node without entries below the root", block);
		return -EBADMSG;
	}
	if (!leaf && (r = prefetch(w, b, depth, nr, max)) < 0)
		return r;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t key = thin_le64(b + NODE_KEYS + 8 * (uint64_t)i);
		const uint8_t *val = b + NODE_KEYS + 8 * (uint64_t)max + (uint64_t)vsize * i;
		uint64_t next = i + 1 < nr ? thin_le64(b + NODE_KEYS + 8 * (uint64_t)(i + 1)) : hi;
		int next_set = i + 1 < nr || hi_set;
		const struct thin_prefetch *p = &w->pre[depth + 1 < THIN_MAX_DEPTH ? depth + 1 : 0];

		if (key < lo || (hi_set && key >= hi) || (i + 1 < nr && next <= key)) {
			snprintf(w->why, w->why_len, "B-tree node at metadata block %" PRIu64 ": key "
				 "%" PRIu64 " (entry %u) out of order", block, key, i);
			return -EBADMSG;
		}
		if (leaf)
			r = w->leaf(w->ctx, key, val);
		else
			r = walk_node(w, thin_le64(val), depth + 1, key, next, next_set,
				      w->read_many && p->bufs && p->slot[i] >= 0 ?
				      p->bufs + (size_t)p->slot[i] * THIN_META_BLOCK : NULL);
		if (r < 0)
			return r;
		/* The child walk wrote deeper levels' buffers only: b is still this node. */
	}
	return w->leave ? w->leave(w->ctx, block) : 0;
}

int thin_btree_walk(struct thin_walk *w, uint64_t root)
{
	return walk_node(w, root, 0, 0, 0, 0, NULL);
}

void thin_walk_free(struct thin_walk *w)
{
	for (unsigned i = 0; i < THIN_MAX_DEPTH; i++) {
		free(w->buf[i]);
		free(w->pre[i].bufs);
		w->buf[i] = NULL;
		w->pre[i].bufs = NULL;
	}
}
