/*
 * mapping/plan/plan.h - the scan plan: which device ranges hold written data or metadata.
 * Ranges are produced in device order, in batches, from GETFSMAP (or the whole device),
 * merged across small gaps, aligned to the logical block size. Gap bytes are read only to
 * bridge two planned ranges; they are not planned and a failure inside them is not damage.
 */
#ifndef MEDIASCAN_PLAN_H
#define MEDIASCAN_PLAN_H

#include <stdint.h>
#include <stddef.h>

#define MAP_MAX_GAPS 8
/* The merge gap on a rotational disk when none is given (bytes); 0 on others. */
#define MAP_DEFAULT_GAP_ROTATIONAL (64 * 1024)

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

/**
 * map_merger_init() - set up a merger.
 * @m: the merger
 * @merge_gap: merge across gaps up to this many bytes
 * @align: align ranges to this many bytes
 *
 * Return: 0.
 */
int map_merger_init(struct map_merger *m, uint64_t merge_gap, uint32_t align);
/**
 * map_merger_add() - add an extent to the merger.
 * @m: the merger
 * @dev_idx: its device
 * @offset: first byte
 * @length: length, bytes
 * @tags: enum map_tag bits of what it holds
 * @out: filled with a completed range
 *
 * Extents must arrive sorted by (dev_idx, offset); overlaps are fine (reflink).
 *
 * Return: 1 when adding the extent completed a range, 0 when it was absorbed.
 */
int map_merger_add(struct map_merger *m, uint32_t dev_idx, uint64_t offset, uint64_t length,
		   uint32_t tags, struct map_range *out);
/**
 * map_merger_flush() - the last pending range of the merger.
 * @m: the merger
 * @out: filled with the range
 *
 * Return: 1, or 0 when there is none.
 */
int map_merger_flush(struct map_merger *m, struct map_range *out);

/*
 * Return the planned bytes of the whole range r: its length less its gaps (which lie inside
 * it, apart). The planned bytes of part of a range, as the scan reads it, are
 * scan_range_planned_bytes()'s (mediascan/range.c), once the pass has handed the range over.
 */
uint64_t map_range_planned_bytes(const struct map_range *r);

struct map_target;
struct map_plan;

/* Options of a plan. */
struct map_plan_opts {
	uint64_t merge_gap;		/* bytes; (uint64_t)-1 = default for the device */
	uint64_t start_offset[4];	/* per device: skip ranges before this (resume) */
};

/**
 * map_plan_open() - a new plan over every written range of a target.
 * @t: the target
 * @o: the plan options
 * @out: set to the plan (close it with map_plan_close())
 *
 * Return: 0, or -errno.
 */
int map_plan_open(struct map_target *t, const struct map_plan_opts *o, struct map_plan **out);
/**
 * map_plan_next() - the next ranges of a plan.
 * @p: the plan
 * @out: set to the ranges
 * @max: room in out
 *
 * Return: the number of ranges written, 0 at the end, or -errno.
 */
int map_plan_next(struct map_plan *p, struct map_range *out, unsigned max);
/**
 * map_plan_count() - the total of a plan (a counting pass that opens no plan).
 * @t: the target
 * @o: the plan options
 * @planned_bytes: set to the planned bytes
 * @nr_ranges: set to the number of ranges
 *
 * Return: 0, or -errno.
 */
int map_plan_count(struct map_target *t, const struct map_plan_opts *o, uint64_t *planned_bytes,
		   uint64_t *nr_ranges);
/**
 * map_plan_close() - free a plan.
 * @p: the plan
 *
 * Return: 0.
 */
int map_plan_close(struct map_plan *p);

#endif
