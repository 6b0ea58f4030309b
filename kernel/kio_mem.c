/*
 * kernel/kio_mem.c - I/O buffers backed by huge pages when the kernel gives them.
 *
 * A registered (or pinned) buffer of 4 KiB pages reaches the block layer as one segment per
 * page, and a device's segment limit (queue/max_segments: loop 128, NVMe 127-128) then splits
 * every 1 MiB read in two; one huge page is one segment, so each read stays one request.
 * Order of attempts: a transparent huge page (2 MiB-aligned anonymous mapping +
 * MADV_HUGEPAGE, faulted in at once), then a hugetlbfs page (MAP_HUGETLB, when the admin
 * reserved some: THP "never" is common on database hosts), then plain pages (reads are then
 * split at the block layer, which is correct; the caller reports which kind it got).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "kio.h"

#define KIO_HUGE_BYTES (2u << 20)

/*
 * Return 1 when the whole mapping that holds addr is transparent huge pages (its
 * AnonHugePages in /proc/self/smaps equals its size: neighbouring buffers may share the
 * mapping), 0 when not, or -errno.
 */
static int all_thp(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	char line[512];
	int in = 0, ret = -ENOENT;
	unsigned long size = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, kb;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = a >= lo && a < hi;
			size = hi - lo;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			ret = (unsigned long)kb * 1024 >= size;
			break;
		}
	}
	fclose(f);
	return ret;
}

void *kio_buf_alloc(size_t len, size_t *map_len, enum kio_buf_kind *kind)
{
	size_t sz = (len + KIO_HUGE_BYTES - 1) / KIO_HUGE_BYTES * KIO_HUGE_BYTES;
	size_t span = sz + KIO_HUGE_BYTES;
	uintptr_t start, aligned;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *h;

	if (p == MAP_FAILED)
		return NULL;
	start = (uintptr_t)p;
	aligned = (start + KIO_HUGE_BYTES - 1) & ~(uintptr_t)(KIO_HUGE_BYTES - 1);
	if (aligned > start)
		munmap(p, aligned - start);
	if (start + span > aligned + sz)
		munmap((void *)(aligned + sz), start + span - (aligned + sz));
	madvise((void *)aligned, sz, MADV_HUGEPAGE);	/* a hint: 4 KiB pages still work */
	memset((void *)aligned, 0, sz);			/* fault it in now, as huge pages */
	*map_len = sz;
	*kind = KIO_BUF_THP;
	if (all_thp((void *)aligned) == 1)
		return (void *)aligned;
	/* No (or not only) transparent huge pages: THP "never", or memory too fragmented. */
	h = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
		 -1, 0);
	if (h != MAP_FAILED) {
		munmap((void *)aligned, sz);
		memset(h, 0, sz);			/* reserved at mmap; fault in now */
		*kind = KIO_BUF_HUGETLB;
		return h;
	}
	*kind = KIO_BUF_PAGES;
	return (void *)aligned;
}

void kio_buf_free(void *buf, size_t map_len)
{
	if (buf)
		munmap(buf, map_len);
}
