/*
 * mapping/owners.c - owners of bad device ranges through GETFSMAP (reverse mapping), and
 * inode numbers to every path by one directory walk.
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
	const char *special = map_fsmap_special_name(rec);

	memset(o, 0, sizeof(*o));
	o->dev_idx = dev_idx;
	o->dev_offset = start;
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
		else if (strcmp(special, "unknown") == 0)
			o->kind = MAP_OWN_UNKNOWN;
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

int map_owners_lookup(struct map_target *t, uint32_t dev_idx, uint64_t offset, uint64_t length,
		      struct map_owner **owners, size_t *nr)
{
	struct map_device *d = &t->devices[dev_idx];
	uint64_t end = offset + length;
	struct fsmap_head *head;
	struct map_owner o;
	int ret, added = 0;

	if (length == 0)
		return 0;
	if (d->role == MAP_ROLE_WHOLE || t->mount_fd < 0) {
		memset(&o, 0, sizeof(o));
		o.kind = MAP_OWN_DEVICE;
		o.dev_idx = dev_idx;
		o.dev_offset = offset;
		o.length = length;
		o.ag = -1;
		o.meta_type = "device";
		ret = owners_push(owners, nr, &o);
		return ret < 0 ? ret : 1;
	}
	head = calloc(1, fsmap_sizeof(OWNERS_BATCH));
	if (!head)
		return -ENOMEM;
	head->fmh_count = OWNERS_BATCH;
	map_fsmap_keys(head, (uint32_t)d->info.devt, offset, end - 1);
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
			if (owners_push(owners, nr, &o) < 0) {
				ret = -ENOMEM;
				goto out_free;
			}
			added++;
		}
		if (head->fmh_recs[ret - 1].fmr_flags & FMR_OF_LAST)
			break;
	}
out_free:
	free(head);
	return ret < 0 ? ret : added;
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
	unsigned unreadable_dirs;	/* directories that could not be opened or read */
};

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

/* Walk one directory (fd owned and closed here); recursion depth follows the tree. */
static int walk_dir(struct walk *w, int fd, char *path, size_t plen, size_t cap)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	int ret = 0;

	if (!dir) {
		close(fd);
		w->unreadable_dirs++;
		return 0;			/* unreadable directory: skip, do not fail the walk */
	}
	for (;;) {
		if (!w->remaining)
			break;
		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno)		/* a damaged directory block: note it, go on */
				w->unreadable_dirs++;
			break;
		}
		struct map_inode_paths *p;
		size_t nlen = strlen(de->d_name);

		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (plen + 1 + nlen + 1 > cap)
			continue;		/* path too long to print: skip */
		path[plen] = '/';
		memcpy(path + plen + 1, de->d_name, nlen + 1);
		p = walk_find(w, de->d_ino);
		if (p) {
			ret = walk_hit(w, p, path, dirfd(dir), de->d_name);
			if (ret < 0)
				break;
		}
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			struct stat st;
			int cfd = openat(dirfd(dir), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd < 0) {
				if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
					w->unreadable_dirs++;
				continue;
			}
			if (fstat(cfd, &st) < 0 || st.st_dev != w->dev || !S_ISDIR(st.st_mode)) {
				close(cfd);	/* another filesystem mounted here */
				continue;
			}
			ret = walk_dir(w, cfd, path, plen + 1 + nlen, cap);
			if (ret < 0)
				break;
		}
	}
	path[plen] = '\0';
	closedir(dir);
	return ret;
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
	path = malloc(PATH_MAX);
	if (!path) {
		close(fd);
		return -ENOMEM;
	}
	snprintf(path, PATH_MAX, "%s", strcmp(mount_point, "/") ? mount_point : "");
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
	ret = walk_dir(&w, fd, path, strlen(path), PATH_MAX);
	free(path);
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
