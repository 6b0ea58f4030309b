/*
 * mediascan/recheck.c - reads that did not answer within the I/O timeout, settled once the
 * queue has drained. A late read is not damage: a drive retrying a marginal sector answers
 * after seconds with every byte, and every read queued behind it is late too. So each late
 * range is first waited for (up to the hard cap: a read that never answers is a device
 * fault), then read again alone with the same timeout: fast now means it only waited behind
 * a slow neighbour; slow again means it is narrowed (halves read alone, down to the isolation
 * step, then block by block) to the sectors that are slow, each reported with its latency;
 * failing now means it is isolated like any failed read. Nothing here is ever damage unless
 * a read of it failed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* Record one slow or not-answering span (verdict slow or device fault). */
static int add_late_error(struct exec *x, const struct exec_late *l, uint64_t offset,
			  uint64_t length, enum scan_err_class cls, uint64_t latency_ns,
			  int reproducible, unsigned reads)
{
	struct scan_error e = {
		.dev_idx = l->dev_idx, .offset = offset, .length = length,
		.err = cls == SCAN_ERR_TIMEOUT ? -ETIME : 0, .cls = cls, .reads = reads,
		.reproducible = reproducible, .latency_ns = latency_ns,
		.in_gap = scan_range_planned_bytes(&l->range, offset, length) == 0,
	};

	return scan_result_add(x->r, &e);
}

/* Return 1 when a read alone of length bytes that returned n in lat_ns was slow. */
static int is_slow(const struct exec *x, ssize_t n, uint64_t length, uint64_t lat_ns)
{
	return n == -ECANCELED || (n == (ssize_t)length && lat_ns > x->o->io_timeout_ns);
}

/*
 * Narrow [offset, offset+length) of late read l, which read slowly alone in lat_ns. Return 0,
 * -EINTR when the scan is stopping, or -errno.
 */
static int narrow_slow(struct exec *x, const struct exec_late *l, uint64_t offset,
		       uint64_t length, uint64_t lat_ns, unsigned reads)
{
	uint32_t lbs = x->devs[l->dev_idx].logical_block_size;
	uint64_t step = x->o->isolate_step_bytes > lbs ? x->o->isolate_step_bytes : lbs;
	uint64_t half, lat[2] = { 0, 0 };
	ssize_t n[2];
	int found = 0, ret;

	if (length <= step || length <= lbs) {
		for (uint64_t b = offset; b < offset + length; b += lbs) {
			uint64_t bl;
			ssize_t bn = exec_read_alone(x, l->dev_idx, b, lbs, &bl);

			if (bn == -EINTR)
				return bn;
			if (bn == -ETIME)
				return add_late_error(x, l, b, offset + length - b, SCAN_ERR_TIMEOUT,
						      bl, 1, reads + 1);
			if (is_slow(x, bn, lbs, bl)) {
				found = 1;
				ret = add_late_error(x, l, b, lbs, SCAN_ERR_SLOW,
						     bn == -ECANCELED ? x->o->io_timeout_ns : bl, 1,
						     reads + 1);
			} else if (bn != (ssize_t)lbs) {
				found = 1;	/* it fails now: a failure like any other */
				ret = exec_isolate(x, l->dev_idx, &l->range, b, lbs,
						   bn < 0 ? (int)bn : -EIO);
			} else {
				exec_note_clean(x, l->dev_idx, b, lbs);
				continue;
			}
			if (ret < 0)
				return ret;
		}
		/* Slow as a whole, no block slow alone: report the span. */
		return found ? 0 : add_late_error(x, l, offset, length, SCAN_ERR_SLOW, lat_ns, 1,
						  reads);
	}
	half = length / 2 - (length / 2) % lbs;
	if (!half)
		half = lbs;
	for (int i = 0; i < 2; i++) {
		uint64_t off = i ? offset + half : offset, len = i ? length - half : half;

		n[i] = exec_read_alone(x, l->dev_idx, off, (uint32_t)len, &lat[i]);
		if (n[i] == -EINTR)
			return (int)n[i];
		if (n[i] == -ETIME)
			return add_late_error(x, l, off, offset + length - off, SCAN_ERR_TIMEOUT,
					      lat[i], 1, reads + 1);
	}
	for (int i = 0; i < 2; i++) {
		uint64_t off = i ? offset + half : offset, len = i ? length - half : half;

		if (is_slow(x, n[i], len, lat[i])) {
			found = 1;
			ret = narrow_slow(x, l, off, len, n[i] == -ECANCELED ?
					  x->o->io_timeout_ns : lat[i], reads + 1);
		} else if (n[i] != (ssize_t)len) {
			found = 1;
			ret = exec_isolate(x, l->dev_idx, &l->range, off, len,
					   n[i] < 0 ? (int)n[i] : -EIO);
		} else {
			exec_note_clean(x, l->dev_idx, off, len);
			continue;
		}
		if (ret < 0)
			return ret;
	}
	return found ? 0 : add_late_error(x, l, offset, length, SCAN_ERR_SLOW, lat_ns, 1, reads);
}

/*
 * Wait for late reads still in flight, each up to the hard cap from its issue (when stopping,
 * not at all: those still waiting are left for the next run).
 */
static int wait_late(struct exec *x)
{
	for (;;) {
		uint64_t now = exec_now_ns();
		int waiting = 0, n, ret;

		for (size_t i = 0; i < x->late.nr; i++)
			if (x->late.list[i].state == EXEC_LATE_WAITING &&
			    now - x->late.list[i].issue_ns < x->hard_cap_ns)
				waiting = 1;
		if (!waiting || exec_stopping(x) || !x->inflight)
			return 0;
		n = x->eng.ops->getevents(&x->eng, 1, x->done, x->nr_slots, EXEC_IDLE_WAIT_NS);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			struct exec_slot *s = (struct exec_slot *)x->done[i];

			/* Only late (or abandoned) reads are left in flight: settle them. */
			s->busy = 0;
			x->inflight--;
			if (s->io.cmd && !s->alone)
				exec_cmd_decode(x, s);	/* a command: as a read would say */
			if (s->io.res > 0 && !s->io.cmd) {
				x->r->read_bytes += (uint64_t)s->io.res;
				exec_own_read(x, s->io.dev_idx, (uint64_t)s->io.res,
					      exec_now_ns() - s->io.issue_ns);
			}
			if (s->alone || s->late_idx < 0) {
				s->alone = 0;
				continue;
			}
			struct exec_late *l = &x->late.list[s->late_idx];

			l->latency_ns = exec_now_ns() - l->issue_ns;
			if (s->io.res == (int)s->io.length) {
				l->state = EXEC_LATE_ANSWERED;
			} else if (s->io.res == -ECANCELED) {
				l->state = EXEC_LATE_CANCELLED;
			} else {
				l->state = EXEC_LATE_FAILED;
				ret = exec_isolate(x, l->dev_idx, &l->range, l->offset, l->length,
						   s->io.res < 0 ? s->io.res : -EIO);
				if (ret < 0 && ret != -EINTR)
					return ret;
			}
		}
	}
}

int exec_recheck(struct exec *x)
{
	int reproduced[SCAN_MAX_DEVICES] = { 0 };
	int ret;

	if (!x->late.nr)
		return 0;
	ret = wait_late(x);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < x->late.nr; i++) {
		struct exec_late *l = &x->late.list[i];
		uint64_t lat;
		ssize_t n;

		if (l->state == EXEC_LATE_WAITING && exec_stopping(x) && !x->r->failing &&
		    exec_now_ns() - l->issue_ns < x->hard_cap_ns) {
			/*
			 * Stopping before the hard cap: a stop is not evidence against the disk.
			 * Nothing is recorded; the read holds the cursor and is read next run.
			 */
			continue;
		}
		if (l->state == EXEC_LATE_WAITING) {
			/* Never answered within the hard cap: the disk is not answering. */
			ret = add_late_error(x, l, l->offset, l->length, SCAN_ERR_TIMEOUT,
					     exec_now_ns() - l->issue_ns, 1, 1);
			if (ret < 0)
				return ret;
			exec_failing(x, "%s did not answer a read in %.0f s",
				     x->devs[l->dev_idx].path ? x->devs[l->dev_idx].path :
				     "the device", (double)(exec_now_ns() - l->issue_ns) / 1e9);
			l->state = EXEC_LATE_DONE;
			continue;
		}
		if (l->state != EXEC_LATE_ANSWERED && l->state != EXEC_LATE_CANCELLED)
			continue;		/* failed: isolated when it answered */
		n = exec_read_alone(x, l->dev_idx, l->offset, (uint32_t)l->length, &lat);
		if (n == -EINTR)
			break;			/* stopping: the rest are said slow once below */
		if (n == -ETIME) {
			ret = add_late_error(x, l, l->offset, l->length, SCAN_ERR_TIMEOUT, lat, 1, 2);
		} else if (is_slow(x, n, l->length, lat)) {
			reproduced[l->dev_idx] = 1;
			ret = narrow_slow(x, l, l->offset, l->length,
					  n == -ECANCELED ? x->o->io_timeout_ns : lat, 2);
			if (ret == -EINTR)
				ret = add_late_error(x, l, l->offset, l->length, SCAN_ERR_SLOW,
						     l->latency_ns, 1, 2);
		} else if (n == (ssize_t)l->length) {
			exec_note_clean(x, l->dev_idx, l->offset, l->length);
			continue;		/* fast alone: decided below */
		} else {
			ret = exec_isolate(x, l->dev_idx, &l->range, l->offset, l->length,
					   n < 0 ? (int)n : -EIO);
		}
		if (ret < 0 && ret != -EINTR)
			return ret;
		l->state = EXEC_LATE_DONE;
	}
	/*
	 * Late once, fast alone. Where a neighbour stayed slow, these only waited behind it;
	 * otherwise the drive was slow once (it may have recovered or remapped the sector):
	 * said so, with the latency seen, as not reproducible.
	 */
	for (size_t i = 0; i < x->late.nr; i++) {
		struct exec_late *l = &x->late.list[i];

		if (l->state != EXEC_LATE_ANSWERED && l->state != EXEC_LATE_CANCELLED)
			continue;
		l->state = EXEC_LATE_DONE;
		if (reproduced[l->dev_idx])
			continue;
		ret = add_late_error(x, l, l->offset, l->length, SCAN_ERR_SLOW, l->latency_ns, 0, 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int exec_late_add(struct exec *x, struct exec_slot *slot, enum exec_late_state state)
{
	struct exec_late *l;

	if (x->late.nr == x->late.cap) {
		size_t cap = x->late.cap ? x->late.cap * 2 : 16;
		struct exec_late *n = realloc(x->late.list, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		x->late.list = n;
		x->late.cap = cap;
	}
	l = &x->late.list[x->late.nr];
	memset(l, 0, sizeof(*l));
	l->dev_idx = slot->io.dev_idx;
	l->offset = slot->io.offset;
	l->length = slot->io.length;
	l->range = slot->range;
	l->issue_ns = slot->io.issue_ns;
	l->latency_ns = state == EXEC_LATE_CANCELLED ? x->o->io_timeout_ns : 0;
	l->state = state;
	slot->late_idx = (int)x->late.nr++;
	return 0;
}

int exec_late_answer(struct exec *x, const struct exec_slot *slot)
{
	struct exec_late *l = &x->late.list[slot->late_idx];

	l->latency_ns = exec_now_ns() - slot->io.issue_ns;
	if (slot->io.res == (int)slot->io.length) {
		l->state = EXEC_LATE_ANSWERED;
		return 1;
	}
	if (slot->io.res == -ECANCELED) {
		l->state = EXEC_LATE_CANCELLED;
		return 1;
	}
	l->state = EXEC_LATE_FAILED;
	return 0;
}

void exec_late_nomem(struct exec *x)
{
	x->late.nomem = -ENOMEM;
}

int exec_late_err(const struct exec *x)
{
	return x->late.nomem;
}

void exec_late_free(struct exec *x)
{
	free(x->late.list);
	x->late.list = NULL;
	x->late.nr = x->late.cap = 0;
}
