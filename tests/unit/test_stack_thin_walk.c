/*
 * tests/unit/test_stack_thin_walk.c - stack/stack_thin*.c's walk of thin pool metadata under
 * damage and under commits, over pools written by thin_restore on this host: a node's
 * checksum, the superblock's checks, a node read at another block than it says, a data block
 * mapped twice in one device; a superblock that changes once (one re-walk, the new pool's
 * model), one that always changes (a clear error after the bound), a walk torn by a commit
 * (redone, not reported), a commit that left the trees in place (the redone walk takes every
 * node from the batch read at its start).
 * Skipped only when thin_restore is missing (scripts/deps installs it).
 * The model of a sound pool read whole is test_stack_thin.c's; thin_fixture.c builds the
 * pools both read.
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

static void test_bad_checksum(void **s)
{
	struct fx_image c;
	struct thin_model m;
	char why[THIN_WHY], want[64];
	uint64_t root;

	(void)s;
	fx_need_tools();
	c = fx_image_copy(&fx.a);
	root = fx_get_le64(c.data + FX_SB_MAPPING_ROOT);
	c.data[root * THIN_META_BLOCK + 100] ^= 0x40;	/* one bit of a key or value */
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	snprintf(want, sizeof(want), "metadata block %lu: checksum", (unsigned long)root);
	assert_non_null(strstr(why, want));
	assert_null(m.devs);
	/* the superblock's own checksum */
	memcpy(c.data, fx.a.data, THIN_META_BLOCK);
	c.data[FX_SB_TRANS_ID] ^= 1;
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
	fx_need_tools();
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
	fx_need_tools();
	assert_int_equal(sb_with(FX_SB_TRANS_ID, 8, 3, why), 0);
	assert_int_equal(sb_with(40, 4, 3, why), -EOPNOTSUPP);		/* version */
	assert_non_null(strstr(why, "metadata version 3"));
	assert_int_equal(sb_with(360, 4, 1, why), -EOPNOTSUPP);		/* incompat_flags */
	assert_int_equal(sb_with(340, 4, 16, why), -EBADMSG);		/* metadata block size */
	assert_int_equal(sb_with(336, 4, 64, why), -EBADMSG);		/* data block size */
	assert_non_null(strstr(why, "data block size 64 sectors"));
	assert_int_equal(sb_with(8, 8, 5, why), -EBADMSG);		/* its own block number */
	assert_int_equal(sb_with(FX_SB_MAPPING_ROOT, 8, 0, why), -EBADMSG);
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
	fx_need_tools();
	c = fx_image_copy(&fx.a);
	/* the details tree's root copied, checksum and all, to the last (unused) block and the
	 * superblock pointed there: a node read at another block than it was written for */
	root = fx_get_le64(c.data + FX_SB_DETAILS_ROOT);
	moved = c.len / THIN_META_BLOCK - 1;
	memcpy(c.data + moved * THIN_META_BLOCK, c.data + root * THIN_META_BLOCK, THIN_META_BLOCK);
	fx_put_le64(c.data + FX_SB_DETAILS_ROOT, moved);
	fx_reseal(c.data, THIN_SB_CSUM_XOR);
	assert_int_equal(thin_model_load(fx_image_read, &c, THIN_REWALKS, &m, why, sizeof(why)),
			 -EBADMSG);
	snprintf(want, sizeof(want), "metadata block %lu says it lives at block %lu",
		 (unsigned long)moved, (unsigned long)root);
	assert_non_null(strstr(why, want));
	/* a root beyond the metadata device */
	fx_put_le64(c.data + FX_SB_DETAILS_ROOT, moved + 1000000);
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
		fx_put_le64((uint8_t *)buf + FX_SB_TRANS_ID,
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
	fx_need_tools();
	/* the superblock differs after the first walk: walked again, the new pool's model */
	assert_int_equal(thin_model_load(live_read, &l, THIN_REWALKS, &m, why, sizeof(why)), 0);
	assert_int_equal(m.rewalks, 1);
	assert_int_equal(l.sb_reads, 3);
	fx_check_small(&m, 1);
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
	fx_need_tools();
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
	fx_need_tools();
	assert_int_equal(thin_model_load(live_read, &l, 3, &m, why, sizeof(why)), -EAGAIN);
	/* one read before the first walk, one after each of the 4 walks */
	assert_int_equal(l.sb_reads, 5);
	assert_non_null(strstr(why, "changed during each of 4 walks"));
	assert_null(m.devs);
	assert_int_equal(m.rewalks, 0);
}

static void test_torn_walk_redone(void **s)
{
	struct fx_image c = fx_image_copy(&fx.a);
	struct live l = { &c, &fx.b, 0, 2, 0 };
	struct thin_model m;
	char why[THIN_WHY];
	uint64_t root = fx_get_le64(c.data + FX_SB_MAPPING_ROOT);

	(void)s;
	fx_need_tools();
	/* a node the kernel reused after a commit, met by the walk of the old tree: the
	 * superblock changed meanwhile, so the walk is redone instead of reported */
	c.data[root * THIN_META_BLOCK + 200] ^= 1;
	assert_int_equal(thin_model_load(live_read, &l, THIN_REWALKS, &m, why, sizeof(why)), 0);
	assert_int_equal(m.rewalks, 1);
	assert_string_equal(why, "");
	fx_check_small(&m, 1);
	thin_model_free(&m);
	fx_image_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_checksum),
		cmocka_unit_test(test_superblock_checks),
		cmocka_unit_test(test_wrong_blocknr),
		cmocka_unit_test(test_block_twice_in_a_device),
		cmocka_unit_test(test_commit_during_walk),
		cmocka_unit_test(test_rewalk_reads_warm_set),
		cmocka_unit_test(test_always_committing),
		cmocka_unit_test(test_torn_walk_redone),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
