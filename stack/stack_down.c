/*
 * stack/stack_down.c - a range mapped down the storage stack: from a device (the one a
 * filesystem sits on) through dm rows, md arrays (stack_md.c's arithmetic) and partitions to
 * every copy, and the parity of its stripe rows, on the devices at the bottom.
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

		if (!strcmp(data, "-") || map_stack_devt_name(data, below, sizeof(below)) < 0)
			continue;			/* a missing leg */
		ret = map_stack_down_at(sysfs, below, rel, &c, role == MAP_MD_DATA && nd > 1 ? MAP_MD_MIRROR :
			   role, out, max, n, bad, depth + 1);
		if (ret >= 0 && c < *cnt)
			*cnt = c;
		legs++;
	}
	return ret < 0 ? ret : legs ? 0 : -ENODEV;
}

/*
 * dm-raid of any level with an md layout (raid0, 4, 5, 6, 10; LVM's raid LVs): md's own
 * down-mapping over the row's geometry, then each location down its data leg (an rimage
 * LV) at the row's data offset. Parity and syndrome chunks of the rows come back too.
 */
static int down_raid(const char *sysfs, const char *params, uint64_t length, uint64_t rel,
		     uint64_t *cnt, enum map_md_role role, struct map_stack_leaf *out,
		     unsigned max, unsigned *n, const char **bad, int depth)
{
	char data[MAP_MD_MAX_DISKS][16], below[MAP_STACK_NAME];
	struct map_md_loc locs[3 * MAP_MD_MAX_DISKS];
	struct map_md_geo g;
	uint64_t doff, done;
	const char *why;
	int nd, k, ret = 0;

	nd = map_dm_raid_geo(params, length, &g, &doff, data, MAP_MD_MAX_DISKS);
	if (nd == -EOPNOTSUPP || (nd >= 0 && map_md_check(&g, &why) < 0)) {
		*bad = "dm-raid";
		return -EOPNOTSUPP;
	}
	if (nd < 0)
		return nd;
	k = map_md_down(&g, rel, *cnt, locs, 3 * MAP_MD_MAX_DISKS, &done);
	if (k < 0)
		return k;
	*cnt = done;
	for (int i = 0; i < k && ret >= 0; i++) {
		uint64_t c = done;

		if (!strcmp(data[locs[i].slot], "-") ||
		    map_stack_devt_name(data[locs[i].slot], below, sizeof(below)) < 0)
			continue;			/* a missing leg */
		ret = map_stack_down_at(sysfs, below, locs[i].sector + doff, &c,
					role == MAP_MD_DATA ? locs[i].role : role, out, max, n,
					bad, depth + 1);
		if (ret >= 0 && c < *cnt)
			*cnt = c;	/* a lower layer clipped: the caller loops */
	}
	return ret;
}

/*
 * Set below and *off to where sector rel of a striped target (its params) lies, and clip *cnt
 * at the chunk's end. Return 0, or -EINVAL for a table that cannot be read.
 */
static int dm_striped_below(const char *params, uint64_t rel, uint64_t *cnt, char *below,
			    size_t len, uint64_t *off)
{
	uint64_t nrs, chunk, row, sidx, ch;
	char *sv = NULL, *t;
	char all[1100], *at[2 * MAP_MD_MAX_DISKS + 2];
	unsigned na = 0;

	snprintf(all, sizeof(all), "%s", params);
	for (t = strtok_r(all, " ", &sv); t && na < 2 * MAP_MD_MAX_DISKS + 2;
	     t = strtok_r(NULL, " ", &sv))
		at[na++] = t;
	if (na < 2 || sscanf(at[0], "%" SCNu64, &nrs) != 1 ||
	    sscanf(at[1], "%" SCNu64, &chunk) != 1 || !nrs || !chunk ||
	    na < 2 + 2 * nrs)
		return -EINVAL;
	ch = rel / chunk;
	sidx = ch % nrs;
	row = ch / nrs;
	if (*cnt > chunk - rel % chunk)
		*cnt = chunk - rel % chunk;
	if (sscanf(at[3 + 2 * sidx], "%" SCNu64, off) != 1 ||
	    map_stack_devt_name(at[2 + 2 * sidx], below, len) < 0)
		return -EINVAL;
	*off += row * chunk + rel % chunk;
	return 0;
}

/* map_stack_down_at for md array name: down each member holding sector s. */
static int down_md(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt,
		   enum map_md_role role, struct map_stack_leaf *out, unsigned max, unsigned *n,
		   const char **bad, int depth)
{
	struct map_md_loc locs[3 * MAP_MD_MAX_DISKS];
	struct md_info mi;
	const char *why;
	uint64_t done;
	int k, ret;

	ret = map_stack_md_read(sysfs, name, &mi, &why);
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
		ret = map_stack_down_at(sysfs, mi.member[locs[i].slot],
			   locs[i].sector + mi.data_offset[locs[i].slot], &c,
			   role == MAP_MD_DATA ? locs[i].role : role, out, max, n, bad,
			   depth + 1);
		if (ret >= 0 && c < *cnt)
			*cnt = c;	/* a lower layer clipped: the caller loops */
	}
	return ret;
}


int map_stack_dm_below(const struct kio_dm_target *r, uint64_t s, uint64_t *cnt, char *below,
		       size_t len, uint64_t *off, const char **bad)
{
	char buf[1100], *tok[8], *save = NULL, *t;
	uint64_t rel = s - r->start;
	unsigned nt = 0;
	const char *why;

	if (*cnt > r->length - rel)
		*cnt = r->length - rel;
	if (!map_dm_supported(r->type, &why) || !strcmp(r->type, "raid") ||
	    !strcmp(r->type, "thin")) {
		*bad = map_dm_kind(r->type);
		return -EOPNOTSUPP;
	}
	if (!strcmp(r->type, "thin-pool")) {
		/* the pool's sectors are its data device's */
		struct thin_pool_params pp;

		if (thin_pool_row_parse(r->params, &pp) < 0 ||
		    map_stack_devt_name(pp.data_devt, below, len) < 0)
			return -EINVAL;
		*off = s;
		return 0;
	}
	if (!strcmp(r->type, "striped"))
		return dm_striped_below(r->params, rel, cnt, below, len, off);
	if (!strcmp(r->type, "multipath")) {
		/* the first path: every path is the same media */
		snprintf(buf, sizeof(buf), "%s", r->params);
		for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
			if (strchr(t, ':') && map_stack_devt_name(t, below, len) == 0) {
				*off = s;
				return 0;
			}
		return -EINVAL;
	}
	/* linear, flakey, delay: dev off; crypt: cipher - iv dev off */
	int di = !strcmp(r->type, "crypt") ? 3 : 0;

	snprintf(buf, sizeof(buf), "%s", r->params);
	for (t = strtok_r(buf, " ", &save); t && nt < 8; t = strtok_r(NULL, " ", &save))
		tok[nt++] = t;
	if ((unsigned)di + 2 > nt || sscanf(tok[di + 1], "%" SCNu64, off) != 1 ||
	    map_stack_devt_name(tok[di], below, len) < 0)
		return -EINVAL;
	*off += rel;
	return 0;
}

/* map_stack_down_at for dm device name: down the row of its table holding sector s. */
static int down_dm(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt,
		   enum map_md_role role, struct map_stack_leaf *out, unsigned max, unsigned *n,
		   const char **bad, int depth)
{
	struct kio_dm_target *rows;
	char below[MAP_STACK_NAME];
	int k, ret;

	k = map_stack_dm_rows(sysfs, name, &rows);
	if (k < 0)
		return k;
	ret = -ERANGE;
	for (int i = 0; i < k; i++) {
		struct kio_dm_target *r = &rows[i];
		uint64_t rel, off, c;

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
		if (!strcmp(r->type, "raid")) {
			ret = down_raid(sysfs, r->params, r->length, rel, cnt, role, out,
					max, n, bad, depth);
			break;
		}
		if (!strcmp(r->type, "thin")) {
			/* through the pool's model; an unprovisioned block holds nothing */
			ret = map_thin_down(sysfs, r, s, cnt, below, sizeof(below), &off);
			if (ret < 0)
				*bad = "dm-thin";	/* map_thin_why() says why */
			if (ret <= 0)
				break;
			c = *cnt;
			ret = map_stack_down_at(sysfs, below, off, &c, role, out, max, n, bad,
						depth + 1);
			if (ret >= 0 && c < *cnt)
				*cnt = c;
			break;
		}
		ret = map_stack_dm_below(r, s, cnt, below, sizeof(below), &off, bad);
		if (ret < 0)
			break;
		c = *cnt;
		ret = map_stack_down_at(sysfs, below, off, &c, role, out, max, n, bad, depth + 1);
		if (ret >= 0 && c < *cnt)
			*cnt = c;
		break;
	}
	map_stack_dm_rows_free(rows);
	return ret;
}

/* Down one device: sectors [s, s + cnt) of name, role so far; *cnt is clipped. */
int map_stack_down_at(const char *sysfs, const char *name, uint64_t s, uint64_t *cnt,
		enum map_md_role role, struct map_stack_leaf *out, unsigned max, unsigned *n,
		const char **bad, int depth)
{
	char (*sl)[KIO_DISK_NAME_LEN] = NULL;
	int nr;

	if (depth > MAP_STACK_MAX_HOPS)
		return -ELOOP;
	if (map_stack_is_md(name))
		return down_md(sysfs, name, s, cnt, role, out, max, n, bad, depth);
	if (map_stack_is_dm(name))
		return down_dm(sysfs, name, s, cnt, role, out, max, n, bad, depth);
	{
		/* a partition of an md array or dm device: down through its parent */
		char parent[MAP_STACK_NAME];
		uint64_t start;

		if (kio_blk_parent(sysfs, name, parent, sizeof(parent)) == 0 &&
		    (map_stack_is_md(parent) || map_stack_is_dm(parent)) &&
		    map_stack_attr_u64(sysfs, name, "start", &start) == 0)
			return map_stack_down_at(sysfs, parent, s + start, cnt, role, out, max, n, bad,
				    depth + 1);
	}
	sl = malloc(KIO_DISK_NAME_LEN * 4);
	if (!sl)
		return -ENOMEM;
	nr = map_stack_list(sysfs, name, "slaves", NULL, sl, 4);
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
	ret = map_stack_down_at(sysfs, name, off / 512, &cnt, MAP_MD_DATA, out, max, &n, bad_kind, 0);
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
