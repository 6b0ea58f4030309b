/*
 * stack/stack.c - a range's way up the storage stack, read from sysfs (holders/, partition
 * starts, /sys/block/mdX/md/) and device-mapper tables: partitions, md arrays (through
 * stack_md.c's arithmetic) and dm rows (stack_dm.c), to the device with no holders, which is
 * where a filesystem sits. The other copies of the range are collected on the way; a layer
 * that cannot be mapped is named, never guessed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kio.h"
#include "stack.h"
#include "stack_thin.h"
#include "stack_int.h"

static void set_bad(struct map_stack_up *u, const char *name, const char *kind,
		    const char *reason)
{
	u->unmappable = 1;
	stack_copy(u->bad_name, sizeof(u->bad_name), name);
	stack_copy(u->bad_kind, sizeof(u->bad_kind), kind);
	stack_copy(u->bad_reason, sizeof(u->bad_reason), reason);
}

static int push_hop(struct map_stack_up *u, const char *name, const char *kind, uint64_t off)
{
	struct map_stack_hop *h;

	if (u->nr_hops == MAP_STACK_MAX_HOPS)
		return -ELOOP;
	h = &u->hop[u->nr_hops++];
	memset(h, 0, sizeof(*h));
	stack_copy(h->name, sizeof(h->name), name);
	stack_copy(h->kind, sizeof(h->kind), kind);
	h->offset = off;
	return 0;
}

/* Room in *arr (n used, grown by doubling from 4) for one more; 0 or -ENOMEM. */
static int room(void *arr, unsigned n, size_t size)
{
	void **p = arr, *np;

	if (n && (n < 4 || (n & (n - 1))))
		return 0;			/* capacity 4, 8, 16...: not full */
	np = realloc(*p, (n ? 2 * (size_t)n : 4) * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	return 0;
}

void map_stack_up_release(struct map_stack_up *u)
{
	free(u->copy);
	free(u->also);
	memset(u, 0, sizeof(*u));
}

void map_stack_up_free(struct map_stack_up *u)
{
	if (!u)
		return;
	map_stack_up_release(u);
	free(u);
}

static void add_copy(struct map_stack_up *u, const char *sysfs, const char *name,
		     const char *array, uint64_t off, uint64_t length, enum map_md_role role)
{
	struct map_stack_copy *c;
	struct map_stack_leaf lf[4];
	char leaf[MAP_STACK_NAME];
	uint64_t start, cnt = (length + off % 512 + 511) / 512;
	const char *bad = NULL;
	unsigned nl = 0;

	if (u->nr_copies == MAP_STACK_MAX_COPIES || room(&u->copy, u->nr_copies,
							 sizeof(*u->copy)) < 0)
		return;			/* out of memory: a copy not named (the caller's own limit) */
	/* a leg that is itself a dm or md device (dm-raid's rimage LVs): its disk range */
	if ((map_stack_is_dm(name) || map_stack_is_md(name)) &&
	    map_stack_down_at(sysfs, name, off / 512, &cnt, MAP_MD_DATA, lf, 4, &nl, &bad, 0) >= 0 &&
	    nl == 1) {
		stack_copy(leaf, sizeof(leaf), lf[0].name);
		name = leaf;
		off = lf[0].offset + off % 512;
		if (length > cnt * 512 - off % 512)
			length = cnt * 512 - off % 512;
	}
	c = &u->copy[u->nr_copies++];
	memset(c, 0, sizeof(*c));
	stack_copy(c->name, sizeof(c->name), name);
	stack_copy(c->array, sizeof(c->array), array);
	map_stack_disk_of(sysfs, name, c->disk, sizeof(c->disk), &start);
	c->offset = off;
	c->disk_offset = off + start;
	c->length = length;
	c->role = map_md_role_name(role);
}

/* *same (a walk's u->same) cut to run sectors (UINT64_MAX: all) from byte inb of the first. */
static void same_clip(uint64_t *same, uint64_t run, uint64_t inb)
{
	uint64_t b = run >= UINT64_MAX / 512 ? UINT64_MAX : run * 512 > inb ? run * 512 - inb : 0;

	if (*same > b)
		*same = b;
}

/* Up one md layer: cur (member of md) at byte *off. */
static int up_md(const char *sysfs, const char *md, const char *cur, uint64_t *off,
		 uint64_t *len, struct map_stack_up *u)
{
	struct map_md_loc locs[3 * MAP_MD_MAX_DISKS];
	struct md_info mi;
	enum map_md_role role;
	uint64_t slot, doff, ms, a, run, done, inb = *off % 512;
	char attr[160], kind[24];
	const char *why;
	unsigned nd;
	int ret = map_stack_md_read(sysfs, md, &mi, &why);

	u->same = 0;			/* its copies are the range's: never kept */
	if (ret < 0)
		return ret;
	snprintf(kind, sizeof(kind), "md-%s", mi.level);
	if (why) {
		set_bad(u, md, kind, why);
		return 0;
	}
	snprintf(attr, sizeof(attr), "md/dev-%s/slot", cur);
	if (map_stack_attr_u64(sysfs, md, attr, &slot) < 0 || slot >= mi.g.raid_disks) {
		push_hop(u, md, kind, 0);
		u->unused = 1;
		snprintf(u->bad_reason, sizeof(u->bad_reason), "%s is a spare (or failed) in %s: "
			 "it holds no data", cur, md);
		return 0;
	}
	doff = mi.data_offset[slot];
	if (*off / 512 < doff) {
		push_hop(u, md, kind, 0);
		u->unused = 1;
		snprintf(u->bad_reason, sizeof(u->bad_reason), "md metadata of %s (superblock, "
			 "bitmap) before the data offset %" PRIu64, md, doff * 512);
		u->length = *len < doff * 512 - *off ? *len : doff * 512 - *off;
		return 0;
	}
	ms = *off / 512 - doff;
	ret = map_md_up(&mi.g, (unsigned)slot, ms, &a, &role, &run);
	if (ret == -ERANGE) {
		push_hop(u, md, kind, 0);
		u->unused = 1;
		snprintf(u->bad_reason, sizeof(u->bad_reason), "past the used area of %s", md);
		return 0;
	}
	if (ret < 0) {
		set_bad(u, md, kind, "the member sector does not map back (geometry not understood)");
		return 0;
	}
	if (*len > run * 512 - inb)
		*len = run * 512 - inb;
	push_hop(u, md, kind, a * 512 + inb);
	u->hop[u->nr_hops - 1].degraded = mi.degraded > 0;
	/* the other copies: the whole stripe row for parity, else every copy of a */
	nd = mi.g.level == 6 ? mi.g.raid_disks - 2 :
	     mi.g.level == 4 || mi.g.level == 5 ? mi.g.raid_disks - 1 : 1;
	for (unsigned d = 0; d < nd; d++) {
		uint64_t s = role == MAP_MD_PARITY || role == MAP_MD_SYNDROME ||
			     (mi.g.level >= 4 && mi.g.level <= 6) ?
			     a - (a % (mi.g.chunk_sectors * nd)) + d * mi.g.chunk_sectors +
			     a % mi.g.chunk_sectors : a;
		int k;

		if (!(mi.g.level >= 4 && mi.g.level <= 6) && d)
			break;
		k = map_md_down(&mi.g, s, (*len + inb + 511) / 512, locs, 3 * MAP_MD_MAX_DISKS,
				&done);
		for (int i = 0; i < k; i++) {
			if (locs[i].slot == slot)
				continue;
			if (d && locs[i].role != MAP_MD_DATA)
				continue;	/* P and Q once */
			if (!mi.member[locs[i].slot][0])
				continue;	/* missing member */
			add_copy(u, sysfs, mi.member[locs[i].slot], md,
				 (locs[i].sector + mi.data_offset[locs[i].slot]) * 512 + inb,
				 *len, locs[i].role);
		}
	}
	if (role == MAP_MD_PARITY || role == MAP_MD_SYNDROME) {
		u->hop[u->nr_hops - 1].parity = 1;
		u->parity = 1;
	}
	*off = a * 512 + inb;
	return 1;
}

/* Up one dm layer: cur (a device of dm) at byte *off. */
static int up_dm(const char *sysfs, const char *dm, const char *cur, uint64_t *off,
		 uint64_t *len, struct map_stack_up *u)
{
	const struct kio_dm_target *rows = NULL;
	struct map_dm_leg legs[MAP_MD_MAX_DISKS * 2];
	char below[32];
	const char *why, *bad_type = NULL;
	unsigned nl;
	uint64_t top, run, inb = *off % 512;
	int n, ret = 0, found = 0;

	if (map_stack_attr(sysfs, cur, "dev", below, sizeof(below)) < 0)
		return -ENODEV;
	n = map_stack_dm_rows_get(sysfs, dm, &rows);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !found; i++) {
		int r;

		if (!map_dm_supported(rows[i].type, &why)) {
			bad_type = rows[i].type;
			continue;
		}
		nl = 0;
		if (!strcmp(rows[i].type, "thin"))
			r = map_thin_up(sysfs, &rows[i], below, *off / 512, &top, &run);
		else if (!strcmp(rows[i].type, "thin-pool"))
			r = thin_pool_row_up(rows[i].start, rows[i].length, rows[i].params, below,
					     *off / 512, &top, &run);
		else
			r = map_dm_row_up(rows[i].type, rows[i].start, rows[i].length,
					  rows[i].params, below, *off / 512, &top, &run, legs,
					  sizeof(legs) / sizeof(legs[0]), &nl);
		if (r <= 0)		/* not used by this row so far (an error: no promise) */
			same_clip(&u->same, r < 0 ? 0 : run, inb);
		if (r < 0 && (!strcmp(rows[i].type, "thin") || !strcmp(rows[i].type, "thin-pool"))) {
			/* the pool's metadata could not be read consistently: no owner guessed */
			set_bad(u, dm, map_dm_kind(rows[i].type), map_thin_why());
			ret = 0;
			goto out;
		}
		if (r <= 0)
			continue;
		if (r == 2 && !strcmp(rows[i].type, "thin-pool")) {
			/* the pool's metadata device: no volume owns it, every volume needs it */
			found = 1;
			push_hop(u, dm, "dm-thin-pool", *off);
			u->thin_meta = 1;
			u->unused = 1;
			snprintf(u->bad_reason, sizeof(u->bad_reason), "the metadata of thin pool %s: "
				 "damage there is every thin volume's", dm);
			break;
		}
		found = 1;
		if (*len > run * 512 - inb)
			*len = run * 512 - inb;
		if (!strcmp(rows[i].type, "thin") || r != 1)
			u->same = 0;
		else
			same_clip(&u->same, run, inb);
		push_hop(u, dm, map_dm_kind(rows[i].type), top * 512 + inb);
		for (unsigned k = 0; k < nl; k++) {
			unsigned ma, mi;
			char path[128];

			if (sscanf(legs[k].devt, "%u:%u", &ma, &mi) != 2 ||
			    kio_devpath_from_devt(makedev(ma, mi), path, sizeof(path)) < 0)
				continue;
			add_copy(u, sysfs, strncmp(path, "/dev/", 5) ? path : path + 5, dm,
				 legs[k].sector * 512 + inb, *len, legs[k].role);
		}
		if (r == 2) {
			u->hop[u->nr_hops - 1].parity = 1;
			u->parity = 1;
		}
		*off = top * 512 + inb;
	}
	if (!found) {
		if (bad_type) {
			map_dm_supported(bad_type, &why);
			set_bad(u, dm, map_dm_kind(bad_type), why);
		} else {
			push_hop(u, dm, n > 0 ? map_dm_kind(rows[0].type) : "unknown", 0);
			u->unused = 1;
			snprintf(u->bad_reason, sizeof(u->bad_reason), "not in any row of %s's "
				 "table (unallocated)", dm);
		}
		ret = 0;
		goto out;
	}
	ret = 1;
out:
	map_stack_dm_rows_put(rows);
	return ret;
}

/* The partition of whole disk name holding byte off (and its start), or -ENOENT and *gap the
 * bytes from off to the next partition's start (UINT64_MAX: none after it). */
static int part_at(const char *sysfs, const char *name, uint64_t off, char *part, size_t len,
		   uint64_t *start, uint64_t *size, uint64_t *gap)
{
	char (*p)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 256);
	int n, ret = -ENOENT;

	*gap = UINT64_MAX;
	if (!p)
		return -ENOMEM;
	n = map_stack_list(sysfs, name, ".", name, p, 256);
	if (n < 0)
		*gap = 0;
	for (int i = 0; i < n; i++) {
		uint64_t s, z;

		if (map_stack_attr_u64(sysfs, p[i], "start", &s) < 0 ||
		    map_stack_attr_u64(sysfs, p[i], "size", &z) < 0) {
			*gap = 0;	/* one not read: where it starts is not known */
			continue;
		}
		if (s * 512 > off && s * 512 - off < *gap)
			*gap = s * 512 - off;
		if (off >= s * 512 && off < (s + z) * 512) {
			stack_copy(part, len, p[i]);
			*start = s * 512;
			*size = z * 512;
			ret = 0;
			break;
		}
	}
	free(p);
	return ret;
}
/* Another volume sharing the block: listed, or counted past what also[] holds. */
static void add_also(struct map_stack_up *u, const char *name, uint64_t off)
{
	if (u->nr_also == MAP_STACK_MAX_ALSO ||
	    room(&u->also, u->nr_also, sizeof(*u->also)) < 0) {
		u->also_more++;		/* counted and said: never left out silently */
		return;
	}
	stack_copy(u->also[u->nr_also].name, MAP_STACK_NAME, name);
	u->also[u->nr_also++].offset = off;
}

/* Return 1 when the way up from thin volume vol at byte off reaches device prefer. */
static int reaches(const char *sysfs, const char *vol, uint64_t off, const char *prefer)
{
	struct map_stack_up *t;
	int yes;

	if (!strcmp(vol, prefer))
		return 1;
	t = malloc(sizeof(*t));
	if (!t)
		return 0;
	yes = map_stack_up(sysfs, vol, off, 512, t) == 0 && t->nr_hops &&
	      !strcmp(t->hop[t->nr_hops - 1].name, prefer);
	map_stack_up_free(t);
	return yes;
}

/*
 * Where thin volume vol maps byte off of its pool (devt below, "MAJ:MIN"): 1 and *voff,
 * *run (bytes from off in one piece), 0 when vol is not a volume of this pool or does not
 * map the block, -errno (the pool's model cannot be had: map_thin_why() says why). *same is
 * cut to the bytes from off over which that answer keeps its shape.
 */
static int thin_vol_up(const char *sysfs, const char *vol, const char *below, uint64_t off,
		       uint64_t *voff, uint64_t *run, const struct thin_model **m, uint64_t *same)
{
	const struct kio_dm_target *rows;
	uint64_t top, r_run;
	int n, r = 0;

	n = map_stack_dm_rows_get(sysfs, vol, &rows);
	if (n < 0)
		return n;
	for (int i = 0; i < n && r == 0; i++) {
		if (strcmp(rows[i].type, "thin"))
			continue;
		r = map_thin_up_in(sysfs, &rows[i], below, off / 512, &top, &r_run, m);
		if (r >= 0)
			same_clip(same, r_run, off % 512);
		if (r == 1) {
			*voff = top * 512 + off % 512;
			*run = r_run * 512 - off % 512;
		}
	}
	map_stack_dm_rows_put(rows);
	return r < 0 ? -EAGAIN : r;
}

/*
 * Up from thin pool device pool at byte *off: every volume (a holder with a thin row) that
 * maps the block; the way up goes through the one prefer is reached from (else the first),
 * the others go to u->also. A volume whose pool model cannot be had makes the whole answer
 * unmappable: never the other owners alone. Return 1 (*off on the chosen volume), 0 when no
 * volume maps it (unprovisioned) or it is unmappable, -errno. Each volume is asked through
 * its one thin row, without copying the way up: a pool has hundreds of volumes.
 */
static int up_thin_pool(const char *sysfs, const char *pool, char (*h)[KIO_DISK_NAME_LEN],
			int n, uint64_t *off, const char *prefer, struct map_stack_up *u)
{
	char below[32], best[MAP_STACK_NAME] = "";
	const struct thin_model *m = NULL;	/* the pool's, found once for all its volumes */
	uint64_t best_off = 0, len = u->length;
	int found = 0, best_pref = 0;

	if (map_stack_attr(sysfs, pool, "dev", below, sizeof(below)) < 0)
		return -ENODEV;
	for (int k = 0; k < n; k++) {
		uint64_t o = 0, run = 0;
		int r, pref;

		if (!map_stack_is_dm(h[k]))
			continue;
		r = thin_vol_up(sysfs, h[k], below, *off, &o, &run, &m, &u->same);
		if (r == -EAGAIN) {
			u->nr_also = 0;
			u->also_more = 0;
			set_bad(u, h[k], "dm-thin", map_thin_why());
			return 0;
		}
		if (r < 0)
			return r;
		if (r == 0)
			continue;		/* not a volume of the pool, or not this block */
		if (run < len)
			len = run;
		pref = prefer && !best_pref && reaches(sysfs, h[k], o, prefer);
		if (prefer) {
			m = NULL;	/* reaches() walked further (other pools' models): ask again */
			u->same = 0;	/* and the choice rests on those walks: never kept */
		}
		if (!found || pref) {
			if (found)	/* the one chosen before becomes another owner */
				add_also(u, best, best_off);
			stack_copy(best, sizeof(best), h[k]);
			best_off = o;
			best_pref = pref;
			found = 1;
		} else {
			add_also(u, h[k], o);
		}
	}
	if (!found) {
		u->unused = 1;
		snprintf(u->bad_reason, sizeof(u->bad_reason), "unprovisioned space of thin pool "
			 "%s: no thin volume maps it", pool);
		return 0;
	}
	u->length = len;
	*off = best_off;
	return push_hop(u, best, "dm-thin", best_off) < 0 ? -ELOOP : 1;
}

int map_stack_up(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		 struct map_stack_up *u)
{
	return map_stack_up_via(sysfs, name, off, len, NULL, u);
}

int map_stack_up_via(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		     const char *prefer, struct map_stack_up *u)
{
	/* room for a few holders, grown for a pool's hundreds of volumes: a small block is
	 * taken and given back without the heap's top moving */
	unsigned room = 16;
	char (*h)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * room);
	char cur[MAP_STACK_NAME];
	int ret = 0;

	memset(u, 0, sizeof(*u));
	if (!h)
		return -ENOMEM;
	stack_copy(cur, sizeof(cur), name);
	u->length = len;
	u->same = UINT64_MAX;		/* cut by every layer on the way */
	ret = push_hop(u, cur, map_stack_base_kind(sysfs, cur), off);
	for (unsigned depth = 0; ret >= 0 && depth < MAP_STACK_MAX_HOPS; depth++) {
		int n = map_stack_list(sysfs, cur, "holders", NULL, h, room);

		if (n == -E2BIG && room < MAP_STACK_MAX_HOLDERS) {
			char (*more)[KIO_DISK_NAME_LEN] = realloc(h, KIO_DISK_NAME_LEN *
								  MAP_STACK_MAX_HOLDERS);

			if (!more) {
				ret = -ENOMEM;
				break;
			}
			h = more;
			room = MAP_STACK_MAX_HOLDERS;
			n = map_stack_list(sysfs, cur, "holders", NULL, h, room);
		}

		if (n < 0) {
			ret = n;
			break;
		}
		if (map_thin_is_pool(sysfs, cur)) {
			/* a thin pool's block: every volume and snapshot mapping it (none: its
			 * unprovisioned space, also when the pool has no volume at all) */
			ret = up_thin_pool(sysfs, cur, h, n, &off, prefer, u);
			if (ret <= 0)
				break;
			stack_copy(cur, sizeof(cur), u->hop[u->nr_hops - 1].name);
			continue;
		}
		if (n == 0) {
			char part[MAP_STACK_NAME];
			uint64_t start, size, gap;

			if (!strcmp(map_stack_base_kind(sysfs, cur), "partition"))
				break;		/* the top */
			if (part_at(sysfs, cur, off, part, sizeof(part), &start, &size, &gap) < 0) {
				if (u->same > gap)
					u->same = gap;
				break;		/* the top (a partitioned md array goes on) */
			}
			if (u->same > start + size - off)
				u->same = start + size - off;
			if (!map_stack_is_stacked(sysfs, part) && depth == 0)
				break;		/* a plain partitioned disk: the caller maps it */
			off -= start;
			if (u->length > size - off)
				u->length = size - off;
			stack_copy(cur, sizeof(cur), part);
			ret = push_hop(u, cur, "partition", off);
			continue;
		}
		/* several holders: LVs of one PV each take their own rows; the first that maps
		 * the range (or cannot be mapped) is the way up */
		for (int k = 0; k < n; k++) {
			unsigned hops = u->nr_hops, copies = u->nr_copies;

			u->unused = 0;
			if (map_stack_is_md(h[k]))
				ret = up_md(sysfs, h[k], cur, &off, &u->length, u);
			else if (map_stack_is_dm(h[k]))
				ret = up_dm(sysfs, h[k], cur, &off, &u->length, u);
			else {
				set_bad(u, h[k], strncmp(h[k], "bcache", 6) ? "unknown" : "bcache",
					strncmp(h[k], "bcache", 6) ?
					"a holder that is neither md nor dm" :
					"bcache places blocks by its own B-tree index");
				ret = 0;
			}
			if (ret != 0 || u->unmappable || k == n - 1)
				break;
			u->nr_hops = hops;		/* unused by this holder: try the next */
			u->nr_copies = copies;
		}
		if (ret <= 0 || u->parity || u->thin_meta)
			break;
		stack_copy(cur, sizeof(cur), u->hop[u->nr_hops - 1].name);
	}
	free(h);
	if (ret < 0 || u->unmappable || u->unused || u->parity || u->thin_meta || u->nr_copies ||
	    u->also_more)
		u->same = 0;			/* only a mapped range is kept */
	return ret < 0 ? ret : 0;
}

int map_stack_is_stacked(const char *sysfs, const char *name)
{
	char (*p)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 256);
	char one[1][KIO_DISK_NAME_LEN];
	int n, stacked = 0;

	if (!p)
		return 0;
	if (map_stack_list(sysfs, name, "holders", NULL, p, 256) > 0)
		stacked = 1;
	n = stacked ? 0 : map_stack_list(sysfs, name, ".", name, p, 256);
	for (int i = 0; i < n && !stacked; i++)
		if (map_stack_list(sysfs, p[i], "holders", NULL, one, 1) != 0)
			stacked = 1;
	free(p);
	return stacked;
}
