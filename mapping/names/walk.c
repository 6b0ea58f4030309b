/*
 * mapping/names/walk.c - the bounded directory walk (walk.h): getdents64 into one reused buffer
 * per depth, one open directory per level, the path grown as needed (never cut at PATH_MAX).
 * A tree deeper than MAP_WALK_MAX_DEPTH (any user can make one, to hide a file from damage
 * naming) is not walked below it and is counted, as are directories that cannot be opened
 * (EMFILE on very deep trees, EIO on a damaged block) or read. Directories are opened with
 * O_NOATIME (a walk must not write atimes), and an entry the caller's skip() refuses (an object
 * whose metadata is known bad) is never opened, stat'ed or entered: only its name is seen.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "walk.h"

#define WALK_BUF (32 * 1024)
#define WALK_BUF_LEVELS 512		/* shared buffers; deeper levels allocate their own */

struct walker {
	struct map_walk *w;
	char *bufs[WALK_BUF_LEVELS];	/* getdents64 buffer per depth */
	char *path;			/* the path being walked: grows, never cut at PATH_MAX */
	size_t cap;
};

/* Return 0 after making k->path hold at least need bytes, or -ENOMEM. */
static int path_room(struct walker *k, size_t need)
{
	size_t cap = k->cap ? k->cap : 256;
	char *n;

	if (need <= k->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	n = realloc(k->path, cap);
	if (!n)
		return -ENOMEM;
	k->path = n;
	k->cap = cap;
	return 0;
}

static int walk_done(struct walker *k)
{
	return k->w->done && k->w->done(k->w);
}

/* Open subdirectory name of dirfd and walk it; 0 or -errno (counted, not fatal, when it
 * cannot be opened). */
static int walk_dir(struct walker *k, int fd, size_t plen, unsigned depth);

/* openat a directory without touching its atime (O_NOATIME needs ownership or CAP_FOWNER). */
static int open_dir_noatime(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME | flags);

	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	return fd;
}

static int walk_sub(struct walker *k, int dirfd, const char *name, size_t plen, unsigned depth)
{
	struct stat st;
	int cfd = open_dir_noatime(dirfd, name, O_NOFOLLOW);

	if (cfd < 0) {
		/* EMFILE: deeper than the fds allow; EIO: damaged. Counted, not silent. */
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			k->w->unreadable_dirs++;
		return 0;
	}
	if (fstat(cfd, &st) < 0 || st.st_dev != k->w->dev || !S_ISDIR(st.st_mode)) {
		close(cfd);			/* another filesystem mounted here */
		return 0;
	}
	if (depth >= MAP_WALK_MAX_DEPTH) {
		k->w->unreadable_dirs++;
		close(cfd);
		return 0;
	}
	if (k->w->dir) {
		int ret = k->w->dir(k->w, cfd, &st, k->path);

		if (ret < 0) {
			close(cfd);
			return ret;
		}
	}
	return walk_dir(k, cfd, plen, depth);
}

/* Walk one directory (fd owned and closed here); recursion depth follows the tree. */
static int walk_dir(struct walker *k, int fd, size_t plen, unsigned depth)
{
	unsigned slot = depth < WALK_BUF_LEVELS ? depth : WALK_BUF_LEVELS - 1;
	char *buf, *own = NULL;
	int ret = 0;

	if (depth >= WALK_BUF_LEVELS - 1) {
		buf = own = malloc(WALK_BUF);	/* very deep trees: a buffer of its own */
	} else {
		if (!k->bufs[slot])
			k->bufs[slot] = malloc(WALK_BUF);
		buf = k->bufs[slot];
	}
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (ret == 0 && !walk_done(k)) {
		ssize_t n = getdents64(fd, buf, WALK_BUF);

		if (n <= 0) {
			if (n < 0)		/* a damaged directory block: note it, go on */
				k->w->unreadable_dirs++;
			break;
		}
		for (ssize_t pos = 0; pos < n && ret == 0 && !walk_done(k);) {
			struct dirent64 *de = (struct dirent64 *)(buf + pos);
			size_t nlen;

			pos += de->d_reclen;
			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			nlen = strlen(de->d_name);
			ret = path_room(k, plen + 1 + nlen + 1);
			if (ret < 0)
				break;
			k->path[plen] = '/';
			memcpy(k->path + plen + 1, de->d_name, nlen + 1);
			if (k->w->entry) {
				ret = k->w->entry(k->w, fd, de->d_name, de->d_ino, de->d_type,
						  k->path);
				if (ret < 0)
					break;
			}
			if (k->w->skip && k->w->skip(k->w, de->d_ino, de->d_type, k->path)) {
				k->w->skipped++;	/* known bad: not opened, not entered */
				continue;
			}
			if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)
				ret = walk_sub(k, fd, de->d_name, plen + 1 + nlen, depth + 1);
		}
	}
	k->path[plen] = '\0';
	free(own);
	close(fd);
	return ret;
}

int map_walk_tree(const char *root, struct map_walk *w)
{
	struct walker k = { .w = w };
	struct stat st;
	int fd, ret;

	w->unreadable_dirs = 0;
	w->skipped = 0;
	fd = open_dir_noatime(AT_FDCWD, root, 0);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	w->dev = st.st_dev;
	if (path_room(&k, strlen(root) + 2) < 0) {
		close(fd);
		return -ENOMEM;
	}
	snprintf(k.path, k.cap, "%s", strcmp(root, "/") ? root : "");
	ret = w->dir ? w->dir(w, fd, &st, root) : 0;
	if (ret < 0)
		close(fd);
	else
		ret = walk_dir(&k, fd, strlen(k.path), 0);
	free(k.path);
	for (unsigned i = 0; i < WALK_BUF_LEVELS; i++)
		free(k.bufs[i]);
	return ret;
}
