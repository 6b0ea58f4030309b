/*
 * tests/tools/cmpbench.c - the CPU a comparing scan spends per GiB read (tests/bench/
 * compare-cpu.sh): cmp_row over rows of agreeing legs (the common case: nothing differs) of a
 * RAID1 of 2 and of 3, a RAID5 row of 3 data chunks and P, a RAID6 row of 4 data chunks, P
 * and Q (built with ISA-L's xor_gen / pq_gen), LEG bytes per leg, until TOTAL bytes of legs
 * were copied into a row's buffer and compared (as the scan does); CPU seconds from
 * CLOCK_PROCESS_CPUTIME_ID. Prints one line per kind:
 *   KIND legs L bytes B cpu_s S s_per_gib X
 * Usage: cmpbench [TOTAL_MIB [LEG_KIB]] (default 4096 MiB, 1024 KiB)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/raid.h>

#include "compare.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One kind: a pool of POOL_BYTES of distinct rows (larger than the caches, as a scan's reads
 * are), each compared as the scan does it: every leg copied from the read buffer into the
 * row's buffer, then cmp_row_crc.
 */
#define POOL_BYTES (512ull << 20)

static int bench(const char *name, enum cmp_kind kind, unsigned nd, unsigned np, size_t leg,
		 uint64_t total)
{
	struct cmp_row_desc d = { .kind = kind, .nr_legs = nd + np };
	size_t row = leg * d.nr_legs, nrows = POOL_BYTES / row ? POOL_BYTES / row : 1;
	unsigned char *pool, *dst;
	const void *legs[CMP_MAX_LEGS];
	struct cmp_run run[8];
	uint64_t done = 0;
	double t0;

	if (posix_memalign((void **)&pool, 4096, nrows * row) ||
	    posix_memalign((void **)&dst, 4096, row))
		return -1;
	for (unsigned i = 0; i < d.nr_legs; i++) {
		d.leg[i].role = kind == CMP_MIRROR ? CMP_COPY : i < nd ? CMP_DATA :
				i == nd ? CMP_P : CMP_Q;
		d.leg[i].index = kind == CMP_MIRROR ? (int)i : i < nd ? (int)i : 0;
		legs[i] = dst + i * leg;
	}
	for (size_t r = 0; r < nrows; r++) {
		unsigned char *b = pool + r * row;
		void *v[CMP_MAX_LEGS];

		for (size_t k = 0; k < leg * (kind == CMP_MIRROR ? 1 : nd); k++)
			b[k] = (unsigned char)(rand() >> 7);
		for (unsigned i = 0; i < d.nr_legs; i++)
			v[i] = b + i * leg;
		if (kind == CMP_MIRROR)
			for (unsigned i = 1; i < d.nr_legs; i++)
				memcpy(v[i], v[0], leg);
		else if (kind == CMP_XOR)
			xor_gen((int)d.nr_legs, (int)leg, v);
		else
			pq_gen((int)d.nr_legs, (int)leg, v);
	}
	t0 = cpu_now();
	for (size_t r = 0; done < total; r = (r + 1) % nrows) {
		int n;

		memcpy(dst, pool + r * row, row);
		n = cmp_row_crc(&d, legs, leg, 4096, run, 8);
		if (n != 0) {
			fprintf(stderr, "%s: the row differs (%d)\n", name, n);
			return -1;
		}
		done += row;
	}
	t0 = cpu_now() - t0;
	printf("%s legs %u bytes %llu cpu_s %.3f s_per_gib %.4f\n", name, d.nr_legs,
	       (unsigned long long)done, t0, t0 / ((double)done / (1u << 30)));
	free(pool);
	free(dst);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t total = (argc > 1 ? strtoull(argv[1], NULL, 10) : 4096) << 20;
	size_t leg = (argc > 2 ? strtoul(argv[2], NULL, 10) : 1024) << 10;

	if (!total || !leg || leg % 4096) {
		fprintf(stderr, "usage: cmpbench [TOTAL_MIB [LEG_KIB, a multiple of 4]]\n");
		return 2;
	}
	if (bench("raid1-2", CMP_MIRROR, 2, 0, leg, total) ||
	    bench("raid1-3", CMP_MIRROR, 3, 0, leg, total) ||
	    bench("raid5-3+p", CMP_XOR, 3, 1, leg, total) ||
	    bench("raid6-4+pq", CMP_PQ, 4, 2, leg, total))
		return 1;
	return 0;
}
