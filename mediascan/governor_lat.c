/*
 * mediascan/governor_lat.c - the rate governor's pacing by the foreground's latency: the
 * probes that learn its latency alone, and the decisions that move the rate by its excess over
 * the target. Pure arithmetic on the stat deltas governor.c passes in (gov_lat_sample).
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
 * above target (is it us, or did the foreground slow down by itself?), and LAT_RECHECK_NS
 * after one that learnt a foreground new to the scan (its first look may catch its start-up:
 * a cloud or QEMU-throttled disk lets a burst through after an idle spell, and half the
 * look's requests took 0.4 ms against 6 ms after; a slower relook starts the baseline
 * afresh), and LAT_UNSURE_NS after one whose look is unsure or odd. The baseline is the mean
 * of the probes' looks, pooled (gov_lat_probe_end). Between probes, at each decision
 * (>= LAT_MIN_IOS foreground requests and >= LAT_DECIDE_NS, so the mean is not one
 * unlucky request; a light foreground is judged after LAT_QUIET_NS) the
 * rate is moved by the excess latency (gov_lat_decide): up while under the target, down,
 * multiplicatively and the more the further, while above. With no foreground at all (fewer
 * than LAT_FEW_IOS requests in LAT_QUIET_NS) the rate doubles each time up to the ceiling:
 * the window's pace, --rate, --rate-max, or unlimited. A foreground new to the scan (seen where
 * the last probe saw none) restarts the rate low (a sixteenth of the rate before, at least
 * the floor), doubling at each LAT_RAMP_IOS requests while the excess stays under half the
 * target's. A probe that a sign of a foreground started, or that relearns a known one, waits
 * up to LAT_PROBE_CLEAN_MAX_NS for it to show (a bursty writer is idle between bursts); a
 * sign that came to nothing holds off the next sign's probe, longer each time (but not
 * requests in LAT_SIGN_STRONG samples in a row: a database starting after hours of a
 * journal's commits is learnt at once). A foreground
 * starved behind the scan completes nothing and so shows no latency: requests in flight in
 * the stat file beyond the scan's own, none completing for LAT_STARVED_NS, count as a
 * decision far above the target. Why not plain AIMD: see gov_lat_decide and
 * docs/performance.md.
 */
#include <string.h>

#include "governor_int.h"

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
#define LAT_RECHECK_CUTS 3		/* above target this often in a row: probe again, in
					   case the foreground got slower by itself */
#define LAT_RECHECK_NS 3000000000ull	/* but not sooner than this after the last probe */
#define LAT_RAMP_IOS 16ull		/* start-up decisions: this many foreground requests */
#define LAT_RAMP_NS 250000000ull	/* and at least this long (one sample) */
#define LAT_RAMP_START_DIV 16		/* a new foreground: start at the rate before over this */
#define LAT_SIGN_STRONG 4		/* other requests in this many samples in a row: a
					   foreground, holdoff or not */
#define LAT_POOL_K 64			/* samples the probes' pool keeps (older count 3/4) */
#define LAT_DIFFER_SE 3			/* a probe this many standard errors off the pool */
#define LAT_DIFFER_PCT 10		/* and this far off it: odd (the pool at least */
#define LAT_DIFFER_MIN_K 4		/* this many samples: their spread is no guide before) */
#define LAT_SURE_PCT 10			/* the pool's standard error above this share of its */
#define LAT_UNSURE_NS 5000000000ull	/* mean, or a look was odd: the next probe this soon */
#define LAT_SIGN_HOLDOFF_NS 2000000000ull	/* a sign that came to nothing: no probe on a
					   sign for this long, doubling up to probe_every_s */

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

static void gov_lat_acc_reset(struct scan_gov *g, uint64_t now_ns)
{
	g->lat.acc_start_ns = now_ns;
	g->lat.acc_ios = 0;
	g->lat.acc_sum_ns = 0;
	g->lat.acc_own_ns = 0;
	g->lat.acc_bytes0 = g->issued_bytes;
}

/*
 * Pause the scan to learn the foreground's latency alone; sign: on a sign of a foreground new to
 * the scan, prior_bps: the rate achieved before it (where a new foreground's ramp starts).
 */
void gov_lat_probe_start(struct scan_gov *g, uint64_t now_ns, bool sign, uint64_t prior_bps)
{
	g->lat.probing = true;
	g->lat.probe_sign = sign;
	g->lat.prior_bps = prior_bps;
	g->lat.probe_start_ns = now_ns;
	g->lat.probe_clean_ns = 0;
	memset(&g->lat.probe, 0, sizeof(g->lat.probe));
	g->nr_probes++;
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
	if (f > LAT_MAX_FACTOR_PM && !l->ramp)
		f = LAT_MAX_FACTOR_PM;			/* the start-up ramp doubles */
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

/* One sample of the foreground seen alone: ios requests of ns in all. */
static void gov_looks_add(struct scan_gov_looks *w, uint64_t ios, uint64_t ns)
{
	uint64_t m;

	if (!ios)
		return;
	m = ns / ios / 1000;
	w->ios += ios;
	w->sum_ns += ns;
	w->k++;
	w->m1_us += m;
	w->m2_us += m * m;
}

/* The spread (standard deviation, us) of the samples' means; 0 under two samples. */
static uint64_t gov_looks_sd_us(const struct scan_gov_looks *w)
{
	uint64_t mean, sq;

	if (w->k < 2)
		return 0;
	mean = w->m1_us / w->k;
	sq = w->m2_us / w->k;
	return sq > mean * mean ? gov_isqrt(sq - mean * mean) : 0;
}

/*
 * A probe that disagrees with the pool beyond their noise: their means further apart than
 * LAT_DIFFER_SE standard errors of the difference (from the larger of the two spreads of
 * the samples' means), and more than LAT_DIFFER_PCT (a steady foreground's samples barely
 * spread: a few percent is not a change). 1: the probe slower, -1: faster, 0: agrees.
 */
static int gov_looks_differ(const struct scan_gov_looks *pool, const struct scan_gov_looks *p)
{
	uint64_t a, b, d, sd, se2;

	if (!pool->ios || !p->ios || pool->k < LAT_DIFFER_MIN_K || !p->k)
		return 0;
	a = pool->sum_ns / pool->ios / 1000;
	b = p->sum_ns / p->ios / 1000;
	d = a > b ? a - b : b - a;
	sd = gov_looks_sd_us(pool) > gov_looks_sd_us(p) ? gov_looks_sd_us(pool) : gov_looks_sd_us(p);
	se2 = sd * sd / pool->k + sd * sd / p->k;
	if (d * 100 <= a * LAT_DIFFER_PCT || d * d <= se2 * LAT_DIFFER_SE * LAT_DIFFER_SE)
		return 0;
	return b > a ? 1 : -1;
}

/* Add a probe's look to the pool; past LAT_POOL_K samples the older ones count 3/4. */
static void gov_looks_merge(struct scan_gov_looks *pool, const struct scan_gov_looks *p)
{
	if (pool->k + p->k > LAT_POOL_K) {
		pool->ios -= pool->ios / 4;
		pool->sum_ns -= pool->sum_ns / 4;
		pool->k -= pool->k / 4;
		pool->m1_us -= pool->m1_us / 4;
		pool->m2_us -= pool->m2_us / 4;
	}
	pool->ios += p->ios;
	pool->sum_ns += p->sum_ns;
	pool->k += p->k;
	pool->m1_us += p->m1_us;
	pool->m2_us += p->m2_us;
}

/*
 * The pool's mean is not yet sure: one sample (a probe's single clean quarter second, which
 * on a throttled disk held the burst after idle and nothing else: learnt at 0.6x for 20 s),
 * or a standard error over LAT_SURE_PCT of the mean.
 */
static bool gov_looks_unsure(const struct scan_gov_looks *pool)
{
	uint64_t sd = gov_looks_sd_us(pool), mean;

	if (!pool->ios)
		return false;
	if (pool->k < 2)
		return true;		/* one sample cannot tell its spread */
	mean = pool->sum_ns / pool->ios / 1000;
	return sd * sd * 100 * 100 > mean * mean * LAT_SURE_PCT * LAT_SURE_PCT * pool->k;
}

/* End a probe: the baseline is the foreground's mean request time seen alone. */
static void gov_lat_probe_end(struct scan_gov *g, uint64_t now_ns)
{
	struct scan_gov_lat *l = &g->lat;
	bool odd = false;

	l->probing = false;
	l->probe_end_ns = now_ns;
	g->probe_ns += now_ns - l->probe_start_ns;
	if (l->probe.ios < LAT_FEW_IOS) {
		l->baseline_ns = 0;
		/*
		 * A sign of a foreground that came to nothing (a few stray requests: a journal's
		 * commit): such pauses cost the pass up to LAT_PROBE_CLEAN_MAX_NS each, so the
		 * next sign is not acted on for a while, twice as long each time in a row.
		 */
		if (l->probe_sign) {
			uint64_t most = (uint64_t)g->o.probe_every_s * NS_PER_S;

			l->sign_holdoff_ns = !l->sign_holdoff_ns ? LAT_SIGN_HOLDOFF_NS :
					     gov_sat_mul(l->sign_holdoff_ns, 2);
			if (l->sign_holdoff_ns > most)
				l->sign_holdoff_ns = most;
			l->sign_after_ns = now_ns + l->sign_holdoff_ns;
		}
	} else {
		uint64_t b = l->probe.sum_ns / l->probe.ios;
		int d = l->baseline_ns ? gov_looks_differ(&l->pool, &l->probe) : 0;

		l->sign_holdoff_ns = 0;
		/*
		 * The baseline is the mean, request by request, of what the probes of this
		 * foreground saw (the pool; older probes count less), as one probe is a short look
		 * at a noisy thing: taking a slower look at once drew the baseline up to the
		 * noise's peaks, and averaging the last two probes left it to the luck of two looks
		 * (test_pacing's test_fg_noise_not_ours, a foreground whose own time jumps by a
		 * CPU's delays, over 190 s: 1.24x alone on average over nine seeds, one at 1.46x,
		 * the test's own 1.35x; now 1.16x, none above 1.25x; docs/performance.md section
		 * 13). A look off the pool beyond its noise (gov_looks_differ) is held aside, the
		 * lower of the two taken meanwhile, and the next probe comes soon: a look that
		 * agrees with the pool then joins it and the odd one is dropped; a second look off
		 * the same way means the foreground changed (its reads grew: with the old average
		 * a foreground 1.6x slower by itself held the scan at 0.60x for 40 s,
		 * test_fg_changes_by_itself), and the pool starts again from the two. The pool
		 * starts again, too, at the second look at a foreground first seen at its sign
		 * when slower: the first look may have caught its start-up (a throttled disk
		 * lets a burst through after idle: in the VM the first look read 2.2-3.3 ms
		 * against 6.5 alone).
		 */
		if (!l->baseline_ns || (l->relook && b > l->baseline_ns)) {
			memset(&l->pool, 0, sizeof(l->pool));
			d = 0;
		} else if (d && d == l->odd_dir) {
			l->pool = l->odd;	/* twice the same way: it changed */
			d = 0;
		} else if (d) {
			/*
			 * One look off the pool: noise, or the foreground changed; the safer of the
			 * two until the next look (soon) says which.
			 */
			l->odd = l->probe;
			l->odd_dir = d;
			odd = true;
			if (b < l->baseline_ns)
				l->baseline_ns = b;
		}
		if (!d) {
			l->odd_dir = 0;
			gov_looks_merge(&l->pool, &l->probe);
			l->baseline_ns = l->pool.sum_ns / l->pool.ios;
		}
	}
	l->next_probe_ns = now_ns + (uint64_t)g->o.probe_every_s * NS_PER_S;
	l->relook = l->baseline_ns && !l->fg_now && l->probe_sign;
	if (l->relook)
		l->next_probe_ns = now_ns + LAT_RECHECK_NS;	/* a first look: look again */
	else if (l->baseline_ns && (odd || gov_looks_unsure(&l->pool)))
		l->next_probe_ns = now_ns + LAT_UNSURE_NS;	/* too noisy to trust yet */
	l->cuts_in_row = 0;
	if (!l->baseline_ns) {
		l->rate_bps = g->pace_bps;	/* nothing to yield to: the ceiling */
		l->slowed = false;
	} else if (!l->fg_now) {
		/*
		 * A foreground new to us: start again low and double (the rate that suited an idle
		 * disk is no guide; a starved foreground completes too little to judge by): at a
		 * sixteenth of the rate achieved before (at least the floor), a few doublings
		 * below what such disks allowed a foreground (a one-queue disk keeps a light
		 * reader within 1.25x at about a fifth of its bandwidth, a fast one at a tenth;
		 * docs/performance.md), not at the floor: from 1 MiB/s the ramp of a fast disk
		 * took most of a 12 s run.
		 */
		uint64_t start = l->prior_bps / LAT_RAMP_START_DIV;

		l->rate_bps = start > gov_floor_bps(g) ? start : gov_floor_bps(g);
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
void gov_lat_sample(struct scan_gov *g, uint64_t now_ns, uint64_t interval_ns,
		    uint64_t fg_ios, uint64_t fg_ns, uint64_t own_ns, uint64_t fg_wait,
		    bool own_done)
{
	struct scan_gov_lat *l = &g->lat;
	uint64_t span, achieved = 0, lat, prior;
	bool ramp, strong;

	if (l->slowed && !l->probing)
		l->slowed_ns += interval_ns;
	if (l->probing) {
		if (!own_done) {		/* none of our reads ended: a clean look */
			l->probe_clean_ns += interval_ns;
			gov_looks_add(&l->probe, fg_ios, fg_ns);
		}
		if ((l->probe_clean_ns >= LAT_PROBE_CLEAN_NS && l->probe.ios >= LAT_PROBE_IOS) ||
		    (l->probe_clean_ns >= LAT_PROBE_NONE_NS && !l->probe.ios && !l->probe_sign &&
		     !l->baseline_ns) ||
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
	if (span && g->issued_bytes > l->acc_bytes0)
		achieved = gov_muldiv(g->issued_bytes - l->acc_bytes0, NS_PER_S, span, false);
	prior = achieved ? achieved : g->done_bps;
	/*
	 * Other requests in flight (the stat file's in_flight minus ours) that do not complete:
	 * a foreground starved behind the scan shows no completions, so no latency at all.
	 * Waiting LAT_STARVED_NS counts as a decision at that latency.
	 */
	l->starved_ns = fg_wait && !fg_ios ? l->starved_ns + interval_ns : 0;
	if (l->starved_ns >= LAT_STARVED_NS) {
		l->starved_ns = 0;
		if (!l->baseline_ns) {
			gov_lat_probe_start(g, now_ns, true, prior);
			return;
		}
		l->last_lat_ns = LAT_STARVED_NS;
		gov_lat_decide(g, LAT_STARVED_NS > l->baseline_ns ? LAT_STARVED_NS :
			       l->baseline_ns * 4, achieved);
		gov_lat_acc_reset(g, now_ns);
		gov_update_rate(g, now_ns);
		return;
	}
	if ((now_ns >= l->next_probe_ns && l->baseline_ns) ||
	    (l->cuts_in_row >= LAT_RECHECK_CUTS && now_ns >= l->probe_end_ns + LAT_RECHECK_NS)) {
		gov_lat_probe_start(g, now_ns, false, prior);
		return;
	}
	/*
	 * A foreground appeared where the last probe saw none: learn it alone at its first sign
	 * (two of its requests done or waiting in one sample), before its requests queue behind
	 * a full-speed scan's (waiting for four completions took most of a second then). Such a
	 * probe waits up to LAT_PROBE_CLEAN_MAX_NS for the foreground to show again: a bursty
	 * writer's burst (32 writes in 64 ms, then a second of nothing) was over before the probe's
	 * first clean sample, the probe saw nothing, the scan went on unthrottled and paused again
	 * at the next burst (two thirds of the time paused, every burst met at full speed).
	 */
	l->sign_run = fg_ios + fg_wait ? l->sign_run + 1 : 0;
	strong = now_ns >= l->sign_after_ns || l->sign_run >= LAT_SIGN_STRONG;
	if (!l->baseline_ns && strong &&
	    ((l->acc_ios >= LAT_FEW_IOS && span >= LAT_APPEAR_NS) ||
	     fg_ios + fg_wait >= LAT_FIRST_SIGN)) {
		gov_lat_probe_start(g, now_ns, true, prior);
		return;
	}
	/*
	 * While ramping a decision needs fewer requests: it only asks "still far under?" (a
	 * foreground of 50 reads a second took 1.3 s a decision, and the ramp most of a 12 s
	 * run); the steady state's finer steps need the longer mean.
	 */
	ramp = l->ramp && l->baseline_ns;
	if (l->acc_ios >= (ramp ? LAT_RAMP_IOS : LAT_MIN_IOS) &&
	    span >= (ramp ? LAT_RAMP_NS : LAT_DECIDE_NS)) {
		lat = gov_lat_ours(g, span);
		gov_lat_decide(g, lat, achieved);
	} else if (span >= LAT_QUIET_NS) {
		if (l->acc_ios >= LAT_FEW_IOS && l->baseline_ns) {
			lat = gov_lat_ours(g, span);
			gov_lat_decide(g, lat, achieved);
		} else if (l->acc_ios >= LAT_FEW_IOS && strong) {
			gov_lat_probe_start(g, now_ns, true, prior);	/* a light foreground */
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

