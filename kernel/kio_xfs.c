/*
 * kernel/kio_xfs.c - XFS ioctls: geometry (XFS_IOC_FSGEOMETRY), bulkstat and inumbers (every
 * inode, its generation and health), AG geometry (AG health), online scrub queries, block
 * maps (GETBMAPX), file handles and parent pointers. Return 0/count or -errno.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xfs/xfs.h>

#include "kio_xfs.h"

int kio_xfs_geometry(int fd, struct kio_xfs_geom *g)
{
	struct xfs_fsop_geom geo;

	memset(&geo, 0, sizeof(geo));
	if (ioctl(fd, XFS_IOC_FSGEOMETRY, &geo) < 0)
		return -errno;
	memset(g, 0, sizeof(*g));
	g->blocksize = geo.blocksize;
	g->agblocks = geo.agblocks;
	g->agcount = geo.agcount;
	g->datablocks = geo.datablocks;
	g->logblocks = geo.logblocks;
	g->logstart = geo.logstart;
	g->rtblocks = geo.rtblocks;
	g->sectsize = geo.sectsize;
	g->has_rmapbt = !!(geo.flags & XFS_FSOP_GEOM_FLAGS_RMAPBT);
	g->has_reflink = !!(geo.flags & XFS_FSOP_GEOM_FLAGS_REFLINK);
#ifdef XFS_FSOP_GEOM_FLAGS_PARENT
	g->has_parent = !!(geo.flags & XFS_FSOP_GEOM_FLAGS_PARENT);
#else
	g->has_parent = !!(geo.flags & (1U << 25));
#endif
	memcpy(g->uuid, geo.uuid, sizeof(g->uuid));
	return 0;
}

int kio_xfs_geometry_ext(int fd, struct kio_xfs_geom_ext *g)
{
	struct xfs_fsop_geom geo;

	memset(&geo, 0, sizeof(geo));
	if (ioctl(fd, XFS_IOC_FSGEOMETRY, &geo) < 0)
		return -errno;
	memset(g, 0, sizeof(*g));
	g->inodesize = geo.inodesize;
	g->sick = geo.sick;
	g->checked = geo.checked;
	return 0;
}

#define KIO_BULK_MAX 256

static void inode_from_bs(const struct xfs_bulkstat *bs, struct kio_xfs_inode *o)
{
	memset(o, 0, sizeof(*o));
	o->ino = bs->bs_ino;
	o->size = bs->bs_size;
	o->blocks = bs->bs_blocks;
	o->gen = bs->bs_gen;
	o->nlink = bs->bs_nlink;
	o->mode = bs->bs_mode;
	o->sick = bs->bs_sick;
	o->checked = bs->bs_checked;
	o->xflags = bs->bs_xflags;
}

int kio_xfs_bulkstat(int fd, uint64_t *next_ino, struct kio_xfs_inode *out, unsigned max)
{
	struct xfs_bulkstat_req *req;
	unsigned n;
	int ret = 0;

	if (max > KIO_BULK_MAX)
		max = KIO_BULK_MAX;
	req = calloc(1, XFS_BULKSTAT_REQ_SIZE(max));
	if (!req)
		return -ENOMEM;
	req->hdr.ino = *next_ino;
	req->hdr.icount = max;
	if (ioctl(fd, XFS_IOC_BULKSTAT, req) < 0) {
		ret = -errno;
		goto out_free;
	}
	n = req->hdr.ocount;
	for (unsigned i = 0; i < n; i++)
		inode_from_bs(&req->bulkstat[i], &out[i]);
	*next_ino = req->hdr.ino;	/* the kernel leaves the cursor past the last inode */
	ret = (int)n;
out_free:
	free(req);
	return ret;
}

int kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	struct kio_xfs_inode one;
	uint64_t next = ino;
	int ret = kio_xfs_bulkstat(fd, &next, &one, 1);

	if (ret < 0)
		return ret;
	if (ret == 0 || one.ino != ino)
		return -ENOENT;
	*out = one;
	return 0;
}

int kio_xfs_stat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	struct xfs_bstat bs;
	__u64 last = ino;
	__s32 count = 0;
	struct xfs_fsop_bulkreq req = { .lastip = &last, .icount = 1, .ubuffer = &bs,
					.ocount = &count };

	memset(&bs, 0, sizeof(bs));
	/* a free or invalid inode is EINVAL here, an old kernel may lack it: v5 tells */
	if (ioctl(fd, XFS_IOC_FSBULKSTAT_SINGLE, &req) < 0 || bs.bs_ino != ino)
		return kio_xfs_bulkstat_one(fd, ino, out);
	memset(out, 0, sizeof(*out));
	out->ino = bs.bs_ino;
	out->size = (uint64_t)bs.bs_size;
	out->blocks = (uint64_t)bs.bs_blocks;
	out->gen = bs.bs_gen;
	out->nlink = bs.bs_nlink;
	out->nlink_low16 = 1;
	out->mode = bs.bs_mode;
	out->sick = bs.bs_sick;
	out->checked = bs.bs_checked;
	out->xflags = bs.bs_xflags;
	return 0;
}

int kio_xfs_inumbers(int fd, uint64_t *next_ino, struct kio_xfs_ichunk *out, unsigned max)
{
	struct xfs_inumbers_req *req;
	unsigned n;
	int ret;

	if (max > KIO_BULK_MAX)
		max = KIO_BULK_MAX;
	req = calloc(1, XFS_INUMBERS_REQ_SIZE(max));
	if (!req)
		return -ENOMEM;
	req->hdr.ino = *next_ino;
	req->hdr.icount = max;
	if (ioctl(fd, XFS_IOC_INUMBERS, req) < 0) {
		ret = -errno;
		goto out_free;
	}
	n = req->hdr.ocount;
	for (unsigned i = 0; i < n; i++) {
		out[i].startino = req->inumbers[i].xi_startino;
		out[i].allocmask = req->inumbers[i].xi_allocmask;
		out[i].alloccount = req->inumbers[i].xi_alloccount;
	}
	*next_ino = req->hdr.ino;
	ret = (int)n;
out_free:
	free(req);
	return ret;
}

int kio_xfs_ag_geometry(int fd, uint32_t agno, struct xfs_ag_geometry *ag)
{
	memset(ag, 0, sizeof(*ag));
	ag->ag_number = agno;
	if (ioctl(fd, XFS_IOC_AG_GEOMETRY, ag) < 0)
		return -errno;
	return 0;
}

int kio_xfs_scrub_metadata(int fd, struct xfs_scrub_metadata *sm)
{
	if (ioctl(fd, XFS_IOC_SCRUB_METADATA, sm) < 0)
		return -errno;
	return 0;
}

int kio_xfs_getbmapx(int fd, struct getbmapx *bmx)
{
	if (ioctl(fd, XFS_IOC_GETBMAPX, bmx) < 0)
		return -errno;
	return bmx[0].bmv_entries;
}

int kio_xfs_fshandle(int fd, const char *path, struct kio_xfs_handle *h)
{
	struct xfs_fsop_handlereq hreq;
	unsigned char buf[64];
	__u32 hlen = sizeof(buf);

	memset(&hreq, 0, sizeof(hreq));
	hreq.path = (void *)path;
	hreq.ohandle = buf;
	hreq.ohandlen = &hlen;
	if (ioctl(fd, XFS_IOC_PATH_TO_FSHANDLE, &hreq) < 0)
		return -errno;
	if (hlen < sizeof(h->fsid))
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	memcpy(h->fsid, buf, sizeof(h->fsid));
	return 0;
}

int kio_xfs_getparents_by_handle(int fd, struct kio_xfs_getparents_by_handle *req)
{
	if (ioctl(fd, KIO_XFS_IOC_GETPARENTS_BY_HANDLE, req) < 0)
		return -errno;
	return 0;
}
