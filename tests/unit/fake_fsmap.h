/*
 * tests/unit/fake_fsmap.h - the fake GETFSMAP of the mapping unit tests (fake_fsmap.c).
 * Link with --wrap=kio_getfsmap; the mapping code must pass MOCK_FD as the mount fd.
 */
#ifndef MEDIASCAN_FAKE_FSMAP_H
#define MEDIASCAN_FAKE_FSMAP_H

#include <stdint.h>
#include <linux/fsmap.h>

#define MOCK_FD 3
#define MOCK_MAX_RECS 4096

struct fake_fsmap {
	struct fsmap recs[MOCK_MAX_RECS];	/* sorted by (device, physical, owner, offset) */
	unsigned nr;
	unsigned per_call;		/* at most this many records per call (0: fmh_count) */
	int sloppy_low;			/* first call ignores the low key's physical */
	int never_last;			/* end with an empty answer instead of FMR_OF_LAST */
	int fail;			/* -errno to answer with */
	/* a part whose space map cannot be read: a call that reaches a record
	 * starting in [bad_start, bad_end) fails whole with bad_err, as XFS does */
	uint64_t bad_start, bad_end;
	int bad_err;
	unsigned calls;
	unsigned max_count;		/* largest fmh_count seen */
	struct fsmap first_keys[2];	/* keys of the first call of a query */
};

extern struct fake_fsmap mk;

void mock_reset(void);
/* Append a record (keep them sorted by device, physical, owner, offset). */
void mock_add(uint32_t dev, uint64_t phys, uint64_t len, uint64_t owner, uint64_t off,
	      uint32_t flags);
void mock_special(uint32_t dev, uint64_t phys, uint64_t len, uint64_t owner);
int __wrap_kio_getfsmap(int fd, struct fsmap_head *head);

#endif
