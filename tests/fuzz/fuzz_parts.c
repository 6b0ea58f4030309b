/*
 * tests/fuzz/fuzz_parts.c - partition tables: the input is a disk image handed to the parser
 * of mapping/target/parts.c through a reader over the bytes (a disk of the input's size, in 512- and
 * 4096-byte blocks), then cut into segments. Every partition must lie in the disk as parsed,
 * the segments must cover the disk once, in order. Also map_parts_segments on a partition
 * list taken from the input.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "parts.h"
#include "target.h"

struct image {
	const uint8_t *data;
	size_t size;
};

/* Reads past the input are I/O errors, as a bad sector would be. */
static int image_read(void *arg, uint64_t off, void *buf, size_t len)
{
	const struct image *im = arg;

	if (off > im->size || len > im->size - off)
		return -EIO;
	memcpy(buf, im->data + off, len);
	return 0;
}

/* The segments cover [0, size) in order, without gaps or overlaps. */
static void check_segments(const struct map_target *t, uint64_t size)
{
	uint64_t pos = 0;

	for (unsigned i = 0; i < t->nr_segs; i++) {
		if (t->segs[i].start != pos || !t->segs[i].length ||
		    t->segs[i].start + t->segs[i].length < t->segs[i].start)
			abort();
		pos += t->segs[i].length;
	}
	if (t->nr_segs && pos != size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct map_target t;
	struct image im = { .data = data, .size = size };
	const uint8_t *d = data;
	size_t left = size;

	for (uint32_t lbs = 512; lbs <= 4096; lbs *= 8) {
		uint64_t disk = size & ~(uint64_t)(lbs - 1);

		memset(&t, 0, sizeof(t));
		if (map_parts_parse(image_read, &im, disk, lbs, &t.parts, &t.nr_parts, t.pt_type,
				    sizeof(t.pt_type)) == 0) {
			for (unsigned i = 0; i < t.nr_parts; i++)
				if (t.parts[i].start + t.parts[i].size < t.parts[i].start)
					abort();
			if (map_parts_segments(&t, disk, lbs) == 0)
				check_segments(&t, disk);
		}
		free(t.parts);
		free(t.segs);
	}

	/* the same bytes as a partition list: start, size (bytes) pairs on a disk */
	memset(&t, 0, sizeof(t));
	uint64_t disk = fuzz_u64(&d, &left) >> 8;
	unsigned n = 0;

	t.parts = calloc(64, sizeof(*t.parts));
	if (!t.parts)
		abort();
	snprintf(t.pt_type, sizeof(t.pt_type), "%s", size & 1 ? "gpt" : "dos");
	while (left >= 16 && n < 64) {
		t.parts[n].start = fuzz_u64(&d, &left);
		t.parts[n].size = fuzz_u64(&d, &left);
		n++;
	}
	t.nr_parts = n;
	if (map_parts_segments(&t, disk, size & 2 ? 4096 : 512) == 0)
		check_segments(&t, disk);
	free(t.parts);
	free(t.segs);
	return 0;
}
