/*
 * mapping/owners.c - owners of bad device ranges through GETFSMAP (reverse mapping), split
 * by partition on a partitioned disk, and inode numbers to every path by one directory walk.
 * What GETFSMAP cannot name (ext4 file data, XFS without rmapbt) is marked pending here and
 * found by the owner index in damage.c.
 *
 * Over 600 lines for now: GETFSMAP lookups and the name walker are the two halves of naming an
 * owner; issue 10 asks for one bounded walker with callbacks for this and index.c, which is
 * where it splits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/fsmap.h>

#include "owners.h"
#include "fsmap.h"
#include "fsx.h"

#define OWNERS_BATCH 128

/* Append one owner to the growable array. */
static int owners_push(struct map_owner **owners, size_t *nr, const struct map_owner *o)
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

/* Turn one fsmap record, clipped to [start, end), into an owner. */
static void owner_from_rec(const struct map_target *t, uint32_t dev_idx, const struct fsmap *rec,
			   uint64_t start, uint64_t end, struct map_owner *o)
{
	const char *special = map_fsmap_special_name_fs(rec, t->fs == MAP_FS_EXT4);

	memset(o, 0, sizeof(*o));
	o->dev_idx = dev_idx;
	o->dev_offset = start;
	o->fs_offset = start;
	o->length = end - start;
	o->ag = -1;
	if (t->fs == MAP_FS_XFS && t->xfs.agblocks && t->devices[dev_idx].role == MAP_ROLE_DATA)
		o->ag = (int64_t)(start / ((uint64_t)t->xfs.agblocks * t->xfs.blocksize));
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
			if ((t->devices[dev_idx].role == MAP_ROLE_DATA &&
			     (t->fs == MAP_FS_EXT4 || (t->fs == MAP_FS_XFS && !t->xfs.has_rmapbt))) ||
			    (t->devices[dev_idx].role == MAP_ROLE_RT && t->fs == MAP_FS_XFS))
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
	ret = owners_push(owners, nr, &o);
	return ret < 0 ? ret : 1;
}

/*
 * ext4 (which leaves the allocated tail of some block groups out of its GETFSMAP listing)
 * and XFS without rmapbt report allocated space as gaps or "unknown" records: on their data
 * device, bytes no record covers are allocated, owner to be found by the index.
 */
static int dev_fills_gaps(const struct map_target *t, uint32_t dev_idx)
{
	return t->devices[dev_idx].role == MAP_ROLE_DATA &&
	       (t->fs == MAP_FS_EXT4 || (t->fs == MAP_FS_XFS && !t->xfs.has_rmapbt));
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
			ret = owners_push(owners, nr, &g);
			if (ret < 0)
				return ret;
		}
		if (k == n)
			break;
		ret = owners_push(owners, nr, &src[k]);
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
	uint64_t bs = t->fs == MAP_FS_XFS && t->xfs.blocksize ? t->xfs.blocksize : 0;

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
			if (owners_push(&found, &nfound, &o) < 0) {
				ret = -ENOMEM;
				goto out_free;
			}
		}
		if (head->fmh_recs[ret - 1].fmr_flags & FMR_OF_LAST)
			break;
	}
	/* The space map of this part cannot be read: what no record covers is allocated,
	 * its owner left to the owner index (issue 12). */
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
			ret = push_device(owners, nr, dev_idx, pos, piece, MAP_OWN_DEVICE,
					  "partition", p->number);
			break;
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

int map_owners_lookup(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr)
{
	struct map_device *d = &t->devices[dev_idx];

	if (length == 0)
		return 0;
	if (d->role == MAP_ROLE_DISK && t->nr_segs)
		return lookup_disk(t, dev_idx, offset, length, owners, nr);
	if (d->role == MAP_ROLE_WHOLE || d->role == MAP_ROLE_DISK || t->mount_fd < 0)
		return push_device(owners, nr, dev_idx, offset, length, MAP_OWN_DEVICE,
				   t->self_part ? "partition" : "device", t->self_part);
	return lookup_fsmap(t, dev_idx, offset, length, owners, nr);
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

	if (d->role == MAP_ROLE_WHOLE || d->role == MAP_ROLE_DISK || t->mount_fd < 0) {
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
			 * in that part are left to the owner index (issue 12). */
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
				ret = owners_push(&tmp, &ntmp, &v[k].o);
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

/* Sorting and search of wanted inodes by number. */
static int cmp_want(const void *a, const void *b)
{
	const struct map_inode_paths *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

struct walk {
	struct map_inode_paths *want;
	size_t nr;
	size_t remaining;		/* inodes not yet fully named */
	dev_t dev;
	unsigned unreadable_dirs;	/* directories that could not be opened, read, or walked
					 * (deeper than WALK_MAX_DEPTH): said in the report */
	char *bufs[512];		/* getdents64 buffer per depth; deeper levels share the last */
	char *path;			/* the path being walked: grows, never cut at PATH_MAX */
	size_t cap;
};

/* Return 0 after making w->path hold at least need bytes, or -ENOMEM. */
static int walk_path_room(struct walk *w, size_t need)
{
	char *n;
	size_t cap = w->cap;

	if (need <= cap)
		return 0;
	while (cap < need)
		cap *= 2;
	n = realloc(w->path, cap);
	if (!n)
		return -ENOMEM;
	w->path = n;
	w->cap = cap;
	return 0;
}

static struct map_inode_paths *walk_find(struct walk *w, uint64_t ino)
{
	struct map_inode_paths key = { .inode = ino };

	return bsearch(&key, w->want, w->nr, sizeof(*w->want), cmp_want);
}

/* Record path for a wanted inode; st may be NULL when not yet known. */
static int walk_hit(struct walk *w, struct map_inode_paths *p, const char *path, int dirfd,
		    const char *name)
{
	struct stat st;
	char **n;

	if (p->nlink && p->nr_paths >= p->nlink)
		return 0;
	if (p->nlink == 0 && !p->stat_failed) {
		/*
		 * The inode itself may sit in a damaged block: then the link count is
		 * unknown and the walk goes on to the end to find every link.
		 */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			p->stat_failed = errno;
		} else {
			p->nlink = S_ISDIR(st.st_mode) ? 1 : (unsigned)st.st_nlink;
			p->is_dir = S_ISDIR(st.st_mode);
			if (p->nlink == 0)
				p->nlink = 1;
		}
	}
	n = realloc(p->paths, sizeof(*n) * (p->nr_paths + 1));
	if (!n)
		return -ENOMEM;
	p->paths = n;
	p->paths[p->nr_paths] = strdup(path);
	if (!p->paths[p->nr_paths])
		return -ENOMEM;
	p->nr_paths++;
	if (p->nlink && p->nr_paths == p->nlink)
		w->remaining--;
	return 0;
}

#define WALK_BUF (32 * 1024)
/*
 * One open directory per level: a tree deeper than this (any user can make one, to hide a
 * file from damage naming) is not walked below it, and counted as unreadable, never silently.
 */
#define WALK_MAX_DEPTH 4096
#define WALK_BUF_LEVELS 512

/* Walk one directory (fd owned and closed here); recursion depth follows the tree. Entries
 * are read with getdents64 into one reused buffer per depth: no allocation per directory. */
static int walk_dir(struct walk *w, int fd, size_t plen, unsigned depth)
{
	unsigned slot = depth < WALK_BUF_LEVELS ? depth : WALK_BUF_LEVELS - 1;
	char *buf, *own = NULL;
	int ret = 0;

	if (depth >= WALK_MAX_DEPTH) {
		w->unreadable_dirs++;
		close(fd);
		return 0;
	}
	if (depth >= WALK_BUF_LEVELS - 1) {
		/* Very deep trees: a buffer per level beyond the shared ones. */
		buf = own = malloc(WALK_BUF);
	} else {
		if (!w->bufs[slot])
			w->bufs[slot] = malloc(WALK_BUF);
		buf = w->bufs[slot];
	}
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (w->remaining && ret == 0) {
		ssize_t n = getdents64(fd, buf, WALK_BUF);

		if (n <= 0) {
			if (n < 0)		/* a damaged directory block: note it, go on */
				w->unreadable_dirs++;
			break;
		}
		for (ssize_t pos = 0; pos < n && w->remaining;) {
			struct dirent64 *de = (struct dirent64 *)(buf + pos);
			struct map_inode_paths *p;
			size_t nlen;

			pos += de->d_reclen;
			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			nlen = strlen(de->d_name);
			ret = walk_path_room(w, plen + 1 + nlen + 1);	/* past PATH_MAX too */
			if (ret < 0)
				break;
			w->path[plen] = '/';
			memcpy(w->path + plen + 1, de->d_name, nlen + 1);
			p = walk_find(w, de->d_ino);
			if (p) {
				ret = walk_hit(w, p, w->path, fd, de->d_name);
				if (ret < 0)
					break;
			}
			if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
				struct stat st;
				int cfd = openat(fd, de->d_name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

				if (cfd < 0) {
					/* EMFILE: deeper than the fds allow; counted, not silent */
					if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
						w->unreadable_dirs++;
					continue;
				}
				if (fstat(cfd, &st) < 0 || st.st_dev != w->dev ||
				    !S_ISDIR(st.st_mode)) {
					close(cfd);	/* another filesystem mounted here */
					continue;
				}
				ret = walk_dir(w, cfd, plen + 1 + nlen, depth + 1);
				if (ret < 0)
					break;
			}
		}
	}
	w->path[plen] = '\0';
	free(own);
	close(fd);
	return ret;
}

int map_path_is_inode(const char *path, uint64_t ino, uint32_t gen)
{
	uint64_t i;
	uint32_t g;

	if (!gen || kio_inode_ident(path, &i, &g) < 0)
		return 0;			/* cannot tell: not named */
	return i == ino && g == gen;
}

int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs)
{
	struct walk w = { .want = want, .nr = nr, .remaining = nr };
	struct stat st;
	char *path;
	int fd, ret;

	if (nr == 0)
		return 0;
	qsort(want, nr, sizeof(*want), cmp_want);
	fd = open(mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	w.dev = st.st_dev;
	w.cap = PATH_MAX;
	w.path = path = malloc(w.cap);
	if (!path || walk_path_room(&w, strlen(mount_point) + 2) < 0) {
		free(w.path);
		close(fd);
		return -ENOMEM;
	}
	snprintf(w.path, w.cap, "%s", strcmp(mount_point, "/") ? mount_point : "");
	/* The mount point itself (the root directory) may be wanted. */
	{
		struct map_inode_paths *p = walk_find(&w, st.st_ino);

		if (p && p->nr_paths == 0) {
			p->nlink = 1;
			p->is_dir = 1;
			p->paths = calloc(1, sizeof(char *));
			if (p->paths && (p->paths[0] = strdup(mount_point))) {
				p->nr_paths = 1;
				w.remaining--;
			}
		}
	}
	ret = walk_dir(&w, fd, strlen(w.path), 0);
	free(w.path);
	for (unsigned i = 0; i < WALK_BUF_LEVELS && w.bufs[i]; i++)
		free(w.bufs[i]);
	if (unreadable_dirs)
		*unreadable_dirs = w.unreadable_dirs;
	return ret;
}

int map_paths_free(struct map_inode_paths *want, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		for (unsigned j = 0; j < want[i].nr_paths; j++)
			free(want[i].paths[j]);
		free(want[i].paths);
		want[i].paths = NULL;
		want[i].nr_paths = 0;
	}
	return 0;
}
