/*
 * stack/stack_tree.c - the storage stack below a device as a tree (probe's tree, the safety
 * checks: busy and degraded arrays), its leaves (the disks a member-level scan opens), and
 * where each layer keeps its data on the device below it (what lies before is its metadata).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kio.h"
#include "stack.h"
#include "stack_int.h"
#include "stack_thin.h"

/* A thin pool's totals, or a thin volume's id and mapped blocks, from the pool's model. */
static void thin_facts(const char *sysfs, const struct kio_dm_target *r, struct map_stack_node *n)
{
	char params[1100], why[THIN_WHY];
	const struct thin_model *m;
	struct thin_params tp;

	if (!strcmp(r->type, "thin-pool")) {
		struct thin_totals t;

		if (map_thin_pool_model(r->params, 1, &m, why, sizeof(why)) < 0) {
			snprintf(n->thin_why, sizeof(n->thin_why), "%s", why);
			return;
		}
		thin_model_totals(m, &t);
		n->thin_ok = 1;
		n->thin_block_bytes = t.data_block_bytes;
		n->thin_data_blocks = t.data_nr_blocks;
		n->thin_provisioned = t.provisioned;
		n->thin_mappings = t.mappings;
		n->thin_volumes = (unsigned)t.nr_devs;
		n->thin_rewalks = m->rewalks;
	} else if (!strcmp(r->type, "thin") && thin_row_parse(r->params, &tp) == 0) {
		const struct thin_dev *d;

		n->thin_id = tp.dev_id;
		if (map_thin_pool_of(sysfs, tp.pool_devt, params, sizeof(params)) < 0 ||
		    map_thin_pool_model(params, 0, &m, why, sizeof(why)) < 0)
			return;
		d = thin_model_dev(m, tp.dev_id);
		n->thin_ok = d != NULL;
		n->thin_mapped = d ? d->counted : 0;
	}
}

static int tree_walk(const char *sysfs, const char *name, struct map_stack_node *n, int depth)
{
	char (*sl)[KIO_DISK_NAME_LEN] = NULL;
	char parent[MAP_STACK_NAME], attr[160];
	uint64_t v;
	int nr, ret = 0;

	memset(n, 0, sizeof(*n));
	n->slot = -1;
	n->thin_id = -1;
	snprintf(n->name, sizeof(n->name), "%s", name);
	if (depth > MAP_STACK_MAX_HOPS)
		return -ELOOP;
	if (map_stack_attr_u64(sysfs, name, "size", &v) == 0)
		n->size = v * 512;
	snprintf(n->kind, sizeof(n->kind), "%s", map_stack_base_kind(sysfs, name));
	if (strcmp(n->kind, "partition") == 0) {
		if (kio_blk_parent(sysfs, name, parent, sizeof(parent)) < 0)
			return 0;
		n->below = calloc(1, sizeof(*n->below));
		if (!n->below)
			return -ENOMEM;
		n->nr_below = 1;
		return tree_walk(sysfs, parent, n->below, depth + 1);
	}
	if (map_stack_is_md(name)) {
		n->is_md = 1;
		map_stack_attr(sysfs, name, "md/level", n->level, sizeof(n->level));
		snprintf(n->kind, sizeof(n->kind), "md-%s", n->level);
		if (map_stack_attr_u64(sysfs, name, "md/raid_disks", &v) == 0)
			n->raid_disks = (unsigned)v;
		map_stack_attr_u64(sysfs, name, "md/chunk_size", &n->chunk_bytes);
		if (map_stack_attr_u64(sysfs, name, "md/layout", &v) == 0)
			n->layout = (uint32_t)v;
		map_stack_attr_u64(sysfs, name, "md/degraded", &n->degraded);
		map_stack_attr(sysfs, name, "md/sync_action", n->sync_action,
			     sizeof(n->sync_action));
		map_stack_attr(sysfs, name, "md/reshape_position", n->reshape, sizeof(n->reshape));
		map_stack_attr(sysfs, name, "md/uuid", n->uuid, sizeof(n->uuid));
	} else if (map_stack_is_dm(name)) {
		struct kio_dm_target *rows = malloc(sizeof(*rows) * 4);
		char dev[32];
		unsigned a, b;

		snprintf(n->kind, sizeof(n->kind), "unknown");
		if (rows && map_stack_attr(sysfs, name, "dev", dev, sizeof(dev)) > 0 &&
		    sscanf(dev, "%u:%u", &a, &b) == 2) {
			int k = kio_dm_table(makedev(a, b), rows, 4);

			if (k > 0 || k == -E2BIG)
				snprintf(n->kind, sizeof(n->kind), "%s", map_dm_kind(rows[0].type));
			if (k > 0)
				thin_facts(sysfs, &rows[0], n);
		}
		if (rows)
			explicit_bzero(rows, sizeof(*rows) * 4);
		free(rows);
	}
	sl = malloc(KIO_DISK_NAME_LEN * 2 * MAP_MD_MAX_DISKS);
	if (!sl)
		return -ENOMEM;
	nr = map_stack_list(sysfs, name, "slaves", NULL, sl, 2 * MAP_MD_MAX_DISKS);
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
				if (map_stack_attr_u64(sysfs, name, attr, &v) == 0)
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
	if (map_stack_is_md(parent)) {
		snprintf(attr, sizeof(attr), "md/dev-%s/offset", child);
		if (map_stack_attr_u64(sysfs, parent, attr, &v) < 0)
			return -ENOENT;
		*start = v * 512;
		return 0;
	}
	if (map_stack_is_dm(parent)) {
		struct kio_dm_target *rows = malloc(sizeof(*rows) * DM_MAX_ROWS);
		char dmdev[32];
		unsigned a, b;
		uint64_t lo = UINT64_MAX;
		int k;

		if (!rows)
			return -ENOMEM;
		if (map_stack_attr(sysfs, parent, "dev", dmdev, sizeof(dmdev)) < 0 ||
		    map_stack_attr(sysfs, child, "dev", cdev, sizeof(cdev)) < 0 ||
		    sscanf(dmdev, "%u:%u", &a, &b) != 2) {
			free(rows);
			return -ENODEV;
		}
		cdev[strcspn(cdev, "\n")] = '\0';
		k = kio_dm_table(makedev(a, b), rows, DM_MAX_ROWS);
		for (int i = 0; i < k; i++) {
			char buf[1100], *t, *prev = NULL, *sv = NULL, *end;

			if (strcmp(rows[i].type, "raid") == 0) {
				/* dm-raid: a metadata leg (rmeta) is metadata as a whole; a data
				 * leg's data starts at the row's data_offset */
				int m = map_dm_raid_leg(rows[i].params, rows[i].length, cdev, &v);

				if (m == 1 && map_stack_attr_u64(sysfs, child, "size", &v) == 0)
					v *= 512;
				else if (m != 0)
					continue;
				if (v < lo)
					lo = v;
				continue;
			}
			/* every "MAJ:MIN OFFSET" pair naming child (linear, striped, crypt): the
			 * offset a number as a whole ("254:2" after a dm-raid leg is not one) */
			snprintf(buf, sizeof(buf), "%s", rows[i].params);
			for (t = strtok_r(buf, " ", &sv); t; prev = t, t = strtok_r(NULL, " ", &sv)) {
				if (!prev || strcmp(prev, cdev) || *t < '0' || *t > '9')
					continue;
				errno = 0;
				v = strtoull(t, &end, 10);
				if (!errno && !*end && v * 512 < lo)
					lo = v * 512;
			}
		}
		explicit_bzero(rows, sizeof(*rows) * DM_MAX_ROWS);
		free(rows);
		if (k < 0)
			return k;
		*start = lo == UINT64_MAX ? 0 : lo;
		return 0;
	}
	if (map_stack_attr_u64(sysfs, parent, "start", &v) == 0 &&
	    map_stack_attr(sysfs, parent, "partition", attr, sizeof(attr)) >= 0) {
		*start = v * 512;		/* a partition: the table before it on its disk */
		return 0;
	}
	return -ENOENT;
}

const char *map_stack_layer_meta(const char *kind)
{
	if (strncmp(kind, "md-", 3) == 0)
		return "md superblock and bitmap";
	if (strcmp(kind, "dm-crypt") == 0)
		return "LUKS header";
	if (strcmp(kind, "dm-linear") == 0 || strcmp(kind, "dm-striped") == 0 ||
	    strcmp(kind, "dm-raid") == 0)
		return "LVM metadata";
	return "layer metadata";
}

int map_stack_regions(const char *sysfs, const char *leaf, struct map_stack_region *out,
		      unsigned max)
{
	char cur[MAP_STACK_NAME], h[1][KIO_DISK_NAME_LEN];
	uint64_t base = 0;		/* bytes on leaf where cur's byte 0 lies */
	unsigned n = 0;

	snprintf(cur, sizeof(cur), "%s", leaf);
	while (n < max) {
		struct map_stack_up *u;
		uint64_t start;
		int linear;

		if (map_stack_list(sysfs, cur, "holders", NULL, h, 1) != 1 ||
		    map_stack_data_start(sysfs, h[0], cur, &start) < 0)
			break;
		u = malloc(sizeof(*u));
		if (!u)
			return -ENOMEM;
		/* the layer above, and where cur's first data byte lands on it */
		if (map_stack_up(sysfs, cur, start, 512, u) < 0 || u->nr_hops < 2 ||
		    u->unmappable) {
			map_stack_up_free(u);
			break;
		}
		snprintf(out[n].name, sizeof(out[n].name), "%s", u->hop[1].name);
		snprintf(out[n].kind, sizeof(out[n].kind), "%s", u->hop[1].kind);
		out[n].data_start = base + start;
		out[n].meta = map_stack_layer_meta(u->hop[1].kind);
		if (!strcmp(u->hop[1].kind, "dm-linear") || !strcmp(u->hop[1].kind, "dm-striped")) {
			/* an LV: what its PV's label says is LVM's, and whether extents (another
			 * LV's, or free) lie between that and the LV's first one */
			struct map_lvm_area pv[4];

			if (map_lvm_pv_areas(sysfs, cur, pv, 4) > 0 && pv[0].length < start)
				out[n].meta = "LVM metadata, then free extents or other LVs";
		}
		n++;
		/* follow up only while the layer keeps cur's bytes in order from its byte 0 */
		linear = u->hop[1].offset == 0 && (!strcmp(u->hop[1].kind, "md-raid1") ||
						   !strcmp(u->hop[1].kind, "dm-linear") ||
						   !strcmp(u->hop[1].kind, "dm-crypt"));
		snprintf(cur, sizeof(cur), "%s", u->hop[1].name);
		map_stack_up_free(u);
		if (!linear)
			break;
		base += start;
	}
	return (int)n;
}
