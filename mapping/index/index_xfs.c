/*
 * mapping/index/index_xfs.c - owners on an XFS made without the reverse-mapping btree
 * (-m rmapbt=0), where GETFSMAP reports every allocated block as "unknown". The log and the
 * AG headers come from the geometry, inode chunks from XFS_IOC_INUMBERS, and files from every
 * inode bulkstat lists (so unlinked-but-open files too), opened by handle and mapped with
 * FIEMAP (GETBMAPX for directories, which XFS does not FIEMAP). What is left is btree blocks
 * (free space, inodes, block maps) that nothing but rmapbt can attribute.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xfs/xfs.h>

#include "fs.h"
#include "fsmap.h"
#include "index_xfs.h"
#include "xfs_ino.h"

#define XFS_INODES_PER_CHUNK_ 64
#define BULK 256
#define BMX 64

/* Data (attr 0) or attribute fork of a directory through GETBMAPX. */
static int bmapx_match(int fd, int attr, const struct map_ix_query *q, size_t nq,
		       const struct map_owner *tmpl, struct map_ix_hits *h)
{
	struct getbmapx *bmx = calloc(BMX + 1, sizeof(*bmx));
	int ret = 0;

	if (!bmx)
		return -ENOMEM;
	bmx[0].bmv_offset = 0;
	bmx[0].bmv_length = -1;
	bmx[0].bmv_count = BMX + 1;
	bmx[0].bmv_iflags = BMV_IF_PREALLOC | BMV_IF_NO_HOLES | (attr ? BMV_IF_ATTRFORK : 0);
	for (;;) {
		ret = kio_xfs_getbmapx(fd, bmx);
		if (ret <= 0)
			break;
		for (int i = 1; i <= ret; i++) {
			struct map_owner o = *tmpl;
			uint64_t p, l;

			if (bmx[i].bmv_block < 0)	/* hole (-1), delalloc (-2) */
				continue;
			p = (uint64_t)bmx[i].bmv_block * 512;
			l = (uint64_t)bmx[i].bmv_length * 512;
			o.kind = MAP_OWN_FILE;
			if (attr)
				o.flags |= MAP_OWNF_ATTR_FORK;
			if (bmx[i].bmv_oflags & BMV_OF_PREALLOC)
				o.flags |= MAP_OWNF_UNWRITTEN;
			if (bmx[i].bmv_oflags & BMV_OF_SHARED)
				o.flags |= MAP_OWNF_SHARED;
			if (map_ix_match(q, nq, p, p + l, (uint64_t)bmx[i].bmv_offset * 512, &o, h) < 0) {
				free(bmx);
				return -ENOMEM;
			}
		}
		if (ret < BMX || (bmx[ret].bmv_oflags & BMV_OF_LAST) || bmx[0].bmv_length <= 0)
			break;
	}
	free(bmx);
	return ret < 0 ? ret : 0;
}

/*
 * A sweep of the inodes (INUMBERS or BULKSTAT) that survives an AG whose inode btree the kernel
 * cannot read: such a call fails whole, losing what it gathered before it reached
 * that AG, so after an error go one inode at a time up to the failure, then on from the next
 * AG. Failures at the very start of an AG are counted in *skipped (when not NULL).
 */
struct sweep {
	uint64_t next;			/* next inode number to ask from */
	unsigned batch;			/* inodes per call */
	unsigned *skipped;
};

/* Return 1 to call again after the call answered n (<0: an error), 0 to stop. */
static int sweep_retry(struct sweep *sw, const struct kio_xfs_geom *g, unsigned ino_shift, int n)
{
	uint64_t agno = sw->next >> ino_shift;

	if (n >= 0 || !map_fsmap_error_local(n))
		return 0;
	if (sw->batch > 1) {
		sw->batch = 1;
		return 1;
	}
	if (sw->skipped && sw->next == agno << ino_shift)
		*sw->skipped += 1;
	sw->batch = BULK;
	if (agno + 1 >= g->agcount)
		return 0;
	sw->next = (agno + 1) << ino_shift;
	return 1;
}

int map_index_xfs(struct map_target *fs, const struct map_ix_query *q, size_t nq, int rt,
		  struct map_ix_hits *h, char *why, size_t whylen)
{
	const struct kio_xfs_geom *g = &fs->xfs;
	struct map_fsx *x = map_fsx_get(fs);
	uint64_t bs = g->blocksize, ag_bytes = (uint64_t)g->agblocks * g->blocksize;
	struct kio_xfs_geom_ext ge;
	struct map_xfs_ino xi;
	struct kio_xfs_ichunk *chunks = NULL;
	struct kio_xfs_inode *inodes = NULL;
	struct map_owner o;
	struct sweep sw;
	size_t mq;
	int ret, n = 0;

	if (!x)
		return -ENOMEM;
	ret = kio_xfs_geometry_ext(fs->mount_fd, &ge);
	if (ret < 0 || !ge.inodesize || !bs) {
		snprintf(why, whylen, "cannot read the XFS geometry: %s", strerror(-ret));
		return ret < 0 ? ret : -EINVAL;
	}
	map_xfs_ino_init(&xi, g, ge.inodesize);
	/* Log, AG headers and inode chunks live on the data device only. */
	mq = rt ? 0 : nq;

	/* The internal log. */
	memset(&o, 0, sizeof(o));
	if (g->logstart) {
		uint64_t agno = map_xfs_fsb_agno(&xi, g->logstart);
		uint64_t start = map_xfs_fsb_offset(&xi, g->logstart);

		o.kind = MAP_OWN_LOG;
		o.meta_type = "log";
		o.ag = (int64_t)agno;
		ret = map_ix_match(q, mq, start, start + (uint64_t)g->logblocks * bs, 0, &o, h);
		if (ret < 0)
			return ret;
	}
	/* AG headers: superblock, AGF, AGFL, AGI, one sector each, in the first block(s). */
	for (uint32_t agno = 0; agno < g->agcount; agno++) {
		uint64_t hdr = 4ull * (g->sectsize ? g->sectsize : 512);

		hdr = (hdr + bs - 1) / bs * bs;
		memset(&o, 0, sizeof(o));
		o.kind = MAP_OWN_METADATA;
		o.meta_type = "fs-headers";
		o.ag = agno;
		ret = map_ix_match(q, mq, agno * ag_bytes, agno * ag_bytes + hdr, 0, &o, h);
		if (ret < 0)
			return ret;
	}
	/* Inode chunks. */
	chunks = calloc(BULK, sizeof(*chunks));
	inodes = calloc(BULK, sizeof(*inodes));
	if (!chunks || !inodes) {
		ret = -ENOMEM;
		goto out_free;
	}
	x->skipped_ags = x->unopened = 0;
	sw = (struct sweep){ .next = 0, .batch = BULK, .skipped = NULL };
	while (mq && ((n = kio_xfs_inumbers(fs->mount_fd, &sw.next, chunks, sw.batch)) > 0 ||
		      sweep_retry(&sw, g, map_xfs_ino_agshift(&xi), n))) {
		for (int i = 0; i < n; i++) {
			uint64_t ino = chunks[i].startino;
			uint64_t agno = map_xfs_ino_agno(&xi, ino);
			uint64_t start = map_xfs_ino_offset(&xi, ino);
			uint64_t len = (uint64_t)XFS_INODES_PER_CHUNK_ * ge.inodesize;

			memset(&o, 0, sizeof(o));
			o.kind = MAP_OWN_METADATA;
			o.meta_type = "inodes";
			o.ag = (int64_t)agno;
			ret = map_ix_match(q, mq, start, start + len, 0, &o, h);
			if (ret < 0)
				goto out_free;
		}
	}
	if (n < 0 && !map_fsmap_error_local(n)) {
		snprintf(why, whylen, "XFS_IOC_INUMBERS failed: %s", strerror(-n));
		ret = n;
		goto out_free;
	}
	/* Every inode: bulkstat, open by handle, FIEMAP (or GETBMAPX). */
	if (!x->handle_type && kio_handle_type(fs->mount_fd, &x->handle_type) < 0)
		x->handle_type = -1;
	if (x->handle_type < 0) {
		snprintf(why, whylen, "cannot open inodes by handle here");
		ret = -EOPNOTSUPP;
		goto out_free;
	}
	sw = (struct sweep){ .next = 0, .batch = BULK, .skipped = &x->skipped_ags };
	while ((n = kio_xfs_bulkstat(fs->mount_fd, &sw.next, inodes, sw.batch)) > 0 ||
	       sweep_retry(&sw, g, map_xfs_ino_agshift(&xi), n)) {
		for (int i = 0; i < n; i++) {
			const struct kio_xfs_inode *in = &inodes[i];
			int fd;

			if (!in->blocks || (!S_ISREG(in->mode) && !S_ISDIR(in->mode)))
				continue;
			/* A realtime file's data (FIEMAP) is on the rt device, its other forks
			 * and every other inode's on the data device: match each only against
			 * queries of its own device. */
			if (!!(in->xflags & FS_XFLAG_REALTIME) != !!rt)
				continue;
			fd = kio_open_inode(fs->mount_fd, x->handle_type, in->ino, in->gen,
					    O_NOATIME | O_NONBLOCK);
			if (fd == -EPERM)
				fd = kio_open_inode(fs->mount_fd, x->handle_type, in->ino, in->gen,
						    O_NONBLOCK);
			if (fd < 0) {
				/* gone since bulkstat, or damaged: a directory whose '..' block
				 * is bad cannot be reconnected, so not opened (ESTALE) */
				x->unopened += fd != -ENOENT;
				continue;
			}
			memset(&o, 0, sizeof(o));
			o.inode = in->ino;
			o.gen = in->gen;
			o.ag = -1;
			if (in->nlink == 0)
				o.flags |= MAP_OWNF_UNLINKED;
			if (S_ISDIR(in->mode)) {
				ret = bmapx_match(fd, 0, q, nq, &o, h);
				if (ret >= 0 || ret == -ENOMEM)
					ret = ret < 0 ? ret : bmapx_match(fd, 1, q, nq, &o, h);
			} else {
				ret = map_ix_match_fd(fd, q, nq, &o, h);
				if (ret == -EOPNOTSUPP) {
					ret = bmapx_match(fd, 0, q, nq, &o, h);
					if (ret >= 0)
						ret = bmapx_match(fd, 1, q, nq, &o, h);
				}
			}
			kio_close(fd);
			if (ret == -ENOMEM)
				goto out_free;
		}
	}
	ret = n < 0 && !map_fsmap_error_local(n) ? n : 0;
	if (ret < 0)
		snprintf(why, whylen, "XFS_IOC_BULKSTAT failed: %s", strerror(-n));
out_free:
	free(chunks);
	free(inodes);
	return ret;
}

int map_xfs_chunk_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			 uint64_t *inos, size_t max)
{
	const struct kio_xfs_geom *g = &fs->xfs;
	uint64_t bs = g->blocksize, ag_bytes = (uint64_t)g->agblocks * g->blocksize, pos;
	struct kio_xfs_geom_ext ge;
	struct map_xfs_ino xi;
	size_t n = 0;
	int ret;

	ret = kio_xfs_geometry_ext(fs->mount_fd, &ge);
	if (ret < 0)
		return ret;
	if (!ge.inodesize || !bs || !ag_bytes || ge.inodesize > bs)
		return -EINVAL;
	map_xfs_ino_init(&xi, g, ge.inodesize);
	/*
	 * The kernel reads inodes a cluster at a time (8 KiB of 256-byte inodes, scaled by the
	 * inode size on v5: 32 inodes): a bad sector loses every inode of its cluster. Clusters
	 * are aligned within the AG.
	 */
	if (whole_unit) {
		uint64_t cl = 32ull * ge.inodesize < 8192 ? 8192 : 32ull * ge.inodesize;
		uint64_t ag0 = off / ag_bytes * ag_bytes, end = off + len;

		off = ag0 + (off - ag0) / cl * cl;
		end = ag0 + (end - ag0 + cl - 1) / cl * cl;
		len = end - off;
	}
	for (pos = off - off % ge.inodesize; pos < off + len && n < max; pos += ge.inodesize)
		inos[n++] = map_xfs_ino_at(&xi, pos);
	return (int)n;
}
