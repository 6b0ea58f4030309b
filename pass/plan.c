/*
 * pass/plan.c - the plan stage: what the scan reads. mapping/ plans the target (GETFSMAP, or
 * the whole device); its ranges are handed to mediascan/ as scan_ranges through a
 * scan_source. A recheck's plan is the history's open errors instead.
 */
#include <errno.h>
#include <string.h>

#include "pass_int.h"

/* The plan as a scan_source: mapping's ranges handed over as mediascan's. */
_Static_assert(MAP_MAX_GAPS <= SCAN_MAX_GAPS, "every bridged gap of a plan range is handed over");

static int plan_source_next(void *arg, struct scan_range *out, unsigned max)
{
	struct pass_plan *ps = arg;
	unsigned batch = sizeof(ps->buf) / sizeof(ps->buf[0]);
	int n = map_plan_next(ps->plan, ps->buf, max < batch ? max : batch);

	for (int i = 0; i < n; i++) {
		const struct map_range *m = &ps->buf[i];

		memset(&out[i], 0, sizeof(out[i]));
		out[i].offset = m->offset;
		out[i].length = m->length;
		out[i].dev_idx = m->dev_idx;
		out[i].nr_gaps = m->nr_gaps;
		for (uint32_t g = 0; g < out[i].nr_gaps; g++) {
			out[i].gaps[g].offset = m->gaps[g].offset;
			out[i].gaps[g].length = m->gaps[g].length;
		}
	}
	return n;
}

/* The open errors as the plan of a recheck: each watched range, whole logical blocks. */
static int recheck_source_next(void *arg, struct scan_range *out, unsigned max)
{
	struct pass_plan *rs = arg;
	unsigned n = 0;

	for (; rs->pos < rs->nr_watch && n < max; rs->pos++) {
		const struct scan_watch *w = &rs->watch[rs->pos];
		uint32_t lbs = rs->t->devices[w->dev_idx].info.logical_block_size;
		uint64_t lo, hi;

		lbs = lbs ? lbs : 512;
		lo = w->offset - w->offset % lbs;
		hi = w->offset + w->length;
		hi = hi % lbs ? hi + lbs - hi % lbs : hi;
		/* Neighbouring errors that share a block are read once. */
		if (n && out[n - 1].dev_idx == w->dev_idx && out[n - 1].offset +
		    out[n - 1].length >= lo) {
			if (hi > out[n - 1].offset + out[n - 1].length)
				out[n - 1].length = hi - out[n - 1].offset;
			continue;
		}
		memset(&out[n], 0, sizeof(out[n]));
		out[n].offset = lo;
		out[n].length = hi - lo;
		out[n].dev_idx = w->dev_idx;
		n++;
	}
	return (int)n;
}

int pass_plan_count(struct map_target *t, const struct map_plan_opts *po, uint64_t *planned)
{
	return map_plan_count(t, po, planned, NULL);
}

int pass_plan_open(struct pass_plan *pp, struct map_target *t, const struct map_plan_opts *po,
		   struct scan_source *src)
{
	int ret;

	memset(pp, 0, sizeof(*pp));
	ret = map_plan_open(t, po, &pp->plan);
	if (ret < 0)
		return ret;
	src->next = plan_source_next;
	src->arg = pp;
	return 0;
}

int pass_plan_recheck(struct pass_plan *pp, const struct map_target *t,
		      const struct scan_watch *w, size_t n, struct scan_source *src)
{
	memset(pp, 0, sizeof(*pp));
	pp->watch = w;
	pp->nr_watch = n;
	pp->t = t;
	src->next = recheck_source_next;
	src->arg = pp;
	return 0;
}

void pass_plan_close(struct pass_plan *pp)
{
	map_plan_close(pp->plan);
	pp->plan = NULL;
}

int pass_plan_each(struct map_target *t, const struct map_plan_opts *po,
		   int (*fn)(const struct map_range *rg, void *arg), void *arg)
{
	struct map_plan *p;
	struct map_range rg[256];
	int n, ret = 0;

	n = map_plan_open(t, po, &p);
	if (n < 0)
		return n;
	while (ret == 0 && (n = map_plan_next(p, rg, 256)) > 0)
		for (int i = 0; i < n && ret == 0; i++)
			ret = fn(&rg[i], arg);
	map_plan_close(p);
	return n < 0 ? n : ret;
}
