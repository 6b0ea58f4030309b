/*
 * mapping/index/index_ext4.c - owners of ext4 blocks that GETFSMAP reports as "unknown" (all file
 * data, directories, extent trees, xattr blocks, the journal and other special inodes).
 *
 * One pass over the inode tables with libext2fs, opened read-only on the filesystem's device
 * through the page cache the mounted filesystem shares (so metadata buffers are current):
 * every in-use inode's extents (read from the inode itself for shallow trees) are matched
 * against the bad ranges by binary search. Candidates that are files or directories are then
 * confirmed with FIEMAP on the inode opened by handle, so what is reported is what the running
 * kernel maps. The pass reads the inode tables in order and opens no file, so its cost grows
 * with the inode tables, not with an open and a FIEMAP per file; FIEMAP stays the authority
 * for the few candidates.
 *
 * The read-only io_manager libext2fs reads through is in io_ext4.c; naming below a damaged
 * directory from the raw device (map_ext4_name_below) in names_ext4.c.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "map_config.h"
#include "fs.h"
#include "index_ext4.h"

#if HAVE_EXT2FS
#include <ext2fs/ext2fs.h>

#include "ext4_int.h"
/* Special inodes (fs/ext4/ext4.h). */
#define E4_BAD_INO		1
#define E4_ROOT_INO		2
#define E4_USR_QUOTA_INO	3
#define E4_GRP_QUOTA_INO	4
#define E4_BOOT_LOADER_INO	5
#define E4_RESIZE_INO		7
#define E4_JOURNAL_INO		8

/*
 * One inode's walk, bounded: a corrupt (cross-linked, looping) extent tree or
 * indirect tree can name the same map block again and again, 2^30 data blocks and more. Each
 * map block is visited once, and the walk stops after more blocks than the inode can own.
 */
struct e4_walk {
	uint64_t *seen;			/* map blocks visited: open addressing, 0 = empty */
	size_t cap, nr;
	uint64_t steps, max_steps;	/* blocks reported so far; the inode's bound */
	int stopped;			/* the map loops or is cross-linked: walk stopped */
};

struct e4 {
	ext2_filsys fs;
	const struct map_ix_query *q;
	size_t nq;
	uint64_t bs;			/* block size, bytes */
	struct map_ix_hits *h;
	unsigned unreadable;		/* blocks the read error handler zeroed */
	unsigned looped;		/* inodes whose block map loops or is cross-linked */
	struct e4_walk w;
	uint64_t last_ino, last_pblk, last_len;	/* the last data extent matched */
	int err;
};

/* Return 1 when pblk was visited already (or cannot be a map block), 0 after noting it,
 * -ENOMEM. */
static int e4_seen(struct e4_walk *w, uint64_t pblk)
{
	size_t i;

	if (pblk == 0)
		return 1;
	if (2 * (w->nr + 1) > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		uint64_t *n = calloc(cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t k = 0; k < w->cap; k++) {
			if (!w->seen[k])
				continue;
			for (i = (size_t)(w->seen[k] * 0x9e3779b97f4a7c15ull) & (cap - 1); n[i];
			     i = (i + 1) & (cap - 1))
				;
			n[i] = w->seen[k];
		}
		free(w->seen);
		w->seen = n;
		w->cap = cap;
	}
	for (i = (size_t)(pblk * 0x9e3779b97f4a7c15ull) & (w->cap - 1); w->seen[i];
	     i = (i + 1) & (w->cap - 1))
		if (w->seen[i] == pblk)
			return 1;
	w->seen[i] = pblk;
	w->nr++;
	return 0;
}

/* Start the bounded walk of one inode that says it owns blocks512 512-byte sectors. */
static void e4_walk_start(struct e4 *c, uint64_t blocks512)
{
	uint64_t total = ext2fs_blocks_count(c->fs->super);
	uint64_t own = blocks512 / (c->bs / 512);

	if (c->w.nr && c->w.cap > 4096) {	/* a big one: do not clear it per inode */
		free(c->w.seen);
		c->w.seen = NULL;
		c->w.cap = 0;
	} else if (c->w.nr) {
		memset(c->w.seen, 0, sizeof(*c->w.seen) * c->w.cap);
	}
	c->w.nr = 0;
	c->w.steps = 0;
	c->w.stopped = 0;
	/* A block once: never more than i_blocks says, nor than the filesystem holds. */
	c->w.max_steps = (own < total ? own : total) + 16;
}

/* Return 1 when the walk must stop here (a map block seen twice, or too many blocks). */
static int e4_walk_step(struct e4 *c, int map_block, uint64_t pblk, uint64_t nblocks)
{
	int ret;

	c->w.steps += nblocks;
	if (c->w.steps > c->w.max_steps) {
		c->w.stopped = 1;
		return 1;
	}
	if (!map_block)
		return 0;
	ret = e4_seen(&c->w, pblk);
	if (ret < 0) {
		c->err = ret;
		return 1;
	}
	if (ret)
		c->w.stopped = 1;
	return ret;
}

/* How to name the blocks of inode ino (kind, meta_type) for the owner template. */
static void e4_template(const struct e4 *c, ext2_ino_t ino, const struct ext2_inode_large *in,
		       struct map_owner *o)
{
	const struct ext2_super_block *sb = c->fs->super;

	memset(o, 0, sizeof(*o));
	o->inode = ino;
	o->gen = in->i_generation;
	o->ag = -1;
	o->kind = MAP_OWN_FILE;
	if (LINUX_S_ISDIR(in->i_mode))
		o->flags |= MAP_OWNF_DIR;
	if (in->i_links_count == 0)
		o->flags |= MAP_OWNF_UNLINKED;	/* an orphan: unlinked while open */
	if (ino == E4_ROOT_INO || ino >= EXT2_FIRST_INO(sb))
		goto check_quota;
	o->kind = MAP_OWN_METADATA;
	o->note = NULL;
	if (ino == sb->s_journal_inum || ino == E4_JOURNAL_INO) {
		o->kind = MAP_OWN_LOG;
		o->meta_type = "journal";
	} else if (ino == E4_RESIZE_INO) {
		o->meta_type = "resize-inode";		/* reserved GDT blocks and their map */
	} else if (ino == E4_BAD_INO) {
		o->meta_type = "bad-blocks-inode";
	} else if (ino == E4_BOOT_LOADER_INO) {
		o->meta_type = "boot-loader-inode";
	} else if (ino == E4_USR_QUOTA_INO || ino == E4_GRP_QUOTA_INO) {
		o->meta_type = "quota";
	} else {
		o->meta_type = "reserved-inode";
	}
	return;
check_quota:
	if (ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
	    ino == sb->s_prj_quota_inum) {
		o->kind = MAP_OWN_METADATA;
		o->meta_type = "quota";
	} else if (ino == sb->s_orphan_file_inum) {
		o->kind = MAP_OWN_METADATA;
		o->meta_type = "orphan-file";
	} else if (ino == sb->s_journal_inum) {
		o->kind = MAP_OWN_LOG;
		o->meta_type = "journal";
	}
}

/* Match file blocks [lblk, lblk+len) at pblk. */
static int e4_data(struct e4 *c, const struct map_owner *tmpl, uint64_t lblk, uint64_t pblk,
		   uint64_t len, int unwritten)
{
	struct map_owner o = *tmpl;

	/* A cross-linked map names the same blocks again and again: once is enough. */
	if (c->last_ino == tmpl->inode && c->last_pblk == pblk && c->last_len == len)
		return 0;
	c->last_ino = tmpl->inode;
	c->last_pblk = pblk;
	c->last_len = len;
	if (unwritten)
		o.flags |= MAP_OWNF_UNWRITTEN;
	return map_ix_match(c->q, c->nq, pblk * c->bs, (pblk + len) * c->bs, lblk * c->bs, &o,
			    c->h);
}

/* A block of the inode's own map (extent tree node, indirect block) that maps file blocks
 * from from_lblk on. */
static int e4_map_block(struct e4 *c, const struct map_owner *tmpl, uint64_t pblk,
			const char *what, uint64_t from_lblk)
{
	struct map_owner o = *tmpl;
	size_t before = c->h->nr;
	int ret;

	if (o.kind == MAP_OWN_FILE) {
		o.kind = MAP_OWN_METADATA;
		o.flags |= MAP_OWNF_BMBT;
		o.meta_type = what;
	}
	o.flags |= MAP_OWNF_MAP_FROM;
	ret = map_ix_match(c->q, c->nq, pblk * c->bs, (pblk + 1) * c->bs, 0, &o, c->h);
	for (size_t i = before; i < c->h->nr; i++)
		c->h->v[i].o.file_offset = from_lblk * c->bs;
	return ret;
}

/* Does any query touch [pblk, pblk+len) blocks? (cheap pre-check) */
static int e4_touches(const struct e4 *c, uint64_t pblk, uint64_t len)
{
	size_t i = map_ix_first(c->q, c->nq, pblk * c->bs);

	return i < c->nq && c->q[i].start < (pblk + len) * c->bs;
}

/* Extents of a tree deeper than the inode: the libext2fs extent API. */
static int e4_extent_tree(struct e4 *c, ext2_ino_t ino, struct ext2_inode_large *in,
			  const struct map_owner *tmpl)
{
	ext2_extent_handle_t eh;
	struct ext2fs_extent ex;
	errcode_t err;
	int op = EXT2_EXTENT_ROOT, ret = 0;

	err = ext2fs_extent_open2(c->fs, ino, (struct ext2_inode *)in, &eh);
	if (err)
		return 0;			/* a damaged tree: its blocks stay "not found" */
	for (;;) {
		err = ext2fs_extent_get(eh, op, &ex);
		op = EXT2_EXTENT_NEXT;
		if (err == EXT2_ET_EXTENT_NO_NEXT)
			break;
		if (err)
			break;
		if (ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (e4_walk_step(c, !(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF), ex.e_pblk,
				 ex.e_flags & EXT2_EXTENT_FLAGS_LEAF ? ex.e_len : 1)) {
			ret = c->err;
			break;
		}
		if (ex.e_flags & EXT2_EXTENT_FLAGS_LEAF)
			ret = e4_data(c, tmpl, ex.e_lblk, ex.e_pblk, ex.e_len,
				      !!(ex.e_flags & EXT2_EXTENT_FLAGS_UNINIT));
		else
			ret = e4_map_block(c, tmpl, ex.e_pblk, "extent-tree", ex.e_lblk);
		if (ret < 0)
			break;
	}
	ext2fs_extent_free(eh);
	return ret;
}

struct e4_iter {
	struct e4 *c;
	const struct map_owner *tmpl;
	uint64_t next_lblk;		/* file block after the last data block seen */
};

static int e4_block_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		       int ref_offset, void *priv)
{
	struct e4_iter *it = priv;
	int ret;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (e4_walk_step(it->c, blockcnt < 0, *blocknr, 1))
		return BLOCK_ABORT;
	if (blockcnt < 0) {
		/* called before the blocks it maps: they start after the last data block */
		ret = e4_map_block(it->c, it->tmpl, *blocknr, "indirect-block", it->next_lblk);
	} else {
		it->next_lblk = (uint64_t)blockcnt + 1;
		ret = e4_data(it->c, it->tmpl, (uint64_t)blockcnt, *blocknr, 1, 0);
	}
	if (ret < 0) {
		it->c->err = ret;
		return BLOCK_ABORT;
	}
	return 0;
}

/* Every block of one in-use inode. */
static int e4_inode(struct e4 *c, ext2_ino_t ino, struct ext2_inode_large *in)
{
	struct map_owner tmpl;
	blk64_t acl;
	int ret = 0;

	e4_template(c, ino, in, &tmpl);
	e4_walk_start(c, ext2fs_get_stat_i_blocks(c->fs, (struct ext2_inode *)in));
	acl = ext2fs_file_acl_block(c->fs, (struct ext2_inode *)in);
	if (acl && e4_touches(c, acl, 1)) {
		struct map_owner o = tmpl;

		if (o.kind == MAP_OWN_FILE)
			o.flags |= MAP_OWNF_ATTR_FORK;	/* the file's extended attribute block */
		ret = map_ix_match(c->q, c->nq, acl * c->bs, (acl + 1) * c->bs, 0, &o, c->h);
		if (ret < 0)
			return ret;
	}
	if (in->i_flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		const struct ext3_extent_header *eh = (const void *)in->i_block;

		if (eh->eh_magic != EXT3_EXT_MAGIC)
			return 0;
		if (eh->eh_depth) {
			ret = e4_extent_tree(c, ino, in, &tmpl);
			c->looped += c->w.stopped;
			return ret;
		}
		/* Depth 0: the extents are in the inode; no block to read. */
		const struct ext3_extent *ex = (const void *)(eh + 1);
		unsigned n = eh->eh_entries;

		if (n > 4)
			n = 4;
		for (unsigned i = 0; i < n; i++) {
			uint64_t pblk = (uint64_t)ex[i].ee_start_hi << 32 | ex[i].ee_start;
			unsigned len = ex[i].ee_len;
			int unwritten = len > EXT_INIT_MAX_LEN;

			if (unwritten)
				len -= EXT_INIT_MAX_LEN;
			if (!e4_touches(c, pblk, len))
				continue;
			ret = e4_data(c, &tmpl, ex[i].ee_block, pblk, len, unwritten);
			if (ret < 0)
				return ret;
		}
		return 0;
	}
	if (!ext2fs_inode_has_valid_blocks2(c->fs, (struct ext2_inode *)in))
		return 0;			/* fast symlink, device node */
	struct e4_iter it = { .c = c, .tmpl = &tmpl };

	ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, e4_block_cb, &it);
	c->looped += c->w.stopped;
	return c->err;
}

int map_index_ext4(struct map_target *fsx, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable, char *why, size_t whylen)
{
	struct ext2_inode_large in;
	ext2_inode_scan scan;
	ext2_filsys fs = NULL;
	ext2_ino_t ino;
	errcode_t err;
	struct e4 c = { .q = q, .nq = nq, .h = h };
	int ret = 0;

	*unreadable = 0;
	map_ext4_refuse = fsx;
	err = map_ext4_open_ro(fsx, &fs);
	if (err) {
		snprintf(why, whylen, "libext2fs cannot open %s: %s", fsx->devices[0].path,
			 error_message(err));
		return -EIO;
	}
	c.fs = fs;
	c.bs = fs->blocksize;
	map_ext4_unreadable = &c.unreadable;
	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err) {
		snprintf(why, whylen, "libext2fs cannot scan the inodes of %s: %s",
			 fsx->devices[0].path, error_message(err));
		ret = -EIO;
		goto out_close;
	}
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE | EXT2_SF_DO_LAZY, 0);
	ext2_ino_t bad_ino = 0;

	for (uint64_t bad = 0;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&in, sizeof(in));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		/*
		 * One inode the library rejects (garbage, a bad checksum it would not ignore) is
		 * recorded against that inode and skipped; the scan has moved past it. Bounded
		 * by the inode count, and stopped if it did not.
		 */
		if (err && err != EXT2_ET_NO_MEMORY && ino && ino != bad_ino &&
		    ++bad <= (uint64_t)fs->super->s_inodes_count) {
			c.unreadable++;
			bad_ino = ino;		/* the scan must move on, or we stop */
			continue;
		}
		if (err) {
			snprintf(why, whylen, "reading the inode tables of %s: %s",
				 fsx->devices[0].path, error_message(err));
			ret = -EIO;
			break;
		}
		if (!ino)
			break;
		/* Deleted inodes have no extents left; orphans (open, unlinked) still do. */
		if (in.i_mode == 0 && ino >= EXT2_FIRST_INO(fs->super))
			continue;
		ret = e4_inode(&c, ino, &in);
		if (ret < 0) {
			snprintf(why, whylen, "out of memory");
			break;
		}
	}
	ext2fs_close_inode_scan(scan);
out_close:
	map_ext4_unreadable = NULL;
	free(c.w.seen);
	*unreadable = c.unreadable;
	if (map_fsx_get(fsx))
		map_fsx_get(fsx)->looped_maps = c.looped;
	ext2fs_close_free(&fs);
	/* FIEMAP confirms against the running kernel; unmounted (MAP_FSC_RAW), the extent trees
	 * libext2fs read are the authority. */
	if (ret == 0 && fsx->mount_fd >= 0)
		ret = map_ix_confirm(fsx, h);
	return ret;
}

int map_ext4_itable_inodes(struct map_target *fsx, uint64_t off, uint64_t len, int whole_unit,
			   uint64_t *inos, size_t max)
{
	ext2_filsys fs = NULL;
	uint64_t bs, isz, ipg, tbytes;
	size_t n = 0;

	map_ext4_refuse = fsx;
	if (map_ext4_open_ro(fsx, &fs))
		return -EIO;
	bs = fs->blocksize;
	isz = EXT2_INODE_SIZE(fs->super);
	ipg = fs->super->s_inodes_per_group;
	tbytes = (uint64_t)fs->inode_blocks_per_group * bs;
	/* the kernel reads the table a block at a time: a bad sector loses the whole block */
	if (whole_unit) {
		len = (off + len + bs - 1) / bs * bs - off / bs * bs;
		off = off / bs * bs;
	}
	for (dgrp_t g = 0; g < fs->group_desc_count && n < max && isz; g++) {
		uint64_t start = (uint64_t)ext2fs_inode_table_loc(fs, g) * bs, pos;

		if (!start || start >= off + len || start + tbytes <= off)
			continue;
		pos = off > start ? off - (off - start) % isz : start;
		for (; pos < off + len && pos < start + tbytes && n < max; pos += isz) {
			uint64_t idx = (pos - start) / isz;

			if (idx < ipg)
				inos[n++] = (uint64_t)g * ipg + idx + 1;
		}
	}
	ext2fs_close_free(&fs);
	return (int)n;
}

#else

int map_ext4_itable_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			   uint64_t *inos, size_t max)
{
	(void)fs;
	(void)off;
	(void)len;
	(void)whole_unit;
	(void)inos;
	(void)max;
	return -EOPNOTSUPP;
}

int map_index_ext4(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable, char *why, size_t whylen)
{
	(void)fs;
	(void)q;
	(void)nq;
	(void)h;
	*unreadable = 0;
	snprintf(why, whylen, "built without libext2fs");
	return -EOPNOTSUPP;
}

#endif
