/*
 * tests/unit/test_stack_thin.c - stack/stack_thin*.c's model of a thin pool against real
 * metadata written by thin-provisioning-tools' thin_restore on this host: a small pool (a
 * volume, its snapshot sharing 16 blocks, an empty device) checked by hand, and a large one
 * (multi-level B-trees, snapshots with copied-on-write blocks) checked block by block against
 * what the pool was made of, against thin_dump's XML and against thin_rmap; a snapshot's tree
 * sharing nodes with its origin's (read once, the same model; a shared node out of its place
 * refused); a node's children read in one batch (the same model; a failed batch read node by
 * node; an unreadable child named); and the product's O_DIRECT reader.
 * Skipped only when thin_restore is missing (scripts/deps installs it).
 * The model of a sound pool, read whole, is checked here; the walk under damage and under
 * commits is in test_stack_thin_walk.c, the dm rows in test_stack_thin_row.c. The pools are
 * built, and the small one's model checked, by thin_fixture.c, which all three share.
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

static void test_small_pool(void **s)
{
	struct thin_model m;
	char why[THIN_WHY];

	(void)s;
	fx_need_tools();
	assert_int_equal(thin_model_load(fx_image_read, &fx.a, THIN_REWALKS, &m, why,
					 sizeof(why)), 0);
	assert_int_equal(m.rewalks, 0);
	assert_true(m.nodes_read >= 5);	/* details, top level, three devices' trees */
	fx_check_small(&m, 0);
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
	fx_need_tools();
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
	fx_need_tools();
	assert_int_equal(thin_model_load(fx_image_read, &fx.large, 0, &m, why, sizeof(why)), 0);
	unshared = m.nodes_read;
	assert_int_equal(m.nodes_shared, 0);
	thin_model_free(&m);
	/* snapshot 4 holds what 3 holds: share part of 3's tree, as a snapshot does until either
	 * is written (top-level entries: devices 1..5) */
	c = fx_image_copy(&fx.large);
	top = c.data + fx_get_le64(c.data + FX_SB_MAPPING_ROOT) * THIN_META_BLOCK;
	r3 = fx_get_le64(node_value(top, 2));
	r4 = fx_get_le64(node_value(top, 3));
	n3 = c.data + r3 * THIN_META_BLOCK;
	n4 = c.data + r4 * THIN_META_BLOCK;
	assert_int_equal(n3[4], 1);		/* internal: the trees have several levels */
	fx_put_le64(node_value(n4, 1), fx_get_le64(node_value(n3, 1)));
	fx_reseal(n4, THIN_NODE_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.nodes_shared, 1);
	assert_true(m.nodes_read < unshared);
	check_forward(&m, &fx.large_pool);
	thin_model_free(&m);
	/* a shared node under another key range than it holds: corrupt, not a snapshot */
	fx_put_le64(node_value(n4, 1), fx_get_le64(node_value(n3, 2)));
	fx_reseal(n4, THIN_NODE_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, 0, &m, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "shared by thin devices 3 and 4 holds keys outside its place"));
	/* the whole tree shared (a snapshot just taken): read once */
	memcpy(n4, fx.large.data + r4 * THIN_META_BLOCK, THIN_META_BLOCK);
	fx_put_le64(node_value(top, 3), r3);
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
	fx_need_tools();
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
	top = fx.large.data + fx_get_le64(fx.large.data + FX_SB_MAPPING_ROOT) * THIN_META_BLOCK;
	n3 = fx.large.data + fx_get_le64(node_value(top, 2)) * THIN_META_BLOCK;
	child = fx_get_le64(node_value(n3, 1));
	f.bad = child;
	f.many_fails = 0;
	assert_int_equal(thin_model_load_many(failing_read, failing_read_many, &f, 0, &m2, why,
					      sizeof(why)), -EIO);
	snprintf(want, sizeof(want), "reading metadata block %lu: ", (unsigned long)child);
	assert_non_null(strstr(why, want));
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
	fx_need_tools();
	r = thin_meta_open(fx.a_path, &d);
	if (r == -EINVAL) {
		fprintf(stderr, "skip: %s's filesystem refuses O_DIRECT\n", fx.dir);
		skip();
	}
	assert_int_equal(r, 0);
	assert_int_equal(thin_model_load(thin_meta_read, &d, THIN_REWALKS, &m, why, sizeof(why)),
			 0);
	fx_check_small(&m, 0);
	thin_model_free(&m);
	assert_int_equal(thin_model_load_many(thin_meta_read, thin_meta_read_many, &d,
					      THIN_REWALKS, &m, why, sizeof(why)), 0);
	fx_check_small(&m, 0);
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
		cmocka_unit_test(test_direct_reader),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
