/*
 * mediascan/governor_int.h - what the three files of the rate governor share and nothing else
 * sees: governor.c (the interface, the views of the stat counters, backoff by presence),
 * governor_pace.c (the deadline, the window's pace, the rate in force) and governor_lat.c
 * (pacing by the foreground's latency). Calls go governor.c -> governor_lat.c ->
 * governor_pace.c, never back.
 */
#ifndef MEDIASCAN_GOVERNOR_INT_H
#define MEDIASCAN_GOVERNOR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "governor.h"

#define NS_PER_S 1000000000ull

/* governor_pace.c */
uint64_t gov_muldiv(uint64_t a, uint64_t b, uint64_t c, bool round_up);
uint64_t gov_sat_add(uint64_t a, uint64_t b);
uint64_t gov_sat_mul(uint64_t a, uint64_t b);
uint64_t gov_due_ns(const struct scan_gov *g);
uint64_t gov_floor_bps(const struct scan_gov *g);
uint64_t gov_window_bps(const struct scan_gov *g, uint64_t now_ns);
void gov_update_rate(struct scan_gov *g, uint64_t now_ns);
void gov_tick(struct scan_gov *g, uint64_t now_ns);
void gov_clamp_credit(struct scan_gov *g, uint64_t now_ns, uint64_t next_io_bytes);

/* governor_lat.c */
void gov_lat_sample(struct scan_gov *g, uint64_t now_ns, uint64_t interval_ns,
		    uint64_t fg_ios, uint64_t fg_ns, uint64_t fg_wait, uint64_t own_ios,
		    uint64_t own_ns);

#endif
