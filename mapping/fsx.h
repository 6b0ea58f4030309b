/*
 * mapping/fsx.h - private to mapping/: the owner index for filesystems whose GETFSMAP cannot
 * name file owners (ext4; XFS without rmapbt), partition tables, and per-filesystem state
 * kept on the target (handle type, scrub probe, AG health cache).
 */
#ifndef MEDIASCAN_FSX_H
#define MEDIASCAN_FSX_H

#include <stddef.h>
#include <stdint.h>

#include "owners.h"
#include "target.h"

struct map_fsx {
	int handle_type;		/* kio_handle_type of the mount, 0 not asked, <0 failed */
	int scrub;			/* 0 not probed, 1 online scrub answers, -errno absent */
	int geom_ext_done;
	uint32_t inodesize;		/* XFS inode size, bytes */
	uint32_t fs_sick, fs_checked;	/* XFS_FSOP_GEOM_SICK_* */
	uint32_t nr_ag;			/* entries of ag_* */
	uint8_t *ag_done;
	uint32_t *ag_sick, *ag_checked;
	unsigned looped_maps;		/* inodes whose block map loops (index walk stopped) */
	unsigned skipped_ags;		/* AGs whose inodes INUMBERS/BULKSTAT could not list */
	unsigned unopened;		/* inodes bulkstat listed that could not be opened */
};

/* Return the private state of t, allocated on first use, or NULL without memory. */
struct map_fsx *map_fsx_get(struct map_target *t);
/* Return 0; free the private state of t. */
int map_fsx_free(struct map_target *t);

/* One range the index is asked about: bytes [start, end) on the filesystem's device. */
struct map_ix_query {
	uint64_t start;
	uint64_t end;
};

/* One owner the index found: bytes [start, end) on the filesystem's device and the owner
 * (kind, flags, inode, gen, file_offset at start, meta_type, note). */
struct map_ix_hit {
	uint64_t start;
	uint64_t end;
	struct map_owner o;
};

/* Growable array of hits. */
struct map_ix_hits {
	struct map_ix_hit *v;
	size_t nr;
	size_t cap;
};

/* Return 0 after appending a hit, or -ENOMEM. */
int map_ix_push(struct map_ix_hits *h, uint64_t start, uint64_t end, const struct map_owner *o);
/* Return the index of the first query ending after offset (q sorted, disjoint), or nq. */
size_t map_ix_first(const struct map_ix_query *q, size_t nq, uint64_t offset);
/*
 * Return 0 after adding, for the device range [pstart, pend) holding file bytes from
 * file_offset, a hit clipped to each query it overlaps (owner template o; file_offset set).
 */
int map_ix_match(const struct map_ix_query *q, size_t nq, uint64_t pstart, uint64_t pend,
		 uint64_t file_offset, const struct map_owner *o, struct map_ix_hits *h);

/*
 * Return 0 after finding the owners of the queries (sorted, disjoint) on an ext4 filesystem:
 * one pass over the inode tables with libext2fs (read-only, through the page cache the
 * mounted filesystem shares), each candidate confirmed with FIEMAP; the journal and other
 * special inodes named. -EOPNOTSUPP without libext2fs; -errno with a reason in why.
 * *unreadable counts inode table blocks that could not be read.
 */
int map_index_ext4(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, unsigned *unreadable, char *why, size_t whylen);
/*
 * Return 0 after finding the owners of the queries on an XFS data device without rmapbt:
 * the log and AG headers from the geometry, inode chunks from INUMBERS, and every inode
 * from bulkstat, opened by handle, mapped with FIEMAP (GETBMAPX for directories).
 */
int map_index_xfs(struct map_target *fs, const struct map_ix_query *q, size_t nq, int rt,
		  struct map_ix_hits *h, char *why, size_t whylen);
/*
 * Return 0 after finding file owners of the queries by one directory walk of the mount
 * point with FIEMAP on every file and directory (when nothing better is available).
 */
int map_index_walk(struct map_target *fs, const struct map_ix_query *q, size_t nq,
		   struct map_ix_hits *h, char *why, size_t whylen);
/* Return 0 after matching every extent of the open inode fd (FIEMAP of the data fork, then
 * of the attributes) against the queries; tmpl gives inode, gen. -EOPNOTSUPP when FIEMAP
 * cannot map this inode (XFS directories). */
int map_ix_match_fd(int fd, const struct map_ix_query *q, size_t nq,
		    const struct map_owner *tmpl, struct map_ix_hits *h);
/* Return 0 after FIEMAP of every inode listed in the hits confirmed or dropped each one
 * (ext4 candidates from the inode tables); hits the kernel no longer maps are removed. */
int map_ix_confirm(struct map_target *fs, struct map_ix_hits *h);

/*
 * ---- corrupted metadata (issue 12) ----
 * Return the number of inode numbers (at most max) written to inos whose on-disk inodes lie in
 * the bytes [off, off+len) of the filesystem's data device, in order, or -errno. With
 * whole_unit, every inode of the units the kernel reads them in (an inode table block of
 * ext4, an inode cluster of XFS) that the range touches: the kernel cannot read any of them
 * while one sector of the unit is bad.
 */
int map_ext4_itable_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			   uint64_t *inos, size_t max);
int map_xfs_chunk_inodes(struct map_target *fs, uint64_t off, uint64_t len, int whole_unit,
			 uint64_t *inos, size_t max);

/* Return 0 after reading the partition table of disk t->devices[0] (libblkid) into
 * t->parts / t->segs, -ENOENT when there is none, or -errno. */
int map_parts_read(struct map_target *t, char *err, size_t errlen);
/* Return 0; free partitions, segments and their filesystems. */
int map_parts_free(struct map_target *t);
/* Return 0 after building t->segs from t->parts (sorted) on a disk of disk_size bytes with
 * logical block lbs and partition table type pt ("gpt", "dos"); exposed for unit tests. */
int map_parts_segments(struct map_target *t, uint64_t disk_size, uint32_t lbs);

struct map_damage;
/*
 * Return 0 after asking online scrub (where the kernel has it) about the headers and btrees of
 * every XFS AG the plan read whole (d->plan_notes), into d->plan_scrub; d->scrub says why not
 * when it cannot answer. -ENOMEM.
 */
int map_health_plan_scrub(struct map_target *t, struct map_damage *d);
/* Return 0 after asking the kernel about the health and scrub verdict of every owner of
 * XFS filesystems in owners[] (bulkstat, AG geometry, XFS_IOC_SCRUB_METADATA). */
int map_health_annotate(struct map_target *t, struct map_owner *owners, size_t nr,
			int *scrub_state, unsigned *fs_sick, unsigned *fs_checked);

#endif
