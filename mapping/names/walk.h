/*
 * mapping/names/walk.h - one bounded directory walk with callbacks, used to name inodes (names.c)
 * and to build the FIEMAP owner index (index.c): depth bounded, paths grown past PATH_MAX,
 * other filesystems mounted below not entered, and every directory that could not be opened,
 * read or walked (deeper than the bound) counted, never skipped silently.
 */
#ifndef MEDIASCAN_WALK_H
#define MEDIASCAN_WALK_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Deepest directory level walked; deeper ones are counted in map_walk.unreadable_dirs. */
#define MAP_WALK_MAX_DEPTH 4096

struct map_walk {
	/*
	 * Called for every entry but "." and "..": the open directory dirfd, the entry's name,
	 * inode number and d_type (DT_UNKNOWN possible), and its absolute path. A negative
	 * return stops the walk with that error. NULL: not called.
	 */
	int (*entry)(struct map_walk *w, int dirfd, const char *name, uint64_t ino,
		     unsigned char type, const char *path);
	/*
	 * Called for each directory (the root too) before its entries: fd open O_RDONLY
	 * O_DIRECTORY, st its stat. A negative return stops the walk. NULL: not called.
	 */
	int (*dir)(struct map_walk *w, int fd, const struct stat *st, const char *path);
	/*
	 * Return 1 when the entry (inode ino, d_type type, absolute path) must not be opened,
	 * stat'ed or entered (its metadata is known bad); called after entry(). NULL: none.
	 */
	int (*skip)(struct map_walk *w, uint64_t ino, unsigned char type, const char *path);
	/* Return 1 when the walk may stop (all found). NULL: walk everything. */
	int (*done)(struct map_walk *w);
	void *arg;			/* the caller's state */
	/* set by the walk */
	dev_t dev;			/* st_dev of the root: other filesystems are not entered */
	unsigned unreadable_dirs;	/* directories not opened, not read, or too deep */
	unsigned skipped;		/* entries skip() refused */
};

/**
 * map_walk_tree() - walk the tree under a root.
 * @root: the root directory (its path is written as "" when root is "/", so paths come out as
 *        "/a/b")
 * @w: the callbacks and what the walk sets
 *
 * Return: 0, -errno when the root cannot be opened, -ENOMEM, or the first negative return of a
 * callback.
 */
int map_walk_tree(const char *root, struct map_walk *w);

#endif
