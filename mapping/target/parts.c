/*
 * mapping/target/parts.c - partition tables parsed from a disk's bytes, which a reader callback
 * hands over (no I/O here: fs_disk.c reads the disk, the fuzzer a buffer): a GPT (primary
 * header, else the backup at the last block; header and entry CRCs checked) or an MBR with
 * its chain of extended boot records; and the disk cut into segments in disk order: partition
 * table, gaps, partitions read whole, partitions planned through their filesystem. Partition
 * numbers, type strings, names and UUIDs are those libblkid gives.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"

#define PARTS_MAX 256
#define GPT_ENTRIES_BYTES (128 * 128)	/* the usual GPT entry array: 128 entries of 128 bytes */
#define GPT_MAX_ENTRIES_BYTES (1u << 20) /* more than any real table: refused */
#define EBR_MAX 128			/* logical partitions followed at most */

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

/* ---- the parser ---- */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* CRC-32 (IEEE 802.3, reflected, as GPT uses it). */
static uint32_t crc32_gpt(const unsigned char *p, size_t len)
{
	uint32_t c = 0xffffffffu;

	while (len--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

/* A GUID as libblkid writes it: the first three fields little-endian, lower case. */
static void guid_str(const unsigned char *g, char *out, size_t len)
{
	snprintf(out, len, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", le32(g),
		 (unsigned)(g[4] | g[5] << 8), (unsigned)(g[6] | g[7] << 8), g[8], g[9], g[10],
		 g[11], g[12], g[13], g[14], g[15]);
}

/* A GPT name (UTF-16LE, up to 36 units, NUL-ended) as UTF-8, as libblkid converts it. */
static void utf16_name(const unsigned char *u, size_t units, char *out, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < units; i++) {
		unsigned c = (unsigned)(u[2 * i] | u[2 * i + 1] << 8);
		unsigned char b[3];
		size_t k;

		if (!c)
			break;
		if (c < 0x80) {
			b[0] = (unsigned char)c;
			k = 1;
		} else if (c < 0x800) {
			b[0] = (unsigned char)(0xc0 | c >> 6);
			b[1] = (unsigned char)(0x80 | (c & 0x3f));
			k = 2;
		} else {
			b[0] = (unsigned char)(0xe0 | c >> 12);
			b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c & 0x3f));
			k = 3;
		}
		if (n + k >= len)
			break;
		memcpy(out + n, b, k);
		n += k;
	}
	out[n] = '\0';
}

struct pt {
	map_parts_read_fn rd;
	void *arg;
	uint64_t disk_bytes;
	uint32_t lbs;
	struct map_part *v;
	unsigned nr;
};

static struct map_part *pt_add(struct pt *pt)
{
	struct map_part *n;

	if (pt->nr >= PARTS_MAX)
		return NULL;
	n = realloc(pt->v, sizeof(*n) * (pt->nr + 1));
	if (!n)
		return NULL;
	pt->v = n;
	memset(&n[pt->nr], 0, sizeof(*n));
	return &n[pt->nr++];
}

/* Return 0 after reading a GPT header at block lba and its entries, -EUCLEAN when they are
 * not a valid GPT, -errno when they cannot be read. */
static int gpt_read(struct pt *pt, uint64_t lba)
{
	unsigned char *h, *e = NULL;
	uint32_t hsize, nent, esize, crc;
	uint64_t first, last, ent_lba, bytes;
	int ret;

	h = malloc(pt->lbs);
	if (!h)
		return -ENOMEM;
	ret = pt->rd(pt->arg, lba * pt->lbs, h, pt->lbs);
	if (ret < 0)
		goto out_free;
	ret = -EUCLEAN;
	hsize = le32(h + 12);
	if (memcmp(h, "EFI PART", 8) || hsize < 92 || hsize > pt->lbs || le64(h + 24) != lba)
		goto out_free;
	crc = le32(h + 16);
	memset(h + 16, 0, 4);
	if (crc32_gpt(h, hsize) != crc)
		goto out_free;
	first = le64(h + 40);
	last = le64(h + 48);
	ent_lba = le64(h + 72);
	nent = le32(h + 80);
	esize = le32(h + 84);
	bytes = (uint64_t)nent * esize;
	if (esize < 128 || esize % 8 || !nent || bytes > GPT_MAX_ENTRIES_BYTES || first > last ||
	    ent_lba > pt->disk_bytes / pt->lbs || bytes > pt->disk_bytes - ent_lba * pt->lbs)
		goto out_free;
	e = malloc(bytes);
	if (!e) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = pt->rd(pt->arg, ent_lba * pt->lbs, e, bytes);
	if (ret < 0)
		goto out_free;
	ret = -EUCLEAN;
	if (crc32_gpt(e, bytes) != le32(h + 88))
		goto out_free;
	ret = 0;
	for (uint32_t i = 0; i < nent; i++) {
		const unsigned char *r = e + (size_t)i * esize;
		uint64_t s = le64(r + 32), l = le64(r + 40);
		static const unsigned char zero[16];
		struct map_part *p;

		/* unused, or outside the usable blocks: skipped, its number kept (libblkid) */
		if (!memcmp(r, zero, 16) || s < first || l > last || l < s)
			continue;
		p = pt_add(pt);
		if (!p) {
			ret = pt->nr >= PARTS_MAX ? 0 : -ENOMEM;
			break;
		}
		p->number = i + 1;
		p->start = s * pt->lbs;
		p->size = (l - s + 1) * pt->lbs;
		guid_str(r, p->type, sizeof(p->type));
		guid_str(r + 16, p->uuid, sizeof(p->uuid));
		utf16_name(r + 56, 36, p->name, sizeof(p->name));
	}
out_free:
	free(e);
	free(h);
	return ret;
}

/* Return 1 for an MBR type that holds extended boot records. */
static int mbr_extended(unsigned type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

/* Add one MBR entry e (4 x 16 bytes at 446) relative to base (blocks) as partition number. */
static int mbr_add(struct pt *pt, const unsigned char *e, uint64_t base, unsigned number)
{
	struct map_part *p = pt_add(pt);

	if (!p)
		return pt->nr >= PARTS_MAX ? 0 : -ENOMEM;
	p->number = number;
	p->start = (base + le32(e + 8)) * pt->lbs;
	p->size = (uint64_t)le32(e + 12) * pt->lbs;
	snprintf(p->type, sizeof(p->type), "0x%x", e[4]);
	return 0;
}

/* The logical partitions of the extended partition at block ext: a chain of EBRs, bounded. */
static int ebr_chain(struct pt *pt, uint64_t ext, uint64_t ext_blocks)
{
	const unsigned char *e0, *e1;
	unsigned char b[512];
	uint64_t cur = ext;
	unsigned number = 5;

	for (unsigned k = 0; k < EBR_MAX; k++) {
		int ret;

		if (cur >= pt->disk_bytes / pt->lbs)
			return 0;
		ret = pt->rd(pt->arg, cur * pt->lbs, b, sizeof(b));
		if (ret < 0)
			return ret;
		if (b[510] != 0x55 || b[511] != 0xaa)
			return 0;
		e0 = b + 446;
		e1 = b + 462;
		if (e0[4] && le32(e0 + 12) && !mbr_extended(e0[4])) {
			ret = mbr_add(pt, e0, cur, number++);
			if (ret < 0)
				return ret;
		}
		if (!mbr_extended(e1[4]) || !le32(e1 + 8) || le32(e1 + 8) >= ext_blocks)
			return 0;
		cur = ext + le32(e1 + 8);	/* relative to the extended partition */
	}
	return 0;
}

int map_parts_parse(map_parts_read_fn rd, void *arg, uint64_t disk_bytes, uint32_t lbs,
		    struct map_part **parts, unsigned *nr, char *pt_type, size_t type_len)
{
	struct pt pt = { .rd = rd, .arg = arg, .disk_bytes = disk_bytes, .lbs = lbs ? lbs : 512 };
	unsigned char *b;
	int ret, gpt = 0, used = 0;

	*parts = NULL;
	*nr = 0;
	if (pt.lbs < 512 || pt.lbs > 65536 || pt.lbs & (pt.lbs - 1) || disk_bytes < 2ull * pt.lbs)
		return -ENOENT;
	b = malloc(pt.lbs > 512 ? pt.lbs : 512);
	if (!b)
		return -ENOMEM;
	ret = rd(arg, 0, b, 512);
	if (ret < 0)
		goto out_free;
	ret = -ENOENT;
	if (b[510] != 0x55 || b[511] != 0xaa || !memcmp(b + 3, "NTFS    ", 8) ||
	    !memcmp(b + 0x36, "FAT", 3) || !memcmp(b + 0x52, "FAT32", 5))
		goto out_free;
	for (int i = 0; i < 4; i++) {
		const unsigned char *e = b + 446 + 16 * i;

		if (e[0] != 0 && e[0] != 0x80)
			goto out_free;		/* boot indicator: not a partition table */
		gpt |= e[4] == 0xee;
		used += e[4] && le32(e + 12);
	}
	if (gpt) {
		/* protective MBR: the primary GPT, else the backup at the last block */
		ret = gpt_read(&pt, 1);
		if (ret == -EUCLEAN || (ret < 0 && ret != -ENOMEM)) {
			free(pt.v);
			pt.v = NULL;
			pt.nr = 0;
			ret = gpt_read(&pt, disk_bytes / pt.lbs - 1);
		}
		if (ret == 0)
			snprintf(pt_type, type_len, "gpt");
		goto out_result;
	}
	if (!used)
		goto out_free;
	ret = 0;
	for (int i = 0; i < 4 && ret == 0; i++) {	/* primaries first, as libblkid */
		const unsigned char *e = b + 446 + 16 * i;

		if (e[4] && le32(e + 12) && !mbr_extended(e[4]))
			ret = mbr_add(&pt, e, 0, (unsigned)i + 1);
	}
	for (int i = 0; i < 4 && ret == 0; i++) {
		const unsigned char *e = b + 446 + 16 * i;

		if (e[4] && le32(e + 12) && mbr_extended(e[4]))
			ret = ebr_chain(&pt, le32(e + 8), le32(e + 12));
	}
	if (ret == 0)
		snprintf(pt_type, type_len, "dos");
out_result:
	if (ret == 0 && pt.nr == 0)
		ret = -ENOENT;
	if (ret < 0) {
		free(pt.v);
		pt.v = NULL;
		pt.nr = 0;
	}
	*parts = pt.v;
	*nr = pt.nr;
out_free:
	free(b);
	return ret;
}
