/*
 * stack/stack_sysfs.c - what sysfs says of a layer of the storage stack, for the files that
 * walk it (stack.c up, stack_down.c down, stack_tree.c the tree): which kind of device a
 * kernel name is, a partition's disk and start, an md array's geometry and members, a dm
 * device's table rows and a devt's name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "kio.h"
#include "stack.h"
#include "stack_int.h"

/* md0, md127 (not md0p1, a partition of one) */
int map_stack_is_md(const char *n)
{
	/* "md" and digits only (no sscanf: a walk asks this of every device it passes) */
	if (strncmp(n, "md", 2) || !n[2])
		return 0;
	for (n += 2; *n; n++)
		if (*n < '0' || *n > '9')
			return 0;
	return 1;
}

int map_stack_is_dm(const char *n)
{
	return strncmp(n, "dm-", 3) == 0;
}

/* The whole disk of name and name's start on it in bytes. */
void map_stack_disk_of(const char *sysfs, const char *name, char *disk, size_t len, uint64_t *start)
{
	uint64_t s = 0;

	*start = 0;
	if (kio_blk_parent(sysfs, name, disk, len) == 0) {
		if (map_stack_attr_u64(sysfs, name, "start", &s) == 0)
			*start = s * 512;
		return;
	}
	snprintf(disk, len, "%s", name);
}

static int md_level(const char *s, int *level)
{
	if (strcmp(s, "linear") == 0)
		*level = -1;
	else if (strncmp(s, "raid", 4) == 0 && s[4] >= '0' && s[4] <= '9')
		*level = atoi(s + 4);
	else
		return -EOPNOTSUPP;
	return 0;
}

/* Read array md's geometry and members; *why set when it cannot be mapped. */
int map_stack_md_read(const char *sysfs, const char *md, struct md_info *mi, const char **why)
{
	char (*devs)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 2 * MAP_MD_MAX_DISKS);
	char buf[64], attr[160];
	uint64_t v;
	int n, ret = 0;

	*why = NULL;
	memset(mi, 0, sizeof(*mi));
	if (!devs)
		return -ENOMEM;
	if (map_stack_attr(sysfs, md, "md/level", mi->level, sizeof(mi->level)) < 0 ||
	    md_level(mi->level, &mi->g.level) < 0) {
		*why = "md personality that is not mapped (multipath, faulty, container)";
		goto out;
	}
	if (mi->g.level != -1 && mi->g.level != 0 && mi->g.level != 1 && mi->g.level != 4 &&
	    mi->g.level != 5 && mi->g.level != 6 && mi->g.level != 10) {
		*why = "unknown md RAID level";
		goto out;
	}
	if (map_stack_attr_u64(sysfs, md, "md/raid_disks", &v) < 0 || !v ||
	    v > MAP_MD_MAX_DISKS) {
		*why = "md/raid_disks unreadable or over 64";
		goto out;
	}
	mi->g.raid_disks = (unsigned)v;
	if (map_stack_attr_u64(sysfs, md, "md/chunk_size", &v) == 0)
		mi->g.chunk_sectors = v / 512;
	if (map_stack_attr_u64(sysfs, md, "md/layout", &v) == 0)
		mi->g.layout = (uint32_t)v;
	if (map_stack_attr_u64(sysfs, md, "md/component_size", &v) == 0)
		mi->g.dev_sectors = v * 2;
	map_stack_attr_u64(sysfs, md, "md/degraded", &mi->degraded);
	map_stack_attr(sysfs, md, "md/sync_action", mi->sync_action, sizeof(mi->sync_action));
	map_stack_attr(sysfs, md, "md/reshape_position", mi->reshape, sizeof(mi->reshape));
	if (mi->reshape[0] && strcmp(mi->reshape, "none")) {
		*why = "the array is reshaping: its geometry changes while it runs";
		goto out;
	}
	n = map_stack_list(sysfs, md, "md", "dev-", devs, 2 * MAP_MD_MAX_DISKS);
	if (n < 0) {
		ret = n;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		uint64_t slot, off = 0, size = 0;

		snprintf(attr, sizeof(attr), "md/%s/slot", devs[i]);
		if (map_stack_attr(sysfs, md, attr, buf, sizeof(buf)) < 0 ||
		    map_stack_attr_u64(sysfs, md, attr, &slot) < 0 || slot >= mi->g.raid_disks)
			continue;		/* a spare ("none") or a journal */
		snprintf(attr, sizeof(attr), "md/%s/offset", devs[i]);
		map_stack_attr_u64(sysfs, md, attr, &off);
		snprintf(attr, sizeof(attr), "md/%s/size", devs[i]);
		map_stack_attr_u64(sysfs, md, attr, &size);
		snprintf(mi->member[slot], sizeof(mi->member[0]), "%s", devs[i] + 4);
		mi->data_offset[slot] = off;
		mi->g.member_sectors[slot] = size * 2;
	}
	if (mi->g.level == 0 || mi->g.level == -1) {
		/* members missing from a raid0/linear: the array cannot run */
		for (unsigned s = 0; s < mi->g.raid_disks; s++)
			if (!mi->member[s][0]) {
				*why = "a member of a raid0/linear array is missing";
				goto out;
			}
	}
	if (map_md_check(&mi->g, why) < 0)
		goto out;
	*why = NULL;
out:
	free(devs);
	return ret;
}


const char *map_stack_base_kind(const char *sysfs, const char *name)
{
	char buf[16];

	if (map_stack_attr(sysfs, name, "partition", buf, sizeof(buf)) >= 0)
		return "partition";
	if (map_stack_is_md(name))
		return "md";
	if (map_stack_is_dm(name))
		return "dm";
	return "disk";
}

/*
 * The tables last read, kept a second: a query walks the same few devices up and down many
 * times (a thousand sectors of a thin pool's disk ask each table thousands of times). The
 * geometry watch (stack_geom.c) reads the tables itself; a reload within the second is what
 * it catches.
 */
#define DM_CACHE 32
#define DM_CACHE_NS 1000000000ull

static struct dm_cached {
	char name[MAP_STACK_NAME];
	uint64_t at;
	int n;
	struct kio_dm_target *rows;	/* n rows */
} dm_cache[DM_CACHE];

static uint64_t mono_ns(void)
{
	struct timespec ts;

	/* the tick the vDSO keeps: never a system call; a few ms off is nothing to a second */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct kio_dm_target *rows_alloc(unsigned cap)
{
	struct kio_dm_target *r = malloc(sizeof(*r) * (cap + 1));

	if (!r)
		return NULL;
	r[0].start = cap;		/* the capacity, for the wipe */
	r[0].length = 0;		/* references (map_stack_dm_rows_get) */
	return r + 1;
}

static int dm_rows_read(const char *sysfs, const char *name, struct kio_dm_target **rows)
{
	char dmdev[32];
	unsigned a, b, cap = DM_FEW_ROWS;
	struct kio_dm_target *r;
	int k;

	*rows = NULL;
	if (map_stack_attr(sysfs, name, "dev", dmdev, sizeof(dmdev)) < 0 ||
	    sscanf(dmdev, "%u:%u", &a, &b) != 2)
		return -ENODEV;
	/* most tables have a row or two: a short array first (each row is a kilobyte, wiped
	 * when freed), the longest only when the table needs it */
	for (;;) {
		r = rows_alloc(cap);
		if (!r)
			return -ENOMEM;
		k = kio_dm_table(makedev(a, b), r, cap);
		if (k != -E2BIG || cap == DM_MAX_ROWS)
			break;
		map_stack_dm_rows_free(r);
		cap = DM_MAX_ROWS;
	}
	if (k < 0) {
		map_stack_dm_rows_free(r);
		return k;
	}
	*rows = r;
	return k;
}

/*
 * The cache's entry of dm device name, read again when absent or older than a second (into
 * the oldest slot when absent); NULL and *err when it cannot be read. The cache holds one
 * reference to its rows (map_stack_dm_rows_get's blocks count theirs in the header row).
 */
static struct dm_cached *dm_cached_get(const char *name, int *err)
{
	static struct dm_cached *last;		/* a walk asks the same table many times */
	uint64_t now = mono_ns();
	struct dm_cached *c = NULL, *old = &dm_cache[0];
	struct kio_dm_target *r, *keep;
	int k;

	if (last && last->rows && now - last->at < DM_CACHE_NS && !strcmp(last->name, name))
		return last;
	for (unsigned i = 0; i < DM_CACHE; i++) {
		if (dm_cache[i].rows && !strcmp(dm_cache[i].name, name)) {
			c = &dm_cache[i];
			break;
		}
		if (dm_cache[i].at < old->at)
			old = &dm_cache[i];
	}
	if (c && now - c->at < DM_CACHE_NS)
		return last = c;
	k = dm_rows_read(NULL, name, &r);
	if (k < 0) {
		*err = k;
		return NULL;
	}
	/* kept at its size (the read had room for many) */
	keep = rows_alloc((unsigned)(k ? k : 1));
	if (keep)
		memcpy(keep, r, sizeof(*r) * (size_t)k);
	map_stack_dm_rows_free(r);
	if (!keep) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!c)
		c = old;
	map_stack_dm_rows_put(c->rows);		/* the cache's reference to what it held */
	keep[-1].length = 1;
	c->rows = keep;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->n = k;
	c->at = now;
	return last = c;
}

/* A dm device's table rows (free with map_stack_dm_rows_free: wiped). */
int map_stack_dm_rows(const char *sysfs, const char *name, struct kio_dm_target **rows)
{
	struct dm_cached *c;
	int err = 0;

	if (sysfs)
		return dm_rows_read(sysfs, name, rows);	/* a fake sysfs (tests): never cached */
	c = dm_cached_get(name, &err);
	if (!c)
		return err;
	*rows = rows_alloc((unsigned)(c->n ? c->n : 1));
	if (!*rows)
		return -ENOMEM;
	memcpy(*rows, c->rows, sizeof(**rows) * (size_t)c->n);
	return c->n;
}

int map_stack_dm_rows_get(const char *sysfs, const char *name,
			  const struct kio_dm_target **rows)
{
	struct kio_dm_target *r;
	struct dm_cached *c;
	int err = 0, k;

	if (sysfs) {
		k = dm_rows_read(sysfs, name, &r);
		if (k < 0)
			return k;
		r[-1].length = 1;
		*rows = r;
		return k;
	}
	c = dm_cached_get(name, &err);
	if (!c)
		return err;
	c->rows[-1].length++;
	*rows = c->rows;
	return c->n;
}

void map_stack_dm_rows_put(const struct kio_dm_target *rows)
{
	struct kio_dm_target *r = (struct kio_dm_target *)rows;

	if (r && --r[-1].length == 0)
		map_stack_dm_rows_free(r);
}

void map_stack_dm_rows_free(struct kio_dm_target *rows)
{
	if (!rows)
		return;
	rows--;
	explicit_bzero(rows, sizeof(*rows) * (rows[0].start + 1));
	free(rows);
}
