/*
 * mapping/names/parents.c - inode numbers to every path through XFS parent pointers
 * (XFS_IOC_GETPARENTS_BY_HANDLE, Linux 6.10+ on a filesystem made with parent pointers):
 * each inode's parents (directory handle and name), then each directory's own parent up to the
 * root, with directory paths cached. No directory walk is needed. Callers fall back to the
 * walk when this answers -EOPNOTSUPP. Inodes whose metadata is known bad (map_fsx_tainted) are
 * never asked about, nor are they climbed through: they are left to the walk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "parents.h"

#define PPTR_BUF (64 * 1024)
#define PPTR_MAX_DEPTH 4096

struct dir_path {
	uint64_t ino;
	char *path;
};

struct pp {
	struct map_target *t;
	struct kio_xfs_handle fsh;	/* filesystem part of handles */
	unsigned char *buf;
	struct dir_path *dirs;		/* cache of directory paths */
	size_t nr_dirs, cap_dirs;
};

/* One parent of an inode. */
struct parent {
	uint64_t ino;
	uint32_t gen;
	char *name;
};

static void parents_free(struct parent *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].name);
	free(p);
}

/*
 * Return 0 and the parents of inode ino/gen (*is_root set for the root directory), or -errno.
 */
static int get_parents(struct pp *pp, uint64_t ino, uint32_t gen, struct parent **out,
		       size_t *nr, int *is_root)
{
	struct kio_xfs_getparents_by_handle req;
	struct parent *v = NULL;
	size_t n = 0;
	int ret;

	*is_root = 0;
	memset(&req, 0, sizeof(req));
	req.gph_handle = pp->fsh;
	req.gph_handle.fid_len = sizeof(req.gph_handle) - sizeof(req.gph_handle.fsid) -
				 sizeof(req.gph_handle.fid_len);
	req.gph_handle.fid_gen = gen;
	req.gph_handle.fid_ino = ino;
	req.gph_request.gp_buffer = (uint64_t)(uintptr_t)pp->buf;
	do {
		uint32_t used;

		memset(pp->buf, 0, PPTR_BUF);
		req.gph_request.gp_bufsize = PPTR_BUF;
		ret = kio_xfs_getparents_by_handle(pp->t->mount_fd, &req);
		if (ret < 0)
			goto out_fail;
		if (req.gph_request.gp_oflags & KIO_XFS_GETPARENTS_OFLAG_ROOT)
			*is_root = 1;
		used = req.gph_request.gp_bufsize;
		if (used > PPTR_BUF)
			used = PPTR_BUF;
		for (uint32_t off = 0; off + sizeof(struct kio_xfs_getparents_rec) < used;) {
			const struct kio_xfs_getparents_rec *r = (const void *)(pp->buf + off);
			struct parent *nv;
			size_t maxname;

			if (r->gpr_reclen <= sizeof(*r) || off + r->gpr_reclen > used ||
			    r->gpr_name[0] == '\0')
				break;
			maxname = r->gpr_reclen - sizeof(*r);
			nv = realloc(v, sizeof(*v) * (n + 1));
			if (!nv) {
				ret = -ENOMEM;
				goto out_fail;
			}
			v = nv;
			v[n].ino = r->gpr_parent.fid_ino;
			v[n].gen = r->gpr_parent.fid_gen;
			v[n].name = strndup(r->gpr_name, maxname);
			if (!v[n].name) {
				ret = -ENOMEM;
				goto out_fail;
			}
			n++;
			off += r->gpr_reclen;
		}
	} while (!(req.gph_request.gp_oflags & KIO_XFS_GETPARENTS_OFLAG_DONE));
	*out = v;
	*nr = n;
	return 0;
out_fail:
	parents_free(v, n);
	return ret;
}

static const char *dir_cached(struct pp *pp, uint64_t ino)
{
	for (size_t i = 0; i < pp->nr_dirs; i++)
		if (pp->dirs[i].ino == ino)
			return pp->dirs[i].path;
	return NULL;
}

static int dir_cache(struct pp *pp, uint64_t ino, char *path)
{
	if (pp->nr_dirs == pp->cap_dirs) {
		size_t cap = pp->cap_dirs ? pp->cap_dirs * 2 : 32;
		struct dir_path *n = realloc(pp->dirs, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		pp->dirs = n;
		pp->cap_dirs = cap;
	}
	pp->dirs[pp->nr_dirs].ino = ino;
	pp->dirs[pp->nr_dirs].path = path;
	pp->nr_dirs++;
	return 0;
}

/* Join a directory path and a name ("/" as the mount point gives "/name"). */
static char *join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	char *p;

	if (dl && dir[dl - 1] == '/')
		dl--;
	p = malloc(dl + 1 + strlen(name) + 1);
	if (p) {
		memcpy(p, dir, dl);
		p[dl] = '/';
		strcpy(p + dl + 1, name);
	}
	return p;
}

/* Return the path of directory ino (cached), or NULL with *err set. */
static const char *dir_path(struct pp *pp, uint64_t ino, uint32_t gen, unsigned depth, int *err)
{
	struct parent *par = NULL;
	const char *parent_path, *c = dir_cached(pp, ino);
	size_t n = 0;
	int is_root, ret;
	char *path;

	if (c)
		return c;
	if (map_fsx_tainted(pp->t, ino)) {
		*err = -EIO;			/* a damaged directory: GETPARENTS would read it */
		return NULL;
	}
	if (depth > PPTR_MAX_DEPTH) {
		*err = -ELOOP;
		return NULL;
	}
	ret = get_parents(pp, ino, gen, &par, &n, &is_root);
	if (ret < 0) {
		*err = ret;
		return NULL;
	}
	if (is_root) {
		path = strdup(pp->t->mount_point);
	} else if (n == 0) {
		parents_free(par, n);
		*err = -ENOENT;			/* a directory no longer linked */
		return NULL;
	} else {
		parent_path = dir_path(pp, par[0].ino, par[0].gen, depth + 1, err);
		path = parent_path ? join(parent_path, par[0].name) : NULL;
	}
	parents_free(par, n);
	if (!path) {
		if (!*err)
			*err = -ENOMEM;
		return NULL;
	}
	if (dir_cache(pp, ino, path) < 0) {
		free(path);
		*err = -ENOMEM;
		return NULL;
	}
	return path;
}

/* Name one wanted inode from its parents. */
static int name_inode(struct pp *pp, struct map_inode_paths *w)
{
	struct kio_xfs_inode in;
	struct parent *par = NULL;
	size_t n = 0;
	int is_root, ret;

	if (map_fsx_tainted(pp->t, w->inode))
		return 0;			/* its metadata is bad: named by the walk */
	ret = map_fsx_bulkstat(pp->t, w->inode, &in);
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;	/* freed since: no path */
	w->gen = in.gen;
	w->is_dir = S_ISDIR(in.mode);
	w->nlink = w->is_dir ? 1 : in.nlink;
	w->unlinked = in.nlink == 0;
	if (w->is_dir && dir_cached(pp, w->inode)) {	/* already named on the way */
		w->paths = calloc(1, sizeof(char *));
		if (!w->paths || !(w->paths[0] = strdup(dir_cached(pp, w->inode))))
			return -ENOMEM;
		w->nr_paths = 1;
		return 0;
	}
	ret = get_parents(pp, w->inode, in.gen, &par, &n, &is_root);
	if (ret < 0)
		return ret;
	if (is_root) {
		w->paths = calloc(1, sizeof(char *));
		if (!w->paths || !(w->paths[0] = strdup(pp->t->mount_point))) {
			parents_free(par, n);
			return -ENOMEM;
		}
		w->nr_paths = 1;
	}
	for (size_t i = 0; i < n; i++) {
		int err = 0;
		const char *dp = dir_path(pp, par[i].ino, par[i].gen, 0, &err);
		char **np, *p;

		if (!dp) {
			if (err == -ENOMEM) {
				ret = err;
				break;
			}
			continue;		/* an unreachable parent: this link has no path */
		}
		p = join(dp, par[i].name);
		np = p ? realloc(w->paths, sizeof(*np) * (w->nr_paths + 1)) : NULL;
		if (!np) {
			free(p);
			ret = -ENOMEM;
			break;
		}
		w->paths = np;
		w->paths[w->nr_paths++] = p;
	}
	parents_free(par, n);
	/* A wanted directory is also on the way to other wanted inodes: remember its path. */
	if (ret == 0 && w->is_dir && w->nr_paths == 1 && !dir_cached(pp, w->inode)) {
		char *c = strdup(w->paths[0]);

		if (c && dir_cache(pp, w->inode, c) < 0)
			free(c);
	}
	return ret < 0 ? ret : 0;
}

int map_parents_resolve(struct map_target *t, struct map_inode_paths *want, size_t nr)
{
	struct pp pp = { .t = t };
	int ret;

	if (!(map_target_ops(t)->caps & MAP_FSC_XFS_IOC) || !t->xfs.has_parent || t->mount_fd < 0)
		return -EOPNOTSUPP;
	ret = kio_xfs_fshandle(t->mount_fd, t->mount_point, &pp.fsh);
	if (ret < 0)
		return -EOPNOTSUPP;
	pp.buf = malloc(PPTR_BUF);
	if (!pp.buf)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		ret = name_inode(&pp, &want[i]);
		if (ret == -ENOTTY || ret == -EOPNOTSUPP || ret == -EINVAL) {
			/* The kernel cannot: undo what was named and let the walk do it all. */
			map_paths_free(want, nr);
			ret = -EOPNOTSUPP;
			break;
		}
		if (ret < 0)
			break;
	}
	for (size_t i = 0; i < pp.nr_dirs; i++)
		free(pp.dirs[i].path);
	free(pp.dirs);
	free(pp.buf);
	return ret < 0 ? ret : 0;
}
