/*
 * mapping/names.c - inode numbers to every path by one directory walk (walk.c) that stops
 * once every wanted inode has all its links; directories the walk could not read are
 * counted, so the report can say that paths below them may be missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kio.h"
#include "names.h"
#include "walk.h"

/* Sorting and search of wanted inodes by number. */
static int cmp_want(const void *a, const void *b)
{
	const struct map_inode_paths *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

struct names {
	struct map_inode_paths *want;
	size_t nr;
	size_t remaining;		/* inodes not yet fully named */
};

static struct map_inode_paths *names_find(struct names *s, uint64_t ino)
{
	struct map_inode_paths key = { .inode = ino };

	return bsearch(&key, s->want, s->nr, sizeof(*s->want), cmp_want);
}

/* Record path for a wanted inode (its link count from fstatat on first sight). */
static int names_hit(struct names *s, struct map_inode_paths *p, const char *path, int dirfd,
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
		s->remaining--;
	return 0;
}

static int names_entry(struct map_walk *w, int dirfd, const char *name, uint64_t ino,
		       unsigned char type, const char *path)
{
	struct names *s = w->arg;
	struct map_inode_paths *p = names_find(s, ino);

	(void)type;
	return p ? names_hit(s, p, path, dirfd, name) : 0;
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

int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs)
{
	struct names s = { .want = want, .nr = nr, .remaining = nr };
	struct map_walk w = { .entry = names_entry, .done = names_done, .arg = &s };
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
