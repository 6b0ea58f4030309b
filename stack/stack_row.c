/*
 * stack/stack_row.c - the redundancy row under a range of a device: down the single-path
 * layers (partitions, dm linear, crypt, striped, multipath, md/dm raid0 and linear) to the
 * first array that keeps redundancy (md RAID1/4/5/6/10, dm-raid, dm-mirror), then every copy
 * or the whole stripe row with its parity at md's own offsets (stack_md.c), each leg down its
 * member to a bottom device. Only one level of redundancy is mapped: below the array each leg
 * must be a single path, or two copies of one leg would have to be told apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kio.h"
#include "stack.h"
#include "stack_int.h"
#include "stack_row.h"

enum { STEP_LEAF, STEP_DOWN, STEP_ARRAY };

/* An array that keeps redundancy, md or a dm-raid row, in md's terms. */
struct row_array {
	char name[MAP_STACK_NAME];
	char level[16];
	struct map_md_geo g;
	uint64_t base;					/* dm: the raid row's start (sectors) */
	uint64_t doff[MAP_MD_MAX_DISKS];		/* data offset on each member (sectors) */
	char member[MAP_MD_MAX_DISKS][MAP_STACK_NAME];	/* by slot, "" missing */
};

static int redundant(int level)
{
	return level == 1 || level == 4 || level == 5 || level == 6 || level == 10;
}

/* Down a layer without redundancy (linear, raid0): the one member holding sector s. */
static int step_geo(const struct row_array *a, uint64_t s, uint64_t *cnt, char *below,
		    size_t len, uint64_t *bs)
{
	struct map_md_loc loc[2];
	uint64_t done;
	int k = map_md_down(&a->g, s, *cnt, loc, 2, &done);

	if (k < 0)
		return k;
	if (k != 1 || !a->member[loc[0].slot][0])
		return -ENODEV;
	snprintf(below, len, "%s", a->member[loc[0].slot]);
	*bs = loc[0].sector + a->doff[loc[0].slot];
	*cnt = done;
	return STEP_DOWN;
}

/* md array name as a row_array; *bad set when it cannot be mapped. */
static int read_md(const char *sysfs, const char *name, struct row_array *a, const char **bad)
{
	struct md_info *mi = malloc(sizeof(*mi));
	const char *why;
	int ret;

	if (!mi)
		return -ENOMEM;
	ret = map_stack_md_read(sysfs, name, mi, &why);
	if (ret == 0 && why) {
		*bad = "md";
		ret = -EOPNOTSUPP;
	}
	if (ret == 0) {
		memset(a, 0, sizeof(*a));
		snprintf(a->name, sizeof(a->name), "%s", name);
		snprintf(a->level, sizeof(a->level), "%s", mi->level);
		a->g = mi->g;
		for (unsigned i = 0; i < mi->g.raid_disks; i++) {
			a->doff[i] = mi->data_offset[i];
			memcpy(a->member[i], mi->member[i], sizeof(a->member[i]));
		}
	}
	free(mi);
	return ret;
}

/* dm-raid row r of dm device name as a row_array. */
static int read_dm_raid(const char *name, const struct kio_dm_target *r, struct row_array *a,
			const char **bad)
{
	char data[MAP_MD_MAX_DISKS][16];
	const char *why;
	uint64_t doff;
	int nd;

	memset(a, 0, sizeof(*a));
	nd = map_dm_raid_geo(r->params, r->length, &a->g, &doff, data, MAP_MD_MAX_DISKS);
	if (nd == -EOPNOTSUPP || (nd >= 0 && map_md_check(&a->g, &why) < 0)) {
		*bad = "dm-raid";
		return -EOPNOTSUPP;
	}
	if (nd < 0)
		return nd;
	snprintf(a->name, sizeof(a->name), "%s", name);
	snprintf(a->level, sizeof(a->level), "dm-%.*s", (int)strcspn(r->params, " "),
		 r->params);
	a->base = r->start;
	for (int d = 0; d < nd; d++) {
		a->doff[d] = doff;
		if (strcmp(data[d], "-") &&
		    map_stack_devt_name(data[d], a->member[d], sizeof(a->member[d])) < 0)
			a->member[d][0] = '\0';		/* a missing leg */
	}
	return 0;
}

/*
 * dm-mirror row r ("log_type #log_args args... #devs dev off ... [#features ...]") of dm
 * device name as a RAID1 of its legs, each holding the row's sector x at its offset + x.
 */
static int read_dm_mirror(const char *name, const struct kio_dm_target *r, struct row_array *a)
{
	char buf[sizeof(r->params)], *tok[4 + 2 * MAP_MD_MAX_DISKS + 64], *sv = NULL, *t;
	unsigned nt = 0, nl, nd;

	snprintf(buf, sizeof(buf), "%s", r->params);
	for (t = strtok_r(buf, " ", &sv); t && nt < sizeof(tok) / sizeof(tok[0]);
	     t = strtok_r(NULL, " ", &sv))
		tok[nt++] = t;
	if (nt < 3 || sscanf(tok[1], "%u", &nl) != 1 || nl + 3 > nt ||
	    sscanf(tok[2 + nl], "%u", &nd) != 1 || !nd || nd > MAP_MD_MAX_DISKS ||
	    3 + nl + 2 * nd > nt)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	snprintf(a->level, sizeof(a->level), "dm-mirror");
	a->base = r->start;
	a->g.level = 1;
	a->g.raid_disks = nd;
	a->g.dev_sectors = r->length;
	for (unsigned d = 0; d < nd; d++) {
		const char *dev = tok[3 + nl + 2 * d], *off = tok[4 + nl + 2 * d];

		a->g.member_sectors[d] = r->length;
		if (sscanf(off, "%" SCNu64, &a->doff[d]) != 1)
			return -EINVAL;
		if (map_stack_devt_name(dev, a->member[d], sizeof(a->member[d])) < 0)
			a->member[d][0] = '\0';
	}
	return 0;
}

/* dm device name, sector s: down its row, or the row is an array (*a). */
static int step_dm(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt, char *below,
		   size_t len, uint64_t *bs, struct row_array *a, const char **bad)
{
	struct kio_dm_target *rows;
	int k = map_stack_dm_rows(sysfs, name, &rows), ret = -ERANGE;

	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct kio_dm_target *r = &rows[i];

		if (s < r->start || s >= r->start + r->length)
			continue;
		if (*cnt > r->start + r->length - s)
			*cnt = r->start + r->length - s;
		if (!strcmp(r->type, "mirror")) {
			ret = read_dm_mirror(name, r, a);
			ret = ret < 0 ? ret : STEP_ARRAY;
			break;
		}
		if (strcmp(r->type, "raid")) {
			ret = map_stack_dm_below(r, s, cnt, below, len, bs, bad);
			ret = ret < 0 ? ret : STEP_DOWN;
			break;
		}
		ret = read_dm_raid(name, r, a, bad);
		if (ret == 0)
			ret = redundant(a->g.level) ? STEP_ARRAY :
			      step_geo(a, s - r->start, cnt, below, len, bs);
		break;
	}
	map_stack_dm_rows_free(rows);
	return ret;
}

/*
 * One layer down from sector s of name: STEP_LEAF (a bottom device), STEP_DOWN (below at
 * *bs, *cnt clipped) or STEP_ARRAY (name is, or its dm row at s is, an array with redundancy:
 * *a), -EOPNOTSUPP (*bad the kind), -errno.
 */
static int step(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt, char *below,
		size_t len, uint64_t *bs, struct row_array *a, const char **bad)
{
	char parent[MAP_STACK_NAME];
	char (*sl)[KIO_DISK_NAME_LEN];
	uint64_t start;
	int ret;

	if (map_stack_is_md(name)) {
		ret = read_md(sysfs, name, a, bad);
		if (ret < 0)
			return ret;
		return redundant(a->g.level) ? STEP_ARRAY : step_geo(a, s, cnt, below, len, bs);
	}
	if (map_stack_is_dm(name))
		return step_dm(sysfs, name, s, cnt, below, len, bs, a, bad);
	/* a partition of an md array or dm device: down through its parent, within its size */
	if (kio_blk_parent(sysfs, name, parent, sizeof(parent)) == 0 &&
	    (map_stack_is_md(parent) || map_stack_is_dm(parent)) &&
	    map_stack_attr_u64(sysfs, name, "start", &start) == 0) {
		uint64_t size;

		if (map_stack_attr_u64(sysfs, name, "size", &size) == 0) {
			if (s >= size)
				return -ERANGE;
			if (*cnt > size - s)
				*cnt = size - s;
		}
		snprintf(below, len, "%s", parent);
		*bs = s + start;
		return STEP_DOWN;
	}
	sl = malloc(KIO_DISK_NAME_LEN * 4);
	if (!sl)
		return -ENOMEM;
	ret = map_stack_list(sysfs, name, "slaves", NULL, sl, 4);
	free(sl);
	if (ret > 0) {
		*bad = "unknown";
		return -EOPNOTSUPP;
	}
	return STEP_LEAF;
}

/*
 * Down from sector *s of *name (both updated) to the first array with redundancy (return 1,
 * *a, *s the array's own sector) or a bottom device (0); *cnt clipped on the way.
 */
static int descend(const char *sysfs, char *name, uint64_t *s, uint64_t *cnt,
		   struct row_array *a, const char **bad)
{
	char below[MAP_STACK_NAME];
	uint64_t bs;

	for (int depth = 0; depth <= MAP_STACK_MAX_HOPS; depth++) {
		int ret = step(sysfs, name, *s, cnt, below, sizeof(below), &bs, a, bad);

		if (ret < 0)
			return ret;
		if (ret == STEP_LEAF)
			return 0;
		if (ret == STEP_ARRAY) {
			*s -= a->base;
			return 1;
		}
		memcpy(name, below, MAP_STACK_NAME);
		*s = bs;
	}
	return -ELOOP;
}

/* A member's leg down to its bottom device: leg->name and offset; *cnt clipped. */
static int leg_down(const char *sysfs, const char *member, uint64_t s, uint64_t *cnt,
		    struct map_row_leg *leg, struct row_array *scratch)
{
	const char *bad = NULL;
	char name[MAP_STACK_NAME];
	int ret;

	snprintf(name, sizeof(name), "%s", member);
	ret = descend(sysfs, name, &s, cnt, scratch, &bad);
	if (ret < 0)
		return ret;
	if (ret == 1)
		return -EOPNOTSUPP;		/* redundancy below redundancy */
	memcpy(leg->name, name, sizeof(leg->name));
	leg->offset = s * 512;
	return 0;
}

/*
 * The byte on top device top that holds array sector as, or UINT64_MAX: the layers above
 * the array shift offsets (partition, linear, crypt), so the candidate is the piece's own
 * shift, checked by mapping it down again (a striped layer or another LV fails the check).
 */
static uint64_t top_of(const char *sysfs, const char *top, uint64_t s_top,
		       const struct row_array *arr, uint64_t piece_as, uint64_t as,
		       struct row_array *scratch)
{
	char name[MAP_STACK_NAME];
	const char *bad = NULL;
	uint64_t cand, s, cnt = 1;

	if (as == piece_as)
		return s_top * 512;
	if (as + s_top < piece_as)
		return UINT64_MAX;
	cand = as + s_top - piece_as;
	snprintf(name, sizeof(name), "%s", top);
	s = cand;
	if (descend(sysfs, name, &s, &cnt, scratch, &bad) != 1 || strcmp(name, arr->name) ||
	    scratch->base != arr->base || s != as)
		return UINT64_MAX;
	return cand * 512;
}

/*
 * The syndrome slot of data member slot in a RAID6 stripe with P on pd and Q on qd
 * (drivers/md/raid5.c set_syndrome_sources): md's layouts count the data disks only, from
 * the disk after Q; DDF's (rotating zero/N restart, N continue) count every disk from 0, P
 * and Q standing in as zero blocks.
 */
static int r6_index(const struct map_md_geo *g, unsigned pd, unsigned qd, unsigned slot)
{
	unsigned disks = g->raid_disks, i, count = 0;

	if (g->layout == MAP_R6_ROTATING_ZERO_RESTART || g->layout == MAP_R6_ROTATING_N_RESTART ||
	    g->layout == MAP_R6_ROTATING_N_CONTINUE)
		return (int)slot;
	i = qd == disks - 1 ? 0 : qd + 1;
	for (unsigned n = 0; n < disks; n++, i = (i + 1) % disks) {
		if (i == slot)
			return (int)count;
		if (i != pd && i != qd)
			count++;
	}
	return -1;
}

static struct map_row_leg *leg_add(struct map_row *row, const struct map_md_loc *l,
				   const struct row_array *a)
{
	struct map_row_leg *leg;

	if (row->nr_legs == MAP_ROW_MAX_LEGS)
		return NULL;
	leg = &row->leg[row->nr_legs++];
	memset(leg, 0, sizeof(*leg));
	leg->role = l->role;
	leg->slot = (int)l->slot;
	leg->offset = (l->sector + a->doff[l->slot]) * 512;	/* on the member, for now */
	leg->top_offset = UINT64_MAX;
	return leg;
}

/* The stripe row of array sector as (RAID4/5/6): every data chunk, P and Q. */
static int parity_row(const char *sysfs, const char *top, uint64_t s_top, const struct row_array *a,
		      uint64_t as, uint64_t cnt, const struct map_md_loc *locs, int k,
		      struct map_row *row, struct row_array *scratch)
{
	uint64_t c = a->g.chunk_sectors, stripe = locs[0].sector / c, done;
	unsigned nd = a->g.raid_disks - (a->g.level == 6 ? 2 : 1), pd = 0, qd = 0;
	struct map_md_loc l[3];
	struct map_row_leg *leg;

	for (int i = 0; i < k; i++) {
		if (locs[i].role == MAP_MD_PARITY)
			pd = locs[i].slot;
		if (locs[i].role == MAP_MD_SYNDROME)
			qd = locs[i].slot;
	}
	row->kind = a->g.level == 6 ? MAP_ROW_PQ : MAP_ROW_XOR;
	for (unsigned d = 0; d < nd; d++) {
		uint64_t ad = (stripe * nd + d) * c + as % c;

		if (map_md_down(&a->g, ad, cnt, l, 3, &done) < 1 || l[0].role != MAP_MD_DATA)
			return -EINVAL;
		leg = leg_add(row, &l[0], a);
		if (!leg)
			return -E2BIG;
		leg->index = a->g.level == 6 ? r6_index(&a->g, pd, qd, l[0].slot) : (int)d;
		leg->top_offset = top_of(sysfs, top, s_top, a, as, ad, scratch);
	}
	for (int i = 0; i < k; i++)
		if (locs[i].role != MAP_MD_DATA && !leg_add(row, &locs[i], a))
			return -E2BIG;
	for (unsigned i = 0; i < row->nr_legs; i++)
		if (!a->member[row->leg[i].slot][0])
			return 0;		/* degraded: the row cannot be checked */
	return 1;
}

/* The row under array sector as of a (piece s_top..+*cnt of top); 1, 0 when nothing to compare. */
static int build_row(const char *sysfs, const char *top, uint64_t s_top,
		     const struct row_array *a, uint64_t as, uint64_t *cnt, struct map_row *row)
{
	struct map_md_loc locs[3 * MAP_MD_MAX_DISKS];
	struct row_array *scratch = malloc(sizeof(*scratch));
	uint64_t done;
	int k, ret = 1;

	if (!scratch)
		return -ENOMEM;
	memset(row, 0, sizeof(*row));
	snprintf(row->array, sizeof(row->array), "%s", a->name);
	snprintf(row->level, sizeof(row->level), "%s", a->level);
	k = map_md_down(&a->g, as, *cnt, locs, 3 * MAP_MD_MAX_DISKS, &done);
	if (k < 0) {
		free(scratch);
		return k;
	}
	*cnt = done;
	if (a->g.level == 1 || a->g.level == 10) {
		row->kind = MAP_ROW_MIRROR;
		for (int i = 0; i < k && ret > 0; i++) {
			struct map_row_leg *leg;

			if (!a->member[locs[i].slot][0])
				continue;	/* a missing copy */
			leg = leg_add(row, &locs[i], a);
			if (!leg) {
				ret = -E2BIG;
				break;
			}
			leg->index = (int)row->nr_legs - 1;
			leg->top_offset = s_top * 512;
		}
		if (ret > 0 && row->nr_legs < 2)
			ret = 0;
	} else {
		ret = parity_row(sysfs, top, s_top, a, as, done, locs, k, row, scratch);
	}
	for (unsigned i = 0; ret > 0 && i < row->nr_legs; i++) {
		struct map_row_leg *leg = &row->leg[i];

		ret = leg_down(sysfs, a->member[leg->slot], leg->offset / 512, cnt, leg, scratch);
		ret = ret < 0 ? ret : 1;
	}
	row->length = *cnt * 512;
	for (unsigned i = 0; i < row->nr_legs; i++)
		row->leg[i].length = row->length;
	free(scratch);
	return ret;
}

int map_stack_row(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		  struct map_row *row, uint64_t *done)
{
	uint64_t s = off / 512, cnt = (len + off % 512 + 511) / 512;
	char cur[MAP_STACK_NAME];
	struct row_array *a;
	const char *bad = NULL;
	int ret;

	*done = 0;
	if (!len)
		return -EINVAL;
	a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	snprintf(cur, sizeof(cur), "%s", name);
	ret = descend(sysfs, cur, &s, &cnt, a, &bad);
	if (ret == 1)
		ret = build_row(sysfs, name, off / 512, a, s, &cnt, row);
	free(a);
	if (ret < 0)
		return ret;
	*done = cnt * 512 - off % 512;
	if (*done > len)
		*done = len;
	return ret;
}
