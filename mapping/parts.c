/*
 * mapping/parts.c - a partitioned disk: the partition table read with libblkid (the kernel
 * may have no partition parsers), each partition matched to the kernel's partition device
 * and to the XFS or ext4 mounted on it, and the disk cut into segments in disk order:
 * partition table, gaps, partitions read whole, partitions planned through their filesystem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#if HAVE_BLKID
#include <blkid.h>
#endif

#include "fsx.h"

#define PARTS_MAX 256
#define GPT_ENTRIES_BYTES (128 * 128)	/* the usual GPT entry array: 128 entries of 128 bytes */

static int cmp_part_start(const void *a, const void *b)
{
	const struct map_part *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Append a segment, merging it into the previous one of the same kind (not partitions). */
static int seg_push(struct map_seg **v, unsigned *nr, enum map_seg_kind kind, uint64_t start,
		    uint64_t end, int part)
{
	struct map_seg *n;

	if (end <= start)
		return 0;
	if (*nr && part < 0 && (*v)[*nr - 1].kind == kind && (*v)[*nr - 1].part < 0 &&
	    (*v)[*nr - 1].start + (*v)[*nr - 1].length == start) {
		(*v)[*nr - 1].length += end - start;
		return 0;
	}
	n = realloc(*v, sizeof(*n) * (*nr + 1));
	if (!n)
		return -ENOMEM;
	*v = n;
	n[*nr] = (struct map_seg){ .kind = kind, .start = start, .length = end - start,
				   .part = part };
	(*nr)++;
	return 0;
}

/* Add [start, end) not covered by a partition: table where the table lives, else gap. */
static int add_outside(struct map_target *t, uint64_t start, uint64_t end, uint64_t disk_size,
		       uint32_t lbs)
{
	uint64_t head = 0, tail = disk_size;
	int ret;

	if (strcmp(t->pt_type, "gpt") == 0) {
		head = 2ull * lbs + GPT_ENTRIES_BYTES;	/* protective MBR, header, entries */
		tail = disk_size >= lbs + GPT_ENTRIES_BYTES ? disk_size - lbs - GPT_ENTRIES_BYTES : 0;
	} else {
		head = lbs;				/* MBR */
	}
	if (start < head) {
		ret = seg_push(&t->segs, &t->nr_segs, MAP_SEG_TABLE, start, end < head ? end : head,
			       -1);
		if (ret < 0)
			return ret;
		start = head;
	}
	if (start >= end)
		return 0;
	if (end > tail && tail > 0) {
		uint64_t mid = start > tail ? start : tail;

		ret = seg_push(&t->segs, &t->nr_segs, MAP_SEG_GAP, start, mid, -1);
		if (ret < 0)
			return ret;
		return seg_push(&t->segs, &t->nr_segs, MAP_SEG_TABLE, mid, end, -1);
	}
	return seg_push(&t->segs, &t->nr_segs, MAP_SEG_GAP, start, end, -1);
}

int map_parts_segments(struct map_target *t, uint64_t disk_size, uint32_t lbs)
{
	uint64_t pos = 0;
	int ret;

	free(t->segs);
	t->segs = NULL;
	t->nr_segs = 0;
	if (t->nr_parts)
		qsort(t->parts, t->nr_parts, sizeof(*t->parts), cmp_part_start);
	for (unsigned i = 0; i < t->nr_parts; i++) {
		const struct map_part *p = &t->parts[i];
		uint64_t start = p->start, end = p->start + p->size;

		if (end > disk_size)
			end = disk_size;
		if (start < pos)		/* overlapping entries: keep the first */
			start = pos;
		if (end <= start)
			continue;
		ret = add_outside(t, pos, start, disk_size, lbs);
		if (ret < 0)
			return ret;
		ret = seg_push(&t->segs, &t->nr_segs, p->fs ? MAP_SEG_FS : MAP_SEG_PART, start, end,
			       (int)i);
		if (ret < 0)
			return ret;
		pos = end;
	}
	return add_outside(t, pos, disk_size, disk_size, lbs);
}

#if HAVE_BLKID
/* Open the mounted XFS/ext4 of partition p, if any; never fatal. */
static void part_attach_fs(struct map_part *p, dev_t devt)
{
	struct kio_mount *m = malloc(sizeof(*m));
	struct map_target *fs;
	char err[512];
	int cls;

	if (!m)
		return;
	if (kio_mount_find_dev(devt, m) == 0) {
		snprintf(p->fs_type, sizeof(p->fs_type), "%.31s", m->fs_type);
		snprintf(p->mount_point, sizeof(p->mount_point), "%.255s", m->mount_point);
		fs = calloc(1, sizeof(*fs));
		if (fs && map_target_open(m->mount_point, fs, err, sizeof(err), &cls) == 0 &&
		    fs->nr_devices > 0 && fs->devices[0].info.devt == devt)
			p->fs = fs;
		else if (fs) {
			map_target_close(fs);
			free(fs);
		}
	}
	free(m);
}

/*
 * The partition table cannot be read (it may be the damaged part), but the kernel parsed it
 * when the disk appeared (or partx added them): plan the partitions the kernel lists, so the
 * filesystems on them still map errors to files. Return 0, -ENOENT when the kernel lists none.
 */
static int parts_from_kernel(struct map_target *t)
{
	struct map_device *d = &t->devices[0];
	struct kio_part kparts[PARTS_MAX];
	int nk = kio_partitions(d->info.name, kparts, PARTS_MAX);

	if (nk <= 0)
		return -ENOENT;
	t->parts = calloc((size_t)nk, sizeof(*t->parts));
	if (!t->parts)
		return -ENOMEM;
	snprintf(t->pt_type, sizeof(t->pt_type), "kernel");
	for (int k = 0; k < nk; k++) {
		struct map_part *p = &t->parts[t->nr_parts++];

		p->number = kparts[k].number;
		p->start = kparts[k].start_bytes;
		p->size = kparts[k].size_bytes;
		snprintf(p->type, sizeof(p->type), "unknown: the table could not be read");
		if (kio_devpath_from_devt(kparts[k].devt, p->devpath, sizeof(p->devpath)) < 0)
			snprintf(p->devpath, sizeof(p->devpath), "/dev/%s", kparts[k].name);
		part_attach_fs(p, kparts[k].devt);
	}
	return map_parts_segments(t, d->info.size_bytes, d->info.logical_block_size ?
				  d->info.logical_block_size : 512);
}

int map_parts_read(struct map_target *t, char *err, size_t errlen)
{
	struct map_device *d = &t->devices[0];
	struct kio_part kparts[PARTS_MAX];
	blkid_partlist ls;
	blkid_parttable tab;
	blkid_probe pr;
	int n, nk, ret = 0;

	pr = blkid_new_probe_from_filename(d->path);
	if (!pr) {
		snprintf(err, errlen, "cannot read the partition table of %s", d->path);
		return -errno ? -errno : -EIO;
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	ls = blkid_probe_get_partitions(pr);
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	tab = ls ? blkid_partlist_get_table(ls) : NULL;
	if (!ls || n <= 0 || !tab) {
		blkid_free_probe(pr);
		/* No table readable (a bad sector under it?): what the kernel knows, if anything. */
		return parts_from_kernel(t);
	}
	snprintf(t->pt_type, sizeof(t->pt_type), "%s", blkid_parttable_get_type(tab));
	t->parts = calloc((size_t)n, sizeof(*t->parts));
	if (!t->parts) {
		ret = -ENOMEM;
		goto out_probe;
	}
	nk = kio_partitions(d->info.name, kparts, PARTS_MAX);
	if (nk < 0)
		nk = 0;
	for (int i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		struct map_part *p = &t->parts[t->nr_parts];
		const char *s;

		if (!par || blkid_partition_is_extended(par))
			continue;		/* the container of logical partitions */
		p->number = (unsigned)blkid_partition_get_partno(par);
		p->start = (uint64_t)blkid_partition_get_start(par) * 512;
		p->size = (uint64_t)blkid_partition_get_size(par) * 512;
		if ((s = blkid_partition_get_type_string(par)))
			snprintf(p->type, sizeof(p->type), "%s", s);
		else
			snprintf(p->type, sizeof(p->type), "0x%x", blkid_partition_get_type(par));
		if ((s = blkid_partition_get_name(par)))
			snprintf(p->name, sizeof(p->name), "%s", s);
		if ((s = blkid_partition_get_uuid(par)))
			snprintf(p->uuid, sizeof(p->uuid), "%s", s);
		for (int k = 0; k < nk; k++) {
			if (kparts[k].start_bytes != p->start)
				continue;
			if (kio_devpath_from_devt(kparts[k].devt, p->devpath, sizeof(p->devpath)) < 0)
				snprintf(p->devpath, sizeof(p->devpath), "/dev/%s", kparts[k].name);
			part_attach_fs(p, kparts[k].devt);
			break;
		}
		t->nr_parts++;
	}
	ret = map_parts_segments(t, d->info.size_bytes, d->info.logical_block_size ?
				 d->info.logical_block_size : 512);
out_probe:
	blkid_free_probe(pr);
	if (ret < 0)
		snprintf(err, errlen, "cannot read the partition table of %s: %s", d->path,
			 strerror(-ret));
	return ret;
}
#else
int map_parts_read(struct map_target *t, char *err, size_t errlen)
{
	(void)t;
	(void)err;
	(void)errlen;
	return -EOPNOTSUPP;			/* built without libblkid: read disks whole */
}
#endif

int map_parts_free(struct map_target *t)
{
	for (unsigned i = 0; i < t->nr_parts; i++) {
		if (t->parts[i].fs) {
			map_target_close(t->parts[i].fs);
			free(t->parts[i].fs);
		}
	}
	free(t->parts);
	free(t->segs);
	t->parts = NULL;
	t->segs = NULL;
	t->nr_parts = t->nr_segs = 0;
	return 0;
}
