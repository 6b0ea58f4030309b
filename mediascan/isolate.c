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

/* ---------------------------------------------------------------- drive-side commands */
/*
 * A failed device command is narrowed with what the device says first: the NVMe error log
 * or the SCSI sense information field may name the failing block (the blocks before it are
 * good, the command goes on after it); otherwise the span is bisected to single blocks.
 */

/* Record one failing block that a drive-side command reported. */
static int cmd_bad(struct scan_isolate_cmd *si, uint64_t offset, unsigned reads,
		   const struct vfy_result *res)
{
	struct scan_error e = {
		.dev_idx = si->dev_idx, .offset = offset, .length = si->lbs,
		.err = vfy_fail_errno(res), .reads = reads, .reproducible = 1,
		.vfy_fail = res->fail, .dev_status = res->status,
		.pi_expected = res->expected, .pi_found = res->found,
	};

	e.cls = scan_classify(e.err);
	e.in_gap = si->range && scan_range_planned_bytes(si->range, offset, si->lbs) == 0;
	return scan_result_add(si->r, &e);
}

static void cmd_clean(struct scan_isolate_cmd *si, uint64_t offset, uint64_t length)
{
	if (si->clean && length)
		si->clean(si->arg, si->dev_idx, offset, length);
}

/*
 * One command's outcome over [offset, offset+chunk) (ret, res): record or narrow it. Return
 * the bytes of the span it settled (the command goes on after a named block), or -errno.
 */
static int64_t cmd_settle(struct scan_isolate_cmd *si, uint64_t offset, uint64_t chunk,
			  int ret, const struct vfy_result *res, unsigned reads)
{
	uint64_t lba = (offset + si->part_start_bytes) / si->lbs, nlb = chunk / si->lbs;

	if (ret == 0) {
		cmd_clean(si, offset, chunk);
		return (int64_t)chunk;
	}
	if (ret < 0) {
		/* Failed short of the media (operational), or never answered (a timeout). */
		struct scan_error e = {
			.dev_idx = si->dev_idx, .offset = offset, .length = chunk, .err = ret,
			.cls = ret == -ETIME ? SCAN_ERR_TIMEOUT : SCAN_ERR_OPERATIONAL,
			.reads = reads + 1, .reproducible = 1,
		};

		ret = scan_result_add(si->r, &e);
		return ret < 0 ? ret : (int64_t)chunk;
	}
	if (res->have_lba && res->lba >= lba && res->lba < lba + nlb) {
		/* The device named the block: the ones before it are good. */
		uint64_t bad = res->lba * si->lbs - si->part_start_bytes;

		cmd_clean(si, offset, bad - offset);
		ret = cmd_bad(si, bad, reads + 1, res);
		return ret < 0 ? ret : (int64_t)(bad + si->lbs - offset);
	}
	if (nlb == 1) {
		ret = cmd_bad(si, offset, reads + 1, res);
		return ret < 0 ? ret : (int64_t)chunk;
	}
	uint64_t half = (nlb / 2) * si->lbs;

	ret = scan_isolate_cmd_span(si, offset, half, 1, reads + 1);
	if (ret == 0)
		ret = scan_isolate_cmd_span(si, offset + half, chunk - half, 1, reads + 1);
	return ret < 0 ? ret : (int64_t)chunk;
}

int scan_isolate_cmd_span(struct scan_isolate_cmd *si, uint64_t offset, uint64_t length,
			  int isolating, unsigned reads)
{
	uint64_t max = (uint64_t)si->max_blocks * si->lbs;
	struct vfy_result res;
	int64_t done;
	int ret;

	while (length >= si->lbs) {
		uint64_t chunk = length < max ? length : max;

		memset(&res, 0, sizeof(res));
		ret = si->cmd(si->arg, si->dev_idx, offset, chunk, &res);
		if (isolating)
			si->r->isolation_reads++;
		if (ret == -EOPNOTSUPP || ret == -EINTR)
			return ret;
		done = cmd_settle(si, offset, chunk, ret, &res, reads);
		if (done < 0)
			return (int)done;
		offset += (uint64_t)done;
		length -= (uint64_t)done;
	}
	return 0;
}

int scan_isolate_cmd_failed(struct scan_isolate_cmd *si, uint64_t offset, uint64_t length,
			    const struct vfy_result *res)
{
	int64_t done = cmd_settle(si, offset, length, 1, res, 0);

	if (done < 0)
		return (int)done;
	/* After a named block the command would have gone on: the rest, not as isolation. */
	return scan_isolate_cmd_span(si, offset + (uint64_t)done, length - (uint64_t)done, 0, 0);
}
