/*
 * stack/stack_md.h - the address arithmetic of md RAID (linear, 0, 1, 4, 5, 6, 10) and of
 * device-mapper striping, as the kernel's drivers/md computes it. Pure: no I/O, sectors are
 * 512 bytes, member sectors are counted from the member's data offset.
 */
#ifndef MEDIASCAN_STACK_MD_H
#define MEDIASCAN_STACK_MD_H

#include <stdint.h>

#define MAP_MD_MAX_DISKS 64

/* md's layout numbers (include/linux/raid/md_p.h, drivers/md/raid5.h) */
enum {
	MAP_R5_LEFT_ASYMMETRIC = 0,
	MAP_R5_RIGHT_ASYMMETRIC = 1,
	MAP_R5_LEFT_SYMMETRIC = 2,
	MAP_R5_RIGHT_SYMMETRIC = 3,
	MAP_R5_PARITY_0 = 4,
	MAP_R5_PARITY_N = 5,
	MAP_R6_ROTATING_ZERO_RESTART = 8,
	MAP_R6_ROTATING_N_RESTART = 9,
	MAP_R6_ROTATING_N_CONTINUE = 10,
	MAP_R6_LEFT_ASYMMETRIC_6 = 16,
	MAP_R6_RIGHT_ASYMMETRIC_6 = 17,
	MAP_R6_LEFT_SYMMETRIC_6 = 18,
	MAP_R6_RIGHT_SYMMETRIC_6 = 19,
	MAP_R6_PARITY_0_6 = 20,
};

/* What a member range holds. */
enum map_md_role {
	MAP_MD_DATA,			/* the (only) copy of array data */
	MAP_MD_MIRROR,			/* one of several copies of array data */
	MAP_MD_PARITY,			/* P of a parity stripe */
	MAP_MD_SYNDROME,		/* Q of a RAID6 stripe */
};

/* The geometry of one array (or a dm-striped / dm-raid target). */
struct map_md_geo {
	int level;			/* -1 linear, 0, 1, 4, 5, 6, 10 */
	unsigned raid_disks;
	uint64_t chunk_sectors;		/* 0 for raid1 */
	uint32_t layout;
	uint64_t dev_sectors;		/* used sectors per member (component_size) */
	uint64_t member_sectors[MAP_MD_MAX_DISKS];	/* linear and raid0: each member's size */
};

/* One member range. */
struct map_md_loc {
	unsigned slot;
	uint64_t sector;		/* on the member, from its data offset */
	uint64_t count;
	enum map_md_role role;
};

/* Return the name of a role ("data", "mirror", "parity", "syndrome"). */
const char *map_md_role_name(enum map_md_role r);
/* Return 0 if geometry g can be mapped, else -EOPNOTSUPP (and *why says why) or -EINVAL. */
int map_md_check(const struct map_md_geo *g, const char **why);
/*
 * Return the number of member ranges written to out[0..max) that hold array sectors
 * [sector, sector + count) clipped at the first chunk boundary (*done: how many array sectors
 * that is): every copy, and for RAID4/5/6 the parity (and syndrome) ranges of the same stripe
 * rows. -E2BIG when max is too small, -ERANGE past the array's end, -EOPNOTSUPP, -EINVAL.
 */
int map_md_down(const struct map_md_geo *g, uint64_t sector, uint64_t count,
		struct map_md_loc *out, unsigned max, uint64_t *done);
/*
 * Return 0 and the array sector *asector that member slot's sector msector holds (*role data
 * or mirror), or for parity/syndrome (*role) the array sector of the first data chunk of the
 * same stripe row at the same chunk offset; *run is how many sectors from msector stay
 * contiguous (to the chunk's end). -ERANGE when msector holds nothing (past the used area),
 * -EOPNOTSUPP, -EINVAL.
 */
int map_md_up(const struct map_md_geo *g, unsigned slot, uint64_t msector, uint64_t *asector,
	      enum map_md_role *role, uint64_t *run);
/* Return the array size in sectors of g (0 if unknown). */
uint64_t map_md_array_sectors(const struct map_md_geo *g);

#endif
