/*
 * tests/unit/test_pacing.c - pacing by the foreground's latency against a simulated disk: one
 * queue served first come first served, each request taking a fixed latency plus its bytes
 * over a bandwidth (the fault disk's model), a closed-loop foreground of 4 KiB reads at
 * queue depth one with random think times, and the scan's 1 MiB reads issued when the
 * governor says so. The simulated kernel keeps /sys/block/DEV/stat counters (requests,
 * sectors, ticks in ms from a ns sum, as Linux does) and the scan its own count and
 * latency, as the executor does. Deterministic: a seeded generator, simulated time.
 *
 * One file though near 900 lines: the disk/foreground simulator and the sweep for the best
 * fixed rate are half of it and every case runs on them (split, each half would need the
 * other's internals); the cases alone are short.
 *
 * Asserted (the pacing's goals): with no foreground the scan runs at the disk's speed (or the
 * window's pace); with one, the foreground's mean latency stays within the target (1.25x
 * alone) and the scan reads at >= 0.8x the best fixed --rate that keeps it there, found by a
 * sweep here; a busy foreground (back to back) keeps >= 0.95x its throughput; a bursty writer
 * stays within the target on both disks; the scan never pauses; it slows when a foreground
 * comes and speeds up when it goes; and the presence backoff's time counts a backoff still
 * running. The simulated scan keeps at most SCAN_DEPTH_LAT reads in flight when paced by
 * latency, as the executor does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "governor.h"
#include "kio.h"

#define MiB (1024ull * 1024)
#define NS_S 1000000000ull
#define NS_MS 1000000ull
#define NS_US 1000ull
#define SIM_QMAX 64
#define SIM_SAMPLE_NS (250 * NS_MS)	/* the executor's sampling period */
#define FG_BYTES 4096u
#define SCAN_BYTES (1u << 20)
#define SCAN_DEPTH 16
/*
 * Pacing by latency: the executor keeps at most twice the bandwidth-delay product in flight
 * (exec_inflight_cap, BBR's cap), at least two reads; a one-queue disk's product is one read.
 */
#define SCAN_DEPTH_LAT 2

struct sim_req {
	int scan, write;
	uint32_t bytes;
	uint64_t submit_ns;
};

struct sim {
	/* the disk */
	uint64_t lat_ns, bw_bps;
	uint64_t iops, iops_burst;	/* an iops throttle (0: none) */
	double bucket;			/* its level, requests, at bucket_ns */
	uint64_t bucket_ns;
	struct sim_req q[SIM_QMAX];
	unsigned q_head, q_len;		/* q[q_head] is in service when busy */
	int busy;
	uint64_t done_ns;		/* end of the request in service */
	/* the foreground: QD1, think time uniform in [0, 2 * think_ns] */
	int fg_on;
	uint64_t think_ns;
	int fg_waiting;			/* a request outstanding */
	uint64_t fg_next_ns;
	uint64_t fg_on_from, fg_on_to;	/* fg runs in [from, to) (to 0: forever) */
	uint64_t fg_ios, fg_sum_ns;	/* measured after meas_from_ns */
	/* a bursty foreground: burst_n requests of fg_bytes back to back, then burst_gap_ns */
	unsigned burst_n, burst_left;
	uint32_t fg_bytes;
	uint64_t burst_gap_ns;
	int fg_write;
	uint64_t meas_from_ns;
	/* the scan */
	int mode;			/* 0 unthrottled, 1 governed */
	struct scan_gov g;
	unsigned depth;			/* reads the scan keeps in flight at most */
	unsigned inflight;
	uint64_t try_ns;		/* next time to ask the governor */
	uint64_t scan_bytes, scan_bytes_meas;
	uint64_t planned;		/* stop issuing after this (0: never) */
	uint64_t issued;
	/* kernel counters and the scan's own */
	uint64_t k_ios, k_sectors, k_ticks_ns, k_wios, k_wsectors, k_wticks_ns;
	struct scan_gov_own own;
	uint64_t next_sample_ns;
	uint64_t now;
	uint32_t rng;
	/*
	 * CPU noise on the foreground (a busy host): each fg request's time, as the kernel
	 * counts it and the fg waits it, grows by a level drawn every SIM_SAMPLE_NS from
	 * [0, 2 * fg_noise_ns] that does not occupy the disk (the driver's CPU, not the media).
	 */
	uint64_t fg_noise_ns, noise_now_ns, noise_until_ns;
	uint64_t fg_sec_ios[256], fg_sec_ns[256];	/* the foreground's per second */
	/* the scan's rate per second, for the phase tests */
	uint64_t sec_bytes[256];
};

static uint32_t sim_rand(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	return s->rng;
}

/*
 * The time of a request started now: the disk's latency plus its bytes over the bandwidth,
 * after a wait for the iops throttle when there is one (QEMU's: a leaky bucket of iops_burst
 * requests draining at iops a second; a request waits while the bucket is full, so after an
 * idle spell iops_burst requests go through at the disk's speed).
 */
static uint64_t sim_svc(struct sim *s, uint32_t bytes)
{
	uint64_t wait = 0;

	if (s->iops) {
		double drained = (double)(s->now - s->bucket_ns) * (double)s->iops / 1e9;

		s->bucket = s->bucket > drained ? s->bucket - drained : 0;
		s->bucket_ns = s->now;
		if (s->bucket + 1 > (double)s->iops_burst)
			wait = (uint64_t)((s->bucket + 1 - (double)s->iops_burst) * 1e9 /
					  (double)s->iops);
		s->bucket += 1;
	}
	return wait + s->lat_ns + (uint64_t)bytes * NS_S / s->bw_bps;
}

static void sim_submit(struct sim *s, int scan, uint32_t bytes)
{
	struct sim_req *r;

	assert_true(s->q_len < SIM_QMAX);
	r = &s->q[(s->q_head + s->q_len) % SIM_QMAX];
	r->scan = scan;
	r->write = !scan && s->fg_write;
	r->bytes = bytes;
	r->submit_ns = s->now;
	s->q_len++;
	if (!s->busy) {
		s->busy = 1;
		s->done_ns = s->now + sim_svc(s, bytes);
	}
}

static void sim_complete(struct sim *s)
{
	struct sim_req r = s->q[s->q_head];
	uint64_t lat = s->now - r.submit_ns;

	s->q_head = (s->q_head + 1) % SIM_QMAX;
	s->q_len--;
	s->busy = s->q_len > 0;
	if (s->busy)
		s->done_ns = s->now + sim_svc(s, s->q[s->q_head].bytes);
	if (r.write) {
		s->k_wios++;
		s->k_wsectors += r.bytes / 512;
		s->k_wticks_ns += lat;
	} else {
		s->k_ios++;
		s->k_sectors += r.bytes / 512;
		s->k_ticks_ns += lat;
	}
	if (r.scan) {
		s->inflight--;
		s->scan_bytes += r.bytes;
		if (s->now >= s->meas_from_ns)
			s->scan_bytes_meas += r.bytes;
		if (s->now / NS_S < 256)
			s->sec_bytes[s->now / NS_S] += r.bytes;
		s->own.ios++;
		s->own.sectors += r.bytes / 512;
		s->own.ns += lat;
		if (s->try_ns > s->now)
			s->try_ns = s->now;	/* a slot is free: ask again */
	} else {
		s->fg_waiting = 0;
		if (s->fg_noise_ns) {
			if (s->now >= s->noise_until_ns) {
				s->noise_now_ns = sim_rand(s) % (2 * s->fg_noise_ns + 1);
				s->noise_until_ns = s->now + SIM_SAMPLE_NS;
			}
			lat += s->noise_now_ns;
			if (r.write)
				s->k_wticks_ns += s->noise_now_ns;
			else
				s->k_ticks_ns += s->noise_now_ns;
		}
		if (s->now >= s->meas_from_ns) {
			s->fg_ios++;
			s->fg_sum_ns += lat;
		}
		if (s->now / NS_S < 256) {
			s->fg_sec_ios[s->now / NS_S]++;
			s->fg_sec_ns[s->now / NS_S] += lat;
		}
		s->fg_next_ns = s->now + (s->fg_noise_ns ? s->noise_now_ns : 0) +
				(s->think_ns ? sim_rand(s) % (2 * s->think_ns + 1) : 0);
		if (s->burst_n && --s->burst_left == 0) {
			s->burst_left = s->burst_n;
			s->fg_next_ns += s->burst_gap_ns;
		}
	}
}

static void sim_sample(struct sim *s)
{
	struct kio_diskstat st;

	memset(&st, 0, sizeof(st));
	st.read_ios = s->k_ios;
	st.read_sectors = s->k_sectors;
	st.read_ticks_ms = s->k_ticks_ns / NS_MS;
	st.write_ios = s->k_wios;
	st.write_sectors = s->k_wsectors;
	st.write_ticks_ms = s->k_wticks_ns / NS_MS;
	st.in_flight = s->q_len;		/* queued and in service, as the kernel counts */
	st.nr_fields = 17;
	s->own.inflight = s->inflight;
	assert_true(scan_gov_sample_own(&s->g, s->now, &st, &s->own, 1) >= 0);
}

static void sim_try_scan(struct sim *s)
{
	while (s->inflight < s->depth && (!s->planned || s->issued < s->planned)) {
		if (s->mode) {
			uint64_t w = scan_gov_wait_ns(&s->g, s->now, SCAN_BYTES);

			if (w) {
				s->try_ns = s->now + w;
				return;
			}
			scan_gov_account(&s->g, SCAN_BYTES, s->now);
		}
		sim_submit(s, 1, SCAN_BYTES);
		s->inflight++;
		s->issued += SCAN_BYTES;
	}
	s->try_ns = UINT64_MAX;			/* until a completion */
}

/* Run the simulation until end_ns. */
static void sim_run(struct sim *s, uint64_t end_ns)
{
	while (s->now < end_ns) {
		uint64_t t = end_ns;
		int ev = 0;

		if (s->busy && s->done_ns <= t) {
			t = s->done_ns;
			ev = 1;
		}
		if (s->fg_on && !s->fg_waiting) {
			uint64_t f = s->fg_next_ns > s->fg_on_from ? s->fg_next_ns : s->fg_on_from;

			if (f < t && (!s->fg_on_to || f < s->fg_on_to)) {
				t = f;
				ev = 2;
			}
		}
		if (s->try_ns < t) {
			t = s->try_ns;
			ev = 3;
		}
		if (s->mode && s->next_sample_ns < t) {
			t = s->next_sample_ns;
			ev = 4;
		}
		s->now = t;
		switch (ev) {
		case 1:
			sim_complete(s);
			break;
		case 2:
			s->fg_waiting = 1;
			sim_submit(s, 0, s->fg_bytes ? s->fg_bytes : FG_BYTES);
			break;
		case 3:
			sim_try_scan(s);
			break;
		case 4:
			s->next_sample_ns += SIM_SAMPLE_NS;
			sim_sample(s);
			if (s->try_ns == UINT64_MAX && s->inflight < s->depth)
				s->try_ns = s->now;
			break;
		default:
			break;
		}
	}
}

struct model {
	const char *name;
	uint64_t lat_ns, bw_bps, think_ns;
	unsigned burst_n;		/* a bursty foreground (0: steady) */
	uint32_t fg_bytes;		/* its request size (0: FG_BYTES) */
	uint64_t burst_gap_ns;
	int write;
	uint64_t iops, iops_burst;	/* the disk's iops throttle (0: none) */
};

static const struct model models[] = {
	/* a 150 MB/s rotating disk, a light foreground (about 50 reads a second) */
	{ "hdd, light fg", 4 * NS_MS, 150000000, 16 * NS_MS },
	/* the same disk, a busier foreground (about 125 reads a second) */
	{ "hdd, busy fg", 4 * NS_MS, 150000000, 4 * NS_MS },
	/* an SSD-like disk of queue depth one, a foreground at about 3000 reads a second */
	{ "ssd, fg", 100 * NS_US, 1000000000, 200 * NS_US },
};

/*
 * The bench's bursty writer (tests/bench/pacing.sh): 32 sequential 1 MiB writes back to back,
 * then a second of nothing, on the SSD-like disk: each burst lasts about 35 ms, far less than
 * one of the governor's samples.
 */
static const struct model writer_model = {
	"ssd, bursty writer", 100 * NS_US, 1000000000, 0, 32, 1u << 20, NS_S, 1
};

/* A journal's commits: three 4 KiB writes every 5 s on the rotating disk. */
static const struct model commits_model = {
	"hdd, 3 writes every 5 s", 4 * NS_MS, 150000000, 0, 3, 4096, 5 * NS_S, 1
};

/* The foreground of model m from now on (the disk is left as it is). */
static void sim_set_fg(struct sim *s, const struct model *m)
{
	s->think_ns = m->think_ns;
	s->burst_n = s->burst_left = m->burst_n;
	s->fg_bytes = m->fg_bytes;
	s->burst_gap_ns = m->burst_gap_ns;
	s->fg_write = m->write;
}

/* mode: -1 no scan, 0 unthrottled, 1 fixed rate, 2 latency pacing. */
static void sim_init(struct sim *s, const struct model *m, int fg, int mode, uint64_t rate,
		     uint64_t window_s, uint64_t planned)
{
	struct scan_gov_opts o;

	memset(s, 0, sizeof(*s));
	s->lat_ns = m->lat_ns;
	s->bw_bps = m->bw_bps;
	s->iops = m->iops;
	s->iops_burst = m->iops_burst;
	sim_set_fg(s, m);
	s->fg_on = fg;
	s->rng = getenv("PACING_SEED") ? (uint32_t)atoi(getenv("PACING_SEED")) : 12345;
	s->planned = mode < 0 ? 1 : planned;
	s->issued = mode < 0 ? 1 : 0;
	s->try_ns = 0;
	s->mode = mode > 0;
	s->depth = mode == 2 ? SCAN_DEPTH_LAT : SCAN_DEPTH;
	if (mode > 0) {
		memset(&o, 0, sizeof(o));
		o.rate_bps = mode == 1 ? rate : 0;
		o.rate_max_bps = mode == 2 ? rate : 0;
		o.window_s = window_s;
		o.planned_total_bytes = planned ? planned : 1ull << 50;
		o.latency = mode == 2;
		o.slack_bytes = (uint64_t)SCAN_DEPTH * SCAN_BYTES;
		assert_int_equal(scan_gov_init(&s->g, &o, 0), 0);
		s->next_sample_ns = SIM_SAMPLE_NS;
	}
}

/* The foreground's mean latency in ns over a run of dur_ns (measured after warm_ns). */
static double sim_fg_mean(const struct model *m, int mode, uint64_t rate, uint64_t dur_ns,
			  uint64_t warm_ns, double *scan_bps)
{
	struct sim *s = calloc(1, sizeof(*s));
	double mean;

	assert_non_null(s);
	sim_init(s, m, 1, mode, rate, 0, 0);
	s->meas_from_ns = warm_ns;
	sim_run(s, dur_ns);
	mean = s->fg_ios ? (double)s->fg_sum_ns / (double)s->fg_ios : 0;
	if (mode == 2 && getenv("PACING_TRACE"))
		for (uint64_t t = 0; t < dur_ns / NS_S && t < 256; t++)
			print_message("t=%llu %.1f MB/s\n", (unsigned long long)t,
				      s->sec_bytes[t] / 1e6);
	if (scan_bps)
		*scan_bps = (double)s->scan_bytes_meas * 1e9 / (double)(dur_ns - warm_ns);
	free(s);
	return mean;
}

/* With no foreground, latency pacing reads as fast as the disk (as unthrottled). */
static void test_no_fg_full_speed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		struct sim *s = calloc(1, sizeof(*s));
		double free_bps, paced_bps;

		assert_non_null(s);
		sim_init(s, &models[i], 0, 0, 0, 0, 0);
		sim_run(s, 20 * NS_S);
		free_bps = (double)s->scan_bytes / 20;
		sim_init(s, &models[i], 0, 2, 0, 0, 0);
		sim_run(s, 20 * NS_S);
		paced_bps = (double)s->scan_bytes / 20;
		print_message("%s, no foreground: unthrottled %.1f MB/s, paced %.1f MB/s\n",
			      models[i].name, free_bps / 1e6, paced_bps / 1e6);
		/* the first probe (up to 1.5 s of 20) is the only pause */
		assert_true(paced_bps >= 0.9 * free_bps);
		free(s);
	}
}

/* With no foreground and a window, the pass is paced to end in the window (not early). */
static void test_no_fg_window(void **state)
{
	const struct model *m = &models[0];
	struct sim *s = calloc(1, sizeof(*s));
	uint64_t planned = 600 * MiB;		/* 10 s at 60 MiB/s: the disk does ~140 */

	(void)state;
	assert_non_null(s);
	sim_init(s, m, 0, 2, 0, 10, planned);
	sim_run(s, 9 * NS_S);
	print_message("window 10 s, 600 MiB: %llu MiB by 9 s\n",
		      (unsigned long long)(s->scan_bytes / MiB));
	assert_true(s->scan_bytes < planned);		/* not run ahead at full speed */
	assert_true(s->scan_bytes >= planned * 3 / 4);
	sim_run(s, 12 * NS_S);
	assert_int_equal(s->scan_bytes, planned);	/* done by the window's end (+2 s) */
	free(s);
}

/*
 * The foreground's mean latency within 1.25x its latency alone, and (rate_goal) the scan at
 * >= 0.8x the best fixed rate that keeps it there (a bisection of fixed rates up to hi_bps).
 */
static void check_target_and_rate(const struct model *m, double hi_bps, int rate_goal)
{
	double alone = sim_fg_mean(m, -1, 0, 20 * NS_S, 0, NULL), target = alone * 1.25;
	double lo = 0, hi = hi_bps, best, lat, bps, fixed_bps = 0;

	/* The best fixed rate: the highest that keeps the mean within target. */
	for (int it = 0; it < 14; it++) {
		double mid = (lo + hi) / 2;

		if (sim_fg_mean(m, 1, (uint64_t)mid, 40 * NS_S, 0, NULL) <= target)
			lo = mid;
		else
			hi = mid;
	}
	best = lo;
	sim_fg_mean(m, 1, (uint64_t)best, 40 * NS_S, 0, &fixed_bps);
	lat = sim_fg_mean(m, 2, 0, 120 * NS_S, 10 * NS_S, &bps);
	print_message("%s: alone %.3f ms, target %.3f ms; best fixed --rate %.1f MB/s "
		      "(reads %.1f); paced: fg %.3f ms (%.2fx), scan %.1f MB/s (%.2fx)\n",
		      m->name, alone / 1e6, target / 1e6, best / 1e6, fixed_bps / 1e6,
		      lat / 1e6, lat / alone, bps / 1e6, bps / fixed_bps);
	assert_true(lat <= target);
	if (rate_goal)
		assert_true(bps >= 0.8 * fixed_bps);
}

/* With a steady foreground, on each disk. */
static void test_fg_target_and_rate(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		check_target_and_rate(&models[i], 200e6, 1);
}

/*
 * A journal's commits (commits_model): each is a foreground for a moment; the scan yields to it
 * and takes its speed back once it has gone, so it keeps most of its speed.
 */
static void test_fg_sporadic(void **state)
{
	const struct model *commits = &commits_model;
	struct sim *s = calloc(1, sizeof(*s));
	double free_bps, paced_bps;

	(void)state;
	assert_non_null(s);
	sim_init(s, commits, 1, 0, 0, 0, 0);
	sim_run(s, 100 * NS_S);
	free_bps = (double)s->scan_bytes / 100;
	sim_init(s, commits, 1, 2, 0, 0, 0);
	sim_run(s, 100 * NS_S);
	paced_bps = (double)s->scan_bytes / 100;
	print_message("%s: unthrottled %.1f MB/s, paced %.1f MB/s\n", commits->name,
		      free_bps / 1e6, paced_bps / 1e6);
	assert_true(paced_bps >= 0.85 * free_bps);
	free(s);
}

/*
 * A reader that starts after half a minute of those commits is within the target within 3 s,
 * as one that starts on an idle disk. (It replaces a test of the sign holdoff, a rule of the
 * probing controller that the new signal made unneeded.)
 */
static void test_fg_after_commits(void **state)
{
	const struct model *reader = &models[0];
	struct sim *s = calloc(1, sizeof(*s));
	double alone = sim_fg_mean(reader, -1, 0, 20 * NS_S, 2 * NS_S, NULL);
	int within = -1;
	uint64_t t0 = 30 * NS_S;

	(void)state;
	assert_non_null(s);
	sim_init(s, &commits_model, 1, 2, 0, 0, 0);
	sim_run(s, t0);
	sim_set_fg(s, reader);			/* now a steady reader */
	if (!s->fg_waiting)
		s->fg_next_ns = s->now;
	sim_run(s, t0 + 10 * NS_S);
	for (int t = (int)(t0 / NS_S) + 1; t < (int)(t0 / NS_S) + 10 && within < 0; t++)
		if (s->fg_sec_ios[t] && (double)s->fg_sec_ns[t] / s->fg_sec_ios[t] <= alone * 1.25)
			within = t - (int)(t0 / NS_S);
	print_message("a reader after %.0f s of commits: within target from second %d after\n",
		      t0 / 1e9, within);
	assert_true(within >= 0 && within <= 3);
	free(s);
}

/*
 * A busy foreground (4 KiB reads at queue depth one, back to back: the disk is never idle)
 * keeps >= 0.95x its throughput alone, and the scan still reads (a never-idle
 * server's pass is not starved to nothing).
 */
static void check_busy(const struct model *m)
{
	struct sim *s = calloc(1, sizeof(*s));
	double alone_iops, paced_iops, bps;

	assert_non_null(s);
	sim_init(s, m, 1, -1, 0, 0, 0);
	s->meas_from_ns = 10 * NS_S;
	sim_run(s, 70 * NS_S);
	alone_iops = (double)s->fg_ios / 60;
	sim_init(s, m, 1, 2, 0, 0, 0);
	s->meas_from_ns = 10 * NS_S;
	sim_run(s, 70 * NS_S);
	paced_iops = (double)s->fg_ios / 60;
	bps = (double)s->scan_bytes_meas / 60;
	print_message("%s: %.0f IOPS alone, %.0f with the scan (%.3fx); scan %.1f MB/s\n", m->name,
		      alone_iops, paced_iops, paced_iops / alone_iops, bps / 1e6);
	assert_true(paced_iops >= 0.95 * alone_iops);
	assert_true(bps >= 0.5e6);
	free(s);
}

/*
 * A disk behind an iops throttle (QEMU's iops-read=150 of the VM bench): after an idle
 * spell about 15 requests go through at the disk's speed, then one every 6.7 ms. The
 * foreground (4 KiB reads at queue depth one, back to back) starts during the scan's first
 * probe, which sees its burst: in the VM that look read 2.2-3.3 ms against 6.5 alone, every
 * later reading looked 2x slowed, and the scan kept near its floor until the 20 s relook
 * (here, on c05a3a5's governor: from 400 ms, 25 s; from 600 ms, not within 30 s). The time
 * alone, now learnt at the gain cycle's dips, must be within 10% in 15 s. This foreground
 * takes every request the throttle lets through: a busy one, which keeps >= 0.95x its
 * throughput (a busy user's goal: the scan at >= 0.8x the best fixed rate at 1.25x latency
 * would cost such a foreground 20% of its throughput).
 */
static const struct model throttled_model = {
	"ssd behind 150 IOPS, burst 15", 100 * NS_US, 1000000000, 0, 0, 0, 0, 0, 150, 15
};

static void test_fg_throttled_burst(void **state)
{
	double alone = sim_fg_mean(&throttled_model, -1, 0, 20 * NS_S, 2 * NS_S, NULL);
	static const unsigned from_ms[] = { 0, 300, 400, 600, 900 };

	(void)state;
	for (unsigned i = 0; i < sizeof(from_ms) / sizeof(from_ms[0]); i++) {
		struct sim *s = calloc(1, sizeof(*s));
		int t_ok = -1;

		assert_non_null(s);
		sim_init(s, &throttled_model, 1, 2, 0, 0, 0);
		s->fg_on_from = from_ms[i] * NS_MS;
		for (int t = 1; t <= 30 && t_ok < 0; t++) {
			sim_run(s, (uint64_t)t * NS_S);
			if (s->g.lat.baseline_ns >= alone * 0.9)
				t_ok = t;
		}
		print_message("%s: alone %.2f ms; the foreground from %u ms: the baseline "
			      "within 10%% of it from %d s\n", throttled_model.name, alone / 1e6,
			      from_ms[i], t_ok);
		assert_true(t_ok >= 0 && t_ok <= 15);
		free(s);
	}
	check_target_and_rate(&throttled_model, 200e6, 0);
	check_busy(&throttled_model);
}

/* The SSD-like disk's reader, switched to 64 KiB reads: 1.6x slower alone. */
static const struct model big_reads_model = {
	"ssd, 64 KiB reads", 100 * NS_US, 1000000000, 200 * NS_US, 0, 64 << 10, 0, 0
};

/*
 * A foreground whose own time changes (its reads grow from 4 to 64 KiB, or shrink back) while
 * the scan runs: the baseline, pooled over the probes, must follow within a few probes. One
 * that got slower and was not relearnt cuts the scan towards the floor; one that got faster
 * lets the scan run over its new target. From 20 s after the change: the foreground within
 * the target of its new time alone, the scan at >= 0.8x what pacing reads under the new
 * foreground from the start.
 */
static void test_fg_changes_by_itself(void **state)
{
	const struct model *pairs[2][2] = { { &models[2], &big_reads_model },
					    { &big_reads_model, &models[2] } };

	(void)state;
	for (int k = 0; k < 2; k++) {
		const struct model *a = pairs[k][0], *b = pairs[k][1];
		struct sim *s = calloc(1, sizeof(*s));
		double alone = sim_fg_mean(b, -1, 0, 20 * NS_S, 2 * NS_S, NULL), fresh_bps;
		uint64_t ios = 0, ns = 0, bytes = 0;

		assert_non_null(s);
		sim_fg_mean(b, 2, 0, 60 * NS_S, 20 * NS_S, &fresh_bps);
		sim_init(s, a, 1, 2, 0, 0, 0);
		sim_run(s, 60 * NS_S);
		sim_set_fg(s, b);
		sim_run(s, 120 * NS_S);
		for (int t = 80; t < 120; t++) {
			ios += s->fg_sec_ios[t];
			ns += s->fg_sec_ns[t];
			bytes += s->sec_bytes[t];
		}
		print_message("%s, then %s: fg %.2fx its new time alone, scan %.1f MB/s (%.2fx "
			      "of pacing it from the start)\n", a->name, b->name,
			      (double)ns / (double)ios / alone, bytes / 40e6,
			      bytes / 40.0 / fresh_bps);
		assert_true((double)ns / (double)ios <= alone * 1.25);
		assert_true(bytes / 40.0 >= 0.8 * fresh_bps);
		free(s);
	}
}

/*
 * A bursty writer whose bursts are over within one sample (on the SSD-like disk, and on the
 * rotating one where a burst takes a third of a second): within the target, the scan near the
 * best fixed rate, and the scan never stopped (no second without a read: the controller that
 * paused to learn the writer alone spent 5 s of 60 paused).
 */
static const struct model writer_hdd_model = {
	"hdd, bursty writer", 4 * NS_MS, 150000000, 0, 32, 1u << 20, NS_S, 1
};

static void test_fg_bursty_writer(void **state)
{
	struct sim *s = calloc(1, sizeof(*s));
	int stopped = 0;

	(void)state;
	assert_non_null(s);
	check_target_and_rate(&writer_model, 1000e6, 1);
	check_target_and_rate(&writer_hdd_model, 200e6, 0);	/* within target */
	sim_init(s, &writer_model, 1, 2, 0, 0, 0);
	sim_run(s, 60 * NS_S);
	for (int t = 0; t < 60; t++)
		stopped += !s->sec_bytes[t];
	print_message("%s: %d seconds of 60 without a read\n", writer_model.name, stopped);
	assert_int_equal(stopped, 0);
	free(s);
}

static void test_fg_busy(void **state)
{
	static const struct model busy[] = {
		{ "hdd, back-to-back fg", 4 * NS_MS, 150000000, 0 },
		{ "ssd, back-to-back fg", 100 * NS_US, 1000000000, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
		check_busy(&busy[i]);
}

/* The scan slows when a foreground comes and speeds up again when it goes. */
static void test_fg_comes_and_goes(void **state)
{
	const struct model *m = &models[0];
	struct sim *s = calloc(1, sizeof(*s));
	uint64_t before = 0, during = 0, after = 0;

	(void)state;
	assert_non_null(s);
	sim_init(s, m, 1, 2, 0, 0, 0);
	s->fg_on_from = 20 * NS_S;
	s->fg_on_to = 60 * NS_S;
	sim_run(s, 90 * NS_S);
	for (int t = 5; t < 20; t++)
		before += s->sec_bytes[t];
	for (int t = 40; t < 60; t++)
		during += s->sec_bytes[t];
	for (int t = 70; t < 90; t++)
		after += s->sec_bytes[t];
	print_message("no fg %.1f MB/s, fg %.1f MB/s, fg gone %.1f MB/s\n", before / 15e6,
		      during / 20e6, after / 20e6);
	assert_true(during / 20 < before / 15 / 2);
	assert_true(after / 20 > during / 20 * 2);
	assert_true(scan_gov_backoffs(&s->g) >= 1);
	assert_true(scan_gov_backoff_ns(&s->g, s->now) >= 10 * NS_S);
	free(s);
}

/*
 * The window is honest: a foreground that leaves too little spare capacity makes the
 * projected end late, said early and kept; when it goes away the pass speeds up and ends
 * in time, and the projection says so.
 */
static void test_window_late_then_in_time(void **state)
{
	const struct model *m = &models[1];
	struct sim *s = calloc(1, sizeof(*s));
	uint64_t planned = 2400ull * 1000 * 1000, first_late = 0;
	bool late;

	(void)state;
	assert_non_null(s);
	sim_init(s, m, 1, 2, 0, 60, planned);	/* 40 MB/s asked; ~15 fit under the foreground */
	s->fg_on_to = 20 * NS_S;
	for (uint64_t t = 1; t <= 20; t++) {
		sim_run(s, t * NS_S);
		scan_gov_projected_end_ns(&s->g, s->now, &late);
		if (late && !first_late)
			first_late = t;
		if (first_late)
			assert_true(late);		/* and kept saying it */
	}
	print_message("window 60 s, 2.4 GB, foreground until 20 s: late said at %llu s, "
		      "%llu MB by 20 s\n", (unsigned long long)first_late,
		      (unsigned long long)(s->scan_bytes / 1000000));
	assert_true(first_late && first_late <= 12);
	sim_run(s, 40 * NS_S);
	scan_gov_projected_end_ns(&s->g, s->now, &late);
	assert_false(late);				/* the foreground went: in time again */
	sim_run(s, 62 * NS_S);
	print_message("done: %llu of %llu MB at 62 s\n",
		      (unsigned long long)(s->scan_bytes / 1000000),
		      (unsigned long long)(planned / 1000000));
	assert_true(s->scan_bytes >= planned);
	free(s);
}

/*
 * The disk itself cannot do what the window asks (no foreground at all): the window's pace
 * is the rate in force, but the disk gives far less. The projected end is judged by what
 * the scan achieves, so "late" is said early (it was judged by the rate in force, which a
 * lagging window only raised: never late until the catch-up cap).
 */
static void test_window_late_slow_disk(void **state)
{
	const struct model *m = &models[0];
	struct sim *s = calloc(1, sizeof(*s));
	uint64_t planned = 3000 * MiB, first_late = 0, end;	/* the disk does ~140 MiB/s */
	bool late;

	(void)state;
	assert_non_null(s);
	sim_init(s, m, 0, 2, 0, 10, planned);	/* 300 MiB/s asked */
	for (uint64_t t = 1; t <= 9; t++) {
		sim_run(s, t * NS_S);
		end = scan_gov_projected_end_ns(&s->g, s->now, &late);
		if (late && !first_late)
			first_late = t;
		if (first_late)
			assert_true(late);		/* and kept saying it */
	}
	print_message("window 10 s, 3000 MiB on a ~140 MiB/s disk: late said at %llu s, "
		      "projected end %.1f s\n", (unsigned long long)first_late,
		      (double)end / NS_S);
	assert_true(first_late && first_late <= 4);
	assert_true(end > 15 * NS_S);
	free(s);
}

/*
 * A foreground whose latency jumps by itself (a busy host: its driver waits for a CPU) on a
 * never-idle disk: the scan, at a small share of the disk, cannot have caused the jumps and
 * must not be cut by them (on the development host under load it crawled at --rate-min, and
 * scan-pacing-latency's never-idle check failed 2 of 3 runs). The foreground stays within
 * the target of its noisy latency alone, both measured over NOISE_RUN_S: over 30 s the
 * noise's own mean moved by 8% from seed to seed, more than the margin judged.
 */
#define NOISE_RUN_S 190
static void test_fg_noise_not_ours(void **state)
{
	const struct model *m = &models[2];
	struct sim *s = calloc(1, sizeof(*s));
	double alone, paced, bps;

	(void)state;
	assert_non_null(s);
	sim_init(s, m, 1, -1, 0, 0, 0);			/* alone, for its mean */
	s->fg_noise_ns = 400 * NS_US;
	s->meas_from_ns = 2 * NS_S;
	sim_run(s, (NOISE_RUN_S + 2) * NS_S);
	alone = (double)s->fg_sum_ns / (double)s->fg_ios;
	sim_init(s, m, 1, 2, 0, 0, 0);
	s->fg_noise_ns = 400 * NS_US;
	s->meas_from_ns = 10 * NS_S;
	sim_run(s, (NOISE_RUN_S + 10) * NS_S);
	paced = (double)s->fg_sum_ns / (double)s->fg_ios;
	bps = (double)s->scan_bytes_meas / NOISE_RUN_S;
	print_message("fg with CPU noise (0-0.8 ms a request, alone %.3f ms): paced fg %.3f ms "
		      "(%.2fx), scan %.1f MB/s\n", alone / 1e6, paced / 1e6, paced / alone,
		      bps / 1e6);
	assert_true(bps >= 20e6);			/* not held near the floor */
	assert_true(paced <= alone * 1.25);
	free(s);
}

/*
 * How fast a foreground arriving against a full-speed scan is protected (the bench's
 * detection took 4 to 5 s): per model, the seconds after its arrival until its mean latency
 * over a second is within the target of its latency alone, and its mean over the first
 * 5 s. Printed for docs/performance.md; asserted loosely (within 3 s).
 */
static void test_fg_arrival(void **state)
{
	(void)state;
	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		const struct model *m = &models[k];
		struct sim *s = calloc(1, sizeof(*s));
		double alone, first5 = 0;
		uint64_t ios5 = 0, ns5 = 0;
		int within = -1;

		assert_non_null(s);
		alone = sim_fg_mean(m, -1, 0, 20 * NS_S, 2 * NS_S, NULL);
		sim_init(s, m, 1, 2, 0, 0, 0);
		s->fg_on_from = 10 * NS_S;
		sim_run(s, 30 * NS_S);
		for (int t = 10; t < 30; t++) {
			double mean = s->fg_sec_ios[t] ?
				      (double)s->fg_sec_ns[t] / s->fg_sec_ios[t] : 0;

			if (t < 15) {
				ios5 += s->fg_sec_ios[t];
				ns5 += s->fg_sec_ns[t];
			}
			if (within < 0 && s->fg_sec_ios[t] && mean <= alone * 1.25)
				within = t - 10;
		}
		first5 = ios5 ? (double)ns5 / (double)ios5 : 0;
		if (getenv("PACING_TRACE"))
			for (int t = 9; t < 16; t++)
				print_message("  %d s: fg %llu reads, mean %.2f ms; scan %.1f MB\n",
					      t, (unsigned long long)s->fg_sec_ios[t],
					      s->fg_sec_ios[t] ? (double)s->fg_sec_ns[t] /
					      s->fg_sec_ios[t] / 1e6 : 0, s->sec_bytes[t] / 1e6);
		print_message("%s: a foreground arriving at 10 s against a full-speed scan: "
			      "within target from second %d after; its mean over the first 5 s "
			      "%.2fx alone\n", m->name, within, first5 / alone);
		assert_true(within >= 0 && within <= 3);
		free(s);
	}
}

/* A backoff still running at the end counts in its time (it read 0 before). */
static void test_backoff_time_running(void **state)
{
	struct scan_gov g;
	struct scan_gov_opts o = { .rate_bps = 100 * MiB, .backoff = true, .rate_min_bps = MiB };
	struct kio_diskstat st;
	uint64_t own = 0;

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_sample(&g, 0, &st, &own, 1), 0);
	for (uint64_t t = SIM_SAMPLE_NS; t <= 20 * NS_S; t += SIM_SAMPLE_NS) {
		st.write_ios += 100;
		st.write_sectors += 100 * 8;
		scan_gov_sample(&g, t, &st, &own, 1);
	}
	assert_true(scan_gov_backing_off(&g));
	assert_int_equal(scan_gov_backoffs(&g), 1);
	assert_true(scan_gov_backoff_ns(&g, 20 * NS_S) >= 19 * NS_S);
}

/* latency and backoff exclude each other. */
static void test_latency_options(void **state)
{
	struct scan_gov g;
	struct scan_gov_opts o = { .latency = true, .backoff = true };

	(void)state;
	assert_int_equal(scan_gov_init(&g, &o, 0), -EINVAL);
	o.backoff = false;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	/* nothing to yield to is known yet: the scan starts at once (it paused to probe before) */
	assert_false(scan_gov_probing(&g));
	assert_int_equal(scan_gov_wait_ns(&g, 0, SCAN_BYTES), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_options),
		cmocka_unit_test(test_backoff_time_running),
		cmocka_unit_test(test_no_fg_full_speed),
		cmocka_unit_test(test_no_fg_window),
		cmocka_unit_test(test_fg_comes_and_goes),
		cmocka_unit_test(test_window_late_then_in_time),
		cmocka_unit_test(test_window_late_slow_disk),
		cmocka_unit_test(test_fg_noise_not_ours),
		cmocka_unit_test(test_fg_arrival),
		cmocka_unit_test(test_fg_target_and_rate),
		cmocka_unit_test(test_fg_bursty_writer),
		cmocka_unit_test(test_fg_busy),
		cmocka_unit_test(test_fg_sporadic),
		cmocka_unit_test(test_fg_after_commits),
		cmocka_unit_test(test_fg_changes_by_itself),
		cmocka_unit_test(test_fg_throttled_burst),
	};

	if (getenv("PACING_ONLY"))
		cmocka_set_test_filter(getenv("PACING_ONLY"));	/* one case, by name */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
