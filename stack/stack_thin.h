/*
 * stack/stack_thin.h - a read-only model of a live dm-thin pool, from its metadata device:
 * the superblock, the two-level mapping B-tree (thin device id -> virtual block -> data block
 * and time) and the device details tree, every node's checksum and block number checked.
 * The metadata is read through a callback (a file in the unit tests, an O_DIRECT fd on the
 * pool's metadata device in the product); nothing is ever written, no message is sent to the
 * pool and no metadata snapshot is taken (both are writes to the pool). The kernel commits
 * about once a second, so a walk is redone while the superblock changed under it, and given
 * up on (never a guessed mapping) when it keeps changing.
 */
#ifndef MEDIASCAN_STACK_THIN_H
#define MEDIASCAN_STACK_THIN_H

#include <stddef.h>
#include <stdint.h>

#define THIN_META_BLOCK 4096		/* bytes: dm-thin's metadata block size */
#define THIN_SB_MAGIC 27022010ull
/* Per-type salts XOR'ed into a block's crc32c (dm-thin-metadata.c, dm-btree.c). */
#define THIN_SB_CSUM_XOR 160774u
#define THIN_NODE_CSUM_XOR 121107u
#define THIN_WHY 256			/* bytes for an error's reason */
/* Bound on walks redone after a commit: a pool written with fsync commits at every flush. */
#define THIN_REWALKS 64

/* Return the checksum dm-thin stores at offset 0 of a metadata block: crc32c (seed ~0, no
 * final inversion) of bytes 4..4095, XOR'ed with the block type's salt. */
uint32_t thin_block_csum(const void *block, uint32_t salt);

/* Read metadata block number block (THIN_META_BLOCK bytes, buf 4096-aligned) into buf:
 * return 0 or -errno. */
typedef int (*thin_read_fn)(void *arg, uint64_t block, void *buf);

/* Read metadata blocks blocks[0..n) (n <= 256) into bufs + i * THIN_META_BLOCK (bufs
 * 4096-aligned), all at once: return 0 or -errno. Optional: it lets a walk read a node's
 * children together instead of one after another. */
typedef int (*thin_read_many_fn)(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs);

/* Superblock flag: the kernel met an error and wants thin_check run before the pool is used
 * again (its metadata may be inconsistent; the pool is read-only or failed meanwhile). */
#define THIN_SB_NEEDS_CHECK 1u

/* The superblock, decoded. */
struct thin_sb {
	uint8_t uuid[16];
	uint32_t flags;			/* THIN_SB_NEEDS_CHECK */
	uint32_t version, time;
	uint64_t trans_id;
	uint64_t held_root;		/* a metadata snapshot some tool holds, 0 none */
	uint64_t data_nr_blocks;	/* the data space map: pool size in data blocks */
	uint64_t data_nr_allocated;	/* data blocks with a reference */
	uint64_t meta_nr_blocks;	/* the metadata space map */
	uint64_t meta_nr_allocated;
	uint64_t mapping_root, details_root;
	uint32_t data_block_size;	/* sectors of 512 bytes */
	uint32_t metadata_block_size;	/* sectors of 512 bytes (always 8) */
	uint64_t metadata_nr_blocks;
	uint32_t compat_flags, compat_ro_flags, incompat_flags;
};

/*
 * Return 0 and sb decoded from block 0 (THIN_META_BLOCK bytes), -EBADMSG (why says which
 * check failed: checksum, magic, block number, block size, roots out of the device) when it
 * is not a valid dm-thin superblock.
 */
int thin_sb_parse(const void *block, struct thin_sb *sb, char *why, size_t why_len);

/* virtual blocks [vblock, vblock + len) of one thin device held by data blocks
 * [dblock, dblock + len), all mapped at time. */
struct thin_run {
	uint64_t vblock, dblock;
	uint32_t len, time;
};

/* One thin device (volume or snapshot): its details and its mappings. */
struct thin_dev {
	uint32_t id;
	uint64_t mapped_blocks;		/* details: as the kernel counts them */
	uint64_t trans_id;		/* details: the pool's transaction when created */
	uint32_t creation_time, snapshotted_time;
	uint64_t counted;		/* mapped blocks counted in the walk */
	struct thin_run *runs;		/* sorted by vblock, contiguous runs merged */
	size_t nr_runs;
	size_t rev_first;		/* its runs by data block: model's rev[rev_first..
					 * rev_first + nr_runs) */
};

/* data blocks [dblock, dblock + len) held by thin device dev_id at [vblock, vblock + len). */
struct thin_owner {
	uint64_t dblock, vblock;
	uint32_t len, dev_id, time;
};

/* data blocks [start, start + len) */
struct thin_extent {
	uint64_t start, len;
};

/* A pool's model: what one consistent walk of its metadata found. */
struct thin_model {
	struct thin_sb sb;		/* the superblock the walk was consistent with */
	uint8_t sb_block[THIN_META_BLOCK];	/* its bytes, to tell when it changes */
	struct thin_dev *devs;		/* sorted by id */
	size_t nr_devs;
	struct thin_owner *rev;		/* every run, by dev id then data block */
	size_t nr_rev;
	struct thin_extent *prov;	/* provisioned data blocks, merged, sorted */
	size_t nr_prov;
	uint64_t nr_provisioned;	/* distinct data blocks mapped by some device */
	uint64_t nr_mappings;		/* mappings of every device (a shared block counts
					 * once per owner) */
	unsigned rewalks;		/* walks redone because the superblock changed */
	uint64_t nodes_read;		/* B-tree nodes read in the last walk */
	uint64_t nodes_shared;		/* nodes met again in it (shared by snapshots): their
					 * mappings copied, not read again */
};

/*
 * Return 0 and the model of the pool whose metadata read() reads (free with thin_model_free).
 * The superblock is read before and after the walk; while it differs (a commit happened) the
 * walk is redone, at most max_rewalks times (m->rewalks counts them), then -EAGAIN. A walk that
 * fails while the superblock changed under it is redone too; one that fails on an unchanged
 * superblock gives its error: -EBADMSG (a checksum, block number, key order or size check
 * failed, or a data block mapped twice by one device), -EOPNOTSUPP (a metadata feature this
 * reader does not know), -ENOMEM, or read()'s
 * -errno. why (THIN_WHY bytes) says what failed, naming the block.
 */
int thin_model_load(thin_read_fn read, void *arg, unsigned max_rewalks, struct thin_model *m,
		    char *why, size_t why_len);
/* thin_model_load with read_many (may be NULL) reading a node's children together. */
int thin_model_load_many(thin_read_fn read, thin_read_many_fn read_many, void *arg,
			 unsigned max_rewalks, struct thin_model *m, char *why, size_t why_len);
/* Free what thin_model_load allocated in m (m itself is the caller's). */
void thin_model_free(struct thin_model *m);

/* Return the device of id, or NULL. */
const struct thin_dev *thin_model_dev(const struct thin_model *m, uint32_t id);
/*
 * Return the number of owner runs written to out[0..max) that hold data blocks
 * [dblock, dblock + nr), each clipped to that range, sorted by data block then dev id (a block
 * shared by a volume and its snapshots gives one run per device); 0 when nothing maps them
 * (unprovisioned); -E2BIG when more than max.
 */
int thin_model_owners(const struct thin_model *m, uint64_t dblock, uint64_t nr,
		      struct thin_owner *out, unsigned max);
/*
 * Return the number of mapped runs written to out[0..max) of thin device id's virtual blocks
 * [vblock, vblock + nr), clipped to it, sorted; blocks between them are unprovisioned. -ENOENT
 * when the pool has no such device, -E2BIG when more than max.
 */
int thin_model_lookup(const struct thin_model *m, uint32_t id, uint64_t vblock, uint64_t nr,
		      struct thin_run *out, unsigned max);
/*
 * Return 1 and the first provisioned extent of data blocks that ends after block from
 * (clipped to start at from), 0 when none is left: a scan of the pool's data device plans
 * these and never reads unprovisioned space.
 */
int thin_model_next_provisioned(const struct thin_model *m, uint64_t from,
				struct thin_extent *e);

/* A pool's totals. */
struct thin_totals {
	uint64_t data_block_bytes;
	uint64_t data_nr_blocks;	/* the pool's data device, in data blocks */
	uint64_t data_allocated;	/* the data space map's count of blocks in use */
	uint64_t provisioned;		/* distinct data blocks some device maps */
	uint64_t mappings;		/* sum over devices of their mapped blocks */
	uint64_t shared;		/* mappings - provisioned: blocks saved by sharing */
	size_t nr_devs;
};
void thin_model_totals(const struct thin_model *m, struct thin_totals *t);

/* dm table rows of a pool and its volumes (stack_thin_row.c, pure). Sectors are 512 bytes. */

/* thin-pool params: "metadata_dev data_dev data_block_size low_water_mark [n features...]" */
struct thin_pool_params {
	char meta_devt[24], data_devt[24];	/* "MAJ:MIN" */
	uint64_t data_block_size;		/* sectors */
	uint64_t low_water_mark;		/* data blocks */
};
/* thin params: "pool_dev dev_id [external_origin_dev]" */
struct thin_params {
	char pool_devt[24];
	uint32_t dev_id;
	char origin_devt[24];			/* "" without an external origin */
};
/* Return 0 and the row's params decoded, -EINVAL when malformed. */
int thin_pool_row_parse(const char *params, struct thin_pool_params *p);
int thin_row_parse(const char *params, struct thin_params *t);
/*
 * A thin-pool row (start, length, params) read upward from device below ("MAJ:MIN"): return 1
 * and the pool device's sector *top holding sector x of the data device (the same sector: the
 * pool remaps to its data device unchanged), *run sectors to the row's end; 2 when below is
 * the pool's metadata device (damage there is the whole pool's: every volume); 0 when the row
 * does not use below at x; -EINVAL.
 */
int thin_pool_row_up(uint64_t start, uint64_t length, const char *params, const char *below,
		     uint64_t x, uint64_t *top, uint64_t *run);
/*
 * A thin row (start, length, params) of a volume of pool m, down: return 1 and the data
 * device's sector *data that holds the volume's sector x, *run sectors contiguous (within the
 * row); 0 when x's block is unprovisioned (reads as zeros; *run sectors to the next mapped
 * block), 2 when unprovisioned with an external origin (*data: the sector read on it); -ERANGE
 * when x is outside the row, -ENOENT when the pool has no such thin device, -EINVAL.
 */
int thin_row_down(const struct thin_model *m, uint64_t start, uint64_t length,
		  const char *params, uint64_t x, uint64_t *data, uint64_t *run);
/*
 * A thin row read upward from the pool device below ("MAJ:MIN"; its sectors are the data
 * device's): return 1 and the volume's sector *top that sector x holds, *run sectors
 * contiguous; 0 when this volume does not map x (another volume or snapshot may: each thin
 * row is asked, as for every dm row) or below is not its pool, *run then the sectors from x
 * it stays so (UINT64_MAX: all); -EINVAL.
 */
int thin_row_up(const struct thin_model *m, uint64_t start, uint64_t length, const char *params,
		const char *below, uint64_t x, uint64_t *top, uint64_t *run);

/*
 * The product's reader: the pool's metadata device (path) opened O_RDONLY|O_DIRECT through
 * kernel/; thin_meta_read is a thin_read_fn over it (thin_meta_read_many reads many blocks
 * at once: give both to thin_model_load_many). Return 0 or -errno.
 */
struct kio_batch;
struct thin_meta_dev {
	int fd;
	struct kio_batch *batch;	/* many reads in flight (io_uring, else pread) */
};
int thin_meta_open(const char *path, struct thin_meta_dev *d);
int thin_meta_read(void *arg, uint64_t block, void *buf);
/* A thin_read_many_fn over the device: the reads in flight together. */
int thin_meta_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs);
void thin_meta_close(struct thin_meta_dev *d);

#endif
