/*
 * stack/stack_thin_model.c - a consistent model of a live thin pool: the device details and
 * the two-level mapping tree walked between two reads of the same superblock, kept as sorted
 * runs (contiguous virtual and data blocks of one time merged: memory grows with extents, not
 * with blocks), with a reverse index by data block for mapping a data-device sector up to
 * every thin device that holds it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack_thin_int.h"

/* struct disk_device_details: mapped_blocks, transaction_id, creation_time, snapshotted_time */
#define DETAILS_SIZE 24
/* A mapping's value: the data block above 24 bits of time (dm-thin-metadata.c pack_block_time). */
#define TIME_BITS 24

struct build {
	struct thin_model *m;
	const struct thin_sb *sb;
	struct thin_dev *dev;		/* the device whose subtree is walked */
	size_t cap_devs, cap_runs;
	struct thin_walk sub;		/* the second level's walker */
	struct thin_seen seen;		/* its nodes met so far */
};

static int details_leaf(void *ctx, uint64_t key, const uint8_t *v)
{
	struct build *b = ctx;
	struct thin_model *m = b->m;
	struct thin_dev *d;

	/* dm-thin's device ids are 24 bits (MAX_DEV_ID in dm-thin.c). */
	if (key >= 1u << 24) {
		snprintf(b->sub.why, b->sub.why_len, "device details: thin device id %" PRIu64
			 " beyond 24 bits", key);
		return -EBADMSG;
	}
	if (m->nr_devs == b->cap_devs) {
		size_t cap = b->cap_devs ? 2 * b->cap_devs : 16;
		struct thin_dev *n = realloc(m->devs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->devs = n;
		b->cap_devs = cap;
	}
	d = &m->devs[m->nr_devs++];
	memset(d, 0, sizeof(*d));
	d->id = (uint32_t)key;
	d->mapped_blocks = thin_le64(v);
	d->trans_id = thin_le64(v + 8);
	d->creation_time = thin_le32(v + 16);
	d->snapshotted_time = thin_le32(v + 20);
	return 0;
}

/* Add virtual blocks [vb, vb + len) -> data blocks from db at time t to the device walked,
 * merged into its last run when they continue it (keys arrive in order: the walk checked). */
static int add_run(struct build *b, uint64_t vb, uint64_t db, uint32_t len, uint32_t t)
{
	struct thin_dev *d = b->dev;
	struct thin_run *last = d->nr_runs ? &d->runs[d->nr_runs - 1] : NULL;

	d->counted += len;
	if (last && last->time == t && last->len <= UINT32_MAX - len &&
	    last->vblock + last->len == vb && last->dblock + last->len == db) {
		last->len += len;
		return 0;
	}
	if (d->nr_runs == b->cap_runs) {
		size_t cap = b->cap_runs ? 2 * b->cap_runs : 64;
		struct thin_run *n = realloc(d->runs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->runs = n;
		b->cap_runs = cap;
	}
	d->runs[d->nr_runs++] = (struct thin_run){ vb, db, len, t };
	return 0;
}

/* A leaf entry of a device's tree: virtual block vb -> (data block << 24 | time). */
static int mapping_leaf(void *ctx, uint64_t vb, const uint8_t *v)
{
	struct build *b = ctx;
	uint64_t val = thin_le64(v), db = val >> TIME_BITS;

	/* A sector of the volume is a 64-bit number: a virtual block past that is no block. */
	if (vb >= UINT64_MAX / b->sb->data_block_size) {
		snprintf(b->sub.why, b->sub.why_len, "thin device %u: virtual block %" PRIu64
			 " beyond any device's size", b->dev->id, vb);
		return -EBADMSG;
	}
	if (db >= b->sb->data_nr_blocks) {
		snprintf(b->sub.why, b->sub.why_len, "thin device %u: virtual block %" PRIu64
			 " maps to data block %" PRIu64 ", beyond the pool's %" PRIu64, b->dev->id,
			 vb, db, b->sb->data_nr_blocks);
		return -EBADMSG;
	}
	return add_run(b, vb, db, 1, (uint32_t)(val & ((1u << TIME_BITS) - 1)));
}

/* Where the device walked is: the mapping after its last one, as (run, offset in run). */
static void position(const struct thin_dev *d, uint64_t *run, uint64_t *off)
{
	*run = d->nr_runs ? d->nr_runs - 1 : 0;
	*off = d->nr_runs ? d->runs[d->nr_runs - 1].len : 0;
}

/* Give the device walked the mappings node e's subtree gave before, if they fit where the
 * node now sits: keys in [lo, hi) and after the device's last mapping. */
static int replay(struct build *b, const struct thin_seen_ent *e, uint64_t lo, uint64_t hi,
		  int hi_set)
{
	const struct thin_dev *src = &b->m->devs[e->dev];

	for (uint64_t r = e->s_run; r <= e->e_run && r < src->nr_runs; r++) {
		struct thin_run run = src->runs[r];	/* a copy: src may be the device walked */
		uint64_t a = r == e->s_run ? e->s_off : 0, z = r == e->e_run ? e->e_off : run.len;
		const struct thin_run *last = b->dev->nr_runs ? &b->dev->runs[b->dev->nr_runs - 1]
							      : NULL;
		int r2;

		if (a >= z)
			continue;
		if (run.vblock + a < lo || (hi_set && run.vblock + z > hi) ||
		    (last && run.vblock + a < last->vblock + last->len)) {
			snprintf(b->sub.why, b->sub.why_len, "B-tree node at metadata block %" PRIu64
				 " shared by thin devices %u and %u holds keys outside its place",
				 e->block, src->id, b->dev->id);
			return -EBADMSG;
		}
		r2 = add_run(b, run.vblock + a, run.dblock + a, (uint32_t)(z - a), run.time);
		if (r2 < 0)
			return r2;
	}
	return 1;
}

/* Before a node of a device's tree is read: a node met before (shared with a snapshot or
 * origin walked earlier) is replayed instead; a new one is noted with where it starts. */
static int node_enter(void *ctx, uint64_t block, uint64_t lo, uint64_t hi, int hi_set)
{
	struct build *b = ctx;
	struct thin_seen_ent *e = thin_seen_find(&b->seen, block);

	if (e && !e->done) {
		snprintf(b->sub.why, b->sub.why_len, "B-tree node at metadata block %" PRIu64
			 " is its own ancestor", block);
		return -EBADMSG;
	}
	if (e) {
		b->m->nodes_shared++;
		return replay(b, e, lo, hi, hi_set);
	}
	e = thin_seen_add(&b->seen, block);
	if (!e)
		return -ENOMEM;
	e->dev = (uint32_t)(b->dev - b->m->devs);
	position(b->dev, &e->s_run, &e->s_off);
	return 0;
}

static int node_known(void *ctx, uint64_t block)
{
	const struct thin_seen_ent *e = thin_seen_find(&((struct build *)ctx)->seen, block);

	return e && e->done;
}

static int node_leave(void *ctx, uint64_t block)
{
	struct build *b = ctx;
	struct thin_seen_ent *e = thin_seen_find(&b->seen, block);

	position(b->dev, &e->e_run, &e->e_off);
	e->done = 1;
	return 0;
}

static int find_dev(const struct thin_model *m, uint64_t id)
{
	size_t lo = 0, hi = m->nr_devs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->devs[mid].id == id)
			return (int)mid;
		if (m->devs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A top-level entry: thin device id -> the root of its virtual-block tree, walked now. */
static int device_leaf(void *ctx, uint64_t id, const uint8_t *v)
{
	struct build *b = ctx;
	int i = find_dev(b->m, id);
	int r;

	if (i < 0) {
		snprintf(b->sub.why, b->sub.why_len, "mapping tree: thin device %" PRIu64 " has no "
			 "device details", id);
		return -EBADMSG;
	}
	b->dev = &b->m->devs[i];
	b->cap_runs = 0;
	r = thin_btree_walk(&b->sub, thin_le64(v));
	/* Give back what doubling reserved: the model stays as large as its runs. */
	if (r == 0 && b->dev->nr_runs) {
		struct thin_run *n = realloc(b->dev->runs, b->dev->nr_runs * sizeof(*n));

		if (n)
			b->dev->runs = n;
	}
	return r;
}

static int by_dev_data(const void *x, const void *y)
{
	const struct thin_owner *a = x, *b = y;

	if (a->dev_id != b->dev_id)
		return a->dev_id < b->dev_id ? -1 : 1;
	return a->dblock < b->dblock ? -1 : a->dblock > b->dblock;
}

/* The provisioned extents: every device's data runs merged (from a copy sorted by data). */
static int build_provisioned(struct thin_model *m)
{
	struct thin_owner *t = malloc((m->nr_rev ? m->nr_rev : 1) * sizeof(*t));

	m->prov = malloc((m->nr_rev ? m->nr_rev : 1) * sizeof(*m->prov));
	if (!t || !m->prov) {
		free(t);
		return -ENOMEM;
	}
	memcpy(t, m->rev, m->nr_rev * sizeof(*t));
	qsort(t, m->nr_rev, sizeof(*t), thin_owner_cmp);
	for (size_t i = 0; i < m->nr_rev; i++) {
		uint64_t end = t[i].dblock + t[i].len;
		struct thin_extent *last = m->nr_prov ? &m->prov[m->nr_prov - 1] : NULL;

		if (last && t[i].dblock <= last->start + last->len) {
			if (end > last->start + last->len)
				last->len = end - last->start;
		} else {
			m->prov[m->nr_prov++] = (struct thin_extent){ t[i].dblock, t[i].len };
		}
	}
	free(t);
	for (size_t i = 0; i < m->nr_prov; i++)
		m->nr_provisioned += m->prov[i].len;
	return 0;
}

/*
 * Build the reverse index (each device's runs by data block, one slice per device: a query
 * costs a binary search per device whatever the runs' lengths) and the provisioned extents.
 * A device holds a data block once (dm-thin shares blocks between devices only); metadata
 * that maps one twice within a device is refused.
 */
static int build_reverse(struct thin_model *m, char *why, size_t why_len)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < m->nr_devs; i++) {
		n += m->devs[i].nr_runs;
		m->nr_mappings += m->devs[i].counted;
	}
	m->rev = malloc((n ? n : 1) * sizeof(*m->rev));
	if (!m->rev)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_devs; i++) {
		m->devs[i].rev_first = k;
		for (size_t j = 0; j < m->devs[i].nr_runs; j++) {
			const struct thin_run *r = &m->devs[i].runs[j];

			m->rev[k++] = (struct thin_owner){ .dblock = r->dblock, .vblock = r->vblock,
				.len = r->len, .dev_id = m->devs[i].id, .time = r->time };
		}
	}
	m->nr_rev = n;
	qsort(m->rev, n, sizeof(*m->rev), by_dev_data);
	for (size_t i = 1; i < n; i++)
		if (m->rev[i].dev_id == m->rev[i - 1].dev_id &&
		    m->rev[i].dblock < m->rev[i - 1].dblock + m->rev[i - 1].len) {
			snprintf(why, why_len, "thin device %u maps data block %" PRIu64 " twice",
				 m->rev[i].dev_id, m->rev[i].dblock);
			return -EBADMSG;
		}
	return build_provisioned(m);
}

/* One walk of the pool at superblock sb into m (m zeroed first; freed by the caller). */
static int walk_pool(thin_read_fn read, thin_read_many_fn read_many, void *arg,
		     const struct thin_sb *sb, struct thin_warm *warm, struct thin_model *m,
		     char *why, size_t why_len)
{
	struct build b = { .m = m, .sb = sb };
	struct thin_walk top = { .read = read, .read_many = read_many, .arg = arg, .warm = warm,
		.nr_blocks = sb->metadata_nr_blocks, .ctx = &b, .why = why, .why_len = why_len };
	int r;

	memset(m, 0, sizeof(*m));
	m->sb = *sb;
	b.sub = top;
	b.sub.value_size = 8;
	b.sub.leaf = mapping_leaf;
	b.sub.enter = node_enter;
	b.sub.leave = node_leave;
	b.sub.known = node_known;
	top.value_size = DETAILS_SIZE;
	top.leaf = details_leaf;
	r = thin_btree_walk(&top, sb->details_root);
	if (r == 0) {
		top.value_size = 8;
		top.leaf = device_leaf;
		r = thin_btree_walk(&top, sb->mapping_root);
	}
	m->nodes_read = top.nodes_read + b.sub.nodes_read;
	thin_walk_free(&top);
	thin_walk_free(&b.sub);
	thin_seen_free(&b.seen);
	if (r == -ENOMEM)
		snprintf(why, why_len, "out of memory modelling the pool");
	return r;
}

void thin_model_free(struct thin_model *m)
{
	for (size_t i = 0; i < m->nr_devs; i++)
		free(m->devs[i].runs);
	free(m->devs);
	free(m->rev);
	free(m->prov);
	memset(m, 0, sizeof(*m));
}

int thin_model_load(thin_read_fn read, void *arg, unsigned max_rewalks, struct thin_model *m,
		    char *why, size_t why_len)
{
	return thin_model_load_many(read, NULL, arg, max_rewalks, m, why, why_len);
}

int thin_model_load_many(thin_read_fn read, thin_read_many_fn read_many, void *arg,
			 unsigned max_rewalks, struct thin_model *m, char *why, size_t why_len)
{
	uint8_t *a = aligned_alloc(THIN_META_BLOCK, THIN_META_BLOCK);
	uint8_t *b = aligned_alloc(THIN_META_BLOCK, THIN_META_BLOCK);
	struct thin_warm warm = { 0 };
	unsigned rewalks = 0;
	int r;

	memset(m, 0, sizeof(*m));
	if (!a || !b) {
		r = -ENOMEM;
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	r = read(arg, 0, a);
	for (;;) {
		struct thin_sb sb;
		struct thin_model t;
		int r2;

		if (r < 0) {
			snprintf(why, why_len, "reading the superblock: %s", strerror(-r));
			goto out;
		}
		memset(&t, 0, sizeof(t));
		r = thin_sb_parse(a, &sb, why, why_len);
		if (r == 0)
			r = walk_pool(read, read_many, arg, &sb, &warm, &t, why, why_len);
		/* The walk holds only if no commit happened meanwhile: the kernel rewrites
		 * block 0 last in every commit, and blocks the old tree freed are reused after. */
		r2 = read(arg, 0, b);
		if (r2 == 0 && memcmp(a, b, THIN_META_BLOCK) == 0) {
			/* the reverse map is built from what was read, outside the window the
			 * superblock must hold still for */
			if (r == 0)
				r = build_reverse(&t, why, why_len);
			if (r == -ENOMEM)
				snprintf(why, why_len, "out of memory modelling the pool");
			if (r == 0) {
				memcpy(t.sb_block, a, THIN_META_BLOCK);
				*m = t;
				m->rewalks = rewalks;
				if (why_len)
					why[0] = 0;
			} else {
				thin_model_free(&t);
			}
			goto out;
		}
		thin_model_free(&t);
		if (r2 < 0) {
			r = r2;
			continue;
		}
		if (rewalks == max_rewalks) {
			snprintf(why, why_len, "the pool's metadata changed during each of %u walks "
				 "(its superblock differed after every walk): no consistent view",
				 rewalks + 1);
			r = -EAGAIN;
			goto out;
		}
		rewalks++;
		memcpy(a, b, THIN_META_BLOCK);
		/* what the kernel left in place since, in one batch: the next window is short */
		if (thin_warm_load(&warm, read, read_many, arg) < 0)
			thin_warm_free(&warm);
		r = 0;
	}
out:
	thin_warm_free(&warm);
	free(a);
	free(b);
	return r;
}
