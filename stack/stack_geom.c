/*
 * stack/stack_geom.c - the geometry of a storage stack as one text, to tell whether it
 * changed between the plan and the reads (a grown or reshaped array, a member added or
 * replaced, an LV extended or moved, a dm table reloaded): one line per layer, from the top
 * device down: its kind and size; for md its level, raid_disks, chunk, layout, reshape
 * position and each member's slot, data offset and size; for dm every row of its live table.
 * A dm-crypt row gives only its device and offset: the key is never copied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kio.h"
#include "stack.h"

#define GEOM_DM_ROWS 64

struct geom_buf {
	char *p;
	size_t len, used;
	int full;
};

static void put(struct geom_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct geom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->used) {
		b->full = 1;
		b->p[b->used] = '\0';
		return;
	}
	b->used += (size_t)n;
}

/* dm rows of name: crypt rows by device and offset only (params: cipher key iv dev off). */
static int put_dm(struct geom_buf *b, const char *sysfs, const char *name)
{
	struct kio_dm_target *rows = malloc(sizeof(*rows) * GEOM_DM_ROWS);
	char dev[32];
	unsigned a, c;
	int k;

	if (!rows)
		return -ENOMEM;
	if (kio_blk_attr(sysfs, name, "dev", dev, sizeof(dev)) <= 0 ||
	    sscanf(dev, "%u:%u", &a, &c) != 2) {
		free(rows);
		return -ENOENT;
	}
	k = kio_dm_table(makedev(a, c), rows, GEOM_DM_ROWS);
	for (int i = 0; i < k; i++) {
		put(b, " [%" PRIu64 "+%" PRIu64 " %s ", rows[i].start, rows[i].length,
		    rows[i].type);
		if (strcmp(rows[i].type, "crypt") == 0) {
			char d[64] = "", o[32] = "";

			/* cipher key iv_offset device offset: tokens 4 and 5, never the key */
			if (sscanf(rows[i].params, "%*s %*s %*s %63s %31s", d, o) == 2)
				put(b, "%s %s", d, o);
		} else {
			put(b, "%s", rows[i].params);
		}
		put(b, "]");
	}
	explicit_bzero(rows, sizeof(*rows) * GEOM_DM_ROWS);
	free(rows);
	if (k < 0)
		put(b, " table-error %d", k);
	return 0;
}

static void put_node(struct geom_buf *b, const char *sysfs, const struct map_stack_node *n)
{
	put(b, "%s %s size=%" PRIu64, n->name, n->kind, n->size);
	if (n->is_md) {
		put(b, " raid_disks=%u chunk=%" PRIu64 " layout=%" PRIu32 " reshape=%s", n->raid_disks,
		    n->chunk_bytes, n->layout, n->reshape);
		for (unsigned i = 0; i < n->nr_below; i++) {
			char attr[MAP_STACK_NAME + 24];
			uint64_t off = 0, sz = 0;

			snprintf(attr, sizeof(attr), "md/dev-%s/offset", n->below[i].name);
			kio_blk_attr_u64(sysfs, n->name, attr, &off);
			snprintf(attr, sizeof(attr), "md/dev-%s/size", n->below[i].name);
			kio_blk_attr_u64(sysfs, n->name, attr, &sz);
			put(b, " %s@slot%d+%" PRIu64 ":%" PRIu64, n->below[i].name, n->below[i].slot,
			    off, sz);
		}
	} else if (strncmp(n->kind, "dm-", 3) == 0) {
		put_dm(b, sysfs, n->name);
	}
	put(b, "\n");
	for (unsigned i = 0; i < n->nr_below; i++)
		put_node(b, sysfs, &n->below[i]);
}

int map_stack_geometry(const char *sysfs, const char *name, char *out, size_t len)
{
	struct map_stack_node *tree = NULL;
	struct geom_buf b = { .p = out, .len = len };
	int ret;

	if (!len)
		return -EINVAL;
	out[0] = '\0';
	ret = map_stack_tree(sysfs, name, &tree);
	if (ret < 0)
		return ret;
	put_node(&b, sysfs, tree);
	map_stack_tree_free(tree);
	return b.full ? -E2BIG : 0;
}

void map_stack_geometry_diff(const char *was, const char *now, char *out, size_t len)
{
	const char *a = was, *c = now;

	/* the first line that differs, before and after */
	while (*a && *c) {
		size_t la = strcspn(a, "\n"), lc = strcspn(c, "\n");

		if (la != lc || strncmp(a, c, la)) {
			snprintf(out, len, "was \"%.*s\", now \"%.*s\"", (int)(la > 300 ? 300 : la),
				 a, (int)(lc > 300 ? 300 : lc), c);
			return;
		}
		a += la + (a[la] == '\n');
		c += lc + (c[lc] == '\n');
	}
	snprintf(out, len, "%s", *a ? "a layer went away" : *c ? "a layer was added" :
		 "unchanged");
}
