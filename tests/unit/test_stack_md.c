/*
 * tests/unit/test_stack_md.c - stack/stack_md.c's md RAID arithmetic against numbers worked
 * out by hand from the kernel's formulas (raid5_compute_sector, __raid10_find_phys,
 * raid10_find_virt, calc_sectors, raid0's one-zone map, md-linear), then a round trip: every
 * array chunk of every level and layout mapped down, each copy mapped back up to the same
 * sector, and parity never landing on a data member of its own stripe.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stack_md.h"

static struct map_md_geo geo(int level, unsigned disks, uint64_t chunk, uint32_t layout,
			     uint64_t dev_sectors)
{
	struct map_md_geo g;

	memset(&g, 0, sizeof(g));
	g.level = level;
	g.raid_disks = disks;
	g.chunk_sectors = chunk;
	g.layout = layout;
	g.dev_sectors = dev_sectors;
	for (unsigned i = 0; i < disks; i++)
		g.member_sectors[i] = dev_sectors;
	return g;
}

static void test_raid5_left_symmetric(void **s)
{
	/* 3 disks, 64 KiB chunks: D0 D1 P / D3 P D2 / P D4 D5 */
	struct map_md_geo g = geo(5, 3, 128, MAP_R5_LEFT_SYMMETRIC, 1 << 20);
	struct map_md_loc l[8];
	enum map_md_role role;
	uint64_t done, a, run;
	int n;

	(void)s;
	n = map_md_down(&g, 300, 100, l, 8, &done);	/* chunk 2, offset 44 */
	assert_int_equal(n, 2);
	assert_int_equal(done, 84);
	assert_int_equal(l[0].slot, 2);
	assert_int_equal(l[0].sector, 172);
	assert_int_equal(l[0].role, MAP_MD_DATA);
	assert_int_equal(l[1].slot, 1);
	assert_int_equal(l[1].sector, 172);
	assert_int_equal(l[1].role, MAP_MD_PARITY);
	/* chunk 4 (stripe 2) on disk 1, parity on disk 0 */
	n = map_md_down(&g, 4 * 128, 1, l, 8, &done);
	assert_int_equal(n, 2);
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[0].sector, 256);
	assert_int_equal(l[1].slot, 0);
	/* up: disk 0 sector 200 = stripe 1 offset 72 = chunk 3 */
	assert_int_equal(map_md_up(&g, 0, 200, &a, &role, &run), 0);
	assert_int_equal(a, 3 * 128 + 72);
	assert_int_equal(role, MAP_MD_DATA);
	assert_int_equal(run, 56);
	/* up: disk 1 sector 130 is stripe 1's parity; its first data chunk is chunk 2 */
	assert_int_equal(map_md_up(&g, 1, 130, &a, &role, &run), 0);
	assert_int_equal(role, MAP_MD_PARITY);
	assert_int_equal(a, 2 * 128 + 2);
	/* past the used area */
	assert_int_equal(map_md_up(&g, 1, 1 << 20, &a, &role, &run), -ERANGE);
	assert_int_equal(map_md_array_sectors(&g), 2u << 20);
}

static void test_raid5_left_asymmetric_and_raid4(void **s)
{
	/* left-asymmetric, 4 disks: D0 D1 D2 P / D3 D4 P D5 / D6 P D7 D8 */
	struct map_md_geo g = geo(5, 4, 8, MAP_R5_LEFT_ASYMMETRIC, 4096);
	struct map_md_loc l[8];
	uint64_t done;

	(void)s;
	assert_int_equal(map_md_down(&g, 5 * 8, 8, l, 8, &done), 2);	/* D5 */
	assert_int_equal(l[0].slot, 3);
	assert_int_equal(l[0].sector, 8);
	assert_int_equal(l[1].slot, 2);
	assert_int_equal(map_md_down(&g, 6 * 8, 8, l, 8, &done), 2);	/* D6 */
	assert_int_equal(l[0].slot, 0);
	assert_int_equal(l[0].sector, 16);
	assert_int_equal(l[1].slot, 1);
	/* raid4: parity always on the last disk */
	g = geo(4, 4, 8, 0, 4096);
	assert_int_equal(map_md_down(&g, 7 * 8 + 3, 1, l, 8, &done), 2);	/* chunk 7 */
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[0].sector, 2 * 8 + 3);
	assert_int_equal(l[1].slot, 3);
	assert_int_equal(l[1].role, MAP_MD_PARITY);
}

static void test_raid6_left_symmetric(void **s)
{
	/* 4 disks: stripe 0 is Q D0 D1 P, stripe 1 is D2 D3 P Q */
	struct map_md_geo g = geo(6, 4, 128, MAP_R5_LEFT_SYMMETRIC, 1 << 16);
	struct map_md_loc l[8];
	uint64_t done;

	(void)s;
	assert_int_equal(map_md_down(&g, 0, 1, l, 8, &done), 3);
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[1].slot, 3);
	assert_int_equal(l[1].role, MAP_MD_PARITY);
	assert_int_equal(l[2].slot, 0);
	assert_int_equal(l[2].role, MAP_MD_SYNDROME);
	assert_int_equal(map_md_down(&g, 3 * 128, 1, l, 8, &done), 3);	/* D3 */
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[0].sector, 128);
	assert_int_equal(l[1].slot, 2);
	assert_int_equal(l[2].slot, 3);
}

static void test_raid10(void **s)
{
	struct map_md_geo g = geo(10, 3, 128, 0x102, 1 << 16);	/* near 2, 3 disks */
	struct map_md_loc l[8];
	enum map_md_role role;
	uint64_t done, a, run;

	(void)s;
	assert_int_equal(map_md_down(&g, 128 + 5, 1, l, 8, &done), 2);	/* chunk 1 */
	assert_int_equal(l[0].slot, 2);
	assert_int_equal(l[0].sector, 5);
	assert_int_equal(l[1].slot, 0);
	assert_int_equal(l[1].sector, 128 + 5);
	assert_int_equal(map_md_up(&g, 0, 128 + 5, &a, &role, &run), 0);
	assert_int_equal(a, 128 + 5);
	/* far 2 on 2 disks of 2048 sectors: stride 1024 */
	g = geo(10, 2, 128, 0x201, 2048);
	assert_int_equal(map_md_array_sectors(&g), 2048);
	assert_int_equal(map_md_down(&g, 3 * 128 + 5, 1, l, 8, &done), 2);	/* chunk 3 */
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[0].sector, 128 + 5);
	assert_int_equal(l[1].slot, 0);
	assert_int_equal(l[1].sector, 1024 + 128 + 5);
	assert_int_equal(map_md_up(&g, 0, 1152 + 5, &a, &role, &run), 0);
	assert_int_equal(a, 3 * 128 + 5);
	/* offset 2 on 2 disks: chunk 2 on disk 0 at 256, its copy on disk 1 at 384 */
	g = geo(10, 2, 128, 0x10201, 2048);
	assert_int_equal(map_md_down(&g, 2 * 128, 1, l, 8, &done), 2);
	assert_int_equal(l[0].slot, 0);
	assert_int_equal(l[0].sector, 256);
	assert_int_equal(l[1].slot, 1);
	assert_int_equal(l[1].sector, 384);
	assert_int_equal(map_md_up(&g, 1, 384 + 7, &a, &role, &run), 0);
	assert_int_equal(a, 2 * 128 + 7);
}

static void test_raid0_raid1_linear(void **s)
{
	struct map_md_geo g = geo(0, 3, 128, 0, 4096);
	struct map_md_loc l[8];
	enum map_md_role role;
	uint64_t done, a, run;

	(void)s;
	assert_int_equal(map_md_down(&g, 1000, 100, l, 8, &done), 1);
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[0].sector, 360);
	assert_int_equal(done, 24);
	assert_int_equal(map_md_up(&g, 1, 360, &a, &role, &run), 0);
	assert_int_equal(a, 1000);
	g.member_sectors[2] = 8192;
	assert_int_equal(map_md_down(&g, 0, 1, l, 8, &done), -EOPNOTSUPP);
	g = geo(1, 2, 0, 0, 4096);
	assert_int_equal(map_md_down(&g, 77, 3, l, 8, &done), 2);
	assert_int_equal(l[1].slot, 1);
	assert_int_equal(l[1].sector, 77);
	assert_int_equal(l[1].role, MAP_MD_MIRROR);
	g = geo(-1, 2, 0, 0, 0);
	g.member_sectors[0] = 1000;
	g.member_sectors[1] = 2000;
	assert_int_equal(map_md_down(&g, 1500, 10, l, 8, &done), 1);
	assert_int_equal(l[0].slot, 1);
	assert_int_equal(l[0].sector, 500);
	assert_int_equal(map_md_up(&g, 1, 500, &a, &role, &run), 0);
	assert_int_equal(a, 1500);
}

/* Every chunk down, every copy back up to the same array sector. */
static void round_trip(struct map_md_geo *g)
{
	uint64_t size = map_md_array_sectors(g), done;
	struct map_md_loc l[16];

	assert_true(size > 0);
	for (uint64_t s = 3; s < size; s += g->chunk_sectors ? g->chunk_sectors : 97) {
		int n = map_md_down(g, s, 1, l, 16, &done);

		assert_true(n > 0);
		for (int i = 0; i < n; i++) {
			enum map_md_role role;
			uint64_t a, run;

			assert_int_equal(map_md_up(g, l[i].slot, l[i].sector, &a, &role, &run), 0);
			if (l[i].role == MAP_MD_PARITY || l[i].role == MAP_MD_SYNDROME) {
				assert_int_equal(role, l[i].role);
				for (int j = 0; j < n; j++)
					if (j != i)
						assert_int_not_equal(l[j].slot, l[i].slot);
			} else {
				assert_int_equal(a, s);
			}
		}
	}
}

static void test_round_trips(void **s)
{
	static const uint32_t r5[] = { 0, 1, 2, 3, 4, 5 };
	static const uint32_t r6[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18, 19, 20 };
	static const uint32_t r10[] = { 0x102, 0x201, 0x10201, 0x202, 0x103, 0x301, 0x20201,
					0x40201 };
	struct map_md_geo g;

	(void)s;
	for (unsigned d = 3; d <= 7; d++)
		for (size_t i = 0; i < sizeof(r5) / sizeof(r5[0]); i++) {
			g = geo(5, d, 16, r5[i], 16 * 40);
			round_trip(&g);
		}
	for (unsigned d = 4; d <= 8; d++)
		for (size_t i = 0; i < sizeof(r6) / sizeof(r6[0]); i++) {
			g = geo(6, d, 16, r6[i], 16 * 40);
			round_trip(&g);
		}
	for (unsigned d = 3; d <= 8; d++)
		for (size_t i = 0; i < sizeof(r10) / sizeof(r10[0]); i++) {
			g = geo(10, d, 16, r10[i], 16 * 40);
			if ((r10[i] & 0xff) * ((r10[i] >> 8) & 0xff) > d)
				continue;
			round_trip(&g);
		}
	g = geo(0, 4, 16, 0, 16 * 40);
	round_trip(&g);
	g = geo(1, 3, 0, 0, 1000);
	round_trip(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raid5_left_symmetric),
		cmocka_unit_test(test_raid5_left_asymmetric_and_raid4),
		cmocka_unit_test(test_raid6_left_symmetric),
		cmocka_unit_test(test_raid10),
		cmocka_unit_test(test_raid0_raid1_linear),
		cmocka_unit_test(test_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
