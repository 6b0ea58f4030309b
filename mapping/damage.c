/*
 * mapping/damage.c - from bad ranges to what was lost: the owners GETFSMAP named, the owners
 * the owner index finds where GETFSMAP cannot (ext4, XFS without rmapbt), every path of
 * every owning inode (parent pointers, else one walk per filesystem), the health XFS keeps
 * and its online scrub verdicts, grouped into damaged files and damaged metadata.
 *
 * What differs between filesystems (which index, how inodes are named, inode tables) is asked
 * of each filesystem's ops table (fs.h).
 *
 * Over 600 lines for now: grouping owners into damaged files and metadata and the resolve
 * passes (index, names, inode tables) work on one owner table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "fs.h"
#include "health.h"

int map_damage_add_many(struct map_damage *d, struct map_target *t, uint32_t dev_idx,
			const uint64_t *off, const uint64_t *len, size_t n)
{
	size_t *first = malloc(sizeof(*first) * (n + 1)), *count = malloc(sizeof(*count) * (n + 1));
	struct map_damage_group *g;
	int ret = -ENOMEM;

	if (!first || !count)
		goto out_free;
	g = realloc(d->groups, sizeof(*g) * (d->nr_groups + n + 1));
	if (!g)
		goto out_free;
	d->groups = g;
	ret = map_owners_lookup_many(t, dev_idx, off, len, n, &d->owners, &d->nr_owners, first,
				     count);
	for (size_t i = 0; i < n; i++)
		g[d->nr_groups++] = (struct map_damage_group){
			.first = ret < 0 ? d->nr_owners : first[i], .count = ret < 0 ? 0 : count[i] };
out_free:
	free(first);
	free(count);
	return ret;
}

int map_damage_group(const struct map_damage *d, size_t g, size_t *first, size_t *count)
{
	if (g >= d->nr_groups)
		return -ENOENT;
	*first = d->groups[g].first;
	*count = d->groups[g].count;
	return 0;
}

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

static int owners_append(struct map_owner **v, size_t *nr, size_t *cap, const struct map_owner *o)
{
	if (*nr == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct map_owner *n = realloc(*v, sizeof(*n) * c);

		if (!n)
			return -ENOMEM;
		*v = n;
		*cap = c;
	}
	(*v)[(*nr)++] = *o;
	return 0;
}

/*
 * Which offset space a pending owner's range is in: the data device, the XFS realtime
 * device, or another (an external log: nothing to index there). Offsets of different
 * devices must never meet in one index.
 */
enum { SPACE_DATA, SPACE_RT, SPACE_OTHER };

static int owner_space(const struct map_target *t, const struct map_owner *o)
{
	if (o->dev_idx >= t->nr_devices)
		return SPACE_DATA;
	switch (t->devices[o->dev_idx].role) {
	case MAP_ROLE_RT:
		return SPACE_RT;
	case MAP_ROLE_LOG:
		return SPACE_OTHER;
	default:
		return SPACE_DATA;
	}
}

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
		    owner_space(t, o) == fh->space)
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
		ret = owners_append(v, nr, cap, &n);
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
				ret = owners_append(v, nr, cap, &u);
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
static int resolve_pending(struct map_damage *d, struct map_target *t)
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
			if (fhs[k].fs_idx == o->fs_idx && fhs[k].space == owner_space(t, o))
				break;
		if (k == nfs) {
			struct fs_hits *n = realloc(fhs, sizeof(*n) * (nfs + 1));

			if (!n) {
				ret = -ENOMEM;
				goto out_free;
			}
			fhs = n;
			memset(&fhs[nfs], 0, sizeof(fhs[nfs]));
			fhs[nfs].space = owner_space(t, o);
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
				    fhs[k].space == owner_space(t, o))
					break;
			ret = k < nfs ? expand_pending(t, o, &fhs[k], &v, &nr, &cap) :
					owners_append(&v, &nr, &cap, o);
			if (ret < 0)
				goto out_free;
		}
		d->groups[g].first = first;
		d->groups[g].count = nr - first;
	}
	free(d->owners);
	d->owners = v;
	d->nr_owners = nr;
	v = NULL;
out_free:
	free(v);
	for (size_t k = 0; k < nfs; k++)
		free(fhs[k].h.v);
	free(fhs);
	return ret;
}

/* ---- inodes to paths ---- */

static int cmp_inode_fs(const void *a, const void *b)
{
	const struct map_inode_paths *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->fs_idx < y->fs_idx ? -1 : x->fs_idx > y->fs_idx;
}

const struct map_inode_paths *map_damage_paths_fs(const struct map_damage *d, uint32_t fs_idx,
						  uint64_t inode)
{
	size_t lo = 0, hi = d->nr_inodes;

	while (lo < hi) {			/* lower bound of inode */
		size_t mid = (lo + hi) / 2;

		if (d->inodes[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->nr_inodes && d->inodes[lo].inode == inode; lo++)
		if (d->inodes[lo].fs_idx == fs_idx)
			return &d->inodes[lo];
	return NULL;
}

const struct map_inode_paths *map_damage_paths(const struct map_damage *d, uint64_t inode)
{
	size_t lo = 0, hi = d->nr_inodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->inodes[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_inodes && d->inodes[lo].inode == inode ? &d->inodes[lo] : NULL;
}

struct want_key {
	uint32_t fs_idx;
	uint64_t inode;
	uint32_t gen;
	int unlinked;
};

static int cmp_want_key(const void *a, const void *b)
{
	const struct want_key *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->fs_idx < y->fs_idx ? -1 : x->fs_idx > y->fs_idx;
}

/* Name the inodes of one filesystem, its own way (parent pointers), else by one walk. */
static int name_fs(struct map_damage *d, struct map_target *fs, uint32_t fs_idx)
{
	struct map_inode_paths *sub;
	size_t n = 0, k = 0;
	int ret;

	for (size_t i = 0; i < d->nr_inodes; i++)
		n += d->inodes[i].fs_idx == fs_idx;
	if (!n || !fs->mount_point[0])
		return 0;
	sub = malloc(sizeof(*sub) * n);
	if (!sub)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_inodes; i++)
		if (d->inodes[i].fs_idx == fs_idx)
			sub[k++] = d->inodes[i];
	ret = map_target_ops(fs)->name_inodes ? map_target_ops(fs)->name_inodes(fs, sub, n, d) :
	      map_fs_name_walk(fs, sub, n, d);
	if (ret < 0) {
		map_paths_free(sub, n);
		free(sub);
		return ret;
	}
	/* Put them back (same inode order: both sorted by inode). */
	qsort(sub, n, sizeof(*sub), cmp_inode_fs);
	k = 0;
	for (size_t i = 0; i < d->nr_inodes && k < n; i++)
		if (d->inodes[i].fs_idx == fs_idx)
			d->inodes[i] = sub[k++];
	free(sub);
	return 0;
}

/* Collect unique (filesystem, inode) of file owners (and bmbt owners) and name them. */
static int resolve_inodes(struct map_damage *d, struct map_target *t)
{
	struct want_key *ids = malloc(sizeof(*ids) * (d->nr_owners + 1));
	size_t n = 0;
	int ret = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];

		if (o->kind == MAP_OWN_FILE || (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE)))
			ids[n++] = (struct want_key){ o->fs_idx, o->inode, o->gen,
						      !!(o->flags & MAP_OWNF_UNLINKED) };
	}
	qsort(ids, n, sizeof(*ids), cmp_want_key);
	d->inodes = calloc(n + 1, sizeof(*d->inodes));
	if (!d->inodes) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct map_inode_paths *p;

		if (i && ids[i].inode == ids[i - 1].inode && ids[i].fs_idx == ids[i - 1].fs_idx)
			continue;
		p = &d->inodes[d->nr_inodes++];
		p->inode = ids[i].inode;
		p->fs_idx = ids[i].fs_idx;
		p->gen = ids[i].gen;
		p->unlinked = ids[i].unlinked;
	}
	free(ids);
	for (size_t i = 0; i < d->nr_inodes && ret == 0; i++) {
		struct map_target *fs;
		size_t j;

		for (j = 0; j < i; j++)		/* each filesystem once */
			if (d->inodes[j].fs_idx == d->inodes[i].fs_idx)
				break;
		if (j < i)
			continue;
		fs = map_target_fs(t, d->inodes[i].fs_idx);
		if (fs)
			ret = name_fs(d, fs, d->inodes[i].fs_idx);
	}
	return ret;
}

/*
 * Inodes stored in a damaged inode table block (ext4) or inode chunk (XFS): each
 * in-use one that a directory names becomes an owner of its own (MAP_OWNF_INODE, with its
 * paths), after the table's owner, so that the report says which files lost their inode.
 */
#define ITABLE_MAX_PER_RANGE 128
#define ITABLE_MAX_TOTAL 4096

static int is_inode_table(const struct map_owner *o)
{
	return o->kind == MAP_OWN_METADATA && o->meta_type && !(o->flags & MAP_OWNF_INODE) &&
	       (strcmp(o->meta_type, "inode-table") == 0 || strcmp(o->meta_type, "inodes") == 0);
}

/* The inodes of inode table owner o: exactly in its bytes, or in the units they are read in. */
static int itable_inodes(struct map_target *fs, const struct map_owner *o, int whole_unit,
			 uint64_t *inos)
{
	const struct map_fs_ops *ops = map_target_ops(fs);

	if (!ops->unit_inodes)
		return 0;
	return ops->unit_inodes(fs, o->fs_offset, o->length, whole_unit, inos,
				ITABLE_MAX_PER_RANGE);
}

static int expand_inode_tables(struct map_damage *d, struct map_target *t)
{
	struct map_inode_paths *want = NULL;
	struct map_owner *v = NULL;
	size_t nwant = 0, nr = 0, cap = 0;
	uint64_t inos[ITABLE_MAX_PER_RANGE], exact[ITABLE_MAX_PER_RANGE];
	int ret = 0, nx;

	for (size_t i = 0; i < d->nr_owners && nwant < ITABLE_MAX_TOTAL; i++) {
		struct map_owner *o = &d->owners[i];
		struct map_target *fs = map_target_fs(t, o->fs_idx);
		int n;

		if (!is_inode_table(o) || !fs || !fs->mount_point[0])
			continue;
		n = itable_inodes(fs, o, 1, inos);
		if (n <= 0)
			continue;
		struct map_inode_paths *nw = realloc(want, sizeof(*nw) * (nwant + (size_t)n));

		if (!nw) {
			ret = -ENOMEM;
			goto out_free;
		}
		want = nw;
		for (int k = 0; k < n; k++) {
			memset(&want[nwant], 0, sizeof(want[nwant]));
			want[nwant].inode = inos[k];
			want[nwant].fs_idx = o->fs_idx;
			nwant++;
		}
	}
	if (!nwant)
		return 0;
	/* Which of them a directory names (free slots and unreachable inodes stay out). */
	for (size_t i = 0; i < nwant;) {
		struct map_target *fs = map_target_fs(t, want[i].fs_idx);
		size_t j = i;

		while (j < nwant && want[j].fs_idx == want[i].fs_idx)
			j++;
		if (fs)
			map_paths_resolve_fs(fs, want + i, j - i, NULL);
		i = j;
	}
	for (size_t g = 0; g < d->nr_groups; g++) {
		size_t first = nr;

		for (size_t i = d->groups[g].first;
		     i < d->groups[g].first + d->groups[g].count; i++) {
			const struct map_owner *o = &d->owners[i];

			ret = owners_append(&v, &nr, &cap, o);
			if (ret < 0)
				goto out_free;
			struct map_target *fs = map_target_fs(t, o->fs_idx);
			int n;

			if (!is_inode_table(o) || !fs)
				continue;
			n = itable_inodes(fs, o, 1, inos);
			nx = itable_inodes(fs, o, 0, exact);
			for (int m = 0; m < n; m++) {
				const struct map_inode_paths *p = NULL;
				struct map_owner io = *o;

				int in_bad = 0;

				for (size_t k = 0; k < nwant && !p; k++)
					if (want[k].fs_idx == o->fs_idx && want[k].inode == inos[m])
						p = &want[k];
				for (int e = 0; e < nx; e++)
					in_bad |= exact[e] == inos[m];
				/*
				 * Free, or no directory names it: left out, unless its record is in
				 * the bad bytes and the filesystem says (without reading it) that it
				 * is in use: a lost file no walk could reach (below a damaged
				 * directory), listed by number.
				 */
				if ((!p || !p->nr_paths) &&
				    !(in_bad && map_target_ops(fs)->inode_in_use &&
				      map_target_ops(fs)->inode_in_use(fs, inos[m]) == 1))
					continue;
				io.flags |= MAP_OWNF_INODE | MAP_OWNF_INODE_NEAR;
				if (in_bad)
					io.flags &= ~MAP_OWNF_INODE_NEAR;
				io.inode = inos[m];
				io.meta_type = "inode";
				ret = owners_append(&v, &nr, &cap, &io);
				if (ret < 0)
					goto out_free;
			}
		}
		d->groups[g].first = first;
		d->groups[g].count = nr - first;
	}
	free(d->owners);
	d->owners = v;
	d->nr_owners = nr;
	v = NULL;
out_free:
	free(v);
	map_paths_free(want, nwant);
	free(want);
	return ret;
}

/* Say what is lost where the owner is itself a damaged object: a directory's
 * entries, an inode's extent map (and the contents it maps), its extended attributes. */
static void describe_lost(struct map_damage *d)
{
	for (size_t i = 0; i < d->nr_owners; i++) {
		struct map_owner *o = &d->owners[i];
		const struct map_inode_paths *ip;

		if (o->kind == MAP_OWN_FILE && (o->flags & MAP_OWNF_ATTR_FORK)) {
			snprintf(o->lost, sizeof(o->lost), "extended attributes lost");
		} else if (o->kind == MAP_OWN_FILE) {
			ip = map_damage_paths_fs(d, o->fs_idx, o->inode);
			if ((o->flags & MAP_OWNF_DIR) || (ip && ip->is_dir))
				snprintf(o->lost, sizeof(o->lost), "directory entries lost");
		} else if (o->flags & MAP_OWNF_INODE_NEAR) {
			snprintf(o->lost, sizeof(o->lost), "inode unreadable: the kernel reads it "
				 "with the bad sector (same inode block or cluster)");
		} else if (o->flags & MAP_OWNF_INODE) {
			snprintf(o->lost, sizeof(o->lost), "inode lost: the file's attributes and "
				 "block map (so its contents) are unreadable");
		} else if (o->kind == MAP_OWN_METADATA && (o->flags & MAP_OWNF_BMBT)) {
			if (o->flags & MAP_OWNF_MAP_FROM)
				snprintf(o->lost, sizeof(o->lost), "extent map lost: file contents "
					 "past offset %" PRIu64 " unreachable", o->file_offset);
			else
				snprintf(o->lost, sizeof(o->lost), "extent map lost: part of the "
					 "file's contents unreachable");
		}
	}
}

/* ---- grouping ---- */

static int cmp_file_owner(const void *a, const void *b)
{
	const struct map_owner *x = *(const struct map_owner *const *)a;
	const struct map_owner *y = *(const struct map_owner *const *)b;
	int xa = !!(x->flags & MAP_OWNF_ATTR_FORK), ya = !!(y->flags & MAP_OWNF_ATTR_FORK);

	if (x->fs_idx != y->fs_idx)
		return x->fs_idx < y->fs_idx ? -1 : 1;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	if (xa != ya)
		return xa - ya;
	return x->file_offset < y->file_offset ? -1 : x->file_offset > y->file_offset;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct map_damage_meta *x = a, *y = b;
	int c = strcmp(x->type, y->type);

	if (c)
		return c;
	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * A file lost with its own metadata: its inode in a damaged inode block (exactly in the bad
 * bytes), or a block of its block map (extent tree, indirect block, bmbt). Its contents are
 * unreachable even though no data block is bad: it belongs in the restore list.
 */
static int lost_with_metadata(const struct map_owner *o)
{
	if (!o->inode || o->kind == MAP_OWN_FILE || o->kind == MAP_OWN_LOG)
		return 0;
	if ((o->flags & MAP_OWNF_INODE) && !(o->flags & MAP_OWNF_INODE_NEAR))
		return 1;
	return (o->flags & MAP_OWNF_BMBT) && o->kind == MAP_OWN_METADATA && o->meta_type &&
	       strcmp(o->meta_type, "inode") != 0 && o->lost[0];
}

static int group_files(struct map_damage *d)
{
	const struct map_owner **fo = malloc(sizeof(*fo) * (d->nr_owners + 1));
	size_t n = 0;

	if (!fo)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++)
		if (d->owners[i].kind == MAP_OWN_FILE || lost_with_metadata(&d->owners[i]))
			fo[n++] = &d->owners[i];
	qsort(fo, n, sizeof(*fo), cmp_file_owner);
	d->files = calloc(d->nr_inodes + 1, sizeof(*d->files));
	if (!d->files) {
		free(fo);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct map_owner *o = fo[i];
		struct map_damage_file *f = d->nr_files ? &d->files[d->nr_files - 1] : NULL;
		struct map_file_range *last, *nr;
		int attr = !!(o->flags & MAP_OWNF_ATTR_FORK);
		int lost = !(o->flags & MAP_OWNF_UNWRITTEN);

		if (!f || f->inode != o->inode || f->fs_idx != o->fs_idx) {
			f = &d->files[d->nr_files++];
			f->inode = o->inode;
			f->fs_idx = o->fs_idx;
			f->part = o->part;
			f->paths = map_damage_paths_fs(d, o->fs_idx, o->inode);
			f->gen = f->paths && f->paths->gen ? f->paths->gen : o->gen;
			f->first = o;
		}
		if (o->kind != MAP_OWN_FILE) {		/* its inode or block map */
			f->lost = 1;
			if (!f->what_lost)
				f->what_lost = o->lost;
			continue;
		}
		if (o->flags & MAP_OWNF_SHARED)
			f->shared = 1;
		f->lost |= lost;
		last = f->nr_ranges ? &f->ranges[f->nr_ranges - 1] : NULL;
		if (last && last->attr_fork == attr && last->lost == lost &&
		    last->offset + last->length >= o->file_offset) {
			uint64_t end = o->file_offset + o->length;

			if (end > last->offset + last->length)
				last->length = end - last->offset;
			continue;
		}
		nr = realloc(f->ranges, sizeof(*nr) * (f->nr_ranges + 1));
		if (!nr) {
			free(fo);
			return -ENOMEM;
		}
		f->ranges = nr;
		f->ranges[f->nr_ranges++] = (struct map_file_range){
			.offset = o->file_offset, .length = o->length,
			.attr_fork = attr, .lost = lost,
		};
	}
	free(fo);
	return 0;
}

static int group_meta(struct map_damage *d)
{
	size_t n = 0, w = 0;

	d->meta = calloc(d->nr_owners + 1, sizeof(*d->meta));
	if (!d->meta)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];

		if (o->kind != MAP_OWN_METADATA && o->kind != MAP_OWN_LOG)
			continue;
		if (o->flags & MAP_OWNF_INODE)
			continue;	/* listed under the inode table entry's error */
		d->meta[n++] = (struct map_damage_meta){
			.type = o->meta_type, .dev_idx = o->dev_idx, .offset = o->dev_offset,
			.length = o->length, .ag = o->ag, .inode = o->inode,
			.fs_idx = o->fs_idx, .part = o->part, .fs_offset = o->fs_offset,
			.first = o,
		};
	}
	qsort(d->meta, n, sizeof(*d->meta), cmp_meta);
	for (size_t i = 0; i < n; i++) {
		struct map_damage_meta *prev = w ? &d->meta[w - 1] : NULL;

		if (prev && strcmp(prev->type, d->meta[i].type) == 0 &&
		    prev->dev_idx == d->meta[i].dev_idx && prev->inode == d->meta[i].inode &&
		    prev->fs_idx == d->meta[i].fs_idx &&
		    prev->ag == d->meta[i].ag && prev->offset + prev->length >= d->meta[i].offset) {
			uint64_t end = d->meta[i].offset + d->meta[i].length;

			if (end > prev->offset + prev->length)
				prev->length = end - prev->offset;
			continue;
		}
		d->meta[w++] = d->meta[i];
	}
	d->nr_meta = w;
	return 0;
}

/* ---- do no harm: what the kernel must not be made to read ---- */

static int is_inode_table(const struct map_owner *o);

/* Is owner o a filesystem object whose own metadata it is (a directory's blocks, a block map
 * block, an attribute block)? Then its inode must not be opened through the VFS. */
static int owner_taints(const struct map_owner *o)
{
	if (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_ATTR_FORK | MAP_OWNF_DIR))
		return o->inode != 0;
	return 0;
}

/*
 * Note every bad range on its filesystem (the raw reader refuses those bytes) and taint the
 * inodes whose metadata lies there: every inode of a damaged inode table block or cluster
 * (the kernel reads them whole), and owners that are a directory's blocks, a block map or an
 * attribute block. Called before the index (which must not confirm tainted inodes) and after.
 */
static int mark_bad(struct map_damage *d, struct map_target *t)
{
	uint64_t inos[ITABLE_MAX_PER_RANGE];
	int ret;

	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];
		struct map_target *fs = map_target_fs(t, o->fs_idx);
		const struct map_fs_ops *ops;
		int n;

		if (!fs || owner_space(t, o) != SPACE_DATA)
			continue;
		ret = map_fsx_add_bad(fs, o->fs_offset, o->fs_offset + o->length);
		if (ret < 0)
			return ret;
		ops = map_target_ops(fs);
		if (o->kind == MAP_OWN_FILE && !(o->flags & MAP_OWNF_DIR) && o->inode &&
		    ops->is_dir && !map_fsx_tainted(fs, o->inode) && ops->is_dir(fs, o->inode) > 0)
			d->owners[i].flags |= MAP_OWNF_DIR;
		if (owner_taints(&d->owners[i])) {
			ret = map_fsx_taint(fs, o->inode);
			if (ret < 0)
				return ret;
		}
		if (!is_inode_table(o) || !ops->unit_inodes)
			continue;
		n = ops->unit_inodes(fs, o->fs_offset, o->length, 1, inos, ITABLE_MAX_PER_RANGE);
		for (int k = 0; k < n; k++) {
			ret = map_fsx_taint(fs, inos[k]);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

int map_damage_resolve(struct map_damage *d, struct map_target *t)
{
	int ret;

	if (t->nr_plan_notes && !d->plan_notes) {
		d->plan_notes = malloc(sizeof(*d->plan_notes) * t->nr_plan_notes);
		if (!d->plan_notes)
			return -ENOMEM;
		memcpy(d->plan_notes, t->plan_notes, sizeof(*d->plan_notes) * t->nr_plan_notes);
		d->nr_plan_notes = t->nr_plan_notes;
		d->plan_notes_dropped = t->plan_notes_dropped;
		/* Where the kernel has online scrub: its verdict on each group read whole. */
		ret = map_health_plan_scrub(t, d);
		if (ret < 0)
			return ret;
	}
	ret = mark_bad(d, t);
	if (ret < 0)
		return ret;
	ret = resolve_pending(d, t);
	if (ret < 0)
		return ret;
	ret = mark_bad(d, t);		/* owners the index found */
	if (ret < 0)
		return ret;
	ret = expand_inode_tables(d, t);
	if (ret < 0)
		return ret;
	map_health_annotate(t, d->owners, d->nr_owners, &d->scrub, &d->fs_health_sick,
			    &d->fs_health_checked);
	if (d->scrub < 0)
		d->notes |= MAP_NOTE_NO_SCRUB;
	ret = resolve_inodes(d, t);
	if (ret < 0)
		return ret;
	describe_lost(d);
	ret = group_files(d);
	if (ret < 0)
		return ret;
	return group_meta(d);
}

int map_damage_notes(const struct map_damage *d, const char **out, unsigned max)
{
	unsigned n = 0;

	if ((d->notes & MAP_NOTE_NO_RMAPBT) && n < max)
		out[n++] = "this XFS has no reverse-mapping btree: owners were found by reading "
			   "every inode's block map; a filesystem made with `mkfs.xfs -m rmapbt=1` "
			   "maps bad blocks to owners much faster (and names btree blocks)";
	if ((d->notes & MAP_NOTE_NO_SCRUB) && n < max) {
		switch (map_scrub_why(d->scrub)) {
		case MAP_SCRUB_NORECOVERY:
			out[n++] = "the filesystem is mounted norecovery and the kernel refuses "
				   "online scrub there: no scrub verdicts; the health the kernel "
				   "keeps is reported (mount without norecovery to get them)";
			break;
		case MAP_SCRUB_SHUTDOWN:
			out[n++] = "the filesystem is shut down and the kernel refuses online "
				   "scrub: no scrub verdicts; the health the kernel keeps is reported";
			break;
		case MAP_SCRUB_NOT_PERMITTED:
			out[n++] = "online scrub (XFS_IOC_SCRUB_METADATA) needs CAP_SYS_ADMIN: no "
				   "scrub verdicts; the health the kernel keeps is reported";
			break;
		case MAP_SCRUB_PROBE_FAILED:
			out[n++] = "the online scrub probe (XFS_IOC_SCRUB_METADATA) failed: no "
				   "scrub verdicts; the health the kernel keeps is reported";
			break;
		default:
			out[n++] = "this kernel has no XFS online scrub (XFS_IOC_SCRUB_METADATA): "
				   "no scrub verdicts; the health the kernel keeps is reported";
			break;
		}
	}
	if ((d->notes & MAP_NOTE_NO_EXT2FS) && n < max)
		out[n++] = "built without libext2fs: ext4 owners were found by a directory walk "
			   "with FIEMAP (slower; journal and orphan inodes stay unnamed)";
	if ((d->notes & MAP_NOTE_INDEX_FAILED) && n < max)
		out[n++] = d->index_err;
	if ((d->notes & MAP_NOTE_SKIPPED_INODES) && n < max)
		out[n++] = d->skipped_note;
	if ((d->notes & MAP_NOTE_LOOPED_MAP) && n < max)
		out[n++] = "the block map of some inodes loops or is cross-linked (corruption: "
			   "e2fsck -fn will tell): each was followed once and no further, so blocks "
			   "past the loop may be reported as not found";
	if ((d->notes & MAP_NOTE_UNREADABLE_META) && n < max)
		out[n++] = "some inode table blocks could not be read while looking for owners; "
			   "inodes in them may own blocks reported as not found";
	return (int)n;
}

int map_damage_free(struct map_damage *d)
{
	for (size_t i = 0; i < d->nr_files; i++)
		free(d->files[i].ranges);
	map_paths_free(d->inodes, d->nr_inodes);
	free(d->inodes);
	free(d->files);
	free(d->meta);
	free(d->owners);
	free(d->groups);
	free(d->plan_notes);
	free(d->plan_scrub);
	free(d->nr_plan_scrub);
	memset(d, 0, sizeof(*d));
	return 0;
}
