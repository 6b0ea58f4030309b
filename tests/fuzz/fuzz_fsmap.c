/*
 * tests/fuzz/fuzz_fsmap.c - GETFSMAP record streams (a corrupted filesystem answers with odd
 * records: overlapping, past the device end, lengths that overflow, any owner and flags) fed
 * to the streaming planner (mapping/plan/plan.c) and the record helpers (mapping/plan/fsmap.c), through
 * a fake kio_getfsmap (linked with --wrap=kio_getfsmap). The records are sorted as the kernel
 * sorts them; the plan must stay inside the device, ordered and without overlaps.
 */
#include <stdio.h>
#include <sys/sysmacros.h>

#include "fs.h"
#include "fsmap.h"
#include "fuzz.h"
#include "plan.h"
#include "target.h"

#define FAKE_FD 1000
#define MAX_RECS 512

static struct fsmap recs[MAX_RECS];
static unsigned nr_recs, per_call;

int __wrap_kio_getfsmap(int fd, struct fsmap_head *head);

static int key_cmp(const struct fsmap *a, const struct fsmap *b)
{
	if (a->fmr_device != b->fmr_device)
		return a->fmr_device < b->fmr_device ? -1 : 1;
	if (a->fmr_physical != b->fmr_physical)
		return a->fmr_physical < b->fmr_physical ? -1 : 1;
	if (a->fmr_owner != b->fmr_owner)
		return a->fmr_owner < b->fmr_owner ? -1 : 1;
	if (a->fmr_offset != b->fmr_offset)
		return a->fmr_offset < b->fmr_offset ? -1 : 1;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/* The kernel's answer to [lo, hi]: overlaps of a fresh query, or what follows lo. */
static int in_query(const struct fsmap *r, const struct fsmap *lo, const struct fsmap *hi)
{
	if (r->fmr_device < lo->fmr_device || r->fmr_device > hi->fmr_device)
		return 0;
	if (r->fmr_device == lo->fmr_device) {
		if (lo->fmr_length == 0) {
			if (r->fmr_physical + r->fmr_length <= lo->fmr_physical &&
			    r->fmr_physical + r->fmr_length >= r->fmr_physical)
				return 0;
		} else if (key_cmp(r, lo) <= 0) {
			return 0;
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

	if (fd != FAKE_FD || !cap)
		abort();
	if (per_call && per_call < cap)
		cap = per_call;
	for (i = 0; i < nr_recs; i++) {
		if (!in_query(&recs[i], &lo, &hi))
			continue;
		if (n == cap) {
			more = 1;
			break;
		}
		head->fmh_recs[n++] = recs[i];
	}
	head->fmh_entries = n;
	head->fmh_oflags = 0;
	if (n == 0)
		return 0;
	if (!more)
		head->fmh_recs[n - 1].fmr_flags |= FMR_OF_LAST;
	head->fmh_keys[0] = head->fmh_recs[n - 1];
	return (int)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct map_target t;
	static struct map_range out[64];
	struct map_plan_opts o;
	struct map_plan *p = NULL;
	uint64_t dev_bytes, flags, planned = 0, end = 0;
	uint32_t devt;
	unsigned steps = 0;
	int ret;

	if (size < 16)
		return 0;
	dev_bytes = fuzz_u64(&data, &size);
	flags = fuzz_u64(&data, &size);
	devt = makedev(7, 3);
	memset(&t, 0, sizeof(t));
	snprintf(t.fs_type, sizeof(t.fs_type), "xfs");
	t.ops = &map_fs_xfs;
	t.xfs.has_rmapbt = 1;
	t.mount_fd = FAKE_FD;
	t.nr_devices = 1;
	t.devices[0].role = MAP_ROLE_DATA;
	t.devices[0].fd = -1;
	t.devices[0].info.devt = devt;
	t.devices[0].info.logical_block_size = flags & 1 ? 4096 : 512;
	t.devices[0].info.physical_block_size = 4096;
	/* a known size (0 means unknown to the planner: no bound), at most 16 GiB: the plan of a
	 * device is split at the I/O size, so a bigger one is only slower to walk */
	t.devices[0].info.size_bytes = (dev_bytes & ~4095ull & ((1ull << 34) - 1)) | (1ull << 20);
	per_call = (flags >> 8) & 0xff;
	memset(&o, 0, sizeof(o));
	o.merge_gap = flags & 2 ? (flags >> 16) & 0xfffff : 0;
	o.start_offset[0] = flags & 4 ? (flags >> 36) << 9 : 0;
	nr_recs = 0;
	while (size >= 33 && nr_recs < MAX_RECS) {
		struct fsmap *r = &recs[nr_recs++];

		memset(r, 0, sizeof(*r));
		r->fmr_device = devt;
		r->fmr_physical = fuzz_u64(&data, &size);
		r->fmr_length = fuzz_u64(&data, &size);
		r->fmr_owner = fuzz_u64(&data, &size);
		r->fmr_offset = fuzz_u64(&data, &size);
		/* what the kernel guarantees even on a corrupted filesystem: a record has a
		 * length and does not wrap (its continuation key is physical + length) */
		if (!r->fmr_length)
			r->fmr_length = 512;
		if (r->fmr_physical + r->fmr_length < r->fmr_physical)
			r->fmr_length = UINT64_MAX - r->fmr_physical;
		if (!r->fmr_length)
			nr_recs--;
		r->fmr_flags = data[0] & (FMR_OF_PREALLOC | FMR_OF_ATTR_FORK | FMR_OF_EXTENT_MAP |
					  FMR_OF_SHARED | FMR_OF_SPECIAL_OWNER);
		data++;
		size--;
		map_fsmap_classify(r);
		map_fsmap_special_name(r);
		map_fsmap_special_name_ext4(r);
	}
	qsort(recs, nr_recs, sizeof(recs[0]), cmp_rec);
	if (map_plan_open(&t, &o, &p) < 0)
		return 0;
	while ((ret = map_plan_next(p, out, 64)) > 0) {
		for (int i = 0; i < ret; i++) {
			const struct map_range *r = &out[i];

			if (!r->length || r->offset + r->length < r->offset || r->offset < end ||
			    r->offset + r->length > t.devices[0].info.size_bytes) {
				fprintf(stderr, "bad range %#llx+%#llx on a device of %#llx bytes "
					"(previous end %#llx)\n", (unsigned long long)r->offset,
					(unsigned long long)r->length,
					(unsigned long long)t.devices[0].info.size_bytes,
					(unsigned long long)end);
				abort();	/* outside the device, empty, or out of order */
			}
			end = r->offset + r->length;
			planned += r->length;
		}
		if (++steps > 1000000)
			abort();		/* does not end */
	}
	map_plan_close(p);
	(void)planned;
	return 0;
}
