/*
 * kernel/kio_xfs.h - XFS ioctl wrappers (kio_xfs.c): geometry, inodes (bulkstat, inumbers),
 * AG health, online scrub, parent pointers and block maps. Return 0/count or -errno.
 * Structures are the kernel's (xfs/xfs_fs.h); the parent pointer ioctl (Linux 6.10) is newer
 * than xfslibs-dev 6.1, so its structures are defined here with a kio_ prefix, sized and
 * laid out exactly as the kernel's.
 */
#ifndef MEDIASCAN_KIO_XFS_H
#define MEDIASCAN_KIO_XFS_H

#include <stdint.h>
#include <sys/ioctl.h>

struct xfs_scrub_metadata;
struct xfs_ag_geometry;
struct getbmapx;

/* The parts of XFS geometry that mapping needs. */
struct kio_xfs_geom {
	uint32_t blocksize;		/* bytes */
	uint32_t agblocks;		/* fs blocks per AG */
	uint32_t agcount;
	uint64_t datablocks;
	uint32_t logblocks;
	uint64_t logstart;		/* 0: the log is on an external device */
	uint64_t rtblocks;
	uint32_t sectsize;		/* bytes */
	int has_rmapbt;
	int has_reflink;
	int has_parent;			/* parent pointers */
	unsigned char uuid[16];
};

/* Return 0 and fill g from XFS_IOC_FSGEOMETRY on any fd of the filesystem, or -errno. */
int kio_xfs_geometry(int fd, struct kio_xfs_geom *g);

/* Extra geometry: what kio_xfs_geom leaves out. */
struct kio_xfs_geom_ext {
	uint32_t inodesize;		/* bytes */
	uint32_t sick;			/* XFS_FSOP_GEOM_SICK_* (fs-wide metadata) */
	uint32_t checked;
};
/* Return 0 and fill g from XFS_IOC_FSGEOMETRY, or -errno. */
int kio_xfs_geometry_ext(int fd, struct kio_xfs_geom_ext *g);

/* One inode from bulkstat (v5; v1's single-inode form: kio_xfs_stat_one). */
struct kio_xfs_inode {
	uint64_t ino;
	uint64_t size;			/* bytes */
	uint64_t blocks;		/* 512-byte blocks allocated (bs_blocks) */
	uint32_t gen;
	uint32_t nlink;
	uint16_t mode;
	uint16_t sick;			/* XFS_BS_SICK_* */
	uint16_t checked;
	uint32_t xflags;		/* FS_XFLAG_* (bs_xflags): REALTIME for rt files */
	int nlink_low16;		/* nlink is only the low 16 bits of the count (v1) */
};
/* Return the number of inodes (>= *next_ino) written to out (at most max) and advance
 * *next_ino past them, 0 at the end, or -errno. XFS_IOC_BULKSTAT. */
int kio_xfs_bulkstat(int fd, uint64_t *next_ino, struct kio_xfs_inode *out, unsigned max);
/* Return 0 and fill out for inode ino, -ENOENT when it is not allocated, or -errno. */
int kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);
/*
 * kio_xfs_bulkstat_one at a third of its cost, with the link count cut to 16 bits
 * (out->nlink_low16 set): XFS_IOC_FSBULKSTAT_SINGLE stats the one inode without walking the
 * inode btree from it. Where that fails, kio_xfs_bulkstat_one answers (exact, and -ENOENT for
 * a free inode). Return as kio_xfs_bulkstat_one.
 */
int kio_xfs_stat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);

/* One inode chunk from XFS_IOC_INUMBERS. */
struct kio_xfs_ichunk {
	uint64_t startino;
	uint64_t allocmask;		/* bit i: startino + i allocated */
	uint32_t alloccount;
};
/* Return the number of chunks (from *next_ino) written to out, advancing *next_ino; 0 at the
 * end, or -errno. */
int kio_xfs_inumbers(int fd, uint64_t *next_ino, struct kio_xfs_ichunk *out, unsigned max);

/* Return 0 and fill ag (ag->ag_number = agno) from XFS_IOC_AG_GEOMETRY, or -errno. */
int kio_xfs_ag_geometry(int fd, uint32_t agno, struct xfs_ag_geometry *ag);

/* Return 0 after XFS_IOC_SCRUB_METADATA with sm (outcome in sm->sm_flags), or -errno:
 * -ENOTTY/-EOPNOTSUPP no online scrub in this kernel, -ENOENT the object does not exist,
 * -EUCLEAN (EFSCORRUPTED) or -EBADMSG (EFSBADCRC) corruption found while checking. */
int kio_xfs_scrub_metadata(int fd, struct xfs_scrub_metadata *sm);

/* Return the number of getbmapx records after the header (bmx[0]) filled by
 * XFS_IOC_GETBMAPX for the data (attr 0) or attribute fork, or -errno. bmx[0] is set up by
 * the caller (bmv_offset, bmv_length, bmv_count, bmv_iflags). */
int kio_xfs_getbmapx(int fd, struct getbmapx *bmx);

/* XFS handles (xfs_handle_t), built from the filesystem handle of the mount point. */
struct kio_xfs_handle {
	uint32_t fsid[2];
	uint16_t fid_len;		/* bytes after this field: 14 */
	uint16_t fid_pad;
	uint32_t fid_gen;
	uint64_t fid_ino;
};
/* Return 0 and the filesystem part of handles (fsid) of the XFS mounted at path
 * (XFS_IOC_PATH_TO_FSHANDLE through fd), or -errno. */
int kio_xfs_fshandle(int fd, const char *path, struct kio_xfs_handle *h);

/* Parent pointers (Linux 6.10+, filesystems made with -n parent=1). */
#define KIO_XFS_GETPARENTS_OFLAG_ROOT	(1U << 0)	/* the file is the root directory */
#define KIO_XFS_GETPARENTS_OFLAG_DONE	(1U << 1)	/* every parent was returned */

struct kio_xfs_getparents_rec {
	struct kio_xfs_handle gpr_parent;	/* handle of the parent directory */
	uint32_t gpr_reclen;			/* bytes of this record, name included */
	uint32_t gpr_reserved;
	char gpr_name[];			/* NUL-terminated name in the parent */
};

struct kio_xfs_getparents {
	uint32_t gp_cursor[4];		/* xfs_attrlist_cursor: zero, then left alone */
	uint16_t gp_iflags;
	uint16_t gp_oflags;		/* KIO_XFS_GETPARENTS_OFLAG_* */
	uint32_t gp_bufsize;		/* bytes at gp_buffer */
	uint64_t gp_reserved;
	uint64_t gp_buffer;		/* user pointer to the records */
};

struct kio_xfs_getparents_by_handle {
	struct kio_xfs_handle gph_handle;
	struct kio_xfs_getparents gph_request;
};

#define KIO_XFS_IOC_GETPARENTS_BY_HANDLE \
	_IOWR('X', 63, struct kio_xfs_getparents_by_handle)

_Static_assert(sizeof(struct kio_xfs_handle) == 24, "xfs_handle_t is 24 bytes");
_Static_assert(sizeof(struct kio_xfs_getparents) == 40, "struct xfs_getparents is 40 bytes");
_Static_assert(sizeof(struct kio_xfs_getparents_by_handle) == 64,
	       "struct xfs_getparents_by_handle is 64 bytes");
_Static_assert(sizeof(struct kio_xfs_getparents_rec) == 32, "xfs_getparents_rec header");

/* Return 0 after one XFS_IOC_GETPARENTS_BY_HANDLE call through fd (records at
 * req->gph_request.gp_buffer), or -errno (-ENOTTY/-EOPNOTSUPP: no parent pointers here). */
int kio_xfs_getparents_by_handle(int fd, struct kio_xfs_getparents_by_handle *req);

#endif
