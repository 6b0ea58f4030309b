/*
 * stack/stack_thin_int.h - what the files of the thin-pool model (stack_thin_meta.c,
 * stack_thin_model.c, stack_thin_seen.c, stack_thin_warm.c, stack_thin_query.c,
 * stack_thin_row.c) share: the B-tree walker over a read callback, the nodes met in a walk and
 * those kept for the next one, the owners' order,
 * little-endian loads.
 */
#ifndef MEDIASCAN_STACK_THIN_INT_H
#define MEDIASCAN_STACK_THIN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "stack_thin.h"

/* Deeper than any tree of 2^64 keys with dm-btree's smallest fan-out: a deeper walk loops. */
#define THIN_MAX_DEPTH 24

/* An internal node has at most (4096 - 32) / 16 = 254 children: one level's prefetch. */
#define THIN_PREFETCH 256

/* The children of one internal node, read together. */
struct thin_prefetch {
	uint8_t *bufs;			/* THIN_PREFETCH blocks, 4096-aligned, lazily */
	int16_t slot[THIN_PREFETCH];	/* child i at bufs + slot[i] blocks, -1 not read */
};

/*
 * The nodes the last walk used, read again together at the start of the next one (after its
 * first superblock read): a walk redone after a commit then reads in one batch what the
 * kernel left in place and alone only the paths it rewrote, so the window the superblock must
 * hold still for is short (a pool written with fsync commits many times a second).
 */
struct thin_warm {
	uint64_t *blocks;		/* sorted: the blocks in bytes, read in this walk's window */
	uint8_t *bytes;			/* n blocks, 4096-aligned */
	size_t n;
	uint64_t *trail;		/* blocks this walk used, for the next walk's set */
	size_t nt, cap;
};

/* The bytes of block if the warm set holds it, else NULL. */
const uint8_t *thin_warm_find(const struct thin_warm *w, uint64_t block);
/* Note block as used by this walk; 0 or -ENOMEM. */
int thin_warm_note(struct thin_warm *w, uint64_t block);
/* Replace the set by the trail's blocks read now (those that fail to read are left out) and
 * empty the trail; 0 or -ENOMEM (the set is then empty, the walk reads everything). */
int thin_warm_load(struct thin_warm *w, thin_read_fn read, thin_read_many_fn read_many,
		   void *arg);
void thin_warm_free(struct thin_warm *w);

/* One walk of one B-tree: every leaf entry in key order goes to leaf(). */
struct thin_walk {
	thin_read_fn read;
	thin_read_many_fn read_many;	/* NULL: nodes are read one by one */
	void *arg;
	uint64_t nr_blocks;		/* metadata blocks: a child beyond is corrupt */
	uint32_t value_size;		/* of the leaves */
	/* Return 0 to go on, or -errno to stop the walk with it. */
	int (*leaf)(void *ctx, uint64_t key, const uint8_t *value);
	void *ctx;
	/* Optional, before a node is read: return 1 when its subtree (keys in [lo, hi), hi_set:
	 * hi bounds them) was given to the walk another way, 0 to read it, or -errno. */
	int (*enter)(void *ctx, uint64_t block, uint64_t lo, uint64_t hi, int hi_set);
	/* Optional, after the subtree at block was walked: return 0 or -errno. */
	int (*leave)(void *ctx, uint64_t block);
	/* Optional: return 1 when enter() will give block's subtree (no need to read it). */
	int (*known)(void *ctx, uint64_t block);
	struct thin_warm *warm;		/* optional: blocks already read in this window */
	uint8_t *buf[THIN_MAX_DEPTH];
	struct thin_prefetch pre[THIN_MAX_DEPTH];	/* one 4096-aligned block per level, lazily */
	uint64_t nodes_read;
	char *why;
	size_t why_len;
};

/* A node met in a walk of the mapping trees, and the mappings its subtree gave: from mapping
 * s_off of run s_run to mapping e_off of run e_run (exclusive) of device dev (an index). */
struct thin_seen_ent {
	uint64_t block;			/* 0: a free slot */
	uint64_t s_run, s_off, e_run, e_off;
	uint32_t dev;
	int done;			/* 0 while its subtree is walked */
};
/* Nodes met, by block number (open addressing). */
struct thin_seen {
	struct thin_seen_ent *e;
	size_t cap, nr;
};
/* Return the entry of block, or NULL. */
struct thin_seen_ent *thin_seen_find(const struct thin_seen *s, uint64_t block);
/* Return a new entry for block (not there yet; entries move: find it again later), NULL when
 * out of memory. */
struct thin_seen_ent *thin_seen_add(struct thin_seen *s, uint64_t block);
void thin_seen_free(struct thin_seen *s);

/* Return 0 after walking the tree at root, or the first error (why set). */
int thin_btree_walk(struct thin_walk *w, uint64_t root);
/* Free the walk's buffers. */
void thin_walk_free(struct thin_walk *w);
/* Return the first run of d that ends after virtual block vblock, or NULL. */
const struct thin_run *thin_dev_run_from(const struct thin_dev *d, uint64_t vblock);
/* Return 1 and in o the run of device dev_id that holds data block dblock, else the first
 * after it; 0 if none. */
int thin_model_owner_from(const struct thin_model *m, uint32_t dev_id, uint64_t dblock,
			  struct thin_owner *o);
/* qsort order of owner runs: by data block, then dev id, then virtual block. */
int thin_owner_cmp(const void *x, const void *y);

static inline uint32_t thin_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t thin_le64(const uint8_t *p)
{
	return (uint64_t)thin_le32(p) | (uint64_t)thin_le32(p + 4) << 32;
}

#endif
