/*
 * pass/map.c - the map stage: every error of the scan classified (mediascan/result.c's
 * verdicts) into the report's counts and exit bits, and the owners of damage (what to
 * restore) and of slow and device-fault ranges (at risk) looked up through mapping/.
 */
#include <errno.h>
#include <stdlib.h>

#include "pass_int.h"

/* Slow and device-fault ranges: not lost, but their owners are at risk. */
static int is_at_risk(const struct scan_error *e)
{
	enum scan_verdict v = scan_error_verdict(e);

	return v == SCAN_V_SLOW || v == SCAN_V_DEVICE;
}

int pass_map_batch(struct map_damage *d, struct map_target *t, const uint32_t *dev,
		   const uint64_t *off, const uint64_t *len, size_t n)
{
	int ret = 0;

	for (size_t a = 0, b; a < n && ret == 0; a = b) {
		for (b = a; b < n && dev[b] == dev[a]; b++)
			;
		ret = map_damage_add_many(d, t, dev[a], off + a, len + a, b - a);
	}
	return ret;
}

/*
 * Look up the owners of every error that `want` selects (sorted by device and offset) in d,
 * one batch per device (pass_map_batch). The groups follow those errors in order; read them
 * after resolve.
 */
static int add_batched(struct pass_report *rep, struct map_damage *d,
		       int (*want)(const struct scan_error *e))
{
	const struct scan_result *r = rep->r;
	uint32_t *dev = malloc(sizeof(*dev) * (r->nr_errors + 1));
	uint64_t *off = malloc(sizeof(*off) * (r->nr_errors + 1));
	uint64_t *len = malloc(sizeof(*len) * (r->nr_errors + 1));
	size_t n = 0;
	int ret = dev && off && len ? 0 : -ENOMEM;

	for (size_t i = 0; i < r->nr_errors && ret == 0; i++) {
		if (!want(&r->errors[i]))
			continue;
		dev[n] = r->errors[i].dev_idx;
		off[n] = r->errors[i].offset;
		len[n++] = r->errors[i].length;
	}
	if (ret == 0)
		ret = pass_map_batch(d, rep->t, dev, off, len, n);
	free(dev);
	free(off);
	free(len);
	return ret;
}

int pass_map(struct pass_report *rep)
{
	struct scan_result *r = rep->r;
	int ret;

	/*
	 * Errors split by checkpoints (or loaded from an interrupted run) are shown as the
	 * runs they form: merge neighbours that say the same (result.c's one rule).
	 */
	scan_result_coalesce(r);
	rep->own_first = calloc(r->nr_errors + 1, sizeof(size_t));
	rep->own_count = calloc(r->nr_errors + 1, sizeof(size_t));
	if (!rep->own_first || !rep->own_count)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];

		switch (scan_error_verdict(e)) {
		case SCAN_V_OPERATIONAL:
			rep->nr_op_errors++;
			rep->exit_bits |= PASS_EXIT_OPERATIONAL;
			break;
		case SCAN_V_GAP:
			rep->nr_gap_errors++;
			break;
		case SCAN_V_TRANSIENT:
			/*
			 * Failed once, then every block read fine: not proven damage. The
			 * usual cause is a bad neighbour whose request the block layer merged
			 * with this read; that neighbour is reported on its own.
			 */
			rep->nr_transient_errors++;
			break;
		case SCAN_V_SLOW:
			rep->nr_slow_errors++;
			rep->exit_bits |= PASS_EXIT_DEVICE;
			break;
		case SCAN_V_DEVICE:
			rep->nr_device_faults++;
			rep->exit_bits |= PASS_EXIT_DEVICE;
			break;
		case SCAN_V_DAMAGE:
			rep->nr_damage_errors++;
			rep->exit_bits |= e->cls == SCAN_ERR_PI ? PASS_EXIT_INTEGRITY : PASS_EXIT_MEDIA;
			break;
		}
	}
	if (r->failing)
		rep->exit_bits |= PASS_EXIT_DEVICE;
	ret = add_batched(rep, &rep->dmg, scan_is_damage);
	if (ret < 0)
		return ret;
	ret = map_damage_resolve(&rep->dmg, rep->t);
	if (ret < 0)
		return ret;
	if (rep->nr_slow_errors || rep->nr_device_faults) {
		ret = add_batched(rep, &rep->risk, is_at_risk);
		if (ret == 0)
			ret = map_damage_resolve(&rep->risk, rep->t);
		if (ret < 0)
			return ret;
	}
	/* The owner index (ext4, XFS without rmapbt) may replace owners: final spans. */
	for (size_t i = 0, g = 0, k = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];

		if (scan_is_damage(e))
			map_damage_group(&rep->dmg, g++, &rep->own_first[i], &rep->own_count[i]);
		else if (is_at_risk(e))
			map_damage_group(&rep->risk, k++, &rep->own_first[i], &rep->own_count[i]);
	}
	/*
	 * Incomplete is operational, but for two stops by decision: to spare a failing disk
	 * (bit 16 says so) and a planned --max-duration stop whose checkpoint lets --resume
	 * continue (without a state store nothing can continue it: incomplete).
	 */
	if (r->fatal || (!r->complete && !r->failing &&
			 !(r->stopped == 2 && !rep->no_checkpoint)))
		rep->exit_bits |= PASS_EXIT_OPERATIONAL;
	return 0;
}

int pass_report_free(struct pass_report *rep)
{
	map_damage_free(&rep->dmg);
	map_damage_free(&rep->risk);
	free(rep->own_first);
	free(rep->own_count);
	rep->own_first = rep->own_count = NULL;
	return 0;
}

