/*
 * mapping/damage/damage_names.c - the naming stage: every owning inode to all its paths (parent
 * pointers, else one walk per filesystem), and the lookups of those paths.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "fs.h"
#include "health.h"

#include "damage_int.h"

/* ---- inodes to paths ---- */

static int cmp_inode_fs(const void *a, const void *b)
{
	const struct map_inode_paths *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->fs_idx < y->fs_idx ? -1 : x->fs_idx > y->fs_idx;
}

const struct map_inode_paths *map_damage_paths_fs(const struct map_damage *d, uint32_t fs_idx,
						  uint64_t inode)
{
	size_t lo = 0, hi = d->nr_inodes;

	while (lo < hi) {			/* lower bound of inode */
		size_t mid = (lo + hi) / 2;

		if (d->inodes[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->nr_inodes && d->inodes[lo].inode == inode; lo++)
		if (d->inodes[lo].fs_idx == fs_idx)
			return &d->inodes[lo];
	return NULL;
}

const struct map_inode_paths *map_damage_paths(const struct map_damage *d, uint64_t inode)
{
	size_t lo = 0, hi = d->nr_inodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->inodes[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_inodes && d->inodes[lo].inode == inode ? &d->inodes[lo] : NULL;
}

struct want_key {
	uint32_t fs_idx;
	uint64_t inode;
	uint32_t gen;
	int unlinked;
};

static int cmp_want_key(const void *a, const void *b)
{
	const struct want_key *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->fs_idx < y->fs_idx ? -1 : x->fs_idx > y->fs_idx;
}

/* Name the inodes of one filesystem, its own way (parent pointers), else by one walk. */
static int name_fs(struct map_damage *d, struct map_target *fs, uint32_t fs_idx)
{
	struct map_inode_paths *sub;
	size_t n = 0, k = 0;
	int ret;

	for (size_t i = 0; i < d->nr_inodes; i++)
		n += d->inodes[i].fs_idx == fs_idx;
	if (!n || (!fs->mount_point[0] && !(map_target_ops(fs)->caps & MAP_FSC_RAW)))
		return 0;
	sub = malloc(sizeof(*sub) * n);
	if (!sub)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_inodes; i++)
		if (d->inodes[i].fs_idx == fs_idx)
			sub[k++] = d->inodes[i];
	ret = map_target_ops(fs)->name_inodes ? map_target_ops(fs)->name_inodes(fs, sub, n, d) :
	      map_fs_name_walk(fs, sub, n, d);
	if (ret < 0) {
		map_paths_free(sub, n);
		free(sub);
		return ret;
	}
	/* Put them back (same inode order: both sorted by inode). */
	qsort(sub, n, sizeof(*sub), cmp_inode_fs);
	k = 0;
	for (size_t i = 0; i < d->nr_inodes && k < n; i++)
		if (d->inodes[i].fs_idx == fs_idx)
			d->inodes[i] = sub[k++];
	free(sub);
	return 0;
}

/* Collect unique (filesystem, inode) of file owners (and bmbt owners) and name them. */
int map_damage_name_inodes(struct map_damage *d, struct map_target *t)
{
	struct want_key *ids = malloc(sizeof(*ids) * (d->nr_owners + 1));
	size_t n = 0;
	int ret = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];

		if (o->kind == MAP_OWN_FILE || (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE)))
			ids[n++] = (struct want_key){ o->fs_idx, o->inode, o->gen,
						      !!(o->flags & MAP_OWNF_UNLINKED) };
	}
	qsort(ids, n, sizeof(*ids), cmp_want_key);
	d->inodes = calloc(n + 1, sizeof(*d->inodes));
	if (!d->inodes) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct map_inode_paths *p;

		if (i && ids[i].inode == ids[i - 1].inode && ids[i].fs_idx == ids[i - 1].fs_idx)
			continue;
		p = &d->inodes[d->nr_inodes++];
		p->inode = ids[i].inode;
		p->fs_idx = ids[i].fs_idx;
		p->gen = ids[i].gen;
		p->unlinked = ids[i].unlinked;
	}
	free(ids);
	for (size_t i = 0; i < d->nr_inodes && ret == 0; i++) {
		struct map_target *fs;
		size_t j;

		for (j = 0; j < i; j++)		/* each filesystem once */
			if (d->inodes[j].fs_idx == d->inodes[i].fs_idx)
				break;
		if (j < i)
			continue;
		fs = map_target_fs(t, d->inodes[i].fs_idx);
		if (fs)
			ret = name_fs(d, fs, d->inodes[i].fs_idx);
	}
	return ret;
}
