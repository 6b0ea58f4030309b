/*
 * mediascan/isolate.c - narrow a failed read to the exact failing logical blocks in at most
 * two levels: read the span as pieces (about sqrt(blocks) blocks each) issued together at
 * queue depth, then every block of each failing piece, again together (never two
 * neighbours at once: merged, they would fail as one request). A bad block is so
 * read three times in all (the failed read, its piece, itself); short spans, and methods
 * without kernel retries to spare (si->direct), read every block at once: two. Bisection
 * read it once per level (6 times under a 1 MiB read with 64 KiB steps, 12 without), and on
 * a dying disk each bad read can take seconds, times the kernel's retries. The pieces are
 * read a queue depth at a time and each window's failing pieces narrowed before the next,
 * so a failing disk (--max-failed-reads) stops with the first bad blocks already named.
 * Reads go through si->read_many (the executor's engine, each read bounded by a time limit
 * and abandoned when the scan stops) or one by one through si->read.
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

#define ISO_DIRECT_BLOCKS 16	/* spans this short: every block at once */

/* Return the blocks per first-level piece for a span of nb blocks (1: every block at once). */
static uint64_t piece_blocks(const struct scan_isolate *si, uint64_t nb)
{
	uint64_t pb = 1;

	if (si->direct || nb <= ISO_DIRECT_BLOCKS)
		return 1;
	while (pb * pb < nb)
		pb <<= 1;
	if (si->step_bytes >= si->lbs && pb * si->lbs > si->step_bytes)
		pb = si->step_bytes / si->lbs;
	return pb;
}

/* Return what one read said: 0 when every byte came back, else -errno (short: -EIO). */
static int read_err(const struct scan_iso_read *rd)
{
	if (rd->res < 0)
		return (int)rd->res;
	return (uint64_t)rd->res == rd->length ? 0 : -EIO;
}

/*
 * Read rd[0..n) (in offset order, back to back) together (read_many) or one by one; return
 * 0, or -EINTR when stopping. Reads in flight together never touch: the block layer would
 * merge neighbours into one request, which fails as a whole and blames good blocks. So the
 * even entries go out together, then the odd ones (tmp: room for (n + 1) / 2 entries).
 */
static int read_batch(struct scan_isolate *si, struct scan_iso_read *rd, unsigned n,
		      struct scan_iso_read *tmp)
{
	int ret = 0;

	for (unsigned i = 0; i < n; i++)
		rd[i].res = -EINTR;
	if (si->read_many) {
		for (unsigned par = 0; par < 2 && n > par && !ret; par++) {
			unsigned k = 0;

			for (unsigned i = par; i < n; i += 2)
				tmp[k++] = rd[i];
			ret = si->read_many(si->read_arg, si->dev_idx, tmp, k);
			k = 0;
			for (unsigned i = par; i < n; i += 2) {
				rd[i] = tmp[k++];
				si->reads += rd[i].res != -EINTR;
			}
		}
		return ret;
	}
	for (unsigned i = 0; i < n; i++) {
		rd[i].res = si->read(si->read_arg, si->dev_idx, si->buf, rd[i].length,
				     rd[i].offset);
		si->reads++;
		if (rd[i].res == -EINTR)
			return -EINTR;
	}
	return 0;
}

/*
 * Read the n blocks from offset (not past end) together and record the failing ones, read
 * reads times in all; return 0, -EINTR when stopping (what failed is recorded), -errno.
 */
static int read_blocks(struct scan_isolate *si, struct scan_iso_read *rd, uint64_t offset,
		       uint64_t end, uint64_t n, unsigned reads, int *found,
		       struct scan_iso_read *tmp)
{
	unsigned k = 0;
	int stop, ret;

	for (; k < n && offset + (uint64_t)k * si->lbs < end; k++) {
		rd[k].offset = offset + (uint64_t)k * si->lbs;
		rd[k].length = si->lbs;
	}
	stop = read_batch(si, rd, k, tmp);
	for (unsigned i = 0; i < k; i++) {
		int e = read_err(&rd[i]);

		if (!e)
			continue;
		if (e == -EINTR) {
			stop = -EINTR;
			continue;
		}
		*found = 1;
		ret = add_bad(si, rd[i].offset, si->lbs, e, reads, 1);
		if (ret < 0)
			return ret;
	}
	return stop;
}

int scan_isolate_range(struct scan_isolate *si, uint64_t offset, uint64_t length, int err)
{
	uint64_t end = offset + length, nb = (length + si->lbs - 1) / si->lbs;
	uint64_t pb = piece_blocks(si, nb), piece = pb * si->lbs;
	unsigned win = si->depth ? si->depth : 1;
	struct scan_iso_read *rd, *blk, *tmp;
	int found = 0, ret = 0;

	if (pb == 1 && win < ISO_DIRECT_BLOCKS)
		win = ISO_DIRECT_BLOCKS;
	rd = calloc((size_t)win + (size_t)pb + ((size_t)(win > pb ? win : pb) + 1) / 2,
		    sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	blk = rd + win;
	tmp = blk + pb;
	for (uint64_t p = offset; p < end && !ret;) {
		unsigned n = 0;

		if (pb == 1) {
			/* One level: every block, read once more (2 reads of a bad block). */
			ret = read_blocks(si, rd, p, end, win, 2, &found, tmp);
			p += (uint64_t)win * si->lbs;
			continue;
		}
		for (; n < win && p < end; n++) {
			rd[n].offset = p;
			rd[n].length = (uint32_t)(end - p < piece ? end - p : piece);
			p += rd[n].length;
		}
		ret = read_batch(si, rd, n, tmp);
		for (unsigned i = 0; i < n && ret == 0; i++) {
			int e = read_err(&rd[i]);

			if (e == -EINTR)
				ret = -EINTR;
			else if (e)	/* the piece fails again: read each of its blocks (3) */
				ret = read_blocks(si, blk, rd[i].offset, rd[i].offset + rd[i].length,
						  pb, 3, &found, tmp);
		}
	}
	free(rd);
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

/* Record a command that failed short of the media (-errno) or was never answered (-ETIME). */
static int cmd_failed_op(struct scan_isolate_cmd *si, uint64_t offset, uint64_t length, int err,
			 unsigned reads)
{
	struct scan_error e = {
		.dev_idx = si->dev_idx, .offset = offset, .length = length, .err = err,
		.cls = err == -ETIME ? SCAN_ERR_TIMEOUT :
		       scan_classify(err) == SCAN_ERR_DEVICE ? SCAN_ERR_DEVICE : SCAN_ERR_OPERATIONAL,
		.reads = reads, .reproducible = 1,
	};

	return scan_result_add(si->r, &e);
}

#define CMD_BLOCKS_BATCH 64		/* block commands handed to cmd_many at once */

/*
 * Narrow a failed command over [offset, offset+chunk) that named no block: one command per
 * block, CMD_BLOCKS_BATCH at a time at queue depth (a bad block: the failed command, then
 * its own). reads: commands that covered the span before the failed one. Return 0, or
 * -EOPNOTSUPP, -EINTR, -ENOMEM.
 */
static int cmd_blocks(struct scan_isolate_cmd *si, uint64_t offset, uint64_t chunk,
		      unsigned reads)
{
	struct scan_iso_read rd[CMD_BLOCKS_BATCH];
	uint64_t end = offset + chunk;
	int ret;

	while (offset < end) {
		unsigned n = 0;

		for (; n < CMD_BLOCKS_BATCH && offset + (uint64_t)n * si->lbs < end; n++) {
			memset(&rd[n], 0, sizeof(rd[n]));
			rd[n].offset = offset + (uint64_t)n * si->lbs;
			rd[n].length = si->lbs;
		}
		ret = si->cmd_many(si->arg, si->dev_idx, rd, n);
		if (ret < 0)
			return ret;
		for (unsigned i = 0; i < n; i++) {
			ssize_t res = rd[i].res;

			if (res == -EINTR || res == -EOPNOTSUPP)
				return (int)res;
			if (res == (ssize_t)si->lbs)
				cmd_clean(si, rd[i].offset, si->lbs);
			else if (rd[i].vres.fail != VFY_FAIL_NONE)
				ret = cmd_bad(si, rd[i].offset, reads + 2, &rd[i].vres);
			else
				ret = cmd_failed_op(si, rd[i].offset, si->lbs,
						    res < 0 ? (int)res : -EIO, reads + 2);
			if (ret < 0)
				return ret;
		}
		offset += (uint64_t)n * si->lbs;
	}
	return 0;
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
		ret = cmd_failed_op(si, offset, chunk, ret, reads + 1);
		return ret < 0 ? ret : (int64_t)chunk;
	}
	if (res->have_lba && res->lba == lba && nlb > 1 && si->names_ok && *si->names_ok == 0) {
		/*
		 * A device may name the command's first block instead of the failing one:
		 * scsi_debug's READ sense does, and so does libata's translated result after an
		 * ABRT. The first time a device names a command's first block, that block is
		 * read alone: failing, the names hold; clean, they are ignored from then on.
		 */
		struct vfy_result one;
		int r1;

		memset(&one, 0, sizeof(one));
		r1 = si->cmd(si->arg, si->dev_idx, offset, si->lbs, &one);
		si->r->isolation_reads++;
		if (r1 == -EOPNOTSUPP || r1 == -EINTR)
			return r1;
		*si->names_ok = r1 == 1 ? 1 : r1 == 0 ? -1 : 0;
		if (r1 == 1) {
			ret = cmd_bad(si, offset, reads + 2, &one);
			return ret < 0 ? ret : (int64_t)si->lbs;
		}
		if (r1 == 0)
			cmd_clean(si, offset, si->lbs);
		ret = scan_isolate_cmd_span(si, offset + si->lbs, chunk - si->lbs, 1, reads + 1);
		return ret < 0 ? ret : (int64_t)chunk;
	}
	if (res->have_lba && res->lba >= lba && res->lba < lba + nlb &&
	    !(si->names_ok && *si->names_ok < 0)) {
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
	if (si->cmd_many) {
		ret = cmd_blocks(si, offset, chunk, reads);
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
