/*
 * mapping/index/index.c - the owner index shared parts: matching extents against the queried bad
 * ranges, FIEMAP of one inode, confirming candidates with FIEMAP, and the directory-walk
 * index used when nothing better is available (on the bounded walk of walk.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/fiemap.h>

#include "fs.h"
#include "index.h"
#include "walk.h"

int map_ix_push(struct map_ix_hits *h, uint64_t start, uint64_t end, const struct map_owner *o)
{
	if (h->nr == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct map_ix_hit *n = realloc(h->v, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		h->v = n;
		h->cap = cap;
	}
	h->v[h->nr].start = start;
	h->v[h->nr].end = end;
	h->v[h->nr].o = *o;
	h->nr++;
	return 0;
}

size_t map_ix_first(const struct map_ix_query *q, size_t nq, uint64_t offset)
{
	size_t lo = 0, hi = nq;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (q[mid].end <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int map_ix_match(const struct map_ix_query *q, size_t nq, uint64_t pstart, uint64_t pend,
		 uint64_t file_offset, const struct map_owner *o, struct map_ix_hits *h)
{
	for (size_t i = map_ix_first(q, nq, pstart); i < nq && q[i].start < pend; i++) {
		uint64_t s = q[i].start > pstart ? q[i].start : pstart;
		uint64_t e = q[i].end < pend ? q[i].end : pend;
		struct map_owner c = *o;
		int ret;

		if (e <= s)
			continue;
		c.file_offset = file_offset + (s - pstart);
		ret = map_ix_push(h, s, e, &c);
		if (ret < 0)
			return ret;
	}
	return 0;
}

#define FIE_BATCH 64

/*
 * Call fn for every extent of fd (flags 0 or FIEMAP_FLAG_XATTR) overlapping file bytes
 * [from, to); 0 or -errno (-EOPNOTSUPP: no FIEMAP for this inode).
 */
static int fiemap_each(int fd, uint32_t flags, uint64_t from, uint64_t to,
		       int (*fn)(const struct fiemap_extent *fe, void *arg), void *arg)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[FIE_BATCH];
	} b;
	uint64_t pos = from;
	int ret;

	for (;;) {
		memset(&b.fm, 0, sizeof(b.fm));
		b.fm.fm_start = pos;
		b.fm.fm_length = to > pos ? to - pos : 1;
		b.fm.fm_flags = flags;
		b.fm.fm_extent_count = FIE_BATCH;
		ret = kio_fiemap(fd, &b.fm);
		if (ret < 0)
			return ret;
		if (b.fm.fm_mapped_extents == 0)
			return 0;
		/* The kernel's answer is input too: never past the buffer, never backwards. */
		if (b.fm.fm_mapped_extents > FIE_BATCH)
			b.fm.fm_mapped_extents = FIE_BATCH;
		for (unsigned i = 0; i < b.fm.fm_mapped_extents; i++) {
			ret = fn(&b.ext[i], arg);
			if (ret)
				return ret < 0 ? ret : 0;
		}
		const struct fiemap_extent *last = &b.ext[b.fm.fm_mapped_extents - 1];

		if ((last->fe_flags & FIEMAP_EXTENT_LAST) || b.fm.fm_mapped_extents < FIE_BATCH)
			return 0;
		/* The next query starts past the last extent: it must advance and not wrap. */
		if (last->fe_logical + last->fe_length <= pos ||
		    last->fe_logical + last->fe_length < last->fe_logical)
			return 0;
		pos = last->fe_logical + last->fe_length;
		if (pos >= to)
			return 0;
	}
}

/* Flags of a FIEMAP extent that say its location is not a real device address. */
#define FIE_NO_LOCATION (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | \
			 FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL | \
			 FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_ENCODED)

struct match_ctx {
	const struct map_ix_query *q;
	size_t nq;
	struct map_owner tmpl;
	struct map_ix_hits *h;
};

static int match_fe(const struct fiemap_extent *fe, void *arg)
{
	struct match_ctx *m = arg;
	struct map_owner o = m->tmpl;

	if (fe->fe_flags & FIE_NO_LOCATION)
		return 0;
	if (fe->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
		o.flags |= MAP_OWNF_UNWRITTEN;
	if (fe->fe_flags & FIEMAP_EXTENT_SHARED)
		o.flags |= MAP_OWNF_SHARED;
	return map_ix_match(m->q, m->nq, fe->fe_physical, fe->fe_physical + fe->fe_length,
			    fe->fe_logical, &o, m->h);
}

/* Return 0 after matching every extent of open inode fd (data fork, then attributes). */
static int match_inode_fd(int fd, const struct map_ix_query *q, size_t nq,
			  const struct map_owner *tmpl, struct map_ix_hits *h)
{
	struct match_ctx m = { .q = q, .nq = nq, .tmpl = *tmpl, .h = h };
	int ret;

	m.tmpl.kind = MAP_OWN_FILE;
	ret = fiemap_each(fd, 0, 0, UINT64_MAX, match_fe, &m);
	if (ret < 0)
		return ret;
	m.tmpl.flags |= MAP_OWNF_ATTR_FORK;
	ret = fiemap_each(fd, FIEMAP_FLAG_XATTR, 0, UINT64_MAX, match_fe, &m);
	return ret == -EOPNOTSUPP || ret == -EINVAL ? 0 : ret;
}

int map_ix_match_fd(int fd, const struct map_ix_query *q, size_t nq,
		    const struct map_owner *tmpl, struct map_ix_hits *h)
{
	return match_inode_fd(fd, q, nq, tmpl, h);
}

/* Confirming one candidate: does the kernel map file byte lpos at device byte ppos? */
struct confirm_ctx {
	uint64_t lpos, ppos;
	int found;
	uint32_t fe_flags;
};

static int confirm_fe(const struct fiemap_extent *fe, void *arg)
{
	struct confirm_ctx *c = arg;

	if (c->lpos < fe->fe_logical || c->lpos >= fe->fe_logical + fe->fe_length)
		return 0;
	if (!(fe->fe_flags & FIE_NO_LOCATION) &&
	    fe->fe_physical + (c->lpos - fe->fe_logical) == c->ppos) {
		c->found = 1;
		c->fe_flags = fe->fe_flags;
	}
	return 1;				/* the extent holding lpos decides */
}

static int cmp_hit_inode(const void *a, const void *b)
{
	const struct map_ix_hit *x = a, *y = b;

	if (x->o.inode != y->o.inode)
		return x->o.inode < y->o.inode ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

int map_ix_confirm(struct map_target *fs, struct map_ix_hits *h)
{
	struct map_fsx *x = map_fsx_get(fs);
	size_t w = 0;
	int fd = -1;
	uint64_t fd_ino = 0;
	int fd_err = 0;

	if (!x)
		return -ENOMEM;
	/*
	 * ext4 writes its superblock (s_last_mounted) on the first open of a regular file after
	 * a read-write mount: on such a mount no file is opened, the index's answer stands (it
	 * reads the metadata buffers the mounted filesystem keeps current).
	 */
	if ((map_target_ops(fs)->caps & MAP_FSC_OPEN_WRITES) && kio_fs_readonly(fs->mount_fd) != 1)
		return 0;
	if (!x->handle_type && kio_handle_type(fs->mount_fd, &x->handle_type) < 0)
		x->handle_type = -1;
	if (x->handle_type < 0)
		return 0;			/* no handles: keep the index's answer */
	if (h->nr)
		qsort(h->v, h->nr, sizeof(*h->v), cmp_hit_inode);
	/*
	 * Do no harm: an inode whose directory blocks, block map or attribute block is bad (or
	 * whose inode block is, tainted already) is never opened by handle nor mapped: opening
	 * reads its inode block and a directory's ".." entry, FIEMAP reads its block map, and a
	 * bad read there trips the filesystem's error handler. The index's answer stands.
	 */
	for (size_t i = 0; i < h->nr; i++) {
		const struct map_owner *o = &h->v[i].o;

		if ((o->flags & (MAP_OWNF_BMBT | MAP_OWNF_ATTR_FORK | MAP_OWNF_DIR)) && o->inode &&
		    map_fsx_taint(fs, o->inode) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < h->nr; i++) {
		struct map_ix_hit *e = &h->v[i];
		struct confirm_ctx c = { .lpos = e->o.file_offset, .ppos = e->start };
		int ret;

		if (map_fsx_tainted(fs, e->o.inode)) {
			h->v[w++] = *e;
			continue;
		}

		/* Only file data and directory blocks are FIEMAP's to confirm. */
		if (e->o.kind != MAP_OWN_FILE || (e->o.flags & MAP_OWNF_ATTR_FORK)) {
			h->v[w++] = *e;
			continue;
		}
		if (fd < 0 || fd_ino != e->o.inode) {
			kio_close(fd);
			fd = kio_open_inode(fs->mount_fd, x->handle_type, e->o.inode, e->o.gen,
					    O_NOATIME | O_NONBLOCK);
			fd_ino = e->o.inode;
			fd_err = fd < 0 ? fd : 0;
			if (fd_err == -EPERM)	/* O_NOATIME on a file we do not own */
				fd = kio_open_inode(fs->mount_fd, x->handle_type, e->o.inode,
						    e->o.gen, O_NONBLOCK);
			fd_err = fd < 0 ? fd : 0;
		}
		/*
		 * A directory is opened by handle only once the kernel reconnects it to the
		 * tree, which reads its ".." entry: a directory whose first block is bad
		 * answers ESTALE though it is there. Keep the index's answer.
		 */
		if ((fd_err == -ESTALE || fd_err == -ENOENT) && (e->o.flags & MAP_OWNF_DIR)) {
			h->v[w++] = *e;
			continue;
		}
		if (fd_err == -ESTALE || fd_err == -ENOENT)
			continue;		/* deleted (or reused) since the tables were read */
		if (fd_err < 0) {
			h->v[w++] = *e;		/* cannot ask (a symlink, no permission): keep */
			continue;
		}
		ret = fiemap_each(fd, 0, c.lpos, c.lpos + 1, confirm_fe, &c);
		if (ret < 0) {
			h->v[w++] = *e;
			continue;
		}
		if (!c.found)
			continue;		/* the kernel maps it elsewhere now: stale */
		e->o.flags &= ~(MAP_OWNF_UNWRITTEN | MAP_OWNF_SHARED);
		if (c.fe_flags & FIEMAP_EXTENT_UNWRITTEN)
			e->o.flags |= MAP_OWNF_UNWRITTEN;
		if (c.fe_flags & FIEMAP_EXTENT_SHARED)
			e->o.flags |= MAP_OWNF_SHARED;
		h->v[w++] = *e;
	}
	kio_close(fd);
	h->nr = w;
	return 0;
}

/* The directory-walk index: FIEMAP of every file and directory reached from the root. */
struct iwalk {
	const struct map_ix_query *q;
	size_t nq;
	struct map_ix_hits *h;
	struct map_target *fs;
};

/* Inodes whose metadata is known bad are not opened. */
static int iwalk_skip(struct map_walk *w, uint64_t ino, unsigned char type, const char *path)
{
	(void)type;
	(void)path;
	return map_fsx_tainted(((struct iwalk *)w->arg)->fs, ino);
}

/* Match the extents of one open inode; only running out of memory stops the walk. */
static int iwalk_match(struct iwalk *iw, int fd, const struct stat *st)
{
	struct map_owner tmpl;

	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.inode = st->st_ino;
	tmpl.ag = -1;
	return match_inode_fd(fd, iw->q, iw->nq, &tmpl, iw->h) == -ENOMEM ? -ENOMEM : 0;
}

/* Every directory (the root too), as the walk enters it. */
static int iwalk_dir(struct map_walk *w, int fd, const struct stat *st, const char *path)
{
	(void)path;
	return iwalk_match(w->arg, fd, st);
}

/* Regular files (directories are the walk's, through iwalk_dir). */
static int iwalk_entry(struct map_walk *w, int dirfd, const char *name, uint64_t ino,
		       unsigned char type, const char *path)
{
	struct stat st;
	int fd, ret = 0;

	(void)path;
	if (type != DT_REG && type != DT_UNKNOWN)
		return 0;
	if (map_fsx_tainted(((struct iwalk *)w->arg)->fs, ino))
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
		    O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_dev == w->dev && S_ISREG(st.st_mode))
		ret = iwalk_match(w->arg, fd, &st);
	close(fd);
	return ret;
}

int map_index_walk(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable_dirs, char *why, size_t whylen)
{
	struct iwalk iw = { .q = q, .nq = nq, .h = h, .fs = fs };
	struct map_walk w = { .entry = iwalk_entry, .dir = iwalk_dir, .skip = iwalk_skip,
			      .arg = &iw };
	int ret = map_walk_tree(fs->mount_point, &w);

	*unreadable_dirs = w.unreadable_dirs;
	if (ret < 0 && ret != -ENOMEM)
		snprintf(why, whylen, "cannot walk %s: %s", fs->mount_point, strerror(-ret));
	return ret;
}
