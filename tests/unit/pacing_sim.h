/*
 * tests/unit/pacing_sim.h - the simulated disk of test_pacing (pacing_sim.c): one queue served
 * first come first served, a closed-loop (or bursty) foreground, the scan's reads issued as the
 * governor says, and the kernel's /sys/block/DEV/stat counters; the disks and foregrounds the
 * cases run (struct model).
 */
#ifndef MEDIASCAN_PACING_SIM_H
#define MEDIASCAN_PACING_SIM_H

#include <stdint.h>

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
	uint64_t bps;			/* a bytes throttle (0: none), its burst bps / 10 */
	double bbucket;			/* its level, bytes, at bucket_ns */
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
	uint32_t io;			/* its read size */
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
	/* a host's hiccups (a VM's vCPU not run): one fg request in hiccup_every takes
	 * hiccup_ns more, off the disk */
	unsigned hiccup_every;
	uint64_t hiccup_ns;
	uint64_t fg_sec_ios[256], fg_sec_ns[256];	/* the foreground's per second */
	/* the scan's rate per second, for the phase tests */
	uint64_t sec_bytes[256];
};

struct model {
	const char *name;
	uint64_t lat_ns, bw_bps, think_ns;
	unsigned burst_n;		/* a bursty foreground (0: steady) */
	uint32_t fg_bytes;		/* its request size (0: FG_BYTES) */
	uint64_t burst_gap_ns;
	int write;
	uint64_t iops, iops_burst;	/* the disk's iops throttle (0: none) */
	uint64_t bps;			/* its bytes throttle (0: none) */
	uint32_t scan_io;		/* the scan's read size (0: SCAN_BYTES) */
	unsigned hiccup_every;		/* host hiccups (struct sim), 0: none */
	uint64_t hiccup_ns;
};

/* The rotating disk (light and busy foreground) and the SSD-like disk. */
extern const struct model models[3];
/* The bench's bursty writer on the SSD-like disk. */
extern const struct model writer_model;
/* A journal's commits: three 4 KiB writes every 5 s on the rotating disk. */
extern const struct model commits_model;

/* The generator's seed for the next sim_init (0: 12345); PACING_SEED overrides it. */
extern uint32_t sim_seed;
/* The scan's reads are drive-side commands (NVMe Verify, SCSI VERIFY through passthrough):
 * the kernel's counts never see them, the scan counts them as commands. */
extern int sim_passthrough;
/* Return the next number of s's seeded generator. */
uint32_t sim_rand(struct sim *s);
/* Return the time of a request of bytes started now (the iops throttle's wait too). */
uint64_t sim_svc(struct sim *s, uint32_t bytes);
/* Queue a request of bytes: the scan's (scan 1) or the foreground's. */
void sim_submit(struct sim *s, int scan, uint32_t bytes);
/* Complete the request in service: the kernel's counters, the scan's, the foreground's. */
void sim_complete(struct sim *s);
/* One governor sample of the simulated /sys/block/DEV/stat and the scan's own count. */
void sim_sample(struct sim *s);
/* Issue the scan's reads the governor allows, up to its depth. */
void sim_try_scan(struct sim *s);
/* Run the simulation until end_ns. */
void sim_run(struct sim *s, uint64_t end_ns);
/* The foreground of model m from now on (the disk is left as it is). */
void sim_set_fg(struct sim *s, const struct model *m);
/*
 * Set s up: disk and foreground of m (fg: on), mode -1 no scan, 0 unthrottled, 1 fixed rate,
 * 2 latency pacing; rate, window_s and planned as the governor takes them.
 */
void sim_init(struct sim *s, const struct model *m, int fg, int mode, uint64_t rate,
		     uint64_t window_s, uint64_t planned);
/* The foreground's mean latency in ns over a run of dur_ns (measured after warm_ns). */
double sim_fg_mean(const struct model *m, int mode, uint64_t rate, uint64_t dur_ns,
			  uint64_t warm_ns, double *scan_bps);

#endif
