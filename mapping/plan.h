/*
 * mapping/plan.h - the scan plan: which device ranges hold written data or metadata.
 * Ranges are produced in device order, in batches, from GETFSMAP (or the whole device),
 * merged across small gaps, aligned to the logical block size. Gap bytes are read only to
 * bridge two planned ranges; they are not planned and a failure inside them is not damage.
 */
#ifndef MEDIASCAN_PLAN_H
#define MEDIASCAN_PLAN_H

#include <stdint.h>
#include <stddef.h>

#define MAP_MAX_GAPS 8

/* What a planned range holds (bitmask: merged ranges may hold several). */
enum map_tag {
	MAP_TAG_DATA = 1 << 0,		/* file data, directory and attribute blocks */
	MAP_TAG_METADATA = 1 << 1,	/* btrees, inodes, AG headers, superblocks */
	MAP_TAG_LOG = 1 << 2,		/* the journal */
	MAP_TAG_WHOLE = 1 << 3,		/* raw device area, no filesystem knowledge */
};

struct map_gap {
	uint64_t offset;		/* bytes on the device */
	uint64_t length;		/* bytes */
};

/* One contiguous device range to read. */
struct map_range {
	uint64_t offset;		/* bytes on the device, logical-block aligned */
	uint64_t length;		/* bytes, logical-block aligned */
	uint32_t dev_idx;		/* index into the target's devices */
	uint32_t tags;			/* enum map_tag bits */
	uint32_t nr_gaps;
	struct map_gap gaps[MAP_MAX_GAPS];	/* unplanned bytes read only to bridge */
};

/* Merges a device-ordered stream of (possibly overlapping) extents into map_ranges. */
struct map_merger {
	uint64_t merge_gap;		/* largest gap in bytes bridged by one read */
	uint32_t align;			/* logical block size, bytes */
	int have;			/* pending holds a range */
	struct map_range pending;
	uint64_t planned_bytes;		/* sum of planned (non-gap) bytes emitted so far */
};

/* Return 0; set up m to merge gaps up to merge_gap bytes, aligning to align bytes. */
int map_merger_init(struct map_merger *m, uint64_t merge_gap, uint32_t align);
/*
 * Return 1 and fill *out when adding the extent completed a range, 0 when it was absorbed.
 * Extents must arrive sorted by (dev_idx, offset); overlaps are fine (reflink).
 */
int map_merger_add(struct map_merger *m, uint32_t dev_idx, uint64_t offset, uint64_t length,
		   uint32_t tags, struct map_range *out);
/* Return 1 and fill *out with the last pending range, 0 when there is none. */
int map_merger_flush(struct map_merger *m, struct map_range *out);

/* Return the bytes of [offset, offset+length) inside r that are planned (not in a gap). */
uint64_t map_range_planned_bytes(const struct map_range *r, uint64_t offset, uint64_t length);

struct map_target;
struct map_plan;

/* Options of a plan. */
struct map_plan_opts {
	uint64_t merge_gap;		/* bytes; (uint64_t)-1 = default for the device */
	uint64_t start_offset[4];	/* per device: skip ranges before this (resume) */
};

/* Return 0 and a new plan over every written range of t, or -errno. */
int map_plan_open(struct map_target *t, const struct map_plan_opts *o, struct map_plan **out);
/* Return the number of ranges written to out (at most max), 0 at the end, or -errno. */
int map_plan_next(struct map_plan *p, struct map_range *out, unsigned max);
/* Return 0 and the total planned bytes (a counting pass that leaves p untouched), or -errno. */
int map_plan_count(struct map_target *t, const struct map_plan_opts *o, uint64_t *planned_bytes,
		   uint64_t *nr_ranges);
/* Return 0; free the plan. */
int map_plan_close(struct map_plan *p);

#endif
