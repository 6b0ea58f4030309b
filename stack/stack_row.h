/*
 * stack/stack_row.h - the redundancy row under a range of a device: every copy (RAID1,
 * RAID10, LVM raid1) or the whole stripe row with its parity (RAID4/5/6, LVM raid4/5/6) at
 * the same offsets, each leg on a bottom device, so that the bytes read from the legs can be
 * compared with each other.
 */
#ifndef MEDIASCAN_STACK_ROW_H
#define MEDIASCAN_STACK_ROW_H

#include <stdint.h>

#include "stack.h"

#define MAP_ROW_MAX_LEGS 16

enum map_row_kind {
	MAP_ROW_MIRROR,			/* every leg holds the same bytes */
	MAP_ROW_XOR,			/* P = XOR of the data legs */
	MAP_ROW_PQ,			/* P, and Q = sum of g^index * D over the data legs */
};

/* One leg of a row: a range of a bottom device. */
struct map_row_leg {
	char name[MAP_STACK_NAME];	/* bottom device (leaf, as map_stack_down names it) */
	uint64_t offset, length;	/* bytes on it (length = row->length) */
	enum map_md_role role;		/* MAP_MD_MIRROR, MAP_MD_DATA, MAP_MD_PARITY,
					 * MAP_MD_SYNDROME */
	int index;			/* data legs: syndrome slot (Q = sum g^index * D);
					 * mirror legs: copy number (0..) */
	int slot;			/* the leg's member slot in the array */
	uint64_t top_offset;		/* data/mirror legs: the byte on the TOP device it holds;
					 * UINT64_MAX for parity/syndrome, and for a data chunk
					 * that is not on the top device (another LV, past a
					 * partition's end) */
};

struct map_row {
	enum map_row_kind kind;
	char array[MAP_STACK_NAME];	/* md0, dm-3 */
	char level[16];			/* raid1, raid10, raid5, raid6, dm-raid1, dm-raid5_ls */
	uint64_t length;		/* bytes every leg covers */
	unsigned nr_legs;
	struct map_row_leg leg[MAP_ROW_MAX_LEGS];
};

/*
 * Return 1 and the redundancy row that holds top device name's bytes [off, off + len),
 * clipped (*done bytes of the top range covered, > 0); 0 and *done when that piece has no
 * redundancy below (plain disk, linear, raid0, or a degraded array whose row cannot be
 * checked: nothing to compare); -EOPNOTSUPP for two levels of redundancy or a layer that
 * cannot be mapped; -E2BIG for a row of more than MAP_ROW_MAX_LEGS legs; -errno. Offsets are
 * 512-byte aligned: the row starts at the sector holding off. A mirror row keeps its present
 * copies (degraded: fewer legs); a parity row with a member missing is not comparable (0).
 * For RAID4/5/6 the row is the whole stripe row at the same in-chunk offsets: every data
 * chunk (with its top_offset), P and Q. sysfs NULL: "/sys".
 */
int map_stack_row(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		  struct map_row *row, uint64_t *done);

#endif
