/*
 * mapping/plan.c - the streaming scan plan: GETFSMAP records (or a whole device) become
 * sorted, merged, aligned device ranges, a batch at a time, so memory does not grow with
 * the filesystem.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fsmap.h>

#include "plan.h"
#include "target.h"
#include "fsmap.h"

#define PLAN_FSMAP_BATCH 1024
#define PLAN_DEFAULT_GAP_ROTATIONAL (64 * 1024)

int map_merger_init(struct map_merger *m, uint64_t merge_gap, uint32_t align)
{
	memset(m, 0, sizeof(*m));
	m->merge_gap = merge_gap;
	m->align = align ? align : 512;
	return 0;
}

uint64_t map_range_planned_bytes(const struct map_range *r, uint64_t offset, uint64_t length)
{
	uint64_t start = offset < r->offset ? r->offset : offset;
	uint64_t end = offset + length;
	uint64_t planned;

	if (end > r->offset + r->length)
		end = r->offset + r->length;
	if (end <= start)
		return 0;
	planned = end - start;
	for (uint32_t i = 0; i < r->nr_gaps; i++) {
		uint64_t gs = r->gaps[i].offset, ge = gs + r->gaps[i].length;

		if (gs < start)
			gs = start;
		if (ge > end)
			ge = end;
		if (ge > gs)
			planned -= ge - gs;
	}
	return planned;
}

int map_merger_add(struct map_merger *m, uint32_t dev_idx, uint64_t offset, uint64_t length,
		   uint32_t tags, struct map_range *out)
{
	uint64_t start = offset - offset % m->align;
	uint64_t end = offset + length;
	struct map_range *p = &m->pending;
	uint64_t pend;

	if (length == 0)
		return 0;
	if (end % m->align)
		end += m->align - end % m->align;
	if (m->have && p->dev_idx == dev_idx) {
		pend = p->offset + p->length;
		if (start <= pend) {
			/* Touching or overlapping (shared extents): extend. */
			if (end > pend)
				p->length = end - p->offset;
			p->tags |= tags;
			return 0;
		}
		if (start - pend <= m->merge_gap && p->nr_gaps < MAP_MAX_GAPS) {
			p->gaps[p->nr_gaps].offset = pend;
			p->gaps[p->nr_gaps].length = start - pend;
			p->nr_gaps++;
			p->length = end - p->offset;
			p->tags |= tags;
			return 0;
		}
	}
	if (m->have) {
		*out = *p;
		m->planned_bytes += map_range_planned_bytes(p, p->offset, p->length);
	}
	memset(p, 0, sizeof(*p));
	p->offset = start;
	p->length = end - start;
	p->dev_idx = dev_idx;
	p->tags = tags;
	if (m->have)
		return 1;
	m->have = 1;
	return 0;
}

int map_merger_flush(struct map_merger *m, struct map_range *out)
{
	if (!m->have)
		return 0;
	*out = m->pending;
	m->planned_bytes += map_range_planned_bytes(&m->pending, m->pending.offset,
						    m->pending.length);
	m->have = 0;
	return 1;
}

struct map_plan {
	struct map_target *t;
	struct map_plan_opts opts;
	unsigned dev_idx;		/* device being planned */
	int dev_started;		/* GETFSMAP keys set up for dev_idx */
	int dev_fsmap_done;		/* no more GETFSMAP records for dev_idx */
	unsigned rec_pos;		/* next unconsumed record in head */
	struct fsmap_head *head;
	struct map_merger merger;
};

static uint64_t default_gap(const struct map_device *d)
{
	return d->info.rotational == 1 ? PLAN_DEFAULT_GAP_ROTATIONAL : 0;
}

/* Start planning device dev_idx. */
static void plan_start_device(struct map_plan *p)
{
	struct map_device *d = &p->t->devices[p->dev_idx];
	uint64_t gap = p->opts.merge_gap == (uint64_t)-1 ? default_gap(d) : p->opts.merge_gap;

	map_merger_init(&p->merger, gap, d->info.logical_block_size);
	p->rec_pos = 0;
	p->head->fmh_entries = 0;
	p->dev_fsmap_done = 0;
	map_fsmap_keys(p->head, (uint32_t)d->info.devt, p->opts.start_offset[p->dev_idx],
		       UINT64_MAX);
	p->dev_started = 1;
}

int map_plan_open(struct map_target *t, const struct map_plan_opts *o, struct map_plan **out)
{
	struct map_plan *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->t = t;
	p->opts = *o;
	p->head = calloc(1, fsmap_sizeof(PLAN_FSMAP_BATCH));
	if (!p->head) {
		free(p);
		return -ENOMEM;
	}
	p->head->fmh_count = PLAN_FSMAP_BATCH;
	*out = p;
	return 0;
}

int map_plan_close(struct map_plan *p)
{
	if (p) {
		free(p->head);
		free(p);
	}
	return 0;
}

/* Emit the whole device (from the resume offset) as ranges. */
static int plan_whole(struct map_plan *p, struct map_range *out)
{
	struct map_device *d = &p->t->devices[p->dev_idx];
	uint64_t start = p->opts.start_offset[p->dev_idx];
	uint32_t lbs = d->info.logical_block_size ? d->info.logical_block_size : 512;

	start -= start % lbs;
	if (start >= d->info.size_bytes)
		return 0;
	memset(out, 0, sizeof(*out));
	out->offset = start;
	out->length = d->info.size_bytes - start;
	out->length -= out->length % lbs;
	out->dev_idx = p->dev_idx;
	out->tags = MAP_TAG_WHOLE;
	p->merger.planned_bytes += out->length;
	return out->length ? 1 : 0;
}

int map_plan_next(struct map_plan *p, struct map_range *out, unsigned max)
{
	unsigned n = 0;
	int ret;

	while (n < max && p->dev_idx < p->t->nr_devices) {
		struct map_device *d = &p->t->devices[p->dev_idx];

		if (d->role == MAP_ROLE_WHOLE) {
			n += plan_whole(p, &out[n]);
			p->dev_idx++;
			p->dev_started = 0;
			continue;
		}
		if (!p->dev_started)
			plan_start_device(p);
		if (p->rec_pos < p->head->fmh_entries) {
			const struct fsmap *rec = &p->head->fmh_recs[p->rec_pos++];
			uint64_t off = rec->fmr_physical, len = rec->fmr_length;
			uint64_t skip = p->opts.start_offset[p->dev_idx];
			uint32_t tags;

			if (rec->fmr_flags & FMR_OF_LAST)
				p->dev_fsmap_done = 1;
			if (rec->fmr_device != (uint32_t)d->info.devt)
				continue;
			tags = map_fsmap_classify(rec);
			if (!tags)
				continue;
			if (off + len <= skip)
				continue;
			if (off < skip) {
				len -= skip - off;
				off = skip;
			}
			n += map_merger_add(&p->merger, p->dev_idx, off, len, tags, &out[n]);
			continue;
		}
		if (!p->dev_fsmap_done) {
			p->rec_pos = 0;
			ret = kio_getfsmap(p->t->mount_fd, p->head);
			if (ret < 0)
				return ret;
			if (ret == 0)
				p->dev_fsmap_done = 1;
			continue;
		}
		n += map_merger_flush(&p->merger, &out[n]);
		p->dev_idx++;
		p->dev_started = 0;
	}
	return (int)n;
}

int map_plan_count(struct map_target *t, const struct map_plan_opts *o, uint64_t *planned_bytes,
		   uint64_t *nr_ranges)
{
	struct map_range *batch;
	struct map_plan *p;
	uint64_t bytes = 0, count = 0;
	int ret;

	batch = malloc(sizeof(*batch) * 256);
	if (!batch)
		return -ENOMEM;
	ret = map_plan_open(t, o, &p);
	if (ret < 0)
		goto out_free;
	while ((ret = map_plan_next(p, batch, 256)) > 0) {
		for (int i = 0; i < ret; i++)
			bytes += map_range_planned_bytes(&batch[i], batch[i].offset,
							 batch[i].length);
		count += (uint64_t)ret;
	}
	map_plan_close(p);
	if (ret == 0) {
		*planned_bytes = bytes;
		if (nr_ranges)
			*nr_ranges = count;
	}
out_free:
	free(batch);
	return ret;
}
