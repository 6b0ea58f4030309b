/*
 * tests/unit/test_stack_thin.c - stack/stack_thin*.c's model of a thin pool against real
 * metadata written by thin-provisioning-tools' thin_restore on this host: a small pool (a
 * volume, its snapshot sharing 16 blocks, an empty device) checked by hand, and a large one
 * (multi-level B-trees, snapshots with copied-on-write blocks) checked block by block against
 * what the pool was made of, against thin_dump's XML and against thin_rmap; a snapshot's tree
 * sharing nodes with its origin's (read once, the same model; a shared node out of its place
 * refused). Then the walk under damage and under commits: a node's checksum, a node read at
 * another block than it says, a superblock that changes once (one re-walk, the new pool's
 * model), one that always changes (a clear error after the bound), a walk torn by a commit
 * (redone, not reported), a commit that left the trees in place (the redone walk takes every
 * node from the batch read at its start), and the product's O_DIRECT reader.
 * Skipped only when thin_restore is missing (scripts/deps installs it).
 * Kept in one file: every test here checks one model against the same two pools
 * (thin_fixture.c builds them); the dm-row tests are apart in test_stack_thin_row.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stack_thin.h"
#include "thin_fixture.h"

#define SB_TRANS_ID 48		/* superblock field offsets, as the format defines them */
#define SB_MAPPING_ROOT 320
#define SB_DETAILS_ROOT 328

static struct fx_set fx;

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int setup(void **s)
{
	(void)s;
	return fx_set_build(&fx) < 0 ? -1 : 0;
}

static int teardown(void **s)
{
	(void)s;
	fx_set_free(&fx);
	return 0;
}

static void need_tools(void)
{
	if (!fx.dir) {
		fprintf(stderr, "skip: thin_restore (thin-provisioning-tools) is not installed; "
			"scripts/deps installs it\n");
		skip();
	}
}

/* Check the model of the small pool (one_more: the pool after its next commit). */
static void check_small(const struct thin_model *m, int one_more)
{
	struct thin_owner o[8];
	struct thin_run r[8];
	struct thin_extent e;
	struct thin_totals t;
	const struct thin_dev *d;

	assert_int_equal(m->sb.data_block_size, 128);
	assert_int_equal(m->sb.data_nr_blocks, 1024);
	assert_int_equal(m->sb.trans_id, one_more ? 4 : 3);
	assert_int_equal(m->sb.time, 1);
	assert_int_equal(m->nr_devs, 3);
	d = thin_model_dev(m, 1);
	assert_non_null(d);
	assert_int_equal(d->mapped_blocks, 20);
	assert_int_equal(d->counted, 20);
	assert_int_equal(d->snapshotted_time, 1);
	/* 0..15 and 100 at time 0 are not contiguous; 200..202 at time 1: three runs */
	assert_int_equal(d->nr_runs, 3);
	d = thin_model_dev(m, 2);
	assert_int_equal(d->creation_time, 1);
	assert_int_equal(d->trans_id, 1);
	assert_int_equal(d->counted, one_more ? 18 : 17);
	assert_int_equal(d->counted, d->mapped_blocks);
	d = thin_model_dev(m, 3);
	assert_int_equal(d->nr_runs, 0);
	assert_null(thin_model_dev(m, 4));

	/* a shared block: both the volume and its snapshot own it */
	assert_int_equal(thin_model_owners(m, 5, 1, o, 8), 2);
	assert_int_equal(o[0].dev_id, 1);
	assert_int_equal(o[0].vblock, 5);
	assert_int_equal(o[0].len, 1);
	assert_int_equal(o[1].dev_id, 2);
	assert_int_equal(o[1].vblock, 5);
	/* each its own copy of virtual block 100; a range across them is clipped */
	assert_int_equal(thin_model_owners(m, 49, 3, o, 8), 2);
	assert_int_equal(o[0].dblock, 50);
	assert_int_equal(o[0].dev_id, 1);
	assert_int_equal(o[0].vblock, 100);
	assert_int_equal(o[1].dblock, 51);
	assert_int_equal(o[1].dev_id, 2);
	assert_int_equal(o[1].time, 1);
	assert_int_equal(thin_model_owners(m, 61, 10, o, 8), 1);
	assert_int_equal(o[0].vblock, 201);
	assert_int_equal(o[0].len, 2);
	/* unprovisioned data blocks have no owner */
	assert_int_equal(thin_model_owners(m, 20, 30, o, 8), 0);
	assert_int_equal(thin_model_owners(m, 0, 1024, o, 1), -E2BIG);

	/* virtual ranges down to data runs, holes left out */
	assert_int_equal(thin_model_lookup(m, 1, 10, 192, r, 8), 3);
	assert_int_equal(r[0].vblock, 10);
	assert_int_equal(r[0].dblock, 10);
	assert_int_equal(r[0].len, 6);
	assert_int_equal(r[1].dblock, 50);
	assert_int_equal(r[2].vblock, 200);
	assert_int_equal(r[2].len, 2);
	assert_int_equal(r[2].time, 1);
	assert_int_equal(thin_model_lookup(m, 2, 16, 84, r, 8), 0);
	assert_int_equal(thin_model_lookup(m, 3, 0, 1000, r, 8), 0);
	assert_int_equal(thin_model_lookup(m, 9, 0, 1, r, 8), -ENOENT);

	/* the provisioned data blocks, what a scan of the data device reads */
	assert_int_equal(thin_model_next_provisioned(m, 0, &e), 1);
	assert_int_equal(e.start, 0);
	assert_int_equal(e.len, 16);
	assert_int_equal(thin_model_next_provisioned(m, 16, &e), 1);
	assert_int_equal(e.start, 50);
	assert_int_equal(e.len, one_more ? 3 : 2);
	assert_int_equal(thin_model_next_provisioned(m, 61, &e), 1);
	assert_int_equal(e.start, 61);
	assert_int_equal(e.len, 2);
	assert_int_equal(thin_model_next_provisioned(m, 63, &e), 0);

	thin_model_totals(m, &t);
	assert_int_equal(t.data_block_bytes, 65536);
	assert_int_equal(t.data_nr_blocks, 1024);
	assert_int_equal(t.data_allocated, one_more ? 22 : 21);
	assert_int_equal(t.provisioned, t.data_allocated);
	assert_int_equal(t.mappings, one_more ? 38 : 37);
	assert_int_equal(t.shared, 16);
	assert_int_equal(t.nr_devs, 3);
}

static void test_small_pool(void **s)
{
	struct thin_model m;
	char why[THIN_WHY];

	(void)s;
	need_tools();
	assert_int_equal(thin_model_load(fx_image_read, &fx.a, THIN_REWALKS, &m, why,
					 sizeof(why)), 0);
	assert_int_equal(m.rewalks, 0);
	assert_true(m.nodes_read >= 5);	/* details, top level, three devices' trees */
	check_small(&m, 0);
	thin_model_free(&m);
}

/* Every device's runs, block by block, are the pool's mappings in order. */
static void check_forward(const struct thin_model *m, const struct fx_pool *p)
{
	size_t k = 0;

	for (size_t i = 0; i < m->nr_devs; i++) {
		const struct thin_dev *d = &m->devs[i];

		assert_int_equal(d->counted, d->mapped_blocks);
		for (size_t j = 0; j < d->nr_runs; j++)
			for (uint32_t b = 0; b < d->runs[j].len; b++) {
				const struct fx_map *x;

				assert_true(k < p->nr_maps);
				x = &p->maps[k++];
				assert_int_equal(x->dev, d->id);
				assert_int_equal(x->vblock, d->runs[j].vblock + b);
				assert_int_equal(x->dblock, d->runs[j].dblock + b);
				assert_int_equal(x->time, d->runs[j].time);
			}
	}
	assert_int_equal(k, p->nr_maps);
}

/* Every owner the model gives for the whole data device, block by block, is want[0..n); and
 * one block at a time, in the same order. */
static void check_reverse(const struct thin_model *m, const struct fx_triple *want, size_t n)
{
	struct thin_owner *o = malloc(m->nr_rev * sizeof(*o));
	struct fx_triple *got = malloc(n * sizeof(*got));
	size_t k = 0;
	int nr;

	assert_non_null(o);
	assert_non_null(got);
	nr = thin_model_owners(m, 0, m->sb.data_nr_blocks, o, (unsigned)m->nr_rev);
	assert_int_equal(nr, m->nr_rev);
	for (int i = 0; i < nr; i++)
		for (uint32_t b = 0; b < o[i].len; b++) {
			assert_true(k < n);
			got[k++] = (struct fx_triple){ o[i].dblock + b, o[i].vblock + b, o[i].dev_id };
		}
	assert_int_equal(k, n);
	qsort(got, n, sizeof(*got), fx_triple_cmp);
	assert_memory_equal(got, want, n * sizeof(*got));
	free(o);
	free(got);
	for (size_t i = 0; i < n;) {
		struct thin_owner one[8];

		nr = thin_model_owners(m, want[i].d, 1, one, 8);
		assert_true(nr >= 1);
		for (int j = 0; j < nr; j++, i++) {
			assert_true(i < n);
			assert_int_equal(one[j].dblock, want[i].d);
			assert_int_equal(one[j].dev_id, want[i].dev);
			assert_int_equal(one[j].vblock, want[i].v);
			assert_int_equal(one[j].len, 1);
		}
	}
}

static void test_large_pool(void **s)
{
	const struct fx_pool *p = &fx.large_pool;
	struct thin_model m;
	struct thin_totals t;
	struct thin_extent e;
	struct fx_triple *want, *rmap;
	char why[THIN_WHY], cmd[900], *dump, *mine;
	uint64_t from = 0, prov = 0, distinct = 0;
	size_t nr_rmap;

	(void)s;
	need_tools();
	assert_int_equal(thin_model_load(fx_image_read, &fx.large, THIN_REWALKS, &m, why,
					 sizeof(why)), 0);
	/* 4 non-empty trees of thousands of entries: internal nodes on each */
	assert_true(m.nodes_read > 4 * 3 + 2);
	check_forward(&m, p);
	want = fx_truth_by_data(p);
	assert_non_null(want);
	check_reverse(&m, want, p->nr_maps);
	/* thin_rmap (thin-provisioning-tools' own reverse map) agrees block by block */
	rmap = fx_rmap(fx.large_path, FX_LARGE_DATA_BLOCKS, &nr_rmap);
	assert_non_null(rmap);
	assert_int_equal(nr_rmap, p->nr_maps);
	assert_memory_equal(rmap, want, nr_rmap * sizeof(*want));
	/* thin_dump's XML of the same metadata is the model's */
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", fx_tool("thin_dump"), fx.large_path);
	dump = fx_run(cmd);
	assert_non_null(dump);
	mine = fx_model_xml(&m);
	assert_non_null(mine);
	assert_string_equal(mine, dump);
	/* provisioned extents cover exactly the distinct data blocks mapped */
	for (size_t i = 0; i < p->nr_maps; i++)
		distinct += i == 0 || want[i].d != want[i - 1].d;
	while (thin_model_next_provisioned(&m, from, &e) == 1) {
		for (uint64_t b = e.start; b < e.start + e.len; b++) {
			struct thin_owner o[8];

			assert_true(thin_model_owners(&m, b, 1, o, 8) >= 1);
		}
		prov += e.len;
		from = e.start + e.len;
	}
	assert_int_equal(prov, distinct);
	thin_model_totals(&m, &t);
	assert_int_equal(t.provisioned, distinct);
	assert_int_equal(t.data_allocated, distinct);
	assert_int_equal(t.mappings, p->nr_maps);
	assert_int_equal(t.shared, p->nr_maps - distinct);
	/* runs, not blocks: memory grows with extents */
	assert_true(m.nr_rev * 3 < p->nr_maps);
	free(want);
	free(rmap);
	free(dump);
	free(mine);
	thin_model_free(&m);
}

/* A copy of an image, to damage. */
static struct fx_image copy_of(const struct fx_image *img)
{
	struct fx_image c = { malloc(img->len), img->len };

	assert_non_null(c.data);
	memcpy(c.data, img->data, img->len);
	return c;
}

/* The value of entry i of a B-tree node (values follow max_entries keys). */
static uint8_t *node_value(uint8_t *node, unsigned i)
{
	uint32_t max = (uint32_t)node[20] | (uint32_t)node[21] << 8 | (uint32_t)node[22] << 16;

	return node + 32 + 8 * max + 8 * i;
}

static void test_shared_subtrees(void **s)
{
	struct fx_image c;
	struct thin_model m;
	char why[THIN_WHY];
	uint8_t *top, *n3, *n4;
	uint64_t r3, r4, unshared;

	(void)s;
	need_tools();
	assert_int_equal(thin_model_load(fx_image_read, &fx.large, 0, &m, why, sizeof(why)), 0);
	unshared = m.nodes_read;
	assert_int_equal(m.nodes_shared, 0);
	thin_model_free(&m);
	/* snapshot 4 holds what 3 holds: share part of 3's tree, as a snapshot does until either
	 * is written (top-level entries: devices 1..5) */
	c = copy_of(&fx.large);
	top = c.data + get_le64(c.data + SB_MAPPING_ROOT) * THIN_META_BLOCK;
	r3 = get_le64(node_value(top, 2));
	r4 = get_le64(node_value(top, 3));
	n3 = c.data + r3 * THIN_META_BLOCK;
	n4 = c.data + r4 * THIN_META_BLOCK;
	assert_int_equal(n3[4], 1);		/* internal: the trees have several levels */
	put_le64(node_value(n4, 1), get_le64(node_value(n3, 1)));
	fx_reseal(n4, THIN_NODE_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.nodes_shared, 1);
	assert_true(m.nodes_read < unshared);
	check_forward(&m, &fx.large_pool);
	thin_model_free(&m);
	/* a shared node under another key range than it holds: corrupt, not a snapshot */
	put_le64(node_value(n4, 1), get_le64(node_value(n3, 2)));
	fx_reseal(n4, THIN_NODE_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, 0, &m, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "shared by thin devices 3 and 4 holds keys outside its place"));
	/* the whole tree shared (a snapshot just taken): read once */
	memcpy(n4, fx.large.data + r4 * THIN_META_BLOCK, THIN_META_BLOCK);
	put_le64(node_value(top, 3), r3);
	fx_reseal(top, THIN_NODE_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.nodes_shared, 1);
	assert_true(m.nodes_read * 4 < unshared * 3);
	check_forward(&m, &fx.large_pool);
	thin_model_free(&m);
	fx_image_free(&c);
}

/* A device whose block bad cannot be read; many_fails: every batch read fails too. */
struct failing {
	struct fx_image *img;
	uint64_t bad;
	int many_fails;
};

static int failing_read(void *arg, uint64_t block, void *buf)
{
	struct failing *f = arg;

	return block == f->bad ? -EIO : fx_image_read(f->img, block, buf);
}

static int failing_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs)
{
	struct failing *f = arg;

	for (unsigned i = 0; i < n; i++)
		if (f->many_fails || blocks[i] == f->bad)
			return -EIO;
	return fx_image_read_many(f->img, blocks, n, bufs);
}

static void test_batched_reads(void **s)
{
	struct failing f = { &fx.large, UINT64_MAX, 1 };
	struct thin_model m1, m2;
	char why[THIN_WHY], want[80], *x1, *x2;
	uint8_t *top, *n3;
	uint64_t child;

	(void)s;
	need_tools();
	/* a node's children read together: the same model, the same nodes read */
	assert_int_equal(thin_model_load(fx_image_read, &fx.large, 0, &m1, why, sizeof(why)), 0);
	assert_int_equal(thin_model_load_many(fx_image_read, fx_image_read_many, &fx.large, 0, &m2,
					      why, sizeof(why)), 0);
	x1 = fx_model_xml(&m1);
	x2 = fx_model_xml(&m2);
	assert_string_equal(x1, x2);
	assert_int_equal(m1.nodes_read, m2.nodes_read);
	free(x2);
	thin_model_free(&m2);
	/* batches that fail: each node read alone instead, the same model */
	assert_int_equal(thin_model_load_many(failing_read, failing_read_many, &f, 0, &m2, why,
					      sizeof(why)), 0);
	x2 = fx_model_xml(&m2);
	assert_string_equal(x1, x2);
	free(x1);
	free(x2);
	thin_model_free(&m1);
	thin_model_free(&m2);
	/* one unreadable child: named, though its siblings were read in its batch */
	top = fx.large.data + get_le64(fx.large.data + SB_MAPPING_ROOT) * THIN_META_BLOCK;
	n3 = fx.large.data + get_le64(node_value(top, 2)) * THIN_META_BLOCK;
	child = get_le64(node_value(n3, 1));
	f.bad = child;
	f.many_fails = 0;
	assert_int_equal(thin_model_load_many(failing_read, failing_read_many, &f, 0, &m2, why,
					      sizeof(why)), -EIO);
	snprintf(want, sizeof(want), "reading metadata block %lu: ", (unsigned long)child);
	assert_non_null(strstr(why, want));
}

static void test_bad_checksum(void **s)
{
	struct fx_image c;
	struct thin_model m;
	char why[THIN_WHY], want[64];
	uint64_t root;

	(void)s;
	need_tools();
	c = copy_of(&fx.a);
	root = get_le64(c.data + SB_MAPPING_ROOT);
	c.data[root * THIN_META_BLOCK + 100] ^= 0x40;	/* one bit of a key or value */
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	snprintf(want, sizeof(want), "metadata block %lu: checksum", (unsigned long)root);
	assert_non_null(strstr(why, want));
	assert_null(m.devs);
	/* the superblock's own checksum */
	memcpy(c.data, fx.a.data, THIN_META_BLOCK);
	c.data[SB_TRANS_ID] ^= 1;
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	assert_non_null(strstr(why, "superblock: checksum"));
	/* not dm-thin at all */
	memset(c.data, 0, THIN_META_BLOCK);
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	assert_non_null(strstr(why, "magic"));
	fx_image_free(&c);
}

static void test_block_twice_in_a_device(void **s)
{
	static struct fx_dev dev = { 1, 0, 0, 0 };
	struct fx_pool p = { .time = 0, .data_block_size = 128, .trans_id = 1,
			     .nr_data_blocks = 1024, .devs = &dev, .nr_devs = 1 };
	struct fx_image img;
	struct thin_model m;
	char why[THIN_WHY], path[700];

	(void)s;
	need_tools();
	/* dm-thin shares a block between devices, never within one: such metadata (thin_restore
	 * writes what it is given) is refused rather than mapped to one of the two */
	fx_add(&p, 1, 0, 5, 0);
	fx_add(&p, 1, 7, 5, 0);
	assert_int_equal(fx_restore(&p, fx.dir, "twice", 4u << 20), 0);
	snprintf(path, sizeof(path), "%s/twice.meta", fx.dir);
	assert_int_equal(fx_image_load(path, &img), 0);
	assert_int_equal(thin_model_load(fx_image_read, &img, 0, &m, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "thin device 1 maps data block 5 twice");
	fx_image_free(&img);
	free(p.maps);
}

/* Return thin_sb_parse's answer for the small pool's superblock with field off (size bytes)
 * set to v, checksum set right. */
static int sb_with(unsigned off, unsigned size, uint64_t v, char *why)
{
	uint8_t b[THIN_META_BLOCK];
	struct thin_sb sb;

	memcpy(b, fx.a.data, sizeof(b));
	for (unsigned i = 0; i < size; i++)
		b[off + i] = (uint8_t)(v >> (8 * i));
	fx_reseal(b, THIN_SB_CSUM_XOR);
	return thin_sb_parse(b, &sb, why, THIN_WHY);
}

static void test_superblock_checks(void **s)
{
	char why[THIN_WHY];

	(void)s;
	need_tools();
	assert_int_equal(sb_with(SB_TRANS_ID, 8, 3, why), 0);
	assert_int_equal(sb_with(40, 4, 3, why), -EOPNOTSUPP);		/* version */
	assert_non_null(strstr(why, "metadata version 3"));
	assert_int_equal(sb_with(360, 4, 1, why), -EOPNOTSUPP);		/* incompat_flags */
	assert_int_equal(sb_with(340, 4, 16, why), -EBADMSG);		/* metadata block size */
	assert_int_equal(sb_with(336, 4, 64, why), -EBADMSG);		/* data block size */
	assert_non_null(strstr(why, "data block size 64 sectors"));
	assert_int_equal(sb_with(8, 8, 5, why), -EBADMSG);		/* its own block number */
	assert_int_equal(sb_with(SB_MAPPING_ROOT, 8, 0, why), -EBADMSG);
	assert_int_equal(sb_with(64, 8, UINT64_MAX / 2, why), -EBADMSG);	/* data blocks */
	assert_non_null(strstr(why, "overflow"));
}

static void test_wrong_blocknr(void **s)
{
	struct fx_image c;
	struct thin_model m;
	char why[THIN_WHY], want[96];
	uint64_t root, moved;

	(void)s;
	need_tools();
	c = copy_of(&fx.a);
	/* the details tree's root copied, checksum and all, to the last (unused) block and the
	 * superblock pointed there: a node read at another block than it was written for */
	root = get_le64(c.data + SB_DETAILS_ROOT);
	moved = c.len / THIN_META_BLOCK - 1;
	memcpy(c.data + moved * THIN_META_BLOCK, c.data + root * THIN_META_BLOCK, THIN_META_BLOCK);
	put_le64(c.data + SB_DETAILS_ROOT, moved);
	fx_reseal(c.data, THIN_SB_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	snprintf(want, sizeof(want), "metadata block %lu says it lives at block %lu",
		 (unsigned long)moved, (unsigned long)root);
	assert_non_null(strstr(why, want));
	/* a root beyond the metadata device */
	put_le64(c.data + SB_DETAILS_ROOT, moved + 1000000);
	fx_reseal(c.data, THIN_SB_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	assert_non_null(strstr(why, "outside metadata blocks"));
	fx_image_free(&c);
}

/* A pool that commits while it is read: block 0 served from first until the superblock has
 * been read switch_at times, then every block from then; or (always) a superblock whose
 * transaction id changes at every read. */
struct live {
	struct fx_image *first, *then;
	unsigned sb_reads, switch_at;
	int always;
};

static int live_read(void *arg, uint64_t block, void *buf)
{
	struct live *l = arg;
	int r;

	if (block == 0)
		l->sb_reads++;
	r = fx_image_read(l->sb_reads >= l->switch_at ? l->then : l->first, block, buf);
	if (r == 0 && block == 0 && l->always) {
		/* always 2: the superblock changes once (between its first two reads), no more */
		put_le64((uint8_t *)buf + SB_TRANS_ID,
			 1000 + (l->always == 2 && l->sb_reads > 2 ? 2 : l->sb_reads));
		fx_reseal(buf, THIN_SB_CSUM_XOR);
	}
	return r;
}

static void test_commit_during_walk(void **s)
{
	struct live l = { &fx.a, &fx.b, 0, 2, 0 };
	struct thin_model m;
	char why[THIN_WHY];

	(void)s;
	need_tools();
	/* the superblock differs after the first walk: walked again, the new pool's model */
	assert_int_equal(thin_model_load(live_read, &l, THIN_REWALKS, &m, why, sizeof(why)), 0);
	assert_int_equal(m.rewalks, 1);
	assert_int_equal(l.sb_reads, 3);
	check_small(&m, 1);
	thin_model_free(&m);
	/* no re-walk allowed: the change is an error, not the old or the new pool */
	l.sb_reads = 0;
	assert_int_equal(thin_model_load(live_read, &l, 0, &m, why, sizeof(why)), -EAGAIN);
	assert_non_null(strstr(why, "changed during each of 1 walks"));
	assert_null(m.devs);
}

static int live_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs)
{
	for (unsigned i = 0; i < n; i++)
		if (live_read(arg, blocks[i], bufs + (size_t)i * THIN_META_BLOCK) < 0)
			return -EIO;
	return 0;
}

/* A commit that left the trees in place: the redone walk takes every node from the batch
 * read at its start (the warm set), none alone, and gives the same model. */
static void test_rewalk_reads_warm_set(void **s)
{
	struct live l = { &fx.a, &fx.a, 0, 1000, 2 };
	struct thin_model m, m0;
	char why[THIN_WHY];

	(void)s;
	need_tools();
	assert_int_equal(thin_model_load_many(live_read, live_read_many, &l, THIN_REWALKS, &m,
					      why, sizeof(why)), 0);
	assert_int_equal(m.rewalks, 1);
	assert_int_equal(l.sb_reads, 3);
	assert_int_equal(m.nodes_read, 0);
	assert_int_equal(m.sb.trans_id, 1002);
	assert_int_equal(thin_model_load(fx_image_read, &fx.a, 0, &m0, why, sizeof(why)), 0);
	assert_true(m0.nodes_read > 0);
	assert_int_equal(m.nr_devs, m0.nr_devs);
	assert_int_equal(m.nr_rev, m0.nr_rev);
	assert_memory_equal(m.rev, m0.rev, m.nr_rev * sizeof(*m.rev));
	thin_model_free(&m);
	thin_model_free(&m0);
}

static void test_always_committing(void **s)
{
	struct live l = { &fx.a, &fx.a, 0, 1000, 1 };
	struct thin_model m;
	char why[THIN_WHY];

	(void)s;
	need_tools();
	assert_int_equal(thin_model_load(live_read, &l, 3, &m, why, sizeof(why)), -EAGAIN);
	/* one read before the first walk, one after each of the 4 walks */
	assert_int_equal(l.sb_reads, 5);
	assert_non_null(strstr(why, "changed during each of 4 walks"));
	assert_null(m.devs);
	assert_int_equal(m.rewalks, 0);
}

static void test_torn_walk_redone(void **s)
{
	struct fx_image c = copy_of(&fx.a);
	struct live l = { &c, &fx.b, 0, 2, 0 };
	struct thin_model m;
	char why[THIN_WHY];
	uint64_t root = get_le64(c.data + SB_MAPPING_ROOT);

	(void)s;
	need_tools();
	/* a node the kernel reused after a commit, met by the walk of the old tree: the
	 * superblock changed meanwhile, so the walk is redone instead of reported */
	c.data[root * THIN_META_BLOCK + 200] ^= 1;
	assert_int_equal(thin_model_load(live_read, &l, THIN_REWALKS, &m, why, sizeof(why)), 0);
	assert_int_equal(m.rewalks, 1);
	assert_string_equal(why, "");
	check_small(&m, 1);
	thin_model_free(&m);
	fx_image_free(&c);
}

static void test_direct_reader(void **s)
{
	const uint64_t end = fx.a.len / THIN_META_BLOCK;
	struct thin_meta_dev d;
	struct thin_model m;
	char why[THIN_WHY], *x1, *x2;
	uint8_t *buf;
	int r;

	(void)s;
	need_tools();
	r = thin_meta_open(fx.a_path, &d);
	if (r == -EINVAL) {
		fprintf(stderr, "skip: %s's filesystem refuses O_DIRECT\n", fx.dir);
		skip();
	}
	assert_int_equal(r, 0);
	assert_int_equal(thin_model_load(thin_meta_read, &d, THIN_REWALKS, &m, why, sizeof(why)),
			 0);
	check_small(&m, 0);
	thin_model_free(&m);
	assert_int_equal(thin_model_load_many(thin_meta_read, thin_meta_read_many, &d,
					      THIN_REWALKS, &m, why, sizeof(why)), 0);
	check_small(&m, 0);
	thin_model_free(&m);
	/* past the end of the device: a short read is an error, not a block */
	buf = aligned_alloc(THIN_META_BLOCK, 2 * THIN_META_BLOCK);
	assert_non_null(buf);
	assert_int_equal(thin_meta_read(&d, end, buf), -EIO);
	assert_int_equal(thin_meta_read_many(&d, (uint64_t[]){ 0, end }, 2, buf), -EIO);
	assert_int_equal(thin_meta_read_many(&d, (uint64_t[]){ end - 1, 0 }, 2, buf), 0);
	assert_memory_equal(buf + THIN_META_BLOCK, fx.a.data, THIN_META_BLOCK);
	free(buf);
	thin_meta_close(&d);
	/* the large pool through the device, children read together: the in-memory model */
	assert_int_equal(thin_meta_open(fx.large_path, &d), 0);
	assert_int_equal(thin_model_load_many(thin_meta_read, thin_meta_read_many, &d, 0, &m,
					      why, sizeof(why)), 0);
	x1 = fx_model_xml(&m);
	thin_model_free(&m);
	thin_meta_close(&d);
	assert_int_equal(thin_model_load(fx_image_read, &fx.large, 0, &m, why, sizeof(why)), 0);
	x2 = fx_model_xml(&m);
	assert_string_equal(x1, x2);
	free(x1);
	free(x2);
	thin_model_free(&m);
	assert_int_equal(thin_meta_open("/nonexistent/meta", &d), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_pool),
		cmocka_unit_test(test_large_pool),
		cmocka_unit_test(test_shared_subtrees),
		cmocka_unit_test(test_batched_reads),
		cmocka_unit_test(test_bad_checksum),
		cmocka_unit_test(test_superblock_checks),
		cmocka_unit_test(test_wrong_blocknr),
		cmocka_unit_test(test_block_twice_in_a_device),
		cmocka_unit_test(test_commit_during_walk),
		cmocka_unit_test(test_rewalk_reads_warm_set),
		cmocka_unit_test(test_always_committing),
		cmocka_unit_test(test_torn_walk_redone),
		cmocka_unit_test(test_direct_reader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
