/*
 * mapping/stack.c - a range's way up the storage stack, read from sysfs (holders/, partition
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

#define DM_MAX_ROWS 256

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

/* md0, md127 (not md0p1, a partition of one) */
static int is_md(const char *n)
{
	unsigned u;
	char c;

	return sscanf(n, "md%u%c", &u, &c) == 1;
}

static int is_dm(const char *n)
{
	return strncmp(n, "dm-", 3) == 0;
}

static void set_bad(struct map_stack_up *u, const char *name, const char *kind,
		    const char *reason)
{
	u->unmappable = 1;
	snprintf(u->bad_name, sizeof(u->bad_name), "%s", name);
	snprintf(u->bad_kind, sizeof(u->bad_kind), "%s", kind);
	snprintf(u->bad_reason, sizeof(u->bad_reason), "%s", reason);
}

static int push_hop(struct map_stack_up *u, const char *name, const char *kind, uint64_t off)
{
	struct map_stack_hop *h;

	if (u->nr_hops == MAP_STACK_MAX_HOPS)
		return -ELOOP;
	h = &u->hop[u->nr_hops++];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->kind, sizeof(h->kind), "%s", kind);
	h->offset = off;
	return 0;
}

/* The whole disk of name and name's start on it in bytes. */
static void disk_of(const char *sysfs, const char *name, char *disk, size_t len, uint64_t *start)
{
	uint64_t s = 0;

	*start = 0;
	if (kio_blk_parent(sysfs, name, disk, len) == 0) {
		if (kio_blk_attr_u64(sysfs, name, "start", &s) == 0)
			*start = s * 512;
		return;
	}
	snprintf(disk, len, "%s", name);
}

static int down(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt,
		enum map_md_role role, struct map_stack_leaf *out, unsigned max, unsigned *n,
		const char **bad, int depth);

static void add_copy(struct map_stack_up *u, const char *sysfs, const char *name,
		     const char *array, uint64_t off, uint64_t length, enum map_md_role role)
{
	struct map_stack_copy *c;
	struct map_stack_leaf lf[4];
	char leaf[MAP_STACK_NAME];
	uint64_t start, cnt = (length + off % 512 + 511) / 512;
	const char *bad = NULL;
	unsigned nl = 0;

	if (u->nr_copies == MAP_STACK_MAX_COPIES)
		return;
	/* a leg that is itself a dm or md device (dm-raid's rimage LVs): its disk range */
	if ((is_dm(name) || is_md(name)) &&
	    down(sysfs, name, off / 512, &cnt, MAP_MD_DATA, lf, 4, &nl, &bad, 0) >= 0 &&
	    nl == 1) {
		snprintf(leaf, sizeof(leaf), "%s", lf[0].name);
		name = leaf;
		off = lf[0].offset + off % 512;
		if (length > cnt * 512 - off % 512)
			length = cnt * 512 - off % 512;
	}
	c = &u->copy[u->nr_copies++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->array, sizeof(c->array), "%s", array);
	disk_of(sysfs, name, c->disk, sizeof(c->disk), &start);
	c->offset = off;
	c->disk_offset = off + start;
	c->length = length;
	c->role = map_md_role_name(role);
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
static int md_read(const char *sysfs, const char *md, struct md_info *mi, const char **why)
{
	char (*devs)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 2 * MAP_MD_MAX_DISKS);
	char buf[64], attr[160];
	uint64_t v;
	int n, ret = 0;

	*why = NULL;
	memset(mi, 0, sizeof(*mi));
	if (!devs)
		return -ENOMEM;
	if (kio_blk_attr(sysfs, md, "md/level", mi->level, sizeof(mi->level)) < 0 ||
	    md_level(mi->level, &mi->g.level) < 0) {
		*why = "md personality that is not mapped (multipath, faulty, container)";
		goto out;
	}
	if (mi->g.level != -1 && mi->g.level != 0 && mi->g.level != 1 && mi->g.level != 4 &&
	    mi->g.level != 5 && mi->g.level != 6 && mi->g.level != 10) {
		*why = "unknown md RAID level";
		goto out;
	}
	if (kio_blk_attr_u64(sysfs, md, "md/raid_disks", &v) < 0 || !v ||
	    v > MAP_MD_MAX_DISKS) {
		*why = "md/raid_disks unreadable or over 64";
		goto out;
	}
	mi->g.raid_disks = (unsigned)v;
	if (kio_blk_attr_u64(sysfs, md, "md/chunk_size", &v) == 0)
		mi->g.chunk_sectors = v / 512;
	if (kio_blk_attr_u64(sysfs, md, "md/layout", &v) == 0)
		mi->g.layout = (uint32_t)v;
	if (kio_blk_attr_u64(sysfs, md, "md/component_size", &v) == 0)
		mi->g.dev_sectors = v * 2;
	kio_blk_attr_u64(sysfs, md, "md/degraded", &mi->degraded);
	kio_blk_attr(sysfs, md, "md/sync_action", mi->sync_action, sizeof(mi->sync_action));
	kio_blk_attr(sysfs, md, "md/reshape_position", mi->reshape, sizeof(mi->reshape));
	if (mi->reshape[0] && strcmp(mi->reshape, "none")) {
		*why = "the array is reshaping: its geometry changes while it runs";
		goto out;
	}
	n = kio_blk_list(sysfs, md, "md", "dev-", devs, 2 * MAP_MD_MAX_DISKS);
	if (n < 0) {
		ret = n;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		uint64_t slot, off = 0, size = 0;

		snprintf(attr, sizeof(attr), "md/%s/slot", devs[i]);
		if (kio_blk_attr(sysfs, md, attr, buf, sizeof(buf)) < 0 ||
		    kio_blk_attr_u64(sysfs, md, attr, &slot) < 0 || slot >= mi->g.raid_disks)
			continue;		/* a spare ("none") or a journal */
		snprintf(attr, sizeof(attr), "md/%s/offset", devs[i]);
		kio_blk_attr_u64(sysfs, md, attr, &off);
		snprintf(attr, sizeof(attr), "md/%s/size", devs[i]);
		kio_blk_attr_u64(sysfs, md, attr, &size);
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
	int ret = md_read(sysfs, md, &mi, &why);

	if (ret < 0)
		return ret;
	snprintf(kind, sizeof(kind), "md-%s", mi.level);
	if (why) {
		set_bad(u, md, kind, why);
		return 0;
	}
	snprintf(attr, sizeof(attr), "md/dev-%s/slot", cur);
	if (kio_blk_attr_u64(sysfs, md, attr, &slot) < 0 || slot >= mi.g.raid_disks) {
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
	struct kio_dm_target *rows = malloc(sizeof(*rows) * DM_MAX_ROWS);
	struct map_dm_leg legs[MAP_MD_MAX_DISKS * 2];
	char below[32], dmdev[32];
	const char *why, *bad_type = NULL;
	unsigned a, b, nl;
	uint64_t top, run, inb = *off % 512;
	int n, ret = 0, found = 0;

	if (!rows)
		return -ENOMEM;
	if (kio_blk_attr(sysfs, cur, "dev", below, sizeof(below)) < 0 ||
	    kio_blk_attr(sysfs, dm, "dev", dmdev, sizeof(dmdev)) < 0 ||
	    sscanf(dmdev, "%u:%u", &a, &b) != 2) {
		ret = -ENODEV;
		goto out;
	}
	n = kio_dm_table(makedev(a, b), rows, DM_MAX_ROWS);
	if (n < 0) {
		ret = n;
		goto out;
	}
	for (int i = 0; i < n && !found; i++) {
		int r;

		if (!map_dm_supported(rows[i].type, &why)) {
			bad_type = rows[i].type;
			continue;
		}
		r = map_dm_row_up(rows[i].type, rows[i].start, rows[i].length, rows[i].params,
				  below, *off / 512, &top, &run, legs,
				  sizeof(legs) / sizeof(legs[0]), &nl);
		if (r <= 0)
			continue;
		found = 1;
		if (*len > run * 512 - inb)
			*len = run * 512 - inb;
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
	explicit_bzero(rows, sizeof(*rows) * DM_MAX_ROWS);
	free(rows);
	return ret;
}

/* The partition of whole disk name holding byte off (and its start), or -ENOENT. */
static int part_at(const char *sysfs, const char *name, uint64_t off, char *part, size_t len,
		   uint64_t *start, uint64_t *size)
{
	char (*p)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 256);
	int n, ret = -ENOENT;

	if (!p)
		return -ENOMEM;
	n = kio_blk_list(sysfs, name, ".", name, p, 256);
	for (int i = 0; i < n; i++) {
		uint64_t s, z;

		if (kio_blk_attr_u64(sysfs, p[i], "start", &s) < 0 ||
		    kio_blk_attr_u64(sysfs, p[i], "size", &z) < 0)
			continue;
		if (off >= s * 512 && off < (s + z) * 512) {
			snprintf(part, len, "%s", p[i]);
			*start = s * 512;
			*size = z * 512;
			ret = 0;
			break;
		}
	}
	free(p);
	return ret;
}

static const char *base_kind(const char *sysfs, const char *name)
{
	char buf[16];

	if (kio_blk_attr(sysfs, name, "partition", buf, sizeof(buf)) >= 0)
		return "partition";
	if (is_md(name))
		return "md";
	if (is_dm(name))
		return "dm";
	return "disk";
}

int map_stack_up(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		 struct map_stack_up *u)
{
	char (*h)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 16);
	char cur[MAP_STACK_NAME];
	int ret = 0;

	memset(u, 0, sizeof(*u));
	if (!h)
		return -ENOMEM;
	snprintf(cur, sizeof(cur), "%s", name);
	u->length = len;
	ret = push_hop(u, cur, base_kind(sysfs, cur), off);
	for (unsigned depth = 0; ret >= 0 && depth < MAP_STACK_MAX_HOPS; depth++) {
		int n = kio_blk_list(sysfs, cur, "holders", NULL, h, 16);
		const char *kind = base_kind(sysfs, cur);

		if (n < 0) {
			ret = n;
			break;
		}
		if (n == 0) {
			char part[MAP_STACK_NAME];
			uint64_t start, size;

			if (!strcmp(kind, "partition") || part_at(sysfs, cur, off, part, sizeof(part),
								  &start, &size) < 0)
				break;		/* the top (a partitioned md array goes on) */
			if (!map_stack_is_stacked(sysfs, part) && depth == 0)
				break;		/* a plain partitioned disk: the caller maps it */
			off -= start;
			if (u->length > size - off)
				u->length = size - off;
			snprintf(cur, sizeof(cur), "%s", part);
			ret = push_hop(u, cur, "partition", off);
			continue;
		}
		/* several holders: LVs of one PV each take their own rows; the first that maps
		 * the range (or cannot be mapped) is the way up */
		for (int k = 0; k < n; k++) {
			unsigned hops = u->nr_hops, copies = u->nr_copies;

			u->unused = 0;
			if (is_md(h[k]))
				ret = up_md(sysfs, h[k], cur, &off, &u->length, u);
			else if (is_dm(h[k]))
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
		if (ret <= 0 || u->parity)
			break;
		snprintf(cur, sizeof(cur), "%s", u->hop[u->nr_hops - 1].name);
	}
	free(h);
	return ret < 0 ? ret : 0;
}

int map_stack_is_stacked(const char *sysfs, const char *name)
{
	char (*p)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 256);
	char one[1][KIO_DISK_NAME_LEN];
	int n, stacked = 0;

	if (!p)
		return 0;
	if (kio_blk_list(sysfs, name, "holders", NULL, p, 256) > 0)
		stacked = 1;
	n = stacked ? 0 : kio_blk_list(sysfs, name, ".", name, p, 256);
	for (int i = 0; i < n && !stacked; i++)
		if (kio_blk_list(sysfs, p[i], "holders", NULL, one, 1) != 0)
			stacked = 1;
	free(p);
	return stacked;
}

static int tree_walk(const char *sysfs, const char *name, struct map_stack_node *n, int depth)
{
	char (*sl)[KIO_DISK_NAME_LEN] = NULL;
	char parent[MAP_STACK_NAME], attr[160];
	uint64_t v;
	int nr, ret = 0;

	memset(n, 0, sizeof(*n));
	n->slot = -1;
	snprintf(n->name, sizeof(n->name), "%s", name);
	if (depth > MAP_STACK_MAX_HOPS)
		return -ELOOP;
	if (kio_blk_attr_u64(sysfs, name, "size", &v) == 0)
		n->size = v * 512;
	snprintf(n->kind, sizeof(n->kind), "%s", base_kind(sysfs, name));
	if (strcmp(n->kind, "partition") == 0) {
		if (kio_blk_parent(sysfs, name, parent, sizeof(parent)) < 0)
			return 0;
		n->below = calloc(1, sizeof(*n->below));
		if (!n->below)
			return -ENOMEM;
		n->nr_below = 1;
		return tree_walk(sysfs, parent, n->below, depth + 1);
	}
	if (is_md(name)) {
		n->is_md = 1;
		kio_blk_attr(sysfs, name, "md/level", n->level, sizeof(n->level));
		snprintf(n->kind, sizeof(n->kind), "md-%s", n->level);
		if (kio_blk_attr_u64(sysfs, name, "md/raid_disks", &v) == 0)
			n->raid_disks = (unsigned)v;
		kio_blk_attr_u64(sysfs, name, "md/chunk_size", &n->chunk_bytes);
		if (kio_blk_attr_u64(sysfs, name, "md/layout", &v) == 0)
			n->layout = (uint32_t)v;
		kio_blk_attr_u64(sysfs, name, "md/degraded", &n->degraded);
		kio_blk_attr(sysfs, name, "md/sync_action", n->sync_action,
			     sizeof(n->sync_action));
		kio_blk_attr(sysfs, name, "md/reshape_position", n->reshape, sizeof(n->reshape));
		kio_blk_attr(sysfs, name, "md/uuid", n->uuid, sizeof(n->uuid));
	} else if (is_dm(name)) {
		struct kio_dm_target *rows = malloc(sizeof(*rows) * 4);
		char dev[32];
		unsigned a, b;

		snprintf(n->kind, sizeof(n->kind), "unknown");
		if (rows && kio_blk_attr(sysfs, name, "dev", dev, sizeof(dev)) > 0 &&
		    sscanf(dev, "%u:%u", &a, &b) == 2) {
			int k = kio_dm_table(makedev(a, b), rows, 4);

			if (k > 0 || k == -E2BIG)
				snprintf(n->kind, sizeof(n->kind), "%s", map_dm_kind(rows[0].type));
		}
		if (rows)
			explicit_bzero(rows, sizeof(*rows) * 4);
		free(rows);
	}
	sl = malloc(KIO_DISK_NAME_LEN * 2 * MAP_MD_MAX_DISKS);
	if (!sl)
		return -ENOMEM;
	nr = kio_blk_list(sysfs, name, "slaves", NULL, sl, 2 * MAP_MD_MAX_DISKS);
	if (nr > 0) {
		n->below = calloc((size_t)nr, sizeof(*n->below));
		if (!n->below) {
			free(sl);
			return -ENOMEM;
		}
		n->nr_below = (unsigned)nr;
		for (int i = 0; i < nr && ret == 0; i++) {
			ret = tree_walk(sysfs, sl[i], &n->below[i], depth + 1);
			if (n->is_md) {
				snprintf(attr, sizeof(attr), "md/dev-%s/slot", sl[i]);
				if (kio_blk_attr_u64(sysfs, name, attr, &v) == 0)
					n->below[i].slot = (int)v;
			}
		}
	}
	free(sl);
	return ret;
}

int map_stack_tree(const char *sysfs, const char *name, struct map_stack_node **out)
{
	struct map_stack_node *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return -ENOMEM;
	ret = tree_walk(sysfs, name, n, 0);
	if (ret < 0) {
		map_stack_tree_free(n);
		return ret;
	}
	*out = n;
	return 0;
}

static void node_free(struct map_stack_node *n)
{
	for (unsigned i = 0; i < n->nr_below; i++)
		node_free(&n->below[i]);
	free(n->below);
}

void map_stack_tree_free(struct map_stack_node *n)
{
	if (!n)
		return;
	node_free(n);
	free(n);
}

const struct map_stack_node *map_stack_busy(const struct map_stack_node *n)
{
	if (n->is_md && ((n->sync_action[0] && strcmp(n->sync_action, "idle") &&
			  strcmp(n->sync_action, "frozen")) ||
			 (n->reshape[0] && strcmp(n->reshape, "none"))))
		return n;
	for (unsigned i = 0; i < n->nr_below; i++) {
		const struct map_stack_node *b = map_stack_busy(&n->below[i]);

		if (b)
			return b;
	}
	return NULL;
}

const struct map_stack_node *map_stack_degraded(const struct map_stack_node *n)
{
	if (n->is_md && n->degraded)
		return n;
	for (unsigned i = 0; i < n->nr_below; i++) {
		const struct map_stack_node *b = map_stack_degraded(&n->below[i]);

		if (b)
			return b;
	}
	return NULL;
}

/* Name of the block device with "MAJ:MIN" devt text, from sysfs. */
static int name_of_devt(const char *devt, char *name, size_t len)
{
	unsigned a, b;
	char path[128];

	if (sscanf(devt, "%u:%u", &a, &b) != 2 ||
	    kio_devpath_from_devt(makedev(a, b), path, sizeof(path)) < 0)
		return -ENODEV;
	const char *base = strncmp(path, "/dev/", 5) ? path : path + 5;

	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

static int leaf_put(struct map_stack_leaf *out, unsigned max, unsigned *n, const char *name,
		    uint64_t off, uint64_t len, enum map_md_role role)
{
	if (*n == max)
		return -E2BIG;
	snprintf(out[*n].name, sizeof(out[0].name), "%s", name);
	out[*n].offset = off;
	out[*n].length = len;
	out[*n].role = role;
	(*n)++;
	return 0;
}

/*
 * dm-raid raid1 ("raid1 #params params... #devs meta0 data0 meta1 data1 ..."): every data leg
 * holds sector rel at rel (LVM's raid1 legs have no data offset; a superblock in the data
 * leg, which dm-raid only uses after a reshape, is not mapped: -EOPNOTSUPP below).
 */
static int down_raid1(const char *sysfs, const char *params, uint64_t rel, uint64_t *cnt,
		      enum map_md_role role, struct map_stack_leaf *out, unsigned max,
		      unsigned *n, const char **bad, int depth)
{
	char all[1100], *tok[4 + 4 * MAP_MD_MAX_DISKS], *sv = NULL, *t, below[MAP_STACK_NAME];
	unsigned nt = 0, np, nd, legs = 0;
	int ret = 0;

	snprintf(all, sizeof(all), "%s", params);
	for (t = strtok_r(all, " ", &sv); t && nt < sizeof(tok) / sizeof(tok[0]);
	     t = strtok_r(NULL, " ", &sv))
		tok[nt++] = t;
	if (nt < 2 || sscanf(tok[1], "%u", &np) != 1 || np > nt - 3 ||
	    sscanf(tok[2 + np], "%u", &nd) != 1 || nd > MAP_MD_MAX_DISKS || 3 + np + 2 * nd > nt)
		return -EINVAL;
	for (unsigned i = 0; i < np; i++)
		if (!strcmp(tok[2 + i], "data_offset")) {
			*bad = "dm-raid";
			return -EOPNOTSUPP;
		}
	for (unsigned d = 0; d < nd && ret >= 0; d++) {
		const char *data = tok[3 + np + 2 * d + 1];
		uint64_t c = *cnt;

		if (!strcmp(data, "-") || name_of_devt(data, below, sizeof(below)) < 0)
			continue;			/* a missing leg */
		ret = down(sysfs, below, rel, &c, role == MAP_MD_DATA && nd > 1 ? MAP_MD_MIRROR :
			   role, out, max, n, bad, depth + 1);
		if (ret >= 0 && c < *cnt)
			*cnt = c;
		legs++;
	}
	return ret < 0 ? ret : legs ? 0 : -ENODEV;
}

/* Down one device: sectors [s, s + cnt) of name, role so far; *cnt is clipped. */
static int down(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt,
		enum map_md_role role, struct map_stack_leaf *out, unsigned max, unsigned *n,
		const char **bad, int depth)
{
	char (*sl)[KIO_DISK_NAME_LEN] = NULL;
	int nr, ret = 0;

	if (depth > MAP_STACK_MAX_HOPS)
		return -ELOOP;
	if (is_md(name)) {
		struct map_md_loc locs[3 * MAP_MD_MAX_DISKS];
		struct md_info mi;
		const char *why;
		uint64_t done;
		int k;

		ret = md_read(sysfs, name, &mi, &why);
		if (ret < 0)
			return ret;
		if (why) {
			*bad = "md";
			return -EOPNOTSUPP;
		}
		k = map_md_down(&mi.g, s, *cnt, locs, 3 * MAP_MD_MAX_DISKS, &done);
		if (k < 0)
			return k;
		*cnt = done;
		for (int i = 0; i < k && ret >= 0; i++) {
			uint64_t c = done;

			if (!mi.member[locs[i].slot][0])
				continue;		/* a missing member */
			ret = down(sysfs, mi.member[locs[i].slot],
				   locs[i].sector + mi.data_offset[locs[i].slot], &c,
				   role == MAP_MD_DATA ? locs[i].role : role, out, max, n, bad,
				   depth + 1);
			if (ret >= 0 && c < *cnt)
				*cnt = c;	/* a lower layer clipped: the caller loops */
		}
		return ret;
	}
	if (is_dm(name)) {
		struct kio_dm_target *rows = malloc(sizeof(*rows) * DM_MAX_ROWS);
		char dmdev[32], below[MAP_STACK_NAME];
		unsigned a, b;
		int k;

		if (!rows)
			return -ENOMEM;
		if (kio_blk_attr(sysfs, name, "dev", dmdev, sizeof(dmdev)) < 0 ||
		    sscanf(dmdev, "%u:%u", &a, &b) != 2) {
			free(rows);
			return -ENODEV;
		}
		k = kio_dm_table(makedev(a, b), rows, DM_MAX_ROWS);
		ret = k < 0 ? k : -ERANGE;
		for (int i = 0; i < k; i++) {
			struct kio_dm_target *r = &rows[i];
			char buf[1100], *tok[8], *save = NULL, *t;
			uint64_t rel, off, c;
			unsigned nt = 0;
			const char *why;

			if (s < r->start || s >= r->start + r->length)
				continue;
			rel = s - r->start;
			if (*cnt > r->length - rel)
				*cnt = r->length - rel;
			if (!strcmp(r->type, "raid") && !strncmp(r->params, "raid1 ", 6)) {
				ret = down_raid1(sysfs, r->params, rel, cnt, role, out, max, n, bad,
						 depth);
				break;
			}
			if (!map_dm_supported(r->type, &why) || !strcmp(r->type, "raid")) {
				*bad = map_dm_kind(r->type);
				ret = -EOPNOTSUPP;
				break;
			}
			snprintf(buf, sizeof(buf), "%s", r->params);
			for (t = strtok_r(buf, " ", &save); t && nt < 8; t = strtok_r(NULL, " ", &save))
				tok[nt++] = t;
			if (!strcmp(r->type, "striped")) {
				uint64_t nrs, chunk, row, sidx, ch;
				char *sv = NULL;
				char all[1100], *at[2 * MAP_MD_MAX_DISKS + 2];
				unsigned na = 0;

				snprintf(all, sizeof(all), "%s", r->params);
				for (t = strtok_r(all, " ", &sv); t && na < 2 * MAP_MD_MAX_DISKS + 2;
				     t = strtok_r(NULL, " ", &sv))
					at[na++] = t;
				if (na < 2 || sscanf(at[0], "%" SCNu64, &nrs) != 1 ||
				    sscanf(at[1], "%" SCNu64, &chunk) != 1 || !nrs || !chunk ||
				    na < 2 + 2 * nrs) {
					ret = -EINVAL;
					break;
				}
				ch = rel / chunk;
				sidx = ch % nrs;
				row = ch / nrs;
				if (*cnt > chunk - rel % chunk)
					*cnt = chunk - rel % chunk;
				if (sscanf(at[3 + 2 * sidx], "%" SCNu64, &off) != 1 ||
				    name_of_devt(at[2 + 2 * sidx], below, sizeof(below)) < 0) {
					ret = -EINVAL;
					break;
				}
				off += row * chunk + rel % chunk;
			} else {
				/* linear, flakey, delay: dev off; crypt: cipher - iv dev off;
				 * multipath: the first path (every path is the same media) */
				int di = !strcmp(r->type, "crypt") ? 3 : 0;

				if (!strcmp(r->type, "multipath")) {
					char all[1100], *sv = NULL;

					snprintf(all, sizeof(all), "%s", r->params);
					ret = -EINVAL;
					for (t = strtok_r(all, " ", &sv); t; t = strtok_r(NULL, " ", &sv))
						if (strchr(t, ':') &&
						    name_of_devt(t, below, sizeof(below)) == 0) {
							ret = 0;
							break;
						}
					if (ret < 0)
						break;
					off = s;
				} else {
					if ((unsigned)di + 2 > nt ||
					    sscanf(tok[di + 1], "%" SCNu64, &off) != 1 ||
					    name_of_devt(tok[di], below, sizeof(below)) < 0) {
						ret = -EINVAL;
						break;
					}
					off += rel;
				}
			}
			c = *cnt;
			ret = down(sysfs, below, off, &c, role, out, max, n, bad, depth + 1);
			if (ret >= 0 && c < *cnt)
				*cnt = c;
			break;
		}
		explicit_bzero(rows, sizeof(*rows) * DM_MAX_ROWS);
		free(rows);
		return ret;
	}
	{
		/* a partition of an md array or dm device: down through its parent */
		char parent[MAP_STACK_NAME];
		uint64_t start;

		if (kio_blk_parent(sysfs, name, parent, sizeof(parent)) == 0 &&
		    (is_md(parent) || is_dm(parent)) &&
		    kio_blk_attr_u64(sysfs, name, "start", &start) == 0)
			return down(sysfs, parent, s + start, cnt, role, out, max, n, bad,
				    depth + 1);
	}
	sl = malloc(KIO_DISK_NAME_LEN * 4);
	if (!sl)
		return -ENOMEM;
	nr = kio_blk_list(sysfs, name, "slaves", NULL, sl, 4);
	free(sl);
	if (nr > 0) {
		*bad = "unknown";
		return -EOPNOTSUPP;
	}
	return leaf_put(out, max, n, name, s * 512, *cnt * 512, role);
}

int map_stack_down(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		   struct map_stack_leaf *out, unsigned max, uint64_t *done, const char **bad_kind)
{
	uint64_t cnt = (len + off % 512 + 511) / 512;
	unsigned n = 0;
	int ret;

	*bad_kind = NULL;
	*done = 0;
	ret = down(sysfs, name, off / 512, &cnt, MAP_MD_DATA, out, max, &n, bad_kind, 0);
	if (ret < 0)
		return ret;
	/* a lower layer may have clipped after an upper one wrote longer leaves */
	for (unsigned i = 0; i < n; i++)
		if (out[i].length > cnt * 512)
			out[i].length = cnt * 512;
	*done = cnt * 512 - off % 512;
	if (*done > len)
		*done = len;
	return (int)n;
}

static void leaves_add(const struct map_stack_node *n, char (*out)[MAP_STACK_NAME],
		       unsigned max, unsigned *k)
{
	if (!n->nr_below || (!strcmp(n->kind, "partition") && !n->below[0].nr_below)) {
		for (unsigned x = 0; x < *k; x++)
			if (!strcmp(out[x], n->name))
				return;
		if (*k < max)
			snprintf(out[(*k)++], MAP_STACK_NAME, "%s", n->name);
		return;
	}
	for (unsigned i = 0; i < n->nr_below; i++)
		leaves_add(&n->below[i], out, max, k);
}

int map_stack_leaves(const struct map_stack_node *n, char (*out)[MAP_STACK_NAME], unsigned max)
{
	unsigned k = 0;

	leaves_add(n, out, max, &k);
	return (int)k;
}

int map_stack_data_start(const char *sysfs, const char *parent, const char *child,
			 uint64_t *start)
{
	char attr[160], cdev[32];
	uint64_t v;

	*start = 0;
	if (is_md(parent)) {
		snprintf(attr, sizeof(attr), "md/dev-%s/offset", child);
		if (kio_blk_attr_u64(sysfs, parent, attr, &v) < 0)
			return -ENOENT;
		*start = v * 512;
		return 0;
	}
	if (is_dm(parent)) {
		struct kio_dm_target *rows = malloc(sizeof(*rows) * DM_MAX_ROWS);
		char dmdev[32];
		unsigned a, b;
		uint64_t lo = UINT64_MAX;
		int k;

		if (!rows)
			return -ENOMEM;
		if (kio_blk_attr(sysfs, parent, "dev", dmdev, sizeof(dmdev)) < 0 ||
		    kio_blk_attr(sysfs, child, "dev", cdev, sizeof(cdev)) < 0 ||
		    sscanf(dmdev, "%u:%u", &a, &b) != 2) {
			free(rows);
			return -ENODEV;
		}
		cdev[strcspn(cdev, "\n")] = '\0';
		k = kio_dm_table(makedev(a, b), rows, DM_MAX_ROWS);
		/* every "MAJ:MIN OFFSET" pair of the rows naming child (linear, striped, crypt) */
		for (int i = 0; i < k; i++) {
			char buf[1100], *t, *prev = NULL, *sv = NULL;

			snprintf(buf, sizeof(buf), "%s", rows[i].params);
			for (t = strtok_r(buf, " ", &sv); t; prev = t, t = strtok_r(NULL, " ", &sv))
				if (prev && !strcmp(prev, cdev) && sscanf(t, "%" SCNu64, &v) == 1 &&
				    v * 512 < lo)
					lo = v * 512;
		}
		explicit_bzero(rows, sizeof(*rows) * DM_MAX_ROWS);
		free(rows);
		if (k < 0)
			return k;
		*start = lo == UINT64_MAX ? 0 : lo;
		return 0;
	}
	if (kio_blk_attr_u64(sysfs, parent, "start", &v) == 0 &&
	    kio_blk_attr(sysfs, parent, "partition", attr, sizeof(attr)) >= 0) {
		*start = v * 512;		/* a partition: the table before it on its disk */
		return 0;
	}
	return -ENOENT;
}
