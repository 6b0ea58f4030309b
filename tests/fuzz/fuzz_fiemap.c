/*
 * tests/fuzz/fuzz_fiemap.c - FIEMAP extent lists (a corrupted inode maps to odd extents:
 * overlapping, any physical address, any flags, lengths near 2^64) matched against the
 * damaged ranges (mapping/index/index.c map_ix_match_fd), through a fake kio_fiemap (linked with
 * --wrap=kio_fiemap) that answers as the kernel does: extents sorted by file offset, those
 * ending after fm_start, at most fm_extent_count, the last one flagged. Every hit must lie in
 * a queried range; the walk must end.
 */
#include <linux/fiemap.h>

#include "fs.h"
#include "fuzz.h"
#include "owners.h"

#define FAKE_FD 1001
#define MAX_EXT 256
#define MAX_Q 16

static const uint32_t flag_bits[] = {
	FIEMAP_EXTENT_UNKNOWN, FIEMAP_EXTENT_DELALLOC, FIEMAP_EXTENT_UNWRITTEN,
	FIEMAP_EXTENT_SHARED, FIEMAP_EXTENT_DATA_INLINE, FIEMAP_EXTENT_NOT_ALIGNED,
	FIEMAP_EXTENT_ENCODED, FIEMAP_EXTENT_MERGED,
};
static struct fiemap_extent ext[MAX_EXT];
static unsigned nr_ext, calls;

int __wrap_kio_fiemap(int fd, struct fiemap *fm);

int __wrap_kio_fiemap(int fd, struct fiemap *fm)
{
	unsigned n = 0;

	if (fd != FAKE_FD)
		abort();
	if (++calls > 100000)
		abort();			/* the walk does not end */
	for (unsigned i = 0; i < nr_ext && n < fm->fm_extent_count; i++) {
		const struct fiemap_extent *e = &ext[i];

		if (e->fe_logical + e->fe_length <= fm->fm_start)
			continue;
		fm->fm_extents[n] = *e;
		if (i == nr_ext - 1)
			fm->fm_extents[n].fe_flags |= FIEMAP_EXTENT_LAST;
		n++;
	}
	fm->fm_mapped_extents = n;
	return 0;
}

static int cmp_ext(const void *a, const void *b)
{
	const struct fiemap_extent *x = a, *y = b;

	return x->fe_logical < y->fe_logical ? -1 : x->fe_logical > y->fe_logical;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct map_ix_query q[MAX_Q];
	struct map_ix_hits h = { 0 };
	struct map_owner tmpl;
	uint64_t pos = 0;
	size_t nq = 0;

	/* queries: sorted, disjoint device ranges built from deltas */
	if (size < 1)
		return 0;
	nq = data[0] % MAX_Q;
	data++;
	size--;
	for (size_t i = 0; i < nq; i++) {
		uint64_t gap = fuzz_u64(&data, &size) >> 20;
		uint64_t len = (fuzz_u64(&data, &size) >> 40) + 1;

		if (pos + gap < pos || pos + gap + len < pos + gap) {
			nq = i;
			break;
		}
		q[i].start = pos + gap;
		q[i].end = pos + gap + len;
		pos = q[i].end;
	}
	/* extents: what a corrupted inode may map to; the kernel never wraps a range */
	nr_ext = 0;
	while (size >= 25 && nr_ext < MAX_EXT) {
		struct fiemap_extent *e = &ext[nr_ext];

		memset(e, 0, sizeof(*e));
		e->fe_logical = fuzz_u64(&data, &size);
		e->fe_physical = fuzz_u64(&data, &size);
		e->fe_length = fuzz_u64(&data, &size) | 1;
		for (unsigned b = 0; b < sizeof(flag_bits) / sizeof(flag_bits[0]); b++)
			if (data[0] & (1u << b))
				e->fe_flags |= flag_bits[b];
		data++;
		size--;
		if (e->fe_logical + e->fe_length < e->fe_logical ||
		    e->fe_physical + e->fe_length < e->fe_physical)
			continue;
		nr_ext++;
	}
	qsort(ext, nr_ext, sizeof(ext[0]), cmp_ext);
	calls = 0;
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.inode = 131;
	map_ix_match_fd(FAKE_FD, q, nq, &tmpl, &h);
	for (size_t i = 0; i < h.nr; i++) {
		size_t k = map_ix_first(q, nq, h.v[i].start);

		if (h.v[i].end <= h.v[i].start || k == nq || h.v[i].start < q[k].start ||
		    h.v[i].end > q[k].end)
			abort();		/* a hit outside every query */
	}
	free(h.v);
	return 0;
}
