/*
 * tests/unit/pacing_sim.c - the simulated disk of test_pacing: each request takes a fixed
 * latency plus its bytes over a bandwidth (the fault disk's model), after an iops throttle's
 * wait where there is one; a foreground of 4 KiB reads at queue depth one with random think
 * times (or bursts); the scan's 1 MiB reads when the governor says so; the kernel's counters
 * (requests, sectors, ticks in ms from a ns sum, as Linux does) and the scan's own count and
 * latency, as the executor keeps them. Deterministic: a seeded generator, simulated time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pacing_sim.h"


uint32_t sim_seed;
int sim_passthrough;

uint32_t sim_rand(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	return s->rng;
}

/*
 * The time of a request started now: the disk's latency plus its bytes over the bandwidth,
 * after a wait for the throttles when there are (QEMU's: an iops one, a leaky bucket of
 * iops_burst requests draining at iops a second, where a request waits while the bucket is
 * full, so after an idle spell iops_burst requests go through at the disk's speed; a bytes
 * one, util/throttle.c without bps-max: a request waits while the level is above a tenth of
 * a second's bytes, then adds its own, so one 1 MiB read at 8 MiB/s holds the next 25 ms).
 */
uint64_t sim_svc(struct sim *s, uint32_t bytes)
{
	double dt = (double)(s->now - s->bucket_ns) / 1e9, wait = 0;

	s->bucket_ns = s->now;
	if (s->iops) {
		double drained = dt * (double)s->iops;

		s->bucket = s->bucket > drained ? s->bucket - drained : 0;
		if (s->bucket + 1 > (double)s->iops_burst)
			wait = (s->bucket + 1 - (double)s->iops_burst) / (double)s->iops;
		s->bucket += 1;
	}
	if (s->bps) {
		double drained = dt * (double)s->bps, burst = (double)s->bps / 10, w;

		s->bbucket = s->bbucket > drained ? s->bbucket - drained : 0;
		w = s->bbucket > burst ? (s->bbucket - burst) / (double)s->bps : 0;
		wait = w > wait ? w : wait;
		s->bbucket += bytes;
	}
	return (uint64_t)(wait * 1e9) + s->lat_ns + (uint64_t)bytes * NS_S / s->bw_bps;
}

void sim_submit(struct sim *s, int scan, uint32_t bytes)
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

/* Time a foreground request waits off the disk (CPU, a host's hiccup): the kernel counts it. */
static uint64_t sim_off_disk(struct sim *s, int write, uint64_t ns)
{
	if (write)
		s->k_wticks_ns += ns;
	else
		s->k_ticks_ns += ns;
	return ns;
}

void sim_complete(struct sim *s)
{
	struct sim_req r = s->q[s->q_head];
	uint64_t lat = s->now - r.submit_ns;

	s->q_head = (s->q_head + 1) % SIM_QMAX;
	s->q_len--;
	s->busy = s->q_len > 0;
	if (s->busy)
		s->done_ns = s->now + sim_svc(s, s->q[s->q_head].bytes);
	if (r.scan && sim_passthrough) {
		;			/* a drive-side command: never in the kernel's counts */
	} else if (r.write) {
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
		if (sim_passthrough) {
			s->own.cmd_ios++;
			s->own.cmd_ns += lat;
		} else {
			s->own.ios++;
			s->own.sectors += r.bytes / 512;
			s->own.ns += lat;
		}
		if (s->try_ns > s->now)
			s->try_ns = s->now;	/* a slot is free: ask again */
	} else {
		s->fg_waiting = 0;
		if (s->fg_noise_ns) {
			if (s->now >= s->noise_until_ns) {
				s->noise_now_ns = sim_rand(s) % (2 * s->fg_noise_ns + 1);
				s->noise_until_ns = s->now + SIM_SAMPLE_NS;
			}
			lat += sim_off_disk(s, r.write, s->noise_now_ns);
		}
		if (s->hiccup_every && sim_rand(s) % s->hiccup_every == 0)
			lat += sim_off_disk(s, r.write, s->hiccup_ns);
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

void sim_sample(struct sim *s)
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
	/* PACING_TRACE=2: the controller at each sample, and the foreground's requests so far */
	if (getenv("PACING_TRACE") && atoi(getenv("PACING_TRACE")) > 1)
		print_message("%7.3f ph %u ctl %6.1f rate %6.1f alone %6.3f aim %6.3f lat %6.3f "
			      "fg %llu %.0f\n", s->now / 1e9, s->g.lat.phase, s->g.lat.ctl_bps / 1e6,
			      s->g.lat.rate_bps / 1e6, s->g.lat.alone / 1e6, s->g.lat.aim / 1e6,
			      s->g.lat.last_lat_ns / 1e6, (unsigned long long)s->fg_ios,
			      (double)s->fg_sum_ns);
}

void sim_try_scan(struct sim *s)
{
	while (s->inflight < s->depth && (!s->planned || s->issued < s->planned)) {
		if (s->mode) {
			uint64_t w = scan_gov_wait_ns(&s->g, s->now, s->io);

			if (w) {
				s->try_ns = s->now + w;
				return;
			}
			scan_gov_account(&s->g, s->io, s->now);
		}
		sim_submit(s, 1, s->io);
		s->inflight++;
		s->issued += s->io;
	}
	s->try_ns = UINT64_MAX;			/* until a completion */
}

/* Run the simulation until end_ns. */
void sim_run(struct sim *s, uint64_t end_ns)
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
			s->next_sample_ns += scan_gov_sample_ns(&s->g);
			sim_sample(s);
			if (s->try_ns == UINT64_MAX && s->inflight < s->depth)
				s->try_ns = s->now;
			break;
		default:
			break;
		}
	}
}


const struct model models[3] = {
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
const struct model writer_model = {
	"ssd, bursty writer", 100 * NS_US, 1000000000, 0, 32, 1u << 20, NS_S, 1
};

/* A journal's commits: three 4 KiB writes every 5 s on the rotating disk. */
const struct model commits_model = {
	"hdd, 3 writes every 5 s", 4 * NS_MS, 150000000, 0, 3, 4096, 5 * NS_S, 1
};

/* The foreground of model m from now on (the disk is left as it is). */
void sim_set_fg(struct sim *s, const struct model *m)
{
	s->think_ns = m->think_ns;
	s->burst_n = s->burst_left = m->burst_n;
	s->fg_bytes = m->fg_bytes;
	s->burst_gap_ns = m->burst_gap_ns;
	s->fg_write = m->write;
}

/* mode: -1 no scan, 0 unthrottled, 1 fixed rate, 2 latency pacing. */
void sim_init(struct sim *s, const struct model *m, int fg, int mode, uint64_t rate,
		     uint64_t window_s, uint64_t planned)
{
	struct scan_gov_opts o;

	memset(s, 0, sizeof(*s));
	s->lat_ns = m->lat_ns;
	s->bw_bps = m->bw_bps;
	s->iops = m->iops;
	s->iops_burst = m->iops_burst;
	s->bps = m->bps;
	s->io = m->scan_io ? m->scan_io : SCAN_BYTES;
	s->hiccup_every = m->hiccup_every;
	s->hiccup_ns = m->hiccup_ns;
	sim_set_fg(s, m);
	s->fg_on = fg;
	s->rng = getenv("PACING_SEED") ? (uint32_t)atoi(getenv("PACING_SEED")) :
		 sim_seed ? sim_seed : 12345;
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
double sim_fg_mean(const struct model *m, int mode, uint64_t rate, uint64_t dur_ns,
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
