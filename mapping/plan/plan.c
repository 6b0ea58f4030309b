/*
 * mapping/plan/plan.c - the streaming scan plan: GETFSMAP records (or a whole device) become
 * sorted, merged, aligned device ranges, a batch at a time, so memory does not grow with
 * the filesystem. A partitioned disk is planned segment by segment: partitions with a mounted
 * filesystem through its GETFSMAP (offsets shifted by the partition start), everything else
 * (partition table, gaps, other partitions) whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fsmap.h>

#include "fs.h"
#include "fsmap.h"
#include "plan.h"
#include "target.h"

#define PLAN_FSMAP_BATCH 1024

int map_merger_init(struct map_merger *m, uint64_t merge_gap, uint32_t align)
{
	memset(m, 0, sizeof(*m));
	m->merge_gap = merge_gap;
	m->align = align ? align : 512;
	return 0;
}

uint64_t map_range_planned_bytes(const struct map_range *r)
{
	uint64_t planned = r->length;

	for (uint32_t i = 0; i < r->nr_gaps; i++)
		planned -= r->gaps[i].length;
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
		m->planned_bytes += map_range_planned_bytes(p);
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
	m->planned_bytes += map_range_planned_bytes(&m->pending);
	m->have = 0;
	return 1;
}

struct map_plan {
	struct map_target *t;
	struct map_plan_opts opts;
	unsigned dev_idx;		/* device being planned */
	int dev_started;		/* set up for dev_idx */
	struct fsmap_head *head;
	struct map_merger merger;
	/* the GETFSMAP stream of one filesystem device */
	int st_started;
	int st_done;			/* no more records */
	unsigned rec_pos;		/* next unconsumed record in head */
	uint64_t last_end;		/* end of the records seen (filesystem bytes) */
	/* corrupted metadata: after a GETFSMAP error, one query per AG / block group */
	int per_group;
	int64_t grp;			/* group being listed */
	uint64_t grp_end;		/* its end (filesystem bytes) */
	/* partitioned disk */
	unsigned seg;			/* segment being planned */
	uint64_t log_devt;		/* devt of an external log device being planned */
	/* ranges completed but not yet handed out */
	struct map_range q[4];
	unsigned nq, q_pos;
};

static uint64_t default_gap(const struct map_device *d)
{
	return d->info.rotational == 1 ? MAP_DEFAULT_GAP_ROTATIONAL : 0;
}

/* Start planning device dev_idx. */
static void plan_start_device(struct map_plan *p)
{
	struct map_device *d = &p->t->devices[p->dev_idx];
	uint64_t gap = p->opts.merge_gap == (uint64_t)-1 ? default_gap(d) : p->opts.merge_gap;

	map_merger_init(&p->merger, gap, d->info.logical_block_size);
	p->st_started = 0;
	p->seg = 0;
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

/* Queue [off, off+len) of the current device (clipped to the resume offset and hi). */
static void plan_emit(struct map_plan *p, uint64_t off, uint64_t end, uint64_t hi, uint32_t tags)
{
	uint64_t skip = p->opts.start_offset[p->dev_idx];

	if (off < skip)
		off = skip;
	if (end > hi)
		end = hi;
	if (end <= off)
		return;
	p->nq += (unsigned)map_merger_add(&p->merger, p->dev_idx, off, end - off, tags,
					  &p->q[p->nq]);
}

/*
 * A filesystem whose GETFSMAP does not list every allocated byte of its data device (ext4,
 * which also leaves out the allocated tail of some block groups; XFS without rmapbt): there,
 * bytes no record covers are allocated with an unknown owner: plan them.
 */
static int fs_fills_gaps(const struct map_target *fs)
{
	const struct map_fs_ops *ops = map_target_ops(fs);

	return ops->fsmap_flags &&
	       (ops->fsmap_flags(fs, MAP_ROLE_DATA) & MAP_FSMAP_GAPS_ALLOCATED);
}

/*
 * The AG or block group of fs holding filesystem byte pos, below limit: its number and
 * [*gs, *ge). A device without groups (log, realtime) or unknown geometry is one group, -1.
 */
static int64_t plan_group(const struct map_target *fs, int is_data, uint64_t pos, uint64_t limit,
			  uint64_t *gs, uint64_t *ge)
{
	uint64_t gb = fs->fs_group_bytes, first = fs->fs_group_first;
	uint64_t g;

	if (!is_data || !gb) {
		*gs = pos;
		*ge = limit;
		return -1;
	}
	g = pos < first ? 0 : (pos - first) / gb;
	*gs = g ? first + g * gb : 0;
	*ge = first + (g + 1) * gb;
	if (*ge > limit || *ge < *gs)
		*ge = limit;
	return (int64_t)g;
}

/* Start listing the group holding pos (per-group mode): keys [pos, group end). */
static void plan_group_query(struct map_plan *p, const struct map_target *fs, uint32_t devt,
			     int is_data, uint64_t pos, uint64_t limit)
{
	uint64_t gs;

	p->grp = plan_group(fs, is_data, pos, limit, &gs, &p->grp_end);
	p->rec_pos = 0;
	p->head->fmh_entries = 0;
	p->st_done = 0;
	map_fsmap_keys(p->head, devt, pos, p->grp_end - 1);
}

/*
 * GETFSMAP failed with err while listing device devt of fs from p->last_end. The first time,
 * list group by group from there; when one group fails, read it whole (from where its records
 * stopped), say so on the target, and go on with the next. Return 0 or -errno (not local).
 */
static int plan_group_failed(struct map_plan *p, struct map_target *fs,
			     const struct map_device *dev, int is_data, int err, uint64_t shift,
			     uint64_t hi, uint64_t limit)
{
	const struct map_fs_ops *ops = map_target_ops(fs);
	uint32_t devt = (uint32_t)dev->info.devt;
	uint64_t pos = p->last_end, gs, ge;
	char object[48];
	int64_t g;
	int ret;

	if (!map_fsmap_error_local(err) || pos >= limit || limit == UINT64_MAX)
		return err;			/* not local, or nothing bounds a whole read */
	if (is_data && fs->fs_group_bytes && !p->per_group) {
		p->per_group = 1;		/* which group failed? ask them one by one */
		plan_group_query(p, fs, devt, is_data, pos, limit);
		return 0;
	}
	g = p->per_group ? p->grp : plan_group(fs, is_data, pos, limit, &gs, &ge);
	ge = p->per_group ? p->grp_end : ge;
	if (g >= 0)
		snprintf(object, sizeof(object), "%s %lld",
			 ops->group_name ? ops->group_name : "group", (long long)g);
	else
		snprintf(object, sizeof(object), "%s device", map_role_name(dev->role));
	if (p->t != fs && p->seg < p->t->nr_segs && p->t->segs[p->seg].part >= 0) {
		char tmp[48];

		snprintf(tmp, sizeof(tmp), "partition %u %.24s",
			 p->t->parts[p->t->segs[p->seg].part].number, object);
		memcpy(object, tmp, sizeof(object));
	}
	ret = map_target_plan_note(p->t, p->dev_idx, g, object, pos + shift, ge - pos, err);
	if (ret < 0)
		return ret;
	/* What the kernel now says about that group (XFS marks what it found corrupt). */
	if (ops->group_health && g >= 0 && p->t->nr_plan_notes) {
		struct map_plan_note *n = &p->t->plan_notes[p->t->nr_plan_notes - 1];
		uint32_t sick, checked;

		if (n->group == g && n->offset == pos + shift && !n->health_known &&
		    ops->group_health(fs, (uint32_t)g, &sick, &checked) == 0) {
			n->health_known = 1;
			n->ag_sick = sick;
			n->ag_checked = checked;
		}
	}
	plan_emit(p, pos + shift, ge + shift, hi, MAP_TAG_WHOLE);
	p->last_end = ge;
	if (ge < limit && p->per_group) {
		plan_group_query(p, fs, devt, is_data, ge, limit);
	} else {
		p->head->fmh_entries = 0;
		p->rec_pos = 0;
		p->st_done = 1;
	}
	return 0;
}

/*
 * Plan the GETFSMAP records of device devt of filesystem fs, shifted by shift bytes on the
 * device being planned and clipped below hi; at most two ranges are queued per step.
 * Return 1 when the stream is finished, 0 after queueing, -errno.
 */
static int plan_stream(struct map_plan *p, struct map_target *fs, const struct map_device *dev,
		       int gapfill, uint64_t fs_end, uint64_t shift, uint64_t hi)
{
	uint64_t skip = p->opts.start_offset[p->dev_idx];
	uint32_t devt = (uint32_t)dev->info.devt;
	int is_data = devt == (uint32_t)fs->devices[0].info.devt;
	uint64_t limit = is_data ? fs_end : hi == UINT64_MAX ? UINT64_MAX : hi - shift;
	int ret;

	if (!p->st_started) {
		/* XFS lists its external log only to a query from 0 (records are clipped). */
		uint64_t start = skip > shift && devt != (uint32_t)p->log_devt ? skip - shift : 0;

		p->rec_pos = 0;
		p->head->fmh_entries = 0;
		p->st_done = 0;
		p->last_end = start;
		p->per_group = 0;
		map_fsmap_keys(p->head, devt, start, UINT64_MAX);
		p->st_started = 1;
	}
	while (p->nq == 0) {
		if (p->rec_pos < p->head->fmh_entries) {
			const struct fsmap *rec = &p->head->fmh_recs[p->rec_pos++];
			uint64_t rs = rec->fmr_physical, re = rs + rec->fmr_length;
			uint32_t tags;

			if (rec->fmr_flags & FMR_OF_LAST)
				p->st_done = 1;
			if (rec->fmr_device != devt)
				continue;
			if (gapfill && rs > p->last_end)
				plan_emit(p, p->last_end + shift, rs + shift, hi, MAP_TAG_DATA);
			if (re > p->last_end)
				p->last_end = re;
			tags = map_fsmap_classify(rec);
			if (tags)
				plan_emit(p, rs + shift, re + shift, hi, tags);
			continue;
		}
		if (!p->st_done) {
			p->rec_pos = 0;
			ret = kio_getfsmap(fs->mount_fd, p->head);
			if (ret < 0) {
				p->head->fmh_entries = 0;
				ret = plan_group_failed(p, fs, dev, is_data, ret, shift, hi, limit);
				if (ret < 0)
					return ret;
				continue;
			}
			if (ret == 0)
				p->st_done = 1;
			continue;
		}
		if (p->per_group && p->grp_end < limit) {
			/* One group listed: its unlisted tail (gapfill), then the next group. */
			if (gapfill && p->last_end < p->grp_end)
				plan_emit(p, p->last_end + shift, p->grp_end + shift, hi,
					  MAP_TAG_DATA);
			if (p->last_end < p->grp_end)
				p->last_end = p->grp_end;
			plan_group_query(p, fs, devt, is_data, p->grp_end, limit);
			continue;
		}
		if (gapfill && p->last_end < fs_end) {
			plan_emit(p, p->last_end + shift, fs_end + shift, hi, MAP_TAG_DATA);
			p->last_end = fs_end;
			continue;
		}
		return 1;
	}
	return 0;
}

/* Bytes of fs's data device that belong to the filesystem (for the trailing gap). */
static uint64_t fs_data_end(const struct map_target *fs)
{
	uint64_t dev = fs->devices[0].info.size_bytes;

	if (fs->fs_size_bytes && fs->fs_size_bytes < dev)
		return fs->fs_size_bytes;
	return dev;
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

/* Queue more of a partitioned disk; 1 when the disk is done. */
static int plan_disk(struct map_plan *p)
{
	struct map_target *t = p->t;
	int ret;

	while (p->nq == 0 && p->seg < t->nr_segs) {
		const struct map_seg *s = &t->segs[p->seg];
		uint64_t send = s->start + s->length;

		if (s->kind != MAP_SEG_FS) {
			plan_emit(p, s->start, send, send, MAP_TAG_WHOLE);
			p->seg++;
			continue;
		}
		struct map_target *fs = t->parts[s->part].fs;

		ret = plan_stream(p, fs, &fs->devices[0], fs_fills_gaps(fs), fs_data_end(fs),
				  s->start, send);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			p->seg++;
			p->st_started = 0;
		}
	}
	return p->nq == 0 && p->seg >= t->nr_segs;
}

int map_plan_next(struct map_plan *p, struct map_range *out, unsigned max)
{
	unsigned n = 0;
	int ret;

	while (n < max) {
		struct map_device *d;

		if (p->q_pos < p->nq) {		/* hand out what is queued */
			out[n++] = p->q[p->q_pos++];
			continue;
		}
		p->nq = p->q_pos = 0;
		if (p->dev_idx >= p->t->nr_devices)
			break;
		d = &p->t->devices[p->dev_idx];
		if (d->role == MAP_ROLE_WHOLE || (d->role == MAP_ROLE_DISK && !p->t->nr_segs)) {
			n += plan_whole(p, &out[n]);
			p->dev_idx++;
			p->dev_started = 0;
			continue;
		}
		if (!p->dev_started)
			plan_start_device(p);
		p->log_devt = d->role == MAP_ROLE_LOG ? d->info.devt : 0;
		if (d->role == MAP_ROLE_DISK)
			ret = plan_disk(p);
		else
			ret = plan_stream(p, p->t, d,
					  d->role == MAP_ROLE_DATA && fs_fills_gaps(p->t),
					  fs_data_end(p->t), 0,
					  /* never past the device: ext4 reports its external
					   * journal one block beyond the end of a journal_dev */
					  d->info.size_bytes ? d->info.size_bytes : UINT64_MAX);
		if (ret < 0)
			return ret;
		if (ret == 1) {			/* device finished: its last range */
			p->nq += (unsigned)map_merger_flush(&p->merger, &p->q[p->nq]);
			p->dev_idx++;
			p->dev_started = 0;
			p->st_started = 0;
		}
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
			bytes += map_range_planned_bytes(&batch[i]);
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
