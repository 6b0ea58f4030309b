/*
 * mapping/names/names_ext4.c - naming below a damaged ext4 directory from the raw device: the entries
 * of each directory block that is not known bad, read with libext2fs through the read-only
 * io_manager (io_ext4.c), never through the mounted filesystem.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_config.h"
#include "fs.h"
#include "index_ext4.h"

#if HAVE_EXT2FS
#include <ext2fs/ext2fs.h>

#include "ext4_int.h"

#define E4_RAW_MAX_DEPTH 256
#define E4_RAW_MAX_ENTRIES (1u << 22)	/* bound on entries read below one directory */

struct e4_raw_ent {
	uint64_t ino;
	unsigned char type;
	char *name;
};

struct e4_raw {
	ext2_filsys fs;
	ext2_ino_t dir;
	char *buf;			/* one directory block */
	struct e4_raw_ent *v;
	size_t nr, cap;
	unsigned missing;		/* directory blocks refused (known bad) or unreadable */
	uint64_t total;			/* entries read so far, all directories */
	int err;
};

static unsigned char e4_dtype(int ft)
{
	switch (ft) {
	case EXT2_FT_REG_FILE: return DT_REG;
	case EXT2_FT_DIR: return DT_DIR;
	case EXT2_FT_CHRDEV: return DT_CHR;
	case EXT2_FT_BLKDEV: return DT_BLK;
	case EXT2_FT_FIFO: return DT_FIFO;
	case EXT2_FT_SOCK: return DT_SOCK;
	case EXT2_FT_SYMLINK: return DT_LNK;
	default: return DT_UNKNOWN;
	}
}

/* The entries of one directory block (never a known-bad one). */
static int e4_raw_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			int ref_offset, void *priv)
{
	struct e4_raw *r = priv;
	uint64_t bs = fs->blocksize;

	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	if (map_fsx_is_bad(map_ext4_refuse, *blocknr * bs, (*blocknr + 1) * bs) ||
	    ext2fs_read_dir_block4(fs, *blocknr, r->buf, 0, r->dir)) {
		r->missing++;
		return 0;
	}
	for (unsigned off = 0; off + 8 <= bs;) {
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(r->buf + off);
		unsigned rec_len, nlen;

		if (ext2fs_get_rec_len(fs, de, &rec_len) || rec_len < 8 || off + rec_len > bs)
			break;			/* corrupt: the rest of the block is lost */
		nlen = ext2fs_dirent_name_len(de);
		if (de->inode && nlen && nlen + 8 <= rec_len &&
		    !(de->name[0] == '.' && (nlen == 1 || (nlen == 2 && de->name[1] == '.')))) {
			if (r->nr == r->cap) {
				size_t cap = r->cap ? r->cap * 2 : 64;
				struct e4_raw_ent *n = realloc(r->v, sizeof(*n) * cap);

				if (!n) {
					r->err = -ENOMEM;
					return BLOCK_ABORT;
				}
				r->v = n;
				r->cap = cap;
			}
			r->v[r->nr].ino = de->inode;
			r->v[r->nr].type = e4_dtype(ext2fs_dirent_file_type(de));
			r->v[r->nr].name = strndup(de->name, nlen);
			if (!r->v[r->nr].name) {
				r->err = -ENOMEM;
				return BLOCK_ABORT;
			}
			r->nr++;
			if (++r->total > E4_RAW_MAX_ENTRIES)
				return BLOCK_ABORT;
		}
		off += rec_len;
	}
	return 0;
}

/* Name what lies below directory ino (at path) from the raw device; recursion is bounded. */
static int e4_raw_dir(struct e4_raw *top, ext2_ino_t ino, const char *path, unsigned depth,
		      int (*fn)(void *arg, uint64_t ino, unsigned char type, const char *path),
		      void *arg)
{
	struct e4_raw r = { .fs = top->fs, .dir = ino, .buf = top->buf, .total = top->total };
	struct ext2_inode in;
	int ret = 0;

	if (depth > E4_RAW_MAX_DEPTH)
		return -ELOOP;
	if (ext2fs_read_inode(top->fs, ino, &in) || !LINUX_S_ISDIR(in.i_mode))
		return -EIO;			/* its inode is unreadable (or zeroes: refused) */
	if (in.i_flags & EXT4_INLINE_DATA_FL)
		return -EOPNOTSUPP;		/* no blocks, so none bad: but not read here */
	ext2fs_block_iterate3(top->fs, ino, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY, NULL,
			      e4_raw_block, &r);
	top->total = r.total;
	top->missing += r.missing;
	for (size_t i = 0; i < r.nr && ret >= 0; i++) {
		size_t pl = strlen(path), nl = strlen(r.v[i].name);
		char *p = malloc(pl + 1 + nl + 1);

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		memcpy(p, path, pl);
		p[pl] = '/';
		memcpy(p + pl + 1, r.v[i].name, nl + 1);
		ret = fn(arg, r.v[i].ino, r.v[i].type, p);
		if (ret >= 0 && r.v[i].type == DT_DIR) {
			int sub = e4_raw_dir(top, (ext2_ino_t)r.v[i].ino, p, depth + 1, fn, arg);

			if (sub == -ENOMEM)
				ret = sub;
			else if (sub < 0)
				top->missing++;
		}
		free(p);
	}
	for (size_t i = 0; i < r.nr; i++)
		free(r.v[i].name);
	free(r.v);
	if (ret >= 0 && r.err)
		ret = r.err;
	return ret;
}

int map_ext4_name_below(struct map_target *fsx, uint64_t dir_ino, const char *path,
			int (*fn)(void *arg, uint64_t ino, unsigned char type, const char *path),
			void *arg)
{
	struct e4_raw top = { 0 };
	ext2_filsys fs = NULL;
	int ret;

	if (dir_ino > UINT32_MAX)
		return -EINVAL;
	map_ext4_refuse = fsx;
	if (map_ext4_open_ro(fsx, &fs))
		return -EIO;
	top.fs = fs;
	top.buf = malloc(fs->blocksize);
	ret = top.buf ? e4_raw_dir(&top, (ext2_ino_t)dir_ino, path, 0, fn, arg) : -ENOMEM;
	free(top.buf);
	ext2fs_close_free(&fs);
	if (ret >= 0 && top.missing)
		ret = -EIO;			/* some of it could not be read: names may be missing */
	return ret;
}

#else

int map_ext4_name_below(struct map_target *fs, uint64_t dir_ino, const char *path,
			int (*fn)(void *arg, uint64_t ino, unsigned char type, const char *path),
			void *arg)
{
	(void)fs;
	(void)dir_ino;
	(void)path;
	(void)fn;
	(void)arg;
	return -EOPNOTSUPP;
}

#endif
