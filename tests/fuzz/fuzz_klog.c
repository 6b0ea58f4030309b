/*
 * tests/fuzz/fuzz_klog.c - kernel log lines (klog/klog.c): any line, with or without a
 * kernel prefix, parsed; a parsed record turned into a byte range on devices of several sizes.
 */
#include "fuzz.h"
#include "klog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t dev_bytes[] = { 0, 512, 1ull << 30, 1ull << 50, UINT64_MAX };
	static const uint32_t lbs[] = { 0, 512, 4096 };
	char *line = fuzz_str(data, size);
	struct map_klog_rec rec;
	uint64_t off, len;
	const char *why;

	for (int msg = 0; msg < 2; msg++) {
		int ret = msg ? map_klog_parse_msg(line, &rec) : map_klog_parse(line, &rec);

		if (ret != 1)
			continue;
		for (size_t d = 0; d < sizeof(dev_bytes) / sizeof(dev_bytes[0]); d++)
			for (size_t l = 0; l < sizeof(lbs) / sizeof(lbs[0]); l++)
				if (map_klog_range(&rec, lbs[l], lbs[l], dev_bytes[d], &off, &len,
						   &why) == 0 &&
				    (len == 0 || off >= dev_bytes[d] || len > dev_bytes[d] - off))
					abort();	/* a range that leaves the device */
	}
	free(line);
	return 0;
}
