/*
 * mediascan/exec_queue.c - the executor's queue: slots, each with its piece of the buffer, and
 * what every layer above sends through them. Reads (or a drive-side method's commands, built
 * for a slot's piece and decoded into what a read would have said) sent alone or as a batch
 * and waited for, bounded by the hard cap and the stop flag; completions that belong to the
 * loop are set aside for it (x->deferred). Also the bookkeeping every completion does: the
 * failing-disk run, clean bytes under the watches, our own reads for pacing, reads gone late.
 * It calls nothing of the executor's other files: exec_cmd.c, exec_vfy.c, exec_isolate.c,
 * recheck.c and the loop (executor.c) call it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"

uint64_t exec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void exec_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	nanosleep(&ts, NULL);		/* EINTR: the loop looks at the stop flag */
}

int exec_stopping(const struct exec *x)
{
	return x->halt || x->r->voided || (x->o->stop && *x->o->stop);
}

void exec_failing(struct exec *x, const char *fmt, ...)
{
	va_list ap;

	x->halt = 1;
	if (x->r->failing)
		return;				/* the first reason is the one to tell */
	x->r->failing = 1;
	va_start(ap, fmt);
	vsnprintf(x->r->failing_msg, sizeof(x->r->failing_msg), fmt, ap);
	va_end(ap);
}

void exec_note_read(struct exec *x, uint32_t dev, int bad)
{
	if (!bad) {
		x->bad_run[dev] = 0;
		return;
	}
	x->r->failed_ios[dev]++;
	if (x->o->max_failed_reads && ++x->bad_run[dev] >= x->o->max_failed_reads)
		exec_failing(x, "%u reads in a row failed or answered late on %s",
			     x->bad_run[dev], x->devs[dev].path ? x->devs[dev].path : "the device");
}

void exec_note_clean(struct exec *x, uint32_t dev, uint64_t offset, uint64_t length)
{
	const struct scan_opts *o = x->o;
	size_t lo = 0, hi = o->nr_watch;

	if (!o->nr_watch)
		return;
	/* The first watch at or after (dev, offset - longest watch), then forward. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct scan_watch *w = &o->watch[mid];

		if (w->dev_idx < dev || (w->dev_idx == dev &&
					 w->offset + x->watch_max_len <= offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < o->nr_watch; i++) {
		struct scan_watch *w = &o->watch[i];
		uint64_t a, b;

		if (w->dev_idx != dev || w->offset >= offset + length)
			break;
		a = w->offset > offset ? w->offset : offset;
		b = w->offset + w->length < offset + length ? w->offset + w->length :
		    offset + length;
		if (a < b)
			w->clean_bytes += b - a;
	}
}

int exec_own_read(struct exec *x, unsigned dev, uint64_t bytes, uint64_t lat_ns)
{
	uint64_t split = x->own.split[dev], n = split && bytes > split ?
					      (bytes + split - 1) / split : 1;

	/* A read the block layer split is n requests in the disk's counts, in flight together:
	 * counted as n, or its pieces would pass for another user's requests. */
	x->own.bytes[dev] += bytes;
	x->own.ios[dev] += n;
	x->own.ns[dev] += lat_ns * n;
	return 0;
}

int exec_own_cmd(struct exec *x, unsigned dev, uint64_t lat_ns)
{
	x->own.cmd_ios[dev]++;
	x->own.cmd_ns[dev] += lat_ns;
	return 0;
}

void exec_own_sum(const struct exec *x, unsigned dev, struct scan_gov_own *own)
{
	own->sectors += x->own.bytes[dev] / 512;
	own->ios += x->own.ios[dev];
	own->ns += x->own.ns[dev];
	own->cmd_ios += x->own.cmd_ios[dev];
	own->cmd_ns += x->own.cmd_ns[dev];
}

const struct vfy_result *exec_alone_said(const struct exec *x)
{
	return &x->alone_res;
}

/* Isolation's bookkeeping for one read that answered: failing-disk run, clean watches. */
static void exec_iso_note(struct exec *x, uint32_t dev, struct scan_iso_read *rd)
{
	if (rd->res == -ECANCELED)
		rd->res = -ETIME;		/* not answered within the I/O timeout */
	exec_note_read(x, dev, rd->res != (ssize_t)rd->length);
	if (rd->res == (ssize_t)rd->length &&
	    (!x->o->io_timeout_ns || rd->lat_ns <= x->o->io_timeout_ns))
		exec_note_clean(x, dev, rd->offset, rd->length);	/* clean reads never overlap */
}

/* A read of exec_read_many's answered: free its slot and account it. */
static void exec_many_done(struct exec *x, struct exec_slot *s, struct scan_iso_read *rd,
			   uint64_t now, int iso)
{
	s->busy = 0;
	s->alone = 0;
	x->inflight--;
	memset(&rd->vres, 0, sizeof(rd->vres));
	if (s->io.cmd) {		/* what a read would say; the device's words kept */
		exec_cmd_decode(x, s);
		rd->vres = s->vres;
		exec_own_cmd(x, s->io.dev_idx, now - s->io.issue_ns);
	} else if (s->io.res > 0) {	/* own I/O for pacing; not in read_bytes */
		exec_own_read(x, s->io.dev_idx, (uint64_t)s->io.res, now - s->io.issue_ns);
	}
	rd->res = s->io.res;
	rd->lat_ns = now - s->io.issue_ns;
	x->r->isolation_reads++;
	if (iso)
		exec_iso_note(x, s->io.dev_idx, rd);
}

int exec_read_many(struct exec *x, uint32_t dev, struct scan_iso_read *rd, unsigned n,
		   int iso)
{
	unsigned next = 0, mine = 0;
	int ret = 0;

	for (unsigned i = 0; i < n; i++) {
		rd[i].res = -EINTR;
		rd[i].lat_ns = 0;
	}
	for (;;) {
		uint64_t now;
		int nr;

		if (exec_stopping(x)) {
			ret = -EINTR;
			break;
		}
		for (unsigned i = 0; i < x->nr_slots && next < n; i++) {
			struct exec_slot *s = &x->slots[i];

			if (s->busy)
				continue;
			memset(&s->io, 0, sizeof(s->io));
			memset(&s->range, 0, sizeof(s->range));
			s->io.offset = rd[next].offset;
			s->io.length = rd[next].length;
			s->io.dev_idx = dev;
			s->io.buf = exec_slot_buf(x, s);
			s->io.issue_ns = exec_now_ns();
			s->timed_out = 0;
			s->alone = 1;
			s->late_idx = -1;
			s->rd_idx = next;
			if (exec_cmd_on(x)) {	/* a drive-side method: the command for it */
				ret = exec_cmd_prep(x, s);
				if (ret < 0)
					break;
			}
			ret = x->eng.ops->queue(&x->eng, &s->io);
			if (ret == -EBUSY && mine) {
				ret = 0;	/* the ring is full: the rest after these */
				break;
			}
			if (ret < 0)
				break;
			s->busy = 1;
			x->inflight++;
			mine++;
			next++;
		}
		if (ret < 0)
			break;
		ret = x->eng.ops->commit(&x->eng);
		if (ret < 0)
			break;
		ret = 0;
		if (!mine) {
			if (next == n)
				return 0;
			ret = -EBUSY;		/* no free slot at all */
			break;
		}
		nr = x->eng.ops->getevents(&x->eng, 1, x->done_alone, x->nr_slots,
					   EXEC_IDLE_WAIT_NS);
		if (nr < 0) {
			ret = nr;
			break;
		}
		now = exec_now_ns();
		for (int i = 0; i < nr; i++) {
			struct exec_slot *s = (struct exec_slot *)x->done_alone[i];

			if (!s->alone || s->timed_out) {
				x->deferred[x->nr_deferred++] = s;	/* for the loop */
				continue;
			}
			exec_many_done(x, s, &rd[s->rd_idx], now, iso);
			mine--;
		}
		if (!mine && next == n)
			return 0;
		for (unsigned i = 0; i < x->nr_slots; i++) {
			struct exec_slot *s = &x->slots[i];

			if (!s->busy || !s->alone || s->timed_out ||
			    now - s->io.issue_ns < x->hard_cap_ns)
				continue;
			s->timed_out = 1;	/* abandoned in flight: exec_complete frees it */
			rd[s->rd_idx].res = -ETIME;
			rd[s->rd_idx].lat_ns = now - s->io.issue_ns;
			mine--;
			exec_failing(x, "%s did not answer a read in %.0f s",
				     x->devs[dev].path ? x->devs[dev].path : "the device",
				     (double)(now - s->io.issue_ns) / 1e9);
			if (iso)
				exec_note_read(x, dev, 1);
		}
		if (!mine && next == n)
			return 0;
	}
	/* Stopping, or the engine failed: what is still in flight is abandoned. */
	for (unsigned i = 0; i < x->nr_slots; i++) {
		struct exec_slot *s = &x->slots[i];

		if (s->busy && s->alone && !s->timed_out) {
			s->timed_out = 1;
			rd[s->rd_idx].lat_ns = exec_now_ns() - s->io.issue_ns;
		}
	}
	return ret;
}

ssize_t exec_read_alone(struct exec *x, uint32_t dev, uint64_t offset, uint32_t len,
			uint64_t *lat_ns)
{
	struct scan_iso_read rd = { .offset = offset, .length = len };
	int ret;

	/* a drive-side method: one command, prepared and decoded */
	if (exec_cmd_on(x))
		return exec_io_alone(x, dev, offset, len, lat_ns, 1);
	ret = exec_read_many(x, dev, &rd, 1, 0);
	*lat_ns = rd.lat_ns;
	if (ret < 0 && rd.res == -EINTR)
		return ret;
	return rd.res;
}

ssize_t exec_io_alone(struct exec *x, uint32_t dev, uint64_t offset, uint32_t len,
		      uint64_t *lat_ns, int count)
{
	struct exec_slot *slot = NULL;
	uint64_t start, now;
	int ret, got = 0;

	*lat_ns = 0;
	if (exec_stopping(x))
		return -EINTR;
	for (unsigned i = 0; i < x->nr_slots && !slot; i++)
		if (!x->slots[i].busy)
			slot = &x->slots[i];
	if (!slot)
		return -EBUSY;
	memset(&slot->io, 0, sizeof(slot->io));
	memset(&slot->range, 0, sizeof(slot->range));
	slot->io.offset = offset;
	slot->io.length = len;
	slot->io.dev_idx = dev;
	slot->io.buf = exec_slot_buf(x, slot);
	slot->io.issue_ns = start = exec_now_ns();
	slot->timed_out = 0;
	slot->alone = 1;
	slot->late_idx = -1;
	if (exec_cmd_on(x)) {
		memset(&x->alone_res, 0, sizeof(x->alone_res));
		ret = exec_cmd_prep(x, slot);
		if (ret < 0)
			return ret;
	}
	ret = x->eng.ops->queue(&x->eng, &slot->io);
	if (ret < 0)
		return ret;
	slot->busy = 1;
	x->inflight++;
	ret = x->eng.ops->commit(&x->eng);
	if (ret < 0) {
		slot->timed_out = 1;		/* may still complete: exec_complete frees it */
		return ret;
	}
	for (;;) {
		int n = x->eng.ops->getevents(&x->eng, 1, x->done_alone, x->nr_slots,
					      EXEC_IDLE_WAIT_NS);

		if (n < 0) {
			slot->timed_out = 1;
			return n;
		}
		for (int i = 0; i < n; i++) {
			struct exec_slot *s = (struct exec_slot *)x->done_alone[i];

			if (s == slot)
				got = 1;
			else
				x->deferred[x->nr_deferred++] = s;	/* for the loop */
		}
		now = exec_now_ns();
		if (got) {
			slot->busy = 0;
			slot->alone = 0;
			x->inflight--;
			*lat_ns = now - start;
			x->r->isolation_reads += count;
			if (slot->io.cmd) {	/* what a read would say; the device's words kept */
				exec_cmd_decode(x, slot);
				x->alone_res = slot->vres;
				exec_own_cmd(x, slot->io.dev_idx, *lat_ns);
			} else if (slot->io.res > 0) {	/* own I/O for pacing; not in read_bytes */
				exec_own_read(x, dev, (uint64_t)slot->io.res, now - start);
			}
			return slot->io.res;
		}
		*lat_ns = now - start;
		if (exec_stopping(x)) {
			slot->timed_out = 1;	/* abandoned: exec_complete frees it */
			return -EINTR;
		}
		if (now - start >= x->hard_cap_ns) {
			slot->timed_out = 1;
			exec_failing(x, "%s did not answer a read in %.0f s",
				     x->devs[dev].path ? x->devs[dev].path : "the device",
				     (double)(now - start) / 1e9);
			return -ETIME;
		}
	}
}

int exec_cmd_prep(struct exec *x, struct exec_slot *slot)
{
	struct vfy_dev *vd = exec_cmd_dev(x, slot->io.dev_idx);
	uint64_t lba = (slot->io.offset + vd->part_start_bytes) / vd->lbs;
	uint32_t nlb = slot->io.length / vd->lbs;
	int ret;

	slot->io.cmd = NULL;
	if (!nlb)
		return -EINVAL;
	ret = exec_cmd_ops(x)->prep(vd, lba, nlb, &slot->cmd, slot->cmd_buf);
	if (ret < 0)
		return ret;
	slot->io.cmd = &slot->cmd;
	return 0;
}

int exec_cmd_complete(struct exec *x, struct exec_slot *slot)
{
	struct vfy_dev *vd = exec_cmd_dev(x, slot->io.dev_idx);
	uint64_t lba = (slot->io.offset + vd->part_start_bytes) / vd->lbs;

	memset(&slot->vres, 0, sizeof(slot->vres));
	if (slot->io.res < 0)
		return slot->io.res;		/* not sent, or not answered (cancelled) */
	return exec_cmd_ops(x)->complete(vd, lba, slot->io.length / vd->lbs, &slot->cmd,
				    slot->cmd_buf, &slot->vres);
}

int exec_cmd_decode(struct exec *x, struct exec_slot *slot)
{
	int ret = exec_cmd_complete(x, slot);

	if (ret == 0)
		slot->io.res = (int)slot->io.length;
	else if (ret == 1)
		slot->io.res = vfy_fail_errno(&slot->vres);
	else
		slot->io.res = ret;
	return ret;
}
