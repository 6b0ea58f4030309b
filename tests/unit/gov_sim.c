/*
 * tests/unit/gov_sim.c - the simulator of test_governor: a fake engine issuing I/Os on a
 * simulated clock as the governor allows, and a fake kernel's disk statistics with our reads
 * and a chosen foreground load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gov_sim.h"


void sim_init(struct sim *s, const struct scan_gov_opts *o, uint32_t io_bytes)
{
	memset(s, 0, sizeof(*s));
	s->io_bytes = io_bytes;
	s->rng = 12345;
	s->nr_st = 1;
	s->fg_from_ns = s->fg_to_ns = UINT64_MAX;
	s->backoff_on_ns = s->backoff_off_ns = UINT64_MAX;
	assert_int_equal(scan_gov_init(&s->g, o, 0), 0);
}

void sim_log(struct sim *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->t_ns = realloc(s->t_ns, s->cap * sizeof(*s->t_ns));
		assert_non_null(s->t_ns);
	}
	s->t_ns[s->n++] = s->now_ns;
}

void sim_free(struct sim *s)
{
	free(s->t_ns);
	s->t_ns = NULL;
}

static uint64_t overlap_ns(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* The fake kernel: foreground load since the last sample, then one governor sample. */
void sim_sample(struct sim *s)
{
	uint64_t fg = overlap_ns(s->last_sample_ns, s->now_ns, s->fg_from_ns, s->fg_to_ns);
	uint64_t own[2], lag = 0;
	int ret;

	for (unsigned i = s->fg_view; i < s->nr_st; i++) {
		uint64_t w = fg * s->fg_write_bps / NS_S, r = fg * s->fg_read_bps / NS_S;

		s->st[i].write_sectors += w / 512;
		s->st[i].write_ios += w / 4096;
		s->st[i].read_sectors += r / 512;
		s->st[i].read_ios += r / 4096;
	}
	if (s->lag_sectors) {
		s->rng = s->rng * 1103515245 + 12345;
		lag = (s->rng >> 8) % (s->lag_sectors + 1);
		if (lag > s->own_sectors)
			lag = s->own_sectors;
	}
	for (unsigned i = 0; i < s->nr_st; i++)
		own[i] = s->own_sectors - lag;
	ret = scan_gov_sample(&s->g, s->now_ns, s->st, own, s->nr_st);
	assert_true(ret == 0 || ret == 1);
	s->nr_samples++;
	s->nr_seen += (unsigned)ret;
	s->last_sample_ns = s->now_ns;
}

void sim_watch(struct sim *s)
{
	int st = scan_gov_backing_off(&s->g);

	if (st && !s->last_state && s->backoff_on_ns == UINT64_MAX) {
		s->backoff_on_ns = s->now_ns;
		s->rate_at_on_bps = scan_gov_rate_bps(&s->g);
	}
	if (!st && s->last_state && s->backoff_off_ns == UINT64_MAX)
		s->backoff_off_ns = s->now_ns;
	s->last_state = st;
}

/* Run the fake engine until until_ns. */
void sim_run(struct sim *s, uint64_t until_ns)
{
	while (s->now_ns < until_ns) {
		bool stalled = s->now_ns >= s->stall_from_ns && s->now_ns < s->stall_to_ns;
		bool done = s->limit_bytes && s->issued_bytes >= s->limit_bytes;
		uint64_t next = until_ns, w;

		if (s->sample_every_ns && s->now_ns >= s->next_sample_ns) {
			sim_sample(s);
			s->next_sample_ns += s->sample_every_ns;
			sim_watch(s);
			continue;
		}
		if (stalled) {
			next = s->stall_to_ns;
		} else if (!done) {
			w = scan_gov_wait_ns(&s->g, s->now_ns, s->io_bytes);
			sim_watch(s);
			if (w == 0) {
				scan_gov_account(&s->g, s->io_bytes, s->now_ns);
				sim_log(s);
				s->issued_bytes += s->io_bytes;
				s->own_sectors += s->io_bytes / 512;
				for (unsigned i = 0; i < s->nr_st; i++)
					s->st[i].read_sectors += s->io_bytes / 512;
				s->now_ns += s->svc_ns;
				continue;
			}
			if (s->jitter_ns) {
				s->rng = s->rng * 1103515245 + 12345;
				w += (s->rng >> 8) % s->jitter_ns;
			}
			next = s->now_ns + w;
		}
		if (next > until_ns)
			next = until_ns;
		if (s->sample_every_ns && next > s->next_sample_ns)
			next = s->next_sample_ns;
		s->now_ns = next;
	}
}

/* Bytes issued in [from, to). */
uint64_t sim_bytes(const struct sim *s, uint64_t from, uint64_t to)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->t_ns[i] >= from && s->t_ns[i] < to)
			n++;
	return n * s->io_bytes;
}

/* Most bytes issued in any window [t, t + len) starting at an issue in [from, to). */
uint64_t sim_max_window(const struct sim *s, uint64_t len, uint64_t from, uint64_t to)
{
	uint64_t best = 0;
	size_t j = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->t_ns[i] < from || s->t_ns[i] >= to)
			continue;
		if (j < i)
			j = i;
		while (j < s->n && s->t_ns[j] < s->t_ns[i] + len)
			j++;
		if ((j - i) * s->io_bytes > best)
			best = (j - i) * s->io_bytes;
	}
	return best;
}
