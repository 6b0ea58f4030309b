/*
 * stack/stack_int.h - what the files of the storage stack (stack.c, stack_down.c,
 * stack_tree.c, stack_sysfs.c) share; nothing outside mapping/stack*.c includes it.
 */
#ifndef MEDIASCAN_STACK_INT_H
#define MEDIASCAN_STACK_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kio.h"
#include "stack.h"

#define DM_MAX_ROWS 256
#define DM_FEW_ROWS 8		/* rows asked first (map_stack_dm_rows) */

/* One md array as sysfs shows it. */
struct md_info {
	struct map_md_geo g;
	char member[MAP_MD_MAX_DISKS][MAP_STACK_NAME];	/* by slot, "" missing */
	uint64_t data_offset[MAP_MD_MAX_DISKS];		/* sectors */
	char level[16];
	char sync_action[32];
	char reshape[32];
	uint64_t degraded;
};

/* Copy src to dst (len bytes), cut to fit, as snprintf(dst, len, "%s", src) does without its
 * cost: a walk copies device names at every hop of every range. (Not strnlen: GCC's
 * -Wstringop-overread calls a bound past a shorter literal an error under ASan's build.) */
static inline void stack_copy(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	while (n + 1 < len && src[n])
		n++;

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Return 1 for an md array's name (md0, md127; not md0p1, a partition of one). */
int map_stack_is_md(const char *n);
/* Return 1 for a device-mapper device's name (dm-3). */
int map_stack_is_dm(const char *n);
/* Write the whole disk of name to disk and name's start on it in bytes to *start. */
void map_stack_disk_of(const char *sysfs, const char *name, char *disk, size_t len,
		       uint64_t *start);
/* Return 0 after reading array md's geometry and members into mi, -errno; *why set when it
 * cannot be mapped. */
int map_stack_md_read(const char *sysfs, const char *md, struct md_info *mi, const char **why);
/* Return the kind of device name by sysfs alone: "partition", "md", "dm" or "disk". */
const char *map_stack_base_kind(const char *sysfs, const char *name);
/* Return 0 after adding the leaves holding sectors [s, s + *cnt) of name to out (*n of max),
 * *cnt clipped at the first boundary; -EOPNOTSUPP (*bad the kind), -errno. */
int map_stack_down_at(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt,
		enum map_md_role role, struct map_stack_leaf *out, unsigned max, unsigned *n,
		const char **bad, int depth);

/* Return 0 and the name of the block device with "MAJ:MIN" devt text, -ENODEV (kept a
 * second: stack_memo.c). */
int map_stack_devt_name(const char *devt, char *name, size_t len);
/* kio_blk_list, kio_blk_attr and kio_blk_attr_u64 with the answer kept a second when sysfs
 * is the real one (stack_memo.c): a walk asks the same ones many times. */
int map_stack_list(const char *sysfs, const char *name, const char *sub, const char *prefix,
		   char (*out)[KIO_DISK_NAME_LEN], unsigned max);
int map_stack_attr(const char *sysfs, const char *name, const char *attr, char *buf,
		   size_t len);
int map_stack_attr_u64(const char *sysfs, const char *name, const char *attr, uint64_t *val);
struct kio_dm_target;
/* Return the number of rows of dm device name's table in *rows (malloc'd, DM_MAX_ROWS; free
 * with map_stack_dm_rows_free, which wipes them), or -errno. */
int map_stack_dm_rows(const char *sysfs, const char *name, struct kio_dm_target **rows);
void map_stack_dm_rows_free(struct kio_dm_target *rows);
/*
 * map_stack_dm_rows without the copy: the rows the cache keeps, shared (a walk asks the
 * same few tables for every range; a copy of a kilobyte a row, wiped when freed, each time
 * was most of a thin pool's way up). Read only; valid, whatever the cache does meanwhile,
 * until map_stack_dm_rows_put (which wipes them once nobody holds them). Return the number
 * of rows, or -errno.
 */
int map_stack_dm_rows_get(const char *sysfs, const char *name,
			  const struct kio_dm_target **rows);
void map_stack_dm_rows_put(const struct kio_dm_target *rows);
/* Return 0 and where sector s of a single-path dm row r (linear, crypt, striped, multipath,
 * flakey, delay) lies: device below, sector *off on it; *cnt clipped at the row's or chunk's
 * end. -EOPNOTSUPP (*bad the kind) for a row that cannot be mapped or a raid row, -EINVAL. */
int map_stack_dm_below(const struct kio_dm_target *r, uint64_t s, uint64_t *cnt, char *below,
		       size_t len, uint64_t *off, const char **bad);

/*
 * stack_thin_pool.c: a live thin pool. The model of the pool whose thin-pool row has params
 * (loaded from its metadata device, reused while current; fresh: check the superblock now);
 * the thin-pool row's params of pool device pool_devt ("MAJ:MIN"); a thin row r's sector s
 * down: 1 with below and *off (sectors) on the pool's data device (or external origin), 0
 * for an unprovisioned block, *cnt clipped either way; a thin row r up from its pool device
 * below at sector x: 1 with *top and *run, 0 when the volume does not map x (*run: the sectors
 * from x it stays so, as thin_row_up). -errno.
 */
struct thin_model;
/* The models' generation (bumped at every load or recheck), and 1 while none was loaded or
 * checked since gen and each would still be given as it is (younger than its age limit): a
 * walk made with them would be made the same (stack_keep.c). */
uint64_t map_thin_models_gen(void);
int map_thin_models_fresh(uint64_t gen);
int map_thin_pool_model(const char *pool_params, int fresh, const struct thin_model **m,
			char *why, size_t len);
int map_thin_pool_of(const char *sysfs, const char *pool_devt, char *params, size_t len);
int map_thin_down(const char *sysfs, const struct kio_dm_target *r, uint64_t s, uint64_t *cnt,
		  char *below, size_t len, uint64_t *off);
int map_thin_up(const char *sysfs, const struct kio_dm_target *r, const char *below,
		uint64_t x, uint64_t *top, uint64_t *run);
/* map_thin_up with the pool's model in *m: found the first time (*m NULL), then reused (the
 * volumes of one pool asked about one block). */
int map_thin_up_in(const char *sysfs, const struct kio_dm_target *r, const char *below,
		   uint64_t x, uint64_t *top, uint64_t *run, const struct thin_model **m);

#endif
