/*
 * mediascan/exec_progress.c - what the executor tells and records as it goes: the progress
 * callback (rate, the governor's view, errors so far), the governor's disk-statistics samples
 * with our own reads taken off, and checkpoints (a cursor per device that only advances and is
 * held at what is not proven yet, and the errors found since the last one).
 */
#include <string.h>

#include "kio.h"
#include "exec.h"

#define EXEC_PROGRESS_NS 500000000ull		/* redraw about twice a second */

void exec_progress(struct exec *x, int force)
{
	struct scan_progress p;
	uint64_t now = exec_now_ns();

	if (!x->o->progress)
		return;
	if (!force && now - x->pace.last_progress_ns < EXEC_PROGRESS_NS)
		return;
	if (now - x->pace.rate_mark_ns >= 1000000000ull) {
		double dt = (double)(now - x->pace.rate_mark_ns) / 1e9;
		double cur = (double)(x->r->scanned_bytes - x->pace.rate_mark_bytes) / dt;

		x->pace.rate_bps = x->pace.rate_bps ? 0.5 * x->pace.rate_bps + 0.5 * cur : cur;
		x->pace.rate_mark_ns = now;
		x->pace.rate_mark_bytes = x->r->scanned_bytes;
	}
	x->pace.last_progress_ns = now;
	memset(&p, 0, sizeof(p));
	p.planned_bytes = x->o->planned_total;
	p.scanned_bytes = x->o->scanned_base + x->r->scanned_bytes;
	p.elapsed_s = (double)(now - x->start_ns) / 1e9;
	p.rate_bps = x->pace.rate_bps ? x->pace.rate_bps :
		(p.elapsed_s > 0 ? (double)x->r->scanned_bytes / p.elapsed_s : 0);
	if (x->pace.have_gov) {
		uint64_t with_ns, base_ns = scan_gov_fg_latency_ns(&x->pace.gov, &with_ns), end;
		bool late;

		p.target_bps = (double)scan_gov_rate_bps(&x->pace.gov);
		p.backing_off = scan_gov_backing_off(&x->pace.gov);
		p.probing = scan_gov_probing(&x->pace.gov);
		p.fg_base_ms = (double)base_ns / 1e6;
		p.fg_lat_ms = (double)with_ns / 1e6;
		end = scan_gov_projected_end_ns(&x->pace.gov, now, &late);
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
	uint64_t cur = UINT64_MAX, next_pos;
	uint32_t next_dev;
	int next;

	for (unsigned i = 0; i < x->o->depth; i++) {
		const struct exec_slot *s = &x->slots[i];

		if (s->busy && !s->timed_out && s->io.dev_idx == d && s->io.offset < cur)
			cur = s->io.offset;
	}
	next = exec_feed_next(x, &next_dev, &next_pos);
	if (next == 1) {
		if (next_dev == d && next_pos < cur)
			cur = next_pos;
		else if (next_dev < d)
			cur = cur < x->ckpt.cursor[d] ? cur : x->ckpt.cursor[d]; /* not begun */
	} else if (next == 0) {
		cur = cur < x->ckpt.cursor[d] ? cur : x->ckpt.cursor[d]; /* between batches */
	}
	/*
	 * A late read not yet settled, or an isolation a stop cut short, has proven nothing:
	 * it holds the cursor so that a resume (or the next run after SIGKILL) reads it again.
	 */
	cur = exec_late_low_offset(x, d, cur);
	if (x->ckpt.reread_from[d] < cur)
		cur = x->ckpt.reread_from[d];
	return cur;
}

/*
 * How many of the source's ranges, in the order it gave them, are read in full: the lowest
 * seq of what is not proven yet (a read in flight, the current and the pieces put back in the
 * batch, a late read not settled, an isolation a stop cut short), or all taken so far.
 */
static uint64_t exec_ranges_done(const struct exec *x)
{
	uint64_t low = exec_feed_low_seq(x);

	for (unsigned i = 0; i < x->o->depth; i++) {
		const struct exec_slot *s = &x->slots[i];

		if (s->busy && !s->timed_out && !s->alone && s->range.seq < low)
			low = s->range.seq;
	}
	low = exec_late_low_seq(x, low);
	return x->ckpt.reread_seq < low ? x->ckpt.reread_seq : low;
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

		if (cur > x->ckpt.cursor[d])		/* the cursor only ever advances */
			x->ckpt.cursor[d] = cur;
	}
	memset(&c, 0, sizeof(c));
	c.cursor = x->ckpt.cursor;
	c.nr_devs = x->nr_devs;
	c.ranges_done = exec_ranges_done(x);
	c.scanned_bytes = x->o->scanned_base + x->r->scanned_bytes;
	c.new_errors = x->r->errors + x->ckpt.nr_errors;
	c.nr_new_errors = x->r->nr_errors - x->ckpt.nr_errors;
	c.final = final;
	if (x->pace.have_gov) {
		uint64_t now = exec_now_ns(), wend = scan_gov_window_end_ns(&x->pace.gov), end;
		bool late;

		end = scan_gov_projected_end_ns(&x->pace.gov, now, &late);
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
		x->ckpt.nr_errors = x->r->nr_errors;
		x->r->sealed = x->r->nr_errors;
	}
	return ret;
}

/* Feed the governor fresh disk statistics and our own reads through each view. */
void exec_sample(struct exec *x, uint64_t now)
{
	struct kio_diskstat st[SCAN_GOV_MAX_VIEWS];
	struct scan_gov_own own[SCAN_GOV_MAX_VIEWS];
	unsigned n = 0;

	if (!x->pace.have_gov || now < x->pace.next_sample_ns || !x->o->nr_views)
		return;
	x->pace.next_sample_ns = now + scan_gov_sample_ns(&x->pace.gov);
	for (unsigned v = 0; v < x->o->nr_views; v++) {
		if (kio_diskstat_read(x->o->views[v].name, &st[n]) < 0)
			return;			/* a view vanished: skip this sample */
		memset(&own[n], 0, sizeof(own[n]));
		for (unsigned d = 0; d < x->nr_devs; d++)
			if (x->o->views[v].dev_mask & (1u << d)) {
				exec_own_sum(x, d, &own[n]);
			}
		own[n].inflight = x->inflight;	/* all devices': a view may see fewer */
		n++;
	}
	scan_gov_sample_own(&x->pace.gov, now, st, own, n);
	if (!x->r->window_late_first_s) {
		bool late;

		scan_gov_projected_end_ns(&x->pace.gov, now, &late);
		if (late) {
			x->r->window_late_first_s = (double)(now - x->start_ns) / 1e9;
			/* Said early: the state store (status, metrics) hears it at once. */
			if (x->o->checkpoint_interval_ns)
				x->ckpt.next_ns = now;
		}
	}
}

int exec_pace_start(struct exec *x)
{
	int ret;

	x->pace.last_progress_ns = x->pace.rate_mark_ns = x->start_ns;
	if (!x->o->gov)
		return 0;
	ret = scan_gov_init(&x->pace.gov, x->o->gov, x->start_ns);
	if (ret < 0) {
		snprintf(x->r->fatal_msg, sizeof(x->r->fatal_msg), "bad rate settings");
		return ret;
	}
	x->pace.have_gov = 1;
	return 0;
}

int exec_pace_by_latency(const struct exec *x)
{
	return x->pace.have_gov && x->pace.gov.o.latency;
}

uint64_t exec_pace_wait_ns(struct exec *x, uint64_t now, uint32_t len)
{
	return x->pace.have_gov ? scan_gov_wait_ns(&x->pace.gov, now, len) : 0;
}

void exec_pace_account(struct exec *x, uint64_t bytes, uint64_t now)
{
	if (x->pace.have_gov)
		scan_gov_account(&x->pace.gov, bytes, now);
}

void exec_pace_sum_up(struct exec *x, uint64_t end_ns)
{
	struct scan_result *r = x->r;
	uint64_t with_ns, base_ns, end;
	bool late;

	if (!x->pace.have_gov)
		return;
	r->nr_backoffs = scan_gov_backoffs(&x->pace.gov);
	r->backoff_s = (double)scan_gov_backoff_ns(&x->pace.gov, end_ns) / 1e9;
	r->pacing = x->pace.gov.o.latency ? "latency" : x->pace.gov.o.backoff ? "backoff" : "fixed";
	r->nr_probes = x->pace.gov.nr_probes;
	r->probe_s = (double)x->pace.gov.probe_ns / 1e9;
	base_ns = scan_gov_fg_latency_ns(&x->pace.gov, &with_ns);
	r->fg_base_ms = (double)base_ns / 1e6;
	r->fg_lat_ms = (double)with_ns / 1e6;
	end = scan_gov_projected_end_ns(&x->pace.gov, end_ns, &late);
	r->projected_end_s = end > x->start_ns ? (double)(end - x->start_ns) / 1e9 : 0;
	r->window_late = late || r->window_late_first_s > 0;
}

void exec_ckpt_start(struct exec *x)
{
	for (unsigned d = 0; d < x->nr_devs; d++) {
		x->ckpt.cursor[d] = x->o->start_cursor[d];
		x->ckpt.reread_from[d] = UINT64_MAX;
	}
	x->ckpt.reread_seq = UINT64_MAX;
	x->ckpt.next_ns = x->start_ns + x->o->checkpoint_interval_ns;
}

int exec_ckpt_due(const struct exec *x, uint64_t now)
{
	return x->o->checkpoint_interval_ns && now >= x->ckpt.next_ns;
}

void exec_ckpt_next(struct exec *x, uint64_t from)
{
	x->ckpt.next_ns = from + x->o->checkpoint_interval_ns;
}

void exec_ckpt_reread(struct exec *x, uint32_t dev, uint64_t offset, uint64_t seq)
{
	if (offset < x->ckpt.reread_from[dev])
		x->ckpt.reread_from[dev] = offset;
	if (seq < x->ckpt.reread_seq)
		x->ckpt.reread_seq = seq;
}
