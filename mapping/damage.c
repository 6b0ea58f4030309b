/*
 * mapping/damage.c - group the owners of bad ranges into damaged files and metadata.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"

int map_damage_add(struct map_damage *d, struct map_target *t, uint32_t dev_idx,
		   uint64_t offset, uint64_t length, size_t *first, size_t *count)
{
	size_t before = d->nr_owners;
	int ret = map_owners_lookup(t, dev_idx, offset, length, &d->owners, &d->nr_owners);

	*first = before;
	*count = d->nr_owners - before;
	return ret < 0 ? ret : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_file_owner(const void *a, const void *b)
{
	const struct map_owner *x = *(const struct map_owner *const *)a;
	const struct map_owner *y = *(const struct map_owner *const *)b;
	int xa = !!(x->flags & MAP_OWNF_ATTR_FORK), ya = !!(y->flags & MAP_OWNF_ATTR_FORK);

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	if (xa != ya)
		return xa - ya;
	return x->file_offset < y->file_offset ? -1 : x->file_offset > y->file_offset;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct map_damage_meta *x = a, *y = b;
	int c = strcmp(x->type, y->type);

	if (c)
		return c;
	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

const struct map_inode_paths *map_damage_paths(const struct map_damage *d, uint64_t inode)
{
	size_t lo = 0, hi = d->nr_inodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->inodes[mid].inode == inode)
			return &d->inodes[mid];
		if (d->inodes[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Collect unique inode numbers of file owners (and bmbt owners) and walk once. */
static int resolve_inodes(struct map_damage *d, struct map_target *t)
{
	uint64_t *ids = malloc(sizeof(*ids) * (d->nr_owners + 1));
	size_t n = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++)
		if (d->owners[i].kind == MAP_OWN_FILE || (d->owners[i].flags & MAP_OWNF_BMBT))
			ids[n++] = d->owners[i].inode;
	qsort(ids, n, sizeof(*ids), cmp_u64);
	d->inodes = calloc(n + 1, sizeof(*d->inodes));
	if (!d->inodes) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			d->inodes[d->nr_inodes++].inode = ids[i];
	free(ids);
	if (d->nr_inodes && t->mount_point[0])
		d->paths_err = map_paths_resolve(t->mount_point, d->inodes, d->nr_inodes,
						  &d->unreadable_dirs);
	return 0;
}

static int group_files(struct map_damage *d)
{
	const struct map_owner **fo = malloc(sizeof(*fo) * (d->nr_owners + 1));
	size_t n = 0;

	if (!fo)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++)
		if (d->owners[i].kind == MAP_OWN_FILE)
			fo[n++] = &d->owners[i];
	qsort(fo, n, sizeof(*fo), cmp_file_owner);
	d->files = calloc(d->nr_inodes + 1, sizeof(*d->files));
	if (!d->files) {
		free(fo);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct map_owner *o = fo[i];
		struct map_damage_file *f = d->nr_files ? &d->files[d->nr_files - 1] : NULL;
		struct map_file_range *last, *nr;
		int attr = !!(o->flags & MAP_OWNF_ATTR_FORK);
		int lost = !(o->flags & MAP_OWNF_UNWRITTEN);

		if (!f || f->inode != o->inode) {
			f = &d->files[d->nr_files++];
			f->inode = o->inode;
			f->paths = map_damage_paths(d, o->inode);
		}
		if (o->flags & MAP_OWNF_SHARED)
			f->shared = 1;
		f->lost |= lost;
		last = f->nr_ranges ? &f->ranges[f->nr_ranges - 1] : NULL;
		if (last && last->attr_fork == attr && last->lost == lost &&
		    last->offset + last->length >= o->file_offset) {
			uint64_t end = o->file_offset + o->length;

			if (end > last->offset + last->length)
				last->length = end - last->offset;
			continue;
		}
		nr = realloc(f->ranges, sizeof(*nr) * (f->nr_ranges + 1));
		if (!nr) {
			free(fo);
			return -ENOMEM;
		}
		f->ranges = nr;
		f->ranges[f->nr_ranges++] = (struct map_file_range){
			.offset = o->file_offset, .length = o->length,
			.attr_fork = attr, .lost = lost,
		};
	}
	free(fo);
	return 0;
}

static int group_meta(struct map_damage *d)
{
	size_t n = 0, w = 0;

	d->meta = calloc(d->nr_owners + 1, sizeof(*d->meta));
	if (!d->meta)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];

		if (o->kind != MAP_OWN_METADATA && o->kind != MAP_OWN_LOG)
			continue;
		d->meta[n++] = (struct map_damage_meta){
			.type = o->meta_type, .dev_idx = o->dev_idx, .offset = o->dev_offset,
			.length = o->length, .ag = o->ag, .inode = o->inode,
		};
	}
	qsort(d->meta, n, sizeof(*d->meta), cmp_meta);
	for (size_t i = 0; i < n; i++) {
		struct map_damage_meta *prev = w ? &d->meta[w - 1] : NULL;

		if (prev && strcmp(prev->type, d->meta[i].type) == 0 &&
		    prev->dev_idx == d->meta[i].dev_idx && prev->inode == d->meta[i].inode &&
		    prev->ag == d->meta[i].ag && prev->offset + prev->length >= d->meta[i].offset) {
			uint64_t end = d->meta[i].offset + d->meta[i].length;

			if (end > prev->offset + prev->length)
				prev->length = end - prev->offset;
			continue;
		}
		d->meta[w++] = d->meta[i];
	}
	d->nr_meta = w;
	return 0;
}

int map_damage_resolve(struct map_damage *d, struct map_target *t)
{
	int ret = resolve_inodes(d, t);

	if (ret < 0)
		return ret;
	ret = group_files(d);
	if (ret < 0)
		return ret;
	return group_meta(d);
}

int map_damage_free(struct map_damage *d)
{
	for (size_t i = 0; i < d->nr_files; i++)
		free(d->files[i].ranges);
	map_paths_free(d->inodes, d->nr_inodes);
	free(d->inodes);
	free(d->files);
	free(d->meta);
	free(d->owners);
	memset(d, 0, sizeof(*d));
	return 0;
}
