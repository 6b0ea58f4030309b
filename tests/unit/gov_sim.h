/*
 * tests/unit/gov_sim.h - the simulator of test_governor (gov_sim.c): a fake engine issues
 * I/Os whenever scan_gov_wait_ns() says 0 and otherwise jumps its clock, while a fake kernel
 * keeps /sys/class/block/NAME/stat counters with our reads and chosen foreground load.
 */
#ifndef MEDIASCAN_GOV_SIM_H
#define MEDIASCAN_GOV_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "governor.h"
#include "kio.h"

#define MiB (1024ull * 1024)
#define NS_S 1000000000ull
#define NS_MS 1000000ull

struct sim {
	struct scan_gov g;
	uint64_t now_ns;
	uint32_t io_bytes;
	uint64_t svc_ns;		/* clock advance per issue (a device of finite speed) */
	uint64_t jitter_ns;		/* a caller that wakes up to this late */
	uint32_t rng;
	uint64_t stall_from_ns, stall_to_ns;	/* engine issues nothing in [from, to) */
	uint64_t limit_bytes;		/* stop after issuing this much (0: never) */
	uint64_t issued_bytes;
	uint64_t *t_ns;			/* issue log */
	size_t n, cap;
	/* fake kernel counters and sampling */
	uint64_t sample_every_ns;	/* 0: no sampling */
	uint64_t next_sample_ns, last_sample_ns;
	unsigned nr_st;
	struct kio_diskstat st[2];	/* [0] partition, [1] whole disk */
	uint64_t own_sectors;		/* what mediascan read */
	uint64_t lag_sectors;		/* own reads counted late by the caller, at most this */
	uint64_t fg_from_ns, fg_to_ns;
	uint64_t fg_write_bps, fg_read_bps;
	unsigned fg_view;		/* view index where foreground I/O shows (and those after) */
	unsigned nr_samples, nr_seen;
	int last_state;
	uint64_t backoff_on_ns, backoff_off_ns;	/* first transitions seen */
	uint64_t rate_at_on_bps;
};

/* Set s up: a governor of o, io_bytes per issue, one stat view, no foreground. */
void sim_init(struct sim *s, const struct scan_gov_opts *o, uint32_t io_bytes);
/* Log an issue at the current time. */
void sim_log(struct sim *s);
/* Free the issue log. */
void sim_free(struct sim *s);
/* The fake kernel: foreground load since the last sample, then one governor sample. */
void sim_sample(struct sim *s);
/* Note the first switches into and out of backing off. */
void sim_watch(struct sim *s);
/* Run the fake engine until until_ns. */
void sim_run(struct sim *s, uint64_t until_ns);
/* Bytes issued in [from, to). */
uint64_t sim_bytes(const struct sim *s, uint64_t from, uint64_t to);
/* Most bytes issued in any window [t, t + len) starting at an issue in [from, to). */
uint64_t sim_max_window(const struct sim *s, uint64_t len, uint64_t from, uint64_t to);

#endif
