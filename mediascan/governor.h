/*
 * mediascan/governor.h - the scan's rate governor: fio's deadline model (an I/O may be
 * issued once start + bytes issued / rate has passed), a rate derived from a capacity
 * window (remaining bytes / remaining time), and one of two ways to yield to other I/O:
 * pacing by the foreground's latency (the rate rises while the other requests' mean time
 * in /sys/class/block/NAME/stat, minus the scan's own requests and time, stays within a
 * target of its time alone, learnt while the scan runs; it is cut when it rises), or the older
 * backoff to a floor while any other I/O is seen at all.
 *
 * The governor never sleeps and never reads a clock: every call takes now_ns
 * (CLOCK_MONOTONIC), so the caller owns time and unit tests can simulate it.
 */
#ifndef MEDIASCAN_GOVERNOR_H
#define MEDIASCAN_GOVERNOR_H

#include <stdbool.h>
#include <stdint.h>

#include "kio.h"

#define SCAN_GOV_MAX_VIEWS 8			/* stat views per scan_gov_sample() */
#define SCAN_GOV_QUIET_S_DEFAULT 3		/* quiet_s when 0 */
#define SCAN_GOV_FLOOR_BPS_DEFAULT (1ull << 20)	/* backoff rate when rate_min_bps is 0 */
#define SCAN_GOV_CREDIT_NS 100000000ull		/* most a late caller may catch up: 100 ms */
#define SCAN_GOV_WINDOW_RECALC_NS 1000000000ull	/* window rate recomputed at most this often */
#define SCAN_GOV_DONE_NS 1000000000ull		/* achieved rate measured over this long */
#define SCAN_GOV_SAMPLE_NS 250000000ull		/* the stat counters sampled this often */
/* ... and this often while pacing by latency knows no foreground: one arriving behind a scan
 * at full speed is seen sooner (it waits behind every read the scan queued until then) */
#define SCAN_GOV_SAMPLE_FAST_NS 62500000ull

/* A window that fell behind catches up at most this many times its nominal rate. */
#define SCAN_GOV_WINDOW_CATCHUP 4

/* Pacing by latency (see governor.c for why these values). */
#define SCAN_GOV_LAT_TARGET_PCT_DEFAULT 125	/* foreground mean latency within 1.25x alone */

/* The scan's own completed reads through one stat view, since the start. */
struct scan_gov_own {
	uint64_t sectors;		/* 512B sectors read */
	uint64_t ios;			/* reads completed */
	uint64_t ns;			/* their summed latency, issue to completion */
	uint64_t inflight;		/* our requests in flight now (0: not known) */
	/* drive-side commands (passthrough: never in the disk's counts), completed and their
	 * summed latency: work the scan held in the disk's queue all the same */
	uint64_t cmd_ios, cmd_ns;
};

struct scan_gov_opts {
	uint64_t rate_bps;		/* fixed pace in bytes/s; 0 = unlimited (must be 0 with
					   window_s: bound a window with rate_max_bps) */
	uint64_t window_s;		/* finish planned_total_bytes within this; 0 = no window */
	uint64_t rate_min_bps;		/* floor of the window rate; the rate while backing off
					   (0: SCAN_GOV_FLOOR_BPS_DEFAULT) */
	uint64_t rate_max_bps;		/* ceiling of every rate; 0 = none */
	bool backoff;			/* drop to the floor while other I/O hits the disk */
	bool latency;			/* pace by the foreground's latency (not with backoff) */
	unsigned lat_target_pct;	/* latency target, percent of the baseline (0: default) */
	unsigned quiet_s;		/* seconds without other I/O before returning to pace
					   (0: SCAN_GOV_QUIET_S_DEFAULT) */
	uint64_t planned_total_bytes;	/* bytes this pass will account; needed by window_s */
	uint64_t slack_bytes;		/* own reads the kernel may have completed but the caller
					   not yet counted (at most depth * io_size); read
					   sectors not ours below this are not seen as load */
	uint64_t fg_threshold_bps;	/* other I/O lighter than this is ignored (journald,
					   our own state store); 0 = any other I/O counts */
};

/* Counters of one stat view at the previous sample. */
struct scan_gov_view {
	struct kio_diskstat last;
	uint64_t last_own_sectors;	/* 512B sectors */
	uint64_t debt_sectors;		/* read sectors not explained by ours (decaying) */
	uint64_t last_own_ios, last_own_ns;
	uint64_t last_cmd_ios, last_cmd_ns;
};

#define SCAN_GOV_LAT_GAINS 8		/* BBR's gain cycle of pacing by latency */
#define SCAN_GOV_LAT_BASE_BUCKETS 4	/* the scan's base read time: minima kept */
#define SCAN_GOV_LAT_DUTY 4		/* intervals a foreground's duty is judged over */

/* The latency controller's state (pacing by latency; the rules in governor_lat.c). */
struct scan_gov_lat {
	uint64_t ctl_bps;		/* the controller's rate; 0 = unlimited */
	uint64_t rate_bps;		/* that times the gain in force */
	unsigned phase;			/* the gain cycle's step */
	uint64_t acc_start_ns, acc_bytes0;	/* decision interval: start, bytes issued then */
	uint64_t acc_fg_ios, acc_fg_ns;	/* the foreground's requests and time in it */
	uint64_t acc_own_ios, acc_own_ns;	/* the scan's completed reads and their time */
	uint64_t base_ns;		/* the scan's read time alone (least sample mean) */
	uint64_t base_min[SCAN_GOV_LAT_BASE_BUCKETS], base_bucket_ns;
	uint64_t base_acc_ios, base_acc_ns, base_acc_ns0;	/* a sample mean's reads so far */
	double alone;			/* foreground's time alone, ns, from the dips (0: none) */
	double aim;			/* the foreground's wait per request aimed at, ns */
	unsigned dips;			/* looks at the dip so far */
	bool dip_settled;		/* the dip's first sample is over */
	double alone_dips[3];		/* the last dips' times alone (rule 4) */
	unsigned alone_n;		/* how many, since the second dip */
	double cyc_aim, cyc_lat;	/* the cycle so far: aim and excess, times requests */
	double pre_ios, pre_lat;	/* before the first dip: requests, their summed time */
	double cyc_bytes, cyc_allow;	/* the gain cycle so far: bytes issued, bytes allowed */
	uint64_t cliff_bps;		/* the rate in force when last far above (0: none) */
	unsigned cliff_holds;		/* decisions held below it since */
	bool held;			/* the last decision rose into it and was held */
	bool far_cut;			/* the last move down was a far look's, not the slope's */
	unsigned cycles;		/* gain cycles held below it (every LAT_DIP_EVERY-th dips) */
	bool cliff_first;		/* it is pre_bps, the foreground far above it */
	uint64_t pre_bps;		/* what the scan read as the foreground came */
	bool busy;			/* the foreground is busy alone (rule 6) */
	unsigned far_floor;		/* far looks at the floor since the last dip (rule 7) */
	/* the last intervals, idle ones too: the foreground's requests times its time alone, and
	 * the interval less the wait the scan added to them (how busy it is alone) */
	double duty_fg[SCAN_GOV_LAT_DUTY], duty_span[SCAN_GOV_LAT_DUTY];
	unsigned duty_at;
	uint64_t baseline_ns;		/* foreground's mean request time alone; 0: unknown */
	uint64_t last_lat_ns;		/* foreground's mean request time, last decision */
	uint64_t last_fg_ns;		/* the last sample that saw a foreground */
	bool fg_now;			/* a foreground within LAT_QUIET_NS */
	uint64_t avg_bps;		/* the rate in force, smoothed: for the projected end */
	uint64_t slowed_ns;		/* time held below the pace by the foreground */
	bool slowed;
};

struct scan_gov {
	struct scan_gov_opts o;
	uint64_t start_ns;
	uint64_t window_end_ns;		/* 0 without a window */
	uint64_t next_window_ns;	/* next window recomputation */
	uint64_t pace_bps;		/* rate when not backing off; 0 = unlimited */
	uint64_t rate_bps;		/* rate in force; 0 = unlimited */
	uint64_t anchor_ns;		/* deadline: next issue at anchor_ns + anchor_bytes/rate */
	uint64_t anchor_bytes;
	uint64_t issued_bytes;		/* everything accounted since init */
	bool backing_off;
	uint64_t backoff_start_ns;	/* when the current backoff began */
	uint64_t last_fg_ns;		/* sample that last saw other I/O */
	uint64_t last_sample_ns;
	unsigned nr_views;		/* 0 until the first sample */
	struct scan_gov_view views[SCAN_GOV_MAX_VIEWS];
	/* For progress and reports; read only. */
	unsigned nr_backoffs;		/* times the rate dropped to the floor */
	uint64_t backoff_ns;		/* time spent backing off, finished periods only */
	uint64_t fg_sectors;		/* other I/O seen (busiest view): 512B sectors read,
					   written, discarded */
	uint64_t fg_ios;		/* other writes, discards and flushes seen (busiest view) */
	struct scan_gov_lat lat;
	uint64_t done_mark_ns, done_mark_bytes;	/* start of the achieved rate's interval */
	uint64_t done_bps;		/* rate achieved, smoothed over SCAN_GOV_DONE_NS intervals
					   (0: not known yet): what the projected end is judged by */
	unsigned nr_probes;		/* baseline probes: always 0 (pacing by latency no longer
					   pauses; kept for the report's field) */
	uint64_t probe_ns;		/* time paused for them: always 0 */
};

/* Return 0 after setting g up from o at now_ns, or -EINVAL for inconsistent options. */
int scan_gov_init(struct scan_gov *g, const struct scan_gov_opts *o, uint64_t now_ns);
/* Return the ns to wait before issuing an I/O of next_io_bytes (0: issue it now). */
uint64_t scan_gov_wait_ns(struct scan_gov *g, uint64_t now_ns, uint32_t next_io_bytes);
/* Return 0 after recording bytes issued at now_ns. */
int scan_gov_account(struct scan_gov *g, uint64_t bytes, uint64_t now_ns);
/*
 * Return 1 if other I/O was seen since the previous sample, 0 if not (always 0 on the first
 * call, which sets the baseline), or -EINVAL. st[i] is a fresh /sys/class/block/NAME/stat
 * of one view and own_sectors_read[i] the 512B sectors mediascan has read through it since
 * the start (count completed reads). Pass every view that carries the scan's reads: the
 * partition and its whole disk (other partitions' load shows only there), each device of
 * a multi-device filesystem. Keep the views in the same order; a change of nr_st starts a
 * new baseline. Call it every 200-500 ms, right after reaping completions.
 */
int scan_gov_sample(struct scan_gov *g, uint64_t now_ns, const struct kio_diskstat *st,
		    const uint64_t *own_sectors_read, unsigned nr_st);
/*
 * As scan_gov_sample(), with the scan's own completed reads, their count and summed latency
 * per view, which pacing by latency subtracts from the view's requests and time.
 */
int scan_gov_sample_own(struct scan_gov *g, uint64_t now_ns, const struct kio_diskstat *st,
			const struct scan_gov_own *own, unsigned nr_st);
/* Return the time spent slowed for other I/O up to now_ns, a period still running included. */
uint64_t scan_gov_backoff_ns(const struct scan_gov *g, uint64_t now_ns);
/* Return how many times the rate was cut for other I/O (backoffs, or latency cuts). */
unsigned scan_gov_backoffs(const struct scan_gov *g);
/*
 * Return when the pass is projected to end (0: not known yet), at the lower of the rate it
 * achieves (what the disk gives) and, when pacing by latency, the rate the foreground leaves
 * it; set *late when a window is set and that is past the window's end (with a margin).
 */
uint64_t scan_gov_projected_end_ns(const struct scan_gov *g, uint64_t now_ns, bool *late);
/* Return when the window ends (0: no window), on the caller's clock. */
uint64_t scan_gov_window_end_ns(const struct scan_gov *g);
/*
 * Return the foreground's mean request time alone (the baseline; 0: not known) and set
 * *with_scan_ns to it with the scan running, at the last decision (0: not known).
 */
uint64_t scan_gov_fg_latency_ns(const struct scan_gov *g, uint64_t *with_scan_ns);

/* When to sample the stat counters next, after now: SCAN_GOV_SAMPLE_NS, or the fast period. */
uint64_t scan_gov_sample_ns(const struct scan_gov *g);
/* Return true while paused for a baseline probe: never (kept for callers). */
bool scan_gov_probing(const struct scan_gov *g);
/* Return the rate in force in bytes/s (0: unlimited). */
uint64_t scan_gov_rate_bps(const struct scan_gov *g);
/* Return true while the rate is held at the floor because of other I/O. */
bool scan_gov_backing_off(const struct scan_gov *g);

#endif
