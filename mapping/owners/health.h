/*
 * mapping/owners/health.h - what the XFS kernel knows about owners of damaged blocks: the health it
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

/**
 * map_verdict_name() - the name of a scrub verdict.
 * @v: the verdict
 *
 * Return: a static name: "clean", "corrupt", "cross-reference failed"...
 */
const char *map_verdict_name(enum map_verdict v);
/**
 * map_scrub_verdict() - the verdict of a scrub query.
 * @ret: the ioctl's return (-ENOENT absent, -EUCLEAN or -EBADMSG corrupt, other errors "error")
 * @oflags: XFS_SCRUB_OFLAG_* it set
 *
 * Return: the verdict: from ret when it failed, else from the worst flag set.
 */
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
/**
 * map_scrub_why() - what a scrub state says.
 * @state: map_damage.scrub: 1 answered, 0 not asked, -errno of the probe otherwise
 *
 * Return: why online scrub answered or not.
 */
enum map_scrub_why map_scrub_why(int state);
/**
 * map_scrub_why_name() - the reason for people and JSON.
 * @why: the reason
 *
 * Return: a static text: "kernel has no online scrub", ...
 */
const char *map_scrub_why_name(enum map_scrub_why why);
/**
 * map_scrub_type_name() - the name of an XFS scrub type.
 * @type: XFS_SCRUB_TYPE_*
 *
 * Return: a static name: "inode", "bnobt", ...
 */
const char *map_scrub_type_name(uint32_t type);
/**
 * map_health_names() - the names of the set health bits.
 * @kind: what the bits are about (inode, AG, filesystem)
 * @bits: the bits
 * @out: set to the static names
 * @max: room in out
 *
 * Return: the number of names written (at most max).
 */
unsigned map_health_names(enum map_health_kind kind, uint32_t bits, const char **out,
			  unsigned max);
/**
 * map_health_plan_scrub() - ask online scrub about the groups the plan read whole.
 * @t: the target
 * @d: the damage: d->plan_notes asked about, verdicts into d->plan_scrub; d->scrub says why not
 *     when scrub cannot answer
 *
 * The headers and btrees of every XFS AG the plan read whole, where the kernel has online scrub.
 *
 * Return: 0, or -ENOMEM.
 */
int map_health_plan_scrub(struct map_target *t, struct map_damage *d);
/**
 * map_health_annotate() - ask the kernel about the health and scrub verdict of every owner on XFS.
 * @t: the target
 * @owners: the owners (annotated)
 * @nr: how many
 * @scrub_state: set to whether scrub answered (1, 0 not asked, -errno of the probe)
 * @fs_sick: set to XFS_FSOP_GEOM_SICK_* of the filesystem
 * @fs_checked: set to the checked bits
 *
 * Through bulkstat, AG geometry and XFS_IOC_SCRUB_METADATA.
 *
 * Return: 0, or -ENOMEM.
 */
int map_health_annotate(struct map_target *t, struct map_owner *owners, size_t nr,
			int *scrub_state, unsigned *fs_sick, unsigned *fs_checked);

#endif
