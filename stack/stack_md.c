/*
 * stack/stack_md.c - md RAID and dm-striped address arithmetic, both ways: an array range
 * to every member range holding it (copies, and the parity of its stripe rows), and a member
 * sector to the array sector it holds. The formulas are those of the kernel's
 * drivers/md/raid0.c (one zone), raid1.c, raid5.c (raid5_compute_sector), raid10.c
 * (__raid10_find_phys, raid10_find_virt, calc_sectors) and md-linear.c; the upward map of
 * RAID4/5/6 and RAID10 is checked by mapping back down, so a wrong inverse is an error, not a
 * wrong answer.
 */
#include <errno.h>
#include <stddef.h>

#include "stack_md.h"

const char *map_md_role_name(enum map_md_role r)
{
	switch (r) {
	case MAP_MD_DATA:
		return "data";
	case MAP_MD_MIRROR:
		return "mirror";
	case MAP_MD_PARITY:
		return "parity";
	case MAP_MD_SYNDROME:
		return "syndrome";
	}
	return "?";
}

/* RAID10 geometry (struct geom in raid10.c). */
struct r10 {
	unsigned nc, fc, fo, far_set_size, disks;
	uint64_t chunk, stride, dev_sectors;
};

static int r10_geo(const struct map_md_geo *g, struct r10 *r)
{
	unsigned v = g->layout >> 17;
	uint64_t size;

	r->nc = g->layout & 0xff;
	r->fc = (g->layout >> 8) & 0xff;
	r->fo = !!(g->layout & (1u << 16));
	r->disks = g->raid_disks;
	r->chunk = g->chunk_sectors;
	if (!r->nc || !r->fc || r->nc * r->fc < 2 || r->nc * r->fc > r->disks || !r->chunk)
		return -EINVAL;
	if (v == 0)
		r->far_set_size = r->disks;
	else if (v == 1)
		r->far_set_size = r->disks / r->fc;
	else if (v == 2)
		r->far_set_size = r->fc * r->nc;
	else
		return -EOPNOTSUPP;
	if (!r->far_set_size)
		return -EINVAL;
	/* calc_sectors() */
	size = g->dev_sectors / r->chunk;
	size /= r->fc;
	size *= r->disks;
	size /= r->nc;
	size *= (uint64_t)r->nc * r->fc;
	size = (size + r->disks - 1) / r->disks;
	r->dev_sectors = size * r->chunk;
	if (r->fo)
		r->stride = r->chunk;
	else
		r->stride = size / r->fc * r->chunk;
	return 0;
}

/* The chunk counts of the data disks of a parity array. */
static unsigned data_disks(const struct map_md_geo *g)
{
	return g->raid_disks - (g->level == 6 ? 2 : 1);
}

/* raid5_compute_sector(): the member of data chunk chunk_number, and P/Q of its stripe. */
static int r5_compute(const struct map_md_geo *g, uint64_t chunk_number, uint64_t *stripe,
		      unsigned *dd, unsigned *pd, int *qd)
{
	unsigned rd = g->raid_disks, nd = data_disks(g);
	uint64_t s = chunk_number / nd;
	unsigned d = (unsigned)(chunk_number % nd), p = 0;
	int q = -1;

	*stripe = s;
	if (g->level == 4) {
		p = nd;
	} else if (g->level == 5) {
		switch (g->layout) {
		case MAP_R5_LEFT_ASYMMETRIC:
			p = nd - (unsigned)(s % rd);
			if (d >= p)
				d++;
			break;
		case MAP_R5_RIGHT_ASYMMETRIC:
			p = (unsigned)(s % rd);
			if (d >= p)
				d++;
			break;
		case MAP_R5_LEFT_SYMMETRIC:
			p = nd - (unsigned)(s % rd);
			d = (p + 1 + d) % rd;
			break;
		case MAP_R5_RIGHT_SYMMETRIC:
			p = (unsigned)(s % rd);
			d = (p + 1 + d) % rd;
			break;
		case MAP_R5_PARITY_0:
			p = 0;
			d++;
			break;
		case MAP_R5_PARITY_N:
			p = nd;
			break;
		default:
			return -EOPNOTSUPP;
		}
	} else {
		switch (g->layout) {
		case MAP_R5_LEFT_ASYMMETRIC:
		case MAP_R5_RIGHT_ASYMMETRIC:
		case MAP_R6_ROTATING_ZERO_RESTART:
		case MAP_R6_ROTATING_N_RESTART:
			if (g->layout == MAP_R5_LEFT_ASYMMETRIC)
				p = rd - 1 - (unsigned)(s % rd);
			else if (g->layout == MAP_R6_ROTATING_N_RESTART)
				p = rd - 1 - (unsigned)((s + 1) % rd);
			else
				p = (unsigned)(s % rd);
			q = (int)p + 1;
			if (p == rd - 1) {
				d++;
				q = 0;
			} else if (d >= p) {
				d += 2;
			}
			break;
		case MAP_R5_LEFT_SYMMETRIC:
			p = rd - 1 - (unsigned)(s % rd);
			q = (int)((p + 1) % rd);
			d = (p + 2 + d) % rd;
			break;
		case MAP_R5_RIGHT_SYMMETRIC:
			p = (unsigned)(s % rd);
			q = (int)((p + 1) % rd);
			d = (p + 2 + d) % rd;
			break;
		case MAP_R5_PARITY_0:
			p = 0;
			q = 1;
			d += 2;
			break;
		case MAP_R5_PARITY_N:
			p = nd;
			q = (int)nd + 1;
			break;
		case MAP_R6_ROTATING_N_CONTINUE:
			p = rd - 1 - (unsigned)(s % rd);
			q = (int)((p + rd - 1) % rd);
			d = (p + 1 + d) % rd;
			break;
		case MAP_R6_LEFT_ASYMMETRIC_6:
		case MAP_R6_RIGHT_ASYMMETRIC_6:
			p = g->layout == MAP_R6_LEFT_ASYMMETRIC_6 ? nd - (unsigned)(s % (rd - 1)) :
								      (unsigned)(s % (rd - 1));
			if (d >= p)
				d++;
			q = (int)rd - 1;
			break;
		case MAP_R6_LEFT_SYMMETRIC_6:
		case MAP_R6_RIGHT_SYMMETRIC_6:
			p = g->layout == MAP_R6_LEFT_SYMMETRIC_6 ? nd - (unsigned)(s % (rd - 1)) :
								     (unsigned)(s % (rd - 1));
			d = (p + 1 + d) % (rd - 1);
			q = (int)rd - 1;
			break;
		case MAP_R6_PARITY_0_6:
			p = 0;
			d++;
			q = (int)rd - 1;
			break;
		default:
			return -EOPNOTSUPP;
		}
	}
	*dd = d;
	*pd = p;
	*qd = q;
	return 0;
}

int map_md_check(const struct map_md_geo *g, const char **why)
{
	static const char *none = "";
	struct r10 r;
	int ret;

	*why = none;
	if (!g->raid_disks || g->raid_disks > MAP_MD_MAX_DISKS) {
		*why = "no members, or more than 64";
		return -EINVAL;
	}
	switch (g->level) {
	case -1:
		return 0;
	case 1:
		return 0;
	case 0:
		if (!g->chunk_sectors) {
			*why = "no chunk size";
			return -EINVAL;
		}
		for (unsigned i = 1; i < g->raid_disks; i++)
			if (g->member_sectors[i] / g->chunk_sectors !=
			    g->member_sectors[0] / g->chunk_sectors) {
				*why = "raid0 with members of different sizes (several zones) is "
				       "not mapped";
				return -EOPNOTSUPP;
			}
		return 0;
	case 4:
	case 5:
	case 6: {
		uint64_t st;
		unsigned dd, pd;
		int qd;

		if (!g->chunk_sectors || g->raid_disks < (g->level == 6 ? 4u : 2u)) {
			*why = "no chunk size, or too few members";
			return -EINVAL;
		}
		if (r5_compute(g, 0, &st, &dd, &pd, &qd) < 0) {
			*why = "unknown RAID5/6 layout";
			return -EOPNOTSUPP;
		}
		return 0;
	}
	case 10:
		ret = r10_geo(g, &r);
		if (ret < 0)
			*why = ret == -EOPNOTSUPP ? "unknown raid10 far-set layout version" :
						    "bad raid10 layout";
		return ret;
	}
	*why = "unknown RAID level";
	return -EOPNOTSUPP;
}

uint64_t map_md_array_sectors(const struct map_md_geo *g)
{
	uint64_t sum = 0, c = g->chunk_sectors;
	struct r10 r;

	switch (g->level) {
	case -1:
		for (unsigned i = 0; i < g->raid_disks; i++)
			sum += c ? g->member_sectors[i] / c * c : g->member_sectors[i];
		return sum;
	case 0:
		return c ? g->member_sectors[0] / c * c * g->raid_disks : 0;
	case 1:
		return g->dev_sectors;
	case 4:
	case 5:
	case 6:
		return c ? g->dev_sectors / c * c * data_disks(g) : 0;
	case 10:
		if (r10_geo(g, &r) < 0)
			return 0;
		return r.dev_sectors / r.chunk / r.fc * r.disks / r.nc * r.chunk;
	}
	return 0;
}

static int put(struct map_md_loc *out, unsigned max, unsigned *n, unsigned slot,
	       uint64_t sector, uint64_t count, enum map_md_role role)
{
	if (*n == max)
		return -E2BIG;
	out[*n] = (struct map_md_loc){ .slot = slot, .sector = sector, .count = count,
				       .role = role };
	(*n)++;
	return 0;
}

/* __raid10_find_phys() for the chunk of array sector s: every copy's (dev, sector). */
static int r10_phys(const struct r10 *r, uint64_t s, unsigned *devs, uint64_t *secs)
{
	unsigned last_start = (r->disks / r->far_set_size - 1) * r->far_set_size;
	unsigned last_size = r->far_set_size + r->disks % r->far_set_size;
	uint64_t chunk = s / r->chunk, sector = s % r->chunk, stripe;
	unsigned dev, slot = 0;

	chunk *= r->nc;
	stripe = chunk / r->disks;
	dev = (unsigned)(chunk % r->disks);
	if (r->fo)
		stripe *= r->fc;
	sector += stripe * r->chunk;
	for (unsigned n = 0; n < r->nc; n++) {
		unsigned d = dev;
		uint64_t x = sector;

		devs[slot] = d;
		secs[slot++] = x;
		for (unsigned f = 1; f < r->fc; f++) {
			unsigned set = d / r->far_set_size;

			d += r->nc;
			if ((r->disks % r->far_set_size) && d > last_start) {
				d -= last_start;
				d %= last_size;
				d += last_start;
			} else {
				d %= r->far_set_size;
				d += r->far_set_size * set;
			}
			x += r->stride;
			devs[slot] = d;
			secs[slot++] = x;
		}
		dev++;
		if (dev >= r->disks) {
			dev = 0;
			sector += r->chunk;
		}
	}
	return (int)slot;
}

/* raid10_find_virt(): the array sector member dev's sector holds. */
static uint64_t r10_virt(const struct r10 *r, uint64_t sector, unsigned dev)
{
	unsigned fss = r->far_set_size, fstart = dev / fss * fss;
	uint64_t offset = sector % r->chunk, chunk, vchunk;
	int d = (int)dev;

	if (r->disks % fss) {
		unsigned last = (r->disks / fss - 1) * fss;

		if (dev >= last) {
			fss = r->far_set_size + r->disks % r->far_set_size;
			fstart = last;
		}
	}
	if (r->fo) {
		unsigned fc;

		chunk = sector / r->chunk;
		fc = (unsigned)(chunk % r->fc);
		chunk /= r->fc;
		d -= (int)(fc * r->nc);
		if (d < (int)fstart)
			d += (int)fss;
	} else {
		while (sector >= r->stride) {
			sector -= r->stride;
			if (d < (int)(r->nc + fstart))
				d += (int)(fss - r->nc);
			else
				d -= (int)r->nc;
		}
		chunk = sector / r->chunk;
	}
	vchunk = chunk * r->disks + (uint64_t)d;
	vchunk /= r->nc;
	return vchunk * r->chunk + offset;
}

int map_md_down(const struct map_md_geo *g, uint64_t sector, uint64_t count,
		struct map_md_loc *out, unsigned max, uint64_t *done)
{
	uint64_t size = map_md_array_sectors(g), c = g->chunk_sectors, n;
	const char *why;
	unsigned nr = 0;
	int ret = map_md_check(g, &why);

	*done = 0;
	if (ret < 0)
		return ret;
	if (sector >= size || !count)
		return -ERANGE;
	if (count > size - sector)
		count = size - sector;
	switch (g->level) {
	case -1: {
		uint64_t start = 0;

		for (unsigned i = 0; i < g->raid_disks; i++) {
			uint64_t ms = c ? g->member_sectors[i] / c * c : g->member_sectors[i];

			if (sector < start + ms) {
				n = start + ms - sector < count ? start + ms - sector : count;
				ret = put(out, max, &nr, i, sector - start, n, MAP_MD_DATA);
				*done = n;
				return ret < 0 ? ret : (int)nr;
			}
			start += ms;
		}
		return -ERANGE;
	}
	case 0: {
		uint64_t ch = sector / c, off = sector % c;

		n = c - off < count ? c - off : count;
		ret = put(out, max, &nr, (unsigned)(ch % g->raid_disks),
			  ch / g->raid_disks * c + off, n, MAP_MD_DATA);
		break;
	}
	case 1:
		n = count;
		for (unsigned i = 0; i < g->raid_disks && ret >= 0; i++)
			ret = put(out, max, &nr, i, sector, n, MAP_MD_MIRROR);
		break;
	case 4:
	case 5:
	case 6: {
		uint64_t ch = sector / c, off = sector % c, stripe;
		unsigned dd, pd;
		int qd;

		n = c - off < count ? c - off : count;
		ret = r5_compute(g, ch, &stripe, &dd, &pd, &qd);
		if (ret == 0)
			ret = put(out, max, &nr, dd, stripe * c + off, n, MAP_MD_DATA);
		if (ret == 0)
			ret = put(out, max, &nr, pd, stripe * c + off, n, MAP_MD_PARITY);
		if (ret == 0 && qd >= 0)
			ret = put(out, max, &nr, (unsigned)qd, stripe * c + off, n,
				  MAP_MD_SYNDROME);
		break;
	}
	case 10: {
		unsigned devs[2 * MAP_MD_MAX_DISKS];
		uint64_t secs[2 * MAP_MD_MAX_DISKS], off = sector % c;
		struct r10 r;
		int k;

		r10_geo(g, &r);
		if (r.nc * r.fc > 2 * MAP_MD_MAX_DISKS)
			return -EINVAL;
		n = c - off < count ? c - off : count;
		k = r10_phys(&r, sector, devs, secs);
		for (int i = 0; i < k && ret >= 0; i++)
			ret = put(out, max, &nr, devs[i], secs[i], n, MAP_MD_MIRROR);
		break;
	}
	default:
		return -EOPNOTSUPP;
	}
	if (ret < 0)
		return ret;
	*done = n;
	return (int)nr;
}

int map_md_up(const struct map_md_geo *g, unsigned slot, uint64_t msector, uint64_t *asector,
	      enum map_md_role *role, uint64_t *run)
{
	uint64_t c = g->chunk_sectors;
	const char *why;
	int ret = map_md_check(g, &why);

	if (ret < 0)
		return ret;
	if (slot >= g->raid_disks)
		return -EINVAL;
	switch (g->level) {
	case -1: {
		uint64_t start = 0;

		for (unsigned i = 0; i < slot; i++)
			start += c ? g->member_sectors[i] / c * c : g->member_sectors[i];
		uint64_t ms = c ? g->member_sectors[slot] / c * c : g->member_sectors[slot];

		if (msector >= ms)
			return -ERANGE;
		*asector = start + msector;
		*role = MAP_MD_DATA;
		*run = ms - msector;
		return 0;
	}
	case 0: {
		uint64_t row = msector / c, off = msector % c;

		if (msector >= g->member_sectors[slot] / c * c)
			return -ERANGE;
		*asector = (row * g->raid_disks + slot) * c + off;
		*role = MAP_MD_DATA;
		*run = c - off;
		return 0;
	}
	case 1:
		if (msector >= g->dev_sectors)
			return -ERANGE;
		*asector = msector;
		*role = MAP_MD_MIRROR;
		*run = g->dev_sectors - msector;
		return 0;
	case 4:
	case 5:
	case 6: {
		uint64_t row = msector / c, off = msector % c, stripe;
		unsigned nd = data_disks(g), dd, pd;
		int qd;

		if (msector >= g->dev_sectors / c * c)
			return -ERANGE;
		for (unsigned d = 0; d < nd; d++) {
			ret = r5_compute(g, row * nd + d, &stripe, &dd, &pd, &qd);
			if (ret < 0)
				return ret;
			if (stripe != row)
				return -EINVAL;
			if (slot == pd || (qd >= 0 && slot == (unsigned)qd)) {
				*asector = row * nd * c + off;
				*role = slot == pd ? MAP_MD_PARITY : MAP_MD_SYNDROME;
				*run = c - off;
				return 0;
			}
			if (dd == slot) {
				*asector = (row * nd + d) * c + off;
				*role = MAP_MD_DATA;
				*run = c - off;
				return 0;
			}
		}
		return -EINVAL;
	}
	case 10: {
		unsigned devs[2 * MAP_MD_MAX_DISKS];
		uint64_t secs[2 * MAP_MD_MAX_DISKS], v;
		struct r10 r;
		int k;

		r10_geo(g, &r);
		if (msector >= r.dev_sectors || r.nc * r.fc > 2 * MAP_MD_MAX_DISKS)
			return -ERANGE;
		v = r10_virt(&r, msector, slot);
		if (v >= map_md_array_sectors(g))
			return -ERANGE;
		k = r10_phys(&r, v, devs, secs);
		for (int i = 0; i < k; i++)
			if (devs[i] == slot && secs[i] == msector) {
				*asector = v;
				*role = MAP_MD_MIRROR;
				*run = c - msector % c;
				return 0;
			}
		return -EINVAL;			/* the inverse did not check out */
	}
	}
	return -EOPNOTSUPP;
}
