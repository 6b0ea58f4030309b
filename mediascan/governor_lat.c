/*
 * mediascan/governor_lat.c - the rate governor's pacing by the foreground's latency, in the
 * LEDBAT spirit (RFC 6817): a target of delay added to the foreground over a base it measures
 * while the scan runs, never pausing. Pure arithmetic on governor.c's stat deltas. The rules:
 *  1. Foreground: the view's requests and time less the scan's own, mean L per LAT_DECIDE_NS;
 *     present from LAT_FEW_IOS requests in one interval (or fewer waiting LAT_WAIT_PCT of it)
 *     until LAT_QUIET_NS without any; sampled 4x as often while none is (seen sooner).
 *  2. None: the rate doubles each interval up to the window's pace, --rate(-max), or unlimited.
 *  3. Present: the rate in force is the controller's (finite: an unlimited one becomes what
 *     the scan achieved) times lat_gains_pct: 7 intervals at 1.2, one dip at 0.1 (a mean of
 *     one; fewer dips below a cliff, rule 8), never stopping; a new foreground's first
 *     interval is the dip.
 *  4. Base L0 (LEDBAT's base delay, no pause): L over the dip's look (after its first 0.25 s,
 *     until it saw the foreground), less the scan's queued work x = sum of S (latency - S/2)
 *     over its reads and drive-side commands (governor.c), S their least sample mean; L0
 *     is the mean of the last three dips (L is a mean: the median of looks a host's hiccups
 *     skew reads below their mean, and every L above it), the first replaced by the second
 *     (it may dip from full speed); two in a row LAT_ALONE_MOVED from it are a changed
 *     foreground: the mean starts over from them.
 *  5. L counts at most L0 plus twice the scan's reads' and commands' time per request (the
 *     rest is not ours).
 *  6. Aim: LAT_AIM_PCT of the excess the target allows; a foreground busy 7/10 to 4/5 of the
 *     last SCAN_GOV_LAT_DUTY intervals alone (idle ones too: a burst is not a busy user) gets
 *     up to LAT_BUSY_PCT of its cycle (it keeps >= 95% of its throughput).
 *  7. Every LAT_DECIDE_PHASES intervals: e = their excess L - L0 over the gain in force, over
 *     their aim (the dip not counted); rate x 2 / (1 + e), x 1.5 at most, 1/4 at least, from
 *     what they achieved at the gain of one, never up while under half used. LAT_FAR above in
 *     one interval (or before the first dip, by its L0), and by more than LAT_FAR_READS of S
 *     in all (fewer are a light foreground's chance meetings with the scan's reads): the same
 *     move at once by that interval's e, 1/8 at least; the fourth far at the floor since the
 *     last dip: the dip at once (L0 is wrong, not the scan's doing; a look not far lets the
 *     cycle reach its dip). No credit is banked with a foreground (OpenZFS: fewer scrub I/Os
 *     while others wait); the executor caps reads in flight at twice the BDP (BBR).
 *  8. A cliff (far above, a light foreground, its time alone known): the rate in force then
 *     is kept; a rise after that far cut comes back at once to LAT_CLIFF_BACK_PCT of it at the
 *     gain's top (after the slope's own cut, at rule 7's pace: the slope is the better
 *     judge), holds LAT_CLIFF_HOLD decisions (~2 min), then climbs x1.1 a decision at most
 *     until a quarter past it (CUBIC's plateau below the last loss: a throttle's queue grows
 *     without end past its rate, and each probe past it is a far interval for the user). A
 *     new foreground far above what the scan read as it came makes that rate a cliff too,
 *     climbed to at rule 7's pace, not jumped to (nothing yielded to then, nothing known of
 *     it). Held below it (the last decision would have risen), the cycle dips one time in
 *     LAT_DIP_EVERY (no slope below a cliff to learn). Only the climb forgets a cliff (a time
 *     alone from three looks moves by chance, and a forgotten cliff is crossed again).
 * Why the mean, not a p99 or PSI: the stat file gives sums only, and a foreground waiting on
 * each request has its throughput in its mean; PSI is system-wide and counts the scan's waits.
 */
#include <string.h>

#include "governor_int.h"

#define LAT_DECIDE_NS 500000000ull	/* a decision interval at least this long */
#define LAT_QUIET_NS 2000000000ull	/* no foreground request this long: none */
#define LAT_FEW_IOS 4ull		/* requests in an interval that make a foreground */
#define LAT_WAIT_PCT 50			/* or fewer that waited this share of it */
#define LAT_BASE_NS 30000000000ull	/* the scan's base read time: minima of buckets this long */
#define LAT_AIM_PCT 95			/* aim at this share of the excess the target allows */
#define LAT_BUSY_PCT 2			/* a busy foreground: the scan adds this share of its cycle */
#define LAT_BUSY_FROM_PCT 70.0		/* a foreground waiting this share of the time: busy from */
#define LAT_BUSY_FULL_PCT 80.0		/* fully busy from (a user's own time between requests) */
#define LAT_DIP_PCT 10			/* the gain of the cycle's dip */
#define LAT_DIP_SETTLE_NS 250000000ull	/* the dip's first this long: not its look */
#define LAT_DECIDE_PHASES 4		/* the rate moves each this many intervals */
#define LAT_FAR 4			/* an interval this far above the aim: cut at once */
#define LAT_FAR_READS 2			/* and by more than this many of the scan's reads in all */
#define LAT_FAR_CUT 125			/* then x 2 / (1 + e), at least this per mille */
#define LAT_ALONE_MOVED 1.4		/* two dips this far from the time alone: it moved */
#define LAT_DIP_PHASE (SCAN_GOV_LAT_GAINS - 1)	/* the cycle's dip */
#define LAT_CLIFF_BACK_PCT 80		/* after a cliff, back at once to this share of it */
#define LAT_CLIFF_HOLD 60u		/* held there this many decisions (about two minutes) */
#define LAT_CLIFF_STEP 1100		/* then up this much a decision at most */
#define LAT_DIP_EVERY 4u		/* held below a cliff: one cycle in this many dips */

/* The gain cycle, per cent: its time-weighted mean is one (the dip lasts 3/2 as long). */
static const unsigned lat_gains_pct[SCAN_GOV_LAT_GAINS] = { 120, 120, 120, 120, 120, 120, 120,
							    LAT_DIP_PCT };

/* Start a decision interval at now_ns. */
static void gov_lat_acc_reset(struct scan_gov *g, uint64_t now_ns)
{
	struct scan_gov_lat *l = &g->lat;

	l->acc_start_ns = now_ns;
	l->acc_fg_ios = l->acc_fg_ns = l->acc_own_ios = l->acc_own_ns = 0;
	l->acc_bytes0 = g->issued_bytes;
}

/* A foreground in the interval so far (rule 1): a few requests, or fewer that waited long (a
 * reader the scan's queued reads starve: at 8 MiB/s, two of 250 ms in half a second), long
 * against a normal sample at least (the fast ones are not more easily fooled). */
static bool gov_lat_fg_seen(const struct scan_gov_lat *l, uint64_t span_ns)
{
	if (span_ns < SCAN_GOV_SAMPLE_NS)
		span_ns = SCAN_GOV_SAMPLE_NS;
	return l->acc_fg_ios >= LAT_FEW_IOS ||
	       (l->acc_fg_ios && l->acc_fg_ns * 100 >= span_ns * LAT_WAIT_PCT);
}

/* The scan's base read time: the least mean over SCAN_GOV_SAMPLE_NS in the last buckets (rule
 * 4); the fast samples add up to one. */
static void gov_lat_base(struct scan_gov_lat *l, uint64_t now_ns, uint64_t own_ios,
			 uint64_t own_ns)
{
	uint64_t m;

	l->base_acc_ios += own_ios;
	l->base_acc_ns += own_ns;
	if (now_ns - l->base_acc_ns0 + SCAN_GOV_SAMPLE_FAST_NS / 2 < SCAN_GOV_SAMPLE_NS)
		return;
	l->base_acc_ns0 = now_ns;
	m = l->base_acc_ns / l->base_acc_ios;
	l->base_acc_ios = l->base_acc_ns = 0;

	if (now_ns >= l->base_bucket_ns + LAT_BASE_NS) {
		memmove(&l->base_min[1], &l->base_min[0],
			sizeof(l->base_min) - sizeof(l->base_min[0]));
		l->base_min[0] = 0;
		l->base_bucket_ns = now_ns;
	}
	if (!l->base_min[0] || m < l->base_min[0])
		l->base_min[0] = m;
	l->base_ns = 0;
	for (unsigned i = 0; i < SCAN_GOV_LAT_BASE_BUCKETS; i++)
		if (l->base_min[i] && (!l->base_ns || l->base_min[i] < l->base_ns))
			l->base_ns = l->base_min[i];
}

/* The rate with nothing to yield to: doubled up to the ceiling (unlimited when none). */
static uint64_t gov_lat_idle_bps(const struct scan_gov *g, uint64_t r, uint64_t achieved)
{
	uint64_t ceil = g->pace_bps;

	if (!r)
		return ceil;
	if (achieved && r > gov_sat_mul(achieved, 2) && !ceil)
		return 0;			/* not using it and nothing to yield to */
	r = gov_sat_mul(r, 2);
	return ceil && r >= ceil ? ceil : r;
}

/* One interval of the foreground's duty: its requests' time alone, the interval less the
 * wait the scan added to them. */
static void gov_lat_duty(struct scan_gov_lat *l, double fg_ns, double span_ns)
{
	l->duty_fg[l->duty_at] = fg_ns;
	l->duty_span[l->duty_at] = span_ns;
	l->duty_at = (l->duty_at + 1) % SCAN_GOV_LAT_DUTY;
}

/* The scan's aim, ns of wait per request (rule 6), for the mean lat and alone over span_ns. */
static double gov_lat_aim(struct scan_gov *g, double lat, double alone, uint64_t span_ns)
{
	const struct scan_gov_lat *l = &g->lat;
	double cycle = (double)span_ns / (double)l->acc_fg_ios - (lat - alone), busy, aim;
	double fg = 0, span = 0;

	/* Alone it waits on the disk this share of the last intervals; from LAT_BUSY_FROM_PCT
	 * the aim narrows, to the busy user's at LAT_BUSY_FULL_PCT. */
	for (unsigned i = 0; i < SCAN_GOV_LAT_DUTY; i++) {
		fg += l->duty_fg[i];
		span += l->duty_span[i];
	}
	busy = span > 0 ? (100 * fg / span - LAT_BUSY_FROM_PCT) /
			  (LAT_BUSY_FULL_PCT - LAT_BUSY_FROM_PCT) : 1;
	busy = busy < 0 ? 0 : busy > 1 ? 1 : busy;
	g->lat.busy = busy > 0;
	aim = (1 - busy) * alone * (g->o.lat_target_pct - 100) / 100.0 +
	      busy * (cycle > alone ? cycle : alone) * LAT_BUSY_PCT / 100.0;
	return aim * LAT_AIM_PCT / 100.0;
}

/* The time alone after a dip that read a (rule 4): the mean of the last three, the first
 * dip's replaced by the second's (the first may come at full speed); two in a row
 * LAT_ALONE_MOVED from it start it over. */
static double gov_lat_alone(struct scan_gov_lat *l, double a)
{
	double *h = l->alone_dips, last;

	if (l->dips <= 1)
		l->alone_n = 0;
	if (l->alone_n >= 2) {
		last = h[(l->alone_n - 1) % 3];
		if ((a > l->alone * LAT_ALONE_MOVED && last > l->alone * LAT_ALONE_MOVED) ||
		    (a * LAT_ALONE_MOVED < l->alone && last * LAT_ALONE_MOVED < l->alone)) {
			h[0] = last;
			l->alone_n = 1;
		}
	}
	h[l->alone_n++ % 3] = a;
	if (l->alone_n < 3)
		return l->alone_n == 1 ? a : (h[0] + h[1]) / 2;
	return (h[0] + h[1] + h[2]) / 3;
}

/* The excess ex over the aim when far above it (rule 7), else 0. */
static double gov_lat_far(const struct scan_gov_lat *l, double ex)
{
	return ex > LAT_FAR * l->aim ? ex / l->aim : 0;
}

/*
 * A look at the foreground over an interval of span_ns with its requests (rules 1, 4, 5): its
 * mean time into the cycle's, its time alone from the dip. Return its excess over the aim
 * when far above it, else 0.
 */
static double gov_lat_look(struct scan_gov *g, uint64_t span_ns)
{
	struct scan_gov_lat *l = &g->lat;
	double lat = (double)l->acc_fg_ns / (double)l->acc_fg_ios, s = (double)l->base_ns, x = 0;
	double alone, cap, waiting, far;
	bool dip = lat_gains_pct[l->phase] == LAT_DIP_PCT;

	if (l->acc_own_ios && s > 0)
		x = (s * (double)l->acc_own_ns - (double)l->acc_own_ios * s * s / 2) /
		    (double)span_ns;
	/* At the dip, or a first guess: less the work the scan held in the queue meanwhile. */
	alone = lat - x > lat / 8 ? lat - x : lat / 8;
	if (dip) {
		l->alone = gov_lat_alone(l, alone);
		l->dips++;
		l->far_floor = 0;
	} else if (!l->dips) {
		l->alone = alone;	/* a guess until the first dip */
	}
	l->baseline_ns = (uint64_t)l->alone;
	l->last_lat_ns = (uint64_t)lat;
	/* Rule 5: more than twice its reads' time per request (x those waiting) is not ours. */
	waiting = (double)l->acc_fg_ns / (double)span_ns;
	cap = 2 * (double)l->acc_own_ns * (waiting > 1 ? waiting : 1) / (double)l->acc_fg_ios;
	if (lat > l->alone + cap)
		lat = l->alone + cap;
	gov_lat_duty(l, (double)l->acc_fg_ios * l->alone,
		     (double)span_ns - (double)l->acc_fg_ios * (lat - l->alone));
	l->aim = gov_lat_aim(g, lat, l->alone, span_ns);
	if (!dip && !l->dips) {		/* no time alone known: judged after the first dip */
		l->pre_ios += (double)l->acc_fg_ios;
		l->pre_lat += (double)l->acc_fg_ios * lat;
	} else if (!dip) {		/* the excess at the gain of one */
		l->cyc_aim += (double)l->acc_fg_ios * l->aim;
		l->cyc_lat += (double)l->acc_fg_ios * (lat - l->alone) * 100 /
			      lat_gains_pct[l->phase];
	}
	if (lat > l->alone * g->o.lat_target_pct / 100.0)
		g->nr_backoffs++;
	if (dip && l->dips == 1 && l->pre_ios > 0) {	/* the first dip: what came before */
		lat = l->pre_lat / l->pre_ios;
		l->pre_ios = l->pre_lat = 0;
		far = gov_lat_far(l, lat - l->alone);
		if (far > 0)
			return far;	/* its arrival's */
	}
	/* far: and by more than LAT_FAR_READS of the scan's reads in all (a light foreground's
	 * few requests meeting one or two of them is chance, and a cut costs up to an eighth) */
	if (!gov_lat_fg_seen(l, span_ns) ||
	    (l->dips && (lat - l->alone) * (double)l->acc_fg_ios <= LAT_FAR_READS * s))
		return 0;
	return gov_lat_far(l, lat - l->alone);
}

/*
 * One decision interval with a foreground: the factor the rate moves by, per mille (rule 7):
 * every LAT_DECIDE_PHASES intervals by their excess against their aim (about halfway in log
 * terms), at once by one interval's when far above it (to an eighth at most).
 */
static int64_t gov_lat_decide(struct scan_gov *g, uint64_t span_ns)
{
	struct scan_gov_lat *l = &g->lat;
	double e = 0;

	l->dip_settled = false;
	if (!l->acc_fg_ios)
		gov_lat_duty(l, 0, (double)span_ns);
	else
		e = gov_lat_look(g, span_ns);
	if (e > 0) {
		/* a cliff (rule 8): far above at this rate, the time alone known, not busy, and
		 * not the last one's queue (an arrival's is replaced at any rate) */
		if (l->dips && lat_gains_pct[l->phase] != LAT_DIP_PCT && !l->busy &&
		    (l->cliff_first || l->rate_bps * 2 > l->cliff_bps)) {
			l->cliff_bps = l->rate_bps;
			l->cliff_holds = 0;
			l->cliff_first = false;
		} else if (l->dips == 1 && lat_gains_pct[l->phase] == LAT_DIP_PCT && l->pre_bps) {
			l->cliff_bps = l->pre_bps;	/* its arrival's: climbed to */
			l->cliff_holds = 0;
			l->cliff_first = true;
		}
		/* no time alone yet, or far above it at the floor LAT_DECIDE_PHASES times since
		 * the last dip (not the scan's doing: the time alone is wrong): the dip now */
		if (l->ctl_bps && l->ctl_bps <= gov_floor_bps(g))
			l->far_floor++;
		l->phase = l->dips && l->far_floor < LAT_DECIDE_PHASES ? 0 : LAT_DIP_PHASE;
		l->cyc_aim = l->cyc_lat = 0;
		l->far_cut = true;
		e = 2000 / (1 + e);		/* the slope's move, at once */
		return e < LAT_FAR_CUT ? LAT_FAR_CUT : (int64_t)e;
	}
	l->phase = (l->phase + 1) % SCAN_GOV_LAT_GAINS;
	/* held below a cliff: nothing to learn at the dip but in one cycle of a few (rule 8) */
	if (l->phase == LAT_DIP_PHASE && l->cliff_bps && l->held &&
	    ++l->cycles % LAT_DIP_EVERY)
		l->phase = 0;
	if (l->phase % LAT_DECIDE_PHASES || !(l->cyc_aim > 0))
		return 1000;
	e = l->cyc_lat / l->cyc_aim;
	l->cyc_aim = l->cyc_lat = 0;
	e = e < 1.0 / 3 ? 1500 : 2000 / (1 + e);
	if (e < 1000)
		l->far_cut = false;	/* the slope's own cut: climbed back at its pace (rule 8) */
	return e < 250 ? 250 : (int64_t)e;
}

/*
 * The rate r moved by f per mille, below the last cliff (rule 8): a rise comes back at once
 * to LAT_CLIFF_BACK_PCT of it (in force at the gain's top), stays there LAT_CLIFF_HOLD
 * decisions, then climbs by LAT_CLIFF_STEP at most until a quarter past it (forgotten).
 */
static uint64_t gov_lat_cliff(struct scan_gov_lat *l, uint64_t r, int64_t f)
{
	uint64_t back = l->cliff_bps * LAT_CLIFF_BACK_PCT / lat_gains_pct[0];

	if (f != 1000)
		l->held = l->cliff_bps && f > 1000 && r >= back;
	if (l->cliff_bps && f > 1000) {
		/* back at once after a far look's cut only: the arrival's cliff, and a rate the
		 * slope itself brought down, are climbed to, not jumped to */
		if (r < back) {
			r = l->cliff_first || !l->far_cut ? gov_muldiv(r, (uint64_t)f, 1000, false)
							 : back;
			l->far_cut = false;
			return r < back ? r : back;
		}
		if (++l->cliff_holds <= LAT_CLIFF_HOLD)
			return r;
		if (f > LAT_CLIFF_STEP)
			f = LAT_CLIFF_STEP;
	}
	r = gov_muldiv(r, (uint64_t)f, 1000, false);
	if (r * lat_gains_pct[0] / 100 > l->cliff_bps * 5 / 4)
		l->cliff_bps = 0;
	return r;
}

/* One sample of pacing by latency: fg_ios requests of fg_ns in total since the last one. */
void gov_lat_sample(struct scan_gov *g, uint64_t now_ns, uint64_t interval_ns,
		    uint64_t fg_ios, uint64_t fg_ns, uint64_t fg_wait, uint64_t own_ios,
		    uint64_t own_ns)
{
	struct scan_gov_lat *l = &g->lat;
	uint64_t span, achieved = 0, r = l->ctl_bps, floor = gov_floor_bps(g), ceil = g->pace_bps;
	int64_t f;

	if (l->slowed)
		l->slowed_ns += interval_ns;
	if (own_ios)
		gov_lat_base(l, now_ns, own_ios, own_ns);
	l->acc_fg_ios += fg_ios;
	l->acc_fg_ns += fg_ns;
	l->acc_own_ios += own_ios;
	l->acc_own_ns += own_ns;
	span = now_ns - l->acc_start_ns;
	if ((fg_ios || fg_wait) && (l->fg_now || gov_lat_fg_seen(l, span)))
		l->last_fg_ns = now_ns ? now_ns : 1;
	/* Not the dip's first 0.25 s: the reads in flight when it began still delay (rule 4). */
	if (l->fg_now && lat_gains_pct[l->phase] == LAT_DIP_PCT && !l->dip_settled &&
	    span >= LAT_DIP_SETTLE_NS) {
		l->dip_settled = true;
		gov_lat_acc_reset(g, now_ns);
		return;
	}
	/* A new foreground is judged at once; the dip's look waits for its requests (rule 4). */
	if ((span < LAT_DECIDE_NS && (l->fg_now || !gov_lat_fg_seen(l, span))) ||
	    (l->dip_settled && l->acc_fg_ios < LAT_FEW_IOS && span < LAT_QUIET_NS))
		return;
	if (g->issued_bytes > l->acc_bytes0)
		achieved = gov_muldiv(g->issued_bytes - l->acc_bytes0, NS_PER_S, span, false);
	if (!l->fg_now) {	/* a new foreground: its first interval is the dip */
		l->phase = LAT_DIP_PHASE - 1;
		l->pre_bps = g->done_bps;	/* what the scan read as it came (0: not known) */
	}
	l->fg_now = l->last_fg_ns && now_ns - l->last_fg_ns < LAT_QUIET_NS;
	if (!l->fg_now) {
		r = gov_lat_idle_bps(g, r, achieved);	/* rule 2 */
		l->alone = l->cyc_aim = l->cyc_lat = l->cyc_bytes = l->cyc_allow = 0;
		l->pre_ios = l->pre_lat = 0;
		l->dips = l->cycles = l->far_floor = 0;
		l->cliff_bps = 0;
		memset(l->duty_fg, 0, sizeof(l->duty_fg));
		memset(l->duty_span, 0, sizeof(l->duty_span));
		l->baseline_ns = l->last_lat_ns = 0;
		l->slowed = false;
	} else {
		l->cyc_bytes += (double)(g->issued_bytes - l->acc_bytes0);	/* at gain one: */
		l->cyc_allow += (double)l->rate_bps * (double)span / 1e9;
		if (r && l->cyc_allow > 0)
			achieved = (uint64_t)((double)r * l->cyc_bytes / l->cyc_allow);
		f = gov_lat_decide(g, span);
		if (!(l->phase % LAT_DECIDE_PHASES))
			l->cyc_bytes = l->cyc_allow = 0;
		if (f < 1000 && achieved && (!r || achieved < r))
			r = achieved;		/* down from what the scan really did */
		else if (f > 1000 && achieved && r > gov_sat_mul(achieved, 2))
			f = 1000;		/* not using what it has: no higher */
		if (!r)		/* unlimited no more: at gain 0.1 the dip must dip (rule 3) */
			r = achieved ? achieved : floor;
		r = gov_lat_cliff(l, r, f);
		r = r && r < floor ? floor : ceil && (!r || r > ceil) ? ceil : r;
		l->slowed = !ceil || r < ceil;
	}
	l->ctl_bps = r;
	l->rate_bps = l->fg_now && r ? gov_muldiv(r, lat_gains_pct[l->phase], 100, false) : r;
	if (r && l->rate_bps < floor)
		l->rate_bps = floor;		/* --rate-min holds at the dip too */
	gov_lat_acc_reset(g, now_ns);
	gov_update_rate(g, now_ns);
	/* The rate in force, smoothed: what the projected end is judged by. */
	if (g->rate_bps)
		l->avg_bps = l->avg_bps ? (3 * l->avg_bps + g->rate_bps) / 4 : g->rate_bps;
}
