/*
 * stack/stack_dm.c - device-mapper table rows read upward (pure): which sector of the dm
 * device a sector of one of its devices holds, for linear (and flakey, delay: linear with
 * faults), striped, crypt (a fixed offset; the key never reaches this file), multipath (the
 * same sector on every path) and raid (LVM RAID LVs: md's layouts inside dm). Thin volumes and
 * pools are mapped through the pool's metadata (stack_thin_pool.c). Everything else is named
 * as not mappable, with why.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

#define DM_MAX_TOK 300

struct kinds {
	const char *type, *kind, *why;
};

static const struct kinds dm_kinds[] = {
	{ "linear", "dm-linear", NULL },
	{ "striped", "dm-striped", NULL },
	{ "crypt", "dm-crypt", NULL },
	{ "multipath", "dm-multipath", NULL },
	{ "raid", "dm-raid", NULL },
	{ "flakey", "dm-flakey", NULL },
	{ "delay", "dm-delay", NULL },
	{ "thin", "dm-thin", NULL },		/* through the pool's model: stack_thin_pool.c */
	{ "thin-pool", "dm-thin-pool", NULL },
	{ "cache", "dm-cache", "a cached block may live on the cache device or the origin, "
	  "decided by the cache's metadata at run time" },
	{ "writecache", "dm-writecache", "a block may sit in the write cache before it reaches "
	  "the origin" },
	{ "snapshot", "dm-snapshot", "a snapshot's blocks live in its exception store or in the "
	  "origin, decided by copy-on-write metadata" },
	{ "snapshot-origin", "dm-snapshot", "an origin with snapshots: old blocks live in the "
	  "snapshots' exception stores" },
	{ "snapshot-merge", "dm-snapshot", "a snapshot being merged moves blocks while it runs" },
	{ "integrity", "dm-integrity", "dm-integrity interleaves data with tags and a journal: "
	  "its sector layout is not a fixed offset" },
	{ "vdo", "dm-vdo", "VDO deduplicates and compresses: one block may back many, its "
	  "place is in VDO's block map" },
	{ "zoned", "dm-zoned", "dm-zoned remaps chunks through its own mapping table" },
	{ "verity", "dm-verity", "dm-verity is read-only data plus a hash tree: map the data "
	  "device directly" },
	{ "error", "dm-error", "an error target has no device below" },
	{ "zero", "dm-zero", "a zero target has no device below" },
	{ "mirror", "dm-mirror", "old LVM mirrors (dm-mirror) are not mapped yet" },
	{ NULL, NULL, NULL },
};

const char *map_dm_kind(const char *type)
{
	for (unsigned i = 0; dm_kinds[i].type; i++)
		if (strcmp(type, dm_kinds[i].type) == 0)
			return dm_kinds[i].kind;
	return "unknown";
}

int map_dm_supported(const char *type, const char **why)
{
	for (unsigned i = 0; dm_kinds[i].type; i++)
		if (strcmp(type, dm_kinds[i].type) == 0) {
			*why = dm_kinds[i].why;
			return !dm_kinds[i].why;
		}
	*why = "unknown device-mapper target: its mapping is not known to mediascan";
	return 0;
}

/* Split params into at most max tokens (in buf, a copy). */
static int tokens(const char *params, char *buf, size_t len, char **tok, unsigned max)
{
	unsigned n = 0;
	char *save = NULL, *t;

	if (strlen(params) >= len)
		return -EINVAL;
	strcpy(buf, params);
	for (t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return -E2BIG;
		tok[n++] = t;
	}
	return (int)n;
}

static int num(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int is_devt(const char *s)
{
	unsigned a, b;
	char c;

	return sscanf(s, "%u:%u%c", &a, &b, &c) == 2;
}

/* Row "dev off" at token i: linear, flakey, delay, crypt. */
static int row_offset(uint64_t start, uint64_t length, const char *dev, const char *offs,
		      const char *below, uint64_t x, uint64_t *top, uint64_t *run)
{
	uint64_t off;

	if (!dev || num(offs, &off) < 0)
		return -EINVAL;
	if (strcmp(dev, below) || x < off || x - off >= length) {
		*run = !strcmp(dev, below) && x < off ? off - x : UINT64_MAX;
		return 0;
	}
	*top = start + (x - off);
	*run = length - (x - off);
	return 1;
}

/* dm-raid's raid_type to md level and layout. */
static int raid_type(const char *t, int *level, uint32_t *layout)
{
	static const struct {
		const char *name;
		int level;
		uint32_t layout;
	} types[] = {
		{ "raid0", 0, 0 }, { "raid1", 1, 0 }, { "raid10", 10, 0 },
		{ "raid4", 5, MAP_R5_PARITY_0 }, { "raid5_n", 5, MAP_R5_PARITY_N },
		{ "raid5_la", 5, MAP_R5_LEFT_ASYMMETRIC }, { "raid5_ra", 5, MAP_R5_RIGHT_ASYMMETRIC },
		{ "raid5_ls", 5, MAP_R5_LEFT_SYMMETRIC }, { "raid5_rs", 5, MAP_R5_RIGHT_SYMMETRIC },
		{ "raid6_zr", 6, MAP_R6_ROTATING_ZERO_RESTART },
		{ "raid6_nr", 6, MAP_R6_ROTATING_N_RESTART },
		{ "raid6_nc", 6, MAP_R6_ROTATING_N_CONTINUE },
		{ "raid6_n_6", 6, MAP_R5_PARITY_N },
		{ "raid6_la_6", 6, MAP_R6_LEFT_ASYMMETRIC_6 },
		{ "raid6_ra_6", 6, MAP_R6_RIGHT_ASYMMETRIC_6 },
		{ "raid6_ls_6", 6, MAP_R6_LEFT_SYMMETRIC_6 },
		{ "raid6_rs_6", 6, MAP_R6_RIGHT_SYMMETRIC_6 },
		{ "raid6_0_6", 6, MAP_R6_PARITY_0_6 },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(t, types[i].name) == 0) {
			*level = types[i].level;
			*layout = types[i].layout;
			return 0;
		}
	return -EOPNOTSUPP;
}

/*
 * dm-raid's row "type #params chunk [opts] #devs meta0 data0 ..." of length sectors as md's
 * geometry *g and the data offset on each data leg; *devs_at the index of "#devs" in tok.
 * Return the number of devices, or -errno.
 */
static int raid_geo(char **tok, int n, uint64_t length, struct map_md_geo *g,
		    uint64_t *data_offset, int *devs_at)
{
	uint64_t nparams, ndevs, copies_nr = 2;
	int i, far = 0, offset = 0, near_sets = 0;

	memset(g, 0, sizeof(*g));
	*data_offset = 0;
	if (n < 3)
		return -EINVAL;
	if (raid_type(tok[0], &g->level, &g->layout) < 0)
		return -EOPNOTSUPP;		/* a raid type md has no layout for */
	if (num(tok[1], &nparams) < 0 || nparams < 1 || nparams > (uint64_t)n ||
	    num(tok[2], &g->chunk_sectors) < 0)
		return -EINVAL;
	for (i = 3; i < 2 + (int)nparams; i++) {
		if (strcmp(tok[i], "data_offset") == 0 && i + 1 < n)
			num(tok[++i], data_offset);
		else if (strcmp(tok[i], "raid10_copies") == 0 && i + 1 < n)
			num(tok[++i], &copies_nr);
		else if (strcmp(tok[i], "raid10_format") == 0 && i + 1 < n) {
			i++;
			far = strcmp(tok[i], "far") == 0;
			offset = strcmp(tok[i], "offset") == 0;
		} else if (strcmp(tok[i], "raid10_use_near_sets") == 0) {
			near_sets = 1;
		}
	}
	i = 2 + (int)nparams;
	if (i >= n || num(tok[i], &ndevs) < 0 || !ndevs || ndevs > MAP_MD_MAX_DISKS ||
	    i + 1 + 2 * (int)ndevs > n)
		return -EINVAL;
	*devs_at = i;
	g->raid_disks = (unsigned)ndevs;
	if (g->level == 10) {
		if (!copies_nr || copies_nr > 255)
			return -EINVAL;
		if (far || offset)
			g->layout = 1 | (uint32_t)copies_nr << 8 | (offset ? 1u << 16 : 0) |
				    (near_sets ? 0 : 1u << 17);
		else
			g->layout = (uint32_t)copies_nr | 1u << 8;
		g->dev_sectors = length * copies_nr / ndevs;
	} else if (g->level == 1) {
		g->dev_sectors = length;
	} else if (g->level == 0) {
		g->dev_sectors = length / ndevs;
	} else {
		if (ndevs < (g->level == 6 ? 4u : 3u))
			return -EINVAL;
		g->dev_sectors = length / (ndevs - (g->level == 6 ? 2 : 1));
	}
	for (unsigned d = 0; d < ndevs; d++)
		g->member_sectors[d] = g->dev_sectors;
	return (int)ndevs;
}

int map_dm_raid_geo(const char *params, uint64_t length, struct map_md_geo *g,
		    uint64_t *data_offset, char (*data)[16], unsigned max)
{
	char buf[1100];
	char *tok[DM_MAX_TOK];
	int n = tokens(params, buf, sizeof(buf), tok, DM_MAX_TOK), nd, at;

	if (n < 0)
		return n;
	nd = raid_geo(tok, n, length, g, data_offset, &at);
	if (nd < 0)
		return nd;
	if ((unsigned)nd > max)
		return -E2BIG;
	for (int d = 0; d < nd; d++)
		snprintf(data[d], 16, "%s", tok[at + 2 + 2 * d]);
	return nd;
}

int map_dm_raid_leg(const char *params, uint64_t length, const char *child,
		    uint64_t *data_offset)
{
	char buf[1100];
	char *tok[DM_MAX_TOK];
	struct map_md_geo g;
	int n = tokens(params, buf, sizeof(buf), tok, DM_MAX_TOK), nd, at;
	uint64_t doff;

	if (n < 0)
		return n;
	nd = raid_geo(tok, n, length, &g, &doff, &at);
	if (nd < 0)
		return nd;
	for (int d = 0; d < nd; d++) {
		if (strcmp(tok[at + 1 + 2 * d], child) == 0)
			return 1;
		if (strcmp(tok[at + 2 + 2 * d], child) == 0) {
			*data_offset = doff * 512;
			return 0;
		}
	}
	return -ENOENT;
}

/* dm-raid: "type #params chunk [opts] #devs meta0 data0 ...". */
static int row_raid(char **tok, int n, uint64_t start, uint64_t length, const char *below,
		    uint64_t x, uint64_t *top, uint64_t *run, struct map_dm_leg *copies,
		    unsigned max_copies, unsigned *nr_copies)
{
	uint64_t ndevs, data_offset, asector, r, done;
	struct map_md_loc locs[2 * MAP_MD_MAX_DISKS];
	struct map_md_geo g;
	enum map_md_role role;
	int i, slot = -1, k, nd;

	nd = raid_geo(tok, n, length, &g, &data_offset, &i);
	if (nd < 0)
		return nd;
	ndevs = (uint64_t)nd;
	for (unsigned d = 0; d < ndevs; d++)
		if (strcmp(tok[i + 2 + 2 * d], below) == 0)
			slot = (int)d;
	if (slot < 0)
		return 0;
	if (x < data_offset)
		return 0;
	k = map_md_up(&g, (unsigned)slot, x - data_offset, &asector, &role, &r);
	if (k == -ERANGE)
		return 0;
	if (k < 0)
		return k;
	*top = start + asector;
	*run = r;
	*nr_copies = 0;
	/* the other copies: for parity RAID the whole stripe row (every data chunk at this
	 * place, P and Q once), as for an md array (stack.c), else every copy of asector */
	unsigned nrow = g.level == 6 ? g.raid_disks - 2 :
			g.level == 4 || g.level == 5 ? g.raid_disks - 1 : 1;

	for (unsigned d = 0; d < nrow; d++) {
		uint64_t sa = nrow > 1 ? asector - asector % (g.chunk_sectors * nrow) +
				       d * g.chunk_sectors + asector % g.chunk_sectors : asector;

		k = map_md_down(&g, sa, 1, locs, 2 * MAP_MD_MAX_DISKS, &done);
		for (int j = 0; j < k; j++) {
			if (locs[j].slot == (unsigned)slot)
				continue;
			if (d && locs[j].role != MAP_MD_DATA)
				continue;	/* P and Q once */
			if (*nr_copies == max_copies)
				break;
			snprintf(copies[*nr_copies].devt, sizeof(copies[0].devt), "%s",
				 tok[i + 2 + 2 * locs[j].slot]);
			copies[*nr_copies].sector = locs[j].sector + data_offset;
			copies[*nr_copies].role = locs[j].role;
			(*nr_copies)++;
		}
	}
	if (role == MAP_MD_PARITY || role == MAP_MD_SYNDROME)
		return 2;
	return 1;
}

int map_dm_row_up(const char *type, uint64_t start, uint64_t length, const char *params,
		  const char *below, uint64_t x, uint64_t *top, uint64_t *run,
		  struct map_dm_leg *copies, unsigned max_copies, unsigned *nr_copies)
{
	char buf[1100];
	char *tok[DM_MAX_TOK];
	int n = tokens(params, buf, sizeof(buf), tok, DM_MAX_TOK);

	*nr_copies = 0;
	*run = 0;			/* 0 returned: no promise past x unless said */
	if (n < 0)
		return n;
	if (!strcmp(type, "linear") || !strcmp(type, "flakey") || !strcmp(type, "delay"))
		return n < 2 ? -EINVAL : row_offset(start, length, tok[0], tok[1], below, x, top,
						     run);
	if (!strcmp(type, "crypt"))
		return n < 5 ? -EINVAL : row_offset(start, length, tok[3], tok[4], below, x, top,
						     run);
	if (!strcmp(type, "striped")) {
		uint64_t nr, chunk, off, per, rel, row;

		if (n < 2 || num(tok[0], &nr) < 0 || num(tok[1], &chunk) < 0 || !nr || !chunk ||
		    n < 2 + 2 * (int)nr)
			return -EINVAL;
		per = length / nr;
		for (uint64_t s = 0; s < nr; s++) {
			if (strcmp(tok[2 + 2 * s], below) || num(tok[3 + 2 * s], &off) < 0)
				continue;
			if (x < off || x - off >= per)
				continue;
			rel = x - off;
			row = rel / chunk;
			*top = start + (row * nr + s) * chunk + rel % chunk;
			*run = chunk - rel % chunk;
			return 1;
		}
		return 0;
	}
	if (!strcmp(type, "multipath")) {
		for (int i = 0; i < n; i++)
			if (is_devt(tok[i]) && !strcmp(tok[i], below)) {
				if (x < start || x - start >= length) {
					*run = x < start ? start - x : UINT64_MAX;
					return 0;
				}
				*top = x;
				*run = start + length - x;
				return 1;
			}
		*run = UINT64_MAX;	/* below is none of its paths */
		return 0;
	}
	if (!strcmp(type, "raid"))
		return row_raid(tok, n, start, length, below, x, top, run, copies, max_copies,
				nr_copies);
	return -EOPNOTSUPP;
}
