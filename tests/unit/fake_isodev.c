/*
 * tests/unit/fake_isodev.c - the fake device of test_isolate: each 512-byte block answers 0
 * (good) or a -errno; it checks every read is whole blocks inside it and that reads issued
 * together never touch, and counts reads per block and the batches.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fake_isodev.h"

struct fake_isodev dev;
void *isobuf;

ssize_t fake_read(void *arg, uint32_t dev_idx, void *buf, size_t len, uint64_t offset)
{
	int ret = 0;

	assert_ptr_equal(arg, (void *)(uintptr_t)FAKE_FD);
	assert_int_equal(dev_idx, 1);
	assert_int_equal(offset % LBS, 0);
	assert_int_equal(len % LBS, 0);
	assert_true(len > 0);
	assert_true(offset + len <= (uint64_t)DEV_BLOCKS * LBS);
	dev.reads++;
	if (len > dev.max_len)
		dev.max_len = len;
	for (uint64_t b = offset / LBS; b < (offset + len) / LBS; b++) {
		dev.block_reads[b]++;
		if (dev.err[b] && !ret)
			ret = dev.err[b];
	}
	if (ret)
		return ret;
	memset(buf, 0x5a, len);		/* and the buffer is big enough */
	return (ssize_t)len;
}

/* Reads issued together: the fake device answers each; records the batches. */
int fake_read_many(void *arg, uint32_t dev_idx, struct scan_iso_read *rd, unsigned n)
{
	assert_true(n > 0);
	if (dev.batches < 512) {
		dev.batch_len[dev.batches] = n;
		dev.batch_first[dev.batches] = rd[0].offset;
	}
	dev.batches++;
	/* Reads issued together never touch: the block layer would merge them. */
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (i != j)
				assert_true(rd[i].offset + rd[i].length < rd[j].offset ||
					    rd[j].offset + rd[j].length < rd[i].offset);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(rd[i].res, -EINTR);	/* isolation says "not read" first */
		if (dev.stop_after && dev.reads >= dev.stop_after)
			return -EINTR;
		rd[i].res = fake_read(arg, dev_idx, isobuf, rd[i].length, rd[i].offset);
	}
	return 0;
}

/* A short read: the device returns half of what was asked for where a block is "short". */
ssize_t short_read(void *arg, uint32_t dev_idx, void *buf, size_t len, uint64_t offset)
{
	ssize_t n = fake_read(arg, dev_idx, buf, len, offset);

	if (n == -EREMOTEIO)
		return (ssize_t)(len / 2);
	return n;
}
