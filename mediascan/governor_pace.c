/*
 * mediascan/governor_pace.c - the rate governor's pacing arithmetic: when the next I/O is due
 * (deadline pacing, fio's model: anchor + bytes issued since the anchor / rate), the window's
 * pace (remaining planned bytes over remaining time, capped for catch-up), and which rate is in
 * force (the pace, the backoff floor, or the latency controller's rate). Pure maths; calls
 * nothing of governor.c or governor_lat.c (see governor_int.h).
 */
#include "governor_int.h"

__extension__ typedef unsigned __int128 gov_u128;

/* a * b / c without overflow, rounded down or up, saturated at UINT64_MAX. */
uint64_t gov_muldiv(uint64_t a, uint64_t b, uint64_t c, bool round_up)
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

/* a + b, saturated at UINT64_MAX. */
uint64_t gov_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b, saturated at UINT64_MAX. */
uint64_t gov_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* When the next I/O is due under the rate in force (rate_bps > 0). */
uint64_t gov_due_ns(const struct scan_gov *g)
{
	return gov_sat_add(g->anchor_ns, gov_bytes_ns(g->anchor_bytes, g->rate_bps));
}

/* The rate a backoff or the latency controller goes no lower than. */
uint64_t gov_floor_bps(const struct scan_gov *g)
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
	/*
	 * Pacing by latency moves its rate every half second, down to a tenth at its gain cycle's
	 * dip: the wait still to go scales with the rate, or a read issued at the dip's pace held
	 * the next one back for seconds after the rate rose (a 9 s stall at 2 MiB/s).
	 */
	if (g->o.latency && g->rate_bps && new_bps && due > now_ns)
		due = now_ns + gov_muldiv(due - now_ns, g->rate_bps, new_bps, false);
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
uint64_t gov_window_bps(const struct scan_gov *g, uint64_t now_ns)
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

/* The smaller of two rates where 0 means unlimited. */
static uint64_t gov_min_rate(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

/* Put the rate the mode calls for in force (nothing returned). */
void gov_update_rate(struct scan_gov *g, uint64_t now_ns)
{
	if (g->o.latency) {
		/* While probing the rate in force is irrelevant: wait_ns holds the scan. */
		gov_set_rate(g, gov_min_rate(g->lat.rate_bps, g->pace_bps), now_ns);
		return;
	}
	gov_set_rate(g, g->backing_off ? gov_floor_bps(g) : g->pace_bps, now_ns);
}

/* Time-driven state: window recomputation, and the end of a backoff after quiet_s. */
void gov_tick(struct scan_gov *g, uint64_t now_ns)
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
 * counting the I/O about to go, may be issued at once; none while pacing by latency sees a
 * foreground (one read at a time at the pace: OpenZFS's fewer scrub I/Os while other I/O is
 * outstanding).
 */
void gov_clamp_credit(struct scan_gov *g, uint64_t now_ns, uint64_t next_io_bytes)
{
	uint64_t io_ns, cap_ns;

	if (!g->rate_bps)
		return;
	io_ns = gov_bytes_ns(next_io_bytes, g->rate_bps);
	cap_ns = io_ns < SCAN_GOV_CREDIT_NS ? SCAN_GOV_CREDIT_NS - io_ns : 0;
	if (g->o.latency && g->lat.fg_now)
		cap_ns = 0;
	if (now_ns > gov_sat_add(gov_due_ns(g), cap_ns)) {
		g->anchor_ns = now_ns - cap_ns;
		g->anchor_bytes = 0;
	}
}

