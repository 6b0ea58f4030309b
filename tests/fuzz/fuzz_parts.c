/*
 * tests/fuzz/fuzz_parts.c - partition tables: the input is a disk image (through a memfd)
 * read by mapping/parts.c with libblkid, then cut into segments. The segments must cover the
 * disk once, in order. Also map_parts_segments on a partition list taken from the input.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "fsx.h"
#include "target.h"

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
	static int fd = -1;
	char err[512];
	const uint8_t *d = data;
	size_t left = size;

	if (fd < 0) {
		fd = memfd_create("fuzz-disk", 0);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size ||
	    ftruncate(fd, (off_t)((size + 511) & ~511ull)) < 0)
		abort();
	memset(&t, 0, sizeof(t));
	t.nr_devices = 1;
	t.devices[0].role = MAP_ROLE_DISK;
	t.devices[0].fd = -1;
	snprintf(t.devices[0].path, sizeof(t.devices[0].path), "/proc/self/fd/%d", fd);
	snprintf(t.devices[0].info.name, sizeof(t.devices[0].info.name), "fuzz-no-such-disk");
	t.devices[0].info.size_bytes = (size + 511) & ~511ull;
	t.devices[0].info.logical_block_size = 512;
	if (map_parts_read(&t, err, sizeof(err)) == 0)
		check_segments(&t, t.devices[0].info.size_bytes);
	map_parts_free(&t);

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
	map_parts_free(&t);
	return 0;
}
