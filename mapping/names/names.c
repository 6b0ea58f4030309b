/*
 * mapping/names/names.c - inode numbers to every path by one directory walk (walk.c) that stops
 * once every wanted inode has all its links; directories the walk could not read are
 * counted, so the report can say that paths below them may be missing.
 *
 * Do no harm: an inode whose metadata is known bad (map_fsx_tainted) is never opened or
 * stat'ed; the walk sees its name in its parent and does not enter it. Below such a directory
 * the filesystem may name entries from the raw device (map_fs_ops.name_below: ext4 through
 * libext2fs), never through the mounted filesystem (a lookup there reads the bad directory).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "kio.h"
#include "names.h"
#include "walk.h"

/* Sorting and search of wanted inodes by number. */
static int cmp_want(const void *a, const void *b)
{
	const struct map_inode_paths *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* A directory the walk did not enter (its metadata is bad): named below from the raw device. */
struct skipped_dir {
	uint64_t ino;
	char *path;
};

struct names {
	struct map_inode_paths *want;
	size_t nr;
	size_t remaining;		/* inodes not yet fully named */
	struct map_target *fs;		/* NULL: no knowledge of bad metadata */
	struct skipped_dir *skipped;
	size_t nr_skipped;
};

static struct map_inode_paths *names_find(struct names *s, uint64_t ino)
{
	struct map_inode_paths key = { .inode = ino };

	return bsearch(&key, s->want, s->nr, sizeof(*s->want), cmp_want);
}

/* Record path for a wanted inode (its link count from fstatat on first sight, unless dirfd is
 * -1 or its metadata is bad: then the type from the directory entry). */
static int names_hit(struct names *s, struct map_inode_paths *p, const char *path, int dirfd,
		     const char *name, unsigned char type)
{
	struct stat st;
	char **n;

	if (p->nlink && p->nr_paths >= p->nlink)
		return 0;
	if (p->nlink == 0 && !p->stat_failed &&
	    (dirfd < 0 || (s->fs && map_fsx_tainted(s->fs, p->inode)))) {
		p->stat_failed = EIO;		/* not asked: the walk goes on to find every link */
		p->is_dir = type == DT_DIR;
	} else if (p->nlink == 0 && !p->stat_failed) {
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
		s->remaining--;
	return 0;
}

static int names_entry(struct map_walk *w, int dirfd, const char *name, uint64_t ino,
		       unsigned char type, const char *path)
{
	struct names *s = w->arg;
	struct map_inode_paths *p = names_find(s, ino);

	return p ? names_hit(s, p, path, dirfd, name, type) : 0;
}

/* Entries whose inode's metadata is bad are not opened; directories among them are kept to be
 * named below from the raw device. */
static int names_skip(struct map_walk *w, uint64_t ino, unsigned char type, const char *path)
{
	struct names *s = w->arg;
	struct skipped_dir *n;

	if (!s->fs || !map_fsx_tainted(s->fs, ino))
		return 0;
	if (type != DT_DIR && type != DT_UNKNOWN)
		return 1;
	n = realloc(s->skipped, sizeof(*n) * (s->nr_skipped + 1));
	if (!n)
		return 1;
	s->skipped = n;
	n[s->nr_skipped].ino = ino;
	n[s->nr_skipped].path = strdup(path);
	if (n[s->nr_skipped].path)
		s->nr_skipped++;
	return 1;
}

/* One entry found below a skipped directory on the raw device. */
static int names_raw(void *arg, uint64_t ino, unsigned char type, const char *path)
{
	struct names *s = arg;
	struct map_inode_paths *p = names_find(s, ino);

	return p ? names_hit(s, p, path, -1, NULL, type) : 0;
}

static int names_done(struct map_walk *w)
{
	return ((struct names *)w->arg)->remaining == 0;
}

int map_path_is_inode(const char *path, uint64_t ino, uint32_t gen)
{
	uint64_t i;
	uint32_t g;

	if (!gen || kio_inode_ident(path, &i, &g) < 0)
		return 0;			/* cannot tell: not named */
	return i == ino && g == gen;
}

/* The walk, with knowledge of bad metadata when fs is given. */
static int paths_resolve(struct map_target *fs, const char *mount_point,
			 struct map_inode_paths *want, size_t nr, unsigned *unreadable_dirs)
{
	struct names s = { .want = want, .nr = nr, .remaining = nr, .fs = fs };
	struct map_walk w = { .entry = names_entry, .done = names_done, .skip = names_skip,
			      .arg = &s };
	struct map_inode_paths *p;
	struct stat st;
	int ret;

	if (nr == 0)
		return 0;
	qsort(want, nr, sizeof(*want), cmp_want);
	if (stat(mount_point, &st) < 0)
		return -errno;
	/* The mount point itself (the root directory) may be wanted. */
	p = names_find(&s, st.st_ino);
	if (p && p->nr_paths == 0) {
		p->nlink = 1;
		p->is_dir = 1;
		p->paths = calloc(1, sizeof(char *));
		if (p->paths && (p->paths[0] = strdup(mount_point))) {
			p->nr_paths = 1;
			s.remaining--;
		}
	}
	ret = map_walk_tree(mount_point, &w);
	if (unreadable_dirs)
		*unreadable_dirs = w.unreadable_dirs;
	for (size_t i = 0; i < s.nr_skipped; i++) {
		const struct map_fs_ops *ops = map_target_ops(fs);
		int r = -EOPNOTSUPP;

		if (ret == 0 && s.remaining && ops->name_below)
			r = ops->name_below(fs, s.skipped[i].ino, s.skipped[i].path, names_raw, &s);
		if (r < 0 && r != -ENOMEM && unreadable_dirs)
			(*unreadable_dirs)++;	/* names below it may be missing */
		if (r == -ENOMEM)
			ret = r;
		free(s.skipped[i].path);
	}
	free(s.skipped);
	return ret;
}

int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs)
{
	return paths_resolve(NULL, mount_point, want, nr, unreadable_dirs);
}

int map_paths_resolve_fs(struct map_target *fs, struct map_inode_paths *want, size_t nr,
			 unsigned *unreadable_dirs)
{
	return paths_resolve(fs, fs->mount_point, want, nr, unreadable_dirs);
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
