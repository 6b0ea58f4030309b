/*
 * mapping/owners/owners.c - owners of bad device ranges through GETFSMAP (reverse mapping), split
 * by partition on a partitioned disk. What GETFSMAP cannot name (ext4 file data, XFS without
 * rmapbt: the filesystem's ops say, fs.h) is marked pending here and found by the owner index
 * in damage.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fsmap.h>

#include "fs.h"
#include "fsmap.h"
#include "owners.h"

#define OWNERS_BATCH 128

int map_owners_push(struct map_owner **owners, size_t *nr, const struct map_owner *o)
{
	struct map_owner *n;

	if ((*nr & (*nr - 1)) == 0) {	/* grow at powers of two */
		n = realloc(*owners, sizeof(*n) * (*nr ? *nr * 2 : 4));
		if (!n)
			return -ENOMEM;
		*owners = n;
	}
	(*owners)[(*nr)++] = *o;
	return 0;
}

/* What the filesystem's GETFSMAP leaves to the owner index on device dev_idx (MAP_FSMAP_*). */
static uint32_t dev_fsmap_flags(const struct map_target *t, uint32_t dev_idx)
{
	const struct map_fs_ops *ops = map_target_ops(t);

	return ops->fsmap_flags ? ops->fsmap_flags(t, t->devices[dev_idx].role) : 0;
}

/* Turn one fsmap record, clipped to [start, end), into an owner. */
static void owner_from_rec(const struct map_target *t, uint32_t dev_idx, const struct fsmap *rec,
			   uint64_t start, uint64_t end, struct map_owner *o)
{
	const struct map_fs_ops *ops = map_target_ops(t);
	const char *special = ops->special_name ? ops->special_name(rec) :
			      map_fsmap_special_name(rec);

	memset(o, 0, sizeof(*o));
	o->dev_idx = dev_idx;
	o->dev_offset = start;
	o->fs_offset = start;
	o->length = end - start;
	o->ag = -1;
	if (ops->group_of && t->devices[dev_idx].role == MAP_ROLE_DATA)
		o->ag = ops->group_of(t, start);
	if (rec->fmr_flags & FMR_OF_SHARED)
		o->flags |= MAP_OWNF_SHARED;
	if (special) {
		o->meta_type = special;
		if (strcmp(special, "free") == 0)
			o->kind = MAP_OWN_FREE;
		else if (strcmp(special, "unknown") == 0) {
			o->kind = MAP_OWN_UNKNOWN;
			/* ext4 file data, XFS without rmapbt, XFS realtime data (no rt rmap): the
			 * owner index will tell. */
			if (dev_fsmap_flags(t, dev_idx) & MAP_FSMAP_UNKNOWN_INDEXED)
				o->flags |= MAP_OWNF_PENDING;
		}
		else if (strcmp(special, "log") == 0)
			o->kind = MAP_OWN_LOG;
		else
			o->kind = MAP_OWN_METADATA;
		return;
	}
	o->inode = rec->fmr_owner;
	if (rec->fmr_flags & FMR_OF_EXTENT_MAP) {
		o->kind = MAP_OWN_METADATA;
		o->flags |= MAP_OWNF_BMBT;
		o->meta_type = "bmbt";
		return;
	}
	o->kind = MAP_OWN_FILE;
	o->file_offset = rec->fmr_offset + (start - rec->fmr_physical);
	if (rec->fmr_flags & FMR_OF_ATTR_FORK)
		o->flags |= MAP_OWNF_ATTR_FORK;
	if (rec->fmr_flags & FMR_OF_PREALLOC)
		o->flags |= MAP_OWNF_UNWRITTEN;
}

/* One owner for a raw device area (no filesystem, a gap, a partition read whole). */
static int push_device(struct map_owner **owners, size_t *nr, uint32_t dev_idx, uint64_t offset,
		       uint64_t length, enum map_owner_kind kind, const char *what, uint32_t part)
{
	struct map_owner o;
	int ret;

	memset(&o, 0, sizeof(o));
	o.kind = kind;
	o.dev_idx = dev_idx;
	o.dev_offset = offset;
	o.fs_offset = offset;
	o.length = length;
	o.ag = -1;
	o.meta_type = what;
	o.part = part;
	ret = map_owners_push(owners, nr, &o);
	return ret < 0 ? ret : 1;
}

/*
 * ext4 (which leaves the allocated tail of some block groups out of its GETFSMAP listing)
 * and XFS without rmapbt report allocated space as gaps or "unknown" records: on their data
 * device, bytes no record covers are allocated, owner to be found by the index.
 */
static int dev_fills_gaps(const struct map_target *t, uint32_t dev_idx)
{
	return !!(dev_fsmap_flags(t, dev_idx) & MAP_FSMAP_GAPS_ALLOCATED);
}

/* Push src[0..n) (sorted by dev_offset) for range [off, end), with the gaps between them
 * as unknown owners when gapfill (2: because the space map there cannot be read). */
static int push_with_gaps(struct map_target *t, uint32_t dev_idx, uint64_t off, uint64_t end,
			  const struct map_owner *src, size_t n, int gapfill,
			  struct map_owner **owners, size_t *nr)
{
	uint64_t covered = off;
	struct map_owner g;
	int ret;

	memset(&g, 0, sizeof(g));
	g.kind = MAP_OWN_UNKNOWN;
	g.meta_type = "unknown";
	g.flags = MAP_OWNF_PENDING | (gapfill == 2 ? MAP_OWNF_NOMAP : 0);
	g.dev_idx = dev_idx;
	g.ag = -1;
	(void)t;
	for (size_t k = 0; k <= n; k++) {
		uint64_t s = k < n ? src[k].dev_offset : end;

		if (gapfill && s > covered) {
			g.dev_offset = g.fs_offset = covered;
			g.length = s - covered;
			ret = map_owners_push(owners, nr, &g);
			if (ret < 0)
				return ret;
		}
		if (k == n)
			break;
		ret = map_owners_push(owners, nr, &src[k]);
		if (ret < 0)
			return ret;
		if (src[k].dev_offset + src[k].length > covered)
			covered = src[k].dev_offset + src[k].length;
	}
	return 0;
}

/*
 * Set head's keys to the records of device d overlapping [start, end) (callers clip them).
 * XFS reports its external log only to a query that starts at 0: ask from there. Its
 * realtime device answers from the rt bitmap in whole blocks and reports the allocated
 * stretch before the next free extent only when the query reaches past the block holding
 * the range's end (Linux 6.1: a one-sector query in allocated space returns nothing): widen
 * the query to whole blocks plus one.
 */
static void query_keys(const struct map_target *t, const struct map_device *d,
		       struct fsmap_head *head, uint64_t start, uint64_t end)
{
	uint64_t bs = t->fs_block_size;		/* only XFS has a realtime device */

	if (d->role == MAP_ROLE_LOG)
		start = 0;
	if (d->role == MAP_ROLE_RT && bs) {
		start -= start % bs;
		end = (end + bs - 1) / bs * bs + bs;
	}
	map_fsmap_keys(head, (uint32_t)d->info.devt, start, end - 1);
}

/* Owners through GETFSMAP of a mounted filesystem's device. */
static int lookup_fsmap(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
			struct map_owner **owners, size_t *nr)
{
	struct map_device *d = &t->devices[dev_idx];
	uint64_t end = offset + length;
	struct fsmap_head *head;
	struct map_owner o, *found = NULL;
	size_t nfound = 0, before = *nr;
	int ret, gapfill;

	head = calloc(1, fsmap_sizeof(OWNERS_BATCH));
	if (!head)
		return -ENOMEM;
	head->fmh_count = OWNERS_BATCH;
	query_keys(t, d, head, offset, end);
	for (;;) {
		ret = kio_getfsmap(t->mount_fd, head);
		if (ret <= 0)
			break;
		for (int i = 0; i < ret; i++) {
			const struct fsmap *rec = &head->fmh_recs[i];
			uint64_t rs = rec->fmr_physical, re = rs + rec->fmr_length;

			if (rec->fmr_device != (uint32_t)d->info.devt)
				continue;
			if (rs < offset)
				rs = offset;
			if (re > end)
				re = end;
			if (re <= rs)
				continue;
			owner_from_rec(t, dev_idx, rec, rs, re, &o);
			if (map_owners_push(&found, &nfound, &o) < 0) {
				ret = -ENOMEM;
				goto out_free;
			}
		}
		if (head->fmh_recs[ret - 1].fmr_flags & FMR_OF_LAST)
			break;
	}
	/* The space map of this part cannot be read: what no record covers is allocated,
	 * its owner left to the owner index. */
	gapfill = dev_fills_gaps(t, dev_idx);
	if (ret < 0 && map_fsmap_error_local(ret)) {
		gapfill = 2;
		ret = 0;
	}
	if (ret >= 0)
		ret = push_with_gaps(t, dev_idx, offset, end, found, nfound, gapfill, owners, nr);
out_free:
	free(found);
	free(head);
	return ret < 0 ? ret : (int)(*nr - before);
}

/* Owners on a partitioned disk: segment by segment, through each partition's filesystem. */
static int lookup_disk(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		       struct map_owner **owners, size_t *nr)
{
	uint64_t end = offset + length, pos = offset;
	int added = 0, ret;

	while (pos < end) {
		const struct map_seg *s = map_target_seg(t, pos);
		uint64_t se, piece;
		const struct map_part *p;

		if (!s) {			/* past the last segment (beyond the disk) */
			ret = push_device(owners, nr, dev_idx, pos, end - pos, MAP_OWN_DEVICE,
					  "device", 0);
			return ret < 0 ? ret : added + ret;
		}
		se = s->start + s->length;
		piece = (se < end ? se : end) - pos;
		p = s->part >= 0 ? &t->parts[s->part] : NULL;
		switch (s->kind) {
		case MAP_SEG_TABLE:
			ret = push_device(owners, nr, dev_idx, pos, piece, MAP_OWN_METADATA,
					  "partition-table", 0);
			break;
		case MAP_SEG_GAP:
			ret = push_device(owners, nr, dev_idx, pos, piece, MAP_OWN_DEVICE,
					  "partition-gap", 0);
			break;
		case MAP_SEG_PART:
			if (!p->fs) {
				ret = push_device(owners, nr, dev_idx, pos, piece, MAP_OWN_DEVICE,
						  "partition", p->number);
				break;
			}
			/* An unmounted ext4 read from the raw device names them. */
			/* fallthrough */
		case MAP_SEG_FS: {
			size_t before = *nr;

			ret = map_owners_lookup(p->fs, 0, pos - s->start, piece, owners, nr);
			for (size_t k = before; ret >= 0 && k < *nr; k++) {
				struct map_owner *o = &(*owners)[k];

				o->dev_idx = dev_idx;
				o->dev_offset = o->fs_offset + s->start;
				o->part = p->number;
				o->fs_idx = (uint32_t)s->part + 1;
			}
			break;
		}
		default:
			ret = 0;
		}
		if (ret < 0)
			return ret;
		added += ret;
		pos += piece;
	}
	return added;
}

/*
 * Bytes of a filesystem's data device that the filesystem does not use: its first 1 KiB on
 * ext4 with 1 KiB blocks (the boot block: the superblock starts at 1024), and everything past
 * the filesystem's end on a device larger than it. GETFSMAP lists neither; they are not
 * allocated space of unknown owner. Return the end of the boot block (0 when none) and set
 * *fs_end to where the filesystem ends (UINT64_MAX when unknown).
 */
static uint64_t data_dev_unused(const struct map_target *t, uint32_t dev_idx, uint64_t *fs_end)
{
	*fs_end = UINT64_MAX;
	if (t->devices[dev_idx].role != MAP_ROLE_DATA)
		return 0;
	if (t->fs_size_bytes)
		*fs_end = t->fs_size_bytes;
	return strcmp(t->fs_type, "ext4") == 0 && t->fs_block_size == 1024 ? 1024 : 0;
}

/* Return 1 when [offset, offset+length) touches bytes data_dev_unused() names. */
static int touches_unused(const struct map_target *t, uint32_t dev_idx, uint64_t offset,
			  uint64_t length)
{
	uint64_t fs_end, boot = data_dev_unused(t, dev_idx, &fs_end);

	return length && (offset < boot || offset + length > fs_end);
}

int map_owners_lookup(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr)
{
	struct map_device *d = &t->devices[dev_idx];
	uint64_t fs_end, boot, end = offset + length;
	int ret, added = 0;

	if (length == 0)
		return 0;
	/* Not mounted (MAP_FSC_RAW): no GETFSMAP; the filesystem read from the device says. */
	if (map_target_ops(t)->owners)
		return map_target_ops(t)->owners(t, dev_idx, offset, length, owners, nr);
	if (d->role == MAP_ROLE_DISK && t->nr_segs)
		return lookup_disk(t, dev_idx, offset, length, owners, nr);
	if (d->role == MAP_ROLE_WHOLE || d->role == MAP_ROLE_DISK || t->mount_fd < 0)
		return push_device(owners, nr, dev_idx, offset, length, MAP_OWN_DEVICE,
				   t->self_part ? "partition" : "device", t->self_part);
	boot = data_dev_unused(t, dev_idx, &fs_end);
	if (offset < boot) {
		uint64_t piece = (end < boot ? end : boot) - offset;

		ret = push_device(owners, nr, dev_idx, offset, piece, MAP_OWN_DEVICE,
				  "boot-block", t->self_part);
		if (ret < 0)
			return ret;
		added += ret;
		offset += piece;
	}
	if (offset < end && offset < fs_end) {
		ret = lookup_fsmap(t, dev_idx, offset, (end < fs_end ? end : fs_end) - offset,
				   owners, nr);
		if (ret < 0)
			return ret;
		added += ret;
	}
	if (end > fs_end) {
		uint64_t from = offset > fs_end ? offset : fs_end;

		ret = push_device(owners, nr, dev_idx, from, end - from, MAP_OWN_DEVICE,
				  "outside-filesystem", t->self_part);
		if (ret < 0)
			return ret;
		added += ret;
	}
	return added;
}

/* ---- many ranges at once: GETFSMAP over clusters of nearby ranges ---- */

#define MANY_CLUSTER_GAP (256ull << 20)	/* ranges further apart start a new query */
#define MANY_BATCH 1024

struct many_pair {
	size_t range;			/* index of the input range */
	struct map_owner o;
};

static int cmp_idx_off(const void *a, const void *b, void *arg)
{
	const uint64_t *off = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (off[x] != off[y])
		return off[x] < off[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct many_pair *x = a, *y = b;

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	return x->o.dev_offset < y->o.dev_offset ? -1 : x->o.dev_offset > y->o.dev_offset;
}

static int pairs_push(struct many_pair **v, size_t *nr, size_t *cap, size_t range,
		      const struct map_owner *o)
{
	if (*nr == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct many_pair *n = realloc(*v, sizeof(*n) * c);

		if (!n)
			return -ENOMEM;
		*v = n;
		*cap = c;
	}
	(*v)[*nr].range = range;
	(*v)[*nr].o = *o;
	(*nr)++;
	return 0;
}

/* One GETFSMAP pass over [ord[a..b)] (sorted by offset): owners of each range. */
static int many_cluster(struct map_target *t, uint32_t dev_idx, const uint64_t *off,
			const uint64_t *len, const size_t *ord, size_t a, size_t b,
			struct fsmap_head *head, struct many_pair **v, size_t *nr, size_t *cap)
{
	struct map_device *d = &t->devices[dev_idx];
	uint64_t cend = 0;
	size_t p = a;
	int ret;

	for (size_t i = a; i < b; i++)
		if (off[ord[i]] + len[ord[i]] > cend)
			cend = off[ord[i]] + len[ord[i]];
	query_keys(t, d, head, off[ord[a]], cend);
	for (;;) {
		ret = kio_getfsmap(t->mount_fd, head);
		if (ret <= 0)
			return ret;
		for (int r = 0; r < ret; r++) {
			const struct fsmap *rec = &head->fmh_recs[r];
			uint64_t rs = rec->fmr_physical, re = rs + rec->fmr_length;

			if (rec->fmr_device != (uint32_t)d->info.devt)
				continue;
			/* ranges wholly before this record are done (records come by start) */
			while (p < b && off[ord[p]] + len[ord[p]] <= rs)
				p++;
			for (size_t i = p; i < b && off[ord[i]] < re; i++) {
				uint64_t s = off[ord[i]] > rs ? off[ord[i]] : rs;
				uint64_t e = off[ord[i]] + len[ord[i]] < re ? off[ord[i]] + len[ord[i]] :
					     re;
				struct map_owner o;

				if (e <= s)
					continue;
				owner_from_rec(t, dev_idx, rec, s, e, &o);
				if (pairs_push(v, nr, cap, ord[i], &o) < 0)
					return -ENOMEM;
			}
		}
		if (head->fmh_recs[ret - 1].fmr_flags & FMR_OF_LAST)
			return 0;
	}
}

int map_owners_lookup_many(struct map_target *t, uint32_t dev_idx, const uint64_t *off,
			   const uint64_t *len, size_t n, struct map_owner **owners, size_t *nr,
			   size_t *first, size_t *count)
{
	struct map_device *d = &t->devices[dev_idx];
	struct many_pair *v = NULL;
	size_t nv = 0, cap = 0, *ord = NULL;
	struct fsmap_head *head = NULL;
	unsigned char *failed = NULL;	/* range i: its space map could not be read */
	int ret = 0;

	int unused = 0;

	for (size_t i = 0; i < n && !unused; i++)
		unused = touches_unused(t, dev_idx, off[i], len[i]);
	/* a device, or ranges outside the filesystem: one range at a time */
	if (d->role == MAP_ROLE_WHOLE || d->role == MAP_ROLE_DISK || t->mount_fd < 0 || unused) {
		for (size_t i = 0; i < n; i++) {
			first[i] = *nr;
			ret = map_owners_lookup(t, dev_idx, off[i], len[i], owners, nr);
			count[i] = *nr - first[i];
			if (ret < 0)
				return ret;
		}
		return 0;
	}
	ord = malloc(sizeof(*ord) * (n + 1));
	failed = calloc(n + 1, 1);
	head = calloc(1, fsmap_sizeof(MANY_BATCH));
	if (!ord || !head || !failed) {
		ret = -ENOMEM;
		goto out_free;
	}
	head->fmh_count = MANY_BATCH;
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), cmp_idx_off, (void *)off);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		uint64_t end = off[ord[a]] + len[ord[a]];

		while (b < n && off[ord[b]] <= end + MANY_CLUSTER_GAP) {
			if (off[ord[b]] + len[ord[b]] > end)
				end = off[ord[b]] + len[ord[b]];
			b++;
		}
		while (a < b && len[ord[a]] == 0)
			a++;
		if (a < b) {
			size_t nv0 = nv;

			ret = many_cluster(t, dev_idx, off, len, ord, a, b, head, &v, &nv, &cap);
			/* A corrupt part of the space map: range by range, so only the ranges
			 * in that part are left to the owner index. */
			if (ret < 0 && map_fsmap_error_local(ret)) {
				nv = nv0;
				ret = 0;
				for (size_t i = a; i < b && ret >= 0; i++) {
					size_t nvi = nv;

					if (len[ord[i]] == 0)
						continue;
					ret = many_cluster(t, dev_idx, off, len, ord, i, i + 1,
							   head, &v, &nv, &cap);
					if (ret < 0 && map_fsmap_error_local(ret)) {
						nv = nvi;
						failed[ord[i]] = 1;
						ret = 0;
					}
				}
			}
			if (ret < 0)
				goto out_free;
		}
		a = b;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_pair);
	{
		struct map_owner *tmp = NULL;
		size_t ntmp = 0;

		for (size_t i = 0, k = 0; i < n; i++) {
			first[i] = *nr;
			ntmp = 0;
			for (; k < nv && v[k].range == i; k++) {
				ret = map_owners_push(&tmp, &ntmp, &v[k].o);
				if (ret < 0)
					break;
			}
			if (ret >= 0 && len[i])
				ret = push_with_gaps(t, dev_idx, off[i], off[i] + len[i], tmp, ntmp,
						     failed[i] ? 2 : dev_fills_gaps(t, dev_idx),
						     owners, nr);
			if (ret < 0) {
				free(tmp);
				goto out_free;
			}
			count[i] = *nr - first[i];
		}
		free(tmp);
	}
	ret = 0;
out_free:
	free(failed);
	free(v);
	free(ord);
	free(head);
	return ret;
}
