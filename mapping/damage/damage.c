/*
 * mapping/damage/damage.c - from bad ranges to what was lost: the owners GETFSMAP named, the owners
 * the owner index finds where GETFSMAP cannot (ext4, XFS without rmapbt), every path of
 * every owning inode (parent pointers, else one walk per filesystem), the health XFS keeps
 * and its online scrub verdicts, grouped into damaged files and damaged metadata.
 *
 * What differs between filesystems (which index, how inodes are named, inode tables) is asked
 * of each filesystem's ops table (fs.h).
 *
 * This file adds the ranges and runs the stages over one owner table (damage_int.h), each in
 * a file of its own: do no harm (damage_owners.c), the owner index (damage_index.c), inode
 * tables (damage_itable.c), names (damage_names.c), grouping (damage_group.c).
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

int map_damage_add_many(struct map_damage *d, struct map_target *t, uint32_t dev_idx,
			const uint64_t *off, const uint64_t *len, size_t n)
{
	size_t *first = malloc(sizeof(*first) * (n + 1)), *count = malloc(sizeof(*count) * (n + 1));
	struct map_damage_group *g;
	int ret = -ENOMEM;

	if (!first || !count)
		goto out_free;
	g = realloc(d->groups, sizeof(*g) * (d->nr_groups + n + 1));
	if (!g)
		goto out_free;
	d->groups = g;
	ret = map_owners_lookup_many(t, dev_idx, off, len, n, &d->owners, &d->nr_owners, first,
				     count);
	for (size_t i = 0; i < n; i++)
		g[d->nr_groups++] = (struct map_damage_group){
			.first = ret < 0 ? d->nr_owners : first[i], .count = ret < 0 ? 0 : count[i] };
out_free:
	free(first);
	free(count);
	return ret;
}

int map_damage_group(const struct map_damage *d, size_t g, size_t *first, size_t *count)
{
	if (g >= d->nr_groups)
		return -ENOENT;
	*first = d->groups[g].first;
	*count = d->groups[g].count;
	return 0;
}

int map_damage_resolve(struct map_damage *d, struct map_target *t)
{
	int ret;

	if (t->nr_plan_notes && !d->plan_notes) {
		d->plan_notes = malloc(sizeof(*d->plan_notes) * t->nr_plan_notes);
		if (!d->plan_notes)
			return -ENOMEM;
		memcpy(d->plan_notes, t->plan_notes, sizeof(*d->plan_notes) * t->nr_plan_notes);
		d->nr_plan_notes = t->nr_plan_notes;
		d->plan_notes_dropped = t->plan_notes_dropped;
		/* Where the kernel has online scrub: its verdict on each group read whole. */
		ret = map_health_plan_scrub(t, d);
		if (ret < 0)
			return ret;
	}
	/* Owners of an unmounted filesystem read from the raw device: say so, once. */
	for (size_t i = 0; i < d->nr_owners; i++) {
		const struct map_target *fs = map_target_fs(t, d->owners[i].fs_idx);

		if (fs && (map_target_ops(fs)->caps & MAP_FSC_RAW) &&
		    d->owners[i].kind != MAP_OWN_DEVICE) {
			d->notes |= MAP_NOTE_RAW;
			if (fs->fs_needs_recovery)
				d->notes |= MAP_NOTE_RAW_RECOVERY;
		}
	}
	ret = map_damage_mark_bad(d, t);
	if (ret < 0)
		return ret;
	ret = map_damage_index_pending(d, t);
	if (ret < 0)
		return ret;
	ret = map_damage_mark_bad(d, t);		/* owners the index found */
	if (ret < 0)
		return ret;
	ret = map_damage_itables(d, t);
	if (ret < 0)
		return ret;
	map_health_annotate(t, d->owners, d->nr_owners, &d->scrub, &d->fs_health_sick,
			    &d->fs_health_checked);
	if (d->scrub < 0)
		d->notes |= MAP_NOTE_NO_SCRUB;
	ret = map_damage_name_inodes(d, t);
	if (ret < 0)
		return ret;
	map_damage_describe_lost(d);
	ret = map_damage_group_files(d);
	if (ret < 0)
		return ret;
	return map_damage_group_meta(d);
}

int map_damage_notes(const struct map_damage *d, const char **out, unsigned max)
{
	unsigned n = 0;

	if ((d->notes & MAP_NOTE_NO_RMAPBT) && n < max)
		out[n++] = "this XFS has no reverse-mapping btree: owners were found by reading "
			   "every inode's block map; a filesystem made with `mkfs.xfs -m rmapbt=1` "
			   "maps bad blocks to owners much faster (and names btree blocks)";
	if ((d->notes & MAP_NOTE_NO_SCRUB) && n < max) {
		switch (map_scrub_why(d->scrub)) {
		case MAP_SCRUB_NORECOVERY:
			out[n++] = "the filesystem is mounted norecovery and the kernel refuses "
				   "online scrub there: no scrub verdicts; the health the kernel "
				   "keeps is reported (mount without norecovery to get them)";
			break;
		case MAP_SCRUB_SHUTDOWN:
			out[n++] = "the filesystem is shut down and the kernel refuses online "
				   "scrub: no scrub verdicts; the health the kernel keeps is reported";
			break;
		case MAP_SCRUB_NOT_PERMITTED:
			out[n++] = "online scrub (XFS_IOC_SCRUB_METADATA) needs CAP_SYS_ADMIN: no "
				   "scrub verdicts; the health the kernel keeps is reported";
			break;
		case MAP_SCRUB_PROBE_FAILED:
			out[n++] = "the online scrub probe (XFS_IOC_SCRUB_METADATA) failed: no "
				   "scrub verdicts; the health the kernel keeps is reported";
			break;
		default:
			out[n++] = "this kernel has no XFS online scrub (XFS_IOC_SCRUB_METADATA): "
				   "no scrub verdicts; the health the kernel keeps is reported";
			break;
		}
	}
	if ((d->notes & MAP_NOTE_RAW) && n < max)
		out[n++] = d->notes & MAP_NOTE_RAW_RECOVERY ?
			   "the ext4 was read unmounted from the raw device (libext2fs, read-only); "
			   "its journal needs recovery and was not replayed: names and owners are "
			   "as of the filesystem's last write to disk" :
			   "the ext4 was read unmounted from the raw device (libext2fs, read-only): "
			   "names and owners are as of the filesystem's last write to disk";
	if ((d->notes & MAP_NOTE_NO_EXT2FS) && n < max)
		out[n++] = "built without libext2fs: ext4 owners were found by a directory walk "
			   "with FIEMAP (slower; journal and orphan inodes stay unnamed)";
	if ((d->notes & MAP_NOTE_INDEX_FAILED) && n < max)
		out[n++] = d->index_err;
	if ((d->notes & MAP_NOTE_SKIPPED_INODES) && n < max)
		out[n++] = d->skipped_note;
	if ((d->notes & MAP_NOTE_LOOPED_MAP) && n < max)
		out[n++] = "the block map of some inodes loops or is cross-linked (corruption: "
			   "e2fsck -fn will tell): each was followed once and no further, so blocks "
			   "past the loop may be reported as not found";
	if ((d->notes & MAP_NOTE_UNREADABLE_META) && n < max)
		out[n++] = "some inode table blocks could not be read while looking for owners; "
			   "inodes in them may own blocks reported as not found";
	return (int)n;
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
	free(d->groups);
	free(d->plan_notes);
	free(d->plan_scrub);
	free(d->nr_plan_scrub);
	memset(d, 0, sizeof(*d));
	return 0;
}
