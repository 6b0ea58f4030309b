/*
 * mapping/fs/fs_ext4_raw.c - an ext4 that nothing mounts (a bare device, or a partition of a
 * disk such as a VM's disk in a thin volume, for which the kernel may have no partition
 * device) behind the ops table (fs.h). It is read from the raw device with libext2fs through
 * the read-only io_manager (io_ext4.c), at the partition's byte offset: owners from the
 * filesystem's own layout and block bitmaps (there is no GETFSMAP to ask), files from its
 * extent trees (the index of index_ext4.c; no FIEMAP: nothing is mounted), names from its
 * directory tree. Nothing is mounted, written or replayed: what it says is as of the
 * filesystem's last write to disk.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_config.h"
#include "damage.h"
#include "fs.h"
#include "index_ext4.h"
#include "owners.h"

#if HAVE_EXT2FS
#include <ext2fs/ext2fs.h>

#include "ext4_int.h"

#define RAW_SB_OFFSET	1024
#define RAW_MAGIC_OFF	0x38
#define RAW_MAGIC	0xef53

static const char *const NOTE_RAW =
	"allocated, owner not found: no inode maps this block (one leaked by corruption, or in "
	"flux when the filesystem was last written: e2fsck -fn can tell)";

int map_ext4_raw_open(struct map_target *t, char *why, size_t whylen)
{
	/* the 1 KiB superblock read with O_DIRECT in the aligned 4 KiB (8 KiB when it straddles)
	 * holding it: a disk being scanned is not read through the page cache */
	uint64_t at = t->fs_base_bytes + RAW_SB_OFFSET, start = at & ~(uint64_t)4095;
	size_t len = at - start + 1024 <= 4096 ? 4096 : 8192;
	unsigned char *buf = NULL, *sb;
	ext2_filsys fs = NULL;
	errcode_t err;
	ssize_t n;
	int fd;

	why[0] = 0;
	fd = kio_open_direct(t->devices[0].path);
	if (fd < 0)
		return fd;
	if (posix_memalign((void **)&buf, 4096, 8192)) {
		kio_close(fd);
		return -ENOMEM;
	}
	n = kio_pread(fd, buf, len, start);
	kio_close(fd);
	sb = buf + (at - start);
	if (n < 0) {
		free(buf);
		snprintf(why, whylen, "its superblock cannot be read: %s", strerror((int)-n));
		return (int)n;
	}
	if ((uint64_t)n < at - start + 1024 ||
	    (sb[RAW_MAGIC_OFF] | sb[RAW_MAGIC_OFF + 1] << 8) != RAW_MAGIC) {
		free(buf);
		return -ENOENT;
	}
	free(buf);
	map_ext4_refuse = NULL;
	err = map_ext4_open_ro(t, &fs);
	if (err) {
		snprintf(why, whylen, "an ext4 superblock is there, but libext2fs cannot open it "
			 "read-only: %s", error_message(err));
		return -EUCLEAN;
	}
	t->fs_block_size = fs->blocksize;
	t->fs_size_bytes = ext2fs_blocks_count(fs->super) * fs->blocksize;
	map_format_uuid(fs->super->s_uuid, t->uuid, sizeof(t->uuid));
	t->fs_needs_recovery = ext2fs_has_feature_journal_needs_recovery(fs->super);
	ext2fs_close_free(&fs);
	snprintf(t->fs_type, sizeof(t->fs_type), "ext4");
	t->ops = &map_fs_ext4_raw;
	return 0;
}

/* ---- owners from the layout and the block bitmaps ---- */

/* What one block is. */
struct raw_cls {
	enum map_owner_kind kind;
	const char *what;
	uint32_t flags;
};

/* A run of static metadata blocks: a group's bitmaps or inode table. */
struct raw_ext {
	blk64_t start, len;
	const char *what;
};

struct raw_ctx {
	ext2_filsys fs;
	const struct map_target *t;
	struct raw_ext *lay;		/* every group's bitmaps and inode table, sorted */
	size_t nlay;
	dgrp_t bm_group;		/* the group whose block bitmap is in bm */
	int bm_state;			/* 0 none read, 1 read, 2 uninit (free), 3 cannot read */
	unsigned char *bm;
};

static int cmp_ext(const void *a, const void *b)
{
	const struct raw_ext *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Return 0 after listing every group's bitmaps and inode table (with flex_bg they may sit in
 * any group) sorted by block, or -ENOMEM. */
static int raw_layout(struct raw_ctx *c)
{
	ext2_filsys fs = c->fs;

	c->lay = calloc((size_t)fs->group_desc_count * 3 + 1, sizeof(*c->lay));
	if (!c->lay)
		return -ENOMEM;
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		struct raw_ext e[3] = {
			{ ext2fs_block_bitmap_loc(fs, g), 1, "block-bitmap" },
			{ ext2fs_inode_bitmap_loc(fs, g), 1, "inode-bitmap" },
			{ ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group, "inode-table" },
		};

		for (int k = 0; k < 3; k++)
			if (e[k].start)
				c->lay[c->nlay++] = e[k];
	}
	qsort(c->lay, c->nlay, sizeof(*c->lay), cmp_ext);
	return 0;
}

/* Superblock, group descriptors, reserved GDT, bitmaps, inode tables: the static layout. */
static const char *raw_static(const struct raw_ctx *c, blk64_t b)
{
	ext2_filsys fs = c->fs;
	dgrp_t g = ext2fs_group_of_blk2(fs, b);
	blk64_t super = 0, old = 0, new = 0;
	blk64_t desc = ext2fs_has_feature_meta_bg(fs->super) ? fs->super->s_first_meta_bg :
			fs->desc_blocks;
	blk_t used = 0;
	size_t lo = 0, hi = c->nlay;

	if (g < fs->group_desc_count &&
	    ext2fs_super_and_bgd_loc2(fs, g, &super, &old, &new, &used) == 0) {
		if (ext2fs_bg_has_super(fs, g) && b == super)
			return "superblock";
		if (old && b >= old && b < old + desc)
			return "group-descriptors";
		if (old && b >= old + desc && b < old + desc + fs->super->s_reserved_gdt_blocks)
			return "reserved-gdt";
		if (new && b == new)
			return "group-descriptors";
	}
	while (lo < hi) {			/* the last run starting at or before b */
		size_t mid = (lo + hi) / 2;

		if (c->lay[mid].start <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* runs do not overlap on a sane filesystem; look back a little in case they do */
	for (size_t k = lo; k > 0 && lo - k < 4; k--)
		if (b < c->lay[k - 1].start + c->lay[k - 1].len)
			return c->lay[k - 1].what;
	return NULL;
}

/* Return 1 when block b is in use by the block bitmap, 0 free, -1 the bitmap cannot say. */
static int raw_in_use(struct raw_ctx *c, blk64_t b)
{
	ext2_filsys fs = c->fs;
	dgrp_t g = ext2fs_group_of_blk2(fs, b);
	uint64_t bs = fs->blocksize, bit;

	if (c->bm_state == 0 || c->bm_group != g) {
		blk64_t loc = ext2fs_block_bitmap_loc(fs, g);
		unsigned zeroed = 0;

		c->bm_group = g;
		c->bm_state = 1;
		if (ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT)) {
			c->bm_state = 2;
		} else if (!loc || loc >= ext2fs_blocks_count(fs->super) ||
			   map_fsx_is_bad(c->t, loc * bs, (loc + 1) * bs)) {
			c->bm_state = 3;	/* known bad: never read again */
		} else {
			map_ext4_unreadable = &zeroed;
			if (io_channel_read_blk64(fs->io, loc, 1, c->bm) || zeroed)
				c->bm_state = 3;
			map_ext4_unreadable = NULL;
		}
	}
	if (c->bm_state == 2)
		return 0;
	if (c->bm_state == 3)
		return -1;
	bit = EXT2FS_B2C(fs, b - ext2fs_group_first_block2(fs, g));
	return !!(c->bm[bit >> 3] & (1u << (bit & 7)));
}

/* What block b is: past the end, the boot block, static metadata, free, or in use (pending). */
static void raw_classify(struct raw_ctx *c, blk64_t b, struct raw_cls *k)
{
	const char *what;
	int used;

	memset(k, 0, sizeof(*k));
	if (b >= ext2fs_blocks_count(c->fs->super)) {
		k->kind = MAP_OWN_DEVICE;
		k->what = "outside-filesystem";
		return;
	}
	if (b == 0 && c->fs->blocksize == 1024) {	/* the superblock starts at block 1 */
		k->kind = MAP_OWN_DEVICE;
		k->what = "boot-block";
		return;
	}
	what = raw_static(c, b);
	if (what) {
		k->kind = MAP_OWN_METADATA;
		k->what = what;
		return;
	}
	used = raw_in_use(c, b);
	if (used == 0) {
		k->kind = MAP_OWN_FREE;
		k->what = "free";
		return;
	}
	/* In use (or its bitmap unreadable): the index over the inodes finds the owner. */
	k->kind = MAP_OWN_UNKNOWN;
	k->what = "unknown";
	k->flags = MAP_OWNF_PENDING | (used < 0 ? MAP_OWNF_NOMAP : 0);
}

static void raw_ctx_free(void *p)
{
	struct raw_ctx *c = p;

	if (!c)
		return;
	free(c->lay);
	free(c->bm);
	ext2fs_close_free(&c->fs);
	free(c);
}

/*
 * The raw filesystem open once per target: libext2fs's open reads the superblock and every
 * group descriptor (512 KiB on 2 TiB) and the layout sorts every group's runs, which a
 * thousand bad ranges must not repeat. NULL when it cannot be opened (asked again next time).
 */
static struct raw_ctx *raw_ctx_get(struct map_target *t)
{
	struct map_fsx *x = map_fsx_get(t);
	struct raw_ctx *c;

	if (!x)
		return NULL;
	if (x->raw)
		return x->raw;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->t = t;
	if (map_ext4_open_ro(t, &c->fs)) {
		free(c);
		return NULL;
	}
	c->bm = malloc(c->fs->blocksize);
	if (!c->bm || raw_layout(c) < 0) {
		raw_ctx_free(c);
		return NULL;
	}
	x->raw = c;
	x->raw_free = raw_ctx_free;
	return c;
}

/*
 * Owners of [offset, offset+length) of the filesystem, block by block, runs of one kind
 * merged. No GETFSMAP: what the layout and the block bitmaps say; file data left pending for
 * the index (raw_index_owners).
 */
static int raw_owners(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr)
{
	struct raw_ctx *c;
	uint64_t end = offset + length, bs, pos;
	struct map_owner o;
	size_t before = *nr;
	int have = 0, ret = 0;

	map_ext4_refuse = t;
	c = raw_ctx_get(t);
	if (!c)
		return -EIO;
	c->bm_state = 0;	/* the bitmaps read afresh each time: a guest may be writing */
	bs = c->fs->blocksize;
	for (pos = offset; pos < end;) {
		uint64_t b = pos / bs, piece = ((b + 1) * bs < end ? (b + 1) * bs : end) - pos;
		struct raw_cls k;

		raw_classify(c, b, &k);
		if (have && o.kind == k.kind && o.meta_type == k.what && o.flags == k.flags &&
		    o.dev_offset + o.length == pos) {
			o.length += piece;
		} else {
			if (have && (ret = map_owners_push(owners, nr, &o)) < 0)
				return ret;
			memset(&o, 0, sizeof(o));
			o.kind = k.kind;
			o.meta_type = k.what;
			o.flags = k.flags;
			o.dev_idx = dev_idx;
			o.dev_offset = o.fs_offset = pos;
			o.length = piece;
			o.ag = -1;
			if (k.kind == MAP_OWN_DEVICE)
				o.part = t->self_part;
			have = 1;
		}
		pos += piece;
	}
	if (have)
		ret = map_owners_push(owners, nr, &o);
	return ret < 0 ? ret : (int)(*nr - before);
}

/* The index over every inode's extents, read from the raw device; no FIEMAP to confirm. */
static int raw_index_owners(struct map_target *fs, int rt, const struct map_ix_query *q,
			    size_t nq, struct map_ix_hits *h, struct map_damage *d,
			    const char **note, char *why, size_t whylen)
{
	unsigned unreadable = 0;
	int ret;

	(void)rt;
	*note = NOTE_RAW;
	ret = map_index_ext4(fs, q, nq, h, &unreadable, why, whylen);
	if (unreadable)
		d->notes |= MAP_NOTE_UNREADABLE_META;
	if (fs->x && fs->x->looped_maps)
		d->notes |= MAP_NOTE_LOOPED_MAP;
	return ret;
}

/* ---- names: one walk of the directory tree from the raw device ---- */

struct raw_names {
	struct map_inode_paths *want;	/* sorted by inode */
	size_t nr;
};

static int cmp_paths_inode(const void *a, const void *b)
{
	const struct map_inode_paths *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* Return 0 after adding path to inode ino's paths, or -ENOMEM. */
static int raw_add_path(struct map_inode_paths *p, const char *path, int is_dir)
{
	char **v = realloc(p->paths, sizeof(*v) * (p->nr_paths + 1));

	if (!v)
		return -ENOMEM;
	p->paths = v;
	v[p->nr_paths] = strdup(path);
	if (!v[p->nr_paths])
		return -ENOMEM;
	p->nr_paths++;
	p->nlink = p->nr_paths;
	p->is_dir = is_dir;
	return 0;
}

/* One directory entry of the walk: a path of a wanted inode is kept. Return 0, or -ENOMEM. */
static int raw_name_one(void *arg, uint64_t ino, unsigned char type, const char *path)
{
	struct raw_names *rn = arg;
	struct map_inode_paths key = { .inode = ino }, *p;

	p = bsearch(&key, rn->want, rn->nr, sizeof(*rn->want), cmp_paths_inode);
	return p ? raw_add_path(p, path, type == DT_DIR) : 0;
}

/*
 * Name want[] by one walk from the root, every hard link found; paths are from the
 * filesystem's root ("/dir/file": there is no mount point). Directory blocks known bad are
 * not read: names below them are missing and counted in d->unreadable_dirs.
 */
static int raw_name_inodes(struct map_target *fs, struct map_inode_paths *want, size_t nr,
			   struct map_damage *d)
{
	struct raw_names rn = { .want = want, .nr = nr };
	struct map_inode_paths key = { .inode = EXT2_ROOT_INO }, *root;
	int ret;

	qsort(want, nr, sizeof(*want), cmp_paths_inode);
	root = bsearch(&key, want, nr, sizeof(*want), cmp_paths_inode);
	if (root && !root->nr_paths && raw_add_path(root, "/", 1) < 0)
		return -ENOMEM;
	ret = map_ext4_name_below(fs, EXT2_ROOT_INO, "", raw_name_one, &rn);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0 && d) {
		d->unreadable_dirs++;
		if (ret != -EIO && !d->paths_err)
			d->paths_err = ret;
	}
	return 0;
}

const struct map_fs_ops map_fs_ext4_raw = {
	.name = "ext4",
	.caps = MAP_FSC_RAW,
	.group_name = "block group",
	.owners = raw_owners,
	.index_owners = raw_index_owners,
	.unit_inodes = map_ext4_itable_inodes,
	.name_inodes = raw_name_inodes,
	.name_below = map_ext4_name_below,
};

#else

int map_ext4_raw_open(struct map_target *t, char *why, size_t whylen)
{
	(void)t;
	(void)whylen;
	why[0] = 0;			/* without libext2fs: read whole, as before */
	return -EOPNOTSUPP;
}

const struct map_fs_ops map_fs_ext4_raw = {
	.name = "ext4",
	.caps = MAP_FSC_RAW,
};

#endif
