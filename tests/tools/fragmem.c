/*
 * tests/tools/fragmem.c - scatter the free memory of a (test VM) kernel into single pages, so
 * that a user buffer faulted in afterwards is physically discontiguous page by page. A
 * passthrough command (NVMe uring_cmd/ioctl, SG_IO) maps such a buffer with one segment per
 * page and fails with EINVAL when that exceeds the queue's max_segments: a bug only a
 * fragmented machine shows, which a freshly booted VM otherwise hides.
 * Usage: fragmem MIB   (touches MIB MiB, gives back every other page, prints "ready", then
 *                       holds the rest until killed)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	char *p;

	if (argc != 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: fragmem MIB\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("fragmem: mmap");
		return 1;
	}
	/* Small pages only: a huge page would be given back whole. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	for (size_t off = 0; off < len; off += 2 * (size_t)page)
		madvise(p + off, (size_t)page, MADV_DONTNEED);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
