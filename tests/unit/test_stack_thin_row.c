/*
 * tests/unit/test_stack_thin_row.c - stack/stack_thin_row.c's dm rows of a pool and its thin
 * volumes mapped through the model of metadata made by thin_restore: row params parsed and
 * refused, a volume's sectors down to the data device (mapped, holes, an external origin, a
 * row that does not start at 0), data device sectors up to every volume that holds them (a
 * shared block to the volume and its snapshot), the metadata device named as the pool's, and
 * a round trip over the large pool: every sampled sector down and back up to itself.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "stack_thin.h"
#include "thin_fixture.h"

#define DBS 128				/* the fixtures' data block size, sectors */
#define POOL "253:4"			/* the pool device the thin rows name */

static void load(struct fx_image *img, struct thin_model *m)
{
	char why[THIN_WHY];

	assert_int_equal(thin_model_load(fx_image_read, img, THIN_REWALKS, m, why, sizeof(why)),
			 0);
}

static void test_params(void **s)
{
	struct thin_pool_params p;
	struct thin_params t;
	uint64_t top, run;

	(void)s;
	/* as LVM writes a pool: features after the low water mark */
	assert_int_equal(thin_pool_row_parse("253:1 253:2 128 1024 1 skip_block_zeroing", &p), 0);
	assert_string_equal(p.meta_devt, "253:1");
	assert_string_equal(p.data_devt, "253:2");
	assert_int_equal(p.data_block_size, 128);
	assert_int_equal(p.low_water_mark, 1024);
	assert_int_equal(thin_pool_row_parse("253:1 253:2 128", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse("253:1 sdb 128 0", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse("253:1 253:2 0 0", &p), -EINVAL);
	/* a device is MAJ:MIN, digits only */
	assert_int_equal(thin_pool_row_parse("253: 253:2 128 0", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse("253:1x 253:2 128 0", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse(":1 253:2 128 0", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse("253:1:2 253:2 128 0", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse("12345678901:1 253:2 128 0", &p), -EINVAL);
	assert_int_equal(thin_pool_row_parse("4294967295:1048575 253:2 128 0", &p), 0);
	assert_int_equal(thin_row_parse("253:4 1", &t), 0);
	assert_string_equal(t.pool_devt, "253:4");
	assert_int_equal(t.dev_id, 1);
	assert_string_equal(t.origin_devt, "");
	assert_int_equal(thin_row_parse("253:4 7 8:16", &t), 0);
	assert_string_equal(t.origin_devt, "8:16");
	assert_int_equal(thin_row_parse("253:4", &t), -EINVAL);
	assert_int_equal(thin_row_parse("253:4 x", &t), -EINVAL);
	assert_int_equal(thin_row_parse("253:4 1 8:16 9", &t), -EINVAL);
	assert_int_equal(thin_row_parse("253:4 16777216", &t), -EINVAL);	/* 24-bit ids */
	/* the pool device is its data device, sector for sector; its metadata device is the
	 * pool's own */
	assert_int_equal(thin_pool_row_up(0, 1024 * DBS, "253:1 253:2 128 0", "253:2", 1000,
					  &top, &run), 1);
	assert_int_equal(top, 1000);
	assert_int_equal(run, 1024 * DBS - 1000);
	assert_int_equal(thin_pool_row_up(0, 1024 * DBS, "253:1 253:2 128 0", "253:1", 5, &top,
					  &run), 2);
	assert_int_equal(thin_pool_row_up(0, 1024 * DBS, "253:1 253:2 128 0", "8:0", 5, &top,
					  &run), 0);
	assert_int_equal(thin_pool_row_up(0, 1024 * DBS, "253:1 253:2 128 0", "253:2",
					  1024 * DBS, &top, &run), 0);
}

static void test_down(void **s)
{
	const uint64_t len = 1000 * DBS;
	struct thin_model m;
	uint64_t data, run;

	(void)s;
	fx_need_tools();
	load(&fx.a, &m);
	/* shared run: volume 1's blocks 0..15 on data 0..15 */
	assert_int_equal(thin_row_down(&m, 0, len, POOL " 1", 5 * DBS + 7, &data, &run), 1);
	assert_int_equal(data, 5 * DBS + 7);
	assert_int_equal(run, 11 * DBS - 7);
	/* virtual block 100 alone on data block 50 */
	assert_int_equal(thin_row_down(&m, 0, len, POOL " 1", 100 * DBS, &data, &run), 1);
	assert_int_equal(data, 50 * DBS);
	assert_int_equal(run, DBS);
	/* a hole up to virtual block 200; the last hole to the row's end */
	assert_int_equal(thin_row_down(&m, 0, len, POOL " 1", 101 * DBS + 3, &data, &run), 0);
	assert_int_equal(run, 99 * DBS - 3);
	assert_int_equal(thin_row_down(&m, 0, len, POOL " 1", 203 * DBS, &data, &run), 0);
	assert_int_equal(run, len - 203 * DBS);
	/* a hole of a volume with an external origin: read there, same offset */
	assert_int_equal(thin_row_down(&m, 0, len, POOL " 1 7:0", 101 * DBS + 3, &data, &run), 2);
	assert_int_equal(data, 101 * DBS + 3);
	/* a run is clipped at the row's end */
	assert_int_equal(thin_row_down(&m, 0, 201 * DBS, POOL " 1", 200 * DBS, &data, &run), 1);
	assert_int_equal(data, 60 * DBS);
	assert_int_equal(run, DBS);
	/* a row starting at sector 1000: the offset in the row makes the virtual block */
	assert_int_equal(thin_row_down(&m, 1000, len, POOL " 2", 1000 + 100 * DBS + 1, &data,
				       &run), 1);
	assert_int_equal(data, 51 * DBS + 1);
	assert_int_equal(thin_row_down(&m, 1000, len, POOL " 2", 999, &data, &run), -ERANGE);
	assert_int_equal(thin_row_down(&m, 0, len, POOL " 9", 0, &data, &run), -ENOENT);
	assert_int_equal(thin_row_down(&m, 0, len, "bad", 0, &data, &run), -EINVAL);
	thin_model_free(&m);
}

static void test_up(void **s)
{
	const uint64_t len = 1000 * DBS;
	struct thin_model m;
	uint64_t top, run;

	(void)s;
	fx_need_tools();
	load(&fx.a, &m);
	/* a block shared by the volume and its snapshot: each row answers */
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 1", POOL, 5 * DBS + 1, &top, &run), 1);
	assert_int_equal(top, 5 * DBS + 1);
	assert_int_equal(run, 11 * DBS - 1);
	assert_int_equal(thin_row_up(&m, 1000, len, POOL " 2", POOL, 5 * DBS + 1, &top, &run), 1);
	assert_int_equal(top, 1000 + 5 * DBS + 1);
	/* each its own copy of virtual block 100 */
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 1", POOL, 50 * DBS, &top, &run), 1);
	assert_int_equal(top, 100 * DBS);
	assert_int_equal(run, DBS);
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 2", POOL, 50 * DBS, &top, &run), 0);
	assert_int_equal(run, DBS);		/* not mapped up to its own block 51 */
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 2", POOL, 51 * DBS + 9, &top, &run), 1);
	assert_int_equal(top, 100 * DBS + 9);
	/* unprovisioned, another pool, a mapping past the row's end; each with how far it
	 * stays so (to the next block the device maps, all, the end of that run) */
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 1", POOL, 20 * DBS, &top, &run), 0);
	assert_int_equal(run, 30 * DBS);
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 1", POOL, 20 * DBS + 7, &top, &run), 0);
	assert_int_equal(run, 30 * DBS - 7);
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 1", POOL, 63 * DBS, &top, &run), 0);
	assert_int_equal(run, UINT64_MAX);
	assert_int_equal(thin_row_up(&m, 0, len, POOL " 1", "253:9", 5 * DBS, &top, &run), 0);
	assert_int_equal(run, UINT64_MAX);
	assert_int_equal(thin_row_up(&m, 0, 150 * DBS, POOL " 1", POOL, 60 * DBS, &top, &run), 0);
	assert_int_equal(run, 3 * DBS);
	thin_model_free(&m);
}

/* Every 7th virtual block of each large-pool device, at an offset inside it, down and back up
 * to the same sector; holes give no data sector. */
static void test_round_trip(void **s)
{
	const uint64_t len = 30000ull * DBS;
	struct thin_model m;
	unsigned mapped = 0, holes = 0;

	(void)s;
	fx_need_tools();
	load(&fx.large, &m);
	for (uint32_t dev = 1; dev <= 5; dev++) {
		char params[32];

		snprintf(params, sizeof(params), POOL " %u", dev);
		for (uint64_t v = 0; v < 30000; v += 7) {
			uint64_t x = v * DBS + v % DBS, data, run, top, run2;
			int r = thin_row_down(&m, 0, len, params, x, &data, &run);

			assert_true(r == 0 || r == 1);
			if (r == 0) {
				holes++;
				continue;
			}
			mapped++;
			assert_int_equal(thin_row_up(&m, 0, len, params, POOL, data, &top, &run2),
					 1);
			assert_int_equal(top, x);
			assert_int_equal(run2, run);
		}
	}
	assert_true(mapped > 5000);
	assert_true(holes > 1000);
	thin_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_up),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
