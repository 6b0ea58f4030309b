/*
 * tests/unit/fake_fsmap.c - a fake filesystem's reverse map for the unit tests of mapping/
 * (test_plan, test_owners): __wrap_kio_getfsmap answers from the records added with
 * mock_add/mock_special the way FS_IOC_GETFSMAP and kio_getfsmap do (query keys,
 * continuation after the last record, FMR_OF_LAST, the low key advanced).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fake_fsmap.h"

struct fake_fsmap mk;

void mock_reset(void)
{
	memset(&mk, 0, sizeof(mk));
}

void mock_add(uint32_t dev, uint64_t phys, uint64_t len, uint64_t owner, uint64_t off,
	      uint32_t flags)
{
	struct fsmap *r;

	assert_true(mk.nr < MOCK_MAX_RECS);
	r = &mk.recs[mk.nr++];
	memset(r, 0, sizeof(*r));
	r->fmr_device = dev;
	r->fmr_physical = phys;
	r->fmr_length = len;
	r->fmr_owner = owner;
	r->fmr_offset = off;
	r->fmr_flags = flags;
}

void mock_special(uint32_t dev, uint64_t phys, uint64_t len, uint64_t owner)
{
	mock_add(dev, phys, len, owner, 0, FMR_OF_SPECIAL_OWNER);
}

/* Return <0, 0, >0 comparing (physical, owner, offset) of a and b. */
static int key_cmp(const struct fsmap *a, const struct fsmap *b)
{
	if (a->fmr_physical != b->fmr_physical)
		return a->fmr_physical < b->fmr_physical ? -1 : 1;
	if (a->fmr_owner != b->fmr_owner)
		return a->fmr_owner < b->fmr_owner ? -1 : 1;
	if (a->fmr_offset != b->fmr_offset)
		return a->fmr_offset < b->fmr_offset ? -1 : 1;
	return 0;
}

/* Does record r fall in the query [lo, hi]? A zero-length low key returns overlaps. */
static int in_query(const struct fsmap *r, const struct fsmap *lo, const struct fsmap *hi)
{
	if (r->fmr_device < lo->fmr_device || r->fmr_device > hi->fmr_device)
		return 0;
	if (r->fmr_device == lo->fmr_device) {
		if (lo->fmr_length == 0) {
			if (!mk.sloppy_low && r->fmr_physical + r->fmr_length <= lo->fmr_physical)
				return 0;
		} else if (key_cmp(r, lo) <= 0) {
			return 0;		/* continuation: strictly after the last record */
		}
	}
	if (r->fmr_device == hi->fmr_device && r->fmr_physical > hi->fmr_physical)
		return 0;
	return 1;
}

int __wrap_kio_getfsmap(int fd, struct fsmap_head *head)
{
	const struct fsmap lo = head->fmh_keys[0], hi = head->fmh_keys[1];
	unsigned cap = head->fmh_count, n = 0, i;
	int more = 0;

	assert_int_equal(fd, MOCK_FD);
	assert_true(head->fmh_count > 0);
	if (head->fmh_count > mk.max_count)
		mk.max_count = head->fmh_count;
	if (lo.fmr_length == 0)
		memcpy(mk.first_keys, head->fmh_keys, sizeof(mk.first_keys));
	mk.calls++;
	if (mk.fail)
		return mk.fail;
	if (mk.per_call && mk.per_call < cap)
		cap = mk.per_call;
	for (i = 0; i < mk.nr; i++) {
		if (!in_query(&mk.recs[i], &lo, &hi))
			continue;
		if (mk.bad_err && mk.recs[i].fmr_physical >= mk.bad_start &&
		    mk.recs[i].fmr_physical < mk.bad_end)
			return mk.bad_err;
		if (n == cap) {
			more = 1;
			break;
		}
		head->fmh_recs[n++] = mk.recs[i];
	}
	head->fmh_entries = n;
	head->fmh_oflags = 0;
	if (n == 0)
		return 0;
	if (!more && !mk.never_last)
		head->fmh_recs[n - 1].fmr_flags |= FMR_OF_LAST;
	head->fmh_keys[0] = head->fmh_recs[n - 1];	/* as kio_getfsmap does */
	return (int)n;
}
