/*
 * tests/unit/test_merger.c - mapping/plan/plan.c's merger: a device-ordered stream of extents
 * becomes merged, aligned ranges with the bridged gaps recorded; and the planned-bytes
 * arithmetic over gaps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "plan.h"
#include "scan.h"

#define KiB 1024ull

/* Feed extents into a merger; collect every completed range (flush included). */
struct ext {
	uint32_t dev;
	uint64_t off, len;
	uint32_t tags;
};

static unsigned run(uint64_t gap, uint32_t align, const struct ext *e, unsigned n,
		    struct map_range *out, unsigned max, uint64_t *planned)
{
	struct map_merger m;
	unsigned got = 0;

	assert_int_equal(map_merger_init(&m, gap, align), 0);
	for (unsigned i = 0; i < n; i++) {
		struct map_range r;
		int ret;

		memset(&r, 0xee, sizeof(r));
		ret = map_merger_add(&m, e[i].dev, e[i].off, e[i].len, e[i].tags, &r);

		assert_true(ret == 0 || ret == 1);
		if (ret == 1) {
			assert_true(got < max);
			out[got++] = r;
		}
	}
	if (map_merger_flush(&m, &out[got]) == 1)
		got++;
	/* A second flush has nothing left. */
	assert_int_equal(map_merger_flush(&m, &out[got]), 0);
	if (planned)
		*planned = m.planned_bytes;
	return got;
}

static void range_is(const struct map_range *r, uint32_t dev, uint64_t off, uint64_t len,
		      uint32_t tags, uint32_t nr_gaps)
{
	assert_int_equal(r->dev_idx, dev);
	assert_int_equal(r->offset, off);
	assert_int_equal(r->length, len);
	assert_int_equal(r->tags, tags);
	assert_int_equal(r->nr_gaps, nr_gaps);
}

static void test_init(void **state)
{
	struct map_merger m;
	struct map_range r;

	(void)state;
	memset(&m, 0xff, sizeof(m));
	assert_int_equal(map_merger_init(&m, 4096, 0), 0);
	assert_int_equal(m.align, 512);		/* 0 means 512 */
	assert_int_equal(m.merge_gap, 4096);
	assert_int_equal(m.have, 0);
	assert_int_equal(m.planned_bytes, 0);
	assert_int_equal(map_merger_flush(&m, &r), 0);	/* nothing pending */
	/* Zero-length extents are ignored. */
	assert_int_equal(map_merger_add(&m, 0, 4096, 0, MAP_TAG_DATA, &r), 0);
	assert_int_equal(map_merger_flush(&m, &r), 0);
}

static void test_adjacent_merge(void **state)
{
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 0, 4 * KiB, 8 * KiB, MAP_TAG_DATA },
		{ 0, 12 * KiB, 4 * KiB, MAP_TAG_DATA },
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(0, 512, e, 3, out, 4, &planned), 1);
	range_is(&out[0], 0, 0, 16 * KiB, MAP_TAG_DATA, 0);
	assert_int_equal(planned, 16 * KiB);
}

static void test_overlap_merge(void **state)
{
	/* Reflinked extents overlap: [0,8K) and [4K,12K) of two files; then one inside. */
	const struct ext e[] = {
		{ 0, 0, 8 * KiB, MAP_TAG_DATA },
		{ 0, 4 * KiB, 8 * KiB, MAP_TAG_DATA },
		{ 0, 6 * KiB, 2 * KiB, MAP_TAG_DATA },		/* wholly inside: no shrink */
		{ 0, 12 * KiB, 4 * KiB, MAP_TAG_METADATA },
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(0, 512, e, 4, out, 4, &planned), 1);
	range_is(&out[0], 0, 0, 16 * KiB, MAP_TAG_DATA | MAP_TAG_METADATA, 0);
	assert_int_equal(planned, 16 * KiB);
}

static void test_gap_bridged(void **state)
{
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 0, 8 * KiB, 4 * KiB, MAP_TAG_METADATA },	/* gap 4K == merge_gap */
		{ 0, 13 * KiB, 1 * KiB, MAP_TAG_LOG },		/* gap 1K */
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(4 * KiB, 512, e, 3, out, 4, &planned), 1);
	range_is(&out[0], 0, 0, 14 * KiB, MAP_TAG_DATA | MAP_TAG_METADATA | MAP_TAG_LOG, 2);
	assert_int_equal(out[0].gaps[0].offset, 4 * KiB);
	assert_int_equal(out[0].gaps[0].length, 4 * KiB);
	assert_int_equal(out[0].gaps[1].offset, 12 * KiB);
	assert_int_equal(out[0].gaps[1].length, 1 * KiB);
	assert_int_equal(planned, 9 * KiB);
	assert_int_equal(map_range_planned_bytes(&out[0]), 9 * KiB);
}

static void test_gap_too_big_splits(void **state)
{
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 0, 8 * KiB + 512, 4 * KiB, MAP_TAG_METADATA },	/* gap 4.5K > 4K */
		{ 0, 100 * KiB, 4 * KiB, MAP_TAG_DATA },
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(4 * KiB, 512, e, 3, out, 4, &planned), 3);
	range_is(&out[0], 0, 0, 4 * KiB, MAP_TAG_DATA, 0);
	range_is(&out[1], 0, 8 * KiB + 512, 4 * KiB, MAP_TAG_METADATA, 0);
	range_is(&out[2], 0, 100 * KiB, 4 * KiB, MAP_TAG_DATA, 0);
	assert_int_equal(planned, 12 * KiB);
}

static void test_zero_gap_splits(void **state)
{
	/* merge_gap 0 (SSD): one sector apart is already two reads. */
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 0, 4 * KiB + 512, 4 * KiB, MAP_TAG_DATA },
	};
	struct map_range out[4];

	(void)state;
	assert_int_equal(run(0, 512, e, 2, out, 4, NULL), 2);
	range_is(&out[0], 0, 0, 4 * KiB, MAP_TAG_DATA, 0);
	range_is(&out[1], 0, 4 * KiB + 512, 4 * KiB, MAP_TAG_DATA, 0);
}

static void test_max_gaps_splits(void **state)
{
	/* 10 extents of 4K, 4K apart: 8 gaps fit one range, the 9th gap starts another. */
	struct ext e[10];
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	for (unsigned i = 0; i < 10; i++)
		e[i] = (struct ext){ 0, i * 8 * KiB, 4 * KiB, MAP_TAG_DATA };
	assert_int_equal(run(64 * KiB, 512, e, 10, out, 4, &planned), 2);
	range_is(&out[0], 0, 0, 8 * 8 * KiB + 4 * KiB, MAP_TAG_DATA, MAP_MAX_GAPS);
	for (unsigned i = 0; i < MAP_MAX_GAPS; i++) {
		assert_int_equal(out[0].gaps[i].offset, i * 8 * KiB + 4 * KiB);
		assert_int_equal(out[0].gaps[i].length, 4 * KiB);
	}
	range_is(&out[1], 0, 9 * 8 * KiB, 4 * KiB, MAP_TAG_DATA, 0);
	assert_int_equal(planned, 40 * KiB);
}

static void test_align_512(void **state)
{
	/* [1000, 1100) becomes [512, 1536); [5000, 5001) becomes [4608, 5120). */
	const struct ext e[] = {
		{ 0, 1000, 100, MAP_TAG_DATA },
		{ 0, 5000, 1, MAP_TAG_DATA },
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(0, 512, e, 2, out, 4, &planned), 2);
	range_is(&out[0], 0, 512, 1024, MAP_TAG_DATA, 0);
	range_is(&out[1], 0, 4608, 512, MAP_TAG_DATA, 0);
	assert_int_equal(planned, 1536);
}

static void test_align_4096(void **state)
{
	/* 4K logical blocks: [5000, 5100) -> [4096, 8192); [9000, 13000) -> [8192, 16384)
	 * touches it and merges; [20480, 20481) -> [20480, 24576) after a 4K gap. */
	const struct ext e[] = {
		{ 0, 5000, 100, MAP_TAG_DATA },
		{ 0, 9000, 4000, MAP_TAG_METADATA },
		{ 0, 20480, 1, MAP_TAG_DATA },
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(0, 4096, e, 3, out, 4, &planned), 2);
	range_is(&out[0], 0, 4096, 12288, MAP_TAG_DATA | MAP_TAG_METADATA, 0);
	range_is(&out[1], 0, 20480, 4096, MAP_TAG_DATA, 0);
	assert_int_equal(planned, 16384);

	/* With a 4K merge gap the aligned gap [16384, 20480) is bridged. */
	assert_int_equal(run(4096, 4096, e, 3, out, 4, &planned), 1);
	range_is(&out[0], 0, 4096, 20480, MAP_TAG_DATA | MAP_TAG_METADATA, 1);
	assert_int_equal(out[0].gaps[0].offset, 16384);
	assert_int_equal(out[0].gaps[0].length, 4096);
	assert_int_equal(planned, 16384);
}

static void test_dev_idx_never_merge(void **state)
{
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 1, 4 * KiB, 4 * KiB, MAP_TAG_LOG },		/* adjacent offsets, other device */
		{ 1, 8 * KiB, 4 * KiB, MAP_TAG_LOG },
		{ 2, 0, 4 * KiB, MAP_TAG_DATA },		/* overlapping offsets */
	};
	struct map_range out[4];
	uint64_t planned;

	(void)state;
	assert_int_equal(run(1 << 20, 512, e, 4, out, 4, &planned), 3);
	range_is(&out[0], 0, 0, 4 * KiB, MAP_TAG_DATA, 0);
	range_is(&out[1], 1, 4 * KiB, 8 * KiB, MAP_TAG_LOG, 0);
	range_is(&out[2], 2, 0, 4 * KiB, MAP_TAG_DATA, 0);
	assert_int_equal(planned, 16 * KiB);
}

static void test_tags_or(void **state)
{
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 0, 4 * KiB, 4 * KiB, MAP_TAG_METADATA },
		{ 0, 16 * KiB, 4 * KiB, MAP_TAG_LOG },		/* bridged */
		{ 0, 1 << 20, 4 * KiB, MAP_TAG_DATA },		/* split: fresh tags */
	};
	struct map_range out[4];

	(void)state;
	assert_int_equal(run(8 * KiB, 512, e, 4, out, 4, NULL), 2);
	assert_int_equal(out[0].tags, MAP_TAG_DATA | MAP_TAG_METADATA | MAP_TAG_LOG);
	assert_int_equal(out[1].tags, MAP_TAG_DATA);
}

static void test_emitted_range_is_clean(void **state)
{
	/* The range after a split starts with no gaps left over from the previous one. */
	const struct ext e[] = {
		{ 0, 0, 4 * KiB, MAP_TAG_DATA },
		{ 0, 8 * KiB, 4 * KiB, MAP_TAG_DATA },
		{ 0, 1 << 20, 4 * KiB, MAP_TAG_DATA },
		{ 0, (1 << 20) + 4 * KiB, 4 * KiB, MAP_TAG_DATA },
	};
	struct map_range out[4];

	(void)state;
	assert_int_equal(run(4 * KiB, 512, e, 4, out, 4, NULL), 2);
	range_is(&out[0], 0, 0, 12 * KiB, MAP_TAG_DATA, 1);
	range_is(&out[1], 0, 1 << 20, 8 * KiB, MAP_TAG_DATA, 0);
}

/*
 * The planned bytes of part of r as the scan counts them: the range handed over as the pass
 * does (pass/plan.c), to the one home of that arithmetic (mediascan/range.c).
 */
static uint64_t planned_part(const struct map_range *r, uint64_t offset, uint64_t length)
{
	struct scan_range sr;

	memset(&sr, 0, sizeof(sr));
	sr.offset = r->offset;
	sr.length = r->length;
	sr.dev_idx = r->dev_idx;
	sr.nr_gaps = r->nr_gaps;
	for (uint32_t g = 0; g < r->nr_gaps; g++) {
		sr.gaps[g].offset = r->gaps[g].offset;
		sr.gaps[g].length = r->gaps[g].length;
	}
	if (offset == r->offset && length == r->length)
		assert_int_equal(map_range_planned_bytes(r), scan_range_planned_bytes(&sr, offset,
										     length));
	return scan_range_planned_bytes(&sr, offset, length);
}

static void test_planned_bytes(void **state)
{
	struct map_range r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.offset = 0;
	r.length = 100 * KiB;
	r.nr_gaps = 2;
	r.gaps[0] = (struct map_gap){ 10 * KiB, 2 * KiB };
	r.gaps[1] = (struct map_gap){ 50 * KiB, 10 * KiB };
	assert_int_equal(planned_part(&r, 0, 100 * KiB), 88 * KiB);
	assert_int_equal(planned_part(&r, 0, 10 * KiB), 10 * KiB);
	assert_int_equal(planned_part(&r, 10 * KiB, 2 * KiB), 0);	/* all gap */
	assert_int_equal(planned_part(&r, 11 * KiB, 512), 0);
	assert_int_equal(planned_part(&r, 9 * KiB, 4 * KiB), 2 * KiB);
	assert_int_equal(planned_part(&r, 11 * KiB, 44 * KiB), 38 * KiB);
	assert_int_equal(planned_part(&r, 55 * KiB, 10 * KiB), 5 * KiB);
	/* Clipped to the range. */
	assert_int_equal(planned_part(&r, 90 * KiB, 100 * KiB), 10 * KiB);
	assert_int_equal(planned_part(&r, 100 * KiB, 4 * KiB), 0);
	assert_int_equal(planned_part(&r, 200 * KiB, 4 * KiB), 0);
	assert_int_equal(planned_part(&r, 0, 0), 0);

	/* Gaps at both edges of the range (a hand-made range; the merger never does this). */
	r.offset = 64 * KiB;
	r.length = 16 * KiB;
	r.nr_gaps = 2;
	r.gaps[0] = (struct map_gap){ 64 * KiB, 1 * KiB };
	r.gaps[1] = (struct map_gap){ 78 * KiB, 2 * KiB };
	assert_int_equal(planned_part(&r, 0, 1 << 20), 13 * KiB);
	assert_int_equal(map_range_planned_bytes(&r), 13 * KiB);
	assert_int_equal(planned_part(&r, 64 * KiB, 1 * KiB), 0);
	assert_int_equal(planned_part(&r, 64 * KiB, 2 * KiB), 1 * KiB);
	assert_int_equal(planned_part(&r, 60 * KiB, 6 * KiB), 1 * KiB);
	assert_int_equal(planned_part(&r, 77 * KiB, 10 * KiB), 1 * KiB);
	assert_int_equal(planned_part(&r, 78 * KiB, 2 * KiB), 0);

	/* No gaps. */
	r.nr_gaps = 0;
	assert_int_equal(planned_part(&r, 0, 1 << 20), 16 * KiB);
	assert_int_equal(map_range_planned_bytes(&r), 16 * KiB);
	assert_int_equal(planned_part(&r, 70 * KiB, 1 * KiB), 1 * KiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_adjacent_merge),
		cmocka_unit_test(test_overlap_merge),
		cmocka_unit_test(test_gap_bridged),
		cmocka_unit_test(test_gap_too_big_splits),
		cmocka_unit_test(test_zero_gap_splits),
		cmocka_unit_test(test_max_gaps_splits),
		cmocka_unit_test(test_align_512),
		cmocka_unit_test(test_align_4096),
		cmocka_unit_test(test_dev_idx_never_merge),
		cmocka_unit_test(test_tags_or),
		cmocka_unit_test(test_emitted_range_is_clean),
		cmocka_unit_test(test_planned_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
