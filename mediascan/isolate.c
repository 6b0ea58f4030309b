/*
 * mediascan/isolate.c - narrow a failed read to the exact failing logical blocks: bisect
 * down to a small span, then step block by block, counting how often each bad block is
 * read (on a dying disk every bad read can take seconds, so bisection keeps that low).
 * Reads go through si->read, which the executor backs with its engine (each read bounded
 * by a time limit, and abandoned when the scan stops).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

/* Record failing bytes [offset, offset+length), split where planned and gap bytes meet. */
static int add_bad(struct scan_isolate *si, uint64_t offset, uint64_t length, int err,
		   unsigned reads, int reproducible)
{
	struct scan_error e = {
		.dev_idx = si->dev_idx, .err = err, .cls = scan_classify(err),
		.reads = reads, .reproducible = reproducible,
	};
	int ret;

	/* Walk block by block so a run is split exactly at gap boundaries. */
	for (uint64_t b = offset; b < offset + length; b += si->lbs) {
		e.offset = b;
		e.length = si->lbs;
		e.in_gap = si->range && scan_range_planned_bytes(si->range, b, si->lbs) == 0;
		ret = scan_result_add(si->r, &e);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * Return the read's -errno, or 0 when every byte came back. -ETIME: no answer within the
 * executor's limit (a device fault); -EINTR: the scan is stopping (isolation gives up).
 */
static int try_read(struct scan_isolate *si, uint64_t offset, uint64_t length)
{
	ssize_t n = si->read(si->read_arg, si->dev_idx, si->buf, length, offset);

	si->reads++;
	if (n < 0)
		return (int)n;
	return (uint64_t)n == length ? 0 : -EIO;
}

/* Isolate inside a span already known to fail; reads = reads that touched it so far. */
static int isolate_span(struct scan_isolate *si, uint64_t offset, uint64_t length, int err,
			unsigned reads, int *found)
{
	uint64_t half;
	int el, er, ret;

	if (length <= si->step_bytes || length <= si->lbs) {
		for (uint64_t b = offset; b < offset + length; b += si->lbs) {
			int e = try_read(si, b, si->lbs);

			if (e == -EINTR)
				return e;
			if (!e)
				continue;
			*found = 1;
			ret = add_bad(si, b, si->lbs, e, reads + 1, 1);
			if (ret < 0)
				return ret;
		}
		return 0;
	}
	half = (length / 2) - (length / 2) % si->lbs;
	if (!half)
		half = si->lbs;
	el = try_read(si, offset, half);
	if (el == -EINTR)
		return el;
	er = try_read(si, offset + half, length - half);
	if (er == -EINTR)
		return er;
	if (el) {
		ret = isolate_span(si, offset, half, el, reads + 1, found);
		if (ret < 0)
			return ret;
	}
	if (er) {
		ret = isolate_span(si, offset + half, length - half, er, reads + 1, found);
		if (ret < 0)
			return ret;
	}
	(void)err;
	return 0;
}

int scan_isolate_range(struct scan_isolate *si, uint64_t offset, uint64_t length, int err)
{
	int found = 0, ret;

	ret = isolate_span(si, offset, length, err, 1, &found);
	if (ret < 0)
		return ret;
	if (!found)	/* failed once, then read fine piece by piece: say so, do not hide it */
		return add_bad(si, offset, length, err, 1, 0);
	return 0;
}
