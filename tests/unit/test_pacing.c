/*
 * tests/unit/test_pacing.c - pacing by the foreground's latency against a simulated disk: one
 * queue served first come first served, each request taking a fixed latency plus its bytes
 * over a bandwidth (the fault disk's model), a closed-loop foreground of 4 KiB reads at
 * queue depth one with random think times, and the scan's 1 MiB reads issued when the
 * governor says so. The simulated kernel keeps /sys/block/DEV/stat counters (requests,
 * sectors, ticks in ms from a ns sum, as Linux does) and the scan its own count and
 * latency, as the executor does. Deterministic: a seeded generator, simulated time.
 *
 * The disk/foreground simulator is in pacing_sim.c; the cases and the sweep for the best fixed
 * rate are here, kept in one file: each case is a goal of pacing, and they share that sweep.
 *
 * Asserted (the pacing's goals), on the hdd and the ssd model each: with no foreground the scan
 * runs at the disk's speed (or the window's pace); with one, the foreground's mean latency
 * stays within the target (1.25x alone) and the scan reads at >= 0.8x the best fixed --rate
 * that keeps it there, found by a sweep here (for the steady readers on four seeds of their
 * think times); a busy foreground (back to back) keeps >= 0.95x its throughput; a bursty
 * writer within the target at >= 0.8x the best fixed rate; the scan never pauses; it slows
 * when a foreground comes and speeds up when it goes; and the presence backoff's time counts a
 * backoff still running. The simulated scan keeps at most SCAN_DEPTH_LAT reads in flight when
 * paced by latency, as the executor does.
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
#include "pacing_sim.h"

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

/*
 * With no foreground and a window, the pass is paced to end in the window (not early), on each
 * disk: the window asks about two thirds of what the disk reads (hdd ~91 MiB/s, ssd ~870).
 */
static void test_no_fg_window(void **state)
{
	static const struct { const struct model *m; uint64_t planned; } w[] = {
		{ &models[0], 600 * MiB }, { &models[2], 6000 * MiB },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		struct sim *s = calloc(1, sizeof(*s));
		uint64_t planned = w[i].planned;

		assert_non_null(s);
		sim_init(s, w[i].m, 0, 2, 0, 10, planned);
		sim_run(s, 9 * NS_S);
		print_message("%s, window 10 s, %llu MiB: %llu MiB by 9 s\n", w[i].m->name,
			      (unsigned long long)(planned / MiB),
			      (unsigned long long)(s->scan_bytes / MiB));
		assert_true(s->scan_bytes < planned);		/* not run ahead at full speed */
		assert_true(s->scan_bytes >= planned * 3 / 4);
		sim_run(s, 12 * NS_S);
		assert_int_equal(s->scan_bytes, planned);	/* done by the window's end (+2 s) */
		free(s);
	}
}

/*
 * The foreground's mean latency within lat_x times its latency alone, and the scan at >=
 * rate_goal (0.8: the goal; 0: none) times the best fixed rate that keeps it within 1.25x (a
 * bisection of fixed rates up to hi_bps).
 */
static void check_within(const struct model *m, double hi_bps, double lat_x, double rate_goal)
{
	double alone = sim_fg_mean(m, -1, 0, 20 * NS_S, 0, NULL), target = alone * 1.25;
	double lo = 0, hi = hi_bps, best, lat, bps, fixed_bps = 0;

	/* The best fixed rate: the highest that keeps the mean within target. */
	for (int it = 0; it < 14; it++) {
		double mid = (lo + hi) / 2;

		if (sim_fg_mean(m, 1, (uint64_t)mid, 120 * NS_S, 10 * NS_S, NULL) <= target)
			lo = mid;
		else
			hi = mid;
	}
	best = lo;
	sim_fg_mean(m, 1, (uint64_t)best, 120 * NS_S, 10 * NS_S, &fixed_bps);
	lat = sim_fg_mean(m, 2, 0, 120 * NS_S, 10 * NS_S, &bps);
	print_message("%s: alone %.3f ms, target %.3f ms; best fixed --rate %.1f MB/s "
		      "(reads %.1f); paced: fg %.3f ms (%.2fx), scan %.1f MB/s (%.2fx)\n",
		      m->name, alone / 1e6, target / 1e6, best / 1e6, fixed_bps / 1e6,
		      lat / 1e6, lat / alone, bps / 1e6, bps / fixed_bps);
	assert_true(lat <= alone * lat_x);
	assert_true(bps >= rate_goal * fixed_bps);
}

static void check_target_and_rate(const struct model *m, double hi_bps, double rate_goal)
{
	check_within(m, hi_bps, 1.25, rate_goal);
}

/*
 * The seeds the goals are asserted on (the foreground's think times): the default and those
 * where the controller before 2e313ad missed the rate goal (0.77-0.80x).
 */
static const uint32_t seeds[] = { 12345, 3, 5, 6 };
#define NSEEDS(a) (sizeof(a) / sizeof((a)[0]))

/* check_target_and_rate on model m for each of n seeds. */
static void check_seeds(const struct model *m, double hi_bps, double rate_goal,
			const uint32_t *seed, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		sim_seed = seed[k];
		print_message("seed %u\n", (unsigned)sim_seed);
		check_target_and_rate(m, hi_bps, rate_goal);
	}
	sim_seed = 0;
}

static void check_on_seeds(const struct model *m, double hi_bps, double rate_goal)
{
	check_seeds(m, hi_bps, rate_goal, seeds, NSEEDS(seeds));
}

/* With a steady foreground, on each disk, for each seed. */
static void test_fg_target_and_rate(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		check_on_seeds(&models[i], 200e6, 0.8);
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

/*
 * The VM bench's disk (tests/bench/vm-pacing.sh): an NVMe namespace behind QEMU's throttle of
 * 8 MiB/s and 150 IOPS (the scan's reads 512 KiB, the namespace's limit), its light reader at
 * about 40 reads a second taking 0.8 ms (TCG's). Below the throttle's rate the reader hardly
 * waits; past it the queue grows without end (a cliff, not a slope). On 6cf6770's rules the
 * rate climbed to it, one interval read far above, the rate fell to an eighth and climbed
 * again: a sawtooth, here the reader at 1.38x and the scan at 0.38x the best fixed rate (in
 * the VM's 30 s runs the scan read 0.65-0.70x). Rule 8 holds the rate below the last cliff.
 * On ed38b18's rules (the gain's top at 80% of the cliff, a dip every cycle, a climb past it
 * after 12 decisions) the scan read 0.65-0.69x on seeds 1-12: the best fixed rate here is the
 * cliff itself (8.2 of 8.4 MB/s), and a dip every cycle left the mean at 0.82x of the top.
 * Below a cliff the dip comes one cycle in four and the hold lasts ~2 minutes: 0.81-0.86x,
 * the reader 1.02-1.13x alone. The goal, 0.8x, is asserted.
 */
static const struct model vm_model = {
	"NVMe behind 8 MiB/s and 150 IOPS, light fg", 800 * NS_US, 1000000000, 25 * NS_MS,
	0, 0, 0, 0, 150, 15, 8 * MiB, 512 * 1024
};

static void test_fg_throttle_cliff(void **state)
{
	(void)state;
	check_on_seeds(&vm_model, 8 * MiB, 0.8);
}

/*
 * The same disk with TCG's noise, as the VM's log reads its reader (the kernel's view): ~0.45
 * ms alone, and a half second's mean anywhere from 0.29 to 0.93 ms with the scan at 2.3 MB/s,
 * a third of the rate that kept it within target. Here 0.3 ms plus 3 ms more on one request
 * in 40, off the disk: ~0.375 ms alone, a look's mean +-0.1 ms, about the aim. A look that
 * reads far above by chance marks a cliff (rule 8) far below the throttle, and the scan is
 * held under it for the hold's two minutes: 0.31x on seed 7 (in the VM's plain run: a far look
 * at 2.92 MB/s, e 4.1, then 2.33 MB/s for the rest). On ed22456's rules a dip's time alone
 * moved 1.5x by chance (0.458 -> 0.276 ms on seed 12) forgot the cliff, the climb crossed the
 * throttle, and the reader read 1.92x alone (1.80x on seed 11; seven seeds of 12 over 1.25x).
 * Only the climb forgets a cliff now, and the time alone is the mean of three dips: the reader
 * 1.01-1.37x (three seeds over 1.25x), the scan 0.31-0.86x (median 0.72x) on seeds 1-12. The goals are NOT met
 * on this model; asserted: the reader within 1.4x, the scan >= 0.3x the best fixed rate.
 */
static const struct model vm_tcg_model = {
	"NVMe behind 8 MiB/s and 150 IOPS, light fg, TCG's noise", 300 * NS_US, 1000000000,
	25 * NS_MS, 0, 0, 0, 0, 150, 15, 8 * MiB, 512 * 1024, 40, 3 * NS_MS
};

static void test_fg_throttle_cliff_tcg(void **state)
{
	static const uint32_t more[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	(void)state;
	for (size_t k = 0; k < NSEEDS(more); k++) {
		sim_seed = more[k];
		print_message("seed %u\n", (unsigned)sim_seed);
		check_within(&vm_tcg_model, 8 * MiB, 1.4, 0.3);
	}
	sim_seed = 0;
}

/*
 * The climb after a foreground's arrival on the VM bench's disk (its 30 s runs: a light
 * reader 2 s after a scan reading flat out at the throttle's rate): the first look cuts the
 * scan to an eighth, and the climb back must not cross the rate the reader came to. On
 * d68a90e's rules the climb (x 1.5 a decision) ran past the throttle's rate ~10 s after the
 * arrival, and the reader's mean from 2 s after it read 1.42-1.45x alone on seeds 3, 4, 5, 6,
 * 11 of 1-12 (1.03-1.05x on the rest): the arrival is a cliff (rule 8), climbed to, not
 * jumped to. Asserted: the reader within its target, the scan back at half its rate before
 * by the 8th second (7 on both rules). Also with six reads in flight at full speed (the
 * throttle's queue at the arrival outlasting the dip's settle): the first dip's look is held
 * (4.9 ms against 0.8), and on f8b7a96's rules the second dip's, replacing it, moved the time
 * alone past 1.5x of the arrival cliff's: the cliff was forgotten and the climb crossed the
 * throttle at 15 s (the reader 1.44x on seed 3; the VM's plain run on f8b7a96 did the same,
 * its first dip 2.19 ms against 0.42). Only the climb forgets a cliff now (rule 8).
 */
static void test_fg_arrival_climb(void **state)
{
	double alone = sim_fg_mean(&vm_model, -1, 0, 20 * NS_S, 2 * NS_S, NULL);

	(void)state;
	for (size_t k = 0; k < 2 * sizeof(seeds) / sizeof(seeds[0]); k++) {
		struct sim *s = calloc(1, sizeof(*s));
		unsigned deep = k >= sizeof(seeds) / sizeof(seeds[0]);
		double full, scan = 0;
		uint64_t ios = 0, ns = 0;
		int back = -1;

		assert_non_null(s);
		sim_seed = seeds[k % (sizeof(seeds) / sizeof(seeds[0]))];
		sim_init(s, &vm_model, 1, 2, 0, 0, 0);
		if (deep)
			s->depth = 6;
		s->fg_on_from = 2 * NS_S;
		sim_run(s, 30 * NS_S);
		full = (double)s->sec_bytes[1];
		for (int t = 2; t < 30; t++) {
			if (back < 0 && t > 2 && (double)s->sec_bytes[t] >= full / 2)
				back = t - 2;
			scan += (double)s->sec_bytes[t] / 28;
			if (t >= 4) {
				ios += s->fg_sec_ios[t];
				ns += s->fg_sec_ns[t];
			}
		}
		print_message("seed %u, %s, %u reads in flight: arriving at 2 s against %.1f MB/s: "
			      "the scan back at half of it in second %d after, %.1f MB/s over the 28 "
			      "s; the reader from 2 s after %.2fx alone\n", (unsigned)sim_seed,
			      vm_model.name, s->depth, full / 1e6, back, scan / 1e6,
			      ios ? (double)ns / (double)ios / alone : 0);
		assert_true(back >= 0 && back <= 8);
		assert_true(ios && (double)ns / (double)ios <= 1.25 * alone);
		free(s);
	}
	sim_seed = 0;
}

/*
 * A slow disk (QEMU's throttle in tests/bench/vm-pacing.sh: 8 MiB/s, so each 1 MiB read of the
 * scan holds the queue 125 ms) and a light reader (about 40 a second) arriving while the scan
 * reads flat out. Behind the scan's queued reads it got two requests through in half a second,
 * below rule 1's four: on f567518's rules it was never seen, and the scan read on at full
 * speed with the reader at 385x its time alone. Seen in the VM too (the reader at 21x). Here no
 * rate but the floor keeps it near its target (a read of the scan costs it 62 ms on average):
 * the time alone within 2x of the truth in 10 s, then the scan at its floor (--rate-min, 1 MiB/s).
 */
static const struct model slow_model = {
	"8 MiB/s disk, light fg", 100 * NS_US, 8 * MiB, 25 * NS_MS
};

static void test_fg_arrives_behind_slow_reads(void **state)
{
	double alone = sim_fg_mean(&slow_model, -1, 0, 20 * NS_S, 2 * NS_S, NULL);
	struct sim *s = calloc(1, sizeof(*s));
	uint64_t late = 0;
	int t_ok = -1, unlimited = 0;

	(void)state;
	assert_non_null(s);
	sim_init(s, &slow_model, 1, 2, 0, 0, 0);
	s->fg_on_from = 2 * NS_S;
	for (int t = 1; t <= 32; t++) {
		sim_run(s, (uint64_t)t * NS_S);
		if (t_ok < 0 && s->g.lat.baseline_ns && s->g.lat.baseline_ns <= 2 * alone)
			t_ok = t;
		if (t >= 4 && s->g.lat.fg_now && !s->g.lat.ctl_bps)
			unlimited++;	/* with a foreground, no dip */
	}
	for (int t = 12; t < 32; t++)
		late += s->sec_bytes[t];
	print_message("%s: alone %.3f ms; the baseline within 2x of it from %d s (fg from 2 s); "
		      "the scan from 12 s %.2f MiB/s (floor %.2f)\n", slow_model.name, alone / 1e6,
		      t_ok, late / 20.0 / MiB, (double)SCAN_GOV_FLOOR_BPS_DEFAULT / MiB);
	assert_true(t_ok >= 0 && t_ok <= 12);
	assert_int_equal(unlimited, 0);
	assert_true(late / 20.0 <= 1.25 * SCAN_GOV_FLOOR_BPS_DEFAULT);
	free(s);
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
 * foreground from the start. Seed 9 too: there a far look marked a cliff under the 4 KiB
 * reads, and the scan held below it under the 64 KiB ones read 0.74x (a cliff is its
 * foreground's: a time alone 1.5x from the cliff's forgets it, rule 8).
 */
static void test_fg_changes_by_itself(void **state)
{
	const struct model *pairs[2][2] = { { &models[2], &big_reads_model },
					    { &big_reads_model, &models[2] } };
	static const uint32_t seeds_here[] = { 12345, 9 };

	(void)state;
	for (int k = 0; k < 4; k++) {
		const struct model *a = pairs[k % 2][0], *b = pairs[k % 2][1];
		struct sim *s = calloc(1, sizeof(*s));
		double alone, fresh_bps;
		uint64_t ios = 0, ns = 0, bytes = 0;

		assert_non_null(s);
		sim_seed = seeds_here[k / 2];
		alone = sim_fg_mean(b, -1, 0, 20 * NS_S, 2 * NS_S, NULL);
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
		print_message("seed %u, %s, then %s: fg %.2fx its new time alone, scan %.1f MB/s "
			      "(%.2fx of pacing it from the start)\n", (unsigned)sim_seed,
			      a->name, b->name,
			      (double)ns / (double)ios / alone, bytes / 40e6,
			      bytes / 40.0 / fresh_bps);
		assert_true((double)ns / (double)ios <= alone * 1.25);
		assert_true(bytes / 40.0 >= 0.8 * fresh_bps);
		free(s);
	}
	sim_seed = 0;
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
/* Bursts longer than a decision interval (0.7 s of writes back to back, then 1 s idle): busy
 * while they last, but not a busy user (the scan would get a few per cent of the disk). */
static const struct model writer_hdd_long_model = {
	"hdd, 64 MiB bursts", 4 * NS_MS, 150000000, 0, 64, 1u << 20, NS_S, 1
};

static void test_fg_bursty_writer(void **state)
{
	struct sim *s = calloc(1, sizeof(*s));
	int stopped = 0;

	(void)state;
	assert_non_null(s);
	check_target_and_rate(&writer_model, 1000e6, 0.8);
	/* its arrival, judged at the first dip, is far above by 8.1x the aim: cut to an eighth
	 * whatever the margin (f1cd03a's rule 7) the scan read 0.93x; by it (x0.22), 0.99x */
	check_target_and_rate(&writer_hdd_model, 200e6, 0.95);
	check_target_and_rate(&writer_hdd_long_model, 200e6, 0.8);
	sim_init(s, &writer_model, 1, 2, 0, 0, 0);
	sim_run(s, 60 * NS_S);
	for (int t = 0; t < 60; t++)
		stopped += !s->sec_bytes[t];
	print_message("%s: %d seconds of 60 without a read\n", writer_model.name, stopped);
	assert_int_equal(stopped, 0);
	free(s);
}

/*
 * A drive-side method's commands (passthrough) are in no count the kernel keeps: the scan's
 * own count of them is what tells the foreground's time alone from the work the scan put in
 * the queue. Without it, the time alone was measured behind the commands and nothing slowed.
 */
static void test_fg_verify_commands(void **state)
{
	(void)state;
	sim_passthrough = 1;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		check_target_and_rate(&models[i], 200e6, 0.8);
	sim_passthrough = 0;
}

/*
 * The busy reader of the VM bench (vm-pacing.sh): back to back, but each request leaves the
 * disk for about a millisecond between its completion and the next submission (fio's own
 * time under TCG), behind the namespace's 150 IOPS and 8 MiB/s. Alone it waits on the disk
 * about 0.85 of the time, never 1: in the VM it kept 0.93-0.95x of its IOPS beside both
 * 6cf6770 and 36f6450, whose rule 6 counted it a busy user only above 3/4 and fully only at
 * one (it got about half the light user's aim).
 */
static void test_fg_busy(void **state)
{
	static const struct model busy[] = {
		{ "hdd, back-to-back fg", 4 * NS_MS, 150000000, 0 },
		{ "ssd, back-to-back fg", 100 * NS_US, 1000000000, 0 },
		{ "NVMe behind 8 MiB/s and 150 IOPS, back to back after 1 ms", 800 * NS_US,
		  1000000000, 1 * NS_MS, 0, 0, 0, 0, 150, 15, 8 * MiB, 512 * 1024 },
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
 * A fast one-queue disk (400 MB/s, 0.25 ms) and a light reader (~40 a second), as the VM
 * bench's md RAID1, with a host's hiccups: one request in 1000 takes 5 ms more (a VM's vCPU
 * not run), off the disk. A half second holds ~20 requests, so a hiccup, or a few of them
 * meeting the scan's 1 MiB reads, reads far above the time alone whatever the rate. On
 * 2ec3751's rules the arrival's first dip (the full-speed scan's reads still queued) put the time
 * alone at 0.117 ms (0.26 true); every look then read far above it, each far look restarted
 * the cycle before its dip, and the time alone was never measured again: the scan sat at its
 * floor for the run (seed 5: 1.3 MB/s, 0.10x the best fixed rate). Now the fourth far look at
 * the floor since the last dip is the dip (rule 7): seed 5 0.65x. On 3674b3a each chance far
 * look marked a cliff at the rate then, and the next rise jumped back to 80% of it whatever
 * the slope had said since: a ratchet, 80 -> 64 -> 51 -> ... -> 7 MB/s (seed 1), 0.30-0.88x on
 * seeds 1-12, 0.35x on 12345. Since then a far look needs more than two of the scan's reads
 * of wait in all, the jump back follows only a far look's cut, and the time alone is the
 * median of three dips: 0.53-1.03x, the reader 1.13-1.23x. The mean of three since (L is a
 * mean, and the median of looks a hiccup skews reads below theirs): 0.52-1.07x, median 0.76x
 * (ed22456: 0.45-1.17x, 0.68x), the reader 1.12-1.24x. Asserted: the reader within its target,
 * the scan >= 0.5x the best fixed rate (the floor, 1 MiB/s, is 0.05-0.08x of it; 0.4x before).
 * The 0.8x is NOT met on every seed: a look of 20 requests is a noisy judge.
 */
static const struct model hiccup_model = {
	"fast disk, light fg, host hiccups", 250 * NS_US, 400000000, 25 * NS_MS,
	0, 0, 0, 0, 0, 0, 0, 0, 1000, 5 * NS_MS
};

static void test_fg_host_hiccups(void **state)
{
	/* seeds 1-12 too: each of 09ce5ee's and 91c00ee's changes to rules 4, 7 and 8 failed on
	 * one of them when undone (the median of dips on seed 4, the far look's total wait on 7
	 * and 8, the jump back on all) */
	static const uint32_t more[] = { 12345, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	(void)state;
	check_seeds(&hiccup_model, 400e6, 0.5, more, NSEEDS(more));
}

/*
 * How fast a foreground arriving against a full-speed scan is protected (the bench's
 * detection took 4 to 5 s): per model, the seconds after its arrival until its mean latency
 * over a second is within the target of its latency alone, and its mean over the first
 * 5 s. Printed for docs/performance.md; asserted: within 3 s, the first second within 1.8x,
 * the first 5 s within 1.15x.
 */
static void test_fg_arrival(void **state)
{
	(void)state;
	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		const struct model *m = &models[k];
		struct sim *s = calloc(1, sizeof(*s));
		double alone, first5 = 0, first1;
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
		first1 = s->fg_sec_ios[10] ? (double)s->fg_sec_ns[10] / s->fg_sec_ios[10] : 0;
		print_message("%s: a foreground arriving at 10 s against a full-speed scan: "
			      "within target from second %d after; its mean over its first second "
			      "%.2fx alone, over the first 5 s %.2fx\n", m->name, within,
			      first1 / alone, first5 / alone);
		assert_true(within >= 0 && within <= 3);
		/* seen within a fast sample of its first requests: on d0ee1ee's 250 ms samples
		 * its first second read 1.96x (hdd), 1.74x (busy), 2.20x (ssd) */
		assert_true(first1 <= 1.8 * alone);
		/* its first interval is the dip, and what came before is judged by the time alone
		 * the dip found: on 4e5f17b (the dip 3 intervals in, the rate after it from a
		 * guess) its first 5 s read 1.25x (hdd), 1.20x (busy), 1.29x (ssd) */
		assert_true(first5 <= 1.15 * alone);
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
		cmocka_unit_test(test_fg_host_hiccups),
		cmocka_unit_test(test_fg_arrival),
		cmocka_unit_test(test_fg_target_and_rate),
		cmocka_unit_test(test_fg_bursty_writer),
		cmocka_unit_test(test_fg_verify_commands),
		cmocka_unit_test(test_fg_busy),
		cmocka_unit_test(test_fg_sporadic),
		cmocka_unit_test(test_fg_after_commits),
		cmocka_unit_test(test_fg_changes_by_itself),
		cmocka_unit_test(test_fg_throttled_burst),
		cmocka_unit_test(test_fg_arrives_behind_slow_reads),
		cmocka_unit_test(test_fg_throttle_cliff),
		cmocka_unit_test(test_fg_arrival_climb),
		cmocka_unit_test(test_fg_throttle_cliff_tcg),
	};

	if (getenv("PACING_ONLY"))
		cmocka_set_test_filter(getenv("PACING_ONLY"));	/* one case, by name */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
