/*
 * pass/stack_plan.c - the plan of `mediascan scan MEMBER_DISK` when the disk is a member of
 * md RAID / LVM / dm-crypt: not the whole disk but only its ranges that hold written data
 * above it (the filesystem's own plan on the top device, mapped down through the stack,
 * the pieces on this disk kept: every copy, and parity of the stripe rows) plus the layers'
 * metadata on it (partition table, md superblock and bitmap before the data offset, a PV's
 * label and metadata areas, the LUKS header, a dm-raid LV's rmeta legs), named
 * in ps->meta for the report. The stacks' geometry is kept: a change during the reads stops
 * them (pass_stack_member_scan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kio.h"
#include "pass_int.h"
#include "stack.h"

#define LEAF_LOCS (3 * MAP_MD_MAX_DISKS)
#define MAX_TOPS PASS_STACK_MAX_TOPS

struct member_ctx {
	struct pass_stack *ps;
	const char *disk;		/* the scanned disk's kernel name */
	char parts[64][MAP_STACK_NAME];	/* its partitions and their starts */
	uint64_t pstart[64];
	int nparts;
	size_t cap, meta_cap;
	const char *meta_layer;		/* down_keep names its pieces metadata of this layer */
	const char *meta_kind, *meta_what;
	char pv[16][MAP_STACK_NAME];	/* PVs whose areas are planned */
	int nr_pv;
};

/* The byte offset on the disk of leaf range (name, off), or -1 when not on the disk. */
static int64_t on_disk(const struct member_ctx *c, const char *name, uint64_t off)
{
	if (!strcmp(name, c->disk))
		return (int64_t)off;
	for (int i = 0; i < c->nparts; i++)
		if (!strcmp(name, c->parts[i]))
			return (int64_t)(off + c->pstart[i]);
	return -1;
}

static int piece_add(struct member_ctx *c, uint64_t off, uint64_t len)
{
	struct pass_stack *ps = c->ps;

	if (ps->nr_mr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct scan_range *n = realloc(ps->mr, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		ps->mr = n;
		c->cap = cap;
	}
	memset(&ps->mr[ps->nr_mr], 0, sizeof(ps->mr[0]));
	ps->mr[ps->nr_mr].offset = off;
	ps->mr[ps->nr_mr].length = len;
	ps->nr_mr++;
	return 0;
}

/* A piece of the plan that is c->meta_layer's metadata, named for the report. */
static int meta_note(struct member_ctx *c, uint64_t off, uint64_t len)
{
	struct pass_stack *ps = c->ps;
	struct pass_stack_meta *m;

	if (ps->nr_meta) {
		m = &ps->meta[ps->nr_meta - 1];
		if (!strcmp(m->layer, c->meta_layer) && m->what == c->meta_what &&
		    m->offset + m->length == off) {
			m->length += len;
			ps->meta_bytes += len;
			return 0;
		}
	}
	if (ps->nr_meta == c->meta_cap) {
		size_t cap = c->meta_cap ? c->meta_cap * 2 : 16;
		struct pass_stack_meta *n = realloc(ps->meta, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		ps->meta = n;
		c->meta_cap = cap;
	}
	m = &ps->meta[ps->nr_meta++];
	memset(m, 0, sizeof(*m));
	snprintf(m->layer, sizeof(m->layer), "%s", c->meta_layer);
	snprintf(m->kind, sizeof(m->kind), "%s", c->meta_kind);
	m->what = c->meta_what;
	m->offset = off;
	m->length = len;
	ps->meta_bytes += len;
	return 0;
}

/* Bytes [off, off + len) of device name mapped down: the pieces on the disk kept. */
static int down_keep(struct member_ctx *c, const char *name, uint64_t off, uint64_t len)
{
	struct map_stack_leaf *lv = malloc(sizeof(*lv) * LEAF_LOCS);
	int ret = 0;

	if (!lv)
		return -ENOMEM;
	while (len && ret == 0) {
		const char *bad;
		uint64_t done;
		int k = map_stack_down(NULL, name, off, len, lv, LEAF_LOCS, &done, &bad);

		if (k < 0) {
			ret = k;
			break;
		}
		for (int i = 0; i < k && ret == 0; i++) {
			int64_t d = on_disk(c, lv[i].name, lv[i].offset);

			if (d >= 0)
				ret = piece_add(c, (uint64_t)d, lv[i].length);
			if (d >= 0 && ret == 0 && c->meta_layer)
				ret = meta_note(c, (uint64_t)d, lv[i].length);
		}
		if (!done)
			break;
		off += done;
		len -= done;
	}
	free(lv);
	return ret;
}

/* 1 when n is an LVM logical volume's linear or striped mapping (its DM uuid "LVM-..."). */
static int is_lv(const struct map_stack_node *n)
{
	char uuid[160];

	if (strcmp(n->kind, "dm-linear") && strcmp(n->kind, "dm-striped"))
		return 0;
	return kio_blk_attr(NULL, n->name, "dm/uuid", uuid, sizeof(uuid)) > 0 &&
	       strncmp(uuid, "LVM-", 4) == 0;
}

/* 1 when the tree under n reaches the disk. */
static int reaches(const struct member_ctx *c, const struct map_stack_node *n)
{
	if (on_disk(c, n->name, 0) >= 0)
		return 1;
	for (unsigned i = 0; i < n->nr_below; i++)
		if (reaches(c, &n->below[i]))
			return 1;
	return 0;
}

/*
 * The layers' metadata: what each layer keeps before its data on the device below it, and a
 * dm-raid LV's metadata legs (rmeta: its superblock and write-intent bitmap) whole.
 */
static int meta_add(struct member_ctx *c, const struct map_stack_node *n)
{
	int ret = 0;

	for (unsigned i = 0; i < n->nr_below && ret == 0; i++) {
		const struct map_stack_node *b = &n->below[i];
		struct map_lvm_area pv[4];
		uint64_t start;
		int k;

		if (!reaches(c, b))
			continue;
		if (is_lv(n) && (k = map_lvm_pv_areas(NULL, b->name, pv, 4)) > 0) {
			/* an LV on a PV: the PV's label and metadata areas, once per PV (not all
			 * before the LV's first extent: other LVs' or free extents lie there) */
			int seen = 0;

			for (int j = 0; j < c->nr_pv && !seen; j++)
				seen = !strcmp(c->pv[j], b->name);
			if (!seen && c->nr_pv < (int)(sizeof(c->pv) / sizeof(c->pv[0])))
				snprintf(c->pv[c->nr_pv++], MAP_STACK_NAME, "%s", b->name);
			c->meta_layer = b->name;
			c->meta_kind = "lvm-pv";
			c->meta_what = "LVM label and metadata area";
			for (int j = 0; j < k && ret == 0 && !seen; j++)
				ret = down_keep(c, b->name, pv[j].offset, pv[j].length);
			c->meta_layer = NULL;
		} else if (map_stack_data_start(NULL, n->name, b->name, &start) == 0 && start) {
			c->meta_layer = n->name;
			c->meta_kind = n->kind;
			c->meta_what = !strcmp(n->kind, "dm-raid") && start >= b->size ?
				       "dm-raid metadata (rmeta: superblock and write-intent bitmap)" :
				       map_stack_layer_meta(n->kind);
			ret = down_keep(c, b->name, 0, start);
			c->meta_layer = NULL;
		}
		if (ret == 0)
			ret = meta_add(c, b);
	}
	return ret;
}

/* The tops of the stacks above name (devices with no holders), up to MAX_TOPS. */
static void tops_of(const char *name, char (*out)[MAP_STACK_NAME], int *n, int depth)
{
	char (*h)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 16);
	int k;

	if (!h || depth > MAP_STACK_MAX_HOPS) {
		free(h);
		return;
	}
	k = kio_blk_list(NULL, name, "holders", NULL, h, 16);
	if (k == 0 && depth > 0 && *n < MAX_TOPS) {
		for (int i = 0; i < *n; i++)
			if (!strcmp(out[i], name)) {
				free(h);
				return;
			}
		snprintf(out[(*n)++], MAP_STACK_NAME, "%s", name);
	}
	for (int i = 0; i < k; i++)
		tops_of(h[i], out, n, depth + 1);
	free(h);
}

struct find_mount {
	dev_t devt;
	char path[4096];
};

static int mount_of(const struct kio_mount *m, void *arg)
{
	struct find_mount *f = arg;

	if (m->devt != f->devt)
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", m->mount_point);
	return 1;
}

int pass_stack_top_open(const char *top, struct map_target *ft, char *err, size_t len)
{
	struct find_mount f = { 0 };
	char dev[32];
	unsigned a, b;
	int cls;

	if (kio_blk_attr(NULL, top, "dev", dev, sizeof(dev)) < 0 ||
	    sscanf(dev, "%u:%u", &a, &b) != 2)
		return -ENODEV;
	f.devt = makedev(a, b);
	if (kio_mount_each(mount_of, &f) != 1) {
		snprintf(err, len, "/dev/%s (the top of the stack) is not mounted: its contents "
			 "are unknown", top);
		return -ENOENT;
	}
	return map_target_open(f.path, ft, err, len, &cls);
}

/* The written ranges of the filesystem on top, mapped down onto the disk. */
static int fs_add(struct member_ctx *c, const char *top, char *err, size_t len)
{
	struct map_target ft;
	struct map_plan_opts po = { .merge_gap = 0 };
	struct map_plan *plan;
	struct map_range rg[64];
	int n, ret;

	ret = pass_stack_top_open(top, &ft, err, len);
	if (ret == -ENOENT)
		snprintf(err, len, "/dev/%s (the top of the stack on /dev/%s) is not mounted: "
			 "its written ranges are unknown", top, c->disk);
	if (ret < 0)
		return ret;
	ret = map_plan_open(&ft, &po, &plan);
	while (ret == 0 && (n = map_plan_next(plan, rg, 64)) > 0)
		for (int i = 0; i < n && ret == 0; i++)
			if (rg[i].dev_idx == 0)
				ret = down_keep(c, top, rg[i].offset, rg[i].length);
	if (ret == 0 && n < 0)
		ret = n;
	if (plan)
		map_plan_close(plan);
	map_target_close(&ft);
	return ret;
}

static int cmp_range(const void *x, const void *y)
{
	const struct scan_range *a = x, *b = y;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int cmp_meta(const void *x, const void *y)
{
	const struct pass_stack_meta *a = x, *b = y;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The thin pools above name (dm devices with a thin-pool row), up to max. */
static void pools_of(const char *name, char (*out)[MAP_STACK_NAME], int *n, int max, int depth)
{
	char (*h)[KIO_DISK_NAME_LEN] = malloc(KIO_DISK_NAME_LEN * 16);
	int k;

	if (!h || depth > MAP_STACK_MAX_HOPS) {
		free(h);
		return;
	}
	if (depth && map_thin_is_pool(NULL, name)) {
		for (int i = 0; i < *n; i++)
			if (!strcmp(out[i], name)) {
				free(h);
				return;
			}
		if (*n < max)
			snprintf(out[(*n)++], MAP_STACK_NAME, "%s", name);
		free(h);
		return;
	}
	k = kio_blk_list(NULL, name, "holders", NULL, h, 16);
	for (int i = 0; i < k; i++)
		pools_of(h[i], out, n, max, depth + 1);
	free(h);
}

/* 1 when the stack under top holds a thin pool (its data is planned by the pool's blocks). */
static int over_pool(const struct map_stack_node *n)
{
	if (!strcmp(n->kind, "dm-thin-pool"))
		return 1;
	for (unsigned i = 0; i < n->nr_below; i++)
		if (over_pool(&n->below[i]))
			return 1;
	return 0;
}

static int pool_run(void *arg, const char *dev, uint64_t off, uint64_t len)
{
	return down_keep(arg, dev, off, len);
}

/*
 * A thin pool above the disk: every provisioned data block (each read once, however many
 * volumes and snapshots share it; unprovisioned space never) and its metadata device whole.
 */
static int pool_add(struct member_ctx *c, const char *pool, char *err, size_t len)
{
	char meta[MAP_STACK_NAME];
	uint64_t size = 0;
	int ret = map_thin_pool_ranges(NULL, pool, pool_run, c, meta, sizeof(meta), &size, err,
				       len);

	if (ret == 0 && size) {
		c->meta_layer = pool;
		c->meta_kind = "dm-thin-pool";
		c->meta_what = "thin pool metadata (mapping B-trees and space maps)";
		ret = down_keep(c, meta, 0, size);
		c->meta_layer = NULL;
	}
	return ret;
}

int pass_stack_member_plan(struct pass_stack *ps, const struct map_target *t, char *err,
			   size_t len)
{
	struct member_ctx *c;
	char tops[MAX_TOPS][MAP_STACK_NAME];
	char (*p)[KIO_DISK_NAME_LEN];
	int nt = 0, ret = 0, np;
	size_t w = 0;

	if (t->mount_fd >= 0 || t->nr_devices != 1 || !t->devices[0].info.name[0] ||
	    !map_stack_is_stacked(NULL, t->devices[0].info.name))
		return 0;
	c = calloc(1, sizeof(*c));
	p = malloc(KIO_DISK_NAME_LEN * 64);
	if (!c || !p) {
		free(c);
		free(p);
		return -ENOMEM;
	}
	c->ps = ps;
	c->disk = t->devices[0].info.name;
	np = kio_blk_list(NULL, c->disk, ".", c->disk, p, 64);
	for (int i = 0; i < np; i++)
		if (kio_blk_attr_u64(NULL, p[i], "start", &c->pstart[c->nparts]) == 0) {
			c->pstart[c->nparts] *= 512;
			snprintf(c->parts[c->nparts++], MAP_STACK_NAME, "%s", p[i]);
		}
	free(p);
	tops_of(c->disk, tops, &nt, 0);
	for (int i = 0; i < c->nparts; i++)
		tops_of(c->parts[i], tops, &nt, 0);
	{
		char pools[MAX_TOPS][MAP_STACK_NAME];
		int npool = 0;

		pools_of(c->disk, pools, &npool, MAX_TOPS, 0);
		for (int i = 0; i < c->nparts; i++)
			pools_of(c->parts[i], pools, &npool, MAX_TOPS, 0);
		for (int i = 0; i < npool && ret == 0; i++)
			ret = pool_add(c, pools[i], err, len);
	}
	for (int i = 0; i < nt && ret == 0; i++) {
		struct map_stack_node *tree = NULL;

		if (map_stack_tree(NULL, tops[i], &tree) < 0)
			tree = NULL;
		/* a thin volume's (or the pool's own node's) data: the pool's blocks above */
		if (!tree || !over_pool(tree))
			ret = fs_add(c, tops[i], err, len);
		if (ret == 0 && tree)
			ret = meta_add(c, tree);
		map_stack_tree_free(tree);
	}
	if (ret == 0 && !nt)
		ret = -ENOENT;
	if (ret == -ENOENT || ret == -EOPNOTSUPP) {
		/* no mounted filesystem above, or a layer (thin, cache, ...) the plan cannot be
		 * mapped down through: its written ranges are unknown, the whole disk is read */
		snprintf(ps->note, sizeof(ps->note), "note: /dev/%s is a member of a storage stack "
			 "%s: the whole disk is planned", c->disk, ret == -ENOENT ?
			 "with no mounted filesystem on top" : "with a layer that cannot be mapped");
		free(ps->mr);
		ps->mr = NULL;
		ps->nr_mr = 0;
		free(ps->meta);
		ps->meta = NULL;
		ps->nr_meta = 0;
		ps->meta_bytes = 0;
		err[0] = '\0';
		free(c);
		return 0;
	}
	if (ret < 0) {
		if (!err[0])
			snprintf(err, len, "planning the member disk /dev/%s through its stack: %s",
				 c->disk, strerror(-ret));
		free(ps->mr);
		ps->mr = NULL;
		ps->nr_mr = 0;
		free(ps->meta);
		ps->meta = NULL;
		ps->nr_meta = 0;
		ps->meta_bytes = 0;
		free(c);
		return ret;
	}
	qsort(ps->meta, ps->nr_meta, sizeof(ps->meta[0]), cmp_meta);
	/* sorted and merged: one read per contiguous run */
	qsort(ps->mr, ps->nr_mr, sizeof(ps->mr[0]), cmp_range);
	for (size_t i = 0; i < ps->nr_mr; i++) {
		if (w && ps->mr[i].offset <= ps->mr[w - 1].offset + ps->mr[w - 1].length &&
		    ps->mr[w - 1].length < (64u << 20)) {
			uint64_t end = ps->mr[i].offset + ps->mr[i].length;

			if (end > ps->mr[w - 1].offset + ps->mr[w - 1].length)
				ps->mr[w - 1].length = end - ps->mr[w - 1].offset;
			continue;
		}
		if (w && ps->mr[i].offset < ps->mr[w - 1].offset + ps->mr[w - 1].length) {
			uint64_t end = ps->mr[i].offset + ps->mr[i].length;
			uint64_t pend = ps->mr[w - 1].offset + ps->mr[w - 1].length;

			if (end <= pend)
				continue;
			ps->mr[i].length = end - pend;
			ps->mr[i].offset = pend;
		}
		ps->mr[w++] = ps->mr[i];
	}
	ps->nr_mr = w;
	ps->mr_bytes = 0;
	for (size_t i = 0; i < w; i++)
		ps->mr_bytes += ps->mr[i].length;
	ps->member_plan = 1;
	/* the geometry the plan is made for: every stack above the disk */
	snprintf(ps->disk, sizeof(ps->disk), "%s", c->disk);
	for (int i = 0; i < nt; i++)
		snprintf(ps->gtop[i], sizeof(ps->gtop[i]), "%s", tops[i]);
	ps->nr_gtop = (unsigned)nt;
	pass_stack_geometry_mark(ps);
	snprintf(ps->note, sizeof(ps->note), "note: /dev/%s is a member of %d stack%s (top "
		 "/dev/%s): planned only its ranges holding written data above it and the layers' "
		 "metadata (--top-only plans the whole disk)", c->disk, nt, nt == 1 ? "" : "s",
		 tops[0]);
	free(c);
	return 1;
}

static int member_next(void *arg, struct scan_range *out, unsigned max)
{
	struct pass_stack *ps = arg;
	unsigned n = 0;

	while (n < max && ps->mr_pos < ps->nr_mr)
		out[n++] = ps->mr[ps->mr_pos++];
	return (int)n;
}

void pass_stack_member_source(struct pass_stack *ps, struct scan_source *src)
{
	ps->mr_pos = 0;
	src->next = member_next;
	src->arg = ps;
}
