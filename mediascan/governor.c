/*
 * mediascan/governor.c - the rate governor: deadline pacing (fio's model: the next I/O is
 * due at anchor + bytes issued since the anchor / rate), window-derived rates, pacing by
 * the foreground's latency, and the older backoff while the disk's stat counters show I/O
 * that is not ours. Pure arithmetic on the times and counters the caller passes in; see
 * governor.h for the interface. This file holds the interface, the views of the stat counters
 * and the backoff by presence; the deadline and the window's pace are in governor_pace.c, pacing
 * by latency (and how it works) in governor_lat.c.
 */
#include <errno.h>
#include <string.h>

#include "governor_int.h"

#define FG_IO_COST_BYTES 4096ull	/* a request weighs at least this against the threshold */

int scan_gov_init(struct scan_gov *g, const struct scan_gov_opts *o, uint64_t now_ns)
{
	if (!g || !o)
		return -EINVAL;
	if (o->rate_max_bps && o->rate_min_bps > o->rate_max_bps)
		return -EINVAL;
	if (o->window_s && (o->rate_bps || !o->planned_total_bytes ||
			    o->window_s > UINT64_MAX / NS_PER_S - now_ns / NS_PER_S - 1))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->o = *o;
	if (o->latency && o->backoff)
		return -EINVAL;
	if (!g->o.quiet_s)
		g->o.quiet_s = SCAN_GOV_QUIET_S_DEFAULT;
	if (!g->o.lat_target_pct)
		g->o.lat_target_pct = SCAN_GOV_LAT_TARGET_PCT_DEFAULT;
	g->start_ns = now_ns;
	g->anchor_ns = now_ns;
	if (o->window_s) {
		g->window_end_ns = now_ns + o->window_s * NS_PER_S;
		g->pace_bps = gov_window_bps(g, now_ns);
		g->next_window_ns = now_ns + SCAN_GOV_WINDOW_RECALC_NS;
	} else if (o->rate_bps) {
		g->pace_bps = o->rate_bps;	/* rate_min_bps is a floor for windows and backoff */
		if (o->rate_max_bps && g->pace_bps > o->rate_max_bps)
			g->pace_bps = o->rate_max_bps;
	} else {
		g->pace_bps = o->rate_max_bps;	/* unlimited unless capped */
	}
	g->rate_bps = g->pace_bps;
	/* Pacing by latency starts at the ceiling: nothing to yield to is known yet. */
	g->lat.ctl_bps = g->lat.rate_bps = g->pace_bps;
	return 0;
}

uint64_t scan_gov_wait_ns(struct scan_gov *g, uint64_t now_ns, uint32_t next_io_bytes)
{
	uint64_t due;

	gov_tick(g, now_ns);
	if (!g->rate_bps)
		return 0;
	gov_clamp_credit(g, now_ns, next_io_bytes);
	due = gov_due_ns(g);
	return due > now_ns ? due - now_ns : 0;
}

int scan_gov_account(struct scan_gov *g, uint64_t bytes, uint64_t now_ns)
{
	gov_tick(g, now_ns);
	gov_clamp_credit(g, now_ns, bytes);
	g->anchor_bytes = gov_sat_add(g->anchor_bytes, bytes);
	g->issued_bytes = gov_sat_add(g->issued_bytes, bytes);
	return 0;
}

static void gov_view_reset(struct scan_gov_view *v, const struct kio_diskstat *st, uint64_t own)
{
	v->last = *st;
	v->last_own_sectors = own;
	v->debt_sectors = 0;
}

/* A counter went backwards: the device was replaced or the caller restarted its count. */
static bool gov_view_went_back(const struct scan_gov_view *v, const struct kio_diskstat *st,
			       uint64_t own)
{
	const struct kio_diskstat *l = &v->last;

	return st->read_sectors < l->read_sectors || st->write_sectors < l->write_sectors ||
	       st->discard_sectors < l->discard_sectors || st->write_ios < l->write_ios ||
	       st->discard_ios < l->discard_ios || st->flush_ios < l->flush_ios ||
	       own < v->last_own_sectors;
}

/*
 * Weigh one view's other I/O since its last sample, in bytes (sectors moved plus a cost
 * per request). Writes, discards and flushes are never ours: mediascan only reads. Reads
 * are told apart by sectors only, because the block layer splits and merges our reads
 * into a number of requests we cannot know. Our own count may lag the kernel's by the
 * completions not yet reaped; that lag is at most slack_bytes and never accumulates, so
 * read sectors not ours are summed with a decay (halved every sample) and count as load
 * only above the slack: the sum of the lag alone never exceeds the lag in flight.
 */
static uint64_t gov_view_other_bytes(const struct scan_gov *g, struct scan_gov_view *v,
				     const struct kio_diskstat *st, uint64_t own,
				     uint64_t *sectors_out, uint64_t *ios_out)
{
	const struct kio_diskstat *l = &v->last;
	uint64_t d_read = st->read_sectors - l->read_sectors;
	uint64_t d_own = own - v->last_own_sectors;
	uint64_t debt = v->debt_sectors / 2, read_sectors = 0, sectors, ios;

	if (d_read >= d_own)
		debt += d_read - d_own;
	else
		debt = d_own - d_read >= debt ? 0 : debt - (d_own - d_read);
	if (debt > g->o.slack_bytes / 512) {
		read_sectors = debt;
		debt = 0;
	}
	v->debt_sectors = debt;
	sectors = read_sectors + (st->write_sectors - l->write_sectors) +
		  (st->discard_sectors - l->discard_sectors);
	ios = (st->write_ios - l->write_ios) + (st->discard_ios - l->discard_ios) +
	      (st->flush_ios - l->flush_ios);
	*sectors_out = sectors;
	*ios_out = ios;
	return gov_sat_add(gov_sat_mul(sectors, 512), gov_sat_mul(ios, FG_IO_COST_BYTES));
}

/*
 * The foreground's requests and their summed time in one view since its last sample: the
 * view's read and write requests and ticks minus the scan's own completed reads and their
 * latency. Read merges are taken as merges of our sequential reads (a foreground's random
 * reads rarely merge): a merged pair is one request and one time to the kernel. Clamped
 * at 0: our latency, measured from user space, is a little longer than the kernel's.
 */
static void gov_view_fg(const struct scan_gov_view *v, const struct kio_diskstat *st,
			const struct scan_gov_own *own, uint64_t *ios_out, uint64_t *ns_out,
			uint64_t *own_ios_out)
{
	const struct kio_diskstat *l = &v->last;
	uint64_t ios = (st->read_ios - l->read_ios) + (st->write_ios - l->write_ios);
	uint64_t ms = (st->read_ticks_ms - l->read_ticks_ms) +
		      (st->write_ticks_ms - l->write_ticks_ms);
	uint64_t merges = st->read_merges - l->read_merges;
	uint64_t own_ios = own->ios - v->last_own_ios, own_ns = own->ns - v->last_own_ns;
	uint64_t own_req = own_ios > merges ? own_ios - merges : 0;
	uint64_t ns = gov_sat_mul(ms, 1000000);

	if (own_ios && own_req < own_ios)
		own_ns = gov_muldiv(own_ns, own_req, own_ios, false);
	*ios_out = ios > own_req ? ios - own_req : 0;
	*ns_out = ns > own_ns ? ns - own_ns : 0;
	*own_ios_out = own_ios;
}

/*
 * The rate achieved (bytes accounted per second over SCAN_GOV_DONE_NS, smoothed): the disk
 * may give less than the rate in force (a window's pace on a disk too slow for it), and the
 * projected end must say so. Probe pauses are left out (the first one, at the start, would
 * read as a slow disk): the window's pace already makes up for the time they take.
 */
static void gov_done_sample(struct scan_gov *g, uint64_t now_ns)
{
	uint64_t dt, cur;

	if (!g->done_mark_ns) {
		g->done_mark_ns = now_ns ? now_ns : 1;
		g->done_mark_bytes = g->issued_bytes;
		return;
	}
	if (now_ns < g->done_mark_ns || now_ns - g->done_mark_ns < SCAN_GOV_DONE_NS)
		return;
	dt = now_ns - g->done_mark_ns;
	cur = gov_muldiv(g->issued_bytes - g->done_mark_bytes, NS_PER_S, dt, false);
	g->done_bps = g->done_bps ? (g->done_bps + cur) / 2 : cur;
	if (!g->done_bps)
		g->done_bps = 1;		/* nothing read for a second: known, and slow */
	g->done_mark_ns = now_ns;
	g->done_mark_bytes = g->issued_bytes;
}

int scan_gov_sample(struct scan_gov *g, uint64_t now_ns, const struct kio_diskstat *st,
		    const uint64_t *own_sectors_read, unsigned nr_st)
{
	struct scan_gov_own own[SCAN_GOV_MAX_VIEWS];

	if (!st || !own_sectors_read || nr_st > SCAN_GOV_MAX_VIEWS)
		return -EINVAL;
	memset(own, 0, sizeof(own));
	for (unsigned i = 0; i < nr_st; i++)
		own[i].sectors = own_sectors_read[i];
	return scan_gov_sample_own(g, now_ns, st, own, nr_st);
}

int scan_gov_sample_own(struct scan_gov *g, uint64_t now_ns, const struct kio_diskstat *st,
			const struct scan_gov_own *own, unsigned nr_st)
{
	uint64_t other_bytes = 0, other_sectors = 0, other_ios = 0, interval_ns;
	uint64_t fg_ios = 0, fg_ns = 0, fg_wait = 0, own_ios = 0, own_ns = 0;
	bool seen;

	if (!g || !st || !own || !nr_st || nr_st > SCAN_GOV_MAX_VIEWS)
		return -EINVAL;
	if (nr_st != g->nr_views) {
		for (unsigned i = 0; i < nr_st; i++) {
			gov_view_reset(&g->views[i], &st[i], own[i].sectors);
			g->views[i].last_own_ios = own[i].ios;
			g->views[i].last_own_ns = own[i].ns;
		}
		g->nr_views = nr_st;
		g->last_sample_ns = now_ns;
		return 0;
	}
	for (unsigned i = 0; i < nr_st; i++) {
		struct scan_gov_view *v = &g->views[i];
		uint64_t b, sectors, ios, f_ios, f_ns, o_ios, c_ios;

		if (gov_view_went_back(v, &st[i], own[i].sectors) ||
		    st[i].read_ios < v->last.read_ios || st[i].read_merges < v->last.read_merges ||
		    st[i].read_ticks_ms < v->last.read_ticks_ms ||
		    st[i].write_ticks_ms < v->last.write_ticks_ms ||
		    own[i].ios < v->last_own_ios || own[i].ns < v->last_own_ns ||
		    own[i].cmd_ios < v->last_cmd_ios || own[i].cmd_ns < v->last_cmd_ns) {
			gov_view_reset(v, &st[i], own[i].sectors);
			v->last_own_ios = own[i].ios;
			v->last_own_ns = own[i].ns;
			v->last_cmd_ios = own[i].cmd_ios;
			v->last_cmd_ns = own[i].cmd_ns;
			continue;
		}
		/* Views overlap (a partition and its disk): the busiest one speaks. */
		b = gov_view_other_bytes(g, v, &st[i], own[i].sectors, &sectors, &ios);
		if (b > other_bytes) {
			other_bytes = b;
			other_sectors = sectors;
			other_ios = ios;
		}
		gov_view_fg(v, &st[i], &own[i], &f_ios, &f_ns, &o_ios);
		/* the scan's work in the queue: its reads, and its commands the counts miss; the
		 * view that speaks for the foreground speaks for it too (md's members: the
		 * reader's disk, not the busiest of the scan's) */
		c_ios = own[i].cmd_ios - v->last_cmd_ios;
		if (f_ios > fg_ios || (!fg_ios && o_ios + c_ios > own_ios)) {
			if (f_ios > fg_ios) {
				fg_ios = f_ios;
				fg_ns = f_ns;
			}
			own_ios = o_ios + c_ios;
			own_ns = own[i].ns - v->last_own_ns + (own[i].cmd_ns - v->last_cmd_ns);
		}
		if (st[i].in_flight > own[i].inflight && st[i].in_flight - own[i].inflight > fg_wait)
			fg_wait = st[i].in_flight - own[i].inflight;
		v->last = st[i];
		v->last_own_sectors = own[i].sectors;
		v->last_own_ios = own[i].ios;
		v->last_own_ns = own[i].ns;
		v->last_cmd_ios = own[i].cmd_ios;
		v->last_cmd_ns = own[i].cmd_ns;
	}
	g->fg_sectors += other_sectors;
	g->fg_ios += other_ios;
	gov_done_sample(g, now_ns);
	interval_ns = now_ns > g->last_sample_ns ? now_ns - g->last_sample_ns : 1;
	g->last_sample_ns = now_ns;
	if (g->o.latency) {
		gov_tick(g, now_ns);
		gov_lat_sample(g, now_ns, interval_ns, fg_ios, fg_ns, fg_wait, own_ios, own_ns);
		return fg_ios > 0;
	}
	if (g->o.fg_threshold_bps)
		seen = gov_muldiv(other_bytes, NS_PER_S, interval_ns, false) >=
		       g->o.fg_threshold_bps;
	else
		seen = other_bytes > 0;
	if (seen && g->o.backoff) {
		g->last_fg_ns = now_ns;
		if (!g->backing_off) {
			g->backing_off = true;
			g->backoff_start_ns = now_ns;
			g->nr_backoffs++;
			gov_update_rate(g, now_ns);
		}
	}
	gov_tick(g, now_ns);
	return seen ? 1 : 0;
}

uint64_t scan_gov_rate_bps(const struct scan_gov *g)
{
	return g->rate_bps;
}

bool scan_gov_backing_off(const struct scan_gov *g)
{
	return g->backing_off || (g->o.latency && g->lat.slowed);
}

uint64_t scan_gov_backoff_ns(const struct scan_gov *g, uint64_t now_ns)
{
	if (g->o.latency)
		return g->lat.slowed_ns;
	if (g->backing_off && now_ns > g->backoff_start_ns)
		return g->backoff_ns + (now_ns - g->backoff_start_ns);
	return g->backoff_ns;
}

unsigned scan_gov_backoffs(const struct scan_gov *g)
{
	return g->nr_backoffs;
}

uint64_t scan_gov_projected_end_ns(const struct scan_gov *g, uint64_t now_ns, bool *late)
{
	uint64_t left, bps, end, margin;

	*late = false;
	if (!g->o.planned_total_bytes)
		return 0;
	left = g->issued_bytes < g->o.planned_total_bytes ?
	       g->o.planned_total_bytes - g->issued_bytes : 0;
	if (g->o.latency && !g->lat.avg_bps)
		return 0;		/* still finding its rate: nothing to say yet */
	bps = g->o.latency ? g->lat.avg_bps : g->rate_bps;
	/*
	 * What the disk gives, when clearly less (by a tenth: the achieved rate of a paced scan
	 * runs a little under its pace): the rate in force says what the scan may do, not what
	 * it does (a window's pace on a disk too slow for it only rises as the pass falls
	 * behind, and was never "late" by it until the catch-up cap).
	 */
	if (g->done_bps && (!bps || g->done_bps < bps - bps / 10))
		bps = g->done_bps;
	if (!bps && now_ns > g->start_ns + NS_PER_S && g->issued_bytes)
		bps = gov_muldiv(g->issued_bytes, NS_PER_S, now_ns - g->start_ns, false);
	if (!bps)
		return 0;
	end = gov_sat_add(now_ns, gov_muldiv(left, NS_PER_S, bps, true));
	/* The window's own pace ends right at its end: late only past a margin. */
	margin = (g->window_end_ns - g->start_ns) / 50 + 2 * NS_PER_S;
	if (g->window_end_ns && end > gov_sat_add(g->window_end_ns, margin))
		*late = true;
	return end;
}

uint64_t scan_gov_window_end_ns(const struct scan_gov *g)
{
	return g->window_end_ns;
}

uint64_t scan_gov_fg_latency_ns(const struct scan_gov *g, uint64_t *with_scan_ns)
{
	*with_scan_ns = g->lat.last_lat_ns;
	return g->lat.baseline_ns;
}

uint64_t scan_gov_sample_ns(const struct scan_gov *g)
{
	return g->o.latency && !g->lat.fg_now ? SCAN_GOV_SAMPLE_FAST_NS : SCAN_GOV_SAMPLE_NS;
}

bool scan_gov_probing(const struct scan_gov *g)
{
	(void)g;
	return false;
}
