/*
 * mediascan/executor.c - drive the plan through an engine: split ranges at the I/O size,
 * keep the queue full within the governor's pace, account planned bytes, hand failed
 * reads to isolation, set aside reads past the I/O timeout (recheck.c settles them), and
 * checkpoint a cursor per device. Drive-side methods run in the same loop: their commands
 * are prepared and decoded in exec_cmd.c; xfs-verify's blocking calls run in exec_vfy.c.
 *
 * Over 600 lines, for now: the loop's pieces (fill, complete, watchdog, reads sent alone or
 * in batches, checkpoints) share one queue's state. Drive-side commands run in this loop
 * (their prep/complete live in exec_cmd.c). The batched reads (exec_read_many, exec_io_alone)
 * and the checkpoints are the next pieces to move to files of their own; they were not moved
 * in the change that merged the range type, queue-depth isolation and commands, to keep that
 * merge reviewable.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "kio.h"
#include "scan.h"

#include "exec.h"

#define EXEC_BATCH 256
#define EXEC_PROGRESS_NS 500000000ull		/* redraw about twice a second */
#define EXEC_SAMPLE_NS 250000000ull		/* foreground-load sampling period */
#define EXEC_MIN_HARD_CAP_NS 10000000000ull	/* a late read is waited for at least 10 s */
#define EXEC_ISO_CHUNK (64 * 1024u)		/* the least buffer piece per slot */

/*
 * The piece of the discard buffer a slot reads into. Data is not kept, but reads in flight
 * together (the loop's and isolation's) never share bytes: the kernel checks protection
 * information in the buffer once a read is done, and a neighbour's data landing there
 * would make good blocks fail and bad ones pass.
 */
static void *exec_slot_buf(const struct exec *x, const struct exec_slot *s)
{
	return (char *)x->eng.buf + (size_t)(s - x->slots) * x->buf_piece;
}

uint64_t exec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return exec_now_ns();
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
	return x->halt || (x->o->stop && *x->o->stop);
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

int exec_late_add(struct exec *x, struct exec_slot *slot, enum exec_late_state state)
{
	struct exec_late *l;

	if (x->nr_late == x->cap_late) {
		size_t cap = x->cap_late ? x->cap_late * 2 : 16;
		struct exec_late *n = realloc(x->late, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		x->late = n;
		x->cap_late = cap;
	}
	l = &x->late[x->nr_late];
	memset(l, 0, sizeof(*l));
	l->dev_idx = slot->io.dev_idx;
	l->offset = slot->io.offset;
	l->length = slot->io.length;
	l->range = slot->range;
	l->issue_ns = slot->io.issue_ns;
	l->latency_ns = state == EXEC_LATE_CANCELLED ? x->o->io_timeout_ns : 0;
	l->state = state;
	slot->late_idx = (int)x->nr_late++;
	return 0;
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
			s->io.issue_ns = now_ns();
			s->timed_out = 0;
			s->alone = 1;
			s->late_idx = -1;
			s->rd_idx = next;
			if (x->cmd_ops) {	/* a drive-side method: the command for it */
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
		now = now_ns();
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
			rd[s->rd_idx].lat_ns = now_ns() - s->io.issue_ns;
		}
	}
	return ret;
}

ssize_t exec_read_alone(struct exec *x, uint32_t dev, uint64_t offset, uint32_t len,
			uint64_t *lat_ns)
{
	struct scan_iso_read rd = { .offset = offset, .length = len };
	int ret;

	if (x->cmd_ops)		/* a drive-side method: one command, prepared and decoded */
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
	slot->io.issue_ns = start = now_ns();
	slot->timed_out = 0;
	slot->alone = 1;
	slot->late_idx = -1;
	if (x->cmd_ops) {
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
		now = now_ns();
		if (got) {
			slot->busy = 0;
			slot->alone = 0;
			x->inflight--;
			*lat_ns = now - start;
			x->r->isolation_reads += count;
			if (slot->io.cmd) {	/* what a read would say; the device's words kept */
				exec_cmd_decode(x, slot);
				x->alone_res = slot->vres;
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

/* Return 1 when the current batch has a range to read, 0 at the end, or -errno. */
int exec_have_work(struct exec *x)
{
	int ret;

	if (x->cmd_refused && x->cmd_ops)
		return 0;			/* refused: nothing more is sent, the rest is read */
	while (x->batch_pos >= x->batch_len) {
		if (x->src_done)
			return 0;
		ret = x->src->next(x->src->arg, x->batch, EXEC_BATCH);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			x->src_done = 1;
			return 0;
		}
		x->batch_len = (unsigned)ret;
		x->batch_pos = 0;
		x->range_pos = x->batch[0].offset;
		for (int i = 0; i < ret; i++)
			x->r->planned_bytes += scan_range_planned_bytes(&x->batch[i],
									x->batch[i].offset,
									x->batch[i].length);
	}
	return 1;
}

/* Length of the next read of the current range. */
static uint32_t exec_next_len(const struct exec *x)
{
	const struct scan_range *rg = &x->batch[x->batch_pos];
	uint64_t len = rg->offset + rg->length - x->range_pos;
	uint64_t max = x->cmd_ops ? x->cmd_max[rg->dev_idx] : x->o->io_size;

	return (uint32_t)(len > max ? max : len);
}

/* Prepare the next read of the current range in slot (exec_have_work() said 1). */
static void exec_take_read(struct exec *x, struct exec_slot *slot, uint64_t now)
{
	struct scan_range *rg = &x->batch[x->batch_pos];
	uint64_t end = rg->offset + rg->length;
	uint32_t len = exec_next_len(x);

	memset(&slot->io, 0, sizeof(slot->io));
	slot->io.offset = x->range_pos;
	slot->io.length = len;
	slot->io.dev_idx = rg->dev_idx;
	slot->io.buf = exec_slot_buf(x, slot);
	slot->io.issue_ns = now;
	slot->io.planned_bytes = scan_range_planned_bytes(rg, x->range_pos, len);
	slot->range = *rg;
	slot->timed_out = 0;
	slot->alone = 0;
	slot->late_idx = -1;
	x->range_pos += len;
	if (x->range_pos >= end) {
		x->batch_pos++;
		if (x->batch_pos < x->batch_len)
			x->range_pos = x->batch[x->batch_pos].offset;
	}
}

int exec_redo(struct exec *x, const struct scan_range *rg, uint64_t offset, uint64_t length)
{
	struct scan_range *b = x->batch;
	unsigned i;

	if (x->batch_len >= EXEC_BATCH + x->o->depth)
		return -ENOMEM;			/* cannot happen: one per slot at most */
	/* What is left of the current range starts at range_pos. */
	if (x->batch_pos < x->batch_len && x->range_pos > b[x->batch_pos].offset) {
		b[x->batch_pos].length -= x->range_pos - b[x->batch_pos].offset;
		b[x->batch_pos].offset = x->range_pos;
	}
	/* In plan order among the pieces put back before. */
	for (i = x->batch_pos; i < x->batch_len; i++)
		if (b[i].dev_idx > rg->dev_idx ||
		    (b[i].dev_idx == rg->dev_idx && b[i].offset > offset))
			break;
	memmove(&b[i + 1], &b[i], (x->batch_len - i) * sizeof(*b));
	b[i] = *rg;
	b[i].offset = offset;
	b[i].length = length;
	x->batch_len++;
	x->range_pos = b[x->batch_pos].offset;
	return 0;
}

void exec_progress(struct exec *x, int force)
{
	struct scan_progress p;
	uint64_t now = now_ns();

	if (!x->o->progress)
		return;
	if (!force && now - x->last_progress_ns < EXEC_PROGRESS_NS)
		return;
	if (now - x->rate_mark_ns >= 1000000000ull) {
		double dt = (double)(now - x->rate_mark_ns) / 1e9;
		double cur = (double)(x->r->scanned_bytes - x->rate_mark_bytes) / dt;

		x->rate_bps = x->rate_bps ? 0.5 * x->rate_bps + 0.5 * cur : cur;
		x->rate_mark_ns = now;
		x->rate_mark_bytes = x->r->scanned_bytes;
	}
	x->last_progress_ns = now;
	memset(&p, 0, sizeof(p));
	p.planned_bytes = x->o->planned_total;
	p.scanned_bytes = x->o->scanned_base + x->r->scanned_bytes;
	p.elapsed_s = (double)(now - x->start_ns) / 1e9;
	p.rate_bps = x->rate_bps ? x->rate_bps :
		(p.elapsed_s > 0 ? (double)x->r->scanned_bytes / p.elapsed_s : 0);
	if (x->have_gov) {
		uint64_t with_ns, base_ns = scan_gov_fg_latency_ns(&x->gov, &with_ns), end;
		bool late;

		p.target_bps = (double)scan_gov_rate_bps(&x->gov);
		p.backing_off = scan_gov_backing_off(&x->gov);
		p.probing = scan_gov_probing(&x->gov);
		p.fg_base_ms = (double)base_ns / 1e6;
		p.fg_lat_ms = (double)with_ns / 1e6;
		end = scan_gov_projected_end_ns(&x->gov, now, &late);
		p.projected_end_s = end > x->start_ns ? (double)(end - x->start_ns) / 1e9 : 0;
		p.window_late = late;
	}
	p.nr_errors = (unsigned)x->r->nr_errors;
	for (size_t i = 0; i < x->r->nr_errors; i++)
		p.nr_damage += scan_is_damage(&x->r->errors[i]);
	x->o->progress(&p, x->o->progress_arg);
}

/* Everything before the returned offset on device d has been read (UINT64_MAX: all). */
static uint64_t exec_cursor(const struct exec *x, unsigned d)
{
	uint64_t cur = UINT64_MAX;
	unsigned next_dev;

	for (unsigned i = 0; i < x->o->depth; i++) {
		const struct exec_slot *s = &x->slots[i];

		if (s->busy && !s->timed_out && s->io.dev_idx == d && s->io.offset < cur)
			cur = s->io.offset;
	}
	if (x->batch_pos < x->batch_len) {
		next_dev = x->batch[x->batch_pos].dev_idx;
		if (next_dev == d && x->range_pos < cur)
			cur = x->range_pos;
		else if (next_dev < d)
			cur = cur < x->cursor[d] ? cur : x->cursor[d];	/* not started yet */
	} else if (!x->src_done) {
		cur = cur < x->cursor[d] ? cur : x->cursor[d];	/* between batches */
	}
	/*
	 * A late read not yet settled, or an isolation a stop cut short, has proven nothing:
	 * it holds the cursor so that a resume (or the next run after SIGKILL) reads it again.
	 */
	for (size_t i = 0; i < x->nr_late; i++) {
		const struct exec_late *l = &x->late[i];

		if (l->dev_idx == d && l->offset < cur && (l->state == EXEC_LATE_WAITING ||
		    l->state == EXEC_LATE_ANSWERED || l->state == EXEC_LATE_CANCELLED))
			cur = l->offset;
	}
	if (x->reread_from[d] < cur)
		cur = x->reread_from[d];
	return cur;
}

/* Hand the cursors and the errors found since the last call to the caller. */
int exec_checkpoint(struct exec *x, int final)
{
	struct scan_checkpoint c;
	int ret;

	if (!x->o->checkpoint)
		return 0;
	for (unsigned d = 0; d < x->nr_devs; d++) {
		uint64_t cur = exec_cursor(x, d);

		if (cur > x->cursor[d])		/* the cursor only ever advances */
			x->cursor[d] = cur;
	}
	memset(&c, 0, sizeof(c));
	c.cursor = x->cursor;
	c.nr_devs = x->nr_devs;
	c.scanned_bytes = x->o->scanned_base + x->r->scanned_bytes;
	c.new_errors = x->r->errors + x->errors_checkpointed;
	c.nr_new_errors = x->r->nr_errors - x->errors_checkpointed;
	c.final = final;
	if (x->have_gov) {
		uint64_t now = now_ns(), wend = scan_gov_window_end_ns(&x->gov), end;
		bool late;

		end = scan_gov_projected_end_ns(&x->gov, now, &late);
		c.has_window = wend != 0;
		c.window_end_in_s = ((double)wend - (double)now) / 1e9;
		c.projected_end_in_s = end > now ? (double)(end - now) / 1e9 : 0;
		c.window_late = late;
		if (x->r->window_late_first_s > 0)
			c.window_late_for_s = (double)(now - x->start_ns) / 1e9 -
					      x->r->window_late_first_s;
	}
	ret = x->o->checkpoint(&c, x->o->checkpoint_arg);
	if (ret == 0) {
		x->errors_checkpointed = x->r->nr_errors;
		x->r->sealed = x->r->nr_errors;
	}
	return ret;
}

/* Isolation's reads: the engine, together, bounded by the hard cap and the stop flag. */
static int exec_iso_read_many(void *arg, uint32_t dev, struct scan_iso_read *rd, unsigned n)
{
	return exec_read_many(arg, dev, rd, n, 1);
}

int exec_isolate(struct exec *x, uint32_t dev, const struct scan_range *rg, uint64_t offset,
		 uint64_t length, int err)
{
	const struct scan_device *d = &x->devs[dev];
	struct scan_isolate si;
	int ret;

	if (x->cmd_ops) {
		ret = exec_cmd_isolate(x, dev, rg, offset, length, err);
		goto out;
	}
	if (x->o->vfy_isolate && x->iso_ready[dev]) {
		uint64_t before = x->r->isolation_reads;

		ret = exec_vfy_span(x, x->o->vfy_isolate, dev, rg, offset, length, 1, 1);
		if (ret == -EINTR)
			goto out;
		if (ret != -EOPNOTSUPP)
			return ret;
		x->r->isolation_reads = before;	/* refused: isolate by plain re-reads */
	}
	memset(&si, 0, sizeof(si));
	si.dev_idx = dev;
	si.lbs = d->logical_block_size;
	si.step_bytes = x->o->isolate_step_bytes;
	si.depth = x->o->depth;
	si.buf = x->eng.buf;
	si.read_many = exec_iso_read_many;
	si.read_arg = x;
	si.range = rg;
	si.r = x->r;
	ret = scan_isolate_range(&si, offset, length, err);
out:
	if (ret == -EINTR) {
		/*
		 * Stopped while narrowing: what is not narrowed is not proven. Nothing is recorded
		 * for the span (a stop is not evidence against the disk, and an error row here
		 * would merge into overlapping damage); the cursor is held at it, so the next run
		 * reads and narrows it again. Stopped to spare a failing disk, the read is said to
		 * have failed once (transient), as it did: never damage.
		 */
		struct scan_error e = {
			.dev_idx = dev, .offset = offset, .length = length, .err = err,
			.cls = scan_classify(err), .reads = 1, .reproducible = 0,
		};

		if (offset < x->reread_from[dev])
			x->reread_from[dev] = offset;
		ret = x->r->failing ? scan_result_add(x->r, &e) : 0;
	}
	return ret;
}

/*
 * A read came back short or failed: the device may have shrunk or gone (the block layer
 * answers EIO past a new end, a short read at it, ENODEV/ENXIO when it is gone). Return 1 when
 * it did: the scan stops, one device fault is recorded for the first such read, and nothing
 * past the new end is damage; 0 when the device is as it was (a failure like any other).
 */
/* Return 1 when device dev is smaller than when the scan began, or gone; 0 otherwise. */
static int exec_dev_shrunk(const struct exec *x, uint32_t dev)
{
	const struct scan_device *d = &x->devs[dev];
	uint64_t size = 0;

	if (!d->size_bytes)
		return 0;
	return kio_bdev_size(d->fd, &size) < 0 || size < d->size_bytes;
}

static int exec_device_changed(struct exec *x, const struct scan_io *io)
{
	const struct scan_device *d = &x->devs[io->dev_idx];
	const char *path = d->path ? d->path : "the device";
	uint64_t size = 0;
	int ret;
	struct scan_error e = {
		.dev_idx = io->dev_idx, .offset = io->offset, .length = io->length,
		.err = -ENXIO, .cls = SCAN_ERR_DEVICE, .reads = 1, .reproducible = 1,
	};

	if (!d->size_bytes)
		return 0;
	ret = kio_bdev_size(d->fd, &size);
	if (ret == 0 && size >= d->size_bytes)
		return 0;
	if (x->dev_changed[io->dev_idx])
		return 1;			/* told once; the reads still in flight say nothing */
	x->dev_changed[io->dev_idx] = 1;
	/*
	 * Reads past the new end that failed (and were narrowed) before the size was seen to
	 * change are no media damage: the bytes are gone, not bad. Drop those not yet
	 * checkpointed; the device fault below says what happened.
	 */
	for (size_t i = x->r->nr_errors; ret == 0 && i-- > x->r->sealed;) {
		struct scan_error *o = &x->r->errors[i];

		if (o->dev_idx != io->dev_idx || o->offset < size ||
		    (o->cls != SCAN_ERR_MEDIA && o->cls != SCAN_ERR_PI))
			continue;
		memmove(o, o + 1, (x->r->nr_errors - i - 1) * sizeof(*o));
		x->r->nr_errors--;
	}
	if (scan_result_add(x->r, &e) < 0)
		x->r->fatal = -ENOMEM;
	if (ret < 0)
		exec_failing(x, "%s is gone (%s)", path, strerror(-ret));
	else
		exec_failing(x, "%s shrank from %llu to %llu bytes during the scan", path,
			     (unsigned long long)d->size_bytes, (unsigned long long)size);
	return 1;
}

/* Return 1 when failed reads a and b are neighbours on one device that were in flight together. */
static int failed_together(const struct exec_failed_read *a, const struct exec_failed_read *b)
{
	return a->dev_idx == b->dev_idx &&
	       (a->offset + a->length == b->offset || b->offset + b->length == a->offset) &&
	       a->issue_ns <= b->done_ns && b->issue_ns <= a->done_ns;
}

/* Drop error i (not yet handed to a checkpoint) of the result. */
static void exec_drop_error(struct exec *x, size_t i)
{
	struct scan_result *r = x->r;

	memmove(&r->errors[i], &r->errors[i + 1], (r->nr_errors - i - 1) * sizeof(*r->errors));
	r->nr_errors--;
}

/*
 * The failed read f was narrowed, adding errors[nr_before..]: remember it; when it proved
 * damage, a neighbour in flight with it that read fine block by block (the block layer merged
 * both into one request, which failed as a whole) is explained by it, and is no transient.
 */
static void exec_explain(struct exec *x, const struct exec_failed_read *f, size_t nr_before)
{
	struct scan_result *r = x->r;
	const struct scan_error *e = nr_before < r->nr_errors ? &r->errors[nr_before] : NULL;
	int proved = 0;

	for (size_t i = nr_before; i < r->nr_errors; i++)
		proved |= scan_is_damage(&r->errors[i]);
	if (proved) {
		x->proved[x->nr_proved++ % EXEC_FAILED_RING] = *f;
		for (unsigned k = 0; k < x->nr_transient && k < EXEC_FAILED_RING; k++) {
			const struct exec_failed_read *t = &x->transient[k];

			if (!t->length || !failed_together(f, t))
				continue;
			for (size_t i = r->sealed; i < nr_before; i++)
				if (r->errors[i].dev_idx == t->dev_idx &&
				    r->errors[i].offset == t->offset &&
				    r->errors[i].length == t->length && !r->errors[i].reproducible &&
				    scan_error_verdict(&r->errors[i]) == SCAN_V_TRANSIENT) {
					exec_drop_error(x, i);
					break;
				}
			x->transient[k].length = 0;
		}
		return;
	}
	/* One transient error for the whole read: is a proven neighbour its cause? */
	if (!e || r->nr_errors != nr_before + 1 || e->offset != f->offset ||
	    e->length != f->length || scan_error_verdict(e) != SCAN_V_TRANSIENT)
		return;
	for (unsigned k = 0; k < x->nr_proved && k < EXEC_FAILED_RING; k++)
		if (failed_together(f, &x->proved[k])) {
			exec_drop_error(x, nr_before);
			return;
		}
	x->transient[x->nr_transient++ % EXEC_FAILED_RING] = *f;
}

/* A read came back: account it, keep a late one for the recheck, or isolate a failure. */
static int exec_complete(struct exec *x, struct exec_slot *slot)
{
	struct scan_io *io = &slot->io, e0;
	struct exec_failed_read f;
	struct scan_range rg;
	size_t nr_before;
	int err = io->res, ret;

	slot->busy = 0;
	x->inflight--;
	if (io->res > 0 && !io->cmd) {
		x->r->read_bytes += (uint64_t)io->res;
		uint64_t lat = now_ns() - io->issue_ns;

		/* Less the wait for a CPU before it was reaped (never below a tenth). */
		lat = x->reap_late_ns < lat - lat / 10 ? lat - x->reap_late_ns : lat / 10;
		exec_own_read(x, io->dev_idx, (uint64_t)io->res, lat);
	}
	if (slot->alone) {
		slot->alone = 0;		/* an abandoned exec_read_alone answered at last */
		return 0;
	}
	if (io->cmd) {
		/* A command: decoded into what a read would say, unless settled there. */
		ret = exec_cmd_done(x, slot);
		if (ret)
			return ret < 0 ? ret : 0;
		err = io->res;
	}
	if (slot->timed_out) {
		/* Reported late (and accounted) by the watchdog: what did it say in the end? */
		struct exec_late *l = &x->late[slot->late_idx];

		l->latency_ns = now_ns() - io->issue_ns;
		if (io->res == (int)io->length) {
			l->state = EXEC_LATE_ANSWERED;
			return 0;
		}
		if (io->res == -ECANCELED) {
			l->state = EXEC_LATE_CANCELLED;
			return 0;
		}
		l->state = EXEC_LATE_FAILED;	/* a failure: isolated below */
	} else {
		x->r->scanned_bytes += io->planned_bytes;
		if (io->res == (int)io->length) {
			exec_note_read(x, io->dev_idx, 0);
			exec_note_clean(x, io->dev_idx, io->offset, io->length);
			return 0;
		}
		if (err == -ECANCELED && x->o->io_timeout_ns) {
			/* The linked timeout fired and the kernel cancelled it: recheck later. */
			x->r->nr_timeouts++;
			exec_note_read(x, io->dev_idx, 1);
			return exec_late_add(x, slot, EXEC_LATE_CANCELLED);
		}
	}
	if (exec_device_changed(x, io))
		return 0;			/* shrunk or gone: not damage */
	if (err >= 0)
		err = -EIO;			/* short read inside the device: treat as failed */
	if (scan_classify(err) == SCAN_ERR_OPERATIONAL) {
		struct scan_error e = {
			.dev_idx = io->dev_idx, .offset = io->offset, .length = io->length,
			.err = err, .cls = SCAN_ERR_OPERATIONAL, .reads = 1, .reproducible = 1,
		};
		return scan_result_add(x->r, &e);
	}
	exec_note_read(x, io->dev_idx, 1);
	/* Isolation's reads may take this very slot: work from copies. */
	rg = slot->range;
	nr_before = x->r->nr_errors;
	e0 = *io;
	f.done_ns = now_ns();
	ret = exec_isolate(x, io->dev_idx, &rg, e0.offset, e0.length, err);
	/*
	 * The device may have shrunk while this was narrowed (a resize is seen by the kernel a
	 * moment after reads past the new end start failing): then what was just found is not
	 * damage. Errors already handed to a checkpoint stay.
	 */
	if (ret == 0 && exec_dev_shrunk(x, e0.dev_idx)) {
		if (x->r->sealed <= nr_before && x->r->nr_errors > nr_before)
			x->r->nr_errors = nr_before;
		exec_device_changed(x, &e0);	/* the one device fault, and the stop */
	} else if (ret == 0 && !x->r->failing) {
		f.dev_idx = e0.dev_idx;
		f.offset = e0.offset;
		f.length = e0.length;
		f.issue_ns = e0.issue_ns;
		exec_explain(x, &f, nr_before);
	}
	return ret;
}

/*
 * Set aside reads in flight longer than the I/O timeout (they are waited for, re-read alone
 * and narrowed once the queue has drained: recheck.c); return ns until the next may expire.
 */
static uint64_t exec_watchdog(struct exec *x, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	if (!x->o->io_timeout_ns)
		return next;
	for (unsigned i = 0; i < x->o->depth; i++) {
		struct exec_slot *s = &x->slots[i];
		uint64_t age;

		if (!s->busy || s->timed_out || s->alone)
			continue;
		age = now - s->io.issue_ns;
		if (age >= x->o->io_timeout_ns) {
			/*
			 * The read is stuck in the device or driver: go on. Its slot stays taken
			 * until the kernel gives it back; the buffer is the shared discard
			 * buffer, so nothing else waits on it.
			 */
			if (exec_late_add(x, s, EXEC_LATE_WAITING) < 0) {
				x->late_nomem = -ENOMEM;	/* the loop stops: no spinning */
				return UINT64_MAX;
			}
			s->timed_out = 1;
			x->r->nr_timeouts++;
			x->r->scanned_bytes += s->io.planned_bytes;
			exec_note_read(x, s->io.dev_idx, 1);
			continue;
		}
		if (x->o->io_timeout_ns - age < next)
			next = x->o->io_timeout_ns - age;
	}
	return next;
}

int exec_own_read(struct exec *x, unsigned dev, uint64_t bytes, uint64_t lat_ns)
{
	x->dev_read_bytes[dev] += bytes;
	x->dev_read_ios[dev]++;
	x->dev_read_ns[dev] += lat_ns;
	return 0;
}

/* Feed the governor fresh disk statistics and our own reads through each view. */
void exec_sample(struct exec *x, uint64_t now)
{
	struct kio_diskstat st[SCAN_GOV_MAX_VIEWS];
	struct scan_gov_own own[SCAN_GOV_MAX_VIEWS];
	unsigned n = 0;

	if (!x->have_gov || now < x->next_sample_ns || !x->o->nr_views)
		return;
	x->next_sample_ns = now + EXEC_SAMPLE_NS;
	for (unsigned v = 0; v < x->o->nr_views; v++) {
		if (kio_diskstat_read(x->o->views[v].name, &st[n]) < 0)
			return;			/* a view vanished: skip this sample */
		memset(&own[n], 0, sizeof(own[n]));
		for (unsigned d = 0; d < x->nr_devs; d++)
			if (x->o->views[v].dev_mask & (1u << d)) {
				own[n].sectors += x->dev_read_bytes[d] / 512;
				own[n].ios += x->dev_read_ios[d];
				own[n].ns += x->dev_read_ns[d];
			}
		own[n].inflight = x->inflight;	/* all devices': a view may see fewer */
		n++;
	}
	scan_gov_sample_own(&x->gov, now, st, own, n);
	if (!x->r->window_late_first_s) {
		bool late;

		scan_gov_projected_end_ns(&x->gov, now, &late);
		if (late) {
			x->r->window_late_first_s = (double)(now - x->start_ns) / 1e9;
			/* Said early: the state store (status, metrics) hears it at once. */
			if (x->o->checkpoint_interval_ns)
				x->next_checkpoint_ns = now;
		}
	}
}

/* Fill the queue within the governor's pace; return ns to wait before the next try. */
static int exec_fill(struct exec *x, uint64_t now, uint64_t *wait_ns)
{
	int ret;

	*wait_ns = UINT64_MAX;
	for (unsigned i = 0; i < x->o->depth && x->inflight < x->o->depth; i++) {
		struct exec_slot *slot = &x->slots[i];

		if (slot->busy)
			continue;
		if (exec_stopping(x))
			break;
		ret = exec_have_work(x);
		if (ret <= 0)
			return ret;
		if (x->have_gov) {
			uint64_t w = scan_gov_wait_ns(&x->gov, now, exec_next_len(x));

			if (w) {
				*wait_ns = w;
				return 0;
			}
		}
		exec_take_read(x, slot, now);
		if (x->cmd_ops && (ret = exec_cmd_prep(x, slot)) < 0) {
			ret = exec_cmd_unsent(x, slot, ret);	/* could not be built */
			if (ret < 0)
				return ret;
			continue;
		}
		ret = x->eng.ops->queue(&x->eng, &slot->io);
		if (ret < 0) {
			/* Cannot happen with depth slots; do not lose the read if it does. */
			return ret;
		}
		if (x->have_gov)
			scan_gov_account(&x->gov, slot->io.length, now);
		slot->busy = 1;
		x->inflight++;
		if (x->inflight > x->r->max_inflight)
			x->r->max_inflight = x->inflight;
	}
	return 0;
}

/* Completions that arrived while exec_read_alone waited for its own read. */
static int exec_complete_deferred(struct exec *x)
{
	int ret;

	while (x->nr_deferred) {
		ret = exec_complete(x, x->deferred[--x->nr_deferred]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int exec_loop(struct exec *x)
{
	uint64_t now, wait, dog, timeout;
	int ret, n;

	for (;;) {
		now = now_ns();
		if (x->o->max_duration_ns && now - x->start_ns >= x->o->max_duration_ns &&
		    !x->r->stopped) {
			x->r->stopped = 2;
			*x->o->stop = 1;
		}
		ret = exec_fill(x, now, &wait);
		if (ret < 0)
			return ret;
		ret = x->eng.ops->commit(&x->eng);
		if (ret < 0)
			return ret;
		dog = exec_watchdog(x, now);
		if (x->late_nomem)
			return x->late_nomem;
		if (x->cmd_refused && x->cmd_ops && x->inflight == 0)
			return -EOPNOTSUPP;	/* drained: the rest is read */
		if (x->inflight == 0) {
			if (exec_stopping(x) || (x->src_done && x->batch_pos >= x->batch_len))
				return 0;
		}
		/* Only timed-out reads left and nothing else to do: stop waiting for them. */
		if (x->inflight && (exec_stopping(x) || (x->src_done &&
							  x->batch_pos >= x->batch_len) ||
				    (x->cmd_refused && x->cmd_ops))) {
			unsigned live = 0;

			for (unsigned i = 0; i < x->o->depth; i++)
				live += x->slots[i].busy && !x->slots[i].timed_out &&
					!x->slots[i].alone;
			if (!live)
				return x->cmd_refused && x->cmd_ops ? -EOPNOTSUPP : 0;
		}
		timeout = wait < dog ? wait : dog;
		if (timeout > EXEC_IDLE_WAIT_NS)
			timeout = EXEC_IDLE_WAIT_NS;
		if (x->inflight == 0) {
			exec_sleep_ns(timeout);
			n = 0;
		} else {
			uint64_t rd0 = 0, rd1 = 0;
			int have_rd = x->sched_fd >= 0 &&
				      kio_schedstat_run_delay(x->sched_fd, &rd0) == 0;

			n = x->eng.ops->getevents(&x->eng, 1, x->done, x->nr_slots, timeout);
			if (n < 0)
				return n;
			/* Woken by a completion but waiting for a CPU: that is not the disk's. */
			have_rd = have_rd && kio_schedstat_run_delay(x->sched_fd, &rd1) == 0;
			x->reap_late_ns = have_rd && rd1 > rd0 ? rd1 - rd0 : 0;
		}
		for (int i = 0; i < n; i++) {
			ret = exec_complete(x, (struct exec_slot *)x->done[i]);
			if (ret < 0)
				return ret;
		}
		ret = exec_complete_deferred(x);
		if (ret < 0)
			return ret;
		now = now_ns();
		exec_sample(x, now);
		exec_progress(x, 0);
		if (x->o->checkpoint_interval_ns && now >= x->next_checkpoint_ns) {
			/*
			 * A checkpoint the store refused (busy, full) keeps its errors pending for
			 * the next one; the scan goes on. The last one says whether all were kept.
			 * The interval counts from its end: a busy store (each try waits out its
			 * busy timeout) must not take every turn of the loop.
			 */
			exec_checkpoint(x, 0);
			x->next_checkpoint_ns = now_ns() + x->o->checkpoint_interval_ns;
		}
	}
}

int scan_run(const struct scan_device *devs, unsigned nr_devs, struct scan_source *src,
	     const struct scan_opts *o, struct scan_result *r)
{
	const struct scan_engine_ops *ops;
	struct exec *x;
	int fds[SCAN_MAX_DEVICES];
	enum kio_buf_kind kind;
	int ret, eng_ready = 0;

	if (nr_devs == 0 || nr_devs > SCAN_MAX_DEVICES || o->depth == 0 || o->io_size == 0 ||
	    (o->max_duration_ns && !o->stop))
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->sched_fd = -1;
	x->devs = devs;
	x->nr_devs = nr_devs;
	x->o = o;
	x->r = r;
	x->src = src;
	ops = scan_engine_pick(o->engine, r->fatal_msg, sizeof(r->fatal_msg), r->engine_note,
			       sizeof(r->engine_note));
	if (!ops) {
		ret = -EOPNOTSUPP;
		goto out_x;
	}
	snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	for (unsigned i = 0; i < nr_devs; i++)
		fds[i] = devs[i].fd;
	x->eng.ops = ops;
	x->eng.fds = fds;
	x->eng.nr_fds = nr_devs;
	/* As many slots again for isolation: its reads go out together while the loop's wait. */
	x->nr_slots = 2 * o->depth;
	x->eng.depth = x->nr_slots;
	x->buf_piece = ((size_t)(o->io_size > EXEC_ISO_CHUNK ? o->io_size : EXEC_ISO_CHUNK) + 4095) &
		       ~(size_t)4095;
	x->eng.buf_len = (size_t)x->nr_slots * x->buf_piece;
	x->eng.buf_piece = x->buf_piece;
	x->eng.io_timeout_ns = o->io_timeout_ns;
	/*
	 * The read method keeps no data, but every slot reads into a piece of the buffer of
	 * its own (exec_slot_buf): 2 x depth x io_size bytes, registered once with io_uring.
	 */
	x->eng.buf = kio_buf_alloc(x->eng.buf_len, &x->buf_map_len, &kind);
	if (!x->eng.buf) {
		ret = -ENOMEM;
		goto out_x;
	}
	/*
	 * Small pages split a read that needs more than max_segments of them in two at the
	 * block layer. Capping reads at max_segments pages instead was measured no faster
	 * (docs/performance.md, "THP never"), so reads keep their size; the report says.
	 */
	r->io_size = o->io_size;
	r->io_buffer = kind == KIO_BUF_PAGES ? "pages" : kind == KIO_BUF_HUGETLB ? "hugetlb" : "thp";
	x->slots = calloc(x->nr_slots, sizeof(*x->slots));
	x->done = calloc(x->nr_slots, sizeof(*x->done));
	x->done_alone = calloc(x->nr_slots, sizeof(*x->done_alone));
	x->deferred = calloc(x->nr_slots, sizeof(*x->deferred));
	x->batch = calloc(EXEC_BATCH + o->depth, sizeof(*x->batch));	/* + pieces put back */
	if (!x->slots || !x->done || !x->done_alone || !x->deferred || !x->batch) {
		ret = -ENOMEM;
		goto out_mem;
	}
	for (unsigned d = 0; d < nr_devs; d++) {
		x->cursor[d] = o->start_cursor[d];
		x->reread_from[d] = UINT64_MAX;
	}
	/*
	 * A read past the I/O timeout is waited for this long before the disk is called not
	 * answering: a drive that retries a sector internally may take a minute.
	 */
	for (size_t i = 0; i < o->nr_watch; i++)
		if (o->watch[i].length > x->watch_max_len)
			x->watch_max_len = o->watch[i].length;
	x->hard_cap_ns = UINT64_MAX;
	if (o->io_timeout_ns)
		x->hard_cap_ns = o->io_timeout_ns * 4 > EXEC_MIN_HARD_CAP_NS ?
				 o->io_timeout_ns * 4 : EXEC_MIN_HARD_CAP_NS;
	x->start_ns = x->last_progress_ns = x->rate_mark_ns = now_ns();
	x->next_checkpoint_ns = x->start_ns + o->checkpoint_interval_ns;
	if (o->gov) {
		ret = scan_gov_init(&x->gov, o->gov, x->start_ns);
		if (ret < 0) {
			snprintf(r->fatal_msg, sizeof(r->fatal_msg), "bad rate settings");
			goto out_mem;
		}
		x->have_gov = 1;
	}
	x->sched_fd = o->gov && o->gov->latency ? kio_schedstat_open() : -1;
	if (o->vfy && (o->vfy->caps & (VFY_CAP_CMD_NVME | VFY_CAP_CMD_SCSI))) {
		/* Device commands through the one loop; the engine reads only what is refused. */
		ret = exec_cmd_start(x);
		eng_ready = ret == 0;
		if (ret == 0)
			ret = exec_loop(x);
		if (ret == 0)
			ret = exec_recheck(x);
		if (ret != -EOPNOTSUPP || x->inflight) {
			if (ret == -EOPNOTSUPP)
				snprintf(r->fatal_msg, sizeof(r->fatal_msg), "%s was refused while "
					 "commands were still in flight", o->vfy->name);
			goto out_loop;
		}
		if (eng_ready)
			x->eng.ops->cleanup(&x->eng);
		eng_ready = 0;
		exec_cmd_stop(x);
		x->eng.ops = ops;
		x->eng.fds = fds;
		snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	} else if (o->vfy && (o->vfy->caps & VFY_CAP_SYNC)) {
		/* Blocking calls only (xfs-verify): the engine only reads what it refuses. */
		ret = exec_vfy_init(x, o->vfy, x->vfy_ready);
		if (ret == 0) {
			snprintf(r->engine, sizeof(r->engine), "passthrough");
			ret = exec_vfy_loop(x);
		} else {
			snprintf(r->fatal_msg, sizeof(r->fatal_msg), "method %s failed to start: %s",
				 o->vfy->name, strerror(-ret));
		}
		exec_vfy_cleanup(x, o->vfy, x->vfy_ready);
		if (ret != -EOPNOTSUPP)
			goto out_loop;
		snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	}
	if (o->vfy_isolate && exec_vfy_init(x, o->vfy_isolate, x->iso_ready) < 0)
		exec_vfy_cleanup(x, o->vfy_isolate, x->iso_ready);	/* plain re-reads then */
	ret = ops->init(&x->eng);
	if (ret < 0) {
		snprintf(r->fatal_msg, sizeof(r->fatal_msg), "engine %s failed to start: %s",
			 ops->name, strerror(-ret));
		exec_vfy_cleanup(x, o->vfy_isolate, x->iso_ready);
		goto out_mem;
	}
	eng_ready = 1;
	ret = exec_loop(x);
	if (ret == 0)
		ret = exec_recheck(x);		/* the late reads, now that the queue is empty */
out_loop:
	if (ret < 0) {
		r->fatal = ret;
		if (!r->fatal_msg[0])
			snprintf(r->fatal_msg, sizeof(r->fatal_msg), "scan stopped: %s",
				 strerror(-ret));
		ret = 0;
	}
	/* Let live reads finish before their buffer goes away (timed-out ones may not). */
	for (unsigned tries = 0; eng_ready && x->inflight && tries < 50; tries++) {
		int n = x->eng.ops->getevents(&x->eng, 1, x->done, x->nr_slots, EXEC_IDLE_WAIT_NS);

		for (int i = 0; i < n; i++)
			exec_complete(x, (struct exec_slot *)x->done[i]);
		exec_complete_deferred(x);
		if (n < 0)
			break;
	}
	if (o->stop && *o->stop && !r->stopped)
		r->stopped = 1;
	r->elapsed_s = (double)(now_ns() - x->start_ns) / 1e9;
	r->complete = x->src_done && x->batch_pos >= x->batch_len && !r->fatal && !r->stopped &&
		      !r->failing;
	if (x->have_gov) {
		uint64_t end_ns = now_ns(), with_ns, base_ns, end;
		bool late;

		r->nr_backoffs = scan_gov_backoffs(&x->gov);
		r->backoff_s = (double)scan_gov_backoff_ns(&x->gov, end_ns) / 1e9;
		r->pacing = x->gov.o.latency ? "latency" : x->gov.o.backoff ? "backoff" : "fixed";
		r->nr_probes = x->gov.nr_probes;
		r->probe_s = (double)x->gov.probe_ns / 1e9;
		base_ns = scan_gov_fg_latency_ns(&x->gov, &with_ns);
		r->fg_base_ms = (double)base_ns / 1e6;
		r->fg_lat_ms = (double)with_ns / 1e6;
		end = scan_gov_projected_end_ns(&x->gov, end_ns, &late);
		r->projected_end_s = end > x->start_ns ? (double)(end - x->start_ns) / 1e9 : 0;
		r->window_late = late || r->window_late_first_s > 0;
	}
	if (!r->fatal) {
		int cret = exec_checkpoint(x, 1);

		/*
		 * Refused (busy, full): errors[sealed..] are not in the store. The caller
		 * sees that (sealed < nr_errors), may try again, and settles nothing if not.
		 */
		(void)cret;
	}
	exec_progress(x, 1);
	/*
	 * An engine whose cleanup waits for I/O in flight is left alone while a hung read or
	 * command still owns it: tearing it down would block until the device answers. The
	 * process exits soon and the kernel reaps it then.
	 */
	if (eng_ready && (x->inflight == 0 || !(x->eng.ops->caps & SCAN_ENG_CLEANUP_WAITS)))
		x->eng.ops->cleanup(&x->eng);
	if (o->vfy_isolate)
		exec_vfy_cleanup(x, o->vfy_isolate, x->iso_ready);
	exec_cmd_stop(x);
out_mem:
	if (x->sched_fd >= 0)
		close(x->sched_fd);
	if (x->inflight == 0)		/* a pool thread stuck in a command still owns its slot */
		free(x->slots);
	free(x->done);
	free(x->done_alone);
	free(x->deferred);
	free(x->batch);
	free(x->late);
	if (x->inflight == 0)
		kio_buf_free(x->eng.buf, x->buf_map_len);
out_x:
	free(x);
	return ret;
}

int scan_result_free(struct scan_result *r)
{
	free(r->errors);
	r->errors = NULL;
	r->nr_errors = 0;
	return 0;
}

/*
 * I/O size policy: 1 MiB within every device's queue limit (max_sectors_kb); a size asked is
 * used as asked (the block layer splits what is above the limit; the caller says so), a
 * multiple of the largest logical block size.
 */
uint32_t scan_io_size(const struct scan_device *devs, unsigned nr, uint64_t asked)
{
	uint64_t io = asked ? asked : SCAN_DEFAULT_IO_SIZE;
	uint32_t lbs = 512;

	for (unsigned i = 0; i < nr; i++) {
		if (!asked && devs[i].max_io_bytes && io > devs[i].max_io_bytes)
			io = devs[i].max_io_bytes;
		if (devs[i].logical_block_size > lbs)
			lbs = devs[i].logical_block_size;
	}
	io -= io % lbs;
	return (uint32_t)(io ? io : lbs);
}
