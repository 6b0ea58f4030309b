/*
 * mapping/damage/damage_group.c - the grouping stage: what is lost where the owner is itself a
 * damaged object, then the owners grouped into damaged files (ranges within each file) and
 * damaged metadata.
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

/* Say what is lost where the owner is itself a damaged object: a directory's
 * entries, an inode's extent map (and the contents it maps), its extended attributes. */
void map_damage_describe_lost(struct map_damage *d)
{
	for (size_t i = 0; i < d->nr_owners; i++) {
		struct map_owner *o = &d->owners[i];
		const struct map_inode_paths *ip;

		if (o->kind == MAP_OWN_FILE && (o->flags & MAP_OWNF_ATTR_FORK)) {
			snprintf(o->lost, sizeof(o->lost), "extended attributes lost");
		} else if (o->kind == MAP_OWN_FILE) {
			ip = map_damage_paths_fs(d, o->fs_idx, o->inode);
			if ((o->flags & MAP_OWNF_DIR) || (ip && ip->is_dir))
				snprintf(o->lost, sizeof(o->lost), "directory entries lost");
		} else if (o->flags & MAP_OWNF_INODE_NEAR) {
			snprintf(o->lost, sizeof(o->lost), "inode unreadable: the kernel reads it "
				 "with the bad sector (same inode block or cluster)");
		} else if (o->flags & MAP_OWNF_INODE) {
			snprintf(o->lost, sizeof(o->lost), "inode lost: the file's attributes and "
				 "block map (so its contents) are unreadable");
		} else if (o->kind == MAP_OWN_METADATA && (o->flags & MAP_OWNF_BMBT)) {
			if (o->flags & MAP_OWNF_MAP_FROM)
				snprintf(o->lost, sizeof(o->lost), "extent map lost: file contents "
					 "past offset %" PRIu64 " unreachable", o->file_offset);
			else
				snprintf(o->lost, sizeof(o->lost), "extent map lost: part of the "
					 "file's contents unreachable");
		}
	}
}

/* ---- grouping ---- */

static int cmp_file_owner(const void *a, const void *b)
{
	const struct map_owner *x = *(const struct map_owner *const *)a;
	const struct map_owner *y = *(const struct map_owner *const *)b;
	int xa = !!(x->flags & MAP_OWNF_ATTR_FORK), ya = !!(y->flags & MAP_OWNF_ATTR_FORK);

	if (x->fs_idx != y->fs_idx)
		return x->fs_idx < y->fs_idx ? -1 : 1;
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

/*
 * A file lost with its own metadata: its inode in a damaged inode block (exactly in the bad
 * bytes), or a block of its block map (extent tree, indirect block, bmbt). Its contents are
 * unreachable even though no data block is bad: it belongs in the restore list.
 */
static int lost_with_metadata(const struct map_owner *o)
{
	if (!o->inode || o->kind == MAP_OWN_FILE || o->kind == MAP_OWN_LOG)
		return 0;
	if ((o->flags & MAP_OWNF_INODE) && !(o->flags & MAP_OWNF_INODE_NEAR))
		return 1;
	return (o->flags & MAP_OWNF_BMBT) && o->kind == MAP_OWN_METADATA && o->meta_type &&
	       strcmp(o->meta_type, "inode") != 0 && o->lost[0];
}

int map_damage_group_files(struct map_damage *d)
{
	const struct map_owner **fo = malloc(sizeof(*fo) * (d->nr_owners + 1));
	size_t n = 0;

	if (!fo)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++)
		if (d->owners[i].kind == MAP_OWN_FILE || lost_with_metadata(&d->owners[i]))
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

		if (!f || f->inode != o->inode || f->fs_idx != o->fs_idx) {
			f = &d->files[d->nr_files++];
			f->inode = o->inode;
			f->fs_idx = o->fs_idx;
			f->part = o->part;
			f->paths = map_damage_paths_fs(d, o->fs_idx, o->inode);
			f->gen = f->paths && f->paths->gen ? f->paths->gen : o->gen;
			f->first = o;
		}
		if (o->kind != MAP_OWN_FILE) {		/* its inode or block map */
			f->lost = 1;
			if (!f->what_lost)
				f->what_lost = o->lost;
			continue;
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

int map_damage_group_meta(struct map_damage *d)
{
	size_t n = 0, w = 0;

	d->meta = calloc(d->nr_owners + 1, sizeof(*d->meta));
	if (!d->meta)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_owner *o = &d->owners[i];

		if (o->kind != MAP_OWN_METADATA && o->kind != MAP_OWN_LOG)
			continue;
		if (o->flags & MAP_OWNF_INODE)
			continue;	/* listed under the inode table entry's error */
		d->meta[n++] = (struct map_damage_meta){
			.type = o->meta_type, .dev_idx = o->dev_idx, .offset = o->dev_offset,
			.length = o->length, .ag = o->ag, .inode = o->inode,
			.fs_idx = o->fs_idx, .part = o->part, .fs_offset = o->fs_offset,
			.first = o,
		};
	}
	qsort(d->meta, n, sizeof(*d->meta), cmp_meta);
	for (size_t i = 0; i < n; i++) {
		struct map_damage_meta *prev = w ? &d->meta[w - 1] : NULL;

		if (prev && strcmp(prev->type, d->meta[i].type) == 0 &&
		    prev->dev_idx == d->meta[i].dev_idx && prev->inode == d->meta[i].inode &&
		    prev->fs_idx == d->meta[i].fs_idx &&
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
