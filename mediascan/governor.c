/*
 * mediascan/governor.c - the rate governor: deadline pacing (fio's model: the next I/O is
 * due at anchor + bytes issued since the anchor / rate), window-derived rates, and backoff
 * while the disk's stat counters show I/O that is not ours. Pure arithmetic on the times
 * the caller passes in; see governor.h for the interface.
 */
#include <errno.h>
#include <string.h>

#include "governor.h"

#define NS_PER_S 1000000000ull
#define FG_IO_COST_BYTES 4096ull	/* a request weighs at least this against the threshold */

__extension__ typedef unsigned __int128 gov_u128;

/* a * b / c without overflow, rounded down or up, saturated at UINT64_MAX. */
static uint64_t gov_muldiv(uint64_t a, uint64_t b, uint64_t c, bool round_up)
{
	gov_u128 p = (gov_u128)a * b, q;

	if (!c)
		return UINT64_MAX;
	q = p / c;
	if (round_up && p % c)
		q++;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Nanoseconds that bytes take at bps (rounded up: never early). */
static uint64_t gov_bytes_ns(uint64_t bytes, uint64_t bps)
{
	return gov_muldiv(bytes, NS_PER_S, bps, true);
}

static uint64_t gov_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t gov_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* When the next I/O is due under the rate in force (rate_bps > 0). */
static uint64_t gov_due_ns(const struct scan_gov *g)
{
	return gov_sat_add(g->anchor_ns, gov_bytes_ns(g->anchor_bytes, g->rate_bps));
}

static uint64_t gov_floor_bps(const struct scan_gov *g)
{
	uint64_t f = g->o.rate_min_bps ? g->o.rate_min_bps : SCAN_GOV_FLOOR_BPS_DEFAULT;

	if (g->o.rate_max_bps && f > g->o.rate_max_bps)
		f = g->o.rate_max_bps;
	if (g->pace_bps && f > g->pace_bps)
		f = g->pace_bps;		/* backing off never speeds a slow pace up */
	return f;
}

/*
 * Put new_bps in force at now_ns without moving the deadline: the next I/O is due when it
 * was due under the old rate, the ones after it are spaced at the new rate. A caller that
 * is behind keeps at most SCAN_GOV_CREDIT_NS of credit, so a slow phase is not followed by
 * a burst. (Byte counts are not carried over: a window's rate already reflects them.)
 */
static void gov_set_rate(struct scan_gov *g, uint64_t new_bps, uint64_t now_ns)
{
	uint64_t due;

	if (new_bps == g->rate_bps)
		return;
	due = g->rate_bps ? gov_due_ns(g) : now_ns;
	if (now_ns > SCAN_GOV_CREDIT_NS && due < now_ns - SCAN_GOV_CREDIT_NS)
		due = now_ns - SCAN_GOV_CREDIT_NS;
	g->rate_bps = new_bps;
	g->anchor_ns = due;
	g->anchor_bytes = 0;
}

static uint64_t gov_clamp_bps(const struct scan_gov *g, uint64_t bps)
{
	if (bps < g->o.rate_min_bps)
		bps = g->o.rate_min_bps;
	if (g->o.rate_max_bps && bps > g->o.rate_max_bps)
		bps = g->o.rate_max_bps;
	return bps;
}

/*
 * The most a window may ask for: rate_max_bps when set, else SCAN_GOV_WINDOW_CATCHUP times the
 * window's nominal rate (planned total over the window). A pass that fell behind (the disk was
 * busy or slow) catches up at that pace and, once late, goes on at it: never unthrottled, which
 * would hit production I/O exactly when the disk is already struggling.
 */
static uint64_t gov_window_cap_bps(const struct scan_gov *g)
{
	uint64_t nominal;

	if (g->o.rate_max_bps)
		return g->o.rate_max_bps;
	nominal = gov_muldiv(g->o.planned_total_bytes, 1, g->o.window_s, true);
	if (!nominal)
		nominal = 1;
	return nominal > UINT64_MAX / SCAN_GOV_WINDOW_CATCHUP ? UINT64_MAX :
	       nominal * SCAN_GOV_WINDOW_CATCHUP;
}

/* The window's pace: remaining planned bytes over remaining time, within the bounds. */
static uint64_t gov_window_bps(const struct scan_gov *g, uint64_t now_ns)
{
	uint64_t left_bytes, left_ns, bps, cap = gov_window_cap_bps(g);

	if (g->issued_bytes >= g->o.planned_total_bytes)
		return g->pace_bps;		/* the plan grew past its total: keep going */
	left_bytes = g->o.planned_total_bytes - g->issued_bytes;
	if (now_ns >= g->window_end_ns)
		return cap;			/* late: the catch-up pace, not unlimited */
	left_ns = g->window_end_ns - now_ns;
	bps = gov_muldiv(left_bytes, NS_PER_S, left_ns, true);
	if (!bps)
		bps = 1;
	bps = gov_clamp_bps(g, bps);
	return bps > cap ? cap : bps;
}

static void gov_update_rate(struct scan_gov *g, uint64_t now_ns)
{
	gov_set_rate(g, g->backing_off ? gov_floor_bps(g) : g->pace_bps, now_ns);
}

/* Time-driven state: window recomputation, and the end of a backoff after quiet_s. */
static void gov_tick(struct scan_gov *g, uint64_t now_ns)
{
	bool changed = false;

	if (g->window_end_ns && now_ns >= g->next_window_ns) {
		uint64_t bps = gov_window_bps(g, now_ns);

		g->next_window_ns = now_ns + SCAN_GOV_WINDOW_RECALC_NS;
		if (bps != g->pace_bps) {
			g->pace_bps = bps;
			changed = true;
		}
	}
	if (g->backing_off && now_ns >= g->last_fg_ns &&
	    now_ns - g->last_fg_ns >= (uint64_t)g->o.quiet_s * NS_PER_S) {
		g->backing_off = false;
		g->backoff_ns += now_ns - g->backoff_start_ns;
		changed = true;
	}
	if (changed)
		gov_update_rate(g, now_ns);
}

/*
 * Cap the credit of a caller that fell behind: at most SCAN_GOV_CREDIT_NS worth of bytes,
 * counting the I/O about to go, may be issued at once.
 */
static void gov_clamp_credit(struct scan_gov *g, uint64_t now_ns, uint64_t next_io_bytes)
{
	uint64_t io_ns, cap_ns;

	if (!g->rate_bps)
		return;
	io_ns = gov_bytes_ns(next_io_bytes, g->rate_bps);
	cap_ns = io_ns < SCAN_GOV_CREDIT_NS ? SCAN_GOV_CREDIT_NS - io_ns : 0;
	if (now_ns > gov_sat_add(gov_due_ns(g), cap_ns)) {
		g->anchor_ns = now_ns - cap_ns;
		g->anchor_bytes = 0;
	}
}

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
	if (!g->o.quiet_s)
		g->o.quiet_s = SCAN_GOV_QUIET_S_DEFAULT;
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

int scan_gov_sample(struct scan_gov *g, uint64_t now_ns, const struct kio_diskstat *st,
		    const uint64_t *own_sectors_read, unsigned nr_st)
{
	uint64_t other_bytes = 0, other_sectors = 0, other_ios = 0, interval_ns;
	bool seen;

	if (!g || !st || !own_sectors_read || !nr_st || nr_st > SCAN_GOV_MAX_VIEWS)
		return -EINVAL;
	if (nr_st != g->nr_views) {
		for (unsigned i = 0; i < nr_st; i++)
			gov_view_reset(&g->views[i], &st[i], own_sectors_read[i]);
		g->nr_views = nr_st;
		g->last_sample_ns = now_ns;
		return 0;
	}
	for (unsigned i = 0; i < nr_st; i++) {
		struct scan_gov_view *v = &g->views[i];
		uint64_t b, sectors, ios;

		if (gov_view_went_back(v, &st[i], own_sectors_read[i])) {
			gov_view_reset(v, &st[i], own_sectors_read[i]);
			continue;
		}
		/* Views overlap (a partition and its disk): the busiest one speaks. */
		b = gov_view_other_bytes(g, v, &st[i], own_sectors_read[i], &sectors, &ios);
		if (b > other_bytes) {
			other_bytes = b;
			other_sectors = sectors;
			other_ios = ios;
		}
		v->last = st[i];
		v->last_own_sectors = own_sectors_read[i];
	}
	g->fg_sectors += other_sectors;
	g->fg_ios += other_ios;
	interval_ns = now_ns > g->last_sample_ns ? now_ns - g->last_sample_ns : 1;
	g->last_sample_ns = now_ns;
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
	return g->backing_off;
}
