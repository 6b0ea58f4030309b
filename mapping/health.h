/*
 * mapping/health.h - what the XFS kernel knows about owners of damaged blocks: the health it
 * keeps (bulkstat, AG and filesystem geometry) and online scrub's verdicts, with their names.
 */
#ifndef MEDIASCAN_HEALTH_H
#define MEDIASCAN_HEALTH_H

#include <stddef.h>
#include <stdint.h>

struct map_owner;
struct map_target;
struct map_damage;

/* Health the kernel keeps about the owning object (XFS). */
enum map_health_kind {
	MAP_HEALTH_NONE,
	MAP_HEALTH_INODE,		/* sick/checked: XFS_BS_SICK_* from bulkstat */
	MAP_HEALTH_AG,			/* sick/checked: XFS_AG_GEOM_SICK_* of the owner's AG */
	MAP_HEALTH_FS,			/* sick/checked: XFS_FSOP_GEOM_SICK_* (whole filesystem) */
};

/* What online scrub said about one object (XFS_IOC_SCRUB_METADATA). */
enum map_verdict {
	MAP_VERDICT_CLEAN,
	MAP_VERDICT_PREEN,		/* could be optimised, not damaged */
	MAP_VERDICT_WARNING,		/* looked odd, not corrupt */
	MAP_VERDICT_INCOMPLETE,		/* the check could not finish */
	MAP_VERDICT_XFAIL,		/* cross-referencing failed */
	MAP_VERDICT_XCORRUPT,		/* disagrees with the metadata it was cross-referenced with */
	MAP_VERDICT_CORRUPT,		/* corrupt: needs repair */
	MAP_VERDICT_ABSENT,		/* the object does not exist (e.g. no finobt) */
	MAP_VERDICT_ERROR,		/* the query failed: err */
};

#define MAP_MAX_SCRUB 6

struct map_scrub_result {
	uint32_t type;			/* XFS_SCRUB_TYPE_* */
	uint32_t agno;
	uint64_t ino;
	enum map_verdict verdict;
	uint32_t oflags;		/* sm_flags as returned */
	int err;			/* -errno of the ioctl, 0 when it answered */
};

/* Return the static name of a scrub verdict: "clean", "corrupt", "cross-reference failed"... */
const char *map_verdict_name(enum map_verdict v);
/* Return the verdict of a scrub query: from the ioctl's return ret (-ENOENT absent, -EUCLEAN
 * or -EBADMSG corrupt, other errors "error"), else from the worst XFS_SCRUB_OFLAG_* set. */
enum map_verdict map_scrub_verdict(int ret, uint32_t oflags);
/* Whether online scrub answered on a filesystem, and if not, why (from the probe's errno). */
enum map_scrub_why {
	MAP_SCRUB_NOT_ASKED,		/* no XFS owner to ask about */
	MAP_SCRUB_AVAILABLE,
	MAP_SCRUB_NO_KERNEL,		/* -ENOTTY, -EOPNOTSUPP, -EINVAL: no online scrub */
	MAP_SCRUB_NORECOVERY,		/* -ENOTRECOVERABLE: mounted norecovery, scrub refused */
	MAP_SCRUB_SHUTDOWN,		/* -ESHUTDOWN: the filesystem is shut down */
	MAP_SCRUB_NOT_PERMITTED,	/* -EPERM, -EACCES: needs CAP_SYS_ADMIN */
	MAP_SCRUB_PROBE_FAILED,		/* any other errno */
};
/* Return what a scrub state says (map_damage.scrub: 1 answered, 0 not asked, -errno of the
 * probe otherwise). */
enum map_scrub_why map_scrub_why(int state);
/* Return the static reason for people and JSON: "kernel has no online scrub", ... */
const char *map_scrub_why_name(enum map_scrub_why why);
/* Return the static name of XFS scrub type (XFS_SCRUB_TYPE_*): "inode", "bnobt", ... */
const char *map_scrub_type_name(uint32_t type);
/* Return the number of names of the set health bits written to out (at most max). */
unsigned map_health_names(enum map_health_kind kind, uint32_t bits, const char **out,
			  unsigned max);
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
