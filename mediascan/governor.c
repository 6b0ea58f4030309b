/*
 * mediascan/governor.c - the rate governor: deadline pacing (fio's model: the next I/O is
 * due at anchor + bytes issued since the anchor / rate), window-derived rates, pacing by
 * the foreground's latency, and the older backoff while the disk's stat counters show I/O
 * that is not ours. Pure arithmetic on the times and counters the caller passes in; see
 * governor.h for the interface. Over 600 lines: the latency controller moves the same
 * deadline, window and view state as the rest and is kept with it (all of it pure maths).
 *
 * Pacing by latency. The signal is the foreground's mean time per request, from the
 * view's stat deltas: (read + write ticks) / (read + write requests), minus the scan's own
 * completed reads and their summed latency (the scan knows both; a merge of two of its
 * reads is one request to the kernel, so read merges are taken off its count). The mean,
 * not a p99: the stat file gives sums only (a percentile needs every request's time, i.e.
 * BPF or blktrace), and for a foreground that waits on each request (a database at queue
 * depth one) the mean is its throughput: 1.25x the mean is at worst 80% of its throughput
 * alone. PSI (/proc/pressure/io) is not used to steer: it is system-wide (or per cgroup),
 * counts the scan's own waits as pressure, and cannot tell one disk from another; the
 * per-device stat file answers the question asked (is this disk's other work slower
 * because of us?).
 *   The baseline, the foreground's latency without the scan, is learnt in probes: the scan
 * pauses (BBR's ProbeRTT) until none of its reads has completed for a sample and enough
 * foreground requests were seen alone (at most SCAN_GOV_PROBE_MAX_NS), at the start, every
 * probe_every_s while there is a foreground, when one appears where the last probe saw none
 * (>= LAT_FEW_IOS requests in LAT_DECIDE_NS), and after LAT_RECHECK_CUTS decisions in a row
 * above target (is it us, or did the foreground slow down by itself?). Between
 * probes, at each decision (>= LAT_MIN_IOS foreground requests and >= LAT_DECIDE_NS, so the
 * mean is not one unlucky request; a light foreground is judged after LAT_QUIET_NS) the
 * rate is moved by the excess latency (gov_lat_decide): up while under the target, down,
 * multiplicatively and the more the further, while above. With no foreground at all (fewer
 * than LAT_FEW_IOS requests in LAT_QUIET_NS) the rate doubles each time up to the ceiling:
 * the window's pace, --rate, --rate-max, or unlimited. A foreground new to the scan (seen where the last probe saw none) restarts the
 * rate from the floor, doubling while the excess stays under half the target's. A foreground
 * starved behind the scan completes nothing and so shows no latency: requests in flight in
 * the stat file beyond the scan's own, none completing for LAT_STARVED_NS, count as a
 * decision far above the target. Why not plain AIMD: see gov_lat_decide and
 * docs/performance.md.
 */
#include <errno.h>
#include <string.h>

#include "governor.h"

#define NS_PER_S 1000000000ull
#define FG_IO_COST_BYTES 4096ull	/* a request weighs at least this against the threshold */

#define LAT_MIN_IOS 64ull		/* foreground requests a decision needs */
#define LAT_DECIDE_NS 500000000ull	/* and at least this long */
#define LAT_QUIET_NS 2000000000ull	/* fewer than LAT_FEW_IOS in this long: no foreground */
#define LAT_APPEAR_NS 100000000ull	/* LAT_FEW_IOS in this long where there was none: probe */
#define LAT_FIRST_SIGN 2ull		/* or this many done or waiting in one sample */
#define LAT_FEW_IOS 4ull
#define LAT_STARVED_NS 750000000ull	/* other requests waiting this long, none done */
#define LAT_AIM_PCT 95			/* aim at this share of the excess the target allows */
#define LAT_GAIN_PM 250			/* rate factor 1 + 0.25 (1 - e), per mille */
#define LAT_MIN_FACTOR_PM 600
#define LAT_MAX_FACTOR_PM 1500
#define LAT_PROBE_CLEAN_NS 300000000ull	/* probe: this long with none of our reads... */
#define LAT_PROBE_IOS 32ull		/* ...and this many foreground requests, */
#define LAT_PROBE_CLEAN_MAX_NS 1500000000ull	/* or this long clean, */
#define LAT_PROBE_NONE_NS 500000000ull	/* or this long clean without any foreground */
#define SCAN_GOV_PROBE_MAX_NS 3000000000ull	/* or this long in all */
#define LAT_PROBE_POLL_NS 50000000ull	/* wait_ns while probing: the caller keeps sampling */
#define LAT_RECHECK_CUTS 3		/* above target this often in a row: probe again, in
					   case the foreground got slower by itself */
#define LAT_RECHECK_NS 3000000000ull	/* but not sooner than this after the last probe */

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

/* The integer square root of x (rounded down). */
static uint64_t gov_isqrt(uint64_t x)
{
	uint64_t r = 0, b = 1ull << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

/* The smaller of two rates where 0 means unlimited. */
static uint64_t gov_min_rate(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

static void gov_update_rate(struct scan_gov *g, uint64_t now_ns)
{
	if (g->o.latency) {
		/* While probing the rate in force is irrelevant: wait_ns holds the scan. */
		gov_set_rate(g, gov_min_rate(g->lat.rate_bps, g->pace_bps), now_ns);
		return;
	}
	gov_set_rate(g, g->backing_off ? gov_floor_bps(g) : g->pace_bps, now_ns);
}

static void gov_lat_acc_reset(struct scan_gov *g, uint64_t now_ns)
{
	g->lat.acc_start_ns = now_ns;
	g->lat.acc_ios = 0;
	g->lat.acc_sum_ns = 0;
	g->lat.acc_own_ns = 0;
	g->lat.acc_bytes0 = g->issued_bytes;
}

/* Pause the scan to learn the foreground's latency alone. */
static void gov_lat_probe_start(struct scan_gov *g, uint64_t now_ns)
{
	g->lat.probing = true;
	g->lat.probe_start_ns = now_ns;
	g->lat.probe_clean_ns = 0;
	g->lat.probe_ios = 0;
	g->lat.probe_sum_ns = 0;
	g->nr_probes++;
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
	if (o->latency && o->backoff)
		return -EINVAL;
	if (!g->o.quiet_s)
		g->o.quiet_s = SCAN_GOV_QUIET_S_DEFAULT;
	if (!g->o.lat_target_pct)
		g->o.lat_target_pct = SCAN_GOV_LAT_TARGET_PCT_DEFAULT;
	if (!g->o.probe_every_s)
		g->o.probe_every_s = SCAN_GOV_PROBE_EVERY_S_DEFAULT;
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
	if (o->latency) {
		g->lat.rate_bps = gov_floor_bps(g);
		g->lat.ramp = true;
		gov_lat_probe_start(g, now_ns);
		gov_update_rate(g, now_ns);
	}
	return 0;
}

uint64_t scan_gov_wait_ns(struct scan_gov *g, uint64_t now_ns, uint32_t next_io_bytes)
{
	uint64_t due;

	gov_tick(g, now_ns);
	if (g->lat.probing)
		return LAT_PROBE_POLL_NS;	/* the probe ends at a sample */
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
 * One decision with a foreground: its mean request time lat_ns against the baseline. The
 * excess over the baseline, as a fraction e of the excess aimed at (LAT_AIM_PCT of what the
 * target allows), smoothed over decisions, moves the rate by a factor 1 + LAT_GAIN (1 - e)
 * within [LAT_MIN_FACTOR, LAT_MAX_FACTOR]: up while under, down (multiplicatively, the more
 * the further) while above. One slow spell costs at most LAT_MIN_FACTOR: a foreground's
 * latency has its own spikes (other CPU work, its own bursts) that are not the scan's.
 */
static void gov_lat_decide(struct scan_gov *g, uint64_t lat_ns, uint64_t achieved_bps)
{
	struct scan_gov_lat *l = &g->lat;
	uint64_t base = l->baseline_ns, ceil = g->pace_bps, floor = gov_floor_bps(g), r;
	uint64_t target = gov_muldiv(base, g->o.lat_target_pct, 100, false);
	int64_t allowed = (int64_t)gov_muldiv(target - base, LAT_AIM_PCT, 100, false), e, f;

	if (allowed < 1000)
		allowed = 1000;				/* 1 us: below the counters' noise */
	e = ((int64_t)lat_ns - (int64_t)base) * 1000 / allowed;
	/*
	 * Under half its time alone is not believable: our own time, measured from user space,
	 * was subtracted with delays the kernel did not count (a busy CPU reaping late). Hold
	 * the rate rather than raise it on a wrong reading, and keep ramping after it: a wrong
	 * reading says nothing about the scan's effect (it ended the start-up ramp, and on a
	 * busy host a never-idle disk's pass then crawled up from --rate-min by 1.25x steps).
	 */
	if (lat_ns < base / 2)
		e = 1000;
	if (e < -1000)
		e = -1000;
	if (e > 10000)
		e = 10000;
	l->err_pm = e;
	l->have_err = true;
	l->fg_now = true;
	f = 1000 + LAT_GAIN_PM * (1000 - l->err_pm) / 1000;
	/*
	 * Start-up: double while far under; hold on a wrong reading, and on one reading near the
	 * aim (one noisy reading ended the ramp, and the pass then crawled up by 1.25x steps);
	 * the ramp ends at a second one in a row, or at once above the aim.
	 */
	if (l->ramp && lat_ns < base / 2) {
		f = 1000;
	} else if (l->ramp && e < 500) {
		f = 2000;
		l->ramp_near = 0;
	} else if (l->ramp && e <= 1000 && !l->ramp_near) {
		f = 1000;
		l->ramp_near = 1;
	} else {
		l->ramp = false;
	}
	if (f < LAT_MIN_FACTOR_PM)
		f = LAT_MIN_FACTOR_PM;
	/*
	 * Far above (e > 2): the excess grows about as the scan's share of the disk, so the
	 * rate that meets the aim is near rate / e; go halfway there in log terms (1 / sqrt(e)).
	 */
	if (e > 2000 && (int64_t)(1000000 / gov_isqrt((uint64_t)e * 1000)) < f)
		f = (int64_t)(1000000 / gov_isqrt((uint64_t)e * 1000));
	if (f > LAT_MAX_FACTOR_PM)
		f = LAT_MAX_FACTOR_PM;
	r = l->rate_bps;
	if (f < 1000) {
		/* Down from what the scan really did, if it did less than its rate. */
		if (!r || (achieved_bps && achieved_bps < r))
			r = achieved_bps ? achieved_bps : floor;
		if (ceil && r > ceil)
			r = ceil;
	} else if (!r || (achieved_bps && r > gov_sat_mul(achieved_bps, 2))) {
		f = 1000;				/* not using what it has: no higher */
	}
	if (r)
		r = gov_muldiv(r, (uint64_t)f, 1000, false);
	if (r && r < floor)
		r = floor;
	if (ceil && (!r || r > ceil))
		r = ceil;
	if (lat_ns > target) {
		g->nr_backoffs++;
		l->cuts_in_row++;
	} else {
		l->cuts_in_row = 0;
	}
	l->rate_bps = r;
	l->slowed = !ceil || r < ceil;
}

/* No foreground to speak of: double the rate up to the ceiling (unlimited when none). */
static void gov_lat_idle(struct scan_gov *g, uint64_t achieved_bps)
{
	struct scan_gov_lat *l = &g->lat;
	uint64_t r = l->rate_bps, ceil = g->pace_bps;

	l->cuts_in_row = 0;
	l->have_err = false;
	l->ramp = true;
	l->fg_now = false;
	if (!r)
		return;
	if (achieved_bps && r > gov_sat_mul(achieved_bps, 2) && !ceil)
		r = 0;				/* not using it and nothing to yield to */
	else
		r = gov_sat_mul(r, 2);
	if (ceil && (!r || r >= ceil))
		r = ceil;
	l->rate_bps = r;
	l->slowed = false;
}

/* End a probe: the baseline is the foreground's mean request time seen alone. */
static void gov_lat_probe_end(struct scan_gov *g, uint64_t now_ns)
{
	struct scan_gov_lat *l = &g->lat;

	l->probing = false;
	l->probe_end_ns = now_ns;
	g->probe_ns += now_ns - l->probe_start_ns;
	if (l->probe_ios < LAT_FEW_IOS) {
		l->baseline_ns = 0;
	} else {
		uint64_t b = l->probe_sum_ns / l->probe_ios;

		/*
		 * Slower alone than thought: the foreground itself got slower (its own load,
		 * the CPU), not because of us: taken at once. Faster: averaged with the last
		 * probe's, as one probe is a short look at a noisy thing.
		 */
		l->baseline_ns = l->baseline_ns && b < l->baseline_ns ?
				 (l->baseline_ns + b) / 2 : b;
	}
	l->next_probe_ns = now_ns + (uint64_t)g->o.probe_every_s * NS_PER_S;
	l->cuts_in_row = 0;
	if (!l->baseline_ns) {
		l->rate_bps = g->pace_bps;	/* nothing to yield to: the ceiling */
		l->slowed = false;
	} else if (!l->fg_now) {
		/*
		 * A foreground new to us: start again from the floor and double (the rate that
		 * suited an idle disk says nothing; a starved foreground completes too little to
		 * judge by).
		 */
		l->rate_bps = gov_floor_bps(g);
		l->ramp = true;
		l->have_err = false;
		l->slowed = true;
	}
	gov_lat_acc_reset(g, now_ns);
	/* Resume from now at the rate in force: the pause is not caught up in a burst. */
	g->anchor_ns = now_ns;
	g->anchor_bytes = 0;
}

/*
 * The foreground's mean request time over the decision interval of span_ns, as far as the
 * scan can have caused it. A read of the scan delays each other request that waits while it
 * is served by at most its time: all the scan can have added to the foreground's summed time
 * is its own summed time (service plus queueing, an upper bound of its service) times the
 * foreground's requests waiting (at least one; more when the foreground's mean in flight,
 * Little: its summed time over the span, says so). Excess beyond twice that is not the
 * scan's: on a busy host a foreground's latency moved by 2x from one sample to the next
 * with the scan at 1% of the disk (its driver waiting for a CPU), and every such spike cut
 * the pass of a never-idle disk. The reading is capped there; last_lat_ns keeps what was
 * seen, for the report.
 */
static uint64_t gov_lat_ours(struct scan_gov *g, uint64_t span_ns)
{
	struct scan_gov_lat *l = &g->lat;
	uint64_t lat = l->acc_sum_ns / l->acc_ios, cap, waiting_pm;

	l->last_lat_ns = lat;
	if (!l->baseline_ns || !span_ns || lat <= l->baseline_ns)
		return lat;
	waiting_pm = gov_muldiv(l->acc_sum_ns, 1000, span_ns, true);
	if (waiting_pm < 1000)
		waiting_pm = 1000;
	cap = gov_muldiv(gov_muldiv(l->acc_own_ns, waiting_pm, 1000, true), 2, l->acc_ios, true);
	cap = gov_sat_add(l->baseline_ns, cap);
	return lat < cap ? lat : cap;
}

/* One sample of pacing by latency: fg_ios requests of fg_ns in total since the last one. */
static void gov_lat_sample(struct scan_gov *g, uint64_t now_ns, uint64_t interval_ns,
			   uint64_t fg_ios, uint64_t fg_ns, uint64_t own_ns, uint64_t fg_wait,
			   bool own_done)
{
	struct scan_gov_lat *l = &g->lat;
	uint64_t span, achieved = 0, lat;

	if (l->slowed && !l->probing)
		l->slowed_ns += interval_ns;
	if (l->probing) {
		if (!own_done) {		/* none of our reads ended: a clean look */
			l->probe_clean_ns += interval_ns;
			l->probe_ios += fg_ios;
			l->probe_sum_ns += fg_ns;
		}
		if ((l->probe_clean_ns >= LAT_PROBE_CLEAN_NS && l->probe_ios >= LAT_PROBE_IOS) ||
		    (l->probe_clean_ns >= LAT_PROBE_NONE_NS && !l->probe_ios) ||
		    l->probe_clean_ns >= LAT_PROBE_CLEAN_MAX_NS ||
		    now_ns - l->probe_start_ns >= SCAN_GOV_PROBE_MAX_NS)
			gov_lat_probe_end(g, now_ns);
		gov_update_rate(g, now_ns);
		return;
	}
	l->acc_ios += fg_ios;
	l->acc_sum_ns += fg_ns;
	l->acc_own_ns += own_ns;
	span = now_ns - l->acc_start_ns;
	/*
	 * Other requests in flight (the stat file's in_flight minus ours) that do not complete:
	 * a foreground starved behind the scan shows no completions, so no latency at all.
	 * Waiting LAT_STARVED_NS counts as a decision at that latency.
	 */
	l->starved_ns = fg_wait && !fg_ios ? l->starved_ns + interval_ns : 0;
	if (l->starved_ns >= LAT_STARVED_NS) {
		l->starved_ns = 0;
		if (!l->baseline_ns) {
			gov_lat_probe_start(g, now_ns);
			return;
		}
		l->last_lat_ns = LAT_STARVED_NS;
		if (span && g->issued_bytes > l->acc_bytes0)
			achieved = gov_muldiv(g->issued_bytes - l->acc_bytes0, NS_PER_S, span, false);
		gov_lat_decide(g, LAT_STARVED_NS > l->baseline_ns ? LAT_STARVED_NS :
			       l->baseline_ns * 4, achieved);
		gov_lat_acc_reset(g, now_ns);
		gov_update_rate(g, now_ns);
		return;
	}
	if (span && g->issued_bytes > l->acc_bytes0)
		achieved = gov_muldiv(g->issued_bytes - l->acc_bytes0, NS_PER_S, span, false);
	if ((now_ns >= l->next_probe_ns && l->baseline_ns) ||
	    (l->cuts_in_row >= LAT_RECHECK_CUTS && now_ns >= l->probe_end_ns + LAT_RECHECK_NS)) {
		gov_lat_probe_start(g, now_ns);
		return;
	}
	/*
	 * A foreground appeared where the last probe saw none: learn it alone at its first sign
	 * (two of its requests done or waiting in one sample), before its requests queue behind
	 * a full-speed scan's (waiting for four completions took most of a second then).
	 */
	if (!l->baseline_ns && ((l->acc_ios >= LAT_FEW_IOS && span >= LAT_APPEAR_NS) ||
				fg_ios + fg_wait >= LAT_FIRST_SIGN)) {
		gov_lat_probe_start(g, now_ns);
		return;
	}
	if (l->acc_ios >= LAT_MIN_IOS && span >= LAT_DECIDE_NS) {
		lat = gov_lat_ours(g, span);
		gov_lat_decide(g, lat, achieved);
	} else if (span >= LAT_QUIET_NS) {
		if (l->acc_ios >= LAT_FEW_IOS && l->baseline_ns) {
			lat = gov_lat_ours(g, span);
			gov_lat_decide(g, lat, achieved);
		} else if (l->acc_ios >= LAT_FEW_IOS) {
			gov_lat_probe_start(g, now_ns);	/* a light foreground: learn it */
			return;
		} else {
			gov_lat_idle(g, achieved);
			l->last_lat_ns = 0;
		}
	} else {
		return;
	}
	gov_lat_acc_reset(g, now_ns);
	gov_update_rate(g, now_ns);
	/* The rate in force, smoothed: what the projected end is judged by. */
	if (g->rate_bps)
		l->avg_bps = l->avg_bps ? (3 * l->avg_bps + g->rate_bps) / 4 : g->rate_bps;
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

	if (!g->done_mark_ns || g->lat.probing) {
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
	uint64_t fg_ios = 0, fg_ns = 0, fg_wait = 0, fg_own_ns = 0;
	bool seen, own_done = false;

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
		uint64_t b, sectors, ios, f_ios, f_ns, o_ios;

		if (gov_view_went_back(v, &st[i], own[i].sectors) ||
		    st[i].read_ios < v->last.read_ios || st[i].read_merges < v->last.read_merges ||
		    st[i].read_ticks_ms < v->last.read_ticks_ms ||
		    st[i].write_ticks_ms < v->last.write_ticks_ms ||
		    own[i].ios < v->last_own_ios || own[i].ns < v->last_own_ns) {
			gov_view_reset(v, &st[i], own[i].sectors);
			v->last_own_ios = own[i].ios;
			v->last_own_ns = own[i].ns;
			own_done = true;	/* not a clean look */
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
		if (f_ios > fg_ios) {
			fg_ios = f_ios;
			fg_ns = f_ns;
			fg_own_ns = own[i].ns - v->last_own_ns;
		}
		if (o_ios)
			own_done = true;
		if (st[i].in_flight > own[i].inflight && st[i].in_flight - own[i].inflight > fg_wait)
			fg_wait = st[i].in_flight - own[i].inflight;
		v->last = st[i];
		v->last_own_sectors = own[i].sectors;
		v->last_own_ios = own[i].ios;
		v->last_own_ns = own[i].ns;
	}
	g->fg_sectors += other_sectors;
	g->fg_ios += other_ios;
	gov_done_sample(g, now_ns);
	interval_ns = now_ns > g->last_sample_ns ? now_ns - g->last_sample_ns : 1;
	g->last_sample_ns = now_ns;
	if (g->o.latency) {
		gov_tick(g, now_ns);
		gov_lat_sample(g, now_ns, interval_ns, fg_ios, fg_ns, fg_own_ns, fg_wait, own_done);
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
	if (g->o.latency && ((g->lat.ramp && g->lat.fg_now) || !g->lat.avg_bps))
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

bool scan_gov_probing(const struct scan_gov *g)
{
	return g->lat.probing;
}
