/*
 * mapping/damage/damage_index.c - the owner index stage: the owners of what GETFSMAP left
 * "unknown" (ext4, XFS without rmapbt), found by each filesystem's index over the pending
 * ranges, one device space at a time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "fs.h"
#include "health.h"

#include "damage_int.h"

/* ---- the owner index: what GETFSMAP left "unknown" ---- */

static const char *const NOTE_OTHER =
	"allocated, owner not found: on the external log device, which holds only the log";
static const char *const NOTE_NOMAP =
	"owner not found: the kernel cannot read the space map (GETFSMAP) of this part, so the "
	"plan read it whole; no inode maps this block: free space, or metadata of that part";
static const char *const NOTE_FAILED =
	"allocated, owner not found: the owner index could not be built (see notes)";

static int cmp_query(const void *a, const void *b)
{
	const struct map_ix_query *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_hit_start(const void *a, const void *b)
{
	const struct map_ix_hit *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->o.inode < y->o.inode ? -1 : x->o.inode > y->o.inode;
}

/* The index's answer for one filesystem. */
struct fs_hits {
	uint32_t fs_idx;
	int space;			/* SPACE_*: the device the offsets are on */
	int failed;
	struct map_ix_hits h;
	uint64_t max_len;		/* longest hit: bound for the search */
	const char *note;		/* what leftovers can be */
};

/* Build the index of one filesystem over the pending ranges it holds on one device. */
static int index_fs(struct map_damage *d, struct map_target *t, struct fs_hits *fh)
{
	struct map_target *fs = map_target_fs(t, fh->fs_idx);
	struct map_ix_query *q;
	size_t nq = 0, w = 0;
	char why[160] = "";
	int ret;

	q = malloc(sizeof(*q) * (d->nr_owners + 1));
	if (!q)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];

		if ((o->flags & MAP_OWNF_PENDING) && o->fs_idx == fh->fs_idx &&
		    map_damage_owner_space(t, o) == fh->space)
			q[nq++] = (struct map_ix_query){ o->fs_offset, o->fs_offset + o->length };
	}
	qsort(q, nq, sizeof(*q), cmp_query);
	for (size_t i = 0; i < nq; i++) {	/* merge into disjoint queries */
		if (w && q[i].start <= q[w - 1].end) {
			if (q[i].end > q[w - 1].end)
				q[w - 1].end = q[i].end;
			continue;
		}
		q[w++] = q[i];
	}
	nq = w;
	if (fh->space == SPACE_OTHER || !map_target_ops(fs)->index_owners) {
		fh->note = NOTE_OTHER;
		ret = 0;
	} else {
		ret = map_target_ops(fs)->index_owners(fs, fh->space == SPACE_RT, q, nq, &fh->h, d,
						       &fh->note, why, sizeof(why));
	}
	free(q);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		fh->failed = 1;
		fh->note = NOTE_FAILED;
		d->notes |= MAP_NOTE_INDEX_FAILED;
		snprintf(d->index_err, sizeof(d->index_err), "%.60s: %s", fs->mount_point,
			 why[0] ? why : strerror(-ret));
		fh->h.nr = 0;
	}
	if (fh->h.nr)
		qsort(fh->h.v, fh->h.nr, sizeof(*fh->h.v), cmp_hit_start);
	for (size_t i = 0; i < fh->h.nr; i++)
		if (fh->h.v[i].end - fh->h.v[i].start > fh->max_len)
			fh->max_len = fh->h.v[i].end - fh->h.v[i].start;
	return 0;
}

/* Replace pending owner o by what the index found for it (and leftovers). */
static int expand_pending(const struct map_target *t, const struct map_owner *o,
			  const struct fs_hits *fh, struct map_owner **v, size_t *nr, size_t *cap)
{
	const struct map_target *fs = map_target_fs((struct map_target *)t, o->fs_idx);
	const struct map_fs_ops *ops = fs ? map_target_ops(fs) : NULL;
	uint64_t os = o->fs_offset, oe = o->fs_offset + o->length, covered = os;
	uint64_t *cuts = NULL;
	size_t lo = 0, hi = fh->h.nr, ncut = 0;
	int ret = 0;

	/* First hit that may reach os: start >= os - max_len. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fh->h.v[mid].start + fh->max_len <= os)
			lo = mid + 1;
		else
			hi = mid;
	}
	cuts = malloc(sizeof(*cuts) * 2 * (fh->h.nr - lo + 1));
	if (!cuts)
		return -ENOMEM;
	for (size_t i = lo; i < fh->h.nr && fh->h.v[i].start < oe; i++) {
		const struct map_ix_hit *h = &fh->h.v[i];
		uint64_t s = h->start > os ? h->start : os, e = h->end < oe ? h->end : oe;
		struct map_owner n;

		if (e <= s)
			continue;
		n = h->o;
		n.dev_idx = o->dev_idx;
		n.fs_idx = o->fs_idx;
		n.part = o->part;
		n.fs_offset = s;
		n.dev_offset = o->dev_offset + (s - os);
		n.length = e - s;
		n.flags &= ~MAP_OWNF_PENDING;
		n.file_offset = h->o.file_offset + (s - h->start);
		if (ops && ops->group_of && n.ag < 0)
			n.ag = ops->group_of(fs, s);
		ret = map_damage_owners_append(v, nr, cap, &n);
		if (ret < 0)
			goto out_free;
		cuts[ncut++] = s;
		cuts[ncut++] = e;
	}
	/* What no hit covers: allocated, owner not found. */
	{
		struct map_ix_query *iv = malloc(sizeof(*iv) * (ncut / 2 + 1));

		if (!iv) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (size_t k = 0; k < ncut / 2; k++)
			iv[k] = (struct map_ix_query){ cuts[2 * k], cuts[2 * k + 1] };
		qsort(iv, ncut / 2, sizeof(*iv), cmp_query);
		for (size_t k = 0; k <= ncut / 2 && ret == 0; k++) {
			uint64_t next = k < ncut / 2 ? iv[k].start : oe;

			if (next > covered) {
				struct map_owner u = *o;

				u.flags &= ~MAP_OWNF_PENDING;
				u.fs_offset = covered;
				u.dev_offset = o->dev_offset + (covered - os);
				u.length = next - covered;
				u.note = (o->flags & MAP_OWNF_NOMAP) && !fh->failed ? NOTE_NOMAP :
					 fh->note;
				ret = map_damage_owners_append(v, nr, cap, &u);
			}
			if (k < ncut / 2 && iv[k].end > covered)
				covered = iv[k].end;
		}
		free(iv);
	}
out_free:
	free(cuts);
	return ret;
}

/* Find the owners GETFSMAP left pending, one index per filesystem, and rebuild the groups. */
int map_damage_index_pending(struct map_damage *d, struct map_target *t)
{
	struct fs_hits *fhs = NULL;
	size_t nfs = 0, nr = 0, cap = 0;
	struct map_owner *v = NULL;
	int ret = 0;

	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];
		size_t k;

		if (!(o->flags & MAP_OWNF_PENDING) || !map_target_fs(t, o->fs_idx))
			continue;
		for (k = 0; k < nfs; k++)
			if (fhs[k].fs_idx == o->fs_idx && fhs[k].space == map_damage_owner_space(t, o))
				break;
		if (k == nfs) {
			struct fs_hits *n = realloc(fhs, sizeof(*n) * (nfs + 1));

			if (!n) {
				ret = -ENOMEM;
				goto out_free;
			}
			fhs = n;
			memset(&fhs[nfs], 0, sizeof(fhs[nfs]));
			fhs[nfs].space = map_damage_owner_space(t, o);
			fhs[nfs++].fs_idx = o->fs_idx;
		}
	}
	if (!nfs)
		return 0;
	for (size_t k = 0; k < nfs; k++) {
		ret = index_fs(d, t, &fhs[k]);
		if (ret < 0)
			goto out_free;
	}
	/* Rebuild the owners group by group, pending ones replaced by the index's answer. */
	for (size_t g = 0; g < d->nr_groups; g++) {
		size_t first = nr;

		for (size_t i = d->groups[g].first;
		     i < d->groups[g].first + d->groups[g].count; i++) {
			const struct map_owner *o = &d->owners[i];
			size_t k;

			for (k = 0; k < nfs; k++)
				if ((o->flags & MAP_OWNF_PENDING) && fhs[k].fs_idx == o->fs_idx &&
				    fhs[k].space == map_damage_owner_space(t, o))
					break;
			ret = k < nfs ? expand_pending(t, o, &fhs[k], &v, &nr, &cap) :
					map_damage_owners_append(&v, &nr, &cap, o);
			if (ret < 0)
				goto out_free;
		}
		d->groups[g].first = first;
		d->groups[g].count = nr - first;
	}
	map_damage_owners_install(d, &v, nr);
out_free:
	free(v);
	for (size_t k = 0; k < nfs; k++)
		free(fhs[k].h.v);
	free(fhs);
	return ret;
}
