/*
 * mediascan/isolate.c - narrow a failed read to the exact failing logical blocks: bisect
 * down to a small span, then step block by block, counting how often each bad block is
 * read (on a dying disk every bad read can take seconds, so bisection keeps that low).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

enum scan_err_class scan_classify(int err)
{
	switch (err) {
	case -EIO:
	case -ENODATA:
		return SCAN_ERR_MEDIA;
	case -EILSEQ:
		return SCAN_ERR_PI;
	case -ETIME:
		return SCAN_ERR_TIMEOUT;
	default:
		return SCAN_ERR_OPERATIONAL;
	}
}

const char *scan_error_name(const struct scan_error *e)
{
	if (e->cls == SCAN_ERR_TIMEOUT)
		return "timeout";
	switch (e->err) {
	case -EIO:
		return "EIO";
	case -ENODATA:
		return "ENODATA";
	case -EILSEQ:
		return "EILSEQ";
	}
	return strerrorname_np(-e->err) ? strerrorname_np(-e->err) : "unknown";
}

/* A PI mismatch names one block's tag, expected and found values: it is never merged. */
static int error_has_pi(const struct scan_error *e)
{
	return e->vfy_fail == VFY_FAIL_PI_GUARD || e->vfy_fail == VFY_FAIL_PI_APP ||
	       e->vfy_fail == VFY_FAIL_PI_REF || e->pi_expected || e->pi_found;
}

int scan_result_add(struct scan_result *r, const struct scan_error *e)
{
	/* An error already handed to a checkpoint is stored by its range: do not grow it. */
	struct scan_error *last = r->nr_errors > r->sealed ? &r->errors[r->nr_errors - 1] : NULL;

	/* Merging keeps the first error's details: only errors that say the same merge. */
	if (last && last->dev_idx == e->dev_idx && last->offset + last->length == e->offset &&
	    last->err == e->err && last->in_gap == e->in_gap &&
	    last->reproducible == e->reproducible && last->vfy_fail == e->vfy_fail &&
	    last->dev_status == e->dev_status && !error_has_pi(last) && !error_has_pi(e)) {
		last->length += e->length;
		if (e->reads > last->reads)
			last->reads = e->reads;
		return 0;
	}
	if ((r->nr_errors & (r->nr_errors - 1)) == 0) {
		size_t cap = r->nr_errors ? r->nr_errors * 2 : 8;
		struct scan_error *n = realloc(r->errors, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->errors = n;
	}
	r->errors[r->nr_errors++] = *e;
	return 0;
}

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
		e.in_gap = si->range && map_range_planned_bytes(si->range, b, si->lbs) == 0;
		ret = scan_result_add(si->r, &e);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Return the read's -errno, or 0 when every byte came back. */
static int try_read(struct scan_isolate *si, uint64_t offset, uint64_t length)
{
	ssize_t n = si->read(si->fd, si->buf, length, offset);

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
	er = try_read(si, offset + half, length - half);
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
