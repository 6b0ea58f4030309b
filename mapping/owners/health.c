/*
 * mapping/owners/health.c - what the XFS kernel knows about the objects that own damaged blocks:
 * the health it keeps without online scrub (XFS_IOC_AG_GEOMETRY sick/checked masks per AG,
 * bulkstat bs_sick/bs_checked per inode, XFS_IOC_FSGEOMETRY for the whole filesystem), and,
 * where the kernel has online scrub (XFS_IOC_SCRUB_METADATA, probed once per filesystem), its
 * verdict on each owning object: the AG headers and btrees, the inode, its data or attribute
 * fork, the directory, the parent pointers. Scrub is only asked to check, never to repair.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xfs/xfs.h>

#include "damage.h"
#include "fs.h"
#include "health.h"
#include "xfs_ino.h"

/* Health bits newer than xfslibs-dev 6.1's header (values from the kernel's xfs_fs.h). */
#ifndef XFS_AG_GEOM_SICK_INODES
#define XFS_AG_GEOM_SICK_INODES		(1 << 10)
#endif
#ifndef XFS_FSOP_GEOM_SICK_QUOTACHECK
#define XFS_FSOP_GEOM_SICK_QUOTACHECK	(1 << 6)
#endif
#ifndef XFS_FSOP_GEOM_SICK_NLINKS
#define XFS_FSOP_GEOM_SICK_NLINKS	(1 << 7)
#endif

const char *map_verdict_name(enum map_verdict v)
{
	switch (v) {
	case MAP_VERDICT_CLEAN:
		return "clean";
	case MAP_VERDICT_PREEN:
		return "could be optimised";
	case MAP_VERDICT_WARNING:
		return "warning";
	case MAP_VERDICT_INCOMPLETE:
		return "incomplete";
	case MAP_VERDICT_XFAIL:
		return "cross-reference failed";
	case MAP_VERDICT_XCORRUPT:
		return "cross-reference corrupt";
	case MAP_VERDICT_CORRUPT:
		return "corrupt";
	case MAP_VERDICT_ABSENT:
		return "not present";
	case MAP_VERDICT_ERROR:
		return "error";
	}
	return "error";
}

static const char *const scrub_names[] = {
	[XFS_SCRUB_TYPE_PROBE] = "probe",	[XFS_SCRUB_TYPE_SB] = "superblock",
	[XFS_SCRUB_TYPE_AGF] = "agf",		[XFS_SCRUB_TYPE_AGFL] = "agfl",
	[XFS_SCRUB_TYPE_AGI] = "agi",		[XFS_SCRUB_TYPE_BNOBT] = "bnobt",
	[XFS_SCRUB_TYPE_CNTBT] = "cntbt",	[XFS_SCRUB_TYPE_INOBT] = "inobt",
	[XFS_SCRUB_TYPE_FINOBT] = "finobt",	[XFS_SCRUB_TYPE_RMAPBT] = "rmapbt",
	[XFS_SCRUB_TYPE_REFCNTBT] = "refcountbt", [XFS_SCRUB_TYPE_INODE] = "inode",
	[XFS_SCRUB_TYPE_BMBTD] = "data-fork",	[XFS_SCRUB_TYPE_BMBTA] = "attr-fork",
	[XFS_SCRUB_TYPE_BMBTC] = "cow-fork",	[XFS_SCRUB_TYPE_DIR] = "directory",
	[XFS_SCRUB_TYPE_XATTR] = "xattr",	[XFS_SCRUB_TYPE_SYMLINK] = "symlink",
	[XFS_SCRUB_TYPE_PARENT] = "parent",	[XFS_SCRUB_TYPE_RTBITMAP] = "rtbitmap",
	[XFS_SCRUB_TYPE_RTSUM] = "rtsummary",	[XFS_SCRUB_TYPE_UQUOTA] = "usrquota",
	[XFS_SCRUB_TYPE_GQUOTA] = "grpquota",	[XFS_SCRUB_TYPE_PQUOTA] = "prjquota",
	[XFS_SCRUB_TYPE_FSCOUNTERS] = "fscounters",
};

const char *map_scrub_type_name(uint32_t type)
{
	if (type < sizeof(scrub_names) / sizeof(scrub_names[0]) && scrub_names[type])
		return scrub_names[type];
	return "unknown";
}

struct bitname {
	uint32_t bit;
	const char *name;
};

static const struct bitname inode_bits[] = {
	{ XFS_BS_SICK_INODE, "inode-core" },	{ XFS_BS_SICK_BMBTD, "data-fork" },
	{ XFS_BS_SICK_BMBTA, "attr-fork" },	{ XFS_BS_SICK_BMBTC, "cow-fork" },
	{ XFS_BS_SICK_DIR, "directory" },	{ XFS_BS_SICK_XATTR, "xattr" },
	{ XFS_BS_SICK_SYMLINK, "symlink" },	{ XFS_BS_SICK_PARENT, "parent" },
	{ 0, NULL },
};

static const struct bitname ag_bits[] = {
	{ XFS_AG_GEOM_SICK_SB, "superblock" },	{ XFS_AG_GEOM_SICK_AGF, "agf" },
	{ XFS_AG_GEOM_SICK_AGFL, "agfl" },	{ XFS_AG_GEOM_SICK_AGI, "agi" },
	{ XFS_AG_GEOM_SICK_BNOBT, "bnobt" },	{ XFS_AG_GEOM_SICK_CNTBT, "cntbt" },
	{ XFS_AG_GEOM_SICK_INOBT, "inobt" },	{ XFS_AG_GEOM_SICK_FINOBT, "finobt" },
	{ XFS_AG_GEOM_SICK_RMAPBT, "rmapbt" },	{ XFS_AG_GEOM_SICK_REFCNTBT, "refcountbt" },
	{ XFS_AG_GEOM_SICK_INODES, "inodes" },	{ 0, NULL },
};

static const struct bitname fs_bits[] = {
	{ XFS_FSOP_GEOM_SICK_COUNTERS, "counters" },	{ XFS_FSOP_GEOM_SICK_UQUOTA, "usrquota" },
	{ XFS_FSOP_GEOM_SICK_GQUOTA, "grpquota" },	{ XFS_FSOP_GEOM_SICK_PQUOTA, "prjquota" },
	{ XFS_FSOP_GEOM_SICK_RT_BITMAP, "rtbitmap" },
	{ XFS_FSOP_GEOM_SICK_RT_SUMMARY, "rtsummary" },
	{ XFS_FSOP_GEOM_SICK_QUOTACHECK, "quotacheck" },
	{ XFS_FSOP_GEOM_SICK_NLINKS, "nlinks" },	{ 0, NULL },
};

unsigned map_health_names(enum map_health_kind kind, uint32_t bits, const char **out,
			  unsigned max)
{
	const struct bitname *t = kind == MAP_HEALTH_INODE ? inode_bits :
				  kind == MAP_HEALTH_AG ? ag_bits :
				  kind == MAP_HEALTH_FS ? fs_bits : NULL;
	unsigned n = 0;

	for (; t && t->name && n < max; t++)
		if (bits & t->bit)
			out[n++] = t->name;
	return n;
}

enum map_verdict map_scrub_verdict(int ret, uint32_t oflags)
{
	if (ret == -ENOENT)
		return MAP_VERDICT_ABSENT;
	if (ret == -EUCLEAN || ret == -EBADMSG)	/* EFSCORRUPTED, EFSBADCRC */
		return MAP_VERDICT_CORRUPT;
	if (ret < 0)
		return MAP_VERDICT_ERROR;
	if (oflags & XFS_SCRUB_OFLAG_CORRUPT)
		return MAP_VERDICT_CORRUPT;
	if (oflags & XFS_SCRUB_OFLAG_XCORRUPT)
		return MAP_VERDICT_XCORRUPT;
	if (oflags & XFS_SCRUB_OFLAG_XFAIL)
		return MAP_VERDICT_XFAIL;
	if (oflags & XFS_SCRUB_OFLAG_INCOMPLETE)
		return MAP_VERDICT_INCOMPLETE;
	if (oflags & XFS_SCRUB_OFLAG_WARNING)
		return MAP_VERDICT_WARNING;
	if (oflags & XFS_SCRUB_OFLAG_PREEN)
		return MAP_VERDICT_PREEN;
	return MAP_VERDICT_CLEAN;
}

enum map_scrub_why map_scrub_why(int state)
{
	switch (state) {
	case 1:
		return MAP_SCRUB_AVAILABLE;
	case 0:
		return MAP_SCRUB_NOT_ASKED;
	case -ENOTTY:			/* XFS built without CONFIG_XFS_ONLINE_SCRUB */
	case -EOPNOTSUPP:
	case -EINVAL:			/* a kernel that knows no scrub type PROBE */
		return MAP_SCRUB_NO_KERNEL;
	case -ENOTRECOVERABLE:		/* fs/xfs/scrub/scrub.c: mounted norecovery */
		return MAP_SCRUB_NORECOVERY;
	case -ESHUTDOWN:		/* fs/xfs/scrub/scrub.c: the filesystem is shut down */
		return MAP_SCRUB_SHUTDOWN;
	case -EPERM:			/* the ioctl needs CAP_SYS_ADMIN */
	case -EACCES:
		return MAP_SCRUB_NOT_PERMITTED;
	}
	return MAP_SCRUB_PROBE_FAILED;
}

const char *map_scrub_why_name(enum map_scrub_why why)
{
	switch (why) {
	case MAP_SCRUB_AVAILABLE:
		return "available";
	case MAP_SCRUB_NOT_ASKED:
		return "not asked";
	case MAP_SCRUB_NO_KERNEL:
		return "kernel has no online scrub";
	case MAP_SCRUB_NORECOVERY:
		return "mounted norecovery: the kernel refuses scrub";
	case MAP_SCRUB_SHUTDOWN:
		return "filesystem is shut down: the kernel refuses scrub";
	case MAP_SCRUB_NOT_PERMITTED:
		return "not permitted: scrub needs CAP_SYS_ADMIN";
	case MAP_SCRUB_PROBE_FAILED:
		return "the scrub probe failed";
	}
	return "the scrub probe failed";
}

/* Results already asked for during one annotate call. */
struct scrub_cache {
	struct map_scrub_result *v;
	size_t nr, cap;
};

static int is_ag_type(uint32_t type)
{
	return type >= XFS_SCRUB_TYPE_SB && type <= XFS_SCRUB_TYPE_REFCNTBT;
}

/* Ask scrub (once) about one object and attach the result to owner o. */
static void scrub_ask(struct map_target *fs, struct scrub_cache *c, struct map_owner *o,
		      uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen)
{
	struct xfs_scrub_metadata sm;
	struct map_scrub_result r;
	int ret;

	if (o->nr_scrub >= MAP_MAX_SCRUB)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		if (c->v[i].type == type && c->v[i].agno == agno && c->v[i].ino == ino) {
			o->scrub[o->nr_scrub++] = c->v[i];
			return;
		}
	}
	memset(&sm, 0, sizeof(sm));
	sm.sm_type = type;
	sm.sm_flags = 0;			/* check only: never XFS_SCRUB_IFLAG_REPAIR */
	if (is_ag_type(type)) {
		sm.sm_agno = agno;
	} else {
		sm.sm_ino = ino;
		sm.sm_gen = gen;
	}
	ret = kio_xfs_scrub_metadata(fs->mount_fd, &sm);
	memset(&r, 0, sizeof(r));
	r.type = type;
	r.agno = agno;
	r.ino = ino;
	r.err = ret < 0 ? ret : 0;
	r.oflags = ret < 0 ? 0 : sm.sm_flags;
	r.verdict = map_scrub_verdict(ret, r.oflags);
	if (r.verdict == MAP_VERDICT_ABSENT)
		return;				/* e.g. no finobt on this filesystem */
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct map_scrub_result *n = realloc(c->v, sizeof(*n) * cap);

		if (n) {
			c->v = n;
			c->cap = cap;
		}
	}
	if (c->nr < c->cap)
		c->v[c->nr++] = r;
	o->scrub[o->nr_scrub++] = r;
}

/* Return 1 when the kernel answers XFS_IOC_SCRUB_METADATA on fs (probed once). */
static int scrub_available(struct map_target *fs, struct map_fsx *x)
{
	struct xfs_scrub_metadata sm;
	int ret;

	if (!x->scrub) {
		memset(&sm, 0, sizeof(sm));
		sm.sm_type = XFS_SCRUB_TYPE_PROBE;
		ret = kio_xfs_scrub_metadata(fs->mount_fd, &sm);
		x->scrub = ret == 0 ? 1 : (ret < 0 ? ret : -EIO);
	}
	return x->scrub == 1;
}

/*
 * Scrub the allocated inodes whose records lie in the damaged bytes of an inode chunk. The
 * inode btree says which are allocated: bulkstat cannot, as it skips (or fails on) an inode
 * whose cluster is unreadable or fails its verifier, and those are the ones to ask about.
 * Their generation comes from bulkstat when it answers, else 0 (scrub then checks none).
 */
static void scrub_inode_records(struct map_target *fs, struct map_fsx *x, struct scrub_cache *c,
				struct map_owner *o)
{
	const struct kio_xfs_geom *g = &fs->xfs;
	uint64_t bs = g->blocksize, ag_bytes = (uint64_t)g->agblocks * bs;
	uint64_t end = o->fs_offset + o->length;
	struct map_xfs_ino xi;

	if (!x->inodesize || !bs || !ag_bytes)
		return;
	map_xfs_ino_init(&xi, g, x->inodesize);
	for (uint64_t b = o->fs_offset - o->fs_offset % x->inodesize;
	     b < end && o->nr_scrub < MAP_MAX_SCRUB; b += x->inodesize) {
		uint64_t ino = map_xfs_ino_at(&xi, b);
		struct kio_xfs_inode in;
		/* from the inode btree (the XFS ops table's inumbers), no inode cluster read */
		int alloc = map_target_ops(fs)->inode_in_use ?
			    map_target_ops(fs)->inode_in_use(fs, ino) : 1;
		uint32_t gen = 0;

		if (alloc == 0)
			continue;		/* free inode record */
		if (map_fsx_inode(fs, ino, &in) == 0)
			gen = in.gen;
		else if (alloc < 0)
			continue;		/* no inode btree answer: bulkstat decides */
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_INODE, 0, ino, gen);
	}
}

/* Load (once) the extra geometry and fs-wide health of fs. */
static void load_geom(struct map_target *fs, struct map_fsx *x)
{
	struct kio_xfs_geom_ext ge;

	if (x->geom_ext_done)
		return;
	x->geom_ext_done = 1;
	if (kio_xfs_geometry_ext(fs->mount_fd, &ge) == 0) {
		x->inodesize = ge.inodesize;
		x->fs_sick = ge.sick;
		x->fs_checked = ge.checked;
	}
}

/* Health of AG agno (cached); 0 or -errno. */
static int ag_health(struct map_target *fs, struct map_fsx *x, uint32_t agno, uint32_t *sick,
		     uint32_t *checked)
{
	struct xfs_ag_geometry ag;
	int ret;

	if (agno >= fs->xfs.agcount)
		return -EINVAL;
	if (!x->ag_done) {
		x->nr_ag = fs->xfs.agcount;
		x->ag_done = calloc(x->nr_ag, 1);
		x->ag_sick = calloc(x->nr_ag, sizeof(uint32_t));
		x->ag_checked = calloc(x->nr_ag, sizeof(uint32_t));
		if (!x->ag_done || !x->ag_sick || !x->ag_checked)
			return -ENOMEM;
	}
	if (!x->ag_done[agno]) {
		ret = kio_xfs_ag_geometry(fs->mount_fd, agno, &ag);
		if (ret < 0)
			return ret;
		x->ag_done[agno] = 1;
		x->ag_sick[agno] = ag.ag_sick;
		x->ag_checked[agno] = ag.ag_checked;
	}
	*sick = x->ag_sick[agno];
	*checked = x->ag_checked[agno];
	return 0;
}

/* Health and scrub verdicts of one owner of an XFS filesystem. */
static void annotate_one(struct map_target *fs, struct map_fsx *x, struct scrub_cache *c,
			 struct map_owner *o, int scrub)
{
	struct kio_xfs_inode in;
	int inode_owner = o->kind == MAP_OWN_FILE || (o->flags & MAP_OWNF_BMBT);
	int attr = !!(o->flags & MAP_OWNF_ATTR_FORK);

	if (inode_owner) {
		if (map_fsx_inode(fs, o->inode, &in) < 0)
			return;
		o->gen = in.gen;
		o->health = MAP_HEALTH_INODE;
		o->sick = in.sick;
		o->checked = in.checked;
		if (!scrub)
			return;
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_INODE, 0, o->inode, in.gen);
		scrub_ask(fs, c, o, attr ? XFS_SCRUB_TYPE_BMBTA : XFS_SCRUB_TYPE_BMBTD, 0,
			  o->inode, in.gen);
		if (attr)
			scrub_ask(fs, c, o, XFS_SCRUB_TYPE_XATTR, 0, o->inode, in.gen);
		else if (S_ISDIR(in.mode))
			scrub_ask(fs, c, o, XFS_SCRUB_TYPE_DIR, 0, o->inode, in.gen);
		else if (S_ISLNK(in.mode))
			scrub_ask(fs, c, o, XFS_SCRUB_TYPE_SYMLINK, 0, o->inode, in.gen);
		if (fs->xfs.has_parent)
			scrub_ask(fs, c, o, XFS_SCRUB_TYPE_PARENT, 0, o->inode, in.gen);
		return;
	}
	if ((o->kind != MAP_OWN_METADATA && o->kind != MAP_OWN_LOG) || o->ag < 0 || !o->meta_type)
		return;
	if (ag_health(fs, x, (uint32_t)o->ag, &o->sick, &o->checked) == 0)
		o->health = MAP_HEALTH_AG;
	if (!scrub)
		return;
	uint32_t agno = (uint32_t)o->ag;

	if (strcmp(o->meta_type, "fs-headers") == 0) {
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_SB, agno, 0, 0);
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_AGF, agno, 0, 0);
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_AGFL, agno, 0, 0);
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_AGI, agno, 0, 0);
	} else if (strcmp(o->meta_type, "ag-btrees") == 0) {
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_BNOBT, agno, 0, 0);
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_CNTBT, agno, 0, 0);
		if (fs->xfs.has_rmapbt)
			scrub_ask(fs, c, o, XFS_SCRUB_TYPE_RMAPBT, agno, 0, 0);
	} else if (strcmp(o->meta_type, "inobt") == 0) {
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_INOBT, agno, 0, 0);
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_FINOBT, agno, 0, 0);
	} else if (strcmp(o->meta_type, "refcountbt") == 0) {
		scrub_ask(fs, c, o, XFS_SCRUB_TYPE_REFCNTBT, agno, 0, 0);
	} else if (strcmp(o->meta_type, "inodes") == 0) {
		scrub_inode_records(fs, x, c, o);
	}
}

int map_health_annotate(struct map_target *t, struct map_owner *owners, size_t nr,
			int *scrub_state, unsigned *fs_sick, unsigned *fs_checked)
{
	struct scrub_cache c = { 0 };

	*fs_sick = *fs_checked = 0;
	for (size_t i = 0; i < nr; i++) {
		struct map_owner *o = &owners[i];
		struct map_target *fs = map_target_fs(t, o->fs_idx);
		struct map_fsx *x;
		int scrub;

		if (!fs || !(map_target_ops(fs)->caps & MAP_FSC_HEALTH) || fs->mount_fd < 0)
			continue;
		if (o->kind == MAP_OWN_FREE || o->kind == MAP_OWN_UNKNOWN ||
		    o->kind == MAP_OWN_DEVICE)
			continue;
		x = map_fsx_get(fs);
		if (!x)
			break;
		load_geom(fs, x);
		*fs_sick |= x->fs_sick;
		*fs_checked |= x->fs_checked;
		scrub = scrub_available(fs, x);
		if (scrub)
			*scrub_state = 1;
		else if (*scrub_state != 1)
			*scrub_state = x->scrub;
		annotate_one(fs, x, &c, o, scrub);
	}
	free(c.v);
	return 0;
}

int map_health_plan_scrub(struct map_target *t, struct map_damage *d)
{
	/* What a group read whole is made of: its headers and btrees, asked once each. */
	static const uint32_t types[] = {
		XFS_SCRUB_TYPE_AGF, XFS_SCRUB_TYPE_AGFL, XFS_SCRUB_TYPE_AGI, XFS_SCRUB_TYPE_BNOBT,
		XFS_SCRUB_TYPE_CNTBT, XFS_SCRUB_TYPE_INOBT, XFS_SCRUB_TYPE_FINOBT,
		XFS_SCRUB_TYPE_RMAPBT,
	};
	struct map_fsx *x;

	if (!d->nr_plan_notes || !(map_target_ops(t)->caps & MAP_FSC_HEALTH) || t->mount_fd < 0)
		return 0;
	x = map_fsx_get(t);
	if (!x)
		return -ENOMEM;
	if (!scrub_available(t, x)) {
		if (d->scrub != 1)
			d->scrub = x->scrub;	/* why not: the probe's errno */
		return 0;
	}
	d->scrub = 1;
	d->plan_scrub = calloc(d->nr_plan_notes, sizeof(*d->plan_scrub));
	d->nr_plan_scrub = calloc(d->nr_plan_notes, sizeof(*d->nr_plan_scrub));
	if (!d->plan_scrub || !d->nr_plan_scrub)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_plan_notes; i++) {
		const struct map_plan_note *pn = &d->plan_notes[i];

		/* The data device's AGs of this filesystem (a partition's notes: not here). */
		if (pn->group < 0 || pn->dev_idx != 0 || pn->group >= (int64_t)t->xfs.agcount)
			continue;
		for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
			struct xfs_scrub_metadata sm;
			struct map_scrub_result r;
			int ret;

			if (types[k] == XFS_SCRUB_TYPE_RMAPBT && !t->xfs.has_rmapbt)
				continue;
			memset(&sm, 0, sizeof(sm));
			sm.sm_type = types[k];
			sm.sm_agno = (uint32_t)pn->group;	/* check only: never REPAIR */
			ret = kio_xfs_scrub_metadata(t->mount_fd, &sm);
			memset(&r, 0, sizeof(r));
			r.type = types[k];
			r.agno = (uint32_t)pn->group;
			r.err = ret < 0 ? ret : 0;
			r.oflags = ret < 0 ? 0 : sm.sm_flags;
			r.verdict = map_scrub_verdict(ret, r.oflags);
			if (r.verdict == MAP_VERDICT_ABSENT)
				continue;		/* e.g. no finobt */
			d->plan_scrub[i][d->nr_plan_scrub[i]++] = r;
		}
	}
	return 0;
}
