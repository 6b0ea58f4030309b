/*
 * tests/unit/test_compare.c - integrity/compare.c on real buffers of random bytes: mirrors of
 * 2 and 3 copies (differing runs merged, the odd copy named by majority), RAID5 rows with P
 * from ISA-L's xor_gen, RAID6 rows with P and Q from pq_gen in a shuffled leg order and with
 * DDF-style syndrome indices (a bad data leg located by the syndrome, P or Q alone named as
 * parity only, two bad legs unknown), both through ISA-L's checks and the plain loop (lengths
 * ISA-L refuses), too many runs, rows that are not rows. test_meta_crc.c covers the CRCs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <isa-l/raid.h>

#include "compare.h"

#define LEN (64 * 1024)
#define BLK 4096

static uint8_t *bufs[CMP_MAX_LEGS];

static void fill_random(uint8_t *b, size_t n, unsigned seed)
{
	srand(seed);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rand();
}

static int setup(void **s)
{
	(void)s;
	for (int i = 0; i < CMP_MAX_LEGS; i++) {
		void *p = NULL;

		assert_int_equal(posix_memalign(&p, 64, LEN), 0);
		bufs[i] = p;
	}
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	for (int i = 0; i < CMP_MAX_LEGS; i++)
		free(bufs[i]);
	return 0;
}

static int run(const struct cmp_row_desc *row, size_t len, struct cmp_run *out, unsigned max)
{
	return cmp_row(row, (const void *const *)bufs, len, BLK, out, max);
}

static void check_run(const struct cmp_run *r, uint64_t off, uint64_t len, int wrong,
		      enum cmp_wrong_how how, int parity_only)
{
	assert_int_equal(r->offset, off);
	assert_int_equal(r->length, len);
	assert_int_equal(r->wrong, wrong);
	assert_int_equal(r->how, how);
	assert_int_equal(r->parity_only, parity_only);
}

static void test_mirror2(void **s)
{
	struct cmp_row_desc row = { .kind = CMP_MIRROR, .nr_legs = 2 };
	struct cmp_run out[8];

	(void)s;
	fill_random(bufs[0], LEN, 1);
	memcpy(bufs[1], bufs[0], LEN);
	assert_int_equal(run(&row, LEN, out, 8), 0);
	/* blocks 3 and 4 differ: one run, which copy is wrong cannot be known */
	bufs[1][3 * BLK + 17] ^= 1;
	bufs[1][4 * BLK + 4095] ^= 0x80;
	assert_int_equal(run(&row, LEN, out, 8), 1);
	check_run(&out[0], 3 * BLK, 2 * BLK, -1, CMP_WHO_UNKNOWN, 0);
	/* and block 9: a second run; the last block short of blk (len not a multiple) */
	bufs[0][9 * BLK] ^= 1;
	bufs[0][LEN - 200] ^= 1;
	assert_int_equal(run(&row, LEN - 100, out, 8), 3);
	check_run(&out[1], 9 * BLK, BLK, -1, CMP_WHO_UNKNOWN, 0);
	check_run(&out[2], 15 * BLK, BLK - 100, -1, CMP_WHO_UNKNOWN, 0);
	/* more runs than max: the first ones kept */
	assert_int_equal(run(&row, LEN, out, 2), -E2BIG);
	check_run(&out[0], 3 * BLK, 2 * BLK, -1, CMP_WHO_UNKNOWN, 0);
	check_run(&out[1], 9 * BLK, BLK, -1, CMP_WHO_UNKNOWN, 0);
}

static void test_mirror3(void **s)
{
	struct cmp_row_desc row = { .kind = CMP_MIRROR, .nr_legs = 3 };
	struct cmp_run out[8];

	(void)s;
	fill_random(bufs[0], LEN, 2);
	memcpy(bufs[1], bufs[0], LEN);
	memcpy(bufs[2], bufs[0], LEN);
	assert_int_equal(run(&row, LEN, out, 8), 0);
	/* copy 2 differs in blocks 5-6, copy 0 in block 7: the majority names each */
	bufs[2][5 * BLK + 1] ^= 1;
	bufs[2][6 * BLK + 1] ^= 1;
	bufs[0][7 * BLK + 2] ^= 1;
	assert_int_equal(run(&row, LEN, out, 8), 2);
	check_run(&out[0], 5 * BLK, 2 * BLK, 2, CMP_WHO_MAJORITY, 0);
	check_run(&out[1], 7 * BLK, BLK, 0, CMP_WHO_MAJORITY, 0);
	/* three different copies of block 7: no majority */
	bufs[2][7 * BLK + 3] ^= 1;
	assert_int_equal(run(&row, LEN, out, 8), 2);
	check_run(&out[0], 5 * BLK, 2 * BLK, 2, CMP_WHO_MAJORITY, 0);
	check_run(&out[1], 7 * BLK, BLK, -1, CMP_WHO_UNKNOWN, 0);
}

/* a RAID5 row: data legs 0..3, P leg 4 (built by xor_gen) */
static void test_xor(void **s)
{
	struct cmp_row_desc row = { .kind = CMP_XOR, .nr_legs = 5 };
	struct cmp_run out[8];

	(void)s;
	for (int i = 0; i < 4; i++) {
		fill_random(bufs[i], LEN, 10 + (unsigned)i);
		row.leg[i] = (struct cmp_leg){ CMP_DATA, i };
	}
	row.leg[4] = (struct cmp_leg){ CMP_P, 0 };
	assert_int_equal(xor_gen(5, LEN, (void **)bufs), 0);
	assert_int_equal(run(&row, LEN, out, 8), 0);
	assert_int_equal(run(&row, LEN - 1, out, 8), 0);	/* the plain loop */
	bufs[2][7 * BLK + 100] ^= 0x55;
	assert_int_equal(run(&row, LEN, out, 8), 1);
	check_run(&out[0], 7 * BLK, BLK, -1, CMP_WHO_UNKNOWN, 0);
	bufs[4][8 * BLK] ^= 1;					/* P too, the next block */
	assert_int_equal(run(&row, LEN - 1, out, 8), 1);
	check_run(&out[0], 7 * BLK, 2 * BLK, -1, CMP_WHO_UNKNOWN, 0);
	/* a row with no P */
	row.leg[4].role = CMP_DATA;
	assert_int_equal(run(&row, LEN, out, 8), -EINVAL);
}

/*
 * A RAID6 row in a shuffled leg order: leg 0 = D2, 1 = D0, 2 = P, 3 = D3, 4 = D1, 5 = Q,
 * with P and Q from pq_gen over D0..D3.
 */
static void pq_row(struct cmp_row_desc *row, unsigned seed)
{
	static const int idx[] = { 2, 0, -1, 3, 1, -2 };
	uint8_t *v[6];

	row->kind = CMP_PQ;
	row->nr_legs = 6;
	for (int l = 0; l < 6; l++) {
		if (idx[l] >= 0) {
			fill_random(bufs[l], LEN, seed + (unsigned)l);
			v[idx[l]] = bufs[l];
			row->leg[l] = (struct cmp_leg){ CMP_DATA, idx[l] };
		}
	}
	row->leg[2] = (struct cmp_leg){ CMP_P, 0 };
	row->leg[5] = (struct cmp_leg){ CMP_Q, 0 };
	v[4] = bufs[2];
	v[5] = bufs[5];
	assert_int_equal(pq_gen(6, LEN, (void **)v), 0);
}

static void test_pq(void **s)
{
	struct cmp_row_desc row;
	struct cmp_run out[8];

	(void)s;
	pq_row(&row, 100);
	assert_int_equal(run(&row, LEN, out, 8), 0);
	assert_int_equal(run(&row, LEN - 8, out, 8), 0);	/* the plain loop's Q agrees */
	/* D3 (leg 3) changed in block 2: the syndrome names it, on both paths */
	bufs[3][2 * BLK + 9] ^= 0x3c;
	bufs[3][2 * BLK + 900] ^= 0x01;
	assert_int_equal(run(&row, LEN, out, 8), 1);
	check_run(&out[0], 2 * BLK, BLK, 3, CMP_WHO_SYNDROME, 0);
	assert_int_equal(run(&row, LEN - 8, out, 8), 1);
	check_run(&out[0], 2 * BLK, BLK, 3, CMP_WHO_SYNDROME, 0);
	/* P alone in block 4, Q alone in block 5: parity only */
	bufs[2][4 * BLK + 7] ^= 0xff;
	bufs[5][5 * BLK + 7] ^= 0x10;
	assert_int_equal(run(&row, LEN, out, 8), 3);
	check_run(&out[1], 4 * BLK, BLK, 2, CMP_WHO_SYNDROME, 1);
	check_run(&out[2], 5 * BLK, BLK, 5, CMP_WHO_SYNDROME, 1);
	/* D0 (leg 1) in block 2 too: two bad legs, unknown */
	bufs[1][2 * BLK + 9] ^= 0x01;
	assert_int_equal(run(&row, LEN, out, 8), 3);
	check_run(&out[0], 2 * BLK, BLK, -1, CMP_WHO_UNKNOWN, 0);
	/* D1 (leg 4) in block 10 */
	bufs[4][10 * BLK + 4000] ^= 0x80;
	assert_int_equal(run(&row, LEN, out, 8), 4);
	check_run(&out[3], 10 * BLK, BLK, 4, CMP_WHO_SYNDROME, 0);
	/* not rows: no Q; a syndrome index used twice */
	row.leg[5].role = CMP_DATA;
	row.leg[5].index = 7;
	assert_int_equal(run(&row, LEN, out, 8), -EINVAL);
	row.leg[5] = (struct cmp_leg){ CMP_Q, 0 };
	row.leg[0].index = 0;
	assert_int_equal(run(&row, LEN, out, 8), -EINVAL);
}

/* DDF's syndrome indices count every disk: data at 0, 1, 3, 4 (2 stands for P, as zero) */
static void test_pq_ddf(void **s)
{
	static const int idx[] = { 0, 1, 3, 4 };
	struct cmp_row_desc row = { .kind = CMP_PQ, .nr_legs = 6 };
	uint8_t *v[7];
	struct cmp_run out[4];

	(void)s;
	for (int l = 0; l < 4; l++) {
		fill_random(bufs[l], LEN, 200 + (unsigned)l);
		row.leg[l] = (struct cmp_leg){ CMP_DATA, idx[l] };
		v[idx[l]] = bufs[l];
	}
	memset(bufs[6], 0, LEN);
	v[2] = bufs[6];
	v[5] = bufs[4];
	v[6] = bufs[5];
	row.leg[4] = (struct cmp_leg){ CMP_P, 0 };
	row.leg[5] = (struct cmp_leg){ CMP_Q, 0 };
	assert_int_equal(pq_gen(7, LEN, (void **)v), 0);
	assert_int_equal(run(&row, LEN, out, 4), 0);
	bufs[2][BLK + 5] ^= 0x42;			/* index 3 */
	assert_int_equal(run(&row, LEN, out, 4), 1);
	check_run(&out[0], BLK, BLK, 2, CMP_WHO_SYNDROME, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mirror2),
		cmocka_unit_test(test_mirror3),
		cmocka_unit_test(test_xor),
		cmocka_unit_test(test_pq),
		cmocka_unit_test(test_pq_ddf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
