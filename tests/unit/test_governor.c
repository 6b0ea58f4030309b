/*
 * tests/unit/test_governor.c - the rate governor under simulated time: a fake engine issues
 * I/Os whenever scan_gov_wait_ns() says 0 and otherwise jumps its clock, while a fake
 * kernel keeps /sys/class/block/NAME/stat counters with our reads and chosen foreground
 * load. Also the stat line parser and the ioprio wrappers.
 * The simulator (the fake engine, clock and stat files) is in gov_sim.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "governor.h"
#include "kio.h"
#include "gov_sim.h"

static void check_rate(uint64_t rate_bps, uint32_t io_bytes, uint64_t jitter_ns)
{
	struct scan_gov_opts o = { .rate_bps = rate_bps };
	struct sim s;
	double got, maxw;

	sim_init(&s, &o, io_bytes);
	s.jitter_ns = jitter_ns;
	sim_run(&s, 10 * NS_S);
	got = (double)sim_bytes(&s, 0, 10 * NS_S) / 10.0;
	maxw = (double)sim_max_window(&s, NS_S, 0, 9 * NS_S);
	printf("# rate %.1f MiB/s io %u jitter %lu ns: achieved %.3f MiB/s, max 1 s window %.1f%%\n",
	       (double)rate_bps / MiB, io_bytes, (unsigned long)jitter_ns, got / MiB,
	       100.0 * maxw / (double)rate_bps);
	assert_true(got >= 0.97 * (double)rate_bps && got <= 1.03 * (double)rate_bps);
	assert_true(maxw <= 1.10 * (double)rate_bps);
	for (uint64_t t = 0; t < 10; t++)
		assert_true((double)sim_bytes(&s, t * NS_S, (t + 1) * NS_S) <=
			    1.10 * (double)rate_bps);
	assert_int_equal(scan_gov_rate_bps(&s.g), rate_bps);
	sim_free(&s);
}

static void test_rate_accuracy(void **state)
{
	(void)state;
	check_rate(5 * MiB, 1 * MiB, 0);
	check_rate(50 * MiB, 1 * MiB, 0);
	check_rate(200 * MiB, 1 * MiB, 0);
	/* A caller that wakes up late (timer slack) does not fall behind: deadlines, not sleeps. */
	check_rate(5 * MiB, 1 * MiB, 3 * NS_MS);
	check_rate(50 * MiB, 1 * MiB, 3 * NS_MS);
	check_rate(200 * MiB, 1 * MiB, 3 * NS_MS);
	/* Rates and sizes that do not divide evenly. */
	check_rate(7300000, 128 * 1024, 1 * NS_MS);
	check_rate(123456789, 4 * MiB, 2 * NS_MS);
}

static void test_unlimited(void **state)
{
	struct scan_gov_opts o = { 0 };
	struct scan_gov g;

	(void)state;
	assert_int_equal(scan_gov_init(&g, &o, 5), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 0);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(scan_gov_wait_ns(&g, 5, 1 << 20), 0);
		assert_int_equal(scan_gov_account(&g, 1 << 20, 5), 0);
	}
	/* rate_max_bps caps even an unlimited pace */
	o.rate_max_bps = 10 * MiB;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 10 * MiB);
	o.rate_max_bps = 0;
	o.rate_bps = 100 * MiB;
	o.rate_min_bps = 200 * MiB;	/* a floor for windows and backoff, not for a fixed rate */
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 100 * MiB);
	o.rate_max_bps = 300 * MiB;
	o.rate_bps = 400 * MiB;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 300 * MiB);
}

static void test_init_invalid(void **state)
{
	struct scan_gov g;
	struct scan_gov_opts o = { .rate_min_bps = 10, .rate_max_bps = 5 };

	(void)state;
	assert_int_equal(scan_gov_init(&g, &o, 0), -EINVAL);
	o = (struct scan_gov_opts){ .window_s = 100 };	/* a window needs the planned total */
	assert_int_equal(scan_gov_init(&g, &o, 0), -EINVAL);
	o = (struct scan_gov_opts){ .window_s = 100, .planned_total_bytes = 1, .rate_bps = 5 };
	assert_int_equal(scan_gov_init(&g, &o, 0), -EINVAL);
	o = (struct scan_gov_opts){ .window_s = UINT64_MAX, .planned_total_bytes = 1 };
	assert_int_equal(scan_gov_init(&g, &o, 0), -EINVAL);
	assert_int_equal(scan_gov_init(NULL, &o, 0), -EINVAL);
	assert_int_equal(scan_gov_init(&g, NULL, 0), -EINVAL);
}

/* The engine stalls for 3 s (a bad block being isolated): no burst afterwards. */
static void test_no_burst_after_stall(void **state)
{
	uint64_t rate = 50 * MiB;
	struct scan_gov_opts o = { .rate_bps = rate };
	struct sim s;
	double after;

	(void)state;
	sim_init(&s, &o, 1 * MiB);
	s.stall_from_ns = 3 * NS_S;
	s.stall_to_ns = 6 * NS_S;
	sim_run(&s, 12 * NS_S);
	assert_int_equal(sim_bytes(&s, 3 * NS_S, 6 * NS_S), 0);
	after = (double)sim_bytes(&s, 6 * NS_S, 7 * NS_S);
	printf("# first second after a 3 s stall: %.1f%% of the rate\n", 100.0 * after / rate);
	assert_true(after <= 1.10 * (double)rate);
	assert_true(sim_max_window(&s, NS_S, 0, 11 * NS_S) <= 1.10 * (double)rate);
	/* the credit lets at most SCAN_GOV_CREDIT_NS worth go at once */
	assert_true(sim_max_window(&s, 1, 6 * NS_S, 7 * NS_S) <=
		    rate * SCAN_GOV_CREDIT_NS / NS_S);
	/* the lost 3 s are not made up: 9 s of pace over 12 s */
	assert_true((double)sim_bytes(&s, 0, 12 * NS_S) <= 9.1 * (double)rate + MiB);
	sim_free(&s);

	/* A slow device (4 ms per 1 MiB read = 250 MiB/s) cannot reach 400 MiB/s; when it
	 * becomes fast again the governor does not catch up the deficit. */
	o.rate_bps = 400 * MiB;
	sim_init(&s, &o, 1 * MiB);
	s.svc_ns = 4 * NS_MS;
	sim_run(&s, 5 * NS_S);
	s.svc_ns = 0;
	sim_run(&s, 10 * NS_S);
	after = (double)sim_bytes(&s, 5 * NS_S, 6 * NS_S);
	assert_true(after <= 1.10 * 400.0 * MiB);
	assert_true(sim_max_window(&s, NS_S, 5 * NS_S, 9 * NS_S) <= 1.10 * 400.0 * MiB);
	sim_free(&s);
}

/* A window: rate = remaining bytes / remaining time, and the pass ends inside it. */
static void test_window(void **state)
{
	uint64_t planned = 1000 * MiB;
	struct scan_gov_opts o = { .window_s = 100, .planned_total_bytes = planned };
	struct sim s;
	uint64_t r0, at40, expect;

	(void)state;
	sim_init(&s, &o, 1 * MiB);
	r0 = scan_gov_rate_bps(&s.g);
	assert_int_equal(r0, (planned + 99) / 100);
	s.limit_bytes = planned;
	sim_run(&s, 120 * NS_S);
	assert_int_equal(s.issued_bytes, planned);
	printf("# window 100 s: last read at %.3f s\n", (double)s.t_ns[s.n - 1] / NS_S);
	assert_true(s.t_ns[s.n - 1] < 100 * NS_S);
	assert_true(s.t_ns[s.n - 1] > 97 * NS_S);
	assert_true(sim_max_window(&s, NS_S, 0, 98 * NS_S) <= 1.10 * (double)r0);
	sim_free(&s);

	/* Stalled for 20 s: the rate rises to what is left over the time that is left. */
	sim_init(&s, &o, 1 * MiB);
	s.limit_bytes = planned;
	s.stall_from_ns = 20 * NS_S;
	s.stall_to_ns = 40 * NS_S;
	sim_run(&s, 40 * NS_S);
	at40 = s.issued_bytes;
	sim_run(&s, 41 * NS_S + 1);
	expect = (planned - at40) / 60;
	printf("# after a 20 s stall: rate %.2f MiB/s, expected %.2f\n",
	       (double)scan_gov_rate_bps(&s.g) / MiB, (double)expect / MiB);
	assert_true((double)scan_gov_rate_bps(&s.g) >= 0.98 * (double)expect);
	assert_true((double)scan_gov_rate_bps(&s.g) <= 1.02 * (double)expect);
	sim_run(&s, 120 * NS_S);
	assert_int_equal(s.issued_bytes, planned);
	assert_true(s.t_ns[s.n - 1] < 100 * NS_S);
	sim_free(&s);
}

/* The window rate is recomputed at most once a second; the deadline does not jump. */
static void test_window_recalc_period(void **state)
{
	struct scan_gov_opts o = { .window_s = 100, .planned_total_bytes = 1000 * MiB };
	struct scan_gov g;
	uint64_t r0, r1, w;

	(void)state;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	r0 = scan_gov_rate_bps(&g);
	scan_gov_account(&g, 500 * MiB, NS_S / 2);	/* a caller that ignored the governor */
	scan_gov_wait_ns(&g, NS_S / 2, MiB);
	assert_int_equal(scan_gov_rate_bps(&g), r0);
	scan_gov_wait_ns(&g, NS_S - 1, MiB);
	assert_int_equal(scan_gov_rate_bps(&g), r0);
	w = scan_gov_wait_ns(&g, NS_S, MiB);
	r1 = scan_gov_rate_bps(&g);
	assert_int_equal(r1, (500 * MiB + 98) / 99);
	/* 500 MiB from 0.5 s (no credit for the idle 0.5 s) ran to ~50.5 s at the old rate:
	 * that stays the next deadline */
	assert_true(w >= 49 * NS_S + 500 * NS_MS - NS_MS && w <= 49 * NS_S + 500 * NS_MS + NS_MS);
	scan_gov_account(&g, 100 * MiB, NS_S + NS_S / 2);
	scan_gov_wait_ns(&g, 2 * NS_S - 1, MiB);
	assert_int_equal(scan_gov_rate_bps(&g), r1);
	scan_gov_wait_ns(&g, 2 * NS_S, MiB);
	assert_int_equal(scan_gov_rate_bps(&g), (400 * MiB + 97) / 98);
}

static void test_window_bounds(void **state)
{
	uint64_t planned = 1000 * MiB;	/* 100 s window: needs 10 MiB/s */
	struct scan_gov_opts o = { .window_s = 100, .planned_total_bytes = planned };
	struct scan_gov g;
	struct sim s;

	(void)state;
	o.rate_max_bps = 5 * MiB;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 5 * MiB);
	o.rate_max_bps = 0;
	o.rate_min_bps = 20 * MiB;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 20 * MiB);

	/* capped at 5 MiB/s for the whole pass: the window is missed, the cap holds */
	o.rate_min_bps = 0;
	o.rate_max_bps = 5 * MiB;
	sim_init(&s, &o, 1 * MiB);
	s.limit_bytes = planned;
	sim_run(&s, 150 * NS_S);
	assert_true(sim_max_window(&s, NS_S, 0, 149 * NS_S) <= 1.10 * 5 * MiB);
	assert_int_equal(scan_gov_rate_bps(&s.g), 5 * MiB);	/* late: rate_max */
	sim_free(&s);

	/*
	 * late without a cap: the catch-up pace (4 x the nominal 10 MiB/s), never unthrottled
	 * (it was unlimited: a pass that overran its window hit the disk at full speed)
	 */
	o.rate_max_bps = 0;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	scan_gov_wait_ns(&g, 101 * NS_S, MiB);
	assert_int_equal(scan_gov_rate_bps(&g), 4 * 10 * MiB);
	scan_gov_account(&g, 100 * MiB, 101 * NS_S);
	assert_true(scan_gov_wait_ns(&g, 101 * NS_S, MiB) >= 2 * NS_S);	/* 100 MiB at 40/s */
	/* and just before the end, with most of the plan left, no burst above it either */
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	scan_gov_wait_ns(&g, 99 * NS_S, MiB);
	assert_true(scan_gov_rate_bps(&g) <= 4 * 10 * MiB);

	/* huge numbers: 100 TB over 7 days */
	o.planned_total_bytes = 100000000000000ull;
	o.window_s = 7 * 86400;
	assert_int_equal(scan_gov_init(&g, &o, 1000 * NS_S), 0);
	assert_int_equal(scan_gov_rate_bps(&g), (o.planned_total_bytes + o.window_s - 1) / o.window_s);
}

static void backoff_opts(struct scan_gov_opts *o)
{
	*o = (struct scan_gov_opts){
		.rate_bps = 100 * MiB, .rate_min_bps = 5 * MiB, .backoff = true, .quiet_s = 3,
	};
}

/* Foreground writes from 5 s to 8 s: the floor within one sample, pace 3 s after. */
static void test_backoff(void **state)
{
	struct scan_gov_opts o;
	struct sim s;
	double during, after;

	(void)state;
	backoff_opts(&o);
	sim_init(&s, &o, 1 * MiB);
	s.sample_every_ns = 250 * NS_MS;
	s.fg_from_ns = 5 * NS_S;
	s.fg_to_ns = 8 * NS_S;
	s.fg_write_bps = 10 * MiB;
	sim_run(&s, 15 * NS_S);
	printf("# backoff at %.3f s, pace again at %.3f s\n", (double)s.backoff_on_ns / NS_S,
	       (double)s.backoff_off_ns / NS_S);
	/* the first sample after 5 s sees the writes and the rate is the floor at once */
	assert_int_equal(s.backoff_on_ns, 5 * NS_S + 250 * NS_MS);
	assert_int_equal(s.rate_at_on_bps, 5 * MiB);
	/* the sample at 8.0 s sees the last writes; pace returns quiet_s later */
	assert_true(s.backoff_off_ns >= 11 * NS_S && s.backoff_off_ns <= 11 * NS_S + 250 * NS_MS);
	assert_int_equal(scan_gov_rate_bps(&s.g), 100 * MiB);
	assert_false(scan_gov_backing_off(&s.g));
	assert_int_equal(s.g.nr_backoffs, 1);
	assert_true(s.g.fg_ios > 0 && s.g.fg_sectors > 0);
	assert_int_equal(s.g.backoff_ns, s.backoff_off_ns - s.backoff_on_ns);
	/* achieved: 5 MiB/s while backing off, 100 MiB/s before and after, no burst */
	during = (double)sim_bytes(&s, 6 * NS_S, 11 * NS_S) / 5.0;
	assert_true(during <= 1.10 * 5 * MiB && during >= 0.9 * 5 * MiB);
	assert_true(sim_bytes(&s, 5 * NS_S + 250 * NS_MS, 6 * NS_S + 250 * NS_MS) <=
		    5 * MiB + 1 * MiB);
	after = (double)sim_bytes(&s, 11 * NS_S + 250 * NS_MS, 15 * NS_S) / 3.75;
	assert_true(after >= 0.97 * 100 * MiB && after <= 1.03 * 100 * MiB);
	assert_true(sim_max_window(&s, NS_S, 0, 14 * NS_S) <= 1.10 * 100 * MiB);
	assert_true(sim_max_window(&s, NS_S, 10 * NS_S, 14 * NS_S) >= 0.95 * 100 * MiB);
	sim_free(&s);
}

/* A fast pace: the floor is reached within one sample even with a full queue ahead. */
static void test_backoff_quick(void **state)
{
	struct scan_gov_opts o;
	struct sim s;

	(void)state;
	backoff_opts(&o);
	o.rate_bps = 1000 * MiB;
	sim_init(&s, &o, 4 * MiB);
	s.sample_every_ns = 500 * NS_MS;
	s.fg_from_ns = 2 * NS_S + 100 * NS_MS;
	s.fg_to_ns = 2 * NS_S + 200 * NS_MS;	/* a short burst of writes */
	s.fg_write_bps = 1 * MiB;
	sim_run(&s, 10 * NS_S);
	assert_int_equal(s.backoff_on_ns, 2 * NS_S + 500 * NS_MS);
	assert_int_equal(s.rate_at_on_bps, 5 * MiB);
	assert_true(s.backoff_off_ns >= 5 * NS_S + 500 * NS_MS &&
		    s.backoff_off_ns <= 6 * NS_S);
	/* from the sample that saw the load: ~5 MiB/s, plus one I/O */
	assert_true(sim_bytes(&s, 2 * NS_S + 500 * NS_MS, 5 * NS_S + 500 * NS_MS) <=
		    3 * 5 * MiB * 11 / 10 + 4 * MiB);
	sim_free(&s);
}

/* Without backoff, load is reported but the pace holds. */
static void test_backoff_disabled(void **state)
{
	struct scan_gov_opts o;
	struct sim s;

	(void)state;
	backoff_opts(&o);
	o.backoff = false;
	sim_init(&s, &o, 1 * MiB);
	s.sample_every_ns = 250 * NS_MS;
	s.fg_from_ns = 1 * NS_S;
	s.fg_to_ns = 3 * NS_S;
	s.fg_write_bps = 10 * MiB;
	sim_run(&s, 5 * NS_S);
	assert_true(s.nr_seen >= 7);
	assert_int_equal(s.backoff_on_ns, UINT64_MAX);
	assert_int_equal(scan_gov_rate_bps(&s.g), 100 * MiB);
	sim_free(&s);
}

/* Our own reads, in the partition and in its disk, are not foreground load. */
static void test_own_reads_subtracted(void **state)
{
	struct scan_gov_opts o;
	struct sim s;

	(void)state;
	backoff_opts(&o);
	sim_init(&s, &o, 1 * MiB);
	s.nr_st = 2;
	s.sample_every_ns = 250 * NS_MS;
	s.st[1].read_sectors = 123456789;	/* the disk has history of its own */
	s.st[1].write_sectors = 42;
	sim_run(&s, 10 * NS_S);
	assert_true(s.nr_samples >= 40);
	assert_int_equal(s.nr_seen, 0);
	assert_int_equal(s.backoff_on_ns, UINT64_MAX);
	assert_int_equal(s.g.fg_sectors, 0);
	assert_true((double)sim_bytes(&s, 0, 10 * NS_S) >= 0.97 * 1000 * MiB);
	sim_free(&s);

	/* The caller counts completions late by up to 4 MiB: slack_bytes absorbs it... */
	o.slack_bytes = 4 * MiB;
	sim_init(&s, &o, 1 * MiB);
	s.nr_st = 2;
	s.sample_every_ns = 250 * NS_MS;
	s.lag_sectors = 4 * MiB / 512;
	sim_run(&s, 20 * NS_S);
	assert_int_equal(s.nr_seen, 0);
	assert_int_equal(s.backoff_on_ns, UINT64_MAX);
	/* ...and foreground reads on another partition (whole disk view only) still show. */
	s.fg_view = 1;
	s.fg_from_ns = 20 * NS_S;
	s.fg_to_ns = 22 * NS_S;
	s.fg_read_bps = 40 * MiB;
	sim_run(&s, 30 * NS_S);
	assert_true(s.backoff_on_ns <= 20 * NS_S + 500 * NS_MS);
	assert_int_equal(s.rate_at_on_bps, 5 * MiB);
	assert_false(scan_gov_backing_off(&s.g));
	sim_free(&s);

	/* Without slack the same lag is (wrongly) taken for load: the knob matters. */
	o.slack_bytes = 0;
	sim_init(&s, &o, 1 * MiB);
	s.sample_every_ns = 250 * NS_MS;
	s.lag_sectors = 4 * MiB / 512;
	sim_run(&s, 20 * NS_S);
	assert_true(s.nr_seen > 0);
	sim_free(&s);
}

static void test_fg_threshold(void **state)
{
	struct scan_gov_opts o;
	struct sim s;

	(void)state;
	backoff_opts(&o);
	o.fg_threshold_bps = 1 * MiB;
	sim_init(&s, &o, 1 * MiB);
	s.sample_every_ns = 250 * NS_MS;
	s.fg_from_ns = 1 * NS_S;
	s.fg_to_ns = 4 * NS_S;
	s.fg_write_bps = 100 * 1024;	/* a trickle: the journal */
	sim_run(&s, 5 * NS_S);
	assert_int_equal(s.nr_seen, 0);
	assert_int_equal(s.backoff_on_ns, UINT64_MAX);
	s.fg_from_ns = 5 * NS_S;
	s.fg_to_ns = 6 * NS_S;
	s.fg_write_bps = 10 * MiB;
	sim_run(&s, 7 * NS_S);
	assert_int_equal(s.backoff_on_ns, 5 * NS_S + 250 * NS_MS);
	sim_free(&s);
}

/* Flushes move no sectors but are someone else's I/O. */
static void test_flush_counts(void **state)
{
	struct scan_gov_opts o;
	struct kio_diskstat st = { 0 };
	struct scan_gov g;
	uint64_t own = 0;

	(void)state;
	backoff_opts(&o);
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_sample(&g, 0, &st, &own, 1), 0);
	assert_int_equal(scan_gov_sample(&g, 250 * NS_MS, &st, &own, 1), 0);
	st.flush_ios = 1;
	assert_int_equal(scan_gov_sample(&g, 500 * NS_MS, &st, &own, 1), 1);
	assert_true(scan_gov_backing_off(&g));
	assert_int_equal(scan_gov_rate_bps(&g), 5 * MiB);
	/* time alone ends the backoff, even without further samples */
	scan_gov_wait_ns(&g, 3 * NS_S + 499 * NS_MS, MiB);
	assert_true(scan_gov_backing_off(&g));
	scan_gov_wait_ns(&g, 3 * NS_S + 500 * NS_MS, MiB);
	assert_false(scan_gov_backing_off(&g));
	assert_int_equal(scan_gov_rate_bps(&g), 100 * MiB);
}

/* Counters going backwards (device replaced) start a new baseline, not a backoff. */
static void test_counter_reset(void **state)
{
	struct scan_gov_opts o;
	struct kio_diskstat st[2] = { { .read_sectors = 1000000, .write_sectors = 500 } };
	struct scan_gov g;
	uint64_t own[2] = { 0, 0 };

	(void)state;
	backoff_opts(&o);
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_sample(&g, 0, st, own, 1), 0);
	st[0].read_sectors = 10;
	st[0].write_sectors = 0;
	assert_int_equal(scan_gov_sample(&g, NS_S / 4, st, own, 1), 0);
	st[0].read_sectors += 2048;
	own[0] += 2048;
	assert_int_equal(scan_gov_sample(&g, NS_S / 2, st, own, 1), 0);
	assert_false(scan_gov_backing_off(&g));
	/* a different number of views is a new baseline too */
	st[1] = st[0];
	st[1].write_sectors += 999;
	own[1] = own[0];
	assert_int_equal(scan_gov_sample(&g, NS_S, st, own, 2), 0);
	assert_false(scan_gov_backing_off(&g));
	assert_int_equal(scan_gov_sample(&g, NS_S, st, own, 0), -EINVAL);
	assert_int_equal(scan_gov_sample(&g, NS_S, st, own, SCAN_GOV_MAX_VIEWS + 1), -EINVAL);
	assert_int_equal(scan_gov_sample(&g, NS_S, NULL, own, 1), -EINVAL);
}

/* Backoff while the pace is unlimited: the floor, then unlimited again. */
static void test_backoff_from_unlimited(void **state)
{
	struct scan_gov_opts o = { .backoff = true };
	struct kio_diskstat st = { 0 };
	struct scan_gov g;
	uint64_t own = 0;

	(void)state;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 0);
	scan_gov_sample(&g, 0, &st, &own, 1);
	st.write_sectors = 8;
	st.write_ios = 1;
	assert_int_equal(scan_gov_sample(&g, NS_S, &st, &own, 1), 1);
	assert_int_equal(scan_gov_rate_bps(&g), SCAN_GOV_FLOOR_BPS_DEFAULT);
	assert_int_equal(scan_gov_wait_ns(&g, NS_S, MiB), 0);
	scan_gov_account(&g, MiB, NS_S);
	assert_int_equal(scan_gov_wait_ns(&g, NS_S, MiB), NS_S);
	assert_int_equal(scan_gov_wait_ns(&g, 4 * NS_S, MiB), 0);
	assert_int_equal(scan_gov_rate_bps(&g), 0);
}

/* Backing off never speeds up a pace already below the floor. */
static void test_backoff_slow_pace(void **state)
{
	struct scan_gov_opts o;
	struct kio_diskstat st = { 0 };
	struct scan_gov g;
	uint64_t own = 0;

	(void)state;
	backoff_opts(&o);
	o.rate_bps = 3 * MiB;
	assert_int_equal(scan_gov_init(&g, &o, 0), 0);
	scan_gov_sample(&g, 0, &st, &own, 1);
	st.write_sectors = 8;
	assert_int_equal(scan_gov_sample(&g, NS_S, &st, &own, 1), 1);
	assert_true(scan_gov_backing_off(&g));
	assert_int_equal(scan_gov_rate_bps(&g), 3 * MiB);
}

/* /proc/thread-self/schedstat: "cpu_ns run_delay_ns timeslices"; the live file reads. */
static void test_schedstat(void **state)
{
	uint64_t d = 1, d2 = 0;
	int fd;

	(void)state;
	assert_int_equal(kio_schedstat_parse("6455343 9014478 6\n", &d), 0);
	assert_int_equal(d, 9014478);
	assert_int_equal(kio_schedstat_parse("6455343\n", &d), -EINVAL);
	assert_int_equal(kio_schedstat_parse("", &d), -EINVAL);
	fd = kio_schedstat_open();
	if (fd < 0) {
		print_message("no /proc/thread-self/schedstat (%d): no live read\n", fd);
		return;
	}
	assert_int_equal(kio_schedstat_run_delay(fd, &d), 0);
	assert_int_equal(kio_schedstat_run_delay(fd, &d2), 0);
	assert_true(d2 >= d);				/* cumulative */
	close(fd);
}

/* A line from a 6.x kernel: 17 fields, padded as the kernel prints them. */
static void test_diskstat_parse(void **state)
{
	const char *l17 = "   10221        6  1470740    26136     2969      741  4085238    17377"
			  "        0    11352    44869       11        0  9797634       31      240"
			  "     1324\n";
	struct kio_diskstat st;

	(void)state;
	assert_int_equal(kio_diskstat_parse(l17, &st), 17);
	assert_int_equal(st.nr_fields, 17);
	assert_int_equal(st.read_ios, 10221);
	assert_int_equal(st.read_merges, 6);
	assert_int_equal(st.read_sectors, 1470740);
	assert_int_equal(st.read_ticks_ms, 26136);
	assert_int_equal(st.write_ios, 2969);
	assert_int_equal(st.write_merges, 741);
	assert_int_equal(st.write_sectors, 4085238);
	assert_int_equal(st.write_ticks_ms, 17377);
	assert_int_equal(st.in_flight, 0);
	assert_int_equal(st.io_ticks_ms, 11352);
	assert_int_equal(st.time_in_queue_ms, 44869);
	assert_int_equal(st.discard_ios, 11);
	assert_int_equal(st.discard_merges, 0);
	assert_int_equal(st.discard_sectors, 9797634);
	assert_int_equal(st.discard_ticks_ms, 31);
	assert_int_equal(st.flush_ios, 240);
	assert_int_equal(st.flush_ticks_ms, 1324);

	/* older kernels: 11 fields (before 4.18), 15 (before 5.5); the rest reads 0 */
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10 11", &st), 11);
	assert_int_equal(st.time_in_queue_ms, 11);
	assert_int_equal(st.discard_ios, 0);
	assert_int_equal(st.flush_ticks_ms, 0);
	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", &st), 15);
	assert_int_equal(st.discard_ticks_ms, 15);
	assert_int_equal(st.flush_ios, 0);
	/* a newer kernel's extra fields are ignored */
	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
					    &st), 17);
	assert_int_equal(st.flush_ticks_ms, 17);
	/* 64-bit counters */
	assert_int_equal(kio_diskstat_parse("0 0 18446744073709551615 0 0 0 0 0 0 0 0", &st), 11);
	assert_true(st.read_sectors == UINT64_MAX);

	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10", &st), -EINVAL);
	assert_int_equal(kio_diskstat_parse("", &st), -EINVAL);
	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10 x1", &st), -EINVAL);
	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10 11x", &st), -EINVAL);
	assert_int_equal(kio_diskstat_parse("1 2 3 4 5 6 7 8 9 10 -11", &st), -EINVAL);
	assert_int_equal(kio_diskstat_parse("0 0 18446744073709551616 0 0 0 0 0 0 0 0", &st),
			 -EINVAL);
	assert_int_equal(kio_diskstat_parse(NULL, &st), -EINVAL);
}

static void test_diskstat_read(void **state)
{
	struct kio_diskstat st;
	struct dirent *de;
	DIR *d;

	(void)state;
	assert_int_equal(kio_diskstat_read("", &st), -EINVAL);
	assert_int_equal(kio_diskstat_read("../sda", &st), -EINVAL);
	assert_int_equal(kio_diskstat_read("..", &st), -EINVAL);
	assert_int_equal(kio_diskstat_read(NULL, &st), -EINVAL);
	assert_int_equal(kio_diskstat_read("no-such-disk-xyz", &st), -ENOENT);
	d = opendir("/sys/class/block");
	if (!d)
		return;		/* no sysfs here: the parser tests above stand */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		assert_int_equal(kio_diskstat_read(de->d_name, &st), 0);
		assert_true(st.nr_fields >= 11 && st.nr_fields <= 17);
		printf("# %s: %u fields, %llu sectors read\n", de->d_name, st.nr_fields,
		       (unsigned long long)st.read_sectors);
		break;
	}
	closedir(d);
}

static void test_ioprio(void **state)
{
	int ret;

	(void)state;
	assert_int_equal(kio_ioprio_set_be(8), -EINVAL);
	assert_int_equal(kio_ioprio_set_be(-1), -EINVAL);
	ret = kio_ioprio_set_idle();
	if (ret == -ENOSYS || ret == -EPERM) {
		printf("# ioprio_set unavailable here (%d); wrappers not exercised\n", ret);
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(kio_ioprio_set_be(4), 0);
	assert_int_equal(kio_ioprio_set_be(7), 0);
	assert_int_equal(kio_ioprio_set_be(4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_accuracy),
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_init_invalid),
		cmocka_unit_test(test_no_burst_after_stall),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_window_recalc_period),
		cmocka_unit_test(test_window_bounds),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_backoff_quick),
		cmocka_unit_test(test_backoff_disabled),
		cmocka_unit_test(test_own_reads_subtracted),
		cmocka_unit_test(test_fg_threshold),
		cmocka_unit_test(test_flush_counts),
		cmocka_unit_test(test_counter_reset),
		cmocka_unit_test(test_backoff_from_unlimited),
		cmocka_unit_test(test_backoff_slow_pace),
		cmocka_unit_test(test_diskstat_parse),
		cmocka_unit_test(test_schedstat),
		cmocka_unit_test(test_diskstat_read),
		cmocka_unit_test(test_ioprio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
